"""Does the server's memory come back after visitors who uploaded leave? (issue 24, item 3)

    .venv/bin/python benchmarks/memory_after_visits.py                      # both scenarios, ~6 minutes
    .venv/bin/python benchmarks/memory_after_visits.py --scenario files --visits 2 --files 40 --mb 19
    .venv/bin/python benchmarks/memory_after_visits.py --root /work/main   # another checkout (e.g. main)

A real `streamlit run` of the checkout's app.py (tests/e2e/conftest.streamlit_server) driven by Debian's
Chromium (the e2e harness: new_context, settle). Each scenario on a fresh server:

  files       --visits visitors each put --files text files of --mb MB into the Languages page's
              corpus uploader (files over the page's 5 MB bound are refused by the page, but Streamlit
              holds every uploaded byte for the session), then close their tab
  tokenizers  --visits visitors each load --uploads tokenizer files on Compare (DeepSeek V3's
              tokenizer.json from the provisioned cache, ~80 MB each once loaded; each is then tokenized
              into the shared results store), then close their tab

The server's resident memory (/proc/PID/status VmRSS) is read when idle (--settle s after a warm-up
visit that did the same once, with one file or one upload, and left: what a first use loads for good,
code and vocabularies, is in the baseline; on a checkout that never releases a visit, so is that
visit), after the visitors left, then every 10 s for --wait seconds. Ends with one
JSON line: baseline, peak, each reading, and the first time after the last tab closed at which memory
was back within 10 % of the baseline (null: never within --wait).

The server writes where its memory is at each sweep (service/visits.py, TOKEN_LENS_MEMORY_LOG;
service.cache.memory_report): the baseline is read only once the warm-up visit has been ended (else it
would count that visit's tokenizer as idle), and the JSON line gives that breakdown at the baseline and at
the end (`where_mb`: Python's arenas and the bytes alive in them, glibc's heap in use and free).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEEPSEEK = "deepseek_v3.tokenizer.json"


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def server_pid(port: int) -> int:
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                cmd = (proc / "cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if b"streamlit" in b" ".join(cmd) and str(port).encode() in cmd:
                return int(proc.name)
    raise RuntimeError(f"no streamlit process on port {port}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--root", type=Path, default=ROOT, help="the checkout whose app is served (its tests/e2e harness)")
    ap.add_argument("--scenario", choices=["files", "tokenizers", "both"], default="both")
    ap.add_argument("--visits", type=int, default=2)
    ap.add_argument("--files", type=int, default=40, help="files per visit (files scenario)")
    ap.add_argument("--mb", type=float, default=19, help="MB per file (files scenario; at most 20, the upload bound)")
    ap.add_argument("--uploads", type=int, default=6, help="tokenizer files per visit (tokenizers scenario; the page's bound)")
    ap.add_argument("--wait", type=float, default=150, help="seconds to watch after the last tab closed")
    ap.add_argument("--settle", type=float, default=90, help="seconds after the warm-up visit left to read the baseline")
    args = ap.parse_args()
    args.visits, args.files, args.uploads = min(args.visits, 10), min(args.files, 60), min(args.uploads, 6)
    args.mb, args.wait, args.settle = min(args.mb, 20), min(args.wait, 600), min(args.settle, 600)

    sys.path.insert(0, str(args.root.resolve()))
    from playwright.sync_api import sync_playwright
    from tests.e2e.conftest import CHROMIUM, CHROMIUM_FLAGS, new_context, rerun, settle, streamlit_server, wait_for_app

    from tokenizers.core.paths import cache_root  # the provisioned vendor files

    import os

    scenarios = ["files", "tokenizers"] if args.scenario == "both" else [args.scenario]
    out = {"root": str(args.root), "visits": args.visits}
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as p:
        tmp = Path(tmp)
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS, headless=True)
        for scenario in scenarios:
            memlog = tmp / f"memory-{scenario}.jsonl"
            os.environ["TOKEN_LENS_MEMORY_LOG"] = str(memlog)  # inherited by the server (a checkout without
            # the hook ignores it)

            def reports() -> list[dict]:
                try:
                    return [json.loads(line) for line in memlog.read_text().splitlines() if line.strip()]
                except (OSError, ValueError):
                    return []

            with streamlit_server(args.root / "app.py", f"memory-{scenario}.log") as url:
                pid = server_pid(int(url.rsplit(":", 1)[1]))

                def visit(act) -> None:
                    ctx = new_context(browser, viewport={"width": 1400, "height": 1600})
                    page = ctx.new_page()
                    try:
                        act(page)
                    finally:
                        ctx.close()

                def languages(page, paths=()) -> None:
                    page.goto(f"{url}/languages")
                    wait_for_app(page, 120_000)
                    page.get_by_role("tab", name="Your corpus").click()
                    page.get_by_text("No files yet.").wait_for(timeout=60_000)
                    if paths:
                        with rerun(page, 300_000):
                            page.locator("input[type=file]").set_input_files([str(q) for q in paths])

                def compare(page, paths=()) -> None:
                    page.goto(f"{url}/?text=" + "hello%20visitors%2C%20" * 20)
                    wait_for_app(page, 120_000)
                    page.get_by_text("Load your own tokenizer file").click()
                    box = page.locator("[data-testid='stFileUploader'] input[type=file]").first
                    box.wait_for(state="attached", timeout=30_000)
                    for path in paths:
                        with rerun(page, 120_000):
                            box.set_input_files(str(path))
                        settle(page, 120_000)
                        page.get_by_role("button", name="Load", exact=True).click()
                        page.get_by_text(re.compile(rf"Loaded {re.escape(path.name)}")).first.wait_for(timeout=120_000)
                        settle(page, 120_000)

                if scenario == "files":
                    paths = []
                    for k in range(args.files):
                        q = tmp / f"part{k:02d}.txt"
                        q.write_bytes((f"line {k} of the corpus\n".encode() * 10**6)[:int(args.mb * 2**20)])
                        paths.append(q)
                    warm, act = (lambda page: languages(page, paths[:1])), lambda page: languages(page, paths)
                else:
                    data = (cache_root() / "vendor" / DEEPSEEK).read_bytes()
                    paths = []
                    for k in range(args.uploads):
                        q = tmp / f"mine{k}.json"
                        q.write_bytes(data)
                        paths.append(q)
                    warm, act = (lambda page: compare(page, paths[:1])), lambda page: compare(page, paths)
                # the idle baseline: after one visit that did the same once (one file, one upload: the code
                # paths and the vocabularies it uses are loaded, once per process) and left, --settle s later
                visit(warm)
                time.sleep(args.settle)
                ended_at = time.monotonic() + 180  # the warm-up visit ended, then one more sweep (collected)
                while reports() and time.monotonic() < ended_at and sum(r["ended"] >= 1 for r in reports()) < 2:
                    time.sleep(5)
                base_where = (reports() or [{}])[-1]
                baseline = rss_mb(pid)
                peak = baseline
                t0 = time.monotonic()
                for _ in range(args.visits):
                    visit(act)
                    peak = max(peak, rss_mb(pid))
                left = time.monotonic()
                readings, back = [], None
                while True:
                    now = time.monotonic() - left
                    mb = rss_mb(pid)
                    peak = max(peak, mb)
                    readings.append((round(now), round(mb)))
                    if back is None and mb <= 1.10 * baseline:
                        back = round(now)
                    print(f"{scenario}: {now:5.0f} s after the last tab closed: {mb:,.0f} MB "
                          f"(idle {baseline:,.0f} MB)", flush=True)
                    if now >= args.wait:
                        break
                    time.sleep(10)
                out[scenario] = {"baseline_mb": round(baseline), "peak_mb": round(peak),
                                 "visits_seconds": round(left - t0, 1), "after_mb": readings,
                                 "back_within_10pct_after_s": back, "end_mb": readings[-1][1],
                                 "end_over_baseline": round(readings[-1][1] / baseline, 2),
                                 "where_mb": {"baseline": base_where, "end": (reports() or [{}])[-1]}}
                if scenario == "files":
                    out[scenario]["uploaded_mb"] = round(args.visits * args.files * args.mb)
        browser.close()
    print(json.dumps(out))


if __name__ == "__main__":
    main()
