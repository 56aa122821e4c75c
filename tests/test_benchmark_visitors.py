"""benchmarks/visitors.py's typing visitor: when it presses keys, and when its live box sends (the
client's send rule, as ui/web/live_text.js has it today and as a box that tokenizes in the browser
would have it). Exact vectors, times in seconds."""

import random
import sys
from pathlib import Path

import pytest
from conftest import run_on

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

from visitors import PAUSE, KEYSTROKE, key_times, send_times  # noqa: E402


def close(got, want):
    assert len(got) == len(want), got
    for (t, n), (wt, wn) in zip(got, want):
        assert n == wn and t == pytest.approx(wt), got


@pytest.mark.parametrize("keys, want", [
    ([], []),
    ([0.0], [(0.0, 1)]),
    # slow typing (keys 200 ms apart, over the 150 ms debounce): every key goes at once
    ([0.0, 0.2, 0.4], [(0.0, 1), (0.2, 2), (0.4, 3)]),
    # a quick burst: its first key at once, the rest together 150 ms after the last of them
    ([1.0, 1.1, 1.2], [(1.0, 1), (1.35, 3)]),
    # the pending send goes before a key that comes after it, and that key is quiet again
    ([0.0, 0.1, 0.3], [(0.0, 1), (0.25, 2), (0.3, 3)]),
])
def test_keystroke_rule_is_live_text_js(keys, want):
    close(send_times(keys, KEYSTROKE, 150), want)


@pytest.mark.parametrize("keys, want", [
    ([], []),
    ([0.0], [(0.5, 1)]),
    # one send a pause: the two bursts cost two reruns, not five
    ([0.0, 0.2, 0.4, 2.0, 2.1], [(0.9, 3), (2.6, 5)]),
    # keys further apart than the debounce are pauses of their own
    ([0.0, 0.6], [(0.5, 1), (1.1, 2)]),
])
def test_pause_rule_sends_once_a_pause(keys, want):
    close(send_times(keys, PAUSE, 500), want)


def test_a_burst_of_one_key_is_the_light_visitors_edit():
    """--burst-keys 1 keeps issue 16's light visitor: one send every --think s (± 50 %), either rule."""
    keys = key_times(random.Random(7), 10, 1, 200, 3.0)
    assert len(keys) == 10
    gaps = [b - a for a, b in zip([0.0] + keys, keys)]
    assert all(1.5 <= g <= 4.5 for g in gaps)
    assert send_times(keys, KEYSTROKE, 150) == [(t, i + 1) for i, t in enumerate(keys)]
    assert [n for _, n in send_times(keys, PAUSE, 500)] == list(range(1, 11))


def test_key_times_bursts_and_pauses():
    keys = key_times(random.Random(1), 3, 5, 200, 3.0)
    assert len(keys) == 15 and keys == sorted(keys)
    for b in range(3):
        burst = keys[5 * b:5 * b + 5]
        assert all(0.1 <= y - x <= 0.3 for x, y in zip(burst, burst[1:]))
        before = keys[5 * b - 1] if b else 0.0
        assert 1.5 <= burst[0] - before <= 4.5


def test_unknown_rule_is_refused():
    with pytest.raises(ValueError, match="keystroke"):
        send_times([0.0], "every", 150)


@pytest.mark.slow
def test_the_visitor_reports_the_columns_a_browser_draws_and_keeps_its_message_cache():
    """st_client.Visitor sends, with each text, the report live_text.js sends (the heads of the columns that
    have browser assets), so the server sends those columns no spans; without WebAssembly it reports none
    and gets the spans. Like the browser it names the cached messages it holds, and an unchanged compact
    column comes back as a reference."""
    import asyncio

    from st_client import Visitor
    from visitors import Server, distinct_text

    # every registry tokenizer has a browser path now: DeepSeek V3 is kept on the server by name, as a
    # server on a slow network may keep its largest ones
    server = Server(Path(__file__).resolve().parent.parent, env={"TOKEN_LENS_SERVER_ONLY": "deepseek_v3"})

    async def visit(wasm: bool):
        text = distinct_text(3, 1000)
        async with Visitor(server.url, query={"text": text, "tokenizers": "gpt2,cl100k_base,deepseek_v3"},
                           wasm=wasm) as v:
            heads = dict(v.in_browser)
            first = await v.type_text(text + " a")
            second = await v.type_text(text + " ab")
            return heads, first, second

    try:
        # on a loop of its own thread: in the whole suite, the browser tests' Playwright keeps one running here
        loop = asyncio.new_event_loop()
        heads, first, second = run_on(loop, visit(True))
        heads_off, full, _ = run_on(loop, visit(False))
        loop.close()
    finally:
        server.stop()
    assert heads == {"gpt2": "compare_text", "cl100k_base": "compare_text"} and heads_off == {}
    spans = "token_lens.token_spans"
    # the two compact columns (each its script, ~38 KB, and no segments) and DeepSeek's full spans, against
    # three full ones: ~20 KB of spans data each for 1 KB of text
    assert full.by_kind[spans] > first.by_kind[spans] + 30_000
    assert second.refs >= 2 and second.by_kind[spans] < first.by_kind[spans]


@pytest.mark.slow
def test_a_pause_goes_to_the_counts_sink_as_the_browser_sends_it():
    """st_client.Visitor sends a pause's text as live_text.js does: to the counts' text sink once the server
    made it light (every column drawn by the browser, a quiet text), a run of the counts alone, whose link
    follows the text; the first send, before the report, and a text the page must say something about (a
    special-token string) run the page (the latter through the sink: the server runs the page itself)."""
    import asyncio

    from st_client import Visitor
    from visitors import Server, distinct_text

    server = Server(Path(__file__).resolve().parent.parent)

    async def visit():
        text = distinct_text(5, 1000)
        async with Visitor(server.url, query={"text": text, "tokenizers": "gpt2,cl100k_base"}) as v:
            first = await v.type_text(text + " a")       # the box's own send: the page
            second = await v.type_text(text + " ab")     # light now: the sink, the counts alone
            box = await v.type_text(text + " abc", pause=False)  # a send that is not a pause's: the page
            special = await v.type_text(text + " <|endoftext|>")  # not quiet: the sink, then the page
            return first, second, box, special

    try:
        loop = asyncio.new_event_loop()
        first, second, box, special = run_on(loop, visit())
        loop.close()
    finally:
        server.stop()
    assert first.messages > 40 and box.messages > 40
    assert second.messages < 25 and second.status == "FINISHED_FRAGMENT_RUN_SUCCESSFULLY"
    assert "+ab&" in second.query_string + "&" and "token_lens.token_spans" not in second.by_kind
    assert special.reruns == 1 and special.messages > 40 and special.status == "FINISHED_SUCCESSFULLY"
    assert any("endoftext" in m for m in special.messages_shown)
