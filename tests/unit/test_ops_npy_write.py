"""``npyio.save``: byte for byte what ``np.save`` writes, and a failed write says why with its
errno and the file (numpy's C writer said "1211 requested and 992 written" on a full disk)."""

from __future__ import annotations

import errno
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from stratum import npyio

ROOT = Path(__file__).resolve().parents[2]
ARRAYS = [np.arange(12, dtype=np.int32).reshape(3, 4), np.zeros((0, 384), np.float16),
          np.asfortranarray(np.random.default_rng(1).random((5, 3))), np.array(3.5), np.array([True, False]),
          np.arange(20, dtype=np.uint64)[::3], np.array([(1, 2.0)], dtype=[("a", "<i4"), ("b", "<f8")])]


@pytest.mark.parametrize("k", range(len(ARRAYS)))
def test_it_writes_what_np_save_writes(tmp_path, k):
    np.save(tmp_path / "numpy.npy", ARRAYS[k])
    npyio.save(tmp_path / "ours.npy", ARRAYS[k])
    assert (tmp_path / "ours.npy").read_bytes() == (tmp_path / "numpy.npy").read_bytes()


def test_a_short_write_names_its_errno_and_file(tmp_path):
    """A file-size limit (RLIMIT_FSIZE, Python ignores SIGXFSZ) cuts the write short part-way, as
    a full disk does: the error is EFBIG with the file, as ENOSPC would be."""
    target = tmp_path / "kw.rows.npy"
    code = ("import resource, numpy as np\n"
            "from stratum import npyio\n"
            "resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))\n"
            "try:\n"
            f"    npyio.save({str(target)!r}, np.arange(100_000, dtype=np.int64))\n"
            "except OSError as e:\n"
            "    print(e.errno, e.strerror, e.filename, sep='|')\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == f"{errno.EFBIG}|File too large|{target}", out.stderr


def test_a_full_device_says_no_space_left(tmp_path):
    (tmp_path / "full.npy").symlink_to("/dev/full")
    with pytest.raises(OSError) as e:
        npyio.save(tmp_path / "full.npy", np.arange(10_000))
    assert e.value.errno == errno.ENOSPC and "No space left on device" in str(e.value)
