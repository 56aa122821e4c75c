"""Compare's page of spans follows the caret while the person types (issue 22): the live box sends its caret
with its text (st.session_state["compare_text_caret"], as app_pages/kit/widgets.live_text's `take` leaves it),
and the run puts the page picker on the page holding the character just typed. A run without an edit
leaves the page where the visitor put it."""

from __future__ import annotations

import re

from conftest import app_test, rerun

K = "compare_"
# 12.6 K characters, 5,603 GPT-2 tokens: two pages of spans
TEXT = "".join(f"Line {i}: 3.14 + 2.71 = {i * 7}; naïve, café!\n" for i in range(300))


def shown(at) -> tuple[int, int]:
    cap = [c.value for c in at.caption if c.value.startswith("Showing characters")][0]
    return tuple(int(x.replace(",", "")) for x in re.search(r"([\d,]+)–([\d,]+)", cap).groups())


def typed(at, text: str, caret: int):
    """What the box does on a keystroke: the text and its caret into state, then a run."""
    return rerun(at, **{f"{K}text": text, f"{K}text_caret": caret})


def test_typing_at_the_end_shows_the_last_page():
    at = app_test(query={"tokenizers": "gpt2,deepseek_v3"})
    at = rerun(at, **{f"{K}text": TEXT})
    pages = at.number_input(key=f"{K}page").max
    assert pages > 1 and at.number_input(key=f"{K}page").value == 1
    text = TEXT + "Z"
    at = typed(at, text, len(text))
    assert at.number_input(key=f"{K}page").value == pages
    first, last = shown(at)
    assert last == len(text)  # the page that holds what was typed
    assert f"{K}text_caret" not in at.session_state  # taken by this run


def test_the_page_follows_the_caret_to_the_middle_and_stays_when_reading():
    at = app_test(query={"tokenizers": "gpt2"})
    at = rerun(at, **{f"{K}text": TEXT})
    pages = at.number_input(key=f"{K}page").max
    at = typed(at, TEXT + "Z", len(TEXT) + 1)
    assert at.number_input(key=f"{K}page").value == pages
    middle = len(TEXT) // 2
    text = TEXT[:middle] + "Q" + TEXT[middle:] + "Z"
    at = typed(at, text, middle + 1)
    first, last = shown(at)
    assert first <= middle + 1 <= last  # "Showing characters" counts from 1: the Q is character middle + 1
    # the visitor picks another page: it stays there on runs without an edit (a toggle)
    at.number_input(key=f"{K}page").set_value(1).run()
    assert at.number_input(key=f"{K}page").value == 1
    at = rerun(at, **{f"{K}ws": True})
    assert at.number_input(key=f"{K}page").value == 1
    assert shown(at)[0] == 1


def test_text_b_caret_moves_the_shared_page():
    at = app_test(query={"tokenizers": "gpt2"})
    at = rerun(at, **{f"{K}ab": True, f"{K}text": "short A", f"{K}text_b": TEXT})
    pages = at.number_input(key=f"{K}page").max
    assert pages > 1
    at = rerun(at, **{f"{K}text_b": TEXT + "Z", f"{K}text_b_caret": len(TEXT) + 1})
    assert at.number_input(key=f"{K}page").value == pages
