"""A `stratum index` process loads pyarrow.dataset and lance without pandas (~0.2 s of a one-file
re-index) and still reads and writes Lance datasets; a caller's own process is left alone."""

import subprocess
import sys

CHILD = r"""
import sys
from stratum.cli.index import arrow_without_pandas
arrow_without_pandas()
import lance, pyarrow as pa
ds = lance.write_dataset(pa.table({"a": [1, 2], "s": ["x", None]}), sys.argv[1])
assert lance.dataset(sys.argv[1]).to_table().to_pylist() == [{"a": 1, "s": "x"}, {"a": 2, "s": None}]
print("pandas" in sys.modules)
"""


def test_index_process_skips_pandas(tmp_path):
    out = subprocess.run([sys.executable, "-c", CHILD, str(tmp_path / "t.lance")],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"


def test_no_op_once_arrow_is_loaded():
    import pyarrow.dataset  # noqa: F401

    from stratum.cli.index import arrow_without_pandas

    hooks = list(sys.meta_path)
    arrow_without_pandas()
    assert sys.meta_path == hooks
