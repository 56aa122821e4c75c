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

Issue 24's attacks (crafted tokenizer files, memory kept after visitors leave, the training slots) run
on a REAL server instead, because they are also measured by what another visitor feels:

    .venv/bin/python benchmarks/hostile_inputs.py --attacks all                    # ~20 minutes on main
    .venv/bin/python benchmarks/hostile_inputs.py --attacks "1 normalizer: 40 x;7 merge rank of a×20,000"
    .venv/bin/python benchmarks/hostile_inputs.py --attacks all --root /tmp/main    # another checkout
    .venv/bin/python benchmarks/hostile_inputs.py --attacks list

Each attack gets a fresh `streamlit run app.py` (benchmarks/visitors.Server) whose address space is
capped (--server-cap-gb, default 6) and a time limit (--attack-timeout, default 90 s for each of its
steps: a page run, an upload; the server is stopped after the attack, so work that cannot be stopped
ends there too). The attacker is a
benchmarks/st_client.Visitor doing what a browser does (uploads by PUT with the XSRF token, buttons,
inputs, the live text box); the crafted files are tests/hostile.py's. Meanwhile another visitor edits
a ~1 KB text on Compare every 0.5 s: its worst edit (from sending to the end of the run; an edit still
waiting when the attack ends counts as long as it has waited) is the column "other visitor". For
each attack: the attacker's time (waits for sessions to expire excluded), the server's peak resident
memory (VmHWM, start-up included: the idle figure is given), the resident memory after the visitors
left and --settle seconds passed (Streamlit drops a closed session after 120 s) for the memory
attacks, and what the attacker saw.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]


def memory_mb(pid: int | str = "self") -> tuple[float, float]:
    """(resident, peak resident since the last reset, or since start) of this process or `pid`, in MB."""
    rss = hwm = 0
    with open(f"/proc/{pid}/status", encoding="ascii") as f:
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


# -- issue 24: attacks on a real server, with another visitor editing ---------------------------------------


def seen(run) -> str:
    """What a visitor's run showed: its exception or first error/warning, else 'ok'."""
    for prefix in ("exception:", "error:", "warning:"):
        for m in run.messages_shown:
            if m.startswith(prefix):
                return "refused: " + " ".join(m.split())[:150] if prefix != "exception:" else m[:150]
    return "ok"


class Ctx:
    """What an attack gets: the server's URL, a clock that leaves out deliberate waits, the outcome."""

    def __init__(self, url: str, pid: int, settle: float, timeout: float):
        self.url, self.pid, self.settle_s, self.timeout = url, pid, settle, timeout
        self.waited = 0.0
        self.extra: dict = {}

    def visitor(self, **kw):
        from st_client import Visitor

        return Visitor(self.url, timeout=self.timeout, **kw)

    def build(self, make, *args, **kw):
        """A crafted file, built here (its building is not the attack's time)."""
        t0 = time.perf_counter()
        try:
            return make(*args, **kw)
        finally:
            self.waited += time.perf_counter() - t0

    async def settle(self) -> float:
        """Wait --settle seconds (for Streamlit to drop the closed sessions); the server's RSS after."""
        import asyncio

        t0 = time.perf_counter()
        await asyncio.sleep(self.settle_s)
        self.waited += time.perf_counter() - t0
        self.extra["rss_after_mb"] = round(memory_mb(self.pid)[0])
        return self.extra["rss_after_mb"]


async def load_file(v, name: str, data: bytes, **settings):
    """Compare's "Load your own tokenizer file": open it, upload, its settings, then Load."""
    if "compare_upload_file" not in v.widgets:
        await v.set(compare_upload_panel=True)  # its widgets are drawn only while it is open
    await v.upload("compare_upload_file", [(name, data)])
    if settings:
        await v.set(**settings)
    return await v.click("compare_upload_load")


def option(v, key: str, contains: str) -> str:
    """The label of a selectbox option that contains `contains` (selectboxes are set by label)."""
    _, _, el = v.widgets[key]
    return next(o for o in el.options if contains in o)


