"""Browser end-to-end tests: the real app under `streamlit run`, driven in Debian's Chromium.

No browser is ever downloaded: Playwright's Python package is only the driver, pointed at
/usr/bin/chromium. Without Chromium these tests skip with a loud reason, unless E2E_REQUIRED=1
(CI sets it), in which case they fail.

Every test collected here carries the `e2e` marker (the quick tier is `pytest -m "not e2e and not slow"`).

Waiting: no fixed sleeps. Every browser context comes from `new_context`, which counts in the page the
runs Streamlit is asked for (a `rerun_script` message sent on its websocket) and the runs it finishes
(`script_finished`). `settle(page)` is the one wait for "Streamlit finished rerunning": two animation
frames (a widget sends its value from a React effect just after the input), then no run asked for after
the last one finished, the app drawn as not running, and no element still a skeleton (Streamlit loads an
element's code on first use and draws a skeleton meanwhile; a widget that mounts only after the next run
takes its own default instead of the value the page put in st.session_state). An input whose run starts
later (an upload, a debounced box or slider) is wrapped in `with rerun(page):`, which first waits for
that run to be asked for. Other waits name their condition (an element, a text, a canvas that has drawn).
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
SHOTS = ROOT / "artifacts" / "screenshots"
CHROMIUM_FLAGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--disable-dev-shm-usage"]


E2E = Path(__file__).resolve().parent


def pytest_configure(config):
    if not any(line.split(":")[0].strip() == "e2e" for line in config.getini("markers")):
        config.addinivalue_line("markers", "e2e: a browser test (tests/e2e/, Chromium and `streamlit run`)")


def pytest_collection_modifyitems(config, items):
    for item in items:
        if E2E in Path(str(item.fspath)).resolve().parents:
            item.add_marker(pytest.mark.e2e)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """A browser test that failed says what its pages showed and what the server logged, so a failure on
    a machine nobody can look at (CI) can still be read."""
    outcome = yield
    rep = outcome.get_result()
    if rep.when == "call" and rep.failed and "browser" in getattr(item, "funcargs", {}):
        browser = item.funcargs["browser"]
        pages = [pg for ctx in browser.contexts for pg in ctx.pages]
        rep.sections.append(("what the pages showed", describe_pages(pages) or "(no page open)"))
        rep.sections.append(("the server's log, last lines", server_log_tail()))


def describe_pages(pages, chars: int = 800) -> str:
    """Each page's address, its exceptions and errors, and the start of its main area's text."""
    out = []
    for k, pg in enumerate(pages):
        try:
            text = pg.evaluate("() => (document.querySelector(\"[data-testid='stMain']\") || document.body).innerText")
            shown = " ".join(text.split())[:chars]
            exceptions = pg.locator("[data-testid='stException']").count()
            pg.screenshot(path=str(ROOT / "artifacts" / f"failed-page-{k}.png"), timeout=5_000)
        except Exception as e:  # the page is gone or busy: say so, and go on to the next
            shown, exceptions = f"(could not read: {type(e).__name__}: {str(e)[:200]})", "?"
        out.append(f"[{k}] {pg.url}\n    exceptions: {exceptions}; page errors: {getattr(pg, 'errors', '?')}\n"
                   f"    console errors: {getattr(pg, 'console_errors', '?')}\n    main: {shown}")
    return "\n".join(out)


def server_log_tail(lines: int = 40) -> str:
    log = ROOT / "artifacts" / "streamlit-e2e.log"
    try:
        return "\n".join(log.read_text(errors="replace").splitlines()[-lines:]) or "(empty)"
    except OSError as e:
        return f"(no log: {e})"


def _require_browser():
    missing = []
    if not (Path(CHROMIUM).exists() or shutil.which(CHROMIUM)):
        missing.append(f"no Chromium at {CHROMIUM} (apt-get install chromium)")
    try:
        import playwright  # noqa: F401
    except ImportError:
        missing.append("the playwright package is not installed")
    if missing:
        reason = "BROWSER TESTS SKIPPED: " + "; ".join(missing)
        if os.environ.get("E2E_REQUIRED") == "1":
            pytest.fail(reason + " — and E2E_REQUIRED=1, so this is a failure", pytrace=False)
        print("\n" + "!" * 70 + f"\n{reason}\n" + "!" * 70, file=sys.stderr)
        pytest.skip(reason)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def streamlit_server(script: Path, log_name: str = "streamlit-e2e.log", *extra: str, python: str = sys.executable,
                     cwd: Path = ROOT, env: dict | None = None, start_timeout: float = 60):
    """`streamlit run script` on a free local port (with `python`, from `cwd`, in `env`); yields its URL,
    stops it afterwards."""
    port = _free_port()
    (ROOT / "artifacts").mkdir(exist_ok=True)
    log = open(ROOT / "artifacts" / log_name, "w")
    proc = subprocess.Popen(
        [python, "-m", "streamlit", "run", str(script), "--server.port", str(port),
         "--server.address", "127.0.0.1", "--server.headless", "true", "--browser.gatherUsageStats", "false",
         *extra],
        cwd=cwd, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.time() + start_timeout
    while True:
        try:
            with urllib.request.urlopen(url + "/_stcore/health", timeout=2) as r:
                if r.status == 200:
                    break
        except OSError:
            pass
        if proc.poll() is not None or time.time() > deadline:
            proc.kill()
            raise RuntimeError(f"streamlit did not start; see {log.name}")
        time.sleep(0.3)
    try:
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


SERVER_ONLY = "deepseek_v3"  # the e2e server's tokenizer kept on the server (app_url)


@pytest.fixture(scope="session")
def app_url():
    """The app, with one registry tokenizer kept on the server (every one runs in the browser otherwise), so that
    the tests of a column the server draws have one: deepseek_v3 (service.browser_assets.kept_on_the_server).
    tests/e2e/test_hosted_browser.py runs a fresh clone without it, every column in the browser."""
    _require_browser()
    with streamlit_server(ROOT / "app.py", env={**os.environ, "TOKEN_LENS_SERVER_ONLY": SERVER_ONLY}) as url:
        yield url


@pytest.fixture(scope="session")
def browser(app_url):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS, headless=True)
        yield b
        b.close()


def watched_page(browser, width: int = 1280, height: int = 720, *, init: str | None = None, **kw):
    """(context, page) from new_context (`kw` its options, `init` a script for every document), the page's
    uncaught script errors collected in `page.errors` and its console's errors in `page.console_errors`."""
    ctx = new_context(browser, viewport={"width": width, "height": height}, **kw)
    if init:
        ctx.add_init_script(init)
    pg = ctx.new_page()
    pg.errors = []
    pg.on("pageerror", lambda e: pg.errors.append(str(e)))
    pg.console_errors = []  # read only when a test fails (describe_pages)
    pg.on("console", lambda m: m.type == "error" and pg.console_errors.append(m.text[:300]))
    return ctx, pg


