"""Many visitors on one server (issue 16): rerun times with 1 and with N concurrent light visitors, the
server's CPU and memory per visitor, and its memory growth over many distinct texts.

    .venv/bin/python benchmarks/visitors.py                        # all parts, ~4 minutes
    .venv/bin/python benchmarks/visitors.py --parts memory --texts 500
    .venv/bin/python benchmarks/visitors.py --root /tmp/token-lens-main   # another checkout (e.g. main)
    .venv/bin/python benchmarks/visitors.py --url http://127.0.0.1:8501 --pid 1234   # a running server
    .venv/bin/python benchmarks/visitors.py --parts typing --burst-keys 5 --send-rule pause   # issue 22
    .venv/bin/python benchmarks/visitors.py --parts payload                # bytes a rerun sends

A visitor is benchmarks/st_client.Visitor: one websocket session on the Compare page, speaking
Streamlit's protocol as the browser does (nothing drawn), to a LOCAL server only. A light visitor
opens Compare with its own ~1 KB text, then every `--think` seconds (± 50 %) "types": sends a new
text of its own, as the live box does (a fragment rerun, with the box's report of the columns a browser
with WebAssembly draws itself: those the server gives browser assets), and waits for the run to finish. Rerun time
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
  typing      (issue 22) how many typing visitors one process holds: a lone typing visitor, then
              --steps counts of them at once in turn, until a step's median rerun is over 3x the
              lone one's or a visitor sees an error (issue 16's rule, kept: 45 held, 60 not). A typing
              visitor connects first (4 at a time, not timed), then --edits times pauses --think s
              (± 50 %) and types --burst-keys keys --key-ms apart (± 50 %); its live box sends by
              --send-rule: "keystroke" is ui/web/live_text.js today (a key after a quiet moment at
              once, a quick burst's keys together --debounce-ms after the last, default 150),
              "pause" a box whose columns tokenize in the browser (one send --debounce-ms after the
              last key of a run, default 500), which goes, as the browser's does, to the counts' text
              sink once the server made it light (st_client.Visitor.type_text: a run of the counts alone).
              --burst-keys 1 (the default) is the light visitor above: one edit a pause, the same under
              both rules.
  payload     what one rerun sends the browser at --payload-kb KB (bytes; the spans' share), for a browser
              that draws the columns it can (its live box reports them, as live_text.js does) and for one
              without WebAssembly (the server draws every column)
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

    def __init__(self, root: Path, *, memory_mb: int | None = None, script: str = "app.py",
                 env: dict[str, str] | None = None):
        """`memory_mb`: a cap on the server's address space (RLIMIT_AS), so that an input that explodes
        fails in the server instead of taking the machine's memory (benchmarks/hostile_inputs.py);
        `script`: benchmarks/floor_app.py for app_speed.py's round-trip floor; `env`: variables added to
        the server's environment (TOKEN_LENS_SERVER_ONLY, say)."""
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        env = {**os.environ, "TOKEN_LENS_CACHE": os.environ.get("TOKEN_LENS_CACHE",
                                                                str(ROOT / ".cache" / "token-lens")),
               **(env or {})}
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


async def single(url: str, pid: int, edits: int, think: float, text_bytes: int) -> dict:
    """One visitor's reruns: their median time and the server's CPU a rerun (its opening run included)."""
    times, errors = [], []
    cpu0 = cpu_seconds(pid)
    await visitor(url, 1, edits, think, text_bytes, times, errors)
    return {"reruns": len(times), "median_s": statistics.median(times), "p90_s": pct(times, 0.9), "errors": errors,
            "cpu_per_rerun_ms": 1000 * (cpu_seconds(pid) - cpu0) / (len(times) + 1)}


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


# -- typing visitors (issue 22) ----------------------------------------------------------------------

KEYSTROKE, PAUSE = "keystroke", "pause"
HOLDS_RATIO = 3.0  # a process holds N visitors when their median rerun is within 3x a lone visitor's (issue 16)
CEILING_CORES = 0.7  # where one process stopped scaling in every run of docs/serving.md (one interpreter)


def key_times(rng: random.Random, bursts: int, keys: int, key_ms: float, think: float) -> list[float]:
    """When a typing visitor presses its keys, in seconds from its start: `bursts` times a pause of
    `think` s (± 50 %), then `keys` keystrokes `key_ms` apart (± 50 %)."""
    out, t = [], 0.0
    for _ in range(bursts):
        t += think * rng.uniform(0.5, 1.5)
        for k in range(keys):
            if k:
                t += key_ms / 1000 * rng.uniform(0.5, 1.5)
            out.append(t)
    return out


