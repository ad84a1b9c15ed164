# The two commands of the README: `make book` and `make test`. Each creates and fills .venv when
# it is missing (or when pyproject.toml or requirements.lock changed since it was filled).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: test test-all book clean

# every package from requirements.lock, hashes checked (the versions a reader gets in a year are
# today's), then the project itself without its dependencies; pip is the venv's own, not upgraded
$(STAMP): pyproject.toml requirements.lock
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --require-hashes -r requirements.lock
	$(BIN)/python -m pip install --quiet --no-deps -e .
	touch $(STAMP)

# the fast suite: every module's unit and constructed-case tests and a quick-profile study end to
# end (minutes); test-all adds the book's build, Chromium, the notebooks, retraining, clusters and
# the package index
FAST := not (book or browser or notebook or retrain or cluster or network)

test: $(STAMP)
	$(BIN)/python -m pytest -m "$(FAST)"

# every test, the files spread over the cores (one file to a worker, so that the book is built once)
test-all: $(STAMP)
	$(BIN)/python -m pytest -n auto --dist loadfile --durations=25

# the study pages are the notebooks executed against the committed tables (python -m anchorkit pages);
# the JavaScript the pages load is copied from npm into the book's static files (scripts/book_assets.py)
book: $(STAMP)
	$(BIN)/python -m scripts.book_assets
	$(BIN)/python -m anchorkit pages
	$(BIN)/jupyter-book build --all --warningiserror --keep-going .
	@echo "open _build/html/index.html"

clean:
	rm -rf _build
