# fitsub: `make demo` sets up and translates a shipped sample; `make test` sets up and runs every check.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
# pip's -c does not reach build steps; PIP_CONSTRAINT does. It pins torch's version only: which
# build pip takes (CPU or CUDA) depends on where it finds torch (README, "Set-up").
export PIP_CONSTRAINT := $(CURDIR)/constraints.txt
# uv installs when it is on PATH (faster: docs/development.md), pip otherwise; NO_UV=1: pip.
# uv reads neither pip's configuration nor PIP_* variables: the constraints, and the places
# torch's build may come from (PIP_FIND_LINKS, PIP_INDEX_URL, PIP_EXTRA_INDEX_URL), are passed on.
# Bytecode: the installers compile none (all of site-packages is 172 MB of .pyc); `make demo`
# translates with PYTHONDONTWRITEBYTECODE unset, so Python writes the .pyc of exactly the modules a
# translation imports (24 MB); `make dev-setup` compiles everything (the tests import more).
# Without .pyc files and with PYTHONDONTWRITEBYTECODE set (as on the project's machines) every
# fitsub process would compile torch's modules again (+4 s of CPU).
NO_UV ?=
UV := $(if $(NO_UV),,$(shell command -v uv 2>/dev/null))
ifneq ($(UV),)
export UV_CONSTRAINT := $(CURDIR)/constraints.txt
INSTALL = $(UV) pip install -q --python $(BIN)/python \
	$(foreach l,$(PIP_FIND_LINKS),--find-links $(l)) \
	$(if $(PIP_INDEX_URL),--index-url $(PIP_INDEX_URL)) \
	$(foreach u,$(PIP_EXTRA_INDEX_URL),--extra-index-url $(u))
else
INSTALL = $(BIN)/python -m pip install -q --no-compile
endif
# NO_SYSTEM=1: install nothing from the system's package manager (the tests that need chromium
# or espeak-ng then skip, saying why)
NO_SYSTEM ?=

.PHONY: setup dev-setup browser espeak demo readme test lint typecheck pytest min-versions unit integration system bench clean

# What `fitsub translate` needs, and nothing else: `make demo`.
$(VENV)/.installed: pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(INSTALL) -e .
	touch $@

# Everything the checks use: linters, type checker, test tools, the Hugging Face, length
# predictor and plot extras: `make test`.
$(VENV)/.dev-installed: $(VENV)/.installed
	$(INSTALL) -e '.[dev,hf,length,plot]'
	$(BIN)/python -m compileall -q -j 0 -x '/tests?/|/testing/_internal/' \
		"$$($(BIN)/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
	touch $@

setup: $(VENV)/.installed

dev-setup: $(VENV)/.dev-installed

# Headless Chromium for the review page's browser test (tests/system/test_review_browser.py).
# Best effort: Debian / Ubuntu as root with apt (said before it runs; NO_SYSTEM=1 skips it);
# anywhere else, or offline, the test is skipped and says why.
browser:
	@if command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1; then \
		echo "browser: $$(command -v chromium) and $$(command -v chromedriver)"; \
	elif [ -n "$(NO_SYSTEM)" ]; then \
		echo "browser: NO_SYSTEM set: chromium not installed; the browser test will be skipped"; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		echo "browser: apt-get install chromium chromium-driver (from the system; make test NO_SYSTEM=1 skips this)"; \
		(DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium chromium-driver >/dev/null 2>&1 \
		 || (apt-get update -q >/dev/null 2>&1 && \
		     DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium chromium-driver >/dev/null 2>&1)) \
		&& echo "browser: installed chromium and chromium-driver" \
		|| echo "browser: could not install chromium; the browser test will be skipped"; \
	else \
		echo "browser: no chromium / chromedriver and no apt as root; the browser test will be skipped"; \
	fi

# espeak-ng for syllables and `fitsub dub-check` (a program fitsub runs, never links: GPL-3.0).
# Best effort as for the browser: without it the tests that run it are skipped and say why.
espeak:
	@if command -v espeak-ng >/dev/null 2>&1; then \
		echo "espeak: $$(command -v espeak-ng)"; \
	elif [ -n "$(NO_SYSTEM)" ]; then \
		echo "espeak: NO_SYSTEM set: espeak-ng not installed; the tests that synthesize speech will be skipped"; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		echo "espeak: apt-get install espeak-ng (from the system; make test NO_SYSTEM=1 skips this)"; \
		(DEBIAN_FRONTEND=noninteractive apt-get install -y -q espeak-ng >/dev/null 2>&1 \
		 || (apt-get update -q >/dev/null 2>&1 && \
		     DEBIAN_FRONTEND=noninteractive apt-get install -y -q espeak-ng >/dev/null 2>&1)) \
		&& echo "espeak: installed espeak-ng" \
		|| echo "espeak: could not install espeak-ng; the tests that synthesize speech will be skipped"; \
	else \
		echo "espeak: no espeak-ng and no apt as root; the tests that synthesize speech will be skipped"; \
	fi

demo: setup
	mkdir -p build
	env -u PYTHONDONTWRITEBYTECODE $(BIN)/fitsub translate samples/talk.srt --lang it --ratio 1.0 -o build/talk.it.srt --report build/talk.it.json

# README.md's excerpt of the demo's output, rewritten from a real run (after shipping a model)
readme: setup
	$(BIN)/python tools/readme_excerpt.py

lint: dev-setup
	$(BIN)/ruff check fitsub tests bench recipes experiments tools
	$(BIN)/ruff format --check fitsub tests bench recipes experiments tools

typecheck: dev-setup
	$(BIN)/mypy --strict fitsub

# The tests in three tiers (pyproject's testpaths runs all three, fastest first):
# unit (one module), integration (modules together, tiny models), system (the CLI end to end).
# PYTEST_WORKERS processes run them side by side (pytest-xdist; each takes the next test when
# done); PYTEST_WORKERS=0 runs them one after another in one process.
PYTEST_WORKERS ?= 2
PYTEST := $(BIN)/pytest -n $(PYTEST_WORKERS) --dist worksteal

pytest: dev-setup
	$(PYTEST)

unit integration system: dev-setup
	$(PYTEST) tests/$@

# The declared dependency floors, tested in a throwaway environment (constraints-min.txt).
min-versions:
	PYTHON=$(PYTHON) tools/min_versions.sh

test: browser espeak lint typecheck pytest min-versions

bench: dev-setup
	$(BIN)/python bench/train_speed.py
	$(BIN)/python bench/translate_speed.py
	$(BIN)/python bench/translate_srt.py

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache
