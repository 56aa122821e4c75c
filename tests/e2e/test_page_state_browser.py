"""Compare keeps its options when a visitor goes to another page in the sidebar and comes back
(app_pages/links.py), and its link says so again."""

import shutil
import urllib.parse

from tests.e2e.conftest import screenshot, wait_for_app

TIMEOUT = 60_000


def checked(page, role: str, name: str) -> bool:
    return page.get_by_role(role, name=name, exact=True).is_checked()


def test_compare_keeps_its_options_across_pages(page, app_url):
    page.goto(f"{app_url}/?{urllib.parse.urlencode({'text': 'hello world', 'tokenizers': 'gpt2,cl100k_base'})}")
    wait_for_app(page)
    main = page.locator("[data-testid='stMain']")
    for name in ("Show whitespace", "Alternating colors"):
        main.get_by_text(name, exact=True).click()
        page.wait_for_function("n => [...document.querySelectorAll('input[role=switch], input[type=checkbox]')]"
                               ".some(i => i.getAttribute('aria-label') === n && i.checked)", arg=name,
                               timeout=TIMEOUT)
    main.get_by_text("IDs", exact=True).click()
    page.wait_for_function("() => location.search.includes('view=IDs') && location.search.includes('ws=1')",
                           timeout=TIMEOUT)
    wait_for_app(page)
    shutil.copy(screenshot(page, "page-state-1-set"), "/tmp/pages_state_1_set.png")

    page.locator("[data-testid='stSidebarNav']").get_by_role("link", name="BPE Lab").click()
    page.get_by_role("heading", name="BPE Lab").wait_for(timeout=TIMEOUT)
    wait_for_app(page)
    shutil.copy(screenshot(page, "page-state-2-away"), "/tmp/pages_state_2_away.png")

    page.locator("[data-testid='stSidebarNav']").get_by_role("link", name="Compare").click()
    page.get_by_role("heading", name="Compare tokenizers").wait_for(timeout=TIMEOUT)
    page.wait_for_function("() => location.search.includes('view=IDs')", timeout=TIMEOUT)
    wait_for_app(page)
    assert checked(page, "switch", "Show whitespace") and checked(page, "switch", "Alternating colors")
    assert checked(page, "radio", "IDs")
    query = urllib.parse.parse_qs(urllib.parse.urlsplit(page.url).query)
    assert query["ws"] == ["1"] and query["alt"] == ["1"] and query["view"] == ["IDs"]
    assert query["tokenizers"] == ["gpt2,cl100k_base"] and query["text"] == ["hello world"]
    assert "31373, 995" in main.inner_text()  # gpt2's ids for "hello world", in the IDs view
    shutil.copy(screenshot(page, "page-state-3-back"), "/tmp/pages_state_3_back.png")
    assert not page.errors
