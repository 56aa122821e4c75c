"""MB/s of `python -m tokenizers.report` with 1 worker, 2 workers and a Dask LocalCluster of 2 workers.

    TOKEN_LENS_CACHE=.cache/token-lens .venv/bin/python benchmarks/report_speed.py            # 200 MB
    TOKEN_LENS_CACHE=.cache/token-lens .venv/bin/python benchmarks/report_speed.py --mb 20    # a quick look

Builds a corpus in a temporary folder from the project's parallel texts
(tokenizers/analysis/parallel.py): one file per language, each line a number and two to four of that
language's sentences in a random order (seeded), so that no two lines are the same and no cache
sees a text twice. Then runs the command once per setup, in a fresh process each, from the
repository root, and reports wall-clock seconds (process start, tokenizer loading and cluster start
included) and MB/s of corpus; the three CSVs must be identical. Prints a table, the machine's load
(`uptime`) before each run, and as its last line one JSON object with every figure.
"""

from __future__ import annotations

import argparse
import filecmp
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tokenizers.analysis.parallel import LANGUAGES  # noqa: E402


def build_corpus(folder: Path, megabytes: float, seed: int = 0) -> int:
    """One file per language, about megabytes / 26 MB each; returns the bytes written."""
    rng = random.Random(seed)
    per_file = int(megabytes * 1e6 / len(LANGUAGES))
    total = 0
    for code, lang in LANGUAGES.items():
        lines, size, n = [], 0, 0
        while size < per_file:
            n += 1
            line = f"{n} " + " ".join(rng.sample(lang.sentences, rng.randint(2, 4))) + "\n"
            lines.append(line)
            size += len(line.encode("utf-8"))
        (folder / f"{code}.txt").write_text("".join(lines), encoding="utf-8")
        total += size
    return total


def load() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--mb", type=float, default=200.0, help="corpus size in MB (default 200)")
    p.add_argument("--tokenizers", default="cl100k_base")
    p.add_argument("--setups", default="1,2,dask-local", help="comma-separated: a worker count, or dask-local")
    args = p.parse_args()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    results = []
    with tempfile.TemporaryDirectory(prefix="report-speed-") as tmp:
        tmp = Path(tmp)
        corpus = tmp / "corpus"
        corpus.mkdir()
        t = time.perf_counter()
        nbytes = build_corpus(corpus, args.mb)
        print(f"corpus: {nbytes / 1e6:,.1f} MB in {len(LANGUAGES)} files, built in {time.perf_counter() - t:.1f} s; "
              f"tokenizers: {args.tokenizers}; {os.cpu_count()} cores", file=sys.stderr)
        for setup in args.setups.split(","):
            extra = ["--dask", "local", "--workers", "2"] if setup == "dask-local" else ["--workers", setup]
            out = tmp / f"{setup}.csv"
            before = load()
            cmd = [sys.executable, "-m", "tokenizers.report", str(corpus), "--tokenizers", args.tokenizers,
                   "--group", "language", "--no-progress", "--out", str(out), *extra]
            print(f"{setup}: {before}", file=sys.stderr)
            t = time.perf_counter()
            res = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
            seconds = time.perf_counter() - t
            if res.returncode != 0:
                sys.exit(f"{setup} failed ({res.returncode}): {res.stderr}")
            results.append({"setup": setup, "seconds": round(seconds, 1), "mb_per_s": round(nbytes / 1e6 / seconds, 3),
                            "load_before": before.split("load average:")[-1].strip()})
            print(f"{setup}: {seconds:,.1f} s, {nbytes / 1e6 / seconds:,.2f} MB/s", file=sys.stderr)
        csvs = [tmp / f"{r['setup']}.csv" for r in results]
        same = all(filecmp.cmp(csvs[0], c, shallow=False) for c in csvs[1:])
    base = results[0]["seconds"]
    print(f"\n| setup | seconds | MB/s | vs {results[0]['setup']} | load average before (1, 5, 15 min) |")
    print("|---|---|---|---|---|")
    for r in results:
        print(f"| {r['setup']} | {r['seconds']:,.1f} | {r['mb_per_s']:,.2f} | {base / r['seconds']:.2f}× | "
              f"{r['load_before']} |")
    print(f"\nidentical CSVs: {same}; after: {load()}")
    print(json.dumps({"corpus_mb": round(nbytes / 1e6, 1), "tokenizers": args.tokenizers, "cores": os.cpu_count(),
                      "identical": same, "runs": results}))
    if not same:
        sys.exit("the setups' CSVs differ")


if __name__ == "__main__":
    main()
