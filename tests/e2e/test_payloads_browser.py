"""Issue 16, "Prove": every payload of tests/payloads.py through every input of every page, in Chromium.

Each *drive* puts payloads into one input (a text box, a link parameter, an uploaded file's name or
contents, a model's vocabulary), waits for the app to finish its run, and then checks in the browser:

- nothing ran: no dialog (alert/confirm/prompt), `window.__pwned` unset in every frame, no request for
  evil.example or for the `x` the <img src=x> payloads ask for, no console error naming a payload;
- nothing was planted: no element anywhere (main document, shadow roots, every frame) with an inline
  event handler, the payloads' `tl-pwn` class, a URL attribute naming evil.example / __pwned /
  javascript: / a data: document, a <style>/<script> whose text names them, a <base>, a meta refresh,
  a link to a host that is neither the app nor a documentation site the app links to, nor Markdown's
  elements (heading, bold, math, colored text, icon) made from a payload's text; the page body is
  still displayed;
- the text shows as its own characters (a few needles per drive, in the token spans or the page).

The detector is shown able to fail on tests/e2e/markdown_probe_app.py?raw=1 (the payloads rendered as
unescaped Markdown) and on a page where a drive plants an element and sets the flag itself.

The table of drives (input x payloads x executed x foreign) is written to artifacts/payloads_table.md
and printed by the last test."""

from __future__ import annotations

import base64
import json
import re
import urllib.parse

import pytest

from tests.e2e.conftest import (ROOT, _require_browser, choose, new_context, rerun, screenshot, settle,
                                streamlit_server, wait_for_app)
from tests.payloads import ALL, EVIL, PAYLOADS, short

TIMEOUT = 90_000
ONE_LINE = {k: v.replace("\n", " ") for k, v in PAYLOADS.items()}
TABLE: list[tuple[str, int, int, int]] = []  # (input, payloads driven, executed, foreign)
TABLE_FILE = ROOT / "artifacts" / "payloads_table.md"


def _doc_hosts() -> list[str]:
    """Hosts of the documentation links the app itself writes (its sources), plus Streamlit's own."""
    hosts = {"streamlit.io", "docs.streamlit.io", "github.com"}
    for folder in ("app_pages", "ui", "tokenizers"):
        for path in (ROOT / folder).rglob("*.py"):
            hosts.update(re.findall(r"https?://([A-Za-z0-9.-]+\.[A-Za-z]{2,})", path.read_text(encoding="utf-8")))
    hosts.discard(EVIL)
    return sorted(h for h in hosts if not h.endswith(EVIL))


DOC_HOSTS = _doc_hosts()

# one pass over the DOM, shadow roots included; returns what the app did not make
DETECT = r"""([appHost, docHosts]) => {
  const found = [], texts = [], spans = [];
  const MARK = /__pwned|evil\.example|tl-pwn/i;
  const URLISH = new Set(['href', 'src', 'srcdoc', 'action', 'formaction', 'data', 'xlink:href', 'poster',
                          'background', 'srcset', 'content', 'style', 'ping', 'codebase', 'manifest', 'lowsrc']);
  const short = el => el.outerHTML.slice(0, 200);
  // a link to the app itself may carry a visitor's text in its query (Compare's shareable links):
  // only its path is the app's markup
  const ownPath = (n, v) => {
    if (!['href', 'src', 'action', 'formaction'].includes(n)) return v;
    try { const u = new URL(v, location.href);
          return (u.protocol === 'http:' || u.protocol === 'https:') && u.host === appHost ? u.pathname : v;
    } catch (e) { return v; }
  };
  const visit = root => {
    for (const el of root.querySelectorAll('*')) {
      const tag = el.tagName.toLowerCase();
      for (const a of el.attributes) {
        const n = a.name.toLowerCase(), v = a.value;
        if (n.startsWith('on')) found.push(`inline handler ${n}: ${short(el)}`);
        else if (n === 'class' && /\btl-pwn\b/.test(v)) found.push(`payload class: ${short(el)}`);
        else if (URLISH.has(n) && (MARK.test(ownPath(n, v)) || /^\s*(javascript|vbscript):/i.test(v)
                 || /^\s*data:text\/html/i.test(v) || (/^\s*data:image\/svg/i.test(v) && /script|\bon\w+=/i.test(v))))
          found.push(`${n}=${v.slice(0, 80)}: ${short(el)}`);
      }
      if ((tag === 'script' || tag === 'style') && MARK.test(el.textContent)) found.push(`<${tag}> text: ${short(el)}`);
      if (tag === 'base') found.push(`base: ${short(el)}`);
      if (tag === 'meta' && /refresh/i.test(el.getAttribute('http-equiv') || '')) found.push(`meta refresh: ${short(el)}`);
      if (tag === 'a' && el.hasAttribute('href')) {
        let u = null;
        try { u = new URL(el.getAttribute('href'), location.href); } catch (e) { found.push(`bad link: ${short(el)}`); }
        if (u && !(u.protocol === 'blob:' || ((u.protocol === 'http:' || u.protocol === 'https:')
              && (u.host === appHost || docHosts.some(h => u.hostname === h || u.hostname.endsWith('.' + h))))))
          found.push(`link to ${u.href.slice(0, 80)}: ${short(el)}`);
      }
      const t = (el.textContent || '').trim();
      if (/^h[1-6]$/.test(tag) && /injected by a visitor/i.test(t)) found.push(`heading: ${short(el)}`);
      if ((tag === 'strong' || tag === 'b') && t === 'bold') found.push(`bold: ${short(el)}`);
      if ((tag === 'del' || tag === 's') && t === 'strike') found.push(`strike: ${short(el)}`);
      if (tag === 'blockquote' && /^quote/.test(t)) found.push(`quote: ${short(el)}`);
      if (el.classList.contains('katex')) found.push(`math: ${short(el)}`);
      if (/stMarkdownColored/.test(el.className) && /red text|on blue/.test(t))
        found.push(`colored text: ${short(el)}`);
      if (el.getAttribute('data-testid') === 'stIconMaterial' && t === 'warning' && el.closest('[data-testid=stMarkdownContainer]'))
        found.push(`icon: ${short(el)}`);
      if (tag === 'textarea' || tag === 'input') texts.push(el.value || '');
      if (el.classList.contains('tl-spans')) spans.push(el.textContent);
      if (el.shadowRoot) { texts.push(el.shadowRoot.textContent || ''); visit(el.shadowRoot); }
    }
  };
  visit(document);
  for (const el of document.querySelectorAll('[data-testid=stException]'))
    found.push(`uncaught exception: ${el.textContent.slice(0, 200)}`);
  if (getComputedStyle(document.body).display === 'none') found.push('the page body is hidden');
  texts.push(document.body.innerText);
  return {found, text: texts.join('\n'), spans: spans.join('\n'),
          pwned: window.__pwned === undefined ? null : String(window.__pwned)};
}"""


