"""Time and server memory for each hostile input of issue 16 on each page input that takes it.

    .venv/bin/python benchmarks/hostile_inputs.py                 # every input, ~15 minutes on 2 cores
    .venv/bin/python benchmarks/hostile_inputs.py --inputs "Compare text;Inside text" --values "1M spaces;1M a"
    .venv/bin/python benchmarks/hostile_inputs.py --list

The inputs and the drivers that put them where a visitor would are tests/hostile.py's, driven with
Streamlit's AppTest: the page script runs in this process, exactly as in the server (minus the
websocket), so this process's memory is the server's. Each page input runs in a fresh process; its
values one after another. For each value: the wall time of the driver's runs, the process's resident
memory before, its peak during (VmHWM, reset before each value through /proc/self/clear_refs) and
after, and what the visitor saw (an exception, or the first error/warning message). Ends with a
Markdown table and one JSON line.
"""

from __future__ import annotations

import argparse
import gc
import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]


def memory_mb() -> tuple[float, float]:
    """(resident, peak resident since the last reset) in MB."""
    rss = hwm = 0
    with open("/proc/self/status", encoding="ascii") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                rss = int(line.split()[1])
            elif line.startswith("VmHWM:"):
                hwm = int(line.split()[1])
    return rss / 1024, hwm / 1024


def reset_peak() -> None:
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
    except OSError:
        pass


def values_for(kind: str) -> dict:
    import hostile

    if kind == "text":
        return {name: (lambda name=name: hostile.text(name)) for name in hostile.TEXTS}
    if kind == "ids":
        return {(v if len(v) < 30 else f"{v[:12]}… ({len(v):,} chars)"): (lambda v=v: v) for v in hostile.BAD_IDS}
    if kind == "regex":
        return {p: (lambda p=p: p) for p in hostile.CATASTROPHIC_PATTERNS}
    if kind.startswith("vocab:"):
        _, lo, hi = kind.split(":")
        return {repr(v): (lambda v=v: v) for v in hostile.vocab_sizes(int(lo), int(hi))}
    table = hostile.TEXT_UPLOADS if kind == "text upload" else hostile.MODEL_UPLOADS
    return {name: (lambda f=f: (f[0], f[1]())) for name, f in table.items()}


def summary(out: dict) -> str:
    if out["exception"]:
        return "EXCEPTION: " + out["exception"][0].splitlines()[0][:160]
    for kind in ("error", "warning", "info"):
        if out[kind]:
            return f"{kind}: " + " ".join(out[kind][0].split())[:160]
    return "result"


def one_input(input_name: str, only: list[str] | None) -> list[dict]:
    import hostile

    page, driver, kind = hostile.DRIVERS[input_name]
    rows = []
    for value_name, make in values_for(kind).items():
        if only and value_name not in only:
            continue
        value = make()
        at = hostile.app_test(timeout=600)  # Compare, with the default tokenizers loaded; the driver opens its page
        gc.collect()
        before, _ = memory_mb()
        reset_peak()
        t0 = time.perf_counter()
        try:
            driver(at, value)
            seen = summary(hostile.outcome(at))
        except Exception as e:  # AppTest itself gave up (its own timeout)
            seen = f"TEST HARNESS: {type(e).__name__}: {str(e)[:120]}"
        seconds = time.perf_counter() - t0
        during_rss, peak = memory_mb()
        del at, value
        gc.collect()
        after, _ = memory_mb()
        rows.append({"input": input_name, "value": value_name, "seconds": round(seconds, 2),
                     "rss_before_mb": round(before), "peak_mb": round(peak), "rss_after_mb": round(after),
                     "seen": seen})
        print(f"  {input_name} · {value_name}: {seconds:.1f} s, {before:.0f} → peak {peak:.0f} → {after:.0f} MB · "
              f"{seen[:100]}", file=sys.stderr, flush=True)
    return rows


def main() -> None:
    import hostile

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--inputs", help="semicolon-separated page inputs (default: all; --list shows them)")
    ap.add_argument("--values", help="semicolon-separated value names (default: all of each input's kind)")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--cap-gb", type=int, default=6, help="address-space cap of each measuring process (GB)")
    ap.add_argument("--one", help=argparse.SUPPRESS)
    args = ap.parse_args()
    only = args.values.split(";") if args.values else None
    if args.list:
        for name, (page, _, kind) in hostile.DRIVERS.items():
            print(f"{name}  [{page}; {kind}]: {', '.join(values_for(kind))}")
        return
    if args.one:  # a cap, so that an input that explodes fails here instead of swapping the machine
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (args.cap_gb << 30, args.cap_gb << 30))
        print(json.dumps(one_input(args.one, only)))
        return
    names = args.inputs.split(";") if args.inputs else list(hostile.DRIVERS)
    rows = []
    for name in names:
        cmd = [sys.executable, __file__, "--one", name, "--cap-gb", str(args.cap_gb)] + (
            ["--values", args.values] if args.values else [])
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, cwd=ROOT, timeout=3600)
        lines = proc.stdout.decode().strip().splitlines()
        rows += json.loads(lines[-1]) if proc.returncode == 0 and lines else [
            {"input": name, "value": "*", "seconds": None, "seen": f"process failed ({proc.returncode})"}]
    print("| page input | value | seconds | RSS before → peak → after (MB) | the visitor sees |")
    print("|---|---|---|---|---|")
    for r in rows:
        mem = f"{r.get('rss_before_mb')} → {r.get('peak_mb')} → {r.get('rss_after_mb')}"
        print(f"| {r['input']} | {r['value']} | {r['seconds']} | {mem} | {r['seen'].replace('|', '¦')} |")
    print(json.dumps({"hostile_inputs": rows}))


if __name__ == "__main__":
    main()
