"""Issue 22: keystroke to spans on Compare when the browser tokenizes (WebAssembly core, ui/web/live_spans.js).

    .venv/bin/python benchmarks/live_keystroke.py [--repeat 7]

In Chromium, on a fresh `streamlit run`, with a text of 1 KB, 10 KB and 100 KB pasted into the box, one
keystroke at the start of the text after a pause (as benchmarks/app_speed.py types), then Backspace:
  * browser: keydown to every in-browser column redrawn with the new character (Custom BPE, GPT-2,
    cl100k_base);
  * server: keydown to DeepSeek-V3's column (a tokenizer.json pipeline, which only the server runs)
    redrawn: the server's round trip for the same keystroke (at 100 KB the box sends only on Apply: the
    Apply to that column drawn instead). benchmarks/app_speed.py --keystrokes-only measures the four
    default tokenizers against Streamlit's bare round trip, the issue's yardstick;
  * draw: the browser's own time per keystroke and column (encode + build + DOM), from the page;
  * runs asked while typing 20 keys at 80 ms apart with every column in the browser (custom_bpe, gpt2,
    cl100k_base, o200k_base): the server's runs per keystroke;
  * the files the browser fetches (service/browser_assets.py): bytes on a first visit, requests after
    moving to another page and back, bytes on a second visit in the same browser;
  * a 1 MB paste: until the box holds it, and until the in-browser columns show its first page.
Medians of --repeat keystrokes. Ends with one JSON line.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from app_speed import CHROMIUM, FLAGS, corpus, live_box, paste  # noqa: E402
from visitors import Server  # noqa: E402

SIZES = {"1 KB": 1_000, "10 KB": 10_000, "100 KB": 100_000}
INSTALL = """() => { window.__kd = 0; document.addEventListener('keydown', () => { window.__kd = performance.now(); }, true); }"""
# [browser columns redrawn with ch, the server column redrawn with ch]: the first time each is seen
SEEN = """([ch, n]) => {
  const cols = [...document.querySelectorAll('.tl-spans')];
  const live = cols.filter(s => s.dataset.live === 'browser');
  const server = cols.filter(s => s.closest('[data-testid=stVerticalBlock]').querySelector('.tl-head')
                                    .dataset.tokenizer === 'deepseek_v3');
  const now = performance.now(), starts = s => s.textContent.replace(/^▁/, '').startsWith(ch);
  if (!window.__b && live.length === n && live.every(starts)) window.__b = now;
  if (!window.__s && server.length && server.every(starts)) window.__s = now;
  return !!window.__b && (!!window.__s || window.__noServer);
}"""
# three columns the browser draws beside one only the server runs (DeepSeek-V3: a tokenizer.json pipeline),
# so one keystroke gives both figures (Mistral's SentencePiece, one of the four defaults, is in the browser too)
SERVER_QUERY = "?tokenizers=custom_bpe,gpt2,cl100k_base,deepseek_v3"
READY = """n => { const L = globalThis.__tlLive; return !!L && [...L.columns.values()].filter(c => c.ready).length === n; }"""


def median(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def fresh(browser, url: str, query: str = ""):
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    ctx.grant_permissions(["clipboard-read", "clipboard-write"], origin=url)
    ctx.add_init_script("window.__runs = 0; const S = WebSocket.prototype.send; WebSocket.prototype.send = "
                        "function (d) { if (typeof d !== 'string') window.__runs++; return S.call(this, d); };")
    page = ctx.new_page()
    page.goto(url + "/" + query)
    page.wait_for_function("document.querySelectorAll('.tl-head').length === 4", timeout=120_000)
    page.evaluate(INSTALL)
    return ctx, page


def keystrokes(browser, url: str, label: str, repeat: int) -> dict:
    ctx, page = fresh(browser, url, SERVER_QUERY)
    page.wait_for_function(READY, arg=3, timeout=120_000)
    text = corpus(SIZES[label]).rstrip()
    paste(page, text)
    big = SIZES[label] > 20_000
    if big:
        page.get_by_role("button", name="Apply").click()
    page.wait_for_function("() => [...document.querySelectorAll('.tl-spans')].every(s => s.textContent.replace(/^▁/, '')"
                           ".startsWith('T'))", timeout=120_000)
    page.wait_for_timeout(2000)
    box = live_box(page)
    box.press("Control+Home")
    b, s, draw = [], [], []
    for k in range(repeat):
        ch = "QXZJKVWY"[k % 8]
        page.evaluate("nos => { window.__b = 0; window.__s = 0; window.__noServer = nos; }", big)
        box.press(ch)
        page.wait_for_function(SEEN, arg=[ch, 3], timeout=120_000, polling="raf")
        if big:  # the box sends a text this long only on Apply
            t = page.evaluate("() => performance.now()")
            page.get_by_role("button", name="Apply").click()
            page.wait_for_function(SEEN, arg=[ch, 3], timeout=120_000, polling="raf")
            page.evaluate("() => { window.__noServer = false; }")
            page.wait_for_function(SEEN, arg=[ch, 3], timeout=120_000, polling="raf")
            kd, wb, ws = page.evaluate("[window.__kd, window.__b, window.__s]")
            s.append((ws - t) / 1000)
        else:
            kd, wb, ws = page.evaluate("[window.__kd, window.__b, window.__s]")
            s.append((ws - kd) / 1000)
        b.append((wb - kd) / 1000)
        draw += page.evaluate("() => [...document.querySelectorAll('.tl-spans-root')].map(r => +r.dataset.drawMs || null)")
        box.press("Backspace")
        page.wait_for_timeout(1500)  # the box's pause and the server's run
        if big:
            page.get_by_role("button", name="Apply").click()
            page.wait_for_timeout(1500)
    ctx.close()
    out = {"browser": median(b), "server": median(s), "draw_ms": median(draw)}
    print(f"  {label}: keystroke->browser spans {out['browser'] * 1000:.0f} ms, "
          f"{'Apply' if big else 'keystroke'}->server spans {out['server'] * 1000:.0f} ms, "
          f"browser draw per column {out['draw_ms']:.1f} ms", file=sys.stderr)
    return out


def runs_while_typing(browser, url: str) -> dict:
    ctx, page = fresh(browser, url, "?tokenizers=custom_bpe,gpt2,cl100k_base,o200k_base")
    page.wait_for_function(READY, arg=4, timeout=120_000)
    page.wait_for_timeout(2000)
    box = live_box(page)
    box.click()
    box.press("Control+Home")
    before = page.evaluate("window.__runs")
    box.press_sequentially("abcdefghijklmnopqrst", delay=80)
    during = page.evaluate("window.__runs") - before
    page.wait_for_timeout(2500)
    after = page.evaluate("window.__runs") - before
    ctx.close()
    return {"messages_while_typing_20_keys": during, "messages_after_the_pause": after}


def big_paste(browser, url: str) -> dict:
    ctx, page = fresh(browser, url)
    page.wait_for_function(READY, arg=3, timeout=120_000)
    text = "W" + corpus(1_000_000)[1:]
    page.evaluate("v => navigator.clipboard.writeText(v)", text)
    box = live_box(page)
    box.click()
    box.press("Control+A")
    t = page.evaluate("() => performance.now()")
    box.press("Control+V")
    units = len(text.encode("utf-16-le")) // 2  # the box's length in JavaScript's UTF-16 units
    page.wait_for_function("n => document.querySelector('.tl-live textarea').value.length === n", arg=units,
                           timeout=120_000, polling="raf")
    landed = page.evaluate("() => performance.now()")
    try:
        page.wait_for_function("() => { const l = [...document.querySelectorAll('.tl-spans[data-live=browser]')];"
                               " return l.length === 3 && l.every(s => s.textContent.startsWith('W')); }",
                               timeout=120_000, polling="raf")
        drawn = page.evaluate("() => performance.now()")
    except Exception:  # say what the page shows instead of stopping the whole run
        print("  1 MB paste: the browser columns did not redraw:", page.evaluate(
            "() => [...document.querySelectorAll('.tl-spans')].map(s => [s.dataset.live, s.textContent.slice(0, 12)])"),
            file=sys.stderr)
        drawn = float("nan")
    ctx.close()
    return {"paste_1MB_in_box_ms": landed - t, "paste_1MB_browser_spans_ms": drawn - t}


def transfers(browser, url: str) -> dict:
    """Bytes fetched from static/tl/ (service/browser_assets.py) on a first visit, after moving to Inside and
    back within it, and on a second visit in the same browser (its HTTP cache)."""
    ctx = browser.new_context()
    got = {}
    entries = ("performance.getEntriesByType('resource').filter(e => e.name.includes('/static/tl/'))"
               ".map(e => [e.name.split('/').pop(), e.encodedBodySize, e.transferSize, e.decodedBodySize])")
    for visit in ("first", "second"):
        page = ctx.new_page()
        page.goto(url + "/")
        page.wait_for_function(READY, arg=3, timeout=120_000)
        got[visit] = page.evaluate(entries)
        if visit == "first":
            page.locator("[data-testid='stSidebarNav'] a[href$='/inside']").click()
            page.wait_for_timeout(3000)
            page.locator("[data-testid='stSidebarNav'] a").first.click()
            page.wait_for_function(READY, arg=3, timeout=120_000)
            got["requests_after_inside_and_back"] = len(page.evaluate(entries))
        page.close()
    ctx.close()
    return {"first_visit_bytes": sum(e[2] for e in got["first"]),
            "first_visit_uncompressed": sum(e[3] for e in got["first"]),
            "files": len(got["first"]), "requests_after_inside_and_back": got["requests_after_inside_and_back"],
            "second_visit_bytes": sum(e[2] for e in got["second"]), "detail": got["first"]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=7)
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    started = time.time()
    srv = Server(ROOT)
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
            typed = {label: keystrokes(browser, srv.url, label, args.repeat) for label in SIZES}
            runs = runs_while_typing(browser, srv.url)
            fetched = transfers(browser, srv.url)
            pasted = big_paste(browser, srv.url)
            browser.close()
    finally:
        srv.stop()
    ms = lambda s: f"{s * 1000:,.0f} ms"  # noqa: E731
    print(f"\nCompare, keystroke to spans · {time.strftime('%Y-%m-%d %H:%M')} · {os.cpu_count()} cores · "
          f"load {os.getloadavg()[0]:.1f} · {time.time() - started:.0f} s\n")
    print("| | 1 KB | 10 KB | 100 KB |\n|---|---|---|---|")
    print("| keystroke to the in-browser columns redrawn (3 BPE columns) | "
          + " | ".join(ms(typed[k]["browser"]) for k in SIZES) + " |")
    print("| keystroke to the server's column redrawn (DeepSeek-V3; 100 KB: Apply) | "
          + " | ".join(ms(typed[k]["server"]) for k in SIZES) + " |")
    print("| browser ÷ server | " + " | ".join(f"{typed[k]['browser'] / typed[k]['server']:.2f}×" for k in SIZES) + " |")
    print("| the browser's own work per column and keystroke | "
          + " | ".join(f"{typed[k]['draw_ms']:.1f} ms" for k in SIZES) + " |\n")
    print(f"- every column in the browser: {runs['messages_while_typing_20_keys']} messages to the server while "
          f"typing 20 keys 80 ms apart, {runs['messages_after_the_pause']} in all after the pause")
    print(f"- a 1 MB paste: in the box after {pasted['paste_1MB_in_box_ms']:.0f} ms, its first page drawn by the "
          f"browser after {pasted['paste_1MB_browser_spans_ms']:.0f} ms")
    print(f"- files from static/tl/: {fetched['files']}, {fetched['first_visit_bytes'] / 1000:,.0f} KB on a first visit "
          f"({fetched['first_visit_uncompressed'] / 1000:,.0f} KB uncompressed), "
          f"{fetched['requests_after_inside_and_back']} requests in all after Inside and back, "
          f"{fetched['second_visit_bytes']} bytes on a second visit")
    print(json.dumps({"typed": typed, "runs": runs, "transfers": fetched, "paste": pasted}))


if __name__ == "__main__":
    main()
