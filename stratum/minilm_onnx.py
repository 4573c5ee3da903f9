"""MiniLM (BERT encoder + mean pooling + L2 normalise) as an ONNX graph built from safetensors.

Why build the graph ourselves: exporting with torch would make torch (a multi-GB install) a
dependency of indexing. The BERT forward pass is small and fixed, so we write it once with
``onnx.helper`` from the packaged weights, and keep a plain numpy forward pass beside it as the
reference the graph is tested against.

The graph takes ``input_ids`` and ``attention_mask`` (int64, [batch, seq]) and returns
``embedding`` (float32, [batch, hidden]): mean of the last hidden states over real tokens,
L2-normalised, as sentence-transformers' all-MiniLM-L6-v2 (Transformer -> Pooling(mean) ->
Normalize). Token type ids are always 0 for single sentences, so that embedding row is folded
into a constant. Two precisions: fp32 weights, or int8 linear layers with per-token activation
scales and SmoothQuant channel scales calibrated on ``CALIBRATION_TEXTS`` (``build_model``).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

GRAPH_VERSION = 3   # bump when the emitted graph changes, so cached .onnx files are rebuilt
OPSET = 17          # LayerNormalization is a standard op from opset 17


@dataclass(frozen=True)
class BertShape:
    hidden: int
    heads: int
    layers: int
    intermediate: int
    max_positions: int
    eps: float

    @classmethod
    def from_config(cls, model_dir: Path) -> "BertShape":
        c = json.loads((model_dir / "config.json").read_text())
        if c.get("hidden_act", "gelu") != "gelu" or c.get("position_embedding_type", "absolute") != "absolute":
            raise ValueError(f"{model_dir}: only absolute-position, exact-gelu BERT encoders are supported")
        return cls(hidden=c["hidden_size"], heads=c["num_attention_heads"], layers=c["num_hidden_layers"],
                   intermediate=c["intermediate_size"], max_positions=c["max_position_embeddings"],
                   eps=float(c.get("layer_norm_eps", 1e-12)))


def load_weights(model_dir: Path) -> dict[str, np.ndarray]:
    from safetensors.numpy import load_file

    return load_file(str(model_dir / "model.safetensors"))


def check_pooling(model_dir: Path) -> None:
    """Refuse a model whose sentence-transformers pooling is not plain mean pooling."""
    p = model_dir / "1_Pooling" / "config.json"
    if p.is_file():
        c = json.loads(p.read_text())
        others = [k for k, v in c.items() if k.startswith("pooling_mode_") and v and k != "pooling_mode_mean_tokens"]
        if not c.get("pooling_mode_mean_tokens") or others:
            raise ValueError(f"{p}: only mean pooling is supported, got {c}")


# ---- numpy reference -------------------------------------------------------------------------

def _layer_norm(x: np.ndarray, g: np.ndarray, b: np.ndarray, eps: float) -> np.ndarray:
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * g + b


def _erf(x: np.ndarray) -> np.ndarray:
    """Abramowitz & Stegun 7.1.26 (abs error < 1.5e-7): numpy has no erf and scipy is not a dependency."""
    s = np.sign(x)
    a = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * a)
    y = 1.0 - (((((1.061405429 * t - 1.453152027) * t) + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * np.exp(-a * a)
    return s * y


def _gelu(x: np.ndarray) -> np.ndarray:
    return 0.5 * x * (1.0 + _erf(x / math.sqrt(2.0)))


def reference_forward(w: dict[str, np.ndarray], shape: BertShape, input_ids: np.ndarray,
                      attention_mask: np.ndarray, dtype=np.float32, observe=None) -> np.ndarray:
    """The model in plain numpy, step by step as in HF BertModel: the graph's ground truth.

    ``observe(name, x)``, if given, sees the input of every linear layer (named as in the graph:
    ``l<i>.qkv``, ``l<i>.attn.out``, ``l<i>.ffn.in``, ``l<i>.ffn.out``) with padding rows removed.
    """
    f = {k: v.astype(dtype, copy=False) for k, v in w.items() if v.dtype.kind == "f"}
    b, t = input_ids.shape
    x = f["embeddings.word_embeddings.weight"][input_ids]
    x = x + f["embeddings.position_embeddings.weight"][:t][None]
    x = x + f["embeddings.token_type_embeddings.weight"][0][None, None]
    x = _layer_norm(x, f["embeddings.LayerNorm.weight"], f["embeddings.LayerNorm.bias"], shape.eps)
    mask = attention_mask.astype(dtype)
    bias = ((1 - mask) * np.finfo(np.float32).min).astype(dtype)[:, None, None, :]
    hd = shape.hidden // shape.heads

    def lin(h, name):
        return h @ f[name + ".weight"].T + f[name + ".bias"]

    real = attention_mask.astype(bool)

    def seen(name, h):
        if observe is not None:
            observe(name, h[real])

    for i in range(shape.layers):
        p = f"encoder.layer.{i}."
        seen(f"l{i}.qkv", x)
        q, k, v = (lin(x, p + "attention.self." + n).reshape(b, t, shape.heads, hd).transpose(0, 2, 1, 3)
                   for n in ("query", "key", "value"))
        s = q @ k.transpose(0, 1, 3, 2) * dtype(1.0 / math.sqrt(hd)) + bias
        s = np.exp(s - s.max(-1, keepdims=True))
        s = s / s.sum(-1, keepdims=True)
        ctx = (s @ v).transpose(0, 2, 1, 3).reshape(b, t, shape.hidden)
        seen(f"l{i}.attn.out", ctx)
        x = _layer_norm(lin(ctx, p + "attention.output.dense") + x,
                        f[p + "attention.output.LayerNorm.weight"], f[p + "attention.output.LayerNorm.bias"], shape.eps)
        seen(f"l{i}.ffn.in", x)
        h = _gelu(lin(x, p + "intermediate.dense"))
        seen(f"l{i}.ffn.out", h)
        x = _layer_norm(lin(h, p + "output.dense") + x,
                        f[p + "output.LayerNorm.weight"], f[p + "output.LayerNorm.bias"], shape.eps)
    pooled = (x * mask[:, :, None]).sum(1) / np.maximum(mask.sum(1, keepdims=True), 1e-9)
    return (pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)).astype(np.float32)


# ---- ONNX graph ------------------------------------------------------------------------------

QUANT_MODES = (None, "int8")
GELU_SHIFT = 0.17   # min over x of x * Phi(x) is -0.16997
SMOOTH_ALPHA = 0.5  # SmoothQuant migration strength (Xiao et al. 2023): half the outlier range moves to W

# Calibration text for the int8 graph's per-channel smoothing scales: prose, short queries and code,
# fixed here so the same weights always give the same graph.
CALIBRATION_TEXTS = (
    "x",
    "where is the retry logic",
    "parse the config file",
    "how are blueprints registered with the application",
    "The cause of the crash is in app.py: the error handler is looked up before the blueprint is registered.",
    "Tried to fix it in the session middleware; failed because the cookie is signed before the handler runs.",
    "def load(path: str, *, strict: bool = False) -> dict:\n    \"\"\"Read a JSON config file.\"\"\"\n"
    "    with open(path) as f:\n        return json.load(f)",
    "class LRUCache:\n    def __init__(self, size=128):\n        self._data = OrderedDict()\n        self.size = size",
    "func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }",
    "export function render(template, context) { return template.replace(/{{(\\w+)}}/g, (_, k) => context[k]); }",
    "src/flask/app.py Flask.add_url_rule flask add url rule\ndef add_url_rule(self, rule, endpoint=None, view_func=None)",
    "README: install with pip, then run `stratum index .` to build the memory of this repository.",
)


def calibrate(w: dict[str, np.ndarray], shape: BertShape, token_ids: list[np.ndarray]) -> dict[str, np.ndarray]:
    """Per-channel max |x| of every linear layer's input over the calibration tokens (numpy, fp32)."""
    ranges: dict[str, np.ndarray] = {}

    def observe(name, x):
        if name.endswith("ffn.out"):
            x = x + GELU_SHIFT
        m = np.abs(x).max(axis=0)
        ranges[name] = np.maximum(ranges[name], m) if name in ranges else m

    width = max(len(t) for t in token_ids)
    ids = np.zeros((len(token_ids), width), dtype=np.int64)
    mask = np.zeros_like(ids)
    for r, t in enumerate(token_ids):        # one padded batch; observe() sees real tokens only
        ids[r, :len(t)] = t
        mask[r, :len(t)] = 1
    reference_forward(w, shape, ids, mask, observe=observe)
    return ranges


