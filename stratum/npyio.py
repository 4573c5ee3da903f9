"""``np.load`` and ``ast.literal_eval`` safe beside other threads: every AST our code builds; and
``np.save`` whose failed write names its errno.

numpy parses an .npy header with ``ast.literal_eval``; CPython before 3.11.8 keeps the AST
constructor's recursion depth in shared module state (gh-106905), so two threads building AST
objects at once (a header parse on the warm build's vector thread and a docstring literal on the
main thread) fail with "SystemError: AST constructor recursion depth mismatch" (seen in a
clean-clone CI run). Only Python AST objects race (``ast.parse``, ``literal_eval`` of a string);
compiling source to code, as an import does, does not build them. Header parses and literals go
through one lock here; the data is read or memory-mapped outside it.
"""

from __future__ import annotations

import ast
import threading
from pathlib import Path
from typing import Any, Literal

import numpy as np
from numpy.lib import format as npf

_AST_LOCK = threading.RLock()    # reentrant: a finaliser the GC runs mid-parse may parse, not hang


def load(path: str | Path, mmap_mode: Literal["r", "r+", "c"] | None = None) -> np.ndarray:
    """The array in an .npy file (no pickled objects), memory-mapped when ``mmap_mode`` is given:
    then a plain ndarray view of the map (it keeps the map open), not an ``np.memmap``, whose
    Python-level ``__array_finalize__`` runs on every slice and cost more than the lookups that
    slice the warm indexes (~5 us a slice; a query embedding ran it ~3 times a text)."""
    with open(path, "rb") as f:
        with _AST_LOCK:
            version = npf.read_magic(f)
            if version == (1, 0):
                shape, fortran, dtype = npf.read_array_header_1_0(f)
            elif version == (2, 0):
                shape, fortran, dtype = npf.read_array_header_2_0(f)
            else:
                return np.load(path, mmap_mode=mmap_mode)      # a newer format: numpy's own reader
        if dtype.hasobject:
            raise ValueError(f"{path}: object arrays are not read here")
        order: Literal["C", "F"] = "F" if fortran else "C"
        if mmap_mode:
            mm: Any = np.memmap(path, dtype=dtype, mode=mmap_mode, shape=shape, order=order,  # type: ignore[call-overload]
                                offset=f.tell())    # numpy's stubs type dtype and order narrower than it accepts
            return np.asarray(mm)
        count = int(np.prod(shape)) if shape else 1
        data = np.fromfile(f, dtype=dtype, count=count)
        if data.size != count:
            raise ValueError(f"{path}: {data.size} of {count} values present (cut short)")
        return data.reshape(shape, order=order)


def save(path: str | Path, array: Any) -> None:
    """Write ``array`` as an .npy file, byte for byte what ``np.save`` writes (no pickled objects).
    A failed write says why with its errno and the file (``No space left on device``, ``File too
    large``): ``np.save`` hands the data to C ``fwrite``, whose short write raised "1211 requested
    and 992 written" on a full disk, naming neither. The data goes through Python's file object
    as one buffer (no copy of a contiguous array)."""
    arr = np.asarray(array)
    if arr.dtype.hasobject:
        raise ValueError(f"{path}: object arrays are not written here")
    if not (arr.flags.c_contiguous or arr.flags.f_contiguous):
        arr = np.ascontiguousarray(arr)
    header = npf.header_data_from_array_1_0(arr)
    data = arr.T if header["fortran_order"] else arr        # either way C-contiguous: the file's order
    try:
        with open(path, "wb") as f:
            npf.write_array_header_1_0(f, header)
            f.write(data.reshape(-1).view(np.uint8).data if data.size else b"")
    except OSError as e:
        if e.filename is None and e.errno is not None:      # a write's error names no file: name it
            raise OSError(e.errno, e.strerror, str(path)) from None
        raise


def literal_eval(text: str) -> Any:
    """``ast.literal_eval(text)``, under the lock of every other AST built here (same value,
    same errors)."""
    with _AST_LOCK:
        return ast.literal_eval(text)


__all__ = ["literal_eval", "load", "save"]
