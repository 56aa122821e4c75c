"""ui.formatting.escape_markdown / md_inline_code and ui.figures.plotly_text against what Streamlit 1.67
really renders in Chromium: every payload of tests/payloads.py shows as its own characters in
st.markdown, a caption, an alert, a widget label and a code span, with no element the escaping should
have prevented (a link, an image, a heading, math, a colored directive, an icon, an emoji). The same
page unescaped (`?raw=1`) must show those injections, or this test could not tell."""

from __future__ import annotations

import pytest

from tests.e2e.conftest import ROOT, _require_browser, new_context, settle, streamlit_server
from tests.payloads import PAYLOADS
from ui.formatting import WORD_JOINER

TIMEOUT = 90_000
KINDS = ("md", "caption", "alert", "label", "code")
# what Streamlit's own markup around a Markdown body may hold; anything else was made from the text
ALLOWED = {"p", "div", "span", "label", "code", "button", "svg", "path", "circle", "line", "g"}

READ = """(kinds) => { const out = {};
  for (const el of document.querySelectorAll('[class*="st-key-"]')) {
    const m = [...el.classList].map(c => c.match(/^st-key-(md|caption|alert|label|code)_(\\d+)$/)).find(Boolean);
    if (!m) continue;
    let body = el.querySelector('[data-testid="stMarkdownContainer"], [data-testid="stCaptionContainer"]');
    if (m[1] === 'label') body = el.querySelector('[data-testid="stWidgetLabel"] [data-testid="stMarkdownContainer"]');
    const tags = body ? [...body.querySelectorAll('*')].map(x => x.tagName.toLowerCase()) : [];
    const icons = body ? body.querySelectorAll('[role="img"], .katex, [data-testid="stMarkdownColoredText"], '
      + 'span[style*="color"], span[style*="background"]').length : 0;
    out[m[1] + '_' + m[2]] = {text: body ? body.textContent : null, tags: [...new Set(tags)], icons,
                              links: body ? body.querySelectorAll('a, img').length : 0};
  }
  return out; }"""


def _flat(text: str) -> str:
    return text.replace("\r", " ").replace("\n", " ")


def _load(browser, url: str) -> dict:
    ctx = new_context(browser, viewport={"width": 1200, "height": 1600})
    page = ctx.new_page()
    dialogs = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.goto(url)
    page.wait_for_selector(".st-key-done", timeout=TIMEOUT)
    page.wait_for_selector(".st-key-chart .main-svg", timeout=TIMEOUT)
    settle(page, TIMEOUT)
    seen = page.evaluate(READ, list(KINDS))
    chart = page.evaluate("""() => { const c = document.querySelector('.st-key-chart');
        return {links: c.querySelectorAll('a').length, title: (c.querySelector('.gtitle') || {}).textContent || ''}; }""")
    pwned = page.evaluate("window.__pwned === undefined ? null : String(window.__pwned)")
    ctx.close()
    return {"seen": seen, "chart": chart, "pwned": pwned, "dialogs": dialogs}


@pytest.fixture(scope="module")
def probe_url():
    _require_browser()
    with streamlit_server(ROOT / "tests" / "e2e" / "markdown_probe_app.py", "streamlit-markdown-probe.log") as url:
        yield url


def test_escaped_markdown_renders_every_payload_literally(browser, probe_url):
    got = _load(browser, probe_url)
    assert got["pwned"] is None and not got["dialogs"]
    problems = []
    for i, (name, text) in enumerate(PAYLOADS.items()):
        for kind in KINDS:
            r = got["seen"].get(f"{kind}_{i}")
            if r is None or r["text"] is None:
                problems.append((name, kind, "not drawn"))
                continue
            shown = r["text"].replace(WORD_JOINER, "")
            want = _flat(text).replace(WORD_JOINER, "").strip()
            extra = set(r["tags"]) - ALLOWED - ({"code"} if kind == "code" else set())
            if kind == "code":
                ok = want in shown
            else:
                ok = shown.strip() == want
            if not ok or extra or r["icons"] or r["links"]:
                problems.append((name, kind, shown[:120], sorted(extra), r["icons"], r["links"]))
    assert not problems, "\n".join(map(repr, problems))
    # plotly: no link in the chart, the title as typed
    assert got["chart"]["links"] == 0
    assert got["chart"]["title"] == PAYLOADS["md_link"] + " " + PAYLOADS["span_div_breakout"]


def test_the_same_payloads_unescaped_do_inject(browser, probe_url):
    """The oracle's own check: without the helpers Streamlit makes links, images, headings, icons and
    math out of these payloads, and plotly makes a link."""
    got = _load(browser, probe_url + "/?raw=1")
    index = {name: i for i, name in enumerate(PAYLOADS)}

    def r(kind, name):
        return got["seen"][f"{kind}_{index[name]}"]

    assert r("md", "md_link")["links"] == 1
    assert r("md", "md_image")["links"] == 1
    assert r("md", "md_autolink")["links"] == 1
    assert r("md", "md_bare_url")["links"] == 2
    assert r("md", "md_email")["links"] == 1
    assert "h1" in r("md", "md_heading")["tags"]
    assert r("md", "directives")["icons"] and r("md", "icons_and_emoji")["icons"]
    assert r("label", "md_link")["links"] == 1
    # a backtick in the value closes a single-backtick code span: the link inside renders
    assert r("code", "md_link_in_code")["links"] == 1
    assert got["chart"]["links"] >= 1


def test_an_uncaught_exception_shows_no_message_or_traceback(browser, probe_url):
    """.streamlit/config.toml: client.showErrorDetails = "type": the exception's type, a generic
    message, no traceback and no server path (the probe app raises one naming its own path)."""
    ctx = new_context(browser)
    page = ctx.new_page()
    page.goto(probe_url + "/?boom=1")
    page.wait_for_selector("[data-testid='stException']", timeout=TIMEOUT)
    settle(page, TIMEOUT)
    shown = page.inner_text("[data-testid='stMain']")
    ctx.close()
    assert "RuntimeError" in shown
    assert "secret detail" not in shown and str(ROOT) not in shown and "Traceback" not in shown
    assert ".py" not in shown and "line " not in shown