def flat(s: str) -> str:
    """Characters as the checks compare them: no whitespace, no whitespace marks, no word joiners."""
    return re.sub(r"[\s\u00b7\u21b5\u2192\u2581\u240d\u2060\u200b-\u200d\ufeff]", "", s)


class Watch:
    """A browser context whose page records dialogs, console errors, page errors and requests."""

    def __init__(self, browser, app_url: str, viewport=(1400, 2200)):
        self.app_url = app_url
        self.ctx = new_context(browser, viewport={"width": viewport[0], "height": viewport[1]})
        self.page = self.ctx.new_page()
        self.dialogs: list[str] = []
        self.console: list[str] = []
        self.requests: list[str] = []
        self.page.on("dialog", lambda d: (self.dialogs.append(d.message), d.dismiss()))
        self.page.on("console", lambda m: self.console.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.console.append(f"pageerror: {e}"))
        self.page.on("request", self._request)

    def _request(self, req):
        url = req.url
        path = urllib.parse.urlsplit(url).path
        if url.startswith(self.app_url):  # the app's own: only a path a payload names (its query is our link)
            if path.rstrip("/").endswith("/x") or EVIL in path or "__pwned" in path:
                self.requests.append(url)
        elif not url.startswith(("data:", "blob:", "about:")):
            self.requests.append(url)

    def reset(self) -> None:
        self.dialogs.clear()
        self.console.clear()
        self.requests.clear()

    def goto(self, path: str = "", **query) -> None:
        url = self.app_url + "/" + path + ("?" + urllib.parse.urlencode(query) if query else "")
        self.page.goto(url)
        wait_for_app(self.page, TIMEOUT)

    def settle(self) -> None:
        """Wait until the run that an input started is over (conftest.settle). A planted element is
        in the DOM when the run is drawn, whether or not its image has failed yet."""
        settle(self.page, TIMEOUT)

    def check(self, label: str, n_payloads: int, needles=(), spans=(), record: bool = True) -> dict:
        """Inspect every frame; record a table row; return what was seen (the caller asserts)."""
        found, text, span_text, pwned = [], "", "", []
        for frame in self.page.frames:
            try:
                got = frame.evaluate(DETECT, [urllib.parse.urlsplit(self.app_url).netloc, DOC_HOSTS])
            except Exception as e:  # a frame that cannot be read is itself a foreign element
                found.append(f"unreadable frame {frame.url}: {str(e)[:80]}")
                continue
            if frame != self.page.main_frame:
                found.append(f"a frame: {frame.url[:80]}")
            found += got["found"]
            text += got["text"]
            span_text += got["spans"]
            if got["pwned"] is not None:
                pwned.append(got["pwned"])
        noisy = [c for c in self.console if re.search(r"__pwned|evil\.example|/x\b|pageerror", c)]
        executed = len(pwned) + len(self.dialogs) + len(self.requests) + len(noisy)
        missing = [n for n in needles if flat(n) not in flat(text)]
        missing += [f"(spans) {n}" for n in spans if flat(n) not in flat(span_text)]
        if record:
            TABLE.append((label, n_payloads, executed, len(found)))
        return {"label": label, "found": found, "pwned": pwned, "dialogs": list(self.dialogs),
                "requests": list(self.requests), "console": noisy, "missing": missing, "executed": executed,
                "text": text}

    def assert_clean(self, label: str, n_payloads: int, needles=(), spans=()) -> dict:
        got = self.check(label, n_payloads, needles, spans)
        assert got["executed"] == 0 and not got["found"] and not got["missing"], "\n".join(
            f"{k}: {got[k]!r}" for k in ("label", "found", "pwned", "dialogs", "requests", "console", "missing"))
        return got

    def close(self):
        self.ctx.close()


@pytest.fixture
def watch(browser, app_url):
    opened = []

    def make(**kw) -> Watch:
        w = Watch(browser, app_url, **kw)
        opened.append(w)
        return w

    yield make
    for w in opened:
        w.close()


# -- helpers to drive Streamlit's widgets ------------------------------------------------------------
def fill(page, label: str, value: str, *, nth: int = 0, commit: str = "Control+Enter") -> None:
    """Type `value` into the box and commit it; a new value is sent from a React effect a moment after
    the key, so wait for that run to be asked for and finished (the caller's settle is then at once)."""
    box = page.get_by_label(label, exact=True).nth(nth)
    box.wait_for(timeout=TIMEOUT)
    settle(page, TIMEOUT)
    if box.input_value() == value:
        box.fill(value)
        box.press(commit)
        return
    with rerun(page, TIMEOUT):
        box.fill(value)
        box.press(commit)


