"""The Quirks card "Where a prompt ends" in a real browser at 1280x720, light and dark: the last token
outlined, the count of tokens that could have continued it, editing the text, picking a tokenizer,
and hostile text shown as its characters."""

import pytest

from tests.e2e.conftest import SHOTS, choose, settle, wait_for_app, watched_page
from tests.payloads import PAYLOADS

TIMEOUT = 90_000


def luminance(rgb: str) -> float:
    r, g, b = (int(x) for x in rgb[rgb.index("(") + 1:rgb.index(")")].split(",")[:3])
    return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255


def card_shot(locator, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    locator.scroll_into_view_if_needed()
    locator.screenshot(path=str(SHOTS / f"{name}.png"))


def count_is(page, n: str) -> None:
    page.wait_for_function("n => { const c = document.querySelector('.st-key-quirks_healing_card .tl-heal-count');"
                           " return c && c.innerText === n; }", arg=n, timeout=TIMEOUT)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_where_a_prompt_ends(browser, app_url, scheme):
    ctx, page = watched_page(browser, 1280, 720, color_scheme=scheme)
    errors = page.errors
    page.goto(f"{app_url}/quirks?card=healing")  # the gallery shows one card at a time
    wait_for_app(page)
    card = page.locator(".st-key-quirks_healing_card")
    card.locator(".tl-heal").wait_for(timeout=TIMEOUT)
    settle(page)
    # "http:" in cl100k_base: "http" kept, ":" (id 25) backed off, 324 tokens start with ":"
    assert card.locator(".tl-heal-last").inner_text() == "25"
    count_is(page, "324")
    assert card.locator(".tl-spans .tl-pin").inner_text() == ":"
    color = page.evaluate("e => getComputedStyle(e).color", card.locator(".tl-heal").element_handle())
    assert (luminance(color) > 0.6) == (scheme == "dark"), color  # the text follows the theme
    card_shot(card, f"quirks-card-healing-{scheme}")
    card.locator(".tl-heal").scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / f"quirks-healing-1280x720-{scheme}.png"))  # what a visitor sees

    box = card.get_by_label("Text", exact=True)
    box.fill("The quick bro")
    box.press("Control+Enter")
    count_is(page, "32")  # " bro" and 31 longer tokens (" brown", " brother", …)
    choose(page, "Tokenizer", "Mistral 7B (SentencePiece)")
    count_is(page, "16")
    assert "·bro" in card.locator(".tl-heal").inner_text()
    card.locator(".tl-heal").scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / f"quirks-healing-1280x720-mistral-{scheme}.png"))

    box.fill(PAYLOADS["script"] + " " + PAYLOADS["img_onerror"])
    box.press("Control+Enter")
    page.wait_for_function("() => document.querySelector('.st-key-quirks_healing_card .tl-spans')"
                           ".innerText.includes('onerror')", timeout=TIMEOUT)
    settle(page)
    assert not page.evaluate("() => !!window.__pwned")
    assert PAYLOADS["script"] in card.locator(".tl-spans").inner_text()  # shown as its characters
    assert card.locator(".tl-heal script, .tl-heal img, .tl-pwn").count() == 0
    assert not errors
    ctx.close()
