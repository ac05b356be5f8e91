# The two commands: `make run` (embedded demo on 127.0.0.1:8000) and `make test`.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 8000
DEMO_SCENARIO ?= payment-db-pool

# The embedded demo: SQLite under var/, in-process runs, the offline model, the loaded pack's evidence,
# whatever production settings the shell exports (README, "Production"): every variable that would make it
# something else (another database, a broker, a model or an embedder, Prometheus or Loki, a production host
# or HTTPS, the team's chat-ops sinks) is dropped. DEBUG serves static files and allows the generated development secret; never use
# `make run` settings in production.
# The list is scripts/production-variables, which scripts/test.sh reads too; VAR_DIR as well: the demo's
# database is var/.
EMBEDDED_ONLY := -u DATABASE_URL -u REDIS_URL -u VAR_DIR \
	$(addprefix -u ,$(shell sed -e 's/\#.*//' scripts/production-variables))
RUN_ENV := env $(EMBEDDED_ONLY) DEBUG=true

.PHONY: run test lint install install-dev clean messages

install: $(BIN)/.installed

# constraints.txt pins the packages the requirements pull in, indirect ones too, at the versions tested.
$(BIN)/.installed: requirements.txt constraints.txt scripts/system-deps.sh
	scripts/system-deps.sh build
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements.txt -c constraints.txt
	touch $@

# Tests, linters and type checks on top of the runtime packages.
install-dev: $(BIN)/.installed-dev

$(BIN)/.installed-dev: requirements-dev.txt constraints.txt $(BIN)/.installed
	$(BIN)/python -m pip install --quiet -r requirements-dev.txt -c constraints.txt
	touch $@

run: install
	$(RUN_ENV) $(BIN)/python manage.py migrate --noinput
	$(RUN_ENV) $(BIN)/python manage.py load_scenario $(DEMO_SCENARIO)
	$(RUN_ENV) $(BIN)/python manage.py create_demo_user
	@echo "serving the chat on http://$(HOST):$(PORT)/ (Ctrl-C stops it)"
	$(RUN_ENV) $(BIN)/python -m uvicorn config.asgi:application --host $(HOST) --port $(PORT) --log-level warning --timeout-graceful-shutdown 5

test: install-dev lint
	scripts/system-deps.sh browser
	scripts/test.sh

# ruff (lint and format) and mypy; settings are only needed for the Django plugin to load the models.
lint: install-dev
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	DEBUG=true $(BIN)/mypy

# The interface catalogues (locale/): collect every marked string of the Python code, templates and
# static/js into the en and zh_Hans .po files, then compile the .mo files that are committed beside them
# (so `make run` and production need no gettext). Needs GNU gettext (xgettext, msgmerge, msgfmt).
I18N_LOCALES := --locale en --locale zh_Hans
I18N_IGNORE := --ignore 'staticfiles/*' --ignore 'var/*' --ignore 'tests/*' --ignore 'bench/*' --ignore 'docs/*'
messages: install
	scripts/system-deps.sh i18n
	$(RUN_ENV) $(BIN)/python manage.py makemessages $(I18N_LOCALES) --domain django --extension html,txt,py,svg $(I18N_IGNORE) --no-location --no-wrap
	$(RUN_ENV) $(BIN)/python manage.py makemessages $(I18N_LOCALES) --domain djangojs $(I18N_IGNORE) --no-location --no-wrap
	$(RUN_ENV) $(BIN)/python manage.py compilemessages $(I18N_LOCALES) --ignore '.venv' --ignore 'staticfiles'

clean:
	rm -rf $(VENV) var staticfiles .pytest_cache .ruff_cache .mypy_cache