def build_model(w: dict[str, np.ndarray], shape: BertShape, quant: str | None = None,
                ranges: dict[str, np.ndarray] | None = None):
    """The encoder as an ``onnx.ModelProto`` (standard ops; onnxruntime fuses them at load).

    Activations are kept 2-D ([batch*seq, hidden]) so every linear layer is one plain GEMM, and
    Q, K, V are one GEMM with the three weight matrices side by side.

    ``quant``: None for fp32 weights; ``"int8"``: int8 linear layers with per-output-channel
    weight scales and a per-ROW (per token) dynamic activation scale. Per token, not per tensor (as
    onnxruntime's dynamic quantiser does), so a text's vector does not depend on which other texts
    or how much padding share its batch, and one outlier token does not coarsen every other
    token's code. ``ranges`` (from ``calibrate``) turns on SmoothQuant-style smoothing: BERT's
    hidden states carry a few outlier channels (here 99, 223, 267) that would take most of each
    token's 8-bit range; dividing channel j by a power of two s_j before quantising, and
    multiplying row j of W by it, leaves x @ W unchanged and flattens the code's range.
    Measured against onnxruntime's quantiser in docs/bench/embed.md.
    """
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    if quant not in QUANT_MODES:
        raise ValueError(f"quant must be one of {QUANT_MODES}, got {quant!r}")
    inits: dict[str, Any] = {}
    nodes: list = []

    def const(name: str, arr: np.ndarray) -> str:
        if name not in inits:   # shared constants are declared once
            inits[name] = numpy_helper.from_array(np.ascontiguousarray(arr), name)
        return name

    def node(op: str, inputs: list[str], out: str, **attrs) -> str:
        nodes.append(helper.make_node(op, inputs, [out], name=out, **attrs))
        return out

    h, hd = shape.hidden, shape.hidden // shape.heads
    i64 = lambda *v: np.array(v, dtype=np.int64)  # noqa: E731
    f32 = lambda v: np.array(v, dtype=np.float32)  # noqa: E731

    # Shapes: [batch, seq] of the input; activations are [batch*seq, hidden].
    bs = node("Shape", ["input_ids"], "shape.bs")
    seq = node("Shape", ["input_ids"], "shape.seq", start=1, end=2)
    heads4 = node("Concat", [bs, const("c.heads_hd", i64(shape.heads, hd))], "shape.heads", axis=0)
    bsh = node("Concat", [bs, const("c.hidden", i64(h))], "shape.bsh", axis=0)
    flat = const("c.flat", i64(-1, h))

    # Embeddings: word + position[:seq] + token_type[0], then LayerNorm.
    word = node("Gather", [const("emb.word", w["embeddings.word_embeddings.weight"]), "input_ids"], "emb.word_out")
    pos = node("Slice", [const("emb.pos", w["embeddings.position_embeddings.weight"]), const("c.zero1", i64(0)),
                         seq, const("c.axis0", i64(0))], "emb.pos_out")
    x = node("Add", [word, pos], "emb.sum1")
    x = node("Add", [x, const("emb.type0", w["embeddings.token_type_embeddings.weight"][0])], "emb.sum2")
    x = node("Reshape", [x, flat], "emb.flat")
    x = node("LayerNormalization", [x, const("emb.ln.g", w["embeddings.LayerNorm.weight"]),
                                    const("emb.ln.b", w["embeddings.LayerNorm.bias"])], "emb.out",
             axis=-1, epsilon=shape.eps)

    # Additive attention mask [batch, 1, 1, seq]: 0 for tokens, float32 min for padding.
    maskf = node("Cast", ["attention_mask"], "mask.f", to=TensorProto.FLOAT)
    inv = node("Sub", [const("c.one", f32(1.0)), maskf], "mask.inv")
    big = node("Mul", [inv, const("c.neg", f32(np.finfo(np.float32).min))], "mask.big")
    mask_bias = node("Unsqueeze", [big, const("c.axes12", i64(1, 2))], "mask.bias")
    scale = const("c.scale", f32(1.0 / math.sqrt(hd)))

    def quantize_rows(inp: str, out: str, unsigned: bool) -> tuple[str, str, int]:
        """uint8 codes, per-row scale [rows, 1] and zero point of a 2-D activation: symmetric
        (zero point 128), or over all 255 steps (zero point 0) for an input known to be >= 0."""
        if unsigned:
            amax = node("ReduceMax", [inp], out + ".amax", axes=[1], keepdims=0)
            levels, zero = 255.0, 0
        else:
            amax = node("ReduceMax", [node("Abs", [inp], out + ".abs")], out + ".amax", axes=[1], keepdims=0)
            levels, zero = 127.0, 128
        sc = node("Max", [node("Mul", [amax, const(f"c.inv{levels:g}", f32(1 / levels))], out + ".s0"),
                          const("c.tiny_s", f32(1e-12))], out + ".scale")
        zp = node("Cast", [node("Add", [node("Mul", [sc, const("c.zero_f", f32(0.0))], out + ".z0"),
                                        const(f"c.f{zero}", f32(zero))], out + ".z1")], out + ".zp", to=TensorProto.UINT8)
        q = node("QuantizeLinear", [inp, sc, zp], out + ".q", axis=0)
        return q, node("Unsqueeze", [sc, const("c.axis1u", i64(1))], out + ".scale2"), zero

    def linear(inp: str, names: list[str], out: str, shift: float = 0.0) -> str:
        """x @ W + b. int8: shift > 0 marks an input known to be >= -shift (the GELU output), which
        is quantised as x + shift over all 255 steps (twice the resolution); the bias takes the
        difference back."""
        wt = np.concatenate([w[n + ".weight"].T for n in names], axis=1)   # [in, out]
        b = np.concatenate([w[n + ".bias"] for n in names])
        if quant is None:
            y = node("MatMul", [inp, const(out + ".w", wt)], out + ".mm")
            return node("Add", [y, const(out + ".b", b)], out)
        smooth = np.ones(wt.shape[0], np.float32)
        if ranges is not None:
            xr = np.maximum(ranges[out], 1e-5)
            wr = np.maximum(np.abs(wt).max(axis=1), 1e-5)
            smooth = np.exp2(np.round(np.log2(xr ** SMOOTH_ALPHA / wr ** (1 - SMOOTH_ALPHA)))).astype(np.float32)
        src = inp
        if shift:
            src = node("Add", [src, const(f"c.shift{shift}", f32(shift))], out + ".shifted")
        if ranges is not None:
            src = node("Mul", [src, const(out + ".inv_smooth", (1 / smooth).astype(np.float32))], out + ".smoothed")
        q, sa, zero = quantize_rows(src, out + ".rq", unsigned=bool(shift))
        wt_s = wt * smooth[:, None]
        # 7-bit weights: AVX2 without VNNI sums u8*s8 pairs in int16 and would saturate at 8 bits.
        sw = (np.maximum(np.abs(wt_s).max(axis=0), 1e-12) / 63).astype(np.float32)
        wq = np.round(wt_s / sw).astype(np.int8)
        # MatMulIntegerToFloat applies the per-column weight scale in the GEMM's epilogue; the
        # per-row activation scale is one Mul after it.
        y = node("MatMulIntegerToFloat", [q, const(out + ".wq", wq), const("c.one_s", f32(1.0)), const(out + ".sw", sw),
                                          const(f"c.u{zero}", np.array(zero, np.uint8))],
                 out + ".mmf", domain="com.microsoft")
        y = node("Mul", [y, sa], out + ".mm")
        if shift:   # the GEMM saw x + shift: subtract shift * column sums of the weights it used
            b = b - shift * (wq.astype(np.float64) * sw / smooth[:, None]).sum(axis=0)
        return node("Add", [y, const(out + ".b", b.astype(np.float32))], out)

    for i in range(shape.layers):
        p = f"encoder.layer.{i}."
        o = f"l{i}."
        qkv = linear(x, [p + "attention.self." + n for n in ("query", "key", "value")], o + "qkv")
        parts = [o + "q", o + "k", o + "v"]
        nodes.append(helper.make_node("Split", [qkv, const("c.split3", i64(h, h, h))], parts, name=o + "split", axis=1))
        split = {}
        for n, part in zip(("q", "k", "v"), parts):
            y = node("Reshape", [part, heads4], part + ".heads")
            split[n] = node("Transpose", [y], part + ".t", perm=[0, 2, 3, 1] if n == "k" else [0, 2, 1, 3])
        s = node("MatMul", [split["q"], split["k"]], o + "scores")
        s = node("Mul", [s, scale], o + "scores.scaled")
        s = node("Add", [s, mask_bias], o + "scores.masked")
        s = node("Softmax", [s], o + "probs", axis=-1)
        ctx = node("MatMul", [s, split["v"]], o + "ctx")
        ctx = node("Transpose", [ctx], o + "ctx.t", perm=[0, 2, 1, 3])
        ctx = node("Reshape", [ctx, flat], o + "ctx.flat")
        a = linear(ctx, [p + "attention.output.dense"], o + "attn.out")
        a = node("Add", [a, x], o + "attn.res")
        x = node("LayerNormalization", [a, const(o + "ln1.g", w[p + "attention.output.LayerNorm.weight"]),
                                        const(o + "ln1.b", w[p + "attention.output.LayerNorm.bias"])],
                 o + "attn.ln", axis=-1, epsilon=shape.eps)
        f = linear(x, [p + "intermediate.dense"], o + "ffn.in")
        g = node("Div", [f, const("c.sqrt2", f32(math.sqrt(2.0)))], o + "gelu.div")
        g = node("Erf", [g], o + "gelu.erf")
        g = node("Add", [g, const("c.one_b", f32(1.0))], o + "gelu.add")
        g = node("Mul", [f, g], o + "gelu.mul")
        g = node("Mul", [g, const("c.half", f32(0.5))], o + "gelu.out")
        f = linear(g, [p + "output.dense"], o + "ffn.out", shift=GELU_SHIFT)
        f = node("Add", [f, x], o + "ffn.res")
        x = node("LayerNormalization", [f, const(o + "ln2.g", w[p + "output.LayerNorm.weight"]),
                                        const(o + "ln2.b", w[p + "output.LayerNorm.bias"])],
                 o + "ffn.ln", axis=-1, epsilon=shape.eps)

    # Mean pooling over real tokens, then L2 normalisation.
    x = node("Reshape", [x, bsh], "pool.in")
    m3 = node("Unsqueeze", [maskf, const("c.axis2", i64(2))], "pool.mask")
    summed = node("ReduceSum", [node("Mul", [x, m3], "pool.masked"), const("c.axis1", i64(1))], "pool.sum", keepdims=0)
    count = node("ReduceSum", [maskf, const("c.axis1b", i64(1))], "pool.count", keepdims=1)
    count = node("Max", [count, const("c.tiny", f32(1e-9))], "pool.count_safe")
    pooled = node("Div", [summed, count], "pool.mean")
    norm = node("ReduceL2", [pooled], "norm.l2", axes=[1], keepdims=1)  # axes: attribute until opset 18
    norm = node("Max", [norm, const("c.eps12", f32(1e-12))], "norm.safe")
    node("Div", [pooled, norm], "embedding")

    graph = helper.make_graph(
        nodes, "minilm",
        [helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "seq"]),
         helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch", "seq"])],
        [helper.make_tensor_value_info("embedding", TensorProto.FLOAT, ["batch", h])],
        initializer=list(inits.values()))
    opsets = [helper.make_opsetid("", OPSET)] + ([helper.make_opsetid("com.microsoft", 1)] if quant else [])
    model = helper.make_model(graph, opset_imports=opsets,
                              producer_name="stratum.minilm_onnx", producer_version=str(GRAPH_VERSION))
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


__all__ = ["GRAPH_VERSION", "QUANT_MODES", "CALIBRATION_TEXTS", "BertShape", "load_weights", "check_pooling",
           "reference_forward", "calibrate", "build_model"]