@pytest.fixture
def page(browser):
    ctx, pg = watched_page(browser, 1400, 2200)
    yield pg
    ctx.close()


def screenshot(page, name: str) -> Path:
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


# Counts, inside the page, the runs asked of Streamlit and the runs it finished, from its websocket's
# protobuf messages: a BackMsg whose top-level field 11 (rerun_script) is set is a run asked for; a
# ForwardMsg whose field 6 (script_finished) is set is a finished run unless its status is 2
# (FINISHED_EARLY_FOR_RERUN: another run follows). Field numbers from streamlit/proto (BackMsg.proto,
# ForwardMsg.proto); new_context checks them against the installed Streamlit.
RUN_TRACKER = r"""(() => {
  if (window.__tlRuns) return;
  const runs = window.__tlRuns = {seq: 0, sent: 0, done: 0, lastSent: 0, lastDone: 0, messages: 0};
  const varint = (b, i) => { let v = 0, s = 0, x;
    do { x = b[i++]; v += (x & 0x7f) * 2 ** s; s += 7; } while (x & 0x80 && i < b.length); return [v, i]; };
  const fields = data => {  // the top-level fields of one message: [number, varint value or null]
    const b = ArrayBuffer.isView(data) ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength)
                                       : new Uint8Array(data);
    const out = []; let i = 0;
    while (i < b.length) {
      let key, v; [key, i] = varint(b, i);
      const n = Math.floor(key / 8), w = key & 7;
      if (w === 0) { [v, i] = varint(b, i); out.push([n, v]); }
      else if (w === 2) { [v, i] = varint(b, i); i += v; out.push([n, null]); }
      else if (w === 1) { i += 8; out.push([n, null]); }
      else if (w === 5) { i += 4; out.push([n, null]); }
      else break;
    }
    return out;
  };
  const Native = window.WebSocket;
  window.WebSocket = class extends Native {
    constructor(...args) {
      super(...args);
      this.addEventListener('message', e => {  // registered first: counted before Streamlit handles it
        if (!(e.data instanceof ArrayBuffer)) return;
        runs.messages++;  // every message the server sent (a run's size: tests of what a run redraws)
        for (const [n, v] of fields(e.data)) if (n === 6 && v !== 2) { runs.done++; runs.lastDone = ++runs.seq; }
      });
    }
    send(data) {
      if (typeof data !== 'string' && fields(data).some(([n]) => n === 11)) { runs.sent++; runs.lastSent = ++runs.seq; }
      return super.send(data);
    }
  };
})();"""

