"""Evidence read from a vocabulary itself, through the public Tokenizer API only: tokens that no
text encodes to, tokens that are not whole characters, all-digit tokens, how numbers split, and
long tokens that a corpus never uses (glitch-token candidates).

    >>> from tokenizers.analysis.vocab_audit import audit
    >>> r = audit("cl100k_base")
    >>> len(r["unreachable"]), len(r["partial_utf8"]), len(r["all_digit"])
    (0, 773, 1110)

The rules, for every ordinary (non-special) token t:

- partial_utf8: decode_bytes([t]) is not valid UTF-8 on its own: a fragment of a character, such as
  the 128 single bytes 0x80-0xFF of a byte-level vocabulary. A model can still emit it, but only
  next to the other fragments of the character.
- unreachable: the bytes are valid UTF-8, yet encode_ordinary(decode_bytes([t])) != [t]: encoding
  the token's own text gives other tokens, so ordinary encoding never produces t (it can still be
  decoded, and a model can still emit it).
  SentencePiece with a dummy prefix adds "▁" (a space) before every text, so the rule is applied as
  the piece would occur in running text: a word-initial piece ("▁hello") is checked by encoding its
  text without the leading space ("hello"), a byte-fallback piece by encoding its byte, and the
  dummy-prefix piece (which covers no input) is ignored in the result. Pieces inside a word ("ing")
  are only ever produced after other text, so they are listed as `not_checked` instead.
- all_digit: the token's bytes are one or more ASCII digits 0-9.

`token_kind(bytes)` sorts any token into one of `KINDS` by what it spells (its script, or digits,
whitespace, code punctuation, or bytes that are not UTF-8 alone); the vocabulary diff summarises by it.

A GPT-2-era vocabulary was learned before the models were trained, on different text; tokens the
model then hardly saw keep barely-trained embeddings ("glitch tokens"). `GPT2_GLITCH_TOKENS` lists
published examples; `unused_long_tokens` finds long tokens a given corpus never uses.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable

import regex

from tokenizers.core.tokenizer import Tokenizer

WORD = "\u2581"  # SentencePiece's word marker ▁

# Published GPT-2/GPT-3 glitch tokens (each one GPT-2 token; tests check that), from:
GLITCH_SOURCES = (
    "Jessica Rumbelow and Matthew Watkins, “SolidGoldMagikarp (plus, prompt generation)”, LessWrong / "
    "AI Alignment Forum, February 2023: tokens near the centroid of GPT-2/GPT-3's embedding space that "
    "the models could not repeat back.",
    "Matthew Watkins and Jessica Rumbelow, “SolidGoldMagikarp III: Glitch token archaeology”, LessWrong, "
    "14 February 2023: where each string came from (r/counting usernames, game logs, e-commerce code).",
    "Sander Land and Max Bartolo, “Fishing for Magikarp: Automatically Detecting Under-trained Tokens in "
    "Large Language Models”, arXiv:2405.05417, 2024 (EMNLP 2024): finds under-trained tokens in many "
    "models from their embedding weights, and discusses unreachable tokens.",
)
GPT2_GLITCH_TOKENS = (
    " SolidGoldMagikarp", "GoldMagikarp", " TheNitromeFan", " TheNitrome", "Nitrome", " RandomRedditorWithNo",
    " davidjl", " petertodd", " gmaxwell", "StreamerBot", "TPPStreamerBot", " guiActiveUnfocused",
    " externalToEVAOnly", "rawdownloadcloneembedreportprint", "rawdownload", "cloneembedreportprint",
    "embedreportprint", "reportprint", "BuyableInstoreAndOnline", "InstoreAndOnline", "?????-?????-", "龍喚士", "PsyNetMessage",
    "ForgeModLoader", "quickShipAvailable", " Smartstocks", "cffffcc", " attRot", " Mechdragon", " Skydragon",
    "externalActionCode", "SpaceEngineers", "wcsstore", " Dragonbound", "ItemThumbnailImage",
    "isSpecialOrderable", "inventoryQuantity", "channelAvailability", "DeliveryDate",
)


def _sentencepiece_prefix(tok: Tokenizer) -> bool:
    """True for a SentencePiece model that adds a dummy-prefix ▁ before every text."""
    if tok.kind != "sentencepiece":
        return False
    ids = tok.encode_ordinary("a")
    return bool(ids) and tok.piece_of(ids[0]).startswith(WORD)


def _covering_ids(tok: Tokenizer, text: str) -> list[int]:
    """The ids of `text`, without tokens that cover no input (SentencePiece's dummy prefix)."""
    return [t.id for t in tok.tokenize(text, disallowed_special=()) if t.byte_span[1] > t.byte_span[0]]


def reencode(tok: Tokenizer, token_id: int, *, _sp: bool | None = None) -> list[int] | None:
    """What the unreachable rule compares with [token_id]: the ids its own text encodes to (for
    SentencePiece, as described in the module docstring). None when the rule does not apply: the
    bytes are not valid UTF-8, or (SentencePiece) the piece only occurs inside a word."""
    sp = _sentencepiece_prefix(tok) if _sp is None else _sp
    try:
        text = tok.decode_bytes([token_id]).decode("utf-8")
    except UnicodeDecodeError:
        return None
    if not sp:
        return tok.encode_ordinary(text)
    if tok.piece_of(token_id).startswith(WORD) and len(text) > 1:
        return _covering_ids(tok, text[1:])
    if tok.is_byte_fallback(token_id):
        return _covering_ids(tok, text)
    return None  # inside a word, or the bare ▁ (the dummy prefix itself)


def pattern_chunks(tok: Tokenizer, token_id: int) -> list[str] | None:
    """How the tokenizer's split pattern cuts the token's own text, for byte-level BPE with a
    pattern (None otherwise). More than one chunk explains an unreachable token: BPE never merges
    across the pattern's cuts, so encoding cannot build a token that spans one."""
    pattern = getattr(tok, "pattern", None)
    if tok.kind != "bpe" or not pattern:
        return None
    from tokenizers.core.patterns import compile_pattern, split_text

    try:
        text = tok.decode_bytes([token_id]).decode("utf-8")
    except UnicodeDecodeError:
        return None
    return split_text(text, compile_pattern(pattern))


def digit_tokens(tok: Tokenizer) -> list[int]:
    """The audit's all_digit list on its own: the ordinary tokens whose bytes are only ASCII digits
    (a scan of the vocabulary, no encoding: what the Numbers view needs, without the whole audit)."""
    return [i for i, b in tok.iter_vocab() if b and b.isdigit() and not tok.is_special(i)]  # ASCII 0-9 only


def audit_tokenizer(tok: Tokenizer) -> dict:
    """Audit any Tokenizer (a registry one, or one trained in the app). See the module docstring."""
    start = time.perf_counter()
    sp = _sentencepiece_prefix(tok)
    unreachable, partial, not_checked = [], [], []
    ordinary = specials = 0
    for i, b in tok.iter_vocab():
        if tok.is_special(i):
            specials += 1
            continue
        ordinary += 1
        try:
            text = b.decode("utf-8")
        except UnicodeDecodeError:
            partial.append(i)
            continue
        if not sp:  # the common case inline: 200k tokens
            ids = tok.encode_ordinary(text)
        else:
            ids = reencode(tok, i, _sp=True)
            if ids is None:
                not_checked.append(i)
                continue
        if ids != [i]:
            unreachable.append(i)
    return {"name": tok.name, "unreachable": unreachable, "partial_utf8": partial, "all_digit": digit_tokens(tok),
            "not_checked": not_checked, "ordinary": ordinary, "special": specials,
            "rule": "sentencepiece" if sp else "encode_ordinary", "seconds": time.perf_counter() - start}


_audits: dict[str, dict] = {}
_lock = threading.Lock()


def audit(name: str) -> dict:
    """The audit of registry tokenizer `name`: {"unreachable", "partial_utf8", "all_digit",
    "not_checked": lists of ids; "ordinary", "special": counts; "rule"; "seconds": time the audit
    took}. Computed once per process (o200k_base: about half a second) and returned as a fresh copy."""
    with _lock:
        result = _audits.get(name)
    if result is None:
        from tokenizers.registry import get_tokenizer

        result = audit_tokenizer(get_tokenizer(name))
        with _lock:
            result = _audits.setdefault(name, result)
    return {k: list(v) if isinstance(v, list) else v for k, v in result.items()}


def number_tokens(tok: Tokenizer, stop: int = 10_000) -> list[list[int]]:
    """The ids of str(n) for every n in range(stop), with special-token strings as text."""
    return [tok.encode_ordinary(str(n)) for n in range(stop)]


def wordlike(text: str) -> bool:
    """At least three different characters, half of them letters: a name or word, not a rule of
    dashes, a run of spaces or a fragment of mojibake."""
    core = text.strip()
    return len(set(core)) >= 3 and sum(c.isalpha() for c in core) * 2 >= len(core)


def unused_long_tokens(tok: Tokenizer, texts: Iterable[str], limit: int = 50, *, words_only: bool = True) -> list[int]:
    """The `limit` longest ordinary tokens (by characters; valid UTF-8 only; with `words_only`, only
    word-like ones) that never occur when the texts are encoded: candidates for tokens that a model
    trained on similar text barely saw."""
    seen: set[int] = set()
    for t in texts:
        seen.update(tok.encode_ordinary(t))
    rows = []
    for i, b in tok.iter_vocab():
        if i in seen or tok.is_special(i):
            continue
        try:
            text = b.decode("utf-8")
        except UnicodeDecodeError:
            continue
        if words_only and not wordlike(text):
            continue
        rows.append((-len(text), i))
    rows.sort()
    return [i for _, i in rows[:limit]]


# -- what a token spells: one classifier -------------------------------------------------------------
# Scripts by Unicode's Script property (the `regex` module's \p{Script=…}); CJK is Han with the Japanese
# kana and Bopomofo. Characters of the Common and Inherited scripts (digits, punctuation, spaces, emoji,
# combining marks) are neutral: they go with the letters beside them.
SCRIPT_GROUPS = {
    "Latin": r"\p{Script=Latin}",
    "CJK": r"[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Bopomofo}]",
    "Hangul": r"\p{Script=Hangul}",
    "Cyrillic": r"\p{Script=Cyrillic}",
    "Greek": r"\p{Script=Greek}",
    "Arabic": r"\p{Script=Arabic}",
    "Devanagari": r"\p{Script=Devanagari}",
}
KINDS = (*SCRIPT_GROUPS, "other scripts", "mixed scripts", "digits", "whitespace", "code punctuation",
         "symbols & other", "partial UTF-8")
_GROUPS = [(name, regex.compile(p)) for name, p in SCRIPT_GROUPS.items()]
_NEUTRAL = regex.compile(r"[\p{Script=Common}\p{Script=Inherited}\p{Script=Unknown}]")
_CODE_PUNCT = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
_char_groups: dict[str, str] = {}


def char_script(ch: str) -> str:
    """The script group of one character: a name of SCRIPT_GROUPS, "other scripts", or "" for a
    character of no script (Common or Inherited: digits, punctuation, spaces, emoji, combining marks)."""
    g = _char_groups.get(ch)
    if g is None:
        if _NEUTRAL.match(ch):
            g = ""
        else:
            g = next((name for name, r in _GROUPS if r.match(ch)), "other scripts")
        _char_groups[ch] = g
    return g


def token_kind(data: bytes) -> str:
    """Which of KINDS a token's bytes are, the first rule that holds:

    - "partial UTF-8": the bytes are not valid UTF-8 on their own (the audit's partial_utf8 rule);
    - "whitespace": only whitespace (a run of spaces, newlines, tabs);
    - a script group: every character that has a script (not Common or Inherited) is of that group
      (" the", "x2", "l'été" are Latin; "中文" CJK); "mixed scripts" when two groups meet;
    - "digits": ASCII digits 0-9, with whitespace around them or not (" 2024");
    - "code punctuation": ASCII punctuation, with whitespace or not ("();", " =>", "{\\n");
    - "symbols & other": anything else (emoji, "—", "。", "3.14", "", the empty token).
    """
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return "partial UTF-8"
    core = text.strip()
    if text and not core:
        return "whitespace"
    if core.isascii():  # the common case without a table: ASCII letters are Latin
        if any(c.isalpha() for c in core):
            return "Latin"
        if core.isdigit():
            return "digits"
        if core and all(c in _CODE_PUNCT for c in "".join(core.split())):
            return "code punctuation"
        return "symbols & other"
    groups = {char_script(c) for c in core} - {""}
    if len(groups) == 1:
        return groups.pop()
    return "mixed scripts" if groups else "symbols & other"
