"""Many visitors on one server (issue 16): rerun times with 1 and with N concurrent light visitors, the
server's CPU and memory per visitor, and its memory growth over many distinct texts.

    .venv/bin/python benchmarks/visitors.py                        # all parts, ~4 minutes
    .venv/bin/python benchmarks/visitors.py --parts memory --texts 500
    .venv/bin/python benchmarks/visitors.py --root /tmp/token-lens-main   # another checkout (e.g. main)
    .venv/bin/python benchmarks/visitors.py --url http://127.0.0.1:8501 --pid 1234   # a running server

A visitor is benchmarks/st_client.Visitor: one websocket session on the Compare page, speaking
Streamlit's protocol as the browser does (nothing drawn), to a LOCAL server only. A light visitor
opens Compare with its own ~1 KB text, then every `--think` seconds (± 50 %) "types": sends a new
text of its own, as the live box does (a fragment rerun), and waits for the run to finish. Rerun time
is from sending to `script_finished`. Everything is bounded: --visitors ≤ 200, --texts ≤ 5,000,
--max-seconds (default 900) for the whole script.

Parts:
  single      one visitor, --edits reruns: the baseline
  concurrent  --visitors light visitors at once, --edits reruns each: median and 90th percentile
              against the single visitor's median (goal: median within 3×), errors seen, the server's
              CPU use and memory per connected visitor
  memory      --texts distinct texts of --text-kb KB, typed by visitors of 10 texts each, 10 at a
              time; the server's resident memory every 100 texts, after they all left, and after
              --settle seconds more
Ends with one JSON line.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))

from st_client import Visitor, server_memory_mb  # noqa: E402

WORDS = ("the of and to in is that for it as was with be by on not he this are or his from at which but have "
         "an had they you were their one all we can her has there been if more when will would who so no "
         "token tokenizer merge byte vocabulary model text split pattern regex chunk unicode emoji code").split()
EXTRA = ["안녕하세요", "日本語", "naïve", "café", "👋🏽", "def f(x):", "return x ** 2", "3.14159", "Привет", "مرحبا"]


def distinct_text(seed: int, n_bytes: int) -> str:
    """A text of about n_bytes, different for every seed (prose-like words, some code and scripts)."""
    r = random.Random(seed)
    out, size = [f"#{seed}"], 0
    while size < n_bytes:
        w = r.choice(EXTRA) if r.random() < 0.08 else r.choice(WORDS)
        if r.random() < 0.05:
            w += f"{r.randrange(10 ** 6)}"
        out.append(w)
        size += len(w.encode()) + 1
    return " ".join(out)


def _cap(memory_mb: int) -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (memory_mb << 20, memory_mb << 20))


class Server:
    """`streamlit run app.py` (or another `script` under `root`) from `root` on a free loopback port."""

    def __init__(self, root: Path, *, memory_mb: int | None = None, script: str = "app.py"):
        """`memory_mb`: a cap on the server's address space (RLIMIT_AS), so that an input that explodes
        fails in the server instead of taking the machine's memory (benchmarks/hostile_inputs.py);
        `script`: benchmarks/floor_app.py for app_speed.py's round-trip floor."""
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        env = {**os.environ, "TOKEN_LENS_CACHE": os.environ.get("TOKEN_LENS_CACHE",
                                                                str(ROOT / ".cache" / "token-lens"))}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "streamlit", "run", str(root / script), "--server.port", str(self.port),
             "--server.address", "127.0.0.1", "--server.headless", "true", "--browser.gatherUsageStats", "false"],
            cwd=root, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env,
            preexec_fn=None if memory_mb is None else lambda: _cap(memory_mb))
        self.pid = self.proc.pid
        deadline = time.time() + 60
        while True:
            try:
                with urllib.request.urlopen(self.url + "/_stcore/health", timeout=2) as r:
                    if r.status == 200:
                        return
            except OSError:
                pass
            if time.time() > deadline or self.proc.poll() is not None:
                self.stop()
                raise RuntimeError("streamlit did not start")
            time.sleep(0.2)

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat", encoding="ascii") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))] if xs else float("nan")


async def visitor(url: str, seed: int, edits: int, think: float, text_bytes: int, times: list, errors: list,
                  start_delay: float = 0.0, keep_open: asyncio.Event | None = None) -> None:
    r = random.Random(seed)
    await asyncio.sleep(start_delay)
    try:
        async with Visitor(url, query={"text": distinct_text(seed * 1000, text_bytes)}) as v:
            errors.extend(v.last.exceptions)
            for k in range(edits):
                await asyncio.sleep(think * r.uniform(0.5, 1.5))
                text = distinct_text(seed * 1000 + k + 1, text_bytes)
                run = await v.type_text(text)
                times.append(run.seconds)
                errors.extend(run.exceptions)
                if f"%23{seed * 1000 + k + 1}+" not in run.query_string and text_bytes <= 2000:
                    errors.append(f"visitor {seed}: the page did not show its own text after edit {k}")
            if keep_open is not None:
                await keep_open.wait()
    except Exception as e:  # a dropped connection, a timeout: counted, not fatal to the others
        errors.append(f"visitor {seed}: {type(e).__name__}: {e}")


async def single(url: str, edits: int, think: float, text_bytes: int) -> dict:
    times, errors = [], []
    await visitor(url, 1, edits, think, text_bytes, times, errors)
    return {"reruns": len(times), "median_s": statistics.median(times), "p90_s": pct(times, 0.9), "errors": errors}


