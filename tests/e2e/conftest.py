"""Browser end-to-end tests: the real app under `streamlit run`, driven in Debian's Chromium.

No browser is ever downloaded: Playwright's Python package is only the driver, pointed at
/usr/bin/chromium. Without Chromium these tests skip with a loud reason, unless E2E_REQUIRED=1
(CI sets it), in which case they fail.

Every test collected here carries the `e2e` marker (the quick tier is `pytest -m "not e2e and not slow"`).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
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
def streamlit_server(script: Path, log_name: str = "streamlit-e2e.log", *extra: str):
    """`streamlit run script` on a free local port; yields its URL, stops it afterwards."""
    port = _free_port()
    (ROOT / "artifacts").mkdir(exist_ok=True)
    log = open(ROOT / "artifacts" / log_name, "w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", str(script), "--server.port", str(port),
         "--server.address", "127.0.0.1", "--server.headless", "true", "--browser.gatherUsageStats", "false",
         *extra],
        cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.time() + 60
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


@pytest.fixture(scope="session")
def app_url():
    _require_browser()
    with streamlit_server(ROOT / "app.py") as url:
        yield url


@pytest.fixture(scope="session")
def browser(app_url):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS, headless=True)
        yield b
        b.close()


@pytest.fixture
def page(browser):
    ctx = browser.new_context(viewport={"width": 1400, "height": 2200})
    pg = ctx.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.errors = errors
    yield pg
    ctx.close()


def screenshot(page, name: str) -> Path:
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


def wait_for_app(page, timeout: float = 60_000):
    """Wait until Streamlit has finished a run (no running indicator, no skeleton)."""
    page.wait_for_selector("[data-testid='stApp']", timeout=timeout)
    page.wait_for_function(
        "() => !document.querySelector('[data-testid=\"stStatusWidget\"]') && "
        "document.querySelectorAll('[data-testid=\"stMarkdown\"]').length > 0", timeout=timeout)


def upload_training_text(page, *paths, choose: bool = True) -> None:
    """On a lab page: choose "Upload a file" as the training text and put `paths` into that uploader
    (app_pages/training_text.py). It waits for the uploader by its label: until the click's rerun has
    drawn it, the only uploader on the BPE and SentencePiece Labs is the .model one, and a file sent
    to `.first` went there."""
    if choose:
        page.get_by_text("Upload a file", exact=True).click()
    box = page.locator("[data-testid='stFileUploader']", has_text="A text file")
    box.wait_for(timeout=30_000)
    wait_for_app(page)
    box.locator("input[type=file]").set_input_files([str(p) for p in paths])