SETTLED = """() => { const r = window.__tlRuns, app = document.querySelector('[data-testid="stApp"]');
  return !!r && r.done > 0 && r.lastDone > r.lastSent && !!app
    && ['notRunning', 'compilationError'].includes(app.getAttribute('data-test-script-state'))
    && !document.querySelector(
      '[data-testid="stStatusWidget"], [data-testid^="stSkeleton"], [data-testid="stAppSkeleton"]'); }"""


def new_context(browser, **kw):
    """A browser context whose pages count Streamlit's runs (see RUN_TRACKER); every test makes its
    contexts here, so that `settle` can tell when a run is over."""
    from streamlit.proto.BackMsg_pb2 import BackMsg
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    assert (BackMsg.DESCRIPTOR.fields_by_name["rerun_script"].number,
            ForwardMsg.DESCRIPTOR.fields_by_name["script_finished"].number,
            ForwardMsg.FINISHED_EARLY_FOR_RERUN) == (11, 6, 2), "Streamlit's messages changed: update RUN_TRACKER"
    ctx = browser.new_context(**kw)
    ctx.add_init_script(RUN_TRACKER)
    return ctx


def runs_asked(page) -> int:
    n = page.evaluate("() => window.__tlRuns ? window.__tlRuns.sent : null")
    if n is None:
        raise AssertionError("this page does not count Streamlit's runs: make its context with new_context()")
    return n


def settle(page, timeout: float = 60_000, *, after: int | None = None) -> None:
    """Wait until Streamlit has finished rerunning: every run the page asked for has finished (a
    script_finished after the last rerun_script sent), the app is drawn as not running and every
    element is mounted (no skeleton: an input before then is sent without the widgets still loading,
    and those later take their defaults over the page's values, as bos_piece="" did). With
    `after` (a `runs_asked` count taken before an input), first wait until a newer run was asked for:
    for inputs that send later (an upload, a debounced text box or slider)."""
    runs_asked(page)
    if after is not None:
        page.wait_for_function("n => window.__tlRuns.sent > n", arg=after, timeout=timeout)
    # a widget sends its new value from a React effect after the input's render, not from the key or
    # click handler itself: two animation frames later that effect has run and its run is counted
    page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
    page.wait_for_function(SETTLED, timeout=timeout)


@contextlib.contextmanager
def rerun(page, timeout: float = 60_000):
    """`with rerun(page): <an input>` waits for the run that the input asks for, and for Streamlit to
    finish it (settle)."""
    before = runs_asked(page)
    yield
    settle(page, timeout, after=before)


