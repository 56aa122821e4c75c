"""The Compare page in a real browser: counts, a hovered token's tooltip, HTML shown literally."""

from tests.e2e.conftest import screenshot, wait_for_app
from tokenizers import default_tokenizers, get_tokenizer


def test_compare_page_shows_every_default_tokenizer(page, app_url):
    page.goto(app_url)
    wait_for_app(page)
    names = default_tokenizers()
    page.wait_for_function(f"document.querySelectorAll('.tl-head').length === {len(names)}", timeout=60_000)
    heads = page.locator(".tl-head")
    counts = {heads.nth(i).get_attribute("data-tokenizer"):
              int(heads.nth(i).locator(".tl-count").inner_text().replace(",", "")) for i in range(len(names))}
    text = page.get_by_label("Text").input_value()
    expected = {n: len(get_tokenizer(n).tokenize(text)) for n in names}
    assert counts == expected

    first = page.locator(".tl-tok").first
    first.hover()
    title = first.get_attribute("title")
    assert title.startswith("id ") and "bytes" in title
    grouped = page.locator(".tl-group")
    assert grouped.count() > 0  # the emoji split across byte tokens is one segment
    assert "\ufffd" not in page.locator(".tl-spans").first.inner_text()
    path = screenshot(page, "compare")
    assert path.stat().st_size > 10_000
    assert not page.errors


def test_script_payload_is_shown_not_run(page, app_url):
    page.goto(app_url)
    wait_for_app(page)
    box = page.get_by_label("Text")
    payload = "<script>window.__pwned=1</script><img src=x onerror=\"window.__pwned=2\">"
    box.fill(payload)
    box.press("Control+Enter")
    page.get_by_text("<script>window.__pwned=1</script>", exact=False).first.wait_for(timeout=30_000)
    page.wait_for_timeout(500)
    assert page.evaluate("window.__pwned === undefined")
    screenshot(page, "compare-script-payload")
