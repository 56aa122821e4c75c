"""Issue 22's foundation: the C core compiled to WebAssembly gives, in real Chromium, exactly the
library's ids. A page at a local origin (its requests answered here by Playwright: no server, no
network) fetches the module (python -m tokenizers.bpe.native.build --wasm), tl_wasm.js and each
vocabulary's blob (tokenizers/bpe/native/blob.py), as the app will. Texts: the tricky texts, the
hostile payloads and a seeded fuzz (tests/wasm_parity.py), for custom_bpe, gpt2, cl100k_base,
o200k_base, a model trained as the Lab trains one, and Mistral 7B's SentencePiece BPE (mistral_sp,
whose ids the library takes from the sentencepiece package). One differing id fails."""

from __future__ import annotations

import pytest

from tokenizers.bpe.native import blob as vblob
from tokenizers.bpe.native import lib
from tokenizers.bpe.native.lib import HERE
from wasm_parity import BROWSER_NAMES, ENCODE_ALL, ORIGIN, expected, first_difference, texts, tokenizer, utf16
from .conftest import watched_page

pytestmark = pytest.mark.e2e

PAGE = ("<!doctype html><meta charset=utf-8><title>wasm parity</title>"
        "<script src='/tl_wasm.js'></script>")


def wasm_bytes() -> bytes:
    out = lib.wasm_module()
    assert out is not None, f"the WebAssembly module is {lib.wasm_status()}: python -m tokenizers.bpe.native.build --wasm"
    return out.read_bytes()


def open_local_page(browser, files: dict[str, tuple[bytes, str]]):
    """A page at ORIGIN whose requests get `files` (path -> (body, content type)), and 404 otherwise."""
    ctx, page = watched_page(browser)
    errors = page.errors

    def answer(route):
        path = route.request.url[len(ORIGIN):]
        if path in files:
            body, kind = files[path]
            route.fulfill(status=200, body=body, content_type=kind)
        else:
            route.fulfill(status=404, body=b"")

    ctx.route(f"{ORIGIN}/**", answer)
    page.goto(f"{ORIGIN}/")
    page.wait_for_function("() => typeof TokenLensWasm === 'object'")
    page.errors = errors
    return ctx, page


def served(blobs: dict[str, bytes]) -> dict[str, tuple[bytes, str]]:
    return {"/": (PAGE.encode(), "text/html"),
            "/tl_wasm.js": ((HERE / "tl_wasm.js").read_bytes(), "text/javascript"),
            "/tokenlens.wasm": (wasm_bytes(), "application/wasm"),
            **{f"/vocab/{name}": (data, "application/octet-stream") for name, data in blobs.items()}}


def test_chromium_gives_the_library_ids(browser):
    items = texts()
    ctx, page = open_local_page(browser, served({n: vblob.serialize(tokenizer(n)).data for n in BROWSER_NAMES}))
    try:
        got = page.evaluate(ENCODE_ALL, [list(BROWSER_NAMES), [utf16(t) for t in items]])
        assert not page.errors
    finally:
        ctx.close()
    problems = [p for name in BROWSER_NAMES if (p := first_difference(name, items, got[name], expected(name, items)))]
    assert not problems, "\n".join(problems)


def test_a_damaged_blob_is_refused_in_the_browser(browser):
    data = bytearray(vblob.serialize(tokenizer("lab")).data)
    data[-1] ^= 1
    ctx, page = open_local_page(browser, served({"lab": bytes(data)}))
    try:
        with pytest.raises(Exception, match="lab: checksum"):
            page.evaluate(ENCODE_ALL, [["lab"], [utf16("hello")]])
    finally:
        ctx.close()