def upload(page, selector_index: int, files: list[tuple[str, bytes]], mime: str = "text/plain") -> None:
    page.locator("[data-testid='stFileUploader'] input[type=file]").nth(selector_index).set_input_files(
        [{"name": n, "mimeType": mime, "buffer": b} for n, b in files])


def go_to(page, url_path: str) -> None:
    """Another page of the app in the same visit (session state, uploaded tokenizers kept)."""
    with rerun(page, TIMEOUT):
        page.locator(f"[data-testid='stSidebarNav'] a[href$='/{url_path}']").click()


def wait_text(page, text: str) -> None:
    page.get_by_text(text).first.wait_for(timeout=TIMEOUT)


# needles: a few payloads whose characters must show literally (markup that escaping would break)
NEEDLES = [PAYLOADS[k] for k in ("script", "img_onerror", "span_div_breakout", "md_link", "directives")]


# -- vocabularies made of payloads ---------------------------------------------------------------------
LINE_PATTERN = r"[^\n]+|\n"   # one chunk per line: a line that is a payload becomes one token


def payload_vocab(texts) -> tuple[dict[int, bytes], list[tuple[int, int]]]:
    """A byte-level BPE vocabulary in which every text is one token, built as a chain of merges
    (each prefix + its next byte); shared prefixes share tokens."""
    vocab = {i: bytes([i]) for i in range(256)}
    ids = {bytes([i]): i for i in range(256)}
    merges = []
    for t in texts:
        b = t.encode("utf-8")
        for k in range(2, len(b) + 1):
            if b[:k] not in ids:
                new = len(vocab)
                merges.append((ids[b[:k - 1]], b[k - 1]))
                vocab[new] = b[:k]
                ids[b[:k]] = new
    return vocab, merges


VOCAB_TEXTS = [t for t in ONE_LINE.values()]
SPECIAL = "<|<img src=x onerror=window.__pwned='special' class=tl-pwn>|>"


def tiktoken_file() -> bytes:
    vocab, _ = payload_vocab(VOCAB_TEXTS)
    return "".join(f"{base64.b64encode(b).decode()} {i}\n" for i, b in sorted(vocab.items())).encode()