def send_times(keys: list[float], rule: str, debounce_ms: float) -> list[tuple[float, int]]:
    """When the live box sends, for keystrokes at `keys` (sorted, seconds): a list of (time, how many of
    the keys the text sent holds). The client's send rule:

    "keystroke"  ui/web/live_text.js today: a key after a quiet moment (more than `debounce_ms` since
                 the previous key) is sent at once; keys that follow it sooner are sent together
                 `debounce_ms` after the last of them. Slow typing sends every key.
    "pause"      a box whose every column tokenizes in the browser: nothing at a keystroke, one send
                 `debounce_ms` after the last key of each run of keys closer together than that.

    Replies are taken as instant (live_text.js also holds a quiet key back while a reply is due; the
    visitor below sends in turn, so at most one rerun is in flight either way)."""
    if rule not in (KEYSTROKE, PAUSE):
        raise ValueError(f"send rule {rule!r}: {KEYSTROKE!r} or {PAUSE!r}")
    d = debounce_ms / 1000
    out, last, timer = [], float("-inf"), None
    for i, t in enumerate(keys):
        if timer is not None and timer[0] <= t:  # the pending send went before this key
            out.append(timer)
            timer = None
        quiet = t - last > d
        last = t
        if rule == KEYSTROKE and quiet:
            out.append((t, i + 1))
        else:
            timer = (t + d, i + 1)
    if timer is not None:
        out.append(timer)
    return out


async def typing_visitor(url: str, seed: int, sends: list[tuple[float, int]], text_bytes: int, times: list,
                         errors: list, ready: asyncio.Event, go: asyncio.Event, keep_open: asyncio.Event,
                         finished: list, pause: bool = False) -> None:
    """Opens Compare with its own text, waits for `go`, then sends its text plus the first n typed
    characters at each (time, n) of `sends`, in turn (a send due while a rerun is in flight waits for it);
    `pause`: sends after a pause, which the box gives the counts' text sink when it may (st_client)."""
    r = random.Random(seed)
    base = distinct_text(seed * 1000, text_bytes)
    typed = " ".join(r.choice(WORDS) for _ in range(sends[-1][1] if sends else 0))
    try:
        async with Visitor(url, query={"text": base}) as v:
            errors.extend(v.last.exceptions)
            ready.set()
            await go.wait()
            loop = asyncio.get_running_loop()
            t0 = loop.time()
            for t, n in sends:
                await asyncio.sleep(max(0.0, t0 + t - loop.time()))
                run = await v.type_text(f"{base} {typed[:n]}", pause=pause)
                times.append(run.seconds)
                errors.extend(run.exceptions)
                if text_bytes <= 2000 and f"%23{seed * 1000}+" not in run.query_string:
                    errors.append(f"visitor {seed}: the page did not show its own text")
            finished.append(seed)
            await keep_open.wait()
    except Exception as e:  # a dropped connection, a timeout: counted, not fatal to the others
        errors.append(f"visitor {seed}: {type(e).__name__}: {e}")
        if seed not in finished:
            finished.append(seed)
        ready.set()