def _typed(n: int, file: bytes, name: str = "tokenizer.json", char: str = "x"):
    async def attack(ctx: Ctx) -> str:
        async with ctx.visitor(query={"text": "hi"}) as v:
            run = await load_file(v, name, file)
            if seen(run) != "ok":
                return seen(run)
            return seen(await v.type_text(char * n))
    return attack


def _decoder(times: int, doublings: int = 24):
    async def attack(ctx: Ctx) -> str:
        import hostile

        async with ctx.visitor(query={"text": "hi"}) as v:
            run = await load_file(v, hostile.MINBPE_NAME, ctx.build(hostile.doubling_minbpe_model, doublings))
            if seen(run) != "ok":
                return seen(run)
            ids = ", ".join([str(hostile.doubling_token_id(doublings))] * times)
            await v.set(compare_decoder=True)  # open: its widgets are drawn only then
            run = await v.set(compare_decode_tok=option(v, "compare_decode_tok", "double"), compare_decode_ids=ids)
            return seen(run) + f" ({run.received / 1e6:.1f} MB sent)"
    return attack


def _inside(file_name: str, make, token_id: int, **settings):
    async def attack(ctx: Ctx) -> str:
        async with ctx.visitor(query={"text": "hi"}) as v:
            run = await load_file(v, file_name, ctx.build(make), **settings)
            if seen(run) != "ok":
                return seen(run)
            run = await v.goto("inside", {"tokenizer": file_name, "id": str(token_id)})
            return seen(run) + f" ({run.received / 1e6:.1f} MB sent)"
    return attack


def _load_only(file_name: str, make, **settings):
    async def attack(ctx: Ctx) -> str:
        async with ctx.visitor(query={"text": "hi"}) as v:
            return seen(await load_file(v, file_name, ctx.build(make), **settings))
    return attack


async def _languages_uploads(ctx: Ctx) -> str:
    """40 files of 19 MB on the Languages page's corpus uploader, then the visitor leaves."""
    import hostile

    async with ctx.visitor() as v:
        await v.goto("languages", {"languages_tab": "Your corpus"})  # the tab, as its link opens it
        if "languages_upload" not in v.widgets:
            return "the uploader did not appear"
        files = [(f"part{k:02d}.txt", ctx.build(hostile.big_text_file, seed=k)) for k in range(40)]
        run = await v.upload("languages_upload", files)
        del files
        ctx.extra["rss_with_files_mb"] = round(memory_mb(ctx.pid)[0])
        outcome = seen(run)
    await ctx.settle()
    return outcome


async def _six_tokenizers_twice(ctx: Ctx) -> str:
    """Two visits, one after the other, each loading six .tiktoken files of 900,000 tokens on Compare
    and typing "hi"; then both have left."""
    import hostile

    outcome = "ok"
    for visit in range(2):
        async with ctx.visitor(query={"text": "hi"}) as v:
            for k in range(6):
                data = ctx.build(hostile.many_tokens_tiktoken, seed=100 * visit + k)
                run = await load_file(v, f"v{visit}_{k}.tiktoken", data)
                outcome = seen(run) if seen(run) != "ok" else outcome
            await v.type_text("hi")
    ctx.extra["rss_when_left_mb"] = round(memory_mb(ctx.pid)[0])
    await ctx.settle()
    return outcome


async def _training_slots(ctx: Ctx) -> str:
    """Two visitors train the Algorithms page's five (250 KB, 8,192 tokens); a third then asks the BPE
    Lab's Classic example. The attack's time is that third visitor's."""
    import asyncio

    async def trainer() -> None:
        async with ctx.visitor() as v:
            await v.goto("algorithms")
            await v.set(alg_builtin_size=["250 KB"], alg_vocab=8192)
            await v.click("alg_train")

    tasks = [asyncio.create_task(trainer()) for _ in range(2)]
    await asyncio.sleep(3)
    ctx.waited += 3
    async with ctx.visitor() as v:
        await v.goto("bpe-lab")
        t0 = time.perf_counter()
        run = await v.click("lab_classic")  # sets the example up and trains it in the same run
        ctx.extra["classic_s"] = round(time.perf_counter() - t0, 2)
        outcome = seen(run)
    for t in tasks:
        t.cancel()
    ctx.extra["attacker_s"] = ctx.extra["classic_s"]
    return outcome


