"""Issue 24, items 1 and 6, measured: the time and peak memory of each attack, in a fresh process each.

    .venv/bin/python benchmarks/pattern_budget.py                       # this checkout
    .venv/bin/python benchmarks/pattern_budget.py --root /tmp/main-src  # another (e.g. `git archive main`)
    .venv/bin/python benchmarks/pattern_budget.py --only replace_redos --sizes 30,49

The attacks (the files are tests/hostile_patterns.py's, so they are the tests' too):

- `multiply_load`: loading the issue's 2.3 KB tokenizer.json (two Replace steps, "x" -> 1,000 x's);
- `multiply_typed`: the same normalizer reached by a text of n x's (built past the load check when that
  refuses the file), tokenized as Compare does (encode, then the spans);
- `replace_redos`: a Replace normalizer whose pattern (a|aa)+$ backtracks, on n a's and a b;
- `split_chunks`: a Sequence of two Splits (" ", then (a|aa)+$|a|b) on 20 chunks of n a's and a b,
  each chunk well under the limit, so that only a budget per text stops it.

Wall time depends on how busy the machine is (the regex module's timeout, and so the budget, count CPU
time); CPU time is the work. Each run gets a time limit (--timeout) and an address-space cap (--memory-mb) so that the unbounded
versions cannot take the machine down; hitting either is reported as such. Peak memory is the
process's VmHWM minus its resident memory before the attack (the library and the file loaded).
Ends with a Markdown table and one JSON line.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CHILD = r'''
import json, resource, sys, time
resource.setrlimit(resource.RLIMIT_AS, ({cap}, {cap}))
sys.path[:0] = [{root!r}, {tests!r}]
from hostile_patterns import backtracking_replace_file, multiplying_file, split_sequence_file


def mem():
    out = {{}}
    for line in open("/proc/self/status"):
        if line.startswith(("VmRSS:", "VmHWM:")):
            out[line[:5]] = int(line.split()[1]) / 1024
    return out


def reset_peak():
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")


from tokenizers import load_user_file
from tokenizers.pipeline import normalizers as nz
attack, n = {attack!r}, {n}
if attack == "multiply_load":
    data = multiplying_file(1000, 2)
    run = lambda: load_user_file("x1000.json", data)
elif attack == "multiply_typed":
    tok = load_user_file("x200.json", multiplying_file(200, 2))
    tok.normalizer = nz.Sequence((nz.Replace("x", "x" * 1000), nz.Replace("x", "x" * 1000)))
    run = lambda: tok.tokenize("x" * n)
elif attack == "replace_redos":
    tok = load_user_file("redos.json", backtracking_replace_file())
    run = lambda: tok.tokenize("a" * n + "b")
elif attack == "split_chunks":
    tok = load_user_file("splits.json", split_sequence_file([" ", r"(a|aa)+$|a|b"]))
    run = lambda: tok.tokenize(" ".join(["a" * n + "b"] * 20))
before = mem()["VmRSS"]
reset_peak()
t0, c0 = time.perf_counter(), time.process_time()
try:
    got = run()
    outcome = "ok" + (f": {{len(got):,}} tokens" if hasattr(got, "__len__") else "")
except MemoryError:
    outcome = "MemoryError (the address-space cap)"
except Exception as e:
    outcome = f"{{type(e).__name__}}: {{str(e)[:90]}}"
seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
print(json.dumps({{"seconds": seconds, "cpu": cpu, "peak_mb": mem()["VmHWM"] - before, "outcome": outcome}}))
'''

SIZES = {"multiply_load": [0], "multiply_typed": [1, 4, 40, 400], "replace_redos": [30, 34, 49],
         "split_chunks": [28, 30]}


def measure(root: Path, attack: str, n: int, timeout: float, memory_mb: int) -> dict:
    code = CHILD.format(cap=memory_mb << 20, root=str(root), tests=str(root / "tests"), attack=attack, n=n)
    try:
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=root, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"seconds": timeout, "cpu": None, "peak_mb": None,
                "outcome": f"still running after {timeout:g} s (killed)"}
    if proc.returncode != 0:
        return {"seconds": None, "cpu": None, "peak_mb": None, "outcome": f"crashed: {proc.stderr.strip().splitlines()[-1:]}"}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--root", type=Path, default=ROOT, help="the source tree to measure (default: this one)")
    ap.add_argument("--only", default="", help="comma-separated attacks (default: all)")
    ap.add_argument("--sizes", default="", help="comma-separated n for the attacks chosen (default: each one's own)")
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds per run")
    ap.add_argument("--memory-mb", type=int, default=3000, help="address-space cap per run")
    args = ap.parse_args()
    # the tests' files, from this checkout, are what every root is measured with
    tests = args.root / "tests" / "hostile_patterns.py"
    if not tests.exists():
        tests.parent.mkdir(parents=True, exist_ok=True)
        tests.write_text((ROOT / "tests" / "hostile_patterns.py").read_text())
    attacks = args.only.split(",") if args.only else list(SIZES)
    rows = []
    for attack in attacks:
        sizes = [int(x) for x in args.sizes.split(",")] if args.sizes else SIZES[attack]
        for n in sizes:
            got = measure(args.root, attack, n, args.timeout, args.memory_mb)
            rows.append({"attack": attack, "n": n, **got})
            print(f"{attack:15} n={n:<4} {got}", file=sys.stderr, flush=True)
    print(f"\nroot: {args.root}\n")
    print("| attack | n | wall s | CPU s | peak MB | outcome |\n|---|---|---|---|---|---|")
    for r in rows:
        sec, cpu, peak = (("—" if r[k] is None else f"{r[k]:.{d}f}") for k, d in
                          (("seconds", 2), ("cpu", 2), ("peak_mb", 0)))
        print(f"| {r['attack']} | {r['n']} | {sec} | {cpu} | {peak} | {r['outcome'].replace('|', '/')} |")
    print(json.dumps({"root": str(args.root), "rows": rows}))


if __name__ == "__main__":
    main()