async def typing(url: str, pid: int, n: int, *, bursts: int, keys: int, key_ms: float, think: float,
                 rule: str, debounce_ms: float, text_bytes: int, seed0: int = 1000) -> dict:
    """`n` typing visitors at once: all connect first (4 at a time, not timed), then type, each on its
    own schedule (its first pause staggers them). Rerun times, errors, the server's CPU while typing."""
    times, errors, finished, sent, keys_typed = [], [], [], 0, 0
    go, hold = asyncio.Event(), asyncio.Event()
    tasks = []
    gate = asyncio.Semaphore(4)

    async def one(k: int) -> None:
        ready = asyncio.Event()
        async with gate:
            task = asyncio.create_task(typing_visitor(url, seed0 + k, schedule[k], text_bytes, times, errors,
                                                      ready, go, hold, finished, rule == PAUSE))
            tasks.append(task)
            await ready.wait()

    schedule, span = [], 0.0
    for k in range(n):
        kt = key_times(random.Random(seed0 + k), bursts, keys, key_ms, think)
        schedule.append(send_times(kt, rule, debounce_ms))
        sent, keys_typed = sent + len(schedule[-1]), keys_typed + len(kt)
        span += schedule[-1][-1][0] if schedule[-1] else 0.0
    await asyncio.gather(*(one(k) for k in range(n)))
    mem = server_memory_mb(pid)
    cpu0, t0 = cpu_seconds(pid), time.perf_counter()
    go.set()
    while len(finished) < n:
        await asyncio.sleep(0.2)
    wall, cpu = time.perf_counter() - t0, cpu_seconds(pid) - cpu0
    hold.set()
    await asyncio.gather(*tasks)
    return {"visitors": n, "rule": rule, "debounce_ms": debounce_ms, "keys": keys_typed, "sends": sent,
            "reruns": len(times), "keys_per_send": keys_typed / max(1, sent),
            "sends_per_visitor_s": sent / span if span else None,
            "median_s": statistics.median(times) if times else None, "p90_s": pct(times, 0.9),
            "max_s": max(times) if times else None, "errors": errors[:20], "n_errors": len(errors), "wall_s": wall,
            "server_cpu_s": cpu, "server_cores_busy": cpu / wall, "cpu_per_rerun_ms": 1000 * cpu / max(1, len(times)),
            "server_mb_connected": mem}


async def holds(url: str, pid: int, steps: list[int], **kw) -> dict:
    """A lone typing visitor, then `steps` typing visitors at once in turn until one step is not held
    (median rerun over HOLDS_RATIO x the lone one's, or an error): how many one process holds."""
    # the lone visitor pauses less (quicker), but longer than the debounce, so its bursts stay apart
    lone_think = min(kw["think"], max(0.5, 2.2 * kw["debounce_ms"] / 1000))
    lone = await typing(url, pid, 1, **{**kw, "think": lone_think}, seed0=900)
    base = lone["median_s"]
    print(f"typing, {kw['rule']} {kw['debounce_ms']:g} ms: lone visitor {base * 1000:.0f} ms "
          f"({lone['keys_per_send']:.1f} keys a send)", file=sys.stderr, flush=True)
    rows, held = [], 0
    for n in steps:
        row = await typing(url, pid, n, **kw)
        row["ratio_median"] = row["median_s"] / base if row["median_s"] else float("inf")
        row["held"] = row["ratio_median"] <= HOLDS_RATIO and row["n_errors"] == 0
        rows.append(row)
        print(f"  {n} visitors: median {(row['median_s'] or float('nan')) * 1000:.0f} ms ({row['ratio_median']:.2f}x), "
              f"p90 {row['p90_s'] * 1000:.0f} ms, {row['n_errors']} errors, {row['reruns']} reruns for "
              f"{row['keys']} keys, server {row['server_cores_busy']:.2f} cores busy, "
              f"{row['cpu_per_rerun_ms']:.0f} ms CPU a rerun", file=sys.stderr, flush=True)
        if not row["held"]:
            break
        held = n
    # the same from CPU alone: a process gives at most CEILING_CORES, each visitor asks for its send
    # rate times the CPU of a rerun (the median over the steps); less sensitive to other work on the
    # machine than the 3x rule, which a loaded machine trips early
    cpu = statistics.median(r["cpu_per_rerun_ms"] for r in rows) / 1000
    rate = rows[0]["sends_per_visitor_s"]
    by_cpu = CEILING_CORES / (rate * cpu) if rate and cpu else None
    print(f"  by CPU: {CEILING_CORES} cores / ({rate:.3f} sends a visitor-second x {cpu * 1000:.0f} ms) = "
          f"{by_cpu:.0f} visitors", file=sys.stderr, flush=True)
    return {"lone": lone, "steps": rows, "holds": held, "goal_150": held >= 150, "by_cpu": by_cpu,
            "cpu_per_rerun_ms": cpu * 1000, "sends_per_visitor_s": rate, **kw}


