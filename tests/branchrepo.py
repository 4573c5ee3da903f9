"""What the branch-note tests share: an index config without Ray or vectors (fast, real parse and
merge), the small shop/cart.py versions they commit on main and on a feature branch, and the words
a default session says of a note about a feature branch's code."""

from stratum.config import EmbedConfig, IndexConfig

CFG = IndexConfig(num_cpus=1, ray=False, embed=EmbedConfig(enabled=False))
CART = "def total(x):\n    return x\n"
ZETA = "def zeta(y):\n    return y\n"
ZETA_FZ = "def zeta(y):\n    return -y\n"          # fz's version
ZETA_MAIN = "def zeta(y):\n    return y + 0\n"      # main's, changed after fz forked
NOT_MERGED = "not merged into the default branch yet"