def tokenizer_json_file() -> bytes:
    """The payload vocabulary as a Hugging Face byte-level BPE tokenizer.json, split into lines, with a
    payload special token and a payload added token."""
    from tokenizers.hf.tokenizer_json import byte_chars

    chars = byte_chars()
    vocab, merges = payload_vocab(VOCAB_TEXTS)

    def spell(b: bytes) -> str:
        return "".join(chars[x] for x in b)

    added = [{"id": len(vocab) + k, "content": c, "special": k == 0, "lstrip": False, "rstrip": False,
              "single_word": False, "normalized": False} for k, c in enumerate((SPECIAL, PAYLOADS["md_image"]))]
    return json.dumps({
        "version": "1.0", "added_tokens": added, "normalizer": None,
        "pre_tokenizer": {"type": "Sequence", "pretokenizers": [
            {"type": "Split", "pattern": {"Regex": LINE_PATTERN}, "behavior": "Isolated", "invert": False},
            {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": False}]},
        "post_processor": None, "decoder": {"type": "ByteLevel"},
        "model": {"type": "BPE", "vocab": {spell(b): i for i, b in vocab.items()},
                  "merges": [f"{spell(vocab[a])} {spell(bytes([b]))}" for a, b in merges], "ignore_merges": True},
    }).encode()


def minbpe_file() -> bytes:
    vocab, merges = payload_vocab(VOCAB_TEXTS)
    specials = [SPECIAL, PAYLOADS["md_link"]]
    lines = ["minbpe v1", LINE_PATTERN, str(len(specials))]
    lines += [f"{s} {len(vocab) + k}" for k, s in enumerate(specials)]
    lines += [f"{a} {b}" for a, b in merges]
    return ("\n".join(lines) + "\n").encode()


# ====================================================================================================
# the detector can fail
# ====================================================================================================
@pytest.fixture(scope="module")
def probe_url():
    _require_browser()
    with streamlit_server(ROOT / "tests" / "e2e" / "markdown_probe_app.py", "streamlit-payload-probe.log") as url:
        yield url


def test_the_detector_flags_unescaped_payloads(browser, probe_url):
    """The raw probe renders the payloads as unescaped Markdown: links to evil.example, a tracking
    image, a heading, bold, math, colored text. The same check that passes the app must fail here."""
    w = Watch(browser, probe_url, viewport=(1200, 1600))
    try:
        w.page.goto(probe_url + "/?raw=1")
        w.page.wait_for_selector(".st-key-done", timeout=TIMEOUT)
        w.settle()
        got = w.check("probe ?raw=1", len(PAYLOADS), record=False)
        kinds = {f.split(":")[0].split(" to ")[0] for f in got["found"]}
        assert {"link", "src=https", "heading", "bold", "math", "colored text"} <= kinds, kinds
        assert any(EVIL in r for r in got["requests"])  # the Markdown image asked evil.example for a pixel
        # a planted element, a handler and the flag, set from outside, are each caught too
        w.page.evaluate("""() => { const d = document.createElement('div');
            d.innerHTML = '<img class=tl-pwn src=data:, onerror=1><style>*{background:url(//evil.example)}</style>';
            document.body.append(d); window.__pwned = 'probe'; }""")
        got = w.check("probe planted", 1, record=False)
        assert got["pwned"] == ["probe"] and got["executed"] >= 1
        assert any("inline handler" in f for f in got["found"]) and any("<style> text" in f for f in got["found"])
        # the escaped probe passes the same check
        w.reset()
        w.page.goto(probe_url)
        w.page.wait_for_selector(".st-key-done", timeout=TIMEOUT)
        w.settle()
        got = w.check("probe escaped", len(PAYLOADS), needles=NEEDLES, record=False)
        assert got["executed"] == 0 and not got["found"] and not got["missing"], got["found"][:5]
    finally:
        w.close()


# ====================================================================================================
# Compare
# ====================================================================================================
TOKS = "gpt2,cl100k_base,mistral_sp"


def wait_spans(page, needle: str) -> None:
    page.wait_for_function("""n => [...document.querySelectorAll('.tl-spans')].some(
        s => s.textContent.replace(/[\\s\\u00b7\\u21b5\\u2192\\u2581]/g, '').includes(n))""",
                           arg=flat(needle), timeout=TIMEOUT)


def test_compare_text_in_every_view(watch):
    w = watch()
    w.goto("", text=ALL, tokenizers=TOKS, ws="1")
    wait_spans(w.page, PAYLOADS["script"])
    w.assert_clean("Compare: text from the link (Spans)", len(PAYLOADS), NEEDLES, spans=NEEDLES)
    screenshot(w.page, "payloads-compare-spans")
    for view in ("Text with boundaries", "IDs", "Table"):
        # a long wait: in a CI run on a loaded machine the view control was not back within 30 s once,
        # after the boundaries view of the whole corpus
        w.page.get_by_text(view, exact=True).click(timeout=120_000)
        w.settle()
        w.assert_clean(f"Compare: text, {view} view", len(PAYLOADS), needles=[] if view in ("IDs", "Table") else NEEDLES)
    w.page.get_by_text("Spans", exact=True).click()
    w.settle()
    # typed into the live box: the whole corpus, then a few payloads one by one
    box = w.page.get_by_label("Text", exact=True)
    for name in ("split_by_emoji", "iframe_srcdoc", "md_link_in_code", "style_close", "fixed_overlay_link"):
        box.fill(PAYLOADS[name])
        # a segment split inside a character shows its ids' count ([2]) and a lone combining mark on ◌
        needle = "g src=x on" if name == "split_by_emoji" else PAYLOADS[name]
        wait_spans(w.page, needle)
        w.settle()
        w.assert_clean("Compare: text typed, one payload at a time", 1, spans=[needle])
    box.fill(ALL + "\n" + ALL[::-1])  # reversed too: closing tags before opening ones
    wait_spans(w.page, ALL[::-1][:30])
    w.settle()
    w.assert_clean("Compare: typed, all + all reversed", 2 * len(PAYLOADS), spans=NEEDLES)
    # special tokens parsed, boundaries that differ marked, alternating colors
    for toggle in ("Parse special tokens", "Alternating colors", "Mark boundaries that differ"):
        w.page.get_by_text(toggle, exact=True).first.click()
        w.settle()
    w.assert_clean("Compare: typed, specials parsed + diff marks", 2 * len(PAYLOADS), spans=NEEDLES)


def test_compare_link_parameters(watch):
    w = watch()
    names = [v for v in short(60).values() if "," not in v]
    links = [
        # unknown tokenizer names (shown in a warning), a lab name, the rest of the parameters hostile
        {"tokenizers": ",".join(names[:18] + ["gpt2", "lab_bpe"]), "text": PAYLOADS["md_link"],
         "ref": PAYLOADS["md_link"], "view": PAYLOADS["script"], "font": PAYLOADS["md_image"],
         "special": PAYLOADS["img_onerror"], "ws": PAYLOADS["md_autolink"], "mode": PAYLOADS["md_js_link"],
         "diff": "1", "zzz": PAYLOADS["span_div_breakout"], PAYLOADS["md_heading"]: PAYLOADS["math"]},
        {"tokenizers": ",".join(names[18:] + ["cl100k_base"]), "ab": "1", "text": ALL, "text_b": ALL[::-1],
         "alt": PAYLOADS["directives"], "present": PAYLOADS["fixed_overlay_div"], "ref": "gpt2",
         PAYLOADS["script"]: PAYLOADS["style_background"]},
        {"tokenizers": "gpt2", "present": "1", "font": "XL", "text": ALL, "special": "1", "diff": "1",
         "ref": PAYLOADS["attr_breakout"], "view": "Boundaries"},
    ]
    for k, query in enumerate(links):
        w.reset()
        w.goto("", **query)
        w.page.locator(".tl-head").first.wait_for(timeout=TIMEOUT)
        w.settle()
        n = sum(v in PAYLOADS.values() or k in PAYLOADS.values() for k, v in query.items())
        n += len(PAYLOADS) * sum(1 for v in query.values() if v in (ALL, ALL[::-1]))
        n += sum(1 for x in query["tokenizers"].split(",") if x in names)
        needles = [PAYLOADS["md_link"]] if k == 0 else NEEDLES
        got = w.assert_clean(f"Compare: link parameters #{k + 1}", n, needles)
        if k == 0:
            assert "do not exist here" in got["text"]
            screenshot(w.page, "payloads-compare-link-names")


def test_compare_chat_messages(watch):
    w = watch()
    w.goto("", mode="chat")
    w.page.get_by_label("Message 1").wait_for(timeout=TIMEOUT)
    values = list(PAYLOADS.values())
    chunks = ["\n".join(values[k::4]) for k in range(4)]
    for k, chunk in enumerate(chunks):
        fill(w.page, f"Message {k + 1}", chunk)
        w.settle()
    w.page.get_by_text("+ user", exact=True).click()
    w.settle()
    fill(w.page, "Message 5", PAYLOADS["special_tokens"] + PAYLOADS["script"])
    w.settle()
    w.assert_clean("Compare chat: 5 messages", len(PAYLOADS) + 2, spans=NEEDLES)
    screenshot(w.page, "payloads-compare-chat")


def test_compare_decoder(watch):
    from tokenizers import get_tokenizer

    w = watch()
    w.goto("", text="hi", tokenizers="gpt2")
    w.page.get_by_text("Decode token ids").click()
    for raw in (PAYLOADS["md_link"], PAYLOADS["script"], PAYLOADS["md_image_onerror"], "1 " + PAYLOADS["directives"]):
        fill(w.page, "Token ids (commas or spaces)", raw, commit="Enter")
        w.settle()
        w.assert_clean("Compare decoder: ids field", 1)
    ids = get_tokenizer("gpt2").encode(ALL, disallowed_special=())
    fill(w.page, "Token ids (commas or spaces)", ", ".join(map(str, ids)), commit="Enter")
    w.settle()
    w.assert_clean("Compare decoder: ids that decode to every payload", len(PAYLOADS), NEEDLES)


# a file name as the browser sends it (no "/"); the app keeps only word characters, . - + and spaces
PATTERN_LABEL = "Split pattern (a .tiktoken file has none)"
SPECIALS_LABEL = "Special tokens (JSON, or one 'token id' per line)"
UPLOAD_NAME = f"<img src=x onerror=window.__pwned=1> [log in](https:{EVIL}) :red[x] $x$ __b__.tiktoken"


def test_compare_tokenizer_upload_then_inside(watch):
    """A .tiktoken whose vocabulary is the payloads (each one token), named with a payload, with a
    payload special token and a pasted regex; then the same visit's Inside page on it."""
    vocab, _ = payload_vocab(VOCAB_TEXTS)
    ids = {b: i for i, b in vocab.items()}
    w = watch()
    w.goto("", text="hello", tokenizers="gpt2")
    w.page.get_by_text("Load your own tokenizer file").click()
    upload(w.page, 0, [(UPLOAD_NAME, tiktoken_file())], mime="application/octet-stream")
    w.page.get_by_label(PATTERN_LABEL, exact=True).wait_for(timeout=TIMEOUT)
    w.settle()
    choose(w.page, PATTERN_LABEL, "Paste a regex")
    w.settle()
    # first a hostile regex that does not compile, then one line per chunk
    for regex in ("(" + PAYLOADS["md_link"], LINE_PATTERN):
        box = w.page.get_by_label(re.compile(r"^Regex \(Python"))
        box.fill(regex)
        box.press("Enter")
        w.settle()
        specials = w.page.get_by_label(SPECIALS_LABEL, exact=True)
        specials.fill(json.dumps({SPECIAL: len(vocab), PAYLOADS["md_link"]: len(vocab) + 1}))
        specials.press("Control+Enter")
        w.settle()
        w.page.get_by_role("button", name="Load", exact=True).click()
        w.settle()
        if regex != LINE_PATTERN:
            w.assert_clean("Compare upload: split regex field", 1)
    wait_text(w.page, "Loaded")
    box = w.page.get_by_label("Text", exact=True)
    box.fill(ALL + "\n" + SPECIAL)
    wait_spans(w.page, PAYLOADS["span_div_breakout"])
    w.settle()
    w.page.get_by_text("Parse special tokens", exact=True).first.click()
    w.settle()
    got = w.assert_clean("Compare upload: .tiktoken name, vocabulary, specials", len(PAYLOADS) + 3, spans=NEEDLES)
    assert "onerror_window.__pwned_1" in got["text"]  # the file's name, made safe, is the tokenizer's
    screenshot(w.page, "payloads-compare-upload")
    # the same vocabulary as a tokenizer.json, with a payload special and a payload added token
    if not w.page.locator("[data-testid='stFileUploader']").first.is_visible():  # the panel keeps its state
        w.page.get_by_text("Load your own tokenizer file").click()
    with rerun(w.page, TIMEOUT):  # the panel is open from the first file: wait for this file's run
        upload(w.page, 0, [(UPLOAD_NAME.replace(".tiktoken", " tokenizer.json"), tokenizer_json_file())],
               mime="application/json")
    w.page.get_by_text("Read as:").first.wait_for(timeout=TIMEOUT)
    w.page.get_by_role("button", name="Load", exact=True).click()
    w.page.locator(".tl-head[data-tokenizer$=' (2)']").wait_for(timeout=TIMEOUT)  # same 60-character name
    w.settle()
    got = w.assert_clean("Compare upload: tokenizer.json name, vocabulary, added tokens", len(PAYLOADS) + 3,
                         spans=NEEDLES)
    assert got["text"].count("onerror_window.__pwned_1") >= 2

    go_to(w.page, "inside")
    choose(w.page, "Tokenizer", "onerror_window")
    w.settle()
    fill(w.page, "Text", ALL)
    w.settle()
    w.assert_clean("Inside: uploaded payload vocabulary, text", len(PAYLOADS), spans=NEEDLES)
    w.page.get_by_text("Type a token id instead", exact=True).click()
    w.settle()
    for name in ("script", "span_div_breakout", "fixed_overlay_link"):
        fill(w.page, "Token id", str(ids[ONE_LINE[name].encode()]), commit="Enter")
        w.settle()
        w.assert_clean("Inside: token id field -> merge tree of a payload token", 1)
    screenshot(w.page, "payloads-inside-tree")
    w.page.get_by_role("tab", name="Vocabulary").click()
    fill(w.page, "Search by id, text or hex bytes", EVIL, commit="Enter")
    w.settle()
    w.assert_clean("Inside: vocabulary search of the uploaded vocabulary", len(PAYLOADS))


def test_inside_inputs(watch):
    w = watch()
    w.goto("inside", tokenizer="gpt2", text=ALL, token=PAYLOADS["md_link"], id=PAYLOADS["script"],
           zzz=PAYLOADS["img_onerror"], **{PAYLOADS["md_heading"]: PAYLOADS["math"]})
    w.page.locator(".tl-spans").first.wait_for(timeout=TIMEOUT)
    w.settle()
    w.assert_clean("Inside: link parameters (text, token, id, unknown)", len(PAYLOADS) + 5, spans=NEEDLES)
    w.reset()
    w.goto("inside", tokenizer=PAYLOADS["md_link"], text=PAYLOADS["script"], token="3")
    w.assert_clean("Inside: link parameters (tokenizer)", 2, needles=[PAYLOADS["script"]])
    fill(w.page, "Text", ALL)
    w.settle()
    w.page.get_by_text("Type a token id instead", exact=True).click()
    w.settle()
    for raw in (PAYLOADS["md_link"], PAYLOADS["img_onerror"], PAYLOADS["directives"]):
        fill(w.page, "Token id", raw, commit="Enter")
        w.settle()
        w.assert_clean("Inside: token id field", 1)
    for tab, label in (("Regex chunks", None), ("Encode step by step", None), ("Decode", "Token ids"),
                       ("Vocabulary", "Search by id, text or hex bytes")):
        w.page.get_by_role("tab", name=tab).click()
        w.settle()
        if label:
            for raw in (PAYLOADS["md_link"], PAYLOADS["span_div_breakout"]):
                fill(w.page, label, raw, commit="Enter")
                w.settle()
                w.assert_clean(f"Inside: {tab} field", 1)
        else:
            w.assert_clean(f"Inside: {tab} of the text", len(PAYLOADS))


def test_inside_survives_a_new_text_of_as_many_tokens(watch):
    """Found by this sweep: the token picker's options are range(n) labelled by the text, so a new text
    of as many tokens kept the widget and the browser sent the old label back, which Streamlit returns
    as a string: `'>=' not supported between 'str' and 'int'` (app_pages/inside.py, numbered_pick)."""
    w = watch()
    w.goto("inside", tokenizer="gpt2", text="hello world", token="1")
    for text in ("house world", "house party", PAYLOADS["script"][:8] + " world"):
        fill(w.page, "Text", text)
        w.settle()
        got = w.assert_clean("Inside: a new text of as many tokens", 1 if "<" in text else 0)
        assert "(id" in got["text"]  # the picker is drawn, on token #1 or #0
    w.page.get_by_role("tab", name="Encode step by step").click()
    w.settle()
    fill(w.page, "Text", "house party")
    w.settle()
    w.assert_clean("Inside: step by step after a new text", 0)


# ====================================================================================================
# BPE Lab
# ====================================================================================================
TEXT_FILE_NAME = f"notes <img src=x onerror=window.__pwned=1> [log in](https:{EVIL}) :red[x] $x$ `y.txt"


def test_bpe_lab_inputs(watch):
    w = watch()
    w.goto("bpe-lab")
    fill(w.page, "Text to train on", ALL + "\n" + ALL)
    w.settle()
    choose(w.page, "Split pattern", "Custom regex")
    w.settle()
    regex_box = w.page.get_by_label(re.compile(r"^Regex \(Python"))
    for regex in ("(" + PAYLOADS["md_link"], PAYLOADS["img_onerror"] + r"|\w+|\s+|[^\w\s]+"):
        regex_box.fill(regex)
        regex_box.press("Enter")
        w.settle()
        w.assert_clean("BPE Lab: custom split regex", 1)
    specials = [v for v in ONE_LINE.values() if "," not in v][:12]
    fill(w.page, "Special tokens (comma-separated)", ",".join(specials), commit="Enter")
    vocab = w.page.get_by_label("Vocabulary size (256–8,192)")
    vocab.fill("600")
    vocab.press("Enter")
    w.settle()
    w.page.get_by_role("button", name="Train", exact=True).click()
    wait_text(w.page, "Learned")
    w.settle()
    w.assert_clean("BPE Lab: pasted corpus, trained (Merges view)", 2 * len(PAYLOADS) + len(specials))
    for raw in (PAYLOADS["md_link"], "<", PAYLOADS["span_div_breakout"]):
        fill(w.page, "Search the merges", raw, commit="Enter")
        w.settle()
        w.assert_clean("BPE Lab: merge search", 1)
    for view in ("Step by step", "Tokens", "Save"):
        w.page.get_by_text(view, exact=True).first.click()
        w.settle()
        w.assert_clean(f"BPE Lab: {view} view of the payload corpus", len(PAYLOADS),
                       spans=[PAYLOADS["script"]] if view == "Step by step" else ())
        if view == "Step by step":
            slider = w.page.get_by_role("slider").first
            slider.focus()
            with rerun(w.page, TIMEOUT):  # the slider sends its value a moment after the last key
                for _ in range(40):
                    slider.press("ArrowRight")
            w.assert_clean("BPE Lab: step view, merges of payload bytes", len(PAYLOADS), spans=[PAYLOADS["script"]])
            screenshot(w.page, "payloads-lab-steps")
    # a text file: its name and its contents
    w.page.get_by_text("Upload a file", exact=True).click()
    w.settle()
    upload(w.page, 0, [(TEXT_FILE_NAME, ALL.encode())])
    wait_text(w.page, f"{len(ALL):,} characters")
    w.settle()
    got = w.assert_clean("BPE Lab: uploaded text file (name and contents)", len(PAYLOADS) + 1)
    assert "onerror=window.__pwned=1" in got["text"]  # the name, shown as typed
    w.page.get_by_role("button", name="Train", exact=True).click()
    w.settle()
    w.assert_clean("BPE Lab: trained on the uploaded file", len(PAYLOADS))


def test_bpe_lab_model_upload_with_payload_vocabulary(watch):
    """A minbpe .model whose merges spell every payload as one token, with payload special tokens,
    named with a payload; then the same visit's Compare page with it."""
    w = watch()
    w.goto("bpe-lab")
    name = TEXT_FILE_NAME.replace(".txt", ".model")
    w.page.locator("[data-testid='stFileUploader'] input[type=file]").last.set_input_files(
        [{"name": name, "mimeType": "application/octet-stream", "buffer": minbpe_file()}])
    wait_text(w.page, "Loaded a model")
    w.settle()
    w.assert_clean("BPE Lab: .model upload (payload vocabulary)", len(PAYLOADS) + 2)
    for view in ("Merges", "Tokens"):
        w.page.get_by_text(view, exact=True).first.click()
        w.settle()
        if view == "Merges":
            fill(w.page, "Search the merges", "evil", commit="Enter")
            w.settle()
        w.assert_clean(f"BPE Lab: loaded model, {view} view", len(PAYLOADS))
    go_to(w.page, "")
    w.page.get_by_label("Text", exact=True).wait_for(timeout=TIMEOUT)
    w.page.get_by_label("Tokenizers (in the order shown)").click()
    w.page.get_by_role("option").filter(has_text="Lab BPE").first.click()
    w.page.keyboard.press("Escape")
    w.page.get_by_label("Text", exact=True).fill(ALL + "\n" + SPECIAL)
    wait_spans(w.page, PAYLOADS["md_image"])
    w.page.get_by_text("Parse special tokens", exact=True).first.click()
    w.settle()
    w.assert_clean("Compare: the loaded .model's payload tokens", len(PAYLOADS) + 1, spans=NEEDLES)


# ====================================================================================================
# Quirks, Languages, SentencePiece Lab, Algorithms
# ====================================================================================================
def card_box(page, card: str, which: str = "a"):
    return page.locator(f".st-key-quirks_{card}_card textarea").nth(0 if which == "a" else 1)  # the live boxes


def test_quirks_cards_and_audit_search(watch):
    w = watch()
    values = list(PAYLOADS.values())
    for card, text, n in (("spelling", ALL, len(PAYLOADS)), ("unicode", "\n".join(values[29:]), len(values) - 29),
                          ("special", "\n".join(values[:29]), 29)):
        w.goto("quirks", card=card)  # one card at a time; the card is in the link
        card_box(w.page, card).wait_for(timeout=TIMEOUT)
        box = card_box(w.page, card)
        box.fill(text)
        box.press("Control+Enter")
        w.settle()
        w.assert_clean(f"Quirks: the {card} card's text", n, spans=NEEDLES if card == "spelling" else ())
    # text B beside text A, on the special-token card (as text and parsed, and its Compare links)
    if not card_box(w.page, "special", "b").count():
        w.page.locator(".st-key-quirks_special_two").get_by_text("Text B beside it").click()
        w.settle()
    box = card_box(w.page, "special", "b")
    box.fill(ALL[::-1])
    box.press("Control+Enter")
    w.settle()
    w.assert_clean("Quirks: special-token card, text B", len(PAYLOADS))
    screenshot(w.page, "payloads-quirks")
    w.page.get_by_role("tab", name="Vocabulary audit").click()
    w.settle()
    for raw in (PAYLOADS["md_link"], PAYLOADS["img_onerror"], "<"):
        fill(w.page, "Search by id, text or hex bytes", raw, commit="Enter")
        w.settle()
        w.assert_clean("Quirks: audit search", 1)


def test_languages_parallel_corpus_uploads(watch):
    w = watch()
    w.goto("languages")
    w.page.get_by_role("tab", name="Your corpus").click()
    w.settle()
    names = [f"{v[:40]}.txt" for v in short(40).values() if "/" not in v]
    files = [("eng.txt", ALL.encode()), ("fra.txt", ALL[::-1].encode())] + [(n, ALL.encode()) for n in names[:10]]
    with rerun(w.page, TIMEOUT):
        upload(w.page, 0, files)
    got = w.assert_clean("Languages: files named with payloads, payload contents", len(PAYLOADS) * 2 + 10)
    assert "Skipped" in got["text"] or "not a language code" in got["text"], got["text"][-500:]
    header = "\t".join(["eng", "fra"] + [v.replace("\t", " ") for v in list(ONE_LINE.values())[:20]])
    rows = "\n".join("\t".join([v, v[::-1]] + [v] * 20) for v in ONE_LINE.values())
    table = (header + "\n" + rows).encode()
    with rerun(w.page, TIMEOUT):
        upload(w.page, 0, [(f"{PAYLOADS['img_onerror'][:30]}.tsv", table)])
    w.assert_clean("Languages: a TSV with payload headers and cells", len(PAYLOADS) + 20)
    screenshot(w.page, "payloads-languages")


def test_sentencepiece_lab_options_and_texts(watch):
    w = watch()
    w.goto("sentencepiece")
    w.page.get_by_text("Paste", exact=True).click()
    w.settle()
    fill(w.page, "Text to train on (each line is a sentence)", (ALL + "\n") * 3)
    w.settle()
    vocab = w.page.get_by_label("vocab_size", exact=True)
    vocab.fill("400")
    vocab.press("Enter")
    w.settle()
    w.page.get_by_text("All options, with what each does").click()
    symbols = [v for v in ONE_LINE.values() if "," not in v and len(v) < 60][:10]
    for label, value in (("user_defined_symbols", ",".join(symbols)),
                         ("control_symbols", PAYLOADS["md_link"].replace(",", "")),
                         ("unk_piece", PAYLOADS["md_image"])):
        fill(w.page, label, value, commit="Enter")
        w.settle()
    w.assert_clean("SentencePiece Lab: options typed", len(symbols) + 2)
    w.page.get_by_role("button", name="Train", exact=True).click()
    w.page.locator("[data-testid='stAlertContentSuccess'], [data-testid='stAlertContentError']").first.wait_for(
        timeout=TIMEOUT)
    w.settle()
    w.assert_clean("SentencePiece Lab: trained on payloads, user-defined payload pieces",
                   3 * len(PAYLOADS) + len(symbols) + 2)
    assert w.page.get_by_text("Trained a").count(), w.page.locator("[data-testid=stAlertContentError]").all_inner_texts()
    for tab, label, text in (("Vocabulary", "Search by id, piece or hex bytes", PAYLOADS["md_link"]),
                             ("Encode", "Text to encode", ALL),
                             ("Byte fallback", "Text with characters the corpus never had", ONE_LINE["span_div_breakout"]),
                             ("Merge tree", "…or type a piece or an id", PAYLOADS["img_onerror"]),
                             ("Sampling", "Text to segment again and again", PAYLOADS["script"])):
        w.page.get_by_role("tab", name=tab, exact=True).click()
        w.settle()
        # the live boxes (Encode, Byte fallback, Sampling) send at once with Ctrl+Enter; Enter is a newline there
        fill(w.page, label, text, commit="Enter" if tab in ("Vocabulary", "Merge tree") else "Control+Enter")
        w.settle()
        n = len(PAYLOADS) if text == ALL else 1
        w.assert_clean(f"SentencePiece Lab: {tab} ({label})", n, spans=[PAYLOADS["script"]] if tab == "Encode" else ())
        if tab == "Encode":
            screenshot(w.page, "payloads-sentencepiece-encode")


def test_algorithms_corpus_and_text(watch):
    w = watch()
    w.goto("algorithms")
    w.page.get_by_text("Paste", exact=True).click()
    w.settle()
    fill(w.page, "Text to train on", (ALL + "\n") * 3)
    vocab = w.page.get_by_label("Target vocabulary size (2–8,192), the same for all five")
    vocab.fill("400")
    vocab.press("Enter")
    w.settle()
    w.page.get_by_role("button", name="Train all five").click()
    wait_text(w.page, "Trained on")
    w.settle()
    fill(w.page, "Text to segment", ALL)
    w.settle()
    w.assert_clean("Algorithms: payload corpus, segmentation of every payload", 4 * len(PAYLOADS),
                   spans=[PAYLOADS["script"], PAYLOADS["md_link"]])
    screenshot(w.page, "payloads-algorithms")
    for raw in (PAYLOADS["md_link"], "<scr", PAYLOADS["span_div_breakout"]):
        fill(w.page, "Search by spelling or id", raw, commit="Enter")
        w.settle()
        w.assert_clean("Algorithms: vocabulary search", 1)
    w.page.get_by_role("tab", name="Training steps").click()
    w.settle()
    w.assert_clean("Algorithms: training steps of the payload corpus", len(PAYLOADS))


# ====================================================================================================
# the table for the closing note (runs last: pytest keeps the file's order)
# ====================================================================================================
def test_vocab_diff_of_a_payload_vocabulary(watch):
    """The payload .tiktoken (each payload one token, the file named with one) loaded on Compare, then
    the Vocabulary diff page on it: the page's answer, tables and search show its tokens only as text."""
    w = watch()
    w.goto("", text="hello", tokenizers="gpt2")
    w.page.get_by_text("Load your own tokenizer file").click()
    upload(w.page, 0, [(UPLOAD_NAME, tiktoken_file())], mime="application/octet-stream")
    w.page.get_by_label(PATTERN_LABEL, exact=True).wait_for(timeout=TIMEOUT)
    w.settle()
    w.page.get_by_role("button", name="Load", exact=True).click()
    wait_text(w.page, "Loaded")
    w.settle()
    go_to(w.page, "vocab-diff")
    choose(w.page, "B (to)", "onerror_window")
    w.settle()
    got = w.assert_clean("Vocabulary diff: a payload vocabulary as B (name, tokens)", len(PAYLOADS) + 1)
    assert "onerror_window.__pwned_1" in got["text"]
    fill(w.page, "Search the tokens", EVIL, commit="Enter")
    w.settle()
    w.assert_clean("Vocabulary diff: search of the payload tokens", len(PAYLOADS))
    screenshot(w.page, "payloads-vocab-diff")


def test_zz_write_the_table():
    if not TABLE:
        pytest.skip("no drive ran (selected away)")
    rows: dict[str, list[int]] = {}
    for label, n, executed, foreign in TABLE:
        r = rows.setdefault(label, [0, 0, 0, 0])
        r[0] += 1
        r[1] += n
        r[2] += executed
        r[3] += foreign
    lines = [f"Payload sweep in Chromium ({len(PAYLOADS)} payloads in tests/payloads.py; "
             "tests/e2e/test_payloads_browser.py)", "",
             "| input | drives | payloads driven | executed | foreign elements |", "|---|---:|---:|---:|---:|"]
    lines += [f"| {label} | {d} | {n} | {e} | {f} |" for label, (d, n, e, f) in rows.items()]
    total = [sum(r[k] for r in rows.values()) for k in range(4)]
    lines.append(f"| **total** | {total[0]} | {total[1]} | {total[2]} | {total[3]} |")
    TABLE_FILE.parent.mkdir(exist_ok=True)
    TABLE_FILE.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n" + "\n".join(lines))
    assert total[2] == 0 and total[3] == 0
