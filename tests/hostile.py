"""Hostile inputs (issue 16), made here and reproducible (fixed seeds), for the AppTest tests
(tests/test_hostile_inputs.py) and the measurement script (benchmarks/hostile_inputs.py). Texts are
built on demand: several are megabytes."""

from __future__ import annotations

import random
from functools import lru_cache

MB = 1_000_000


def _random_unicode(n_bytes: int, seed: int = 16) -> str:
    """Random code points from every plane in use (no surrogates), about n_bytes of UTF-8."""
    r = random.Random(seed)
    out, size = [], 0
    while size < n_bytes:
        c = r.randrange(0x20, 0x30000)
        if 0xD800 <= c < 0xE000:
            continue
        ch = chr(c)
        out.append(ch)
        size += len(ch.encode("utf-8"))
    return "".join(out)


def _long_line(n: int, seed: int = 7) -> str:
    """A line without spaces: a base64-like blob with punctuation, as minified code or data URLs hold."""
    r = random.Random(seed)
    alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+/=._-"
    return "".join(r.choice(alphabet) for _ in range(n))


CONTROLS = "".join(chr(c) for c in [*range(0x20), *range(0x7F, 0xA0)])

# name -> (builder, what it is). Each is typed into every text input of every page.
TEXTS = {
    "1M spaces": (lambda: " " * MB, "1,000,000 spaces"),
    "1M a": (lambda: "a" * MB, "1,000,000 × 'a'"),
    "1M emoji": (lambda: "😀" * MB, "1,000,000 × U+1F600 (4 MB of UTF-8)"),
    "5MB random Unicode": (lambda: _random_unicode(5 * MB), "random code points of every plane, 5 MB of UTF-8"),
    "100KB line": (lambda: _long_line(100_000), "a 100,000-character line without spaces"),
    "10k combining marks": (lambda: "e" + "\u0301" * 10_000 + " x", "10,000 combining acute accents on one letter"),
    "NUL and controls": (lambda: ("a\x00b " + CONTROLS + " \u200b\u202e\ufeff ") * 200, "NUL, C0/C1 controls, bidi"),
    "endoftext x100k": (lambda: "<|endoftext|>" * 100_000, "<|endoftext|> × 100,000, special parsing on"),
    "lone surrogates": (lambda: "a\ud800b\udfffc \ud83d x\ude00", "unpaired UTF-16 halves"),
}

# Texts small enough to try on every input of every page within a test's time (the megabyte ones
# go through the pages that take big texts, and through benchmarks/hostile_inputs.py).
SMALL_TEXTS = ["10k combining marks", "NUL and controls", "lone surrogates"]


@lru_cache(maxsize=2)
def text(name: str) -> str:
    return TEXTS[name][0]()


# Query strings as a browser sends them (percent-encoded), for the links of Compare and Inside.
LINKS = {
    "invalid percent-encoding": "text=%ZZ%E0%A4%&tokenizers=gpt2,%FF%FE&special=%&view=%%%",
    "lone surrogate (CESU-8)": "text=a%ED%A0%80b%ED%BF%BFc&tokenizers=gpt2",
    "overlong UTF-8": "text=%C0%AF%E0%80%AF&tokenizers=cl100k_base",
    "NUL in the link": "text=a%00b&tokenizers=gpt2%00,cl100k_base",
    "huge token id": "tokenizer=gpt2&id=99999999999999999999999999",
    "negative token": "tokenizer=gpt2&token=-5",
    "huge token position": "tokenizer=gpt2&text=hi&token=99999999999999999999",
    "unknown flags": "special=2&ws=yes&view=<b>&font=XXL&present=1&ab=1&mode=evil",
    "100 KB text": "text=" + "a%20" * 25_000 + "&tokenizers=gpt2",
}

# A catastrophic-backtracking split pattern and the text it chokes on.
CATASTROPHIC_REGEX = r"(a+)+$"
CATASTROPHIC_TEXT = "a" * 50_000 + "b"
CATASTROPHIC_PATTERNS = [r"(a+)+$", r"(x+x+)+y", r"(a|aa)+$", r"(\w+\s?)+$"]


def _png() -> bytes:
    return b"\x89PNG\r\n\x1a\n" + b"\x00\x00\x00\rIHDR" + bytes(range(256)) * 40


def _random_bytes(n: int, seed: int = 3) -> bytes:
    return random.Random(seed).randbytes(n)


# Text-file uploads (BPE Lab, SentencePiece Lab, Algorithms, Languages): name -> (file name, builder)
TEXT_UPLOADS = {
    "5 MB text": ("five.txt", lambda: (b"The cat sat on the mat. " * 210_000)[:5 * 1024 * 1024]),
    "6 MB text": ("six.txt", lambda: b"The cat sat on the mat. " * 262_144),
    "binary (PNG)": ("image.txt", _png),
    "random bytes": ("noise.txt", lambda: _random_bytes(200_000)),
    "empty": ("empty.txt", lambda: b""),
    "invalid UTF-8 text": ("latin1.txt", lambda: "café naïve über ".encode("latin-1") * 1000),
}


def minbpe_model(merges: int = 20, specials: dict[str, int] | None = None) -> bytes:
    """A valid minbpe .model: the GPT-4 pattern, `merges` merges of (97, 97)-like pairs."""
    from tokenizers.core.patterns import GPT4_PATTERN

    lines = ["minbpe v1", GPT4_PATTERN, str(len(specials or {}))]
    lines += [f"{s} {i}" for s, i in (specials or {}).items()]
    for k in range(merges):
        lines.append(f"{97 + k % 26} {256 + k - 1 if k else 98}")
    return ("\n".join(lines) + "\n").encode()


def _sentencepiece_bytes() -> bytes:
    from tokenizers.vocabularies.provision import sentencepiece_model_path

    return sentencepiece_model_path().read_bytes()


# Model uploads: name -> (file name, builder). The minbpe ones go to the BPE Lab's loader and
# Compare's tokenizer files; the SentencePiece ones to the SentencePiece Lab and Compare.
MODEL_UPLOADS = {
    "corrupt .model (random bytes)": ("noise.model", lambda: _random_bytes(50_000)),
    "truncated minbpe .model": ("cut.model", lambda: minbpe_model(200)[:700]),
    "minbpe .model with ids beyond its vocabulary": ("gaps.model", lambda: minbpe_model(
        20, {"<|a|>": 50_000, "<|b|>": 900_000})),
    "minbpe .model with a special id far past the bound": ("far.model", lambda: minbpe_model(
        20, {"<|a|>": 50_000, "<|b|>": 1_999_999})),
    "minbpe .model with ids far out of range": ("huge.model", lambda: minbpe_model(5, {"<|x|>": 10 ** 30})),
    "oversized minbpe .model (1.2 M merges)": ("big.model", lambda: minbpe_model(1_200_000)),
    "truncated SentencePiece .model": ("cut_sp.model", lambda: _sentencepiece_bytes()[:5000]),
    "SentencePiece .model with a flipped byte": ("flip_sp.model",
                                                 lambda: _flip(_sentencepiece_bytes(), 200)),
}


def _flip(data: bytes, at: int) -> bytes:
    b = bytearray(data)
    b[at] ^= 0xFF
    return bytes(b)


# -- crafted tokenizer files (issue 24): small files that are valid by every bound of the first hardening,
# built to cost the server what their size does not say. Shared by the tests of each fix and
# benchmarks/hostile_inputs.py; each returns the file's bytes (name them as the pages would: the
# `*_NAME` constants). Nothing here loads them.

def _byte_level_json(normalizer=None, pre_tokenizer=None, added_tokens=(), vocab_extra=None) -> dict:
    """A byte-level BPE tokenizer.json with the 256 byte tokens, no merges (the smallest model every
    reader takes), around the given normalizer / pre-tokenizer / added tokens."""
    from tokenizers.hf.tokenizer_json import byte_chars

    chars = byte_chars()
    vocab = {chars[b]: b for b in range(256)}
    vocab.update(vocab_extra or {})
    byte_level = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": False}
    pre = byte_level if pre_tokenizer is None else {"type": "Sequence",
                                                   "pretokenizers": [*pre_tokenizer, byte_level]}
    return {"version": "1.0", "added_tokens": list(added_tokens), "normalizer": normalizer, "pre_tokenizer": pre,
            "post_processor": None, "decoder": {"type": "ByteLevel"},
            "model": {"type": "BPE", "vocab": vocab, "merges": []}}


def _json_bytes(obj: dict) -> bytes:
    import json

    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode()


TOKENIZER_JSON_NAME = "tokenizer.json"


def growing_normalizer_json(factor: int = 1000, steps: int = 2, char: str = "x") -> bytes:
    """Item 1: a tokenizer.json whose normalizer is `steps` Replace steps, each turning `char` into
    `factor` of them: n typed characters become n × factor**steps (40 'x' → 40,000,000)."""
    rep = {"type": "Replace", "pattern": {"String": char}, "content": char * factor}
    return _json_bytes(_byte_level_json(normalizer={"type": "Sequence", "normalizers": [rep] * steps}))


MINBPE_NAME = "double.model"


def doubling_minbpe_model(doublings: int = 24) -> bytes:
    """Item 2: a minbpe .model (about 200 bytes) whose merges double 'a' `doublings` times: merge 1 is
    (97, 97) -> 256 'aa', then (k, k) -> k + 1, so the last id, `doubling_token_id(doublings)`, is
    'a' × 2**doublings (16,777,216 bytes for 24)."""
    lines = ["minbpe v1", "", "0", "97 97"] + [f"{256 + k} {256 + k}" for k in range(doublings - 1)]
    return ("\n".join(lines) + "\n").encode()


def doubling_token_id(doublings: int = 24) -> int:
    return 256 + doublings - 1


TIKTOKEN_NAME = "big.tiktoken"


def _tiktoken_lines(tokens: list[bytes]) -> bytes:
    import base64

    return b"".join(base64.b64encode(t) + b" %d\n" % i for i, t in enumerate(tokens))


def big_token_tiktoken(token_bytes: int = 14_990_000) -> bytes:
    """Item 2: a .tiktoken whose 256 single bytes are followed by one token of `token_bytes` 'a's (id
    256): about 15 MB of token in a file just under the 20 MB bound (base64 is 4/3 of it)."""
    return _tiktoken_lines([bytes([b]) for b in range(256)] + [b"a" * token_bytes])


def long_run_tiktoken(run: int = 20_000) -> bytes:
    """Item 7: a .tiktoken of the 256 bytes, 'aa' (id 256) and 'a' × `run` (id 257): recovering the
    merge that makes id 257 (its merge rank, its tree) is what was quadratic in `run`."""
    return _tiktoken_lines([bytes([b]) for b in range(256)] + [b"aa", b"a" * run])


LONG_RUN_ID = 257

TEKKEN_NAME = "tekken.json"


def tekken_many_specials(n_special: int = 20_000_000) -> bytes:
    """Item 4: a Tekken file (about 10 KB: the 256 byte tokens) whose config claims `n_special` special
    tokens; the reader named each one before any check."""
    import base64

    vocab = [{"rank": b, "token_bytes": base64.b64encode(bytes([b])).decode(), "token_str": None} for b in range(256)]
    return _json_bytes({"config": {"pattern": r"[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+|\s+",
                                   "num_vocab_tokens": 256, "default_vocab_size": n_special + 256,
                                   "default_num_special_tokens": n_special, "version": "v7"},
                        "vocab": vocab, "special_tokens": []})


def many_added_tokens_json(n: int = 100_000, special: bool = False, size: int = 19_900_000) -> bytes:
    """Item 5: a tokenizer.json with `n` added tokens (the documented maximum by default), padded to
    about `size` bytes (19.9 MB: just under the 20 MB bound) by the length of their contents. Not special
    by default, so they are matched inside text as Hugging Face does."""
    entry = {"id": 0, "content": "", "single_word": False, "lstrip": False, "rstrip": False, "normalized": False,
             "special": special}

    def build(pad: int) -> bytes:
        contents = [f"<{i:07d}" + "z" * (pad - 9) + ">" for i in range(n)]
        added = [{**entry, "id": 256 + i, "content": c} for i, c in enumerate(contents)]
        return _json_bytes(_byte_level_json(added_tokens=added,
                                            vocab_extra={c: 256 + i for i, c in enumerate(contents)}))

    smallest = len(build(9))  # each further character of a content costs 2 bytes (added entry and vocab)
    return build(9 + max(0, size - smallest) // (2 * n))


CATASTROPHIC_REPLACE = r"(a|aa)+$"


def catastrophic_text(n: int = 49) -> str:
    """`n` characters on which (a|aa)+$ backtracks about fib(n) times: a run of 'a' and one 'b'."""
    return "a" * (n - 1) + "b"


def replace_pattern_json(pattern: str = CATASTROPHIC_REPLACE) -> bytes:
    """Item 6: a tokenizer.json whose normalizer is one Replace with the regex `pattern`."""
    return _json_bytes(_byte_level_json(normalizer={"type": "Replace", "pattern": {"Regex": pattern},
                                                    "content": "b"}))


def split_sequence_json(splits: int = 40, pattern: str = CATASTROPHIC_REPLACE) -> bytes:
    """Item 6: a tokenizer.json whose pre-tokenizer is a Sequence of `splits` Split steps with the regex
    `pattern` (each step got its own time limit; together they ran `splits` times as long)."""
    split = {"type": "Split", "pattern": {"Regex": pattern}, "behavior": "Isolated", "invert": False}
    return _json_bytes(_byte_level_json(pre_tokenizer=[split] * splits))


def big_text_file(size: int = 19_000_000, seed: int = 0) -> bytes:
    """Item 3: a text file of `size` bytes (under Streamlit's 20 MB upload cap, over the pages' 5 MB)."""
    line = f"{seed:04d} The cat sat on the mat and counted its tokens.\n".encode()
    return (line * (size // len(line) + 1))[:size]


def many_tokens_tiktoken(n_tokens: int = 900_000, seed: int = 24) -> bytes:
    """Item 3: a .tiktoken of the 256 bytes and `n_tokens` distinct 6-byte tokens (about 15 MB): the
    kind of file that costs the server far more than its size once loaded (its results kept it alive)."""
    r = random.Random(seed)
    seen = {bytes([b]) for b in range(256)}
    tokens = [bytes([b]) for b in range(256)]
    while len(tokens) < n_tokens + 256:
        t = r.randbytes(6)
        if t not in seen:
            seen.add(t)
            tokens.append(t)
    return _tiktoken_lines(tokens)


# Token ids typed into the decoders (Compare, Inside) and Inside's id field.
BAD_IDS = ["50257", "4294967296", "99999999999999999999999999999", "-1", "1e9", "12,,,13", "0x1F",
           ", ".join(["100"] * 100_000), "٣"]

# Vocabulary sizes at and beyond each lab's bounds (min, max): the numbers the pages must survive
# when they arrive in session state (a stale value, a changed bound, a crafted client).
def vocab_sizes(lo: int, hi: int) -> list:
    # no NaN or infinity: an integer number_input travels as an int64 (WidgetState.int_value), so no
    # browser can send one, and AppTest's float would fail in Streamlit's own deserializer before the
    # page runs; links and state go through service.limits.clamp_int, tested with them in tests/test_input_bounds.py
    return [lo - 1, lo, lo + 1, hi - 1, hi, hi + 1, -1, 0, 10 ** 30, 2 ** 63]


# -- driving the pages (AppTest) ------------------------------------------------------------------------
# Each driver takes a fresh AppTest on the app's router (conftest.app_test(), already run once) and a
# value, puts the value where a visitor would, runs the page, and returns the AppTest. The tests and the
# benchmark share them.
from conftest import app_test, goto  # noqa: E402


def _compare_text(at, value):
    at.session_state["compare_text"] = value
    at.run()
    return at


def _compare_special(at, value):
    at.session_state["compare_special"] = True
    return _compare_text(at, value)


def _compare_text_b(at, value):
    at.session_state["compare_ab"] = True
    at.session_state["compare_text_b"] = value
    at.run()
    return at


def _compare_decoder(at, value):
    at.session_state["compare_decoder"] = True  # open: its widgets are drawn only then
    at.session_state["compare_decode_ids"] = value
    at.run()
    return at


def _inside_text(at, value):
    return goto(at, "inside", inside_text=value)


def _inside_id(at, value):
    return goto(at, "inside", inside_by_id=True, inside_id=value)


def _inside_decode(at, value):
    return goto(at, "inside", inside_decode=value)


def _quirks_card(at, value):
    return goto(at, "quirks", quirks_spelling_a=value, quirks_spelling_a__kept=value)


def _lab_train(at, value):
    goto(at, "bpe_lab", lab_source="Paste", lab_text=value)
    at.button(key="lab_train").click().run()
    return at


def _lab_regex(at, value):
    goto(at, "bpe_lab", lab_source="Paste", lab_text=CATASTROPHIC_TEXT, lab_split="Custom regex", lab_regex=value)
    at.button(key="lab_train").click().run()
    return at


def _lab_vocab(at, value):
    goto(at, "bpe_lab", lab_source="Paste", lab_vocab=value)
    if not at.exception:
        at.button(key="lab_train").click().run()
    return at


def _alg_train(at, value):
    goto(at, "algorithms", alg_source="Paste", alg_text=value, alg_vocab=300)
    at.button(key="alg_train").click().run()
    return at


def _alg_segment(at, value):
    # the text is in state before the page first draws its box, as a link or an earlier run would leave
    # it (AppTest cannot send a drawn box a lone surrogate; no browser can either)
    goto(at, "algorithms", alg_source="Paste", alg_vocab=300, alg_segment=value)
    at.button(key="alg_train").click().run()
    return at


def _alg_vocab(at, value):
    goto(at, "algorithms", alg_source="Paste", alg_vocab=value)
    if not at.exception:
        at.button(key="alg_train").click().run()
    return at


def _sp_train(at, value):
    goto(at, "sentencepiece_lab", sp_source="Paste", sp_text=value)
    at.button(key="sp_train").click().run()
    return at


def _sp_encode(at, value):
    goto(at, "sentencepiece_lab", sp_source="Built-in corpus", sp_builtin_size=20_000)
    at.button(key="sp_train").click().run()
    at.session_state["sp_tab"] = "Encode"
    at.session_state["sp_etext"] = value
    at.run()
    return at


def _sp_vocab(at, value):
    goto(at, "sentencepiece_lab", sp_source="Built-in corpus", sp_builtin_size=20_000, sp_opt_vocab_size=value)
    if not at.exception:
        at.button(key="sp_train").click().run()
    return at


def _upload(page: str, key: str, button: str | None = None, **state):
    def drive(at, value):
        name, data = value
        goto(at, page, **state)
        at.file_uploader(key=key).set_value((name, data, "application/octet-stream")).run()
        if button and not at.exception:
            at.button(key=button).click().run()
        return at
    return drive


def _gap_model_everywhere(at, value):
    """Load a .model (with ids far past its vocabulary) in the BPE Lab, then use it on every page
    that takes a visitor's tokenizer: Compare (spans, decoder with an id in the gap), Inside (its
    token, the id field, the decoder, the vocabulary browser), Quirks (the audit) and Languages."""
    name, data = value
    goto(at, "bpe_lab")
    at.file_uploader(key="lab_load").set_value((name, data, "application/octet-stream")).run()
    if at.exception or "lab_bpe" not in at.session_state["user_tokenizers"]:
        return at
    steps = [("compare", {"compare_tokenizers": ["lab_bpe", "gpt2"], "compare_text": "hello <|a|> world",
                          "compare_special": True, "compare_decoder": True, "compare_decode_tok": "lab_bpe",
                          "compare_decode_ids": "6151, 50000, 300"}),
             ("inside", {"inside_tok": "lab_bpe", "inside_text": "hello <|a|>", "inside_decode": "6151, 50000",
                         "inside_vq": "6151"}),
             ("inside", {"inside_tok": "lab_bpe", "inside_by_id": True, "inside_id": "6151"}),
             ("inside", {"inside_tok": "lab_bpe", "inside_by_id": True, "inside_id": "50000"}),
             ("quirks", {"quirks_tokenizers": ["lab_bpe"], "quirks_tab": "Vocabulary audit",
                         "quirks_audit_tok": "lab_bpe"}),
             ("quirks", {"quirks_tokenizers": ["lab_bpe"], "quirks_tab": "Numbers"}),
             ("languages", {"languages_tokenizers": ["lab_bpe", "gpt2"]})]
    own = at.session_state["user_tokenizers"]
    for page, state in steps:
        # a fresh visit that already has the model, per page: AppTest cannot re-send a picker that
        # holds a visitor's tokenizer (it formats titles outside a run), which a browser does fine
        at = app_test(timeout=600)
        at.session_state["user_tokenizers"] = own
        goto(at, "bpe_lab")  # a page without such pickers, so that the next run starts clean
        goto(at, page, **state)
        if at.exception:
            return at
    return at


# input name -> (page, driver, kind of value)
DRIVERS = {
    "Compare text": ("compare", _compare_text, "text"),
    "Compare text (special parsing on)": ("compare", _compare_special, "text"),
    "Compare text B": ("compare", _compare_text_b, "text"),
    "Compare decoder": ("compare", _compare_decoder, "ids"),
    "Inside text": ("inside", _inside_text, "text"),
    "Inside token id": ("inside", _inside_id, "ids"),
    "Inside decoder": ("inside", _inside_decode, "ids"),
    "Quirks card text": ("quirks", _quirks_card, "text"),
    "BPE Lab pasted corpus": ("bpe_lab", _lab_train, "text"),
    "BPE Lab custom regex": ("bpe_lab", _lab_regex, "regex"),
    "BPE Lab vocab size": ("bpe_lab", _lab_vocab, "vocab:256:8192"),
    "Algorithms pasted corpus": ("algorithms", _alg_train, "text"),
    "Algorithms segment text": ("algorithms", _alg_segment, "text"),
    "Algorithms vocab size": ("algorithms", _alg_vocab, "vocab:2:8192"),
    "SentencePiece Lab pasted corpus": ("sentencepiece_lab", _sp_train, "text"),
    "SentencePiece Lab encode text": ("sentencepiece_lab", _sp_encode, "text"),
    "SentencePiece Lab vocab size": ("sentencepiece_lab", _sp_vocab, "vocab:1:200000"),
    "BPE Lab text upload": ("bpe_lab", _upload("bpe_lab", "lab_upload", "lab_train", lab_source="Upload a file"),
                            "text upload"),
    "SentencePiece Lab text upload": ("sentencepiece_lab", _upload("sentencepiece_lab", "sp_upload", "sp_train",
                                                                   sp_source="Upload a file"), "text upload"),
    "Algorithms text upload": ("algorithms", _upload("algorithms", "alg_upload", "alg_train",
                                                     alg_source="Upload a file"), "text upload"),
    "Languages corpus upload": ("languages", _upload("languages", "languages_upload", None,
                                                     languages_tab="Your corpus"), "text upload"),
    "BPE Lab .model upload": ("bpe_lab", _upload("bpe_lab", "lab_load"), "model upload"),
    "SentencePiece Lab .model upload": ("sentencepiece_lab", _upload("sentencepiece_lab", "sp_load"), "model upload"),
    "BPE Lab .model, then every page": ("bpe_lab", _gap_model_everywhere, "model upload"),
    "Compare tokenizer file": ("compare", _upload("compare", "compare_upload_file", "compare_upload_load",
                                                       compare_upload_panel=True),
                               "model upload"),
}


def outcome(at) -> dict:
    """What a visitor sees of a run: the exception (if any) and the messages."""
    return {"exception": [e.message for e in at.exception], "error": [e.value for e in at.error],
            "warning": [w.value for w in at.warning], "info": [i.value for i in at.info]}
