"""Many visitors on one server (issue 16), in real Chromium: ten browser contexts (ten people, each
with their own cookies and websocket session) at once, each training its own BPE in the Lab on a
corpus made of a word only it knows, then typing its own text on Compare with that model beside
GPT-2. Every page must show its own text and its own model's tokens, and nothing of the nine others:
a session or a cache key that leaked between visitors would show another's word, text or count.

Playwright's sync API drives one thing at a time, so the ten pages are driven interleaved, phase by
phase: each phase starts the action on every page, then waits for each page to finish it, so the
server has all ten sessions' runs in flight together.
"""

import random
import re
import urllib.parse

from tests.e2e.conftest import describe_pages, screenshot, wait_for_app, watched_page
from tokenizers import get_tokenizer
from tokenizers.bpe.model import train_bpe
from tokenizers.core.patterns import GPT4_PATTERN

N = 10
VOCAB = 276            # the Lab's default size: 20 merges, of which the word takes 6
TIMEOUT = 90_000
CONSONANTS = "bcdfghjklmnpqrstvwxz"


def words(n: int) -> list[str]:
    """n seven-letter words, no two alike and none sharing a first letter (so no model learns
    another's word from a shared prefix)."""
    r = random.Random(16)
    firsts = r.sample(CONSONANTS, n)
    return [f + "".join(r.choice(CONSONANTS) for _ in range(6)) for f in firsts]


def corpus(word: str) -> str:
    return (word + " ") * 40 + "the cat sat on the mat"


def own_text(k: int, word: str) -> str:
    return f"{word} is visitor {k}, typing"


def shared_text(ws: list[str]) -> str:
    """One text every visitor types: the results store shares results between visitors who type the
    same text with the same tokenizer, so here each must still get its own model's cut."""
    return "all of us: " + " ".join(ws)


def counts(page) -> dict[str, int]:
    return page.evaluate("""() => Object.fromEntries([...document.querySelectorAll('.tl-head')].map(
        h => [h.dataset.tokenizer, parseInt(h.querySelector('.tl-count').textContent.replace(/,/g, ''))]))""")


