"""How long a page is: its height in a real browser once everything on it is drawn (issue 20, item 6:
Quirks was 19 screens long with all its cards open).

    .venv/bin/python benchmarks/page_height.py [--root DIR] [--path /quirks ...] [--ready JS] [--viewport 1280x720]

Starts `streamlit run app.py` from `--root` (default: this checkout, so the same script measures
another worktree or branch), opens each `--path` (a new visit each, on the one server) in Debian's
Chromium at `--viewport`, waits until `--ready` (a JS expression; by default a card's token spans are
drawn) holds and the height has not changed for two seconds, and prints
`document.scrollingElement.scrollHeight` and the height of Streamlit's own scroll container (the app
scrolls inside it, so the document stays one screen high), and how many screens that is.
Ends with one JSON line (a list, one entry per path).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from visitors import Server  # noqa: E402

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
FLAGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage"]
READY = "document.querySelector('.tl-head') && document.querySelector('.tl-spans')"
HEIGHTS = """() => {
  const doc = document.scrollingElement.scrollHeight;
  const inner = [...document.querySelectorAll('[data-testid=stMain], [data-testid=stAppViewContainer], section.main')]
    .map(e => e.scrollHeight);
  return {document: doc, streamlit: Math.max(0, ...inner)};
}"""


def measure(url: str, viewport: tuple[int, int], ready: str, timeout: float = 180) -> dict:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        try:
            page = browser.new_page(viewport={"width": viewport[0], "height": viewport[1]})
            page.goto(url)
            page.wait_for_function(f"() => !!({ready})", timeout=timeout * 1000)
            last, since, deadline = None, time.time(), time.time() + timeout
            while time.time() < deadline:  # drawn: no running script and the same height for 2 s
                running = page.locator("[data-testid=stStatusWidget], [data-testid^=stSkeleton]").count()
                now = page.evaluate(HEIGHTS)
                if now != last or running:
                    last, since = now, time.time()
                elif time.time() - since >= 2:
                    break
                time.sleep(0.25)
            return {**last, "viewport": f"{viewport[0]}x{viewport[1]}",
                    "screens": round(max(last.values()) / viewport[1], 1)}
        finally:
            browser.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", type=Path, default=ROOT, help="the checkout whose app.py to run")
    ap.add_argument("--path", action="append", help="the page and its link, e.g. /quirks?card=special (repeatable; "
                                                    "default /quirks)")
    ap.add_argument("--ready", default=READY, help="a JS expression that holds once the page's content is drawn")
    ap.add_argument("--viewport", default="1280x720")
    args = ap.parse_args()
    viewport = tuple(int(x) for x in args.viewport.split("x"))
    server = Server(args.root.resolve())
    found = []
    try:
        for path in args.path or ["/quirks"]:
            out = {"root": str(args.root.resolve()), "path": path, **measure(server.url + path, viewport, args.ready)}
            print(f"{out['path']} at {out['viewport']} ({out['root']}): document.scrollingElement.scrollHeight "
                  f"{out['document']:,} px, Streamlit's scroll container {out['streamlit']:,} px, "
                  f"{out['screens']} screens")
            found.append(out)
    finally:
        server.stop()
    print(json.dumps(found))

if __name__ == "__main__":
    main()
