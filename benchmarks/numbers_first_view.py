"""Quirks' Numbers tab: its first view on a fresh server beside its warm view, and the server's memory
(issue 20, item 8: first within 2x of warm, without keeping every vocabulary loaded).

    .venv/bin/python benchmarks/numbers_first_view.py [--root /work/main] [--rounds 3] [--cold]

Each round starts `streamlit run` of the checkout at --root (benchmarks/visitors.Server), times a first
visit to /quirks?quirks_tab=Numbers (navigation start to its heatmaps drawn: app_speed.py's load_time
and its "quirks-numbers" condition), reads the server's resident memory (VmRSS), then times three more
visits (warm: their median) and reads the memory again. --cold first deletes the figures files
(cache_root()/numbers/), so the round's first view is the first ever on this machine (it writes them).
Prints each round and the medians; ends with one JSON line.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from app_speed import CHROMIUM, FLAGS, PAGES, load_time  # noqa: E402  (the same visit and "drawn" condition)
from visitors import Server  # noqa: E402


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", type=Path, default=ROOT, help="the checkout whose app.py is served")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--cold", action="store_true", help="delete the figures files before each round")
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    from tokenizers.core.paths import cache_root

    path, ready = PAGES["quirks-numbers"]
    rounds = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        for k in range(args.rounds):
            if args.cold:
                shutil.rmtree(cache_root() / "numbers", ignore_errors=True)
            server = Server(args.root)
            try:
                idle = rss_mb(server.pid)
                first = load_time(browser, server.url + path, ready)
                after_first = rss_mb(server.pid)
                warm = statistics.median([load_time(browser, server.url + path, ready) for _ in range(3)])
                after_warm = rss_mb(server.pid)
            finally:
                server.stop()
            rounds.append({"first_s": round(first, 2), "warm_s": round(warm, 2), "ratio": round(first / warm, 2),
                           "rss_idle_mb": round(idle), "rss_after_first_mb": round(after_first),
                           "rss_after_warm_mb": round(after_warm), "load": round(os.getloadavg()[0], 1)})
            print(f"  round {k + 1}: {rounds[-1]}", file=sys.stderr)
    med = {key: statistics.median(r[key] for r in rounds) for key in rounds[0]}
    print(f"\nQuirks' Numbers tab · {args.root} · {time.strftime('%Y-%m-%d %H:%M')} · {'cold' if args.cold else 'warm'} "
          f"figures files · median of {len(rounds)} rounds\n")
    print("| first view (fresh server) | warm (median of 3) | first ÷ warm | server RSS after the first view |")
    print("|---|---|---|---|")
    print(f"| {med['first_s']:.2f} s | {med['warm_s']:.2f} s | {med['ratio']:.2f}× | {med['rss_after_first_mb']:.0f} MB |")
    print(json.dumps({"root": str(args.root), "cold": args.cold, "median": med, "rounds": rounds}))


if __name__ == "__main__":
    main()
