"""Every Quirks card's claim, and the vocabulary evidence (tokenizers.analysis.vocab_audit), as exact tests."""

import csv
import io
import json
import re
import unicodedata

import pytest

from tokenizers import BPETokenizer, get_tokenizer
from tokenizers.core.patterns import GPT4_PATTERN
from tokenizers.analysis.vocab_audit import (GPT2_GLITCH_TOKENS, audit, audit_tokenizer, number_tokens, pattern_chunks,
                                    reencode, unused_long_tokens, wordlike)
from ui.quirks import CARD_BY_KEY, CARDS, EGGS, ENGLISH_SENTENCE, FORMATS, INDENTED, KOREAN_SENTENCE, RECORDS


def ids(name: str, text: str) -> list[int]:
    return get_tokenizer(name).encode_ordinary(text)


def first_id_of_word(name: str, text: str, word: str) -> int:
    """The id of the token that holds the word's first letter."""
    at = text.lower().index(word.lower())
    byte_at = len(text[:at].encode("utf-8"))
    toks = get_tokenizer(name).tokenize(text, disallowed_special=())
    return next(t.id for t in toks if t.byte_span[0] <= byte_at < t.byte_span[1])


# -- the cards -------------------------------------------------------------------------------------
def test_cards_are_complete_and_distinct():
    assert len(CARDS) == 12 and len({c.key for c in CARDS}) == 12
    for c in CARDS:
        assert c.title and len(c.body) > 150 and c.presets
        assert all(p.a for p in c.presets)


def test_spelling_one_cl100k_token_many_letters():
    assert ids("cl100k_base", ".DefaultCellStyle") == [98518]
    spaced, reversed_ = (p.b for p in CARD_BY_KEY["spelling"].presets)
    assert spaced.replace(" ", "") == ".DefaultCellStyle" and reversed_ == ".DefaultCellStyle"[::-1]
    assert len(ids("cl100k_base", spaced)) == 17 and len(ids("cl100k_base", reversed_)) > 3


def test_arithmetic_chunks():
    a, b = CARD_BY_KEY["arithmetic"].presets[0].a, CARD_BY_KEY["arithmetic"].presets[0].b
    assert (a, b) == ("127 + 677 = 804", "1275 + 6773 = 8041")
    g = get_tokenizer("gpt2")
    assert [g.token_bytes(i) for i in ids("gpt2", a)] == [b"127", b" +", b" 6", b"77", b" =", b" 8", b"04"]
    c = get_tokenizer("cl100k_base")
    assert [c.token_bytes(i) for i in ids("cl100k_base", b)] == [b"127", b"5", b" +", b" ", b"677", b"3", b" =",
                                                                 b" ", b"804", b"1"]
    m = get_tokenizer("mistral_sp")
    digits = [m.piece_of(i) for i in ids("mistral_sp", "8041")]
    assert digits == ["\u2581", "8", "0", "4", "1"]  # split_digits, after the word-start piece


def test_four_egg_variants_give_four_different_first_ids():
    assert EGGS == ("Egg.", "I have an Egg.", "egg.", "EGG.")
    assert [first_id_of_word("gpt2", t, "egg") for t in EGGS] == [36, 14562, 33856, 7156]
    assert [first_id_of_word("cl100k_base", t, "egg") for t in EGGS] == [36, 42313, 29468, 9560]
    assert [first_id_of_word("o200k_base", t, "egg") for t in EGGS] == [109379, 52711, 72126, 21389]
    # and the claim about SentencePiece's dummy prefix: "Egg." and "I have an Egg." share " E"
    assert first_id_of_word("mistral_sp", "Egg.", "egg") == first_id_of_word("mistral_sp", "I have an Egg.", "egg")


def test_korean_costs_more_than_english():
    pair = CARD_BY_KEY["languages"].presets[0]
    assert (pair.a, pair.b) == (ENGLISH_SENTENCE, KOREAN_SENTENCE)
    assert (len(ids("gpt2", ENGLISH_SENTENCE)), len(ids("gpt2", KOREAN_SENTENCE))) == (16, 102)
    for name in ("cl100k_base", "o200k_base", "mistral_sp", "custom_bpe"):
        assert len(ids(name, KOREAN_SENTENCE)) > len(ids(name, ENGLISH_SENTENCE))
    assert CARD_BY_KEY["languages"].presets[1].a == "안녕하세요 👋 (hello in Korean!)"


def test_indentation_gpt2_spends_more_than_cl100k():
    assert CARD_BY_KEY["indentation"].presets[0].a == INDENTED
    assert (len(ids("gpt2", INDENTED)), len(ids("cl100k_base", INDENTED))) == (57, 33)
    four = "    hello world!!!"
    assert CARD_BY_KEY["indentation"].presets[1].a == four
    assert ids("gpt2", four) == [220, 220, 220, 23748, 995, 10185]
    assert ids("cl100k_base", four) == [262, 24748, 1917, 12340]


def test_endoftext_as_text_and_parsed():
    text = CARD_BY_KEY["special"].presets[0].a
    for name, eot in (("gpt2", 50256), ("cl100k_base", 100257), ("o200k_base", 199999), ("custom_bpe", 2048)):
        tok = get_tokenizer(name)
        assert eot not in tok.encode(text, disallowed_special=())
        assert tok.encode(text, allowed_special="all").count(eot) == 1
        with pytest.raises(ValueError):  # the safe default refuses the text
            tok.encode(text)


def test_injected_endofprompt():
    p = CARD_BY_KEY["special"].presets[1]
    cl = get_tokenizer("cl100k_base")
    assert cl.special_tokens["<|endofprompt|>"] == 100276
    assert 100276 in cl.encode(p.b, allowed_special="all") and 100276 not in cl.encode(p.b, disallowed_special=())
    assert cl.encode(p.a) == cl.encode(p.b, allowed_special="all")[:len(cl.encode(p.a))]


def test_trailing_space_is_its_own_token():
    p = CARD_BY_KEY["trailing"].presets[0]
    assert p.a == "Here is a tagline for an ice cream shop: " and p.b == p.a.rstrip()
    for name in ("gpt2", "cl100k_base"):
        assert ids(name, p.a)[-1] == 220 and ids(name, p.a)[:-1] == ids(name, p.b)


def test_solid_gold_magikarp_and_the_published_glitch_tokens():
    assert ids("gpt2", " SolidGoldMagikarp") == [43453]
    assert len(ids("cl100k_base", " SolidGoldMagikarp")) == 5
    for s in GPT2_GLITCH_TOKENS:
        assert len(ids("gpt2", s)) == 1, s


def test_formats_hold_the_same_records():
    assert json.loads(FORMATS["JSON"]) == RECORDS == json.loads(FORMATS["JSON (compact)"])
    rows = list(csv.DictReader(io.StringIO(FORMATS["CSV"])))
    assert [r["item"] for r in rows] == [r["item"] for r in RECORDS]
    for text in FORMATS.values():
        assert all(str(r["price"]) in text and r["item"] in text for r in RECORDS)
    yaml_tokens, json_tokens = len(ids("cl100k_base", FORMATS["YAML"])), len(ids("cl100k_base", FORMATS["JSON"]))
    assert yaml_tokens < json_tokens


def test_unicode_look_alikes_differ_in_tokens():
    presets = {p.label: p for p in CARD_BY_KEY["unicode"].presets}
    for p in presets.values():
        assert p.a != p.b and ids("cl100k_base", p.a) != ids("cl100k_base", p.b), p.label
    nfc = presets["Precomposed (NFC) vs combining accents (NFD)"]
    assert unicodedata.normalize("NFC", nfc.b) == nfc.a and len(nfc.b) > len(nfc.a)
    assert unicodedata.normalize("NFKC", presets["Fullwidth letters"].b) == presets["Fullwidth letters"].a
    assert ids("cl100k_base", "password") == [3918] and len(ids("cl100k_base", "pass\u200bword")) == 3


# -- the audit -------------------------------------------------------------------------------------
def test_cl100k_and_o200k_have_every_string_of_one_to_three_digits():
    every = {str(n).zfill(k).encode() for k in (1, 2, 3) for n in range(10 ** k)}
    assert len(every) == 1110
    for name in ("cl100k_base", "o200k_base"):
        tok = get_tokenizer(name)
        digits = audit(name)["all_digit"]
        assert len(digits) == 1110
        assert {tok.token_bytes(i) for i in digits} == every


def test_digit_tokens_are_the_ordinary_tokens_that_spell_only_ascii_digits():
    """vocab_audit.digit_tokens: what the Numbers tab uses without the whole audit, and the audit's
    all_digit list. Not a Unicode digit (Arabic-Indic ٣ is str.isdigit), not a special token."""
    from tokenizers import available_tokenizers
    from tokenizers.analysis.vocab_audit import digit_tokens

    for name in available_tokenizers():
        tok = get_tokenizer(name)
        want = [i for i, b in tok.iter_vocab() if re.fullmatch(rb"[0-9]+", b) and not tok.is_special(i)]
        assert digit_tokens(tok) == want, name
    assert len(digit_tokens(get_tokenizer("o200k_base"))) == 1110


def test_cl100k_has_no_unreachable_token():
    r = audit("cl100k_base")
    assert r["unreachable"] == [] and r["not_checked"] == []
    assert r["ordinary"] == 100256 and r["special"] == 5 and len(r["partial_utf8"]) == 773


def test_o200k_unreachable_tokens_span_a_pattern_cut():
    r = audit("o200k_base")
    assert r["unreachable"] == [3413, 3914, 24091, 48235, 63100, 65447, 99494, 125141, 147008, 175653, 182292,
                                193819]
    tok = get_tokenizer("o200k_base")
    assert tok.token_bytes(3914) == b"\n//" and reencode(tok, 3914) == [198, 393]
    assert all(len(pattern_chunks(tok, i)) == 2 for i in r["unreachable"])


def test_gpt2_audit_and_the_128_partial_single_bytes():
    r = audit("gpt2")
    assert r["unreachable"] == [] and len(r["all_digit"]) == 994 and len(r["partial_utf8"]) == 344
    g = get_tokenizer("gpt2")
    high_bytes = {g.encode_single_token(bytes([b])) for b in range(0x80, 0x100)}
    assert high_bytes <= set(r["partial_utf8"])


def test_sentencepiece_audit_checks_word_start_pieces_only():
    r = audit("mistral_sp")
    m = get_tokenizer("mistral_sp")
    assert r["rule"] == "sentencepiece" and len(r["unreachable"]) == 125 and len(r["partial_utf8"]) == 128
    assert all(m.is_byte_fallback(i) for i in r["unreachable"])  # <0x41> and the like: 'A' has its own piece
    assert m.is_byte_fallback(m.encode_single_token(b"\n"))  # newline has no piece: its fallback is used
    assert m.encode_single_token(b"\n") not in r["unreachable"]
    assert not any(m.piece_of(i).startswith("\u2581") for i in r["not_checked"] if m.piece_of(i) != "\u2581")
    assert m.piece_of(6312) == "\u2581hell" and reencode(m, 6312) == [6312]  # "hell" with the dummy prefix
    assert m.piece_of(28709) == "o" and reencode(m, 28709) is None and 28709 in r["not_checked"]


def test_audit_returns_fresh_lists():
    a = audit("gpt2")
    a["partial_utf8"].clear()
    assert len(audit("gpt2")["partial_utf8"]) == 344


def test_audit_finds_a_token_that_spans_a_split():
    ranks = {bytes([b]): b for b in range(256)}
    ranks[b"hi"], ranks[b"a!"] = 256, 257  # the GPT-4 pattern always cuts "a!" into "a" and "!"
    tok = BPETokenizer.from_ranks(ranks, pattern=GPT4_PATTERN, name="toy")
    r = audit_tokenizer(tok)
    assert r["unreachable"] == [257] and len(r["partial_utf8"]) == 128 and r["all_digit"] == list(range(48, 58))
    assert pattern_chunks(tok, 257) == ["a", "!"] and reencode(tok, 257) == [97, 33]


def test_number_tokens():
    cl = number_tokens(get_tokenizer("cl100k_base"))
    assert len(cl) == 10_000 and cl[1275] == [6804, 20]
    assert sum(len(x) == 1 for x in cl) == 1000 and sum(len(x) == 2 for x in cl) == 9000
    mistral = number_tokens(get_tokenizer("mistral_sp"))
    assert all(len(x) == len(str(n)) + 1 for n, x in enumerate(mistral))  # ▁ then one token per digit


def test_unused_long_tokens():
    g = get_tokenizer("gpt2")
    top = unused_long_tokens(g, [], 5)
    assert g.token_bytes(top[0]) == b"rawdownloadcloneembedreportprint"
    assert top[0] not in unused_long_tokens(g, ["see:\nrawdownloadcloneembedreportprint"], 5)
    assert wordlike(" SolidGoldMagikarp") and not wordlike("----------") and not wordlike("ÃÂÃÂÃÂ")
