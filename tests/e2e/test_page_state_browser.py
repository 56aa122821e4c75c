"""Compare keeps its options when a visitor goes to another page in the sidebar and comes back
(app_pages/kit/links.py), and its link says so again."""

import shutil
import urllib.parse

from tests.e2e.conftest import rerun, screenshot, settle, wait_for_app

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


# -- issue 20: a lecture's setup stays; every page's form is in its link; the live box everywhere ------------
def nav(page, name: str) -> None:
    expand = page.get_by_test_id("stExpandSidebarButton")
    if expand.is_visible():  # presentation mode collapses the sidebar: a teacher opens it to go elsewhere
        expand.click()
    page.locator("[data-testid='stSidebarNav']").get_by_role("link", name=name).click()
    settle(page)


def on_compare(page) -> dict:
    """Compare's switches, its text size and its link, as the page shows them."""
    return page.evaluate("""() => ({
      ws: document.querySelector('input[aria-label="Show whitespace"]')?.checked,
      present: document.querySelector('input[aria-label="Presentation mode"]')?.checked,
      font: [...document.querySelectorAll('[data-testid=stButtonGroup] button')]
              .filter(b => b.getAttribute('aria-checked') === 'true').map(b => b.innerText).join(),
      heads: [...document.querySelectorAll('.tl-head')].map(h => h.dataset.tokenizer),
      query: Object.fromEntries(new URLSearchParams(location.search))})""")


def test_a_lecture_setup_survives_quirks_and_inside(page, app_url):
    """Presentation mode, XL, Show whitespace and GPT-2 + cl100k only, then Quirks by the sidebar and
    back, then "Open in Inside a token" and back: the same setup each time (this held on main already)."""
    page.set_viewport_size({"width": 1280, "height": 720})
    page.goto(f"{app_url}/?{urllib.parse.urlencode({'text': 'the lecture', 'tokenizers': 'gpt2,cl100k_base'})}")
    wait_for_app(page)
    main = page.locator("[data-testid='stMain']")
    for name in ("Show whitespace", "Presentation mode"):
        main.get_by_text(name, exact=True).click()
        settle(page)
    main.locator("[data-testid=stButtonGroup] button", has_text="XL").click()
    page.wait_for_function("() => location.search.includes('font=XL')", timeout=TIMEOUT)
    settle(page)
    setup = on_compare(page)
    assert setup["ws"] and setup["present"] and setup["font"] == "XL" and setup["heads"] == ["gpt2", "cl100k_base"]
    nav(page, "Quirks")
    page.get_by_role("heading", name="Quirks").first.wait_for(timeout=TIMEOUT)
    nav(page, "Compare")
    page.wait_for_function("() => location.search.includes('font=XL')", timeout=TIMEOUT)
    settle(page)
    assert on_compare(page) == setup
    page.locator(".tl-spans [data-pos]").first.click()
    settle(page)
    page.get_by_role("link", name="Open in Inside a token").click()
    page.get_by_role("heading", name="Inside a token").wait_for(timeout=TIMEOUT)
    settle(page)
    nav(page, "Compare")
    page.wait_for_function("() => location.search.includes('font=XL')", timeout=TIMEOUT)
    settle(page)
    assert on_compare(page) == setup
    shutil.copy(screenshot(page, "page-state-lecture-back"), "/tmp/pages_state_lecture_back.png")
    assert not page.errors


def lab_form(page) -> tuple[str, str]:
    return (page.get_by_label("Text to train on").input_value(),
            page.get_by_label("Vocabulary size (256–8,192)").input_value())


