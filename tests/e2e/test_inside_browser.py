"""Inside a token in a real browser: a deep link, the merge tree, the regex chunks, the stepper."""

from tests.e2e.conftest import screenshot, settle, wait_for_app


def test_tree_chunks_and_steps(page, app_url):
    page.goto(f"{app_url}/inside")
    wait_for_app(page)
    assert page.get_by_text("Page not found").count() == 0
    page.get_by_text("Token 3404").first.wait_for(timeout=60_000)  # cl100k's "Token", the first token
    page.locator(".tl-tree .tl-tbox").first.wait_for(timeout=30_000)
    settle(page)
    labels = page.evaluate("[...document.querySelectorAll('.tl-tree .tl-tbox')].map(e => e.firstChild.textContent)")
    assert labels[0] == "Token" and "oken" in labels
    screenshot(page, "inside-merge-tree")

    page.get_by_role("tab", name="Regex chunks").click()
    page.get_by_text("GPT-4:").wait_for(timeout=30_000)
    settle(page)
    screenshot(page, "inside-regex-chunks")

    page.get_by_role("tab", name="Encode step by step").click()
    page.get_by_text("merges: ids [3404, 2065]").wait_for(timeout=30_000)
    screenshot(page, "inside-encode-steps")
    assert not page.errors
