# Two commands a new machine needs: `make demo` and `make test` (see README.md);
# `make serve` runs the whole service locally.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# SAM CLI pins an older boto3 than the project's: it gets a virtual environment of its own.
SAM_VENV := .venv-sam
SAM_BIN := $(SAM_VENV)/bin
SAM_STAMP := $(SAM_VENV)/.installed
# Pinned: a newer cfn-lint brings new rules, and CI should not fail on a release day.
SAM_TOOLS := aws-sam-cli==1.170.0 cfn-lint==1.58.0

DEMO_ARGS ?=
SERVE_ARGS ?=

.PHONY: demo serve test flake-hunt bracket-sweep lint bench bench-lifecycle calibrate calibrate-check template-check clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/python -m cli.demo $(DEMO_ARGS)

serve: $(STAMP)
	$(BIN)/python -m cli.serve $(SERVE_ARGS)

test: $(STAMP)
	$(BIN)/python -m pytest

# The suite again and again, each run with fresh dice and a fresh order, optionally
# beside a CPU-heavy load (docs/testing.md): HUNT_ARGS="--runs 5 --load [tests...]"
HUNT_ARGS ?=
flake-hunt: $(STAMP)
	$(BIN)/python .ci/flake-hunt $(HUNT_ARGS)

# Every bracket plan from 2 to 5,000 players at every setting (tests/core/sweep_brackets.py)
bracket-sweep: $(STAMP)
	$(BIN)/python tests/core/sweep_brackets.py

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

bench: $(STAMP)
	$(BIN)/python bench/engine.py
	$(BIN)/python bench/turn_cost.py --game all

# A tournament's whole lifecycle on moto (registration, start and finish jobs, progression):
# the longest invocation of each function against its Timeout, the most writes to one item.
LIFECYCLE_PLAYERS ?= 20000
bench-lifecycle: $(STAMP)
	$(BIN)/python bench/lifecycle_scale.py --players $(LIFECYCLE_PLAYERS)

# Count every AWS operation of a bot tournament on the served stack and write the capacity
# model's per-unit figures (core/capacity/calibration.json, docs/capacity.md).
CALIBRATE_PLAYERS ?= 300
calibrate: $(STAMP)
	$(BIN)/python -m cli.calibrate --players $(CALIBRATE_PLAYERS)

# The model's counts against a served 300-player tournament, within 5% (CI runs it after
# `make test`: it plays for minutes on one core)
calibrate-check: $(STAMP)
	$(BIN)/python -m pytest -n0 tests/local/capacity_served_check.py

$(SAM_STAMP): Makefile
	$(PYTHON) -m venv $(SAM_VENV)
	$(SAM_BIN)/python -m pip install --quiet --upgrade pip
	$(SAM_BIN)/python -m pip install --quiet $(SAM_TOOLS)
	touch $(SAM_STAMP)

# `sam build` calls these (template.yaml: BuildMethod makefile) with ARTIFACTS_DIR set.
# The layer gets the runtime dependencies from pyproject.toml as Lambda's arm64 wheels,
# never the host's; every function gets only the three packages the handlers import.
# Lambda's code and layer directories are read-only, so Python cannot cache bytecode
# there: without compileall every cold start would compile every module from source.
# unchecked-hash .pyc files stay valid whatever timestamps the zip gives the sources.
# Lambda's Python (template.yaml: Runtime) and an interpreter of that version, which the
# bytecode must come from: Python reads only the .pyc files of its own version. SAM's
# makefile builds ask nothing of the host's Python; these recipes ask for this one.
RUNTIME_PYTHON := 3.13
LAMBDA_PYTHON ?= python$(RUNTIME_PYTHON)
FUNCTIONS := ApiFunction SocketFunction PublisherFunction TimerFunction ProgressionFunction TimeoutFunction SiteFunction \
	SweeperFunction JobFunction
BUILD_FUNCTIONS := $(addprefix build-,$(FUNCTIONS))
CHECK_LAMBDA_PYTHON := $(LAMBDA_PYTHON) -c 'import sys; v = "%d.%d" % sys.version_info[:2]; \
	sys.exit(None if v == "$(RUNTIME_PYTHON)" else "LAMBDA_PYTHON is Python " + v \
	+ ", the runtime is $(RUNTIME_PYTHON): set LAMBDA_PYTHON=<a python$(RUNTIME_PYTHON)>")'
# Without an interpreter of the runtime's version (a machine with Python 3.11 only, such
# as CI's) the artifacts keep their sources alone: correct, but every cold start then
# compiles them, so the build says so. A wrong LAMBDA_PYTHON still stops it.
COMPILE := compile() { if $(LAMBDA_PYTHON) -c "" 2>/dev/null; then $(CHECK_LAMBDA_PYTHON) \
	&& $(LAMBDA_PYTHON) -m compileall -q -j 0 --invalidation-mode unchecked-hash "$$1"; \
	else echo "note: no $(LAMBDA_PYTHON) here: $$1 ships without bytecode (slower cold starts)" >&2; fi; }; compile

.PHONY: build-DependenciesLayer $(BUILD_FUNCTIONS)

build-DependenciesLayer $(BUILD_FUNCTIONS): SHELL := bash
build-DependenciesLayer $(BUILD_FUNCTIONS): .SHELLFLAGS := -euo pipefail -c

build-DependenciesLayer:
	$(PYTHON) -c 'import tomllib; print(*tomllib.load(open("pyproject.toml", "rb"))["project"]["dependencies"], sep="\n")' \
	| $(PYTHON) -m pip install --quiet --disable-pip-version-check --no-compile \
		--target "$(ARTIFACTS_DIR)/python" --platform manylinux2014_aarch64 --implementation cp \
		--python-version $(RUNTIME_PYTHON) --only-binary=:all: --requirement /dev/stdin
	rm -rf "$(ARTIFACTS_DIR)/python/bin" # the dependencies' console scripts: no use in Lambda
	$(COMPILE) "$(ARTIFACTS_DIR)"

$(BUILD_FUNCTIONS):
	tar --create --exclude=__pycache__ --exclude='*.pyc' core infra functions \
	| tar --extract --directory "$(ARTIFACTS_DIR)"
	$(COMPILE) "$(ARTIFACTS_DIR)"

# Lints the SAM template twice (cfn-lint, then SAM's own validation with its bundled
# cfn-lint) and builds it; needs no credentials and no Docker (the build reaches PyPI).
template-check: export SAM_CLI_TELEMETRY = 0
template-check: $(SAM_STAMP)
	$(SAM_BIN)/cfn-lint template.yaml
	$(SAM_BIN)/sam validate --lint --template-file template.yaml
	$(SAM_BIN)/sam build --build-in-source --template-file template.yaml

clean:
	rm -rf $(VENV) $(SAM_VENV) .aws-sam .pytest_cache .mypy_cache .ruff_cache .hypothesis