def test_the_bpe_lab_form_survives_another_page_and_a_reload(page, app_url):
    """Failed on main at the reload (and in a shared link): the Lab had no link, so a new visit opened
    the default text and 276, and Train trained something else."""
    page.goto(f"{app_url}/bpe-lab")
    wait_for_app(page)
    with rerun(page):
        page.get_by_label("Text to train on").fill("my lecture's own text, <script>x</script> 👨‍👩‍👧")
        page.get_by_label("Vocabulary size (256–8,192)").click()  # the text area sends its value on blur
    vocab = page.get_by_label("Vocabulary size (256–8,192)")
    vocab.fill("300")
    with rerun(page):
        vocab.press("Enter")
    page.wait_for_function("() => location.search.includes('vocab=300')", timeout=TIMEOUT)
    want = ("my lecture's own text, <script>x</script> 👨‍👩‍👧", "300")
    assert lab_form(page) == want
    nav(page, "Compare")
    nav(page, "BPE Lab")
    assert lab_form(page) == want
    assert "tokenizers=" not in page.url  # Compare's link does not stay on the Lab's address
    page.reload()
    wait_for_app(page)
    assert lab_form(page) == want
    page.get_by_role("button", name="Train", exact=True).click()
    page.get_by_text("Learned 35 merges").wait_for(timeout=TIMEOUT)  # what vocab 300 learns from this text (the default text learns 20)
    shutil.copy(screenshot(page, "page-state-lab-reloaded"), "/tmp/pages_state_lab_reloaded.png")
    assert not page.errors


def type_into(page, box, text: str) -> None:
    """Replace a live box's text by typing it (no Ctrl+Enter), and wait for the run it asks for."""
    box.click()
    page.keyboard.press("Control+A")
    with rerun(page):
        page.keyboard.type(text)


def token_count(page, scope: str) -> int:
    return page.evaluate("s => document.querySelectorAll(s + ' .tl-spans [data-pos]').length", scope)


def test_typing_updates_the_spans_without_ctrl_enter_on_quirks_and_inside(page, app_url):
    """Failed on main: these boxes were text areas, which send nothing until Ctrl+Enter (or a blur)."""
    page.goto(f"{app_url}/quirks?tokenizers=gpt2&card=pair")  # the card in the link
    wait_for_app(page)
    card = ".st-key-quirks_pair_card"
    type_into(page, page.locator(card).get_by_label("Text A"), "hello world")
    page.wait_for_function("() => { const h = document.querySelector(\".st-key-quirks_pair_card "
                           ".tl-head[data-tokenizer='gpt2'] .tl-count\"); return h && h.innerText === '2'; }",
                           timeout=TIMEOUT)
    # an example still sets the text, in the live box too
    page.locator(card).locator("[data-testid=stSelectbox]").click()
    page.get_by_role("option").first.click()
    settle(page)
    assert page.locator(card).get_by_label("Text A").input_value() != "hello world"

    page.goto(f"{app_url}/inside?tokenizer=gpt2&text=a")
    wait_for_app(page)
    type_into(page, page.get_by_label("Text", exact=True), "hello world again")
    page.wait_for_function("() => document.querySelectorAll('.tl-spans [data-pos]').length === 3", timeout=TIMEOUT)
    assert "text=hello+world+again" in page.url or "text=hello%20world%20again" in page.url
    assert not page.errors


def test_typing_updates_the_spans_without_ctrl_enter_in_the_labs(page, app_url):
    page.goto(f"{app_url}/algorithms?source=paste&vocab=30")
    wait_for_app(page)
    page.get_by_role("button", name="Train all five").click()
    page.get_by_text("Each one is now on the Compare page", exact=False).wait_for(timeout=120_000)
    settle(page)
    type_into(page, page.get_by_label("Text to segment"), "low low")
    page.wait_for_function("() => { const h = document.querySelector(\".tl-head[data-tokenizer='alg_char'] .tl-count\");"
                           " return h && h.innerText === '7'; }", timeout=TIMEOUT)  # l o w ␣ l o w

    page.goto(f"{app_url}/sentencepiece")
    wait_for_app(page)
    page.get_by_role("button", name="Train", exact=True).click()
    page.get_by_text("Trained a bpe model of 1,000 pieces").wait_for(timeout=120_000)
    settle(page)
    page.get_by_role("tab", name="Encode", exact=True).click()
    settle(page)
    type_into(page, page.get_by_label("Text to encode"), "x")
    page.wait_for_function("() => [...document.querySelectorAll('[role=tabpanel] .tl-spans')].some("
                           "s => s.querySelectorAll('[data-pos]').length <= 2)", timeout=TIMEOUT)
    assert page.get_by_label("Text to encode").input_value() == "x"
    shutil.copy(screenshot(page, "page-state-sp-encode-live"), "/tmp/pages_state_sp_encode.png")
    assert not page.errors