def attacks() -> dict:
    """Issue 24's items 1-8, by name -> (what, the attack)."""
    import hostile

    return {
        "1 normalizer ×10⁶: 40 x": ("tokenizer.json, two Replace x→1000 x; type 40 x",
                                    _typed(40, hostile.growing_normalizer_json())),
        "1 normalizer ×10⁶: 80 x": ("the same; type 80 x", _typed(80, hostile.growing_normalizer_json())),
        "2 one token of 16.8 MB: Compare decoder ×8": (
            "203-byte minbpe .model doubling 'a' 24 times; Compare's decoder with its id 8 times", _decoder(8)),
        "2 one token of 16.8 MB: Inside": ("the same .model; Inside with its id",
                                           _inside(hostile.MINBPE_NAME, hostile.doubling_minbpe_model,
                                                   hostile.doubling_token_id())),
        "2 a token at the 16 KB bound: Compare decoder ×8": (
            "the same .model with 14 doublings (16,384 bytes, the largest token a file may hold)", _decoder(8, 14)),
        "2 .tiktoken with a 15 MB token": ("load it", _load_only(hostile.TIKTOKEN_NAME, hostile.big_token_tiktoken)),
        "3a 40 × 19 MB on Languages, then leave": ("RSS after the session closed", _languages_uploads),
        "3b six tokenizers per visit × 2, then leave": ("900,000-token .tiktoken files on Compare",
                                                        _six_tokenizers_twice),
        "4 Tekken with 20,000,000 specials": ("load it", _load_only(hostile.TEKKEN_NAME, hostile.tekken_many_specials)),
        "5 100,000 added tokens (19.8 MB)": ("load it", _load_only(hostile.TOKENIZER_JSON_NAME,
                                                                  hostile.many_added_tokens_json)),
        "6 Replace (a|aa)+$ on 49 chars": ("load, type the 49 characters",
                                           _typed(1, hostile.replace_pattern_json(), char=hostile.catastrophic_text())),
        "6 Sequence of 40 Splits (a|aa)+$": ("load, type 30 characters (about 1 s per Split, under its 3 s)",
                                             _typed(1, hostile.split_sequence_json(), char=hostile.catastrophic_text(30))),
        "7 merge rank of a×20,000": (".tiktoken with aa and a×20,000; Inside with that id",
                                     _inside("run.tiktoken", hostile.long_run_tiktoken, hostile.LONG_RUN_ID)),
        "7 merge rank of a×16,000 (under the 16 KB bound)": (
            "the same with a×16,000", _inside("run.tiktoken", lambda: hostile.long_run_tiktoken(16_000),
                                               hostile.LONG_RUN_ID)),
        "8 two Algorithms trainings + Classic example": ("the Classic example's wait", _training_slots),
    }