def choose(page, label: str, option: str, *, exact: bool = False, timeout: float = 60_000) -> None:
    """Choose `option` in the selectbox labelled `label` (its whole text with `exact`, else a part of
    it) and settle. A click that lands while the box is being redrawn opens no list; then the list is
    closed and the box clicked again, up to three times."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    box = page.get_by_label(label, exact=True).first
    options = page.get_by_role("option")
    wanted = options.filter(has_text=re.compile(rf"^{re.escape(option)}$")) if exact else \
        options.filter(has_text=option)
    settle(page, timeout)
    for attempt in range(3):
        box.click()
        try:
            wanted.first.wait_for(timeout=5_000 if attempt < 2 else timeout)
            break
        except PlaywrightTimeout:
            if attempt == 2:
                raise
            page.keyboard.press("Escape")
            settle(page, timeout)
    wanted.first.click()
    settle(page, timeout)


def wait_for_app(page, timeout: float = 60_000):
    """After a page load: the app is there and its first run is over (settle), with its text drawn."""
    page.wait_for_selector("[data-testid='stApp']", timeout=timeout)
    settle(page, timeout)
    page.wait_for_function(
        "() => document.querySelectorAll('[data-testid=\"stMarkdown\"]').length > 0", timeout=timeout)


def wait_drawn(page, selector: str = "[data-testid='stDataFrame'] canvas", timeout: float = 30_000) -> None:
    """Wait until a canvas matched by `selector` has painted (a data grid draws on its canvas after it
    mounts): some pixel of its top-left corner is no longer transparent."""
    page.wait_for_function("""sel => [...document.querySelectorAll(sel)].some(c => {
        if (!c.width || !c.height) return false;
        const ctx = c.getContext('2d'); if (!ctx) return false;
        const d = ctx.getImageData(0, 0, Math.min(c.width, 40), Math.min(c.height, 40)).data;
        for (let i = 3; i < d.length; i += 4) if (d[i]) return true;
        return false; })""", arg=selector, timeout=timeout)


def wait_plotted(page, n: int = 1, timeout: float = 30_000) -> None:
    """Wait until `n` plotly figures have drawn their axes or traces."""
    page.wait_for_function("""n => [...document.querySelectorAll('.js-plotly-plot')].filter(
        p => p.querySelector('.main-svg .cartesianlayer, .main-svg .pielayer, .main-svg .treemaplayer')).length >= n""",
                           arg=n, timeout=timeout)


def upload_training_text(page, *paths, choose: bool = True) -> None:
    """On a lab page: choose "Upload a file" as the training text and put `paths` into that uploader
    (app_pages/kit/training_text.py). It waits for the uploader by its label: until the click's rerun has
    drawn it, the only uploader on the BPE and SentencePiece Labs is the .model one, and a file sent
    to `.first` went there."""
    if choose:
        page.get_by_text("Upload a file", exact=True).click()
    box = page.locator("[data-testid='stFileUploader']", has_text="A text file")
    box.wait_for(timeout=30_000)
    settle(page)
    with rerun(page):
        box.locator("input[type=file]").set_input_files([str(p) for p in paths])


SVG = "{http://www.w3.org/2000/svg}"


def download_spans(page, nth: int = 0, kind: str = "SVG, for slides", *, within=None) -> str:
    """Open the nth visible "Download spans" popover of the page (or of the part `within`; not those of
    a tab in the background) and download its `kind`; the file's text."""
    popover = (within or page).locator("[data-testid='stPopover']:visible").filter(has_text="Download spans").nth(nth)
    popover.scroll_into_view_if_needed()
    button = page.get_by_role("button", name=f"Download spans ({kind})")
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    for _ in range(3):  # a click while the page redraws the popover opens nothing
        popover.get_by_role("button").first.click()
        try:
            button.wait_for(state="visible", timeout=10_000)
            break
        except PlaywrightTimeout:
            settle(page)
    with page.expect_download() as info:
        button.click()
    page.keyboard.press("Escape")  # close the popover
    return open(info.value.path(), encoding="utf-8").read()


def heads_of(svg: str) -> list[str]:
    """The heading of each entry, without its count."""
    root = ET.fromstring(svg)
    return [re.sub(r" · [\d,]+ tokens?( \(.*\))?$", "", "".join(t.itertext()))
            for t in root.iter(f"{SVG}text") if t.get("class") == "tl-head"]
