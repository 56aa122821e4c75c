"""The Compare page in a real browser: a shared link, counts, a hovered token's tooltip, the three
views, and HTML that is shown, never run."""

import urllib.parse

from tests.e2e.conftest import screenshot, settle, wait_for_app
from tokenizers import default_tokenizers, get_tokenizer


def counts(page) -> dict[str, int]:
    heads = page.locator(".tl-head")
    return {heads.nth(i).get_attribute("data-tokenizer"):
            int(heads.nth(i).locator(".tl-count").inner_text().replace(",", "")) for i in range(heads.count())}


def wait_for_heads(page, n: int):
    page.wait_for_function(f"document.querySelectorAll('.tl-head').length === {n}", timeout=60_000)


def test_default_page(page, app_url):
    page.goto(app_url)
    wait_for_app(page)
    names = default_tokenizers()
    wait_for_heads(page, len(names))
    text = page.get_by_label("Text", exact=True).input_value()
    assert counts(page) == {n: len(get_tokenizer(n).tokenize(text, disallowed_special=())) for n in names}
    assert page.locator(".tl-group").count() > 0  # emoji split across byte tokens: one segment each
    assert "\ufffd" not in page.locator(".tl-spans").first.inner_text()
    screenshot(page, "compare-default")
    assert not page.errors


def test_shared_link_hover_and_views(page, app_url):
    text = "def f(x):\n        return x ** 2  # 안녕 👋\n<|endoftext|>"
    query = urllib.parse.urlencode({"text": text, "tokenizers": "gpt2,cl100k_base,mistral_sp", "ws": "1"})
    page.goto(f"{app_url}/?{query}")
    wait_for_app(page)
    wait_for_heads(page, 3)
    assert page.get_by_label("Text", exact=True).input_value() == text
    assert counts(page) == {n: len(get_tokenizer(n).tokenize(text, disallowed_special=()))
                            for n in ["gpt2", "cl100k_base", "mistral_sp"]}

    tok = page.locator(".tl-tok[data-ids='755']").first  # cl100k's "def"
    tok.hover()
    tip = page.evaluate("el => getComputedStyle(el, '::after').content", tok.element_handle())
    assert "id 755" in tip and "bytes 64 65 66" in tip and "merge rank 499" in tip
    screenshot(page, "compare-link-hover")

    page.get_by_text("IDs", exact=True).click()
    page.wait_for_function("document.querySelectorAll('.tl-spans .tl-tok').length === 0", timeout=30_000)
    page.get_by_text(", ".join(str(i) for i in get_tokenizer("gpt2").encode(text, disallowed_special=()))).wait_for(timeout=30_000)
    screenshot(page, "compare-ids")

    page.get_by_text("Table", exact=True).click()
    page.locator("[data-testid='stDataFrame']").first.wait_for(timeout=30_000)
    screenshot(page, "compare-table")
    assert not page.errors


def test_script_payload_is_shown_not_run(page, app_url):
    page.goto(app_url)
    wait_for_app(page)
    box = page.get_by_label("Text", exact=True)
    payload = "<script>window.__pwned=1</script><img src=x onerror=\"window.__pwned=2\">"
    box.fill(payload)
    box.press("Control+Enter")
    page.wait_for_function("document.querySelector('.tl-spans') && "
                           "document.querySelector('.tl-spans').innerText.includes('__pwned=1')", timeout=30_000)
    settle(page)
    assert page.evaluate("window.__pwned === undefined")
    assert page.locator(".tl-spans img").count() == 0 and page.locator(".tl-spans script").count() == 0
    screenshot(page, "compare-script-payload")