async def _one_attack(name: str, attack, url: str, pid: int, args) -> dict:
    import asyncio

    from st_client import Visitor
    from visitors import distinct_text

    ctx = Ctx(url, pid, args.settle, args.attack_timeout)
    times: list[float] = []
    pending: list[float | None] = [None]
    stop = asyncio.Event()

    async def other() -> None:
        async with Visitor(url, query={"text": distinct_text(1, 1000)}, timeout=3600) as v:
            k = 0
            while not stop.is_set():
                k += 1
                pending[0] = time.perf_counter()
                run = await v.type_text(distinct_text(1000 + k, 1000))
                pending[0] = None
                times.append(run.seconds)
                await asyncio.sleep(0.5)

    editor = asyncio.create_task(other())
    while not times:  # the other visitor is editing before the attack starts
        await asyncio.sleep(0.1)
    idle = memory_mb(pid)[0]
    t0 = time.perf_counter()
    try:
        outcome = await asyncio.wait_for(attack(ctx), args.attack_timeout + ctx.settle_s + 60)
    except asyncio.TimeoutError:
        outcome = f"not finished after {args.attack_timeout:g} s"
    except Exception as e:  # a dropped connection (the server died), an upload refused...
        outcome = f"{type(e).__name__}: {str(e)[:120]}"
    seconds = ctx.extra.pop("attacker_s", time.perf_counter() - t0 - ctx.waited)
    try:
        peak = memory_mb(pid)[1]
    except OSError:  # the server is gone
        peak = float("nan")
    worst = max(times, default=0.0)
    if pending[0] is not None:
        worst = max(worst, time.perf_counter() - pending[0])
    stop.set()
    editor.cancel()
    return {"attack": name, "seconds": round(seconds, 2), "server_idle_mb": round(idle), "server_peak_mb": round(peak),
            "other_worst_edit_s": round(worst, 2), "other_edits": len(times),
            "other_median_edit_s": round(sorted(times)[len(times) // 2], 3) if times else None,
            "outcome": outcome, **ctx.extra}


def run_attacks(names: list[str], args) -> list[dict]:
    import asyncio

    sys.path.insert(0, str(ROOT / "benchmarks"))
    from visitors import Server

    table = attacks()
    rows = []
    for name in names:
        server = Server(args.root.resolve(), memory_mb=args.server_cap_gb << 10)
        try:
            async def go():
                return await asyncio.wait_for(_one_attack(name, table[name][1], server.url, server.pid, args),
                                              args.attack_timeout + args.settle + 180)
            try:
                row = asyncio.run(go())
            except Exception as e:
                row = {"attack": name, "seconds": None, "outcome": f"harness: {type(e).__name__}: {e}"}
            if server.proc.poll() is not None:
                row["outcome"] += f" · the server died (exit {server.proc.returncode})"
        finally:
            server.stop()
        rows.append(row)
        print(f"  {name}: {row.get('seconds')} s, peak {row.get('server_peak_mb')} MB, other visitor's worst "
              f"{row.get('other_worst_edit_s')} s · {row['outcome'][:120]}", file=sys.stderr, flush=True)
    return rows


def attack_table(rows: list[dict]) -> str:
    out = ["| attack | time (s) | server peak MB (idle) | RSS after they left | other visitor's worst edit (median) | "
           "outcome |", "|---|---|---|---|---|---|"]
    for r in rows:
        after = r.get("rss_after_mb", "")
        out.append(f"| {r['attack']} | {r.get('seconds')} | {r.get('server_peak_mb')} ({r.get('server_idle_mb')}) | "
                   f"{after} | {r.get('other_worst_edit_s')} s ({r.get('other_median_edit_s')} s) | "
                   f"{r['outcome'].replace('|', '¦')} |")
    return "\n".join(out)


def main() -> None:
    import hostile

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--inputs", help="semicolon-separated page inputs (default: all; --list shows them)")
    ap.add_argument("--values", help="semicolon-separated value names (default: all of each input's kind)")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--cap-gb", type=int, default=6, help="address-space cap of each measuring process (GB)")
    ap.add_argument("--one", help=argparse.SUPPRESS)
    ap.add_argument("--attacks", help='issue 24\'s attacks on a real server: "all", "list" or semicolon-separated names')
    ap.add_argument("--root", type=Path, default=ROOT, help="the checkout whose app.py the attacks' server runs")
    ap.add_argument("--server-cap-gb", type=int, default=6, help="address-space cap of the attacks' server (GB)")
    ap.add_argument("--attack-timeout", type=float, default=90.0, help="seconds each attack may take")
    ap.add_argument("--settle", type=float, default=130.0,
                    help="seconds after the memory attacks' visitors left before RSS is read")
    args = ap.parse_args()
    only = args.values.split(";") if args.values else None
    if args.attacks:
        names = list(attacks())
        if args.attacks == "list":
            for n, (what, _) in attacks().items():
                print(f"{n}: {what}")
            return
        chosen = names if args.attacks == "all" else args.attacks.split(";")
        rows = run_attacks(chosen, args)
        print(attack_table(rows))
        print(json.dumps({"hostile_attacks": rows, "root": str(args.root), "load": os.getloadavg()}))
        return
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
