# fitsub: `make demo` sets up and translates a shipped sample; `make test` sets up and runs every check.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
# pip's -c does not reach build steps; PIP_CONSTRAINT does. Keeps torch at the CPU build here.
export PIP_CONSTRAINT := $(CURDIR)/constraints.txt

.PHONY: setup browser espeak demo test lint typecheck pytest min-versions unit integration system bench clean

$(VENV)/.installed: pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[dev,hf]'
	touch $@

setup: $(VENV)/.installed

# Headless Chromium for the review page's browser test (tests/system/test_review_browser.py).
# Best effort: Debian / Ubuntu as root with apt; anywhere else, or offline, the test is skipped
# and says why.
browser:
	@if command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1; then \
		echo "browser: $$(command -v chromium) and $$(command -v chromedriver)"; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
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
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
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
	$(BIN)/fitsub translate samples/talk.srt --lang it --ratio 1.0 -o build/talk.it.srt --report build/talk.it.json

lint: setup
	$(BIN)/ruff check fitsub tests bench recipes experiments tools
	$(BIN)/ruff format --check fitsub tests bench recipes experiments tools

typecheck: setup
	$(BIN)/mypy --strict fitsub

# The tests in three tiers (pyproject's testpaths runs all three, fastest first):
# unit (one module), integration (modules together, tiny models), system (the CLI end to end).
pytest: setup
	$(BIN)/pytest

unit integration system: setup
	$(BIN)/pytest tests/$@

# The declared dependency floors, tested in a throwaway environment (constraints-min.txt).
min-versions:
	PYTHON=$(PYTHON) tools/min_versions.sh

test: browser espeak lint typecheck pytest min-versions

bench: setup
	$(BIN)/python bench/train_speed.py
	$(BIN)/python bench/translate_speed.py
	$(BIN)/python bench/translate_srt.py

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache
