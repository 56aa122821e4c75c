"""Issue 24, items 1 and 6: a normalizer may not multiply text (growth bounded while normalizing, and
over the whole text), and every uploaded pattern a tokenizer runs on one text shares one time budget
(tokenizers/core/patterns.py: PatternBudget). The files are tests/hostile_patterns.py's; the times and
memory of the same attacks: benchmarks/pattern_budget.py."""

from __future__ import annotations

import itertools
import time

import pytest

from hostile_patterns import (backtracking_replace_file, multiplying_file, replace, split_sequence_file,
                              tokenizer_json)
from tokenizers import PatternError, get_tokenizer, load_user_file
from tokenizers.core import patterns
from tokenizers.core.patterns import PatternBudget, pattern_budget
from tokenizers.pipeline import normalizers as nz
from tokenizers.pipeline.normalizers import NormalizerGrowthError, growth_limit
from tokenizers.registry import REGISTRY
from tokenizers.user_files import UserFileError


def fake_clock(step: float):
    """A clock that advances `step` seconds each time it is read: every pattern call (read before and
    after) then costs exactly `step` of the budget, however fast the machine."""
    ticks = itertools.count()
    return lambda: next(ticks) * step


# -- item 1: growth ---------------------------------------------------------------------------------
def test_the_issue_file_that_multiplies_x_is_refused_at_load():
    data = multiplying_file(1000, 2)  # the 2.3 KB file of the issue: each x would become a million
    assert len(data) < 2500
    with pytest.raises(UserFileError, match="puts 1,000 characters in place of a match as short as 1 character"):
        load_user_file("x1000.json", data)
    with pytest.raises(UserFileError, match="puts 1,000 characters in place of a match as short as 2 characters"):
        load_user_file("x1000.json", multiplying_file(1000, 2, kind="Regex").replace(b'"x"', b'"x(?:y|yy)"'))
    with pytest.raises(UserFileError, match="as short as 1 character"):  # a Regex: Python's parser measures it
        load_user_file("x1000.json", multiplying_file(1000, 2, kind="Regex"))
    # a pattern in the `regex` module's own syntax cannot be measured at load: the growth check holds it
    tok = load_user_file("p1000.json", tokenizer_json(normalizer=replace(r"\p{Ll}(?<=x)", "x" * 1000, "Regex")))
    with pytest.raises(NormalizerGrowthError):
        tok.encode("x")


@pytest.mark.parametrize("n", [1, 40, 80, 400])
def test_the_issue_normalizer_is_refused_while_typing_x(n):
    """The same two Replace steps, built past the load check: typing x's is refused at the first step that
    passes 4 * n + 256 characters, before its text is built."""
    steps = nz.Sequence((nz.Replace("x", "x" * 1000), nz.Replace("x", "x" * 1000)))
    for form in (lambda t: steps.normalize(t), lambda t: steps.normalize_aligned(t, nz.identity_offs(t))):
        with pytest.raises(NormalizerGrowthError) as e:
            form("x" * n)
        assert f"longer than {growth_limit(n):,} characters" in str(e.value)
        assert "Replace('x' → 1,000 characters)" in str(e.value)


@pytest.mark.parametrize("n", [1, 40, 80, 400])
def test_an_uploaded_normalizer_that_multiplies_is_refused_while_encoding(n):
    """x -> 200 x's, twice, passes the load check (each step alone stays under 4 * 1 + 256 for one x); the
    growth is caught while normalizing, in encode and in tokenize, with a message that teaches."""
    tok = load_user_file("x200.json", multiplying_file(200, 2))
    assert tok.encode("ab b") == [2, 3, 4, 3]
    for call in (tok.encode, tok.tokenize, tok.normalize):
        with pytest.raises(NormalizerGrowthError, match="grows this text too much"):
            call("x" * n)


def test_growth_is_bounded_over_the_whole_text_not_per_stretch():
    """A Prepend of 256 characters passes for one stretch (257 <= 4 * 1 + 256), but a text cut into many
    stretches by an added token would get it once per stretch: the allowance is the whole text's
    (4 * 3 + 256 = 268 for "b|b", which needs 257 + 257)."""
    bar = [{"id": 5, "content": "|", "special": False, "normalized": False}]
    tok = load_user_file("prepend.json", tokenizer_json(normalizer={"type": "Prepend", "prepend": "a" * 256},
                                                         added_tokens=bar))
    assert tok.encode("b") == [2] * 256 + [3]
    for text in ("b|b", "b|" * 1000):
        with pytest.raises(NormalizerGrowthError, match=r"Prepend"):
            tok.tokenize(text)
    with pytest.raises(UserFileError, match="Prepend: it adds 257 characters"):
        load_user_file("prepend.json", tokenizer_json(normalizer={"type": "Prepend", "prepend": "a" * 257}))
    # a real Prepend (SentencePiece's one ▁) never runs out, however many stretches: each added token is a
    # character of the text that the normalizer does not see
    tok = load_user_file("prepend.json", tokenizer_json(normalizer={"type": "Prepend", "prepend": "a"},
                                                         added_tokens=bar))
    assert tok.encode("|b" * 5000) == [5, 2, 3] * 5000


def test_real_normalizers_stay_within_the_bound():
    """The bound's reasoning as exact vectors: NFKC grows U+FDFA to 18 characters, the most any code point
    grows; 18 of them alone fit (324 <= 4 * 18 + 256), 19 do not; in ordinary text they always fit."""
    nfkc = nz.UnicodeForm("NFKC")
    assert len(nfkc.normalize("\ufdfa")) == 18
    assert len(nfkc.normalize("\ufdfa" * 18)) == 324
    with pytest.raises(NormalizerGrowthError, match="NFKC"):
        nfkc.normalize("\ufdfa" * 19)
    assert len(nfkc.normalize("\ufdfa said the scribe, " * 1000)) == 36_000
    assert nz.BertNormalizer().normalize("中文" * 1000) == " 中  文 " * 1000  # 3 times as long
    assert nz.Lowercase().normalize("\u0130" * 1000) == "i\u0307" * 1000  # twice


TRICKY = ["Hello world, hello tokens!", "ｆｕｌｌ ﬁ ﷺ ① ｶﾀｶﾅ Å e\u0301 \u1100\u1161\u11a8", "안녕하세요 👨‍👩‍👧 中文",
          "<|endoftext|> <script>x</script>", "\ufdfa" * 18, "   ", ""]


@pytest.mark.parametrize("name", list(REGISTRY))
def test_every_registry_tokenizer_still_tokenizes(name):
    tok = get_tokenizer(name)
    for text in TRICKY:
        toks = tok.tokenize(text, disallowed_special=())
        assert [t.id for t in toks] == tok.encode(text, disallowed_special=())
        assert (list(toks.byte_ends)[-1] if len(toks) else 0) == len(text.encode())


# -- item 6: one time budget per text ---------------------------------------------------------------
@pytest.fixture
def quick_budget(monkeypatch):
    """Uploaded patterns get 0.2 s per text instead of 3 s, so the tests are quick (the default stays 3 s)."""
    assert patterns.UNTRUSTED_TIMEOUT == 3.0
    monkeypatch.setattr(patterns, "UNTRUSTED_TIMEOUT", 0.2)


def test_a_backtracking_replace_pattern_is_stopped(quick_budget):
    """(a|aa)+$ on 34 a's and a b takes seconds (49: hours), and before it ran with no limit at all."""
    tok = load_user_file("redos.json", backtracking_replace_file())
    assert tok.encode("ab") == [2, 3]
    for call in (tok.encode, tok.tokenize, tok.normalize):
        with pytest.raises(PatternError, match=r"The normalizer's Replace pattern ran for more than 0.2 s"):
            call("a" * 34 + "b")


def test_a_sequence_of_splits_shares_one_budget():
    """40 chunks, each call costing 0.3 s of a 1 s budget (a clock that ticks 0.3 s per reading): four
    calls use it up and the fifth is refused before it starts, instead of the second Split running on
    each of the 79 chunks (79 times the budget's worth, when each call had its own limit)."""
    tok = load_user_file("splits.json", split_sequence_file([" ", "a+"]))
    text = " ".join(["aab"] * 40)
    assert tok.encode(text) == [2, 2, 3, 4] * 39 + [2, 2, 3]
    with pattern_budget(1.0, clock=fake_clock(0.3)) as budget:
        with pytest.raises(PatternError, match="ran for more than 1 s"):
            tok.encode(text)
    assert budget.calls == 4 and budget.left == pytest.approx(-0.2)


def budgets_used(fn, *args, **kwargs) -> list[int]:
    """The budget of each pattern call `fn` makes, by id (the budgets are kept alive meanwhile, so that
    no two share an id)."""
    seen = []
    real = PatternBudget.run

    def run(self, call, *a, role):
        seen.append(self)
        return real(self, call, *a, role=role)

    PatternBudget.run = run
    try:
        fn(*args, **kwargs)
    finally:
        PatternBudget.run = real
    return [id(b) for b in seen]


def test_the_budget_is_per_text_across_encode_and_spans():
    """tokenize encodes, then aligns the spans, running the patterns twice: one budget for both; a
    batch gets one per text."""
    tok = load_user_file("splits.json", split_sequence_file([" ", "a+"]))
    tok.encode("aab aab")  # the patterns compiled (compiling checks them on the empty string)
    seen = budgets_used(tok.tokenize, "aab aab")
    assert len(seen) > 4 and len(set(seen)) == 1
    seen = budgets_used(tok.encode_batch, ["aab aab", "ab", "b"], num_threads=1)
    assert len(seen) > 3 and len(set(seen)) == 3


def test_a_pasted_tiktoken_split_regex_shares_one_budget_across_special_tokens():
    """A .tiktoken upload's pasted regex runs once per stretch between special tokens: one budget for all."""
    from upload_samples import GOOD

    filename, make = GOOD["tiktoken"]
    tok = load_user_file(filename, make(), pattern=r"(a|aa)+$|\s+|.", specials='{"<|end|>": 400}')
    text = "<|end|>".join(["aab"] * 20)
    with pattern_budget(1.0, clock=fake_clock(0.3)) as budget:
        with pytest.raises(PatternError, match="The split pattern ran for more than 1 s"):
            tok.encode(text, allowed_special="all")
    assert budget.calls == 4
    seen = budgets_used(tok.tokenize, text, allowed_special="all")
    assert len(seen) >= 20 and len(set(seen)) == 1


def test_slow_chunks_stop_within_one_budget(quick_budget):
    """The same on the real clock (CPU time): each chunk's (a|aa)+$ takes about a third of the budget
    (measured here first, so the machine's speed does not matter), 30 chunks, one error after a few."""
    split = load_user_file("slow.json", split_sequence_file([" ", r"(a|aa)+$|a|b"])).pre_tokenizer.steps[1]
    n = 16
    while True:  # the shortest chunk that takes at least a third of the budget
        t0 = time.thread_time()
        with pattern_budget(60.0):
            split.split("a" * n + "b")
        if time.thread_time() - t0 > patterns.UNTRUSTED_TIMEOUT / 3 or n > 40:
            break
        n += 1
    tok = load_user_file("slow.json", split_sequence_file([" ", r"(a|aa)+$|a|b"]))
    with pattern_budget() as budget:
        with pytest.raises(PatternError, match="ran for more than 0.2 s"):
            tok.encode(" ".join(["a" * n + "b"] * 30))
    assert budget.calls < 10 and budget.left <= 0


def test_trusted_patterns_run_without_a_budget():
    """The vendors' own files: their patterns are trusted, so no budget applies (and none is charged)."""
    tok = get_tokenizer("deepseek_v3")
    with pattern_budget(0.0) as budget:
        assert tok.encode("hello world 123") == get_tokenizer("deepseek_v3").encode("hello world 123")
    assert budget.calls == 0


# -- the page: Compare with an uploaded hostile tokenizer.json ---------------------------------------
K, U = "compare_", "compare_upload_"


def compare_with_upload(filename: str, data: bytes):
    from conftest import app_test, rerun

    at = app_test(query={"text": "ab", "tokenizers": "gpt2"}, timeout=180)
    assert not at.exception, at.exception
    rerun(at, **{f"{U}panel": True})  # the panel draws its widgets only while open
    at.file_uploader(key=f"{U}file").set_value((filename, data, "application/json"))
    rerun(at)
    at.button(key=f"{U}load").click()
    rerun(at)
    assert filename in at.session_state[f"{K}tokenizers"], [e.value for e in at.error]
    return at


@pytest.mark.parametrize("filename,data,text,message", [
    ("x200.json", multiplying_file(200, 2), "x" * 40, "could not tokenize this text: The tokenizer's normalizer grows "
                                                      "this text too much: its step Replace('x' → 200 characters)"),
    ("redos.json", backtracking_replace_file(), "a" * 34 + "b", "could not tokenize this text: The normalizer's Replace "
                                                                "pattern ran for more than 0.2 s on this text"),
])
def test_compare_shows_the_refusal_and_keeps_the_text(quick_budget, filename, data, text, message):
    from conftest import rerun

    at = compare_with_upload(filename, data)
    rerun(at, **{f"{K}text": text})
    shown = "\n".join(e.value for e in at.error)
    assert message in shown.replace("\\", ""), shown
    assert at.session_state[f"{K}text"] == text  # the text stays
    bodies = " ".join(h.proto.body for h in at.get("html"))
    assert 'data-tokenizer="gpt2"' in bodies  # the other tokenizer is still drawn
    rerun(at, **{f"{K}text": "ab ba"})  # and the uploaded one works again on a harmless text
    assert not at.error, [e.value for e in at.error]


def test_a_conversation_is_one_text():
    """Chat mode encodes the rendered conversation and each message's content: one budget for all of it."""
    from tokenizers.chat import FORMATS, Message, tokenize_chat

    tok = load_user_file("splits.json", split_sequence_file([" ", "a+"]))
    conv = [Message("user", "aab aab"), Message("assistant", "ab ba"), Message("user", "b a")]
    seen = budgets_used(tokenize_chat, tok, FORMATS["claude_legacy"], conv)
    assert len(seen) > 6 and len(set(seen)) == 1
