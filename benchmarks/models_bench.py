"""Load time, memory and encoding speed of the vendor tokenizers (issue 15), each in a fresh process.

    .venv/bin/python benchmarks/models_bench.py [names...]

For each: seconds for get_tokenizer(name) with the files already provisioned (cold process), the
process's resident memory added by loading it (RSS after - before, MB), and encoding speed on 1 MB of
varied text (MB/s, median of 3), with the engine that ran. Ends with one JSON line of all figures.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NAMES = ["llama3", "mistral_tekken", "qwen", "deepseek_v3", "claude_legacy", "whisper", "o200k_harmony",
         "cl100k_base"]

WORKER = r"""
import json, sys, time, statistics
sys.path.insert(0, sys.argv[2])
def rss():
    for line in open("/proc/self/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
from tokenizers.analysis.samples import varied_text
text = varied_text(1_000_000)
import tokenizers, tiktoken, regex  # the libraries every tokenizer needs, loaded before measuring
before = rss()
t0 = time.perf_counter()
tok = tokenizers.get_tokenizer(sys.argv[1])
load = time.perf_counter() - t0
after = rss()
times = []
for _ in range(3):
    t0 = time.perf_counter()
    ids = tok.encode(text, disallowed_special=())
    times.append(time.perf_counter() - t0)
engine = "tiktoken" if hasattr(tok, "encoding") else getattr(tok, "engine", type(tok).__name__)
print(json.dumps({"name": sys.argv[1], "load_s": round(load, 3), "rss_mb": round(after - before, 1),
                  "encode_mb_s": round(len(text.encode()) / 1e6 / statistics.median(times), 2),
                  "tokens": len(ids), "engine": engine}))
"""


def main(names: list[str]) -> None:
    rows = []
    for name in names:
        res = subprocess.run([sys.executable, "-c", WORKER, name, str(ROOT)], capture_output=True, text=True,
                             cwd=ROOT, timeout=900)
        if res.returncode != 0:
            print(f"{name}: failed\n{res.stderr[-2000:]}", file=sys.stderr)
            continue
        row = json.loads(res.stdout.strip().splitlines()[-1])
        rows.append(row)
        print(f"{name:16} load {row['load_s']:6.2f} s   +{row['rss_mb']:6.1f} MB   encode {row['encode_mb_s']:6.2f} MB/s"
              f"   {row['tokens']:,} tokens   ({row['engine']})")
    print(json.dumps(rows))


if __name__ == "__main__":
    main(sys.argv[1:] or NAMES)