async def payload(url: str, sizes_kb: list[int], edits: int = 3) -> dict:
    """What one keystroke's rerun sends the browser, by size of text (app_speed.py's mixed corpus, a new
    start each time, as the browser caches what is unchanged): bytes of ForwardMsgs per rerun (median of `edits`), and how much of it is the
    spans components' data."""
    from common import corpus

    out = {}
    for wasm in (True, False):  # a browser that draws the columns it can (its box says which), and one that cannot
        kind = "browser" if wasm else "no WebAssembly"
        for kb in sizes_kb:
            runs, text = [], corpus(kb * 1000)
            async with Visitor(url, wasm=wasm) as v:
                for k in range(edits + 1):
                    runs.append(await v.type_text(f"edit{k:03d} {text[8:]}", pause=False))  # at the start: every span moves
            runs = runs[1:]  # the first one also draws the page for a text of this size
            row = out[f"{kb} KB, {kind}"] = {
                "bytes": statistics.median(r.received for r in runs),
                "spans_bytes": statistics.median(r.by_kind.get("token_lens.token_spans", 0) for r in runs),
                "messages": statistics.median(r.messages for r in runs),
                "server_s": statistics.median(r.seconds for r in runs)}
            print(f"payload {kb} KB, {kind}: {row['bytes'] / 1e6:.3f} MB a rerun, of which spans "
                  f"{row['spans_bytes'] / 1e6:.3f} MB; {row['server_s'] * 1000:.0f} ms", file=sys.stderr, flush=True)
    return out


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
    ap.add_argument("--send-rule", choices=(KEYSTROKE, PAUSE), default=KEYSTROKE,
                    help="typing: the live box's send rule (keystroke: ui/web/live_text.js today; pause: one send a pause)")
    ap.add_argument("--debounce-ms", type=float, help="typing: the rule's debounce (default 150 keystroke, 500 pause)")
    ap.add_argument("--burst-keys", type=int, default=1, help="typing: keys a burst (1: the light visitor's edit)")
    ap.add_argument("--key-ms", type=float, default=200.0, help="typing: ms between a burst's keys (±50 %%)")
    ap.add_argument("--steps", default="15,30,45,60,90,120,150,200", help="typing: visitor counts tried in turn")
    ap.add_argument("--payload-kb", default="1,10,100", help="payload: text sizes in KB")
    args = ap.parse_args()
    if args.debounce_ms is None:
        args.debounce_ms = 150.0 if args.send_rule == KEYSTROKE else 500.0
    steps = [int(x) for x in args.steps.split(",") if x]
    if not (1 <= args.visitors <= 200 and 1 <= args.texts <= 5000 and 1 <= args.edits <= 100
            and steps and all(1 <= n <= 200 for n in steps) and 1 <= args.burst_keys <= 100):
        ap.error("bounded: --visitors and --steps 1..200, --texts 1..5000, --edits 1..100, --burst-keys 1..100")
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
            out["single"] = await single(url, pid, args.edits, 0.5, args.text_bytes)
            print(f"single: median {out['single']['median_s'] * 1000:.0f} ms, "
                  f"{out['single']['cpu_per_rerun_ms']:.1f} ms CPU a rerun", file=sys.stderr)
        if "concurrent" in parts:
            out["concurrent"] = c = await concurrent(url, pid, args.visitors, args.edits, args.think, args.text_bytes)
            print(f"{c['visitors']} visitors: median {c['median_s'] * 1000:.0f} ms, p90 {c['p90_s'] * 1000:.0f} ms, "
                  f"{c['n_errors']} errors, server {c['server_cores_busy']:.2f} cores busy, "
                  f"{c['mb_per_visitor']:.1f} MB per visitor", file=sys.stderr)
            if "single" in out:
                out["ratio_median"] = c["median_s"] / out["single"]["median_s"]
        if "memory" in parts:
            out["memory"] = await memory(url, pid, args.texts, args.text_kb, args.settle)
        if "typing" in parts:
            out["typing"] = t = await holds(url, pid, steps, bursts=args.edits, keys=args.burst_keys,
                                            key_ms=args.key_ms, think=args.think, rule=args.send_rule,
                                            debounce_ms=args.debounce_ms, text_bytes=args.text_bytes)
            print(f"typing visitors one process holds ({args.send_rule} rule, {args.debounce_ms:g} ms, "
                  f"{args.burst_keys} keys a burst): {t['holds']}", file=sys.stderr)
        if "payload" in parts:
            out["payload"] = await payload(url, [int(x) for x in args.payload_kb.split(",") if x])

    try:
        asyncio.run(asyncio.wait_for(go(), args.max_seconds))
    finally:
        if server is not None:
            server.stop()
    out["load_at_end"] = os.getloadavg()[0]
    print(json.dumps(out))


if __name__ == "__main__":
    main()
