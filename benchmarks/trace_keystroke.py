"""Where a keystroke's time goes on Compare (issue 22): one Chromium trace (Playwright + CDP Tracing,
the devtools.timeline categories) of keystrokes typed at the start of the live box, summed by kind of
main-thread work between keydown and every column showing the key.

    .venv/bin/python benchmarks/trace_keystroke.py [--size 10000] [--repeat 3] [--root CHECKOUT] [--out trace.json] [--light]

Prints, per keystroke: keydown to done (as app_speed.py measures it), then the main thread's time by
event name (FunctionCall, UpdateLayoutTree, Layout, Paint, ...), the rAF callbacks and frames in the
window, and whether a server run (a websocket message) landed inside it. Uses app_speed.py's corpus,
paste and done condition. `--light`: without the V8 and invalidation-tracking categories, which slow a traced
keystroke down several times over (times nearer an untraced run). Needs Debian's /usr/bin/chromium (or CHROMIUM=...).
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from app_speed import CHROMIUM, DONE, FLAGS, PAGES, ROOT, corpus, live_box, open_page, paste  # noqa: E402
from visitors import Server  # noqa: E402

CATEGORIES = ["devtools.timeline", "disabled-by-default-devtools.timeline", "blink.user_timing",
              "disabled-by-default-devtools.timeline.frame", "toplevel", "v8.execute",
              "disabled-by-default-devtools.timeline.invalidationTracking"]


def summarize(events: list[dict], t0_ms: float, t1_ms: float, origin: float) -> dict:
    """Main-thread events (complete 'X' events) inside [t0, t1] of performance.now(), by name."""
    # the renderer main thread: the thread of the keydown EventDispatch
    main = None
    for e in events:
        if e.get("name") == "EventDispatch" and (e.get("args", {}).get("data", {}) or {}).get("type") == "keydown":
            main = (e["pid"], e["tid"])
    by = collections.Counter()
    count = collections.Counter()
    lo, hi = origin + t0_ms * 1000, origin + t1_ms * 1000
    for e in events:
        if (e.get("pid"), e.get("tid")) != main or e.get("ph") != "X" or "dur" not in e:
            continue
        if e["ts"] + e["dur"] < lo or e["ts"] > hi:
            continue
        by[e["name"]] += min(e["ts"] + e["dur"], hi) / 1000 - max(e["ts"], lo) / 1000
        count[e["name"]] += 1
    return {k: (round(v, 1), count[k]) for k, v in by.most_common(14)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size", type=int, default=10_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--root", type=Path, default=ROOT)
    ap.add_argument("--out", type=Path, default=None, help="also keep the raw trace here")
    ap.add_argument("--light", action="store_true", help="without the costliest categories (see above)")
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    text = corpus(args.size).rstrip()
    server = Server(args.root.resolve())
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
            ctx, page = open_page(browser, server.url + "/", PAGES["compare"][1])
            paste(page, text)
            if page.evaluate("() => document.querySelector('.tl-live').dataset.mode") == "apply":
                page.locator(".tl-live-apply").click()
            page.wait_for_function(DONE, arg=text[0], timeout=120_000)
            page.wait_for_timeout(2500)
            box = live_box(page)
            box.press("Control+Home")
            cdp = ctx.new_cdp_session(page)
            chunks: list = []
            cdp.on("Tracing.dataCollected", lambda m: chunks.extend(m["value"]))
            done_flag = []
            cdp.on("Tracing.tracingComplete", lambda m: done_flag.append(1))
            heavy = {"v8.execute", "disabled-by-default-devtools.timeline.invalidationTracking"} if args.light else set()
            categories = [c for c in CATEGORIES if c not in heavy]
            cdp.send("Tracing.start", {"categories": ",".join(categories), "transferMode": "ReportEvents"})
            page.evaluate("() => { performance.mark('tl-origin'); }")
            marks = []
            for k in range(args.repeat):
                ch = "QXZJKVWY"[k % 8]
                page.evaluate("() => { window.__done = null; window.__first = null; }")
                box.press(ch)
                page.wait_for_function(DONE, arg=ch, timeout=60_000, polling="raf")
                kd, shown = page.evaluate("[window.__kd, window.__done]")
                marks.append((ch, kd, shown))
                page.wait_for_timeout(600)
                box.press("Backspace")
                page.wait_for_function(DONE, arg=text[0], timeout=60_000)
                page.wait_for_timeout(1800)  # the server's run after the idle pause lands outside the next key
            cdp.send("Tracing.end")
            while not done_flag:
                page.wait_for_timeout(100)
            ctx.close()
            browser.close()
    finally:
        server.stop()
    if args.out:
        args.out.write_text(json.dumps({"traceEvents": chunks}))
    # performance.now() 0 on the trace's clock: the 'tl-origin' mark's timestamp minus its startTime
    origin = None
    for e in chunks:
        if e.get("name") == "tl-origin" and e.get("cat", "").startswith("blink.user_timing"):
            origin = e["ts"] - float((e.get("args", {}).get("data", {}) or {}).get("startTime", 0)) * 1000
    if origin is None:  # the keydown events instead: the first keydown is the first mark's kd
        kds = sorted(e["ts"] for e in chunks if e.get("name") == "EventDispatch"
                     and (e.get("args", {}).get("data", {}) or {}).get("type") == "keydown")
        origin = kds[0] - marks[0][1] * 1000 if kds else 0
    for ch, kd, shown in marks:
        print(f"{ch}: keydown -> every column {shown - kd:.0f} ms")
        for name, (ms, n) in summarize(chunks, kd, shown, origin).items():
            print(f"    {name:32s} {ms:7.1f} ms  x{n}")


if __name__ == "__main__":
    main()