def wait_counts(page, exp: dict[str, int]) -> None:
    """Wait until the page shows exactly these tokenizers with these counts; if it never does, fail
    with what it shows."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        page.wait_for_function("""exp => { const h = [...document.querySelectorAll('.tl-head')];
            return h.length === Object.keys(exp).length && h.every(e => exp[e.dataset.tokenizer] ===
                parseInt(e.querySelector('.tl-count').textContent.replace(/,/g, ''))); }""", arg=exp,
                               timeout=TIMEOUT)
    except PlaywrightTimeout:
        assert counts(page) == exp


def lab_tokens(page) -> list[str]:
    return page.evaluate("""() => [...document.querySelectorAll(".tl-spans[data-owner='compare:lab_bpe:a'] .tl-tok")]
        .map(t => t.textContent)""")


def test_ten_visitors_each_see_only_their_own_text_and_model(browser, app_url):
    ws = words(N)
    trained = [train_bpe(corpus(w), VOCAB, GPT4_PATTERN, ["<|endoftext|>"]) for w in ws]
    models = [m for m, _ in trained]
    texts = [own_text(k, w) for k, w in enumerate(ws)]
    common = shared_text(ws)
    gpt2 = get_tokenizer("gpt2")

    def count(tok, t: str) -> int:
        return len(tok.tokenize(t, disallowed_special=()))

    expected = [{"lab_bpe": count(m, t), "gpt2": count(gpt2, t)} for m, t in zip(models, texts)]
    expected_common = [{"lab_bpe": count(m, common), "gpt2": count(gpt2, common)} for m in models]
    # the test can tell the models apart: each one cuts the others' texts differently from its own
    for k, t in enumerate(texts):
        assert [count(m, t) == expected[k]["lab_bpe"] for m in models].count(True) == 1
    assert all(count(models[k], " " + w) == 1 for k, w in enumerate(ws))

    contexts, pages, errors = [], [], []
    try:
        for k in range(N):
            ctx, pg = watched_page(browser, 1280, 1400)
            contexts.append(ctx), pages.append(pg), errors.append(pg.errors)

        # 1. every visitor opens the Lab and pastes its own corpus (vocabulary size left at 276)
        for pg in pages:
            pg.goto(f"{app_url}/bpe-lab")
        for k, pg in enumerate(pages):
            wait_for_app(pg, TIMEOUT)
            pg.get_by_label("Text to train on").fill(corpus(ws[k]))
            pg.get_by_label("Text to train on").press("Control+Enter")  # commit the text area's value
        # 2. all press Train, then each waits for its model
        for pg in pages:
            pg.get_by_role("button", name="Train").click()
        for k, pg in enumerate(pages):
            pg.get_by_text(f"Learned {trained[k][1].merges} merges").first.wait_for(timeout=TIMEOUT)
        # 3. to Compare through the app's own navigation (the same session), own text typed in the live box
        for pg in pages:
            pg.locator("[data-testid='stSidebarNav'] a", has_text="Compare").click()
        for k, pg in enumerate(pages):
            box = pg.get_by_label("Text", exact=True)
            box.wait_for(timeout=TIMEOUT)
            box.fill(texts[k])
        # 4. the Lab's model beside GPT-2, picked in the tokenizer picker
        for k, pg in enumerate(pages):
            pg.wait_for_function("t => new URLSearchParams(location.search).get('text') === t", arg=texts[k],
                                 timeout=TIMEOUT)
            picker = pg.locator("[data-testid='stMultiSelect']")
            picker.get_by_role("button", name="Clear all").click()
            box = picker.get_by_role("combobox")
            for option in ("Lab BPE", "GPT-2"):
                box.click()
                box.fill(option)
                pg.get_by_role("option", name=re.compile(re.escape(option))).first.wait_for(timeout=TIMEOUT)
                box.press("Enter")
            box.press("Escape")
        # 5. all type the same text: each page still shows its own model's cut (its word as one token)
        for pg in pages:
            pg.get_by_label("Text", exact=True).fill(common, timeout=TIMEOUT)
        for k, pg in enumerate(pages):
            wait_counts(pg, expected_common[k])
            whole = [w for w in ws if w in {t.strip() for t in lab_tokens(pg)}]
            assert whole == [ws[k]], f"visitor {k}'s model keeps {whole} whole, not only its own word"
        # 6. and each its own text again
        for k, pg in enumerate(pages):
            pg.get_by_label("Text", exact=True).fill(texts[k], timeout=TIMEOUT)
        # 7. each page: its own text, its own model's tokens and counts, nobody else's, no error
        for k, pg in enumerate(pages):
            wait_counts(pg, expected[k])
            assert counts(pg) == expected[k]
            assert pg.get_by_label("Text", exact=True).input_value() == texts[k]
            assert urllib.parse.parse_qs(urllib.parse.urlparse(pg.url).query)["text"] == [texts[k]]
            toks = [t.strip() for t in lab_tokens(pg)]
            assert ws[k] in toks, toks  # its own word is one token: only its own model learned it
            body = pg.locator("[data-testid='stMain']").inner_text()
            assert ws[k] in body and f"visitor {k}," in body
            others = [w for j, w in enumerate(ws) if j != k and w in body]
            assert not others, f"visitor {k} sees another visitor's word: {others}"
            assert pg.locator("[data-testid='stException']").count() == 0
            assert not errors[k], errors[k]
        screenshot(pages[0], "many-visitors-0")
        screenshot(pages[-1], f"many-visitors-{N - 1}")
    except Exception:
        print(describe_pages(pages))  # shown with the failure: the pages are closed below
        raise
    finally:
        for ctx in contexts:
            ctx.close()
