"""What a fresh server process pays once, and who pays it (issue 32, point 6).

    .venv/bin/python benchmarks/cold_start.py [--rounds 3] [--root ../other-checkout]

Each round starts new Python processes (the --root checkout's code, this repository's .venv) and times:
  * Compare's first run in the process against its next two (Streamlit's AppTest, the page script with
    its four default tokenizers): what the first visitor of a fresh server waits for on the server;
  * the first-use costs inside it, one process each, in the order a first visit meets them: importing
    the page's modules, loading each default tokenizer, the table of character names and each default
    blob the browser fetches (service/browser_assets.py), SentencePiece's C encoder state;
  * compiling the C core into an empty cache (what the first tokenization pays on a server started
    without set-up, or after a change to the C: set-up's `tokenizers.bpe.native.build` step pays it
    otherwise).
Medians over rounds, in ms. Ends with one JSON line.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PYTHON = str(ROOT / ".venv" / "bin" / "python")

FIRST_RUN = r"""
import json, sys, time
from streamlit.testing.v1 import AppTest
out = []
for _ in range(3):
    at = AppTest.from_file(sys.argv[1], default_timeout=120)
    t = time.perf_counter(); at.run(); out.append((time.perf_counter() - t) * 1000)
    assert not at.exception, at.exception
print(json.dumps(out))
"""

PARTS = r"""
import json, time
out = {}
def lap(name, f):
    t = time.perf_counter(); f(); out[name] = (time.perf_counter() - t) * 1000
lap("import the page's modules (pandas, plotly, the app's own)", lambda: [__import__(m) for m in
    ("pandas", "plotly.graph_objects", "ui.figures", "ui.spans", "tokenizers", "service.browser_assets")])
from tokenizers import default_tokenizers, get_tokenizer
from service import browser_assets
names = default_tokenizers()
for n in names:
    lap(f"load {n}", lambda n=n: get_tokenizer(n))
lap("the names table (browser_assets.names_url)", browser_assets.names_url)
for n in names:
    lap(f"the blob of {n} (browser_assets.vocab_url)", lambda n=n: browser_assets.vocab_url(n))
print(json.dumps(out))
"""

COMPILE = r"""
import json, time
t = time.perf_counter()
from tokenizers.bpe.native import lib
assert lib.load() is not None, lib.status
print(json.dumps({"compile the C core (first tokenization without set-up)": (time.perf_counter() - t) * 1000}))
"""


def cache_of(root: Path) -> Path:
    """The checkout's cache, or this repository's (a worktree made for the comparison has none)."""
    own = root / ".cache" / "token-lens"
    return own if own.exists() else ROOT / ".cache" / "token-lens"


def run(code: str, root: Path, *args: str, env: dict | None = None):
    done = subprocess.run([PYTHON, "-c", code, *args], cwd=root, capture_output=True, text=True, timeout=600,
                          env={**os.environ, "PYTHONPATH": str(root), "TOKEN_LENS_CACHE": str(cache_of(root)),
                               **(env or {})})
    if done.returncode:
        raise SystemExit(f"failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--root", type=Path, default=ROOT, help="the checkout whose code is measured")
    a = ap.parse_args()
    root = a.root.resolve()
    first, warm, parts = [], [], {}
    for _ in range(a.rounds):
        runs = run(FIRST_RUN, root, str(root / "app_pages" / "compare.py"))
        first.append(runs[0])
        warm.append(statistics.median(runs[1:]))
        for k, v in run(PARTS, root).items():
            parts.setdefault(k, []).append(v)
        with tempfile.TemporaryDirectory() as cache:
            keep = Path(cache)
            src = cache_of(root)
            for sub in ("tiktoken", "vendor", "sentencepiece"):  # the vocabularies, not the C core
                if (src / sub).exists():
                    (keep / sub).symlink_to(src / sub)
            for k, v in run(COMPILE, root, env={"TOKEN_LENS_CACHE": cache}).items():
                parts.setdefault(k, []).append(v)
    med = {k: statistics.median(v) for k, v in parts.items()}
    f, w = statistics.median(first), statistics.median(warm)
    load = os.getloadavg()[0]
    print(f"\na fresh server's first-use costs · {root.name} · {a.rounds} rounds · load {load:.1f}\n")
    print("| | ms |\n|---|---|")
    print(f"| Compare's first run in a process (AppTest) | {f:.0f} |")
    print(f"| its next runs (warm) | {w:.0f} |")
    for k, v in med.items():
        print(f"| {k} | {v:.0f} |")
    print(json.dumps({"first_run_ms": f, "warm_run_ms": w, "parts_ms": med}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
