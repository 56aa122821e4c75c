"""The Vocabulary diff page in a real browser: it opens from the sidebar on GPT-4 → GPT-4o, answers the
three questions from their buttons, its link reproduces the view in a new visit, and it fits 1280×720 in
light and dark (screenshots in artifacts/screenshots/)."""

from tests.e2e.conftest import rerun, screenshot, settle, wait_drawn, wait_for_app, wait_plotted, watched_page


def metric(page, label: str) -> str:
    box = page.locator("[data-testid='stMetric']").filter(has_text=label).first
    return box.locator("[data-testid='stMetricValue']").inner_text()


def open_diff(browser, app_url: str, query: str = "", **kw):
    ctx, page = watched_page(browser, **kw)
    errors = page.errors
    page.goto(f"{app_url}/vocab-diff{query}")
    wait_for_app(page)
    page.locator("[data-testid='stMetric']").first.wait_for(timeout=60_000)
    settle(page)
    return ctx, page, errors


def test_questions_link_and_screenshots(browser, app_url):
    ctx, page, errors = open_diff(browser, app_url)
    assert page.get_by_text("Page not found").count() == 0
    assert metric(page, "Added by B") == "114,965" and metric(page, "Dropped by B") == "15,223"
    wait_plotted(page)
    screenshot(page, "vocab-diff-1280-light")
    page.set_viewport_size({"width": 1280, "height": 2400})
    wait_drawn(page)
    screenshot(page, "vocab-diff-full-light")

    with rerun(page):
        page.get_by_role("button", name="Does Llama 3 contain GPT-4's tokens?").click()
    assert metric(page, "Dropped by B") == "0" and metric(page, "Share of A in B") == "100.0%"
    assert page.get_by_text("contains every one of").count() == 1
    with rerun(page):
        page.get_by_role("button", name="How much of Mistral 7B is in Llama 3?").click()
    assert metric(page, "Shared") == "29,110" and metric(page, "Share of A in B") == "91.3%"
    link = page.evaluate("() => location.search")
    assert "a=mistral_sp" in link and "b=llama3" in link and "show=shared" in link
    with rerun(page):
        box = page.get_by_label("Search the tokens", exact=True)
        box.fill(" the")
        box.press("Enter")
    link = page.evaluate("() => location.search")
    assert "q=" in link
    assert errors == []
    ctx.close()

    # the link in a new visit gives the same view
    ctx, page, errors = open_diff(browser, app_url, link)
    assert metric(page, "Shared") == "29,110"
    assert page.get_by_label("Search the tokens", exact=True).input_value() == " the"
    assert page.evaluate("() => location.search") == link
    ctx.close()


def test_dark_at_1280x720(browser, app_url):
    ctx, page, errors = open_diff(browser, app_url, "?a=gpt2&b=cl100k_base", color_scheme="dark")
    assert metric(page, "Shared") == "43,066"
    wait_plotted(page)
    screenshot(page, "vocab-diff-1280-dark")
    page.set_viewport_size({"width": 1280, "height": 2400})
    wait_drawn(page)
    screenshot(page, "vocab-diff-full-dark")
    assert errors == []
    ctx.close()
