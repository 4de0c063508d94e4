# Development tasks. `make test` sets up .venv on first use; later runs reuse it.
PY ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
# Keep in sync with the `oracle` extra in pyproject.toml; never install an unpinned torch.
TORCH_PIN := torch==2.13.0
# The GPT-2 oracle tests build small random Hugging Face folders with it (nothing is downloaded).
TRANSFORMERS_PIN := transformers==5.24.0
# The .safetensors oracle tests write and read files with the reference library.
SAFETENSORS_PIN := safetensors==0.8.0
# SummaryWriter's oracle tests write real event files with it and read them back.
TENSORBOARD_PIN := tensorboard==2.21.0

.PHONY: venv graphviz browser test test-oracle fuzz lint format demo bench notebooks screenshot \
	clean distclean

venv: $(VENV)/.stamp-dev graphviz browser

# Graphviz's `dot` program renders tg.draw_graph to SVG/PNG. It is a system package, not a pip
# one: installed here when we can (root, with apt-get); otherwise a note, and the tests that
# render skip. It never fails the build (.ci/run insists on it).
graphviz:
	@command -v dot >/dev/null 2>&1 && exit 0; \
	note="NOTE: Graphviz's dot is not installed, so graphs cannot be rendered (the tests that \
	render will skip). Install it with: apt-get install graphviz / brew install graphviz / \
	conda install -c conda-forge graphviz"; \
	if command -v apt-get >/dev/null 2>&1 && [ "$$(id -u)" = 0 ]; then \
		echo "Installing Graphviz (dot) with apt-get ..."; \
		export DEBIAN_FRONTEND=noninteractive; \
		apt-get install -y -qq graphviz >/dev/null 2>&1 || \
		{ apt-get update -qq >/dev/null 2>&1 && \
		  apt-get install -y -qq graphviz >/dev/null 2>&1; } || \
		echo "$$note (apt-get install graphviz failed)"; \
	else \
		echo "$$note"; \
	fi

# Headless Chromium and its driver run the backprop explorer's page in tests
# (tests/learn/test_explore_browser.py, with selenium from the dev extra). Debian's packages, installed
# like Graphviz: with apt-get when root; otherwise a note, and those tests skip saying why.
browser:
	@command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1 && exit 0; \
	note="NOTE: headless Chromium is not installed, so the browser tests of the backprop \
	explorer will skip. Install it with: apt-get install chromium chromium-driver"; \
	if command -v apt-get >/dev/null 2>&1 && [ "$$(id -u)" = 0 ]; then \
		echo "Installing Chromium and chromedriver with apt-get ..."; \
		export DEBIAN_FRONTEND=noninteractive; \
		apt-get install -y -qq chromium chromium-driver >/dev/null 2>&1 || \
		{ apt-get update -qq >/dev/null 2>&1 && \
		  apt-get install -y -qq chromium chromium-driver >/dev/null 2>&1; } || \
		echo "$$note (apt-get install chromium chromium-driver failed)"; \
	else \
		echo "$$note"; \
	fi

$(BIN)/python:
	@echo "Creating the virtual environment $(VENV) ..."
	$(PY) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# What the demo needs, and nothing more: the package and its runtime dependencies. pip's whole
# output (with setuptools' notes on editable installs) goes to a log, shown only if it fails.
$(VENV)/.stamp-run: pyproject.toml | $(BIN)/python
	@echo "Installing tinygrad_norm and its runtime dependencies (numpy, graphviz, tqdm) ..."
	@$(BIN)/python -m pip install --progress-bar off --disable-pip-version-check -e . \
		>$(VENV)/pip-install.log 2>&1 || { cat $(VENV)/pip-install.log; \
		echo "the install failed: see above ($(VENV)/pip-install.log)"; exit 1; }
	@grep -E '^Successfully installed' $(VENV)/pip-install.log || true
	@$(BIN)/python -c "import tinygrad_norm" || { echo "the install failed: see above"; exit 1; }
	@touch $@

# Reinstalled only when pyproject.toml changes.
$(VENV)/.stamp-dev: pyproject.toml | $(BIN)/python
	@echo "Installing tinygrad_norm with its test tools (the dev extra) ..."
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(VENV)/.stamp-run $@

$(VENV)/.stamp-oracle: $(VENV)/.stamp-dev
	$(BIN)/pip install --quiet '$(TORCH_PIN)' '$(TRANSFORMERS_PIN)' '$(SAFETENSORS_PIN)' '$(TENSORBOARD_PIN)'
	touch $@

# The whole suite; tests marked `oracle` skip when PyTorch is not installed.
test: venv
	$(BIN)/python -m pytest

# pytest exits with 5 when it collects no test: not a failure here, but said loudly.
test-oracle: $(VENV)/.stamp-oracle
	@status=0; $(BIN)/python -m pytest -m oracle || status=$$?; \
	if [ $$status -eq 5 ]; then \
		echo "WARNING: no test is marked oracle yet (pytest exit 5); counted as success"; \
		exit 0; \
	fi; \
	exit $$status

# The property-based tests with many more random examples (Hypothesis profile "fuzz", see
# tests/conftest.py); `make test` runs the same tests with a small, fixed set ("ci").
fuzz: venv
	HYPOTHESIS_PROFILE=fuzz $(BIN)/python -m pytest tests/ops/test_properties.py

lint: venv
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

format: venv
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

# Train a small GPT with the defaults (>= 99% held-out accuracy), then check every op's and
# module's gradients: a one-line summary here, the whole table in $(GRADCHECK_TABLE). Graphviz's
# dot is installed or named as for `make test` (the graph tools need it; the demo does not).
GRADCHECK_TABLE := gradcheck.txt
demo: graphviz $(VENV)/.stamp-run
	$(BIN)/python -m tinygrad_norm train
	@echo "Checking the gradients of every op and module (a minute or two) ..."
	$(BIN)/python -m tinygrad_norm gradcheck --output $(GRADCHECK_TABLE)

# Run every notebook and save it with its fresh outputs (tests/notebook_outputs.py); `make test`
# fails when a committed notebook's outputs are stale.
notebooks: venv
	$(BIN)/python tests/notebook_outputs.py notebooks/*.ipynb

# docs/explorer.png, README's picture of the backprop explorer: the mlp example at step 4, in
# headless Chromium (the browser target installs it) at 1280 x 800. The page goes to build/.
screenshot: $(VENV)/.stamp-run browser
	@mkdir -p build
	$(BIN)/python -m tinygrad_norm explore --example mlp -o build/mlp.html
	chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1280,800 \
		--screenshot=docs/explorer.png "file://$(CURDIR)/build/mlp.html#step=4"

# The GPT training-step benchmark (tinygrad_norm/bench/gpt_step.py): tinygrad_norm against
# hand-written NumPy and PyTorch (installed as for test-oracle), in one process and each alone.
# Options through BENCH_ARGS, e.g. make bench BENCH_ARGS="--sizes small --steps 40".
bench: $(VENV)/.stamp-oracle
	$(BIN)/python -m tinygrad_norm bench --alone $(BENCH_ARGS)

clean:
	rm -rf build dist *.egg-info .pytest_cache .ruff_cache $(GRADCHECK_TABLE)
	find . -path ./$(VENV) -prune -o -name __pycache__ -type d -exec rm -rf {} +

distclean: clean
	rm -rf $(VENV)
