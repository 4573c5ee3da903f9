"""The model weights' hash is remembered on disk by file identity, and a changed file is hashed
again (so a swapped model is never mistaken for the old one)."""

import hashlib
import os

from stratum import embedder


def _model(d, weights: bytes):
    d.mkdir(exist_ok=True)
    (d / "model.safetensors").write_bytes(weights)
    (d / "config.json").write_text("{}")
    return d


def _expected(d) -> str:
    h = hashlib.sha256()
    for name in ("model.safetensors", "config.json"):
        h.update(name.encode() + b"\0" + (d / name).read_bytes())
    return h.hexdigest()


def test_memo_on_disk_and_rehash_on_change(monkeypatch, tmp_path):
    monkeypatch.setenv("STRATUM_CACHE", str(tmp_path / "cache"))
    d = _model(tmp_path / "m", b"w1" * 1000)
    first = embedder.weights_hash(d)
    assert first == _expected(d)
    assert (tmp_path / "cache" / "models" / "weights-hashes.json").is_file()
    embedder._weights_hash.cache_clear()                 # a new process: answered from the memo
    calls = []
    monkeypatch.setattr(embedder, "_hash_files", lambda m: calls.append(m) or "x")
    assert embedder.weights_hash(d) == first and not calls
    monkeypatch.undo()
    monkeypatch.setenv("STRATUM_CACHE", str(tmp_path / "cache"))
    (d / "model.safetensors").write_bytes(b"w2" * 1000)     # same size, new content and mtime
    st = os.stat(d / "model.safetensors")
    os.utime(d / "model.safetensors", ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))
    embedder._weights_hash.cache_clear()
    assert embedder.weights_hash(d) == _expected(d) != first


def test_torn_memo_is_ignored(monkeypatch, tmp_path):
    monkeypatch.setenv("STRATUM_CACHE", str(tmp_path / "cache"))
    (tmp_path / "cache" / "models").mkdir(parents=True)
    (tmp_path / "cache" / "models" / "weights-hashes.json").write_text("{not json")
    d = _model(tmp_path / "m", b"abc")
    embedder._weights_hash.cache_clear()
    assert embedder.weights_hash(d) == _expected(d)
