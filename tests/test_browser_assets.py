"""service/browser_assets.py: the files the browser tokenizes with (issue 22) are published once under
names that are their sha256, only for the app's own vocabularies whose spans the browser draws (byte-level
BPE, mistral_sp's SentencePiece BPE); Compare's columns say which wait for the server, and why."""

from __future__ import annotations

import os

import hashlib

import pytest

from conftest import app_test
from service import browser_assets


@pytest.fixture
def static(tmp_path, monkeypatch):
    folder = tmp_path / "static" / "tl"
    monkeypatch.setattr(browser_assets, "STATIC", folder)
    clear()
    yield folder
    clear()


def clear() -> None:
    """Forget what was published where (a test's core_urls may be a stand-in without a cache)."""
    for f in (browser_assets.vocab_url, browser_assets.core_urls, browser_assets.names_url):
        getattr(f, "cache_clear", lambda: None)()


def test_publish_names_a_file_by_its_sha256(static):
    url = browser_assets.publish(b"some bytes", ".bin")
    name = hashlib.sha256(b"some bytes").hexdigest()[:24] + ".bin"
    assert url == "app/static/tl/" + name
    assert (static / name).read_bytes() == b"some bytes"
    assert browser_assets.publish(b"some bytes", ".bin") == url  # the same bytes, the same URL
    assert browser_assets.publish(b"other bytes", ".bin") != url
    assert (static.parent / ".gitignore").read_text().splitlines()[-1] == "*"  # never committed
    assert not list(static.glob("*.part"))


def test_only_the_registrys_vocabularies_the_browser_draws_are_published(static):
    got = browser_assets.live_assets("cl100k_base")
    assert set(got) == {"wasm", "host", "vocab", "names"}
    for url in got.values():
        assert (static / url.rsplit("/", 1)[1]).exists()
    sp = browser_assets.live_assets("mistral_sp")                # SentencePiece BPE: live_spans.js draws it
    assert sp is not None and sp["wasm"] == got["wasm"] and sp["vocab"] != got["vocab"]
    assert (static / sp["vocab"].rsplit("/", 1)[1]).exists()
    assert browser_assets.live_assets("lab_bpe") is None         # a visitor's own model: never public
    assert browser_assets.server_only_reason("lab_bpe") == "this tokenizer does not run in the browser"


def test_every_registry_tokenizer_is_published(static):
    """Issue 32: all twelve, each blob once (the pipelines' with their normalizer and added tokens)."""
    from tokenizers import REGISTRY

    urls = {name: browser_assets.live_assets(name) for name in REGISTRY}
    assert all(urls.values()), [n for n, u in urls.items() if not u]
    assert len({u["vocab"] for u in urls.values()}) == len(REGISTRY)


def test_only_blobs_whose_spans_the_browser_draws_exactly_qualify():
    from tokenizers import get_tokenizer
    from tokenizers.bpe.native import blob

    header = blob.serialize(get_tokenizer("mistral_sp")).header
    assert header["algorithm"] == "sentencepiece_bpe" and browser_assets.draws_spans(header)
    assert header["byte_pieces"][10] == "<0x0A>" and len(header["byte_pieces"]) == 256
    assert browser_assets.draws_spans({"name": "gpt2"})                                      # byte-level BPE
    assert not browser_assets.draws_spans({**header, "algorithm": "sentencepiece_unigram"})  # unknown to the JS
    assert not browser_assets.draws_spans({**header, "byte_pieces": [""] + header["byte_pieces"][1:]})  # <unk>
    assert not browser_assets.draws_spans({k: v for k, v in header.items() if k != "byte_pieces"})  # an old blob
    assert not browser_assets.draws_spans({**header, "sp_flags": header["sp_flags"] & ~4})  # no byte fallback
    assert not browser_assets.draws_spans({**header, "sp_flags": header["sp_flags"] & ~2})  # spaces kept as spaces


def test_without_the_module_every_column_waits_for_the_server(static, monkeypatch):
    monkeypatch.setattr(browser_assets, "core_urls", lambda: None)
    assert browser_assets.live_assets("gpt2") is None
    assert "WebAssembly build is older than its C" in browser_assets.server_only_reason("gpt2")


def test_compare_labels_the_columns_that_wait_for_the_server(monkeypatch):
    real = browser_assets.live_assets
    monkeypatch.setattr(browser_assets, "live_assets", lambda name: None if name == "deepseek_v3" else real(name))
    monkeypatch.setattr(browser_assets, "server_only_reason", lambda name: "this tokenizer does not run in the browser")
    at = app_test(query={"tokenizers": "gpt2,mistral_sp,deepseek_v3", "text": "hello there"})
    assert not at.exception
    waiting = [c.value for c in at.caption if c.value.startswith("Updates after a pause in typing, from the server")]
    # gpt2 and mistral_sp are drawn in the browser, on every machine (the module is in the repository)
    assert waiting == ["Updates after a pause in typing, from the server (this tokenizer does not run in the "
                       "browser)."]


def test_set_up_publishes_every_file_so_a_read_only_folder_stays_in_the_browser(static, capsys, monkeypatch):
    """Issue 32: set-up's step (python -m service.browser_assets) writes every file ahead; a server whose
    folder is then read-only finds them written and keeps its columns in the browser, writing nothing."""
    assert browser_assets.main(["gpt2", "mistral_sp", "qwen"]) == 0
    assert "3 of 3 tokenizers published" in capsys.readouterr().out
    written = sorted(p.name for p in static.iterdir())
    clear()  # a new server process, whose folder cannot be written (root included: every write refused)
    monkeypatch.setattr(browser_assets.tempfile, "mkstemp",
                        lambda **kw: (_ for _ in ()).throw(PermissionError("read-only")))
    for name in ("gpt2", "mistral_sp", "qwen"):
        got = browser_assets.live_assets(name)
        assert got is not None, name
        assert all(url.rsplit("/", 1)[1] in written for url in got.values())
    assert browser_assets.live_assets("o200k_base") is None  # not published ahead: stays on the server
    assert "cannot write" in browser_assets.server_only_reason("o200k_base")


def test_spoken_names_ask_every_code_point_the_reference_asks():
    """The candidates' regex misses no character the reference loop over all 1.1 million names."""
    assert browser_assets.spoken_names() == browser_assets.spoken_names_reference()


def test_a_read_only_app_folder_leaves_every_column_on_the_server(monkeypatch, tmp_path):
    """Where the app's folder cannot be written (a read-only deploy), the page keeps the server path
    instead of failing."""
    locked = tmp_path / "static" / "tl"
    locked.parent.mkdir()
    locked.parent.chmod(0o500)
    monkeypatch.setattr(browser_assets, "STATIC", locked)
    for cached in (browser_assets.core_urls, browser_assets.vocab_url):
        cached.cache_clear()
    try:
        if os.geteuid() == 0:  # root writes anyway: make the write itself fail
            monkeypatch.setattr(browser_assets.tempfile, "mkstemp",
                                lambda **kw: (_ for _ in ()).throw(PermissionError("read-only")))
        assert browser_assets.live_assets("gpt2") is None
        assert "cannot write" in browser_assets.server_only_reason("gpt2")   # the column's caption says why
    finally:
        locked.parent.chmod(0o700)
        for cached in (browser_assets.core_urls, browser_assets.vocab_url):
            cached.cache_clear()