async def concurrent(url: str, pid: int, n: int, edits: int, think: float, text_bytes: int) -> dict:
    times, errors = [], []
    mem0 = server_memory_mb(pid)
    cpu0, t0 = cpu_seconds(pid), time.perf_counter()
    hold = asyncio.Event()
    tasks = [asyncio.create_task(visitor(url, 100 + k, edits, think, text_bytes, times, errors,
                                         start_delay=k * 2.0 / n, keep_open=hold)) for k in range(n)]
    while len(times) < n * edits and not all(t.done() for t in tasks):
        await asyncio.sleep(0.2)
    wall, cpu = time.perf_counter() - t0, cpu_seconds(pid) - cpu0
    mem1 = server_memory_mb(pid)  # every visitor still connected
    hold.set()
    await asyncio.gather(*tasks)
    return {"visitors": n, "reruns": len(times), "median_s": statistics.median(times) if times else None,
            "p90_s": pct(times, 0.9), "max_s": max(times) if times else None, "errors": errors[:20],
            "n_errors": len(errors), "wall_s": wall, "server_cpu_s": cpu, "server_cores_busy": cpu / wall,
            "cpu_per_rerun_ms": 1000 * cpu / max(1, len(times) + n),
            "server_mb_before": mem0, "server_mb_connected": mem1, "mb_per_visitor": (mem1 - mem0) / n}


async def memory(url: str, pid: int, texts: int, text_kb: int, settle: float) -> dict:
    per_visitor, at_once = 10, 10
    trace = [(0, server_memory_mb(pid))]
    errors: list = []
    done = 0
    seed = 10_000
    while done < texts:
        batch = []
        for _ in range(at_once):
            if done >= texts:
                break
            n = min(per_visitor, texts - done)
            batch.append(visitor(url, seed, n - 1, 0.05, text_kb * 1000, [], errors))  # its first text + n-1 edits
            seed += 1
            done += n
        await asyncio.gather(*batch)
        if done // 100 != (done - per_visitor * len(batch)) // 100 or done >= texts:
            trace.append((done, server_memory_mb(pid)))
            print(f"  memory: {done} texts, server {trace[-1][1]:.0f} MB", file=sys.stderr, flush=True)
    left = server_memory_mb(pid)
    await asyncio.sleep(settle)
    return {"texts": texts, "text_kb": text_kb, "trace_mb": trace, "after_all_left_mb": left,
            f"after_{settle:g}s_mb": server_memory_mb(pid), "growth_mb": trace[-1][1] - trace[0][1],
            "errors": errors[:20], "n_errors": len(errors)}


async def warm(url: str) -> None:
    async with Visitor(url, query={"text": "warm up"}) as v:
        await v.type_text("warm up again")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--url", help="a running local server (default: start one)")
    ap.add_argument("--pid", type=int, help="the running server's process id (with --url)")
    ap.add_argument("--root", type=Path, default=ROOT, help="the checkout whose app.py to serve")
    ap.add_argument("--parts", default="single,concurrent,memory")
    ap.add_argument("--visitors", type=int, default=30)
    ap.add_argument("--edits", type=int, default=10)
    ap.add_argument("--think", type=float, default=3.0, help="seconds between a light visitor's edits (±50 %%)")
    ap.add_argument("--text-bytes", type=int, default=1000, help="size of a light visitor's texts")
    ap.add_argument("--texts", type=int, default=500)
    ap.add_argument("--text-kb", type=int, default=10)
    ap.add_argument("--settle", type=float, default=15.0)
    ap.add_argument("--max-seconds", type=float, default=900.0)
    args = ap.parse_args()
    if not (1 <= args.visitors <= 200 and 1 <= args.texts <= 5000 and 1 <= args.edits <= 100):
        ap.error("bounded: --visitors 1..200, --texts 1..5000, --edits 1..100")
    server = None
    if args.url:
        url, pid = args.url, args.pid
    else:
        server = Server(args.root.resolve())
        url, pid = server.url, server.pid
    parts = args.parts.split(",")
    out: dict = {"root": str(args.root), "visitors": args.visitors, "edits": args.edits, "think_s": args.think,
                 "text_bytes": args.text_bytes, "cores": os.cpu_count(),
                 "load_at_start": os.getloadavg()[0]}

    async def go():
        await warm(url)
        out["server_mb_idle"] = server_memory_mb(pid)
        if "single" in parts:
            out["single"] = await single(url, args.edits, 0.5, args.text_bytes)
            print(f"single: median {out['single']['median_s'] * 1000:.0f} ms", file=sys.stderr)
        if "concurrent" in parts:
            out["concurrent"] = c = await concurrent(url, pid, args.visitors, args.edits, args.think, args.text_bytes)
            print(f"{c['visitors']} visitors: median {c['median_s'] * 1000:.0f} ms, p90 {c['p90_s'] * 1000:.0f} ms, "
                  f"{c['n_errors']} errors, server {c['server_cores_busy']:.2f} cores busy, "
                  f"{c['mb_per_visitor']:.1f} MB per visitor", file=sys.stderr)
            if "single" in out:
                out["ratio_median"] = c["median_s"] / out["single"]["median_s"]
        if "memory" in parts:
            out["memory"] = await memory(url, pid, args.texts, args.text_kb, args.settle)

    try:
        asyncio.run(asyncio.wait_for(go(), args.max_seconds))
    finally:
        if server is not None:
            server.stop()
    out["load_at_end"] = os.getloadavg()[0]
    print(json.dumps(out))


if __name__ == "__main__":
    main()
