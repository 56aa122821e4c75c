"""Issue 16 (hardening) through AppTest: hostile text in every input of every page reaches Markdown
only escaped, plotly only escaped, and causes no uncaught exception. The browser sweep
(tests/e2e/test_payloads_browser.py) proves the same in Chromium; these run in seconds and name the
exact element at fault."""

from __future__ import annotations

import re

import pytest
from streamlit.testing.v1 import AppTest

from conftest import app_test, rerun
from payloads import ALL, EVIL, PAYLOADS

TIMEOUT = 180
LINK = f"[Your session expired - log in again](https://{EVIL}/login)"
# a file name holds no "/": https:evil.example is still a link to https://evil.example/ in a browser
BAD_NAME = f"x` [Your session expired](https:{EVIL}) <https:{EVIL}> :red[red] $x$ :smile: y"

# raw (unescaped) pieces of the payloads: none may reach a Markdown body outside a safe code span
RAW = ["](https", "<https", "https://ev", "https:ev", ":smile:", f"www.{EVIL}", f"@{EVIL}", ":red[", ":material/", "$x$",
       "$\\color", "# Heading injected", "<script", "<img", "</span>"]
# tags plotly reads in its labels: escaped user text never carries them
PLOTLY_TAGS = re.compile(r"<(a|img|script|svg|iframe|style|span|b|i|em|u|s|sup)[\s>/]", re.I)


def app(**query) -> AppTest:
    at = app_test(query=query, timeout=TIMEOUT)
    assert not at.exception, at.exception
    return at


def _strip_code_spans(body: str) -> str:
    """Markdown with its code spans removed (their content renders literally)."""
    return re.sub(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)", " ", body)


def _nodes(node):
    yield node
    kids = getattr(node, "children", None)
    if isinstance(kids, dict):
        for k in kids.values():
            yield from _nodes(k)


def markdown_texts(at) -> list[tuple[str, str]]:
    """Every string of the page that Streamlit renders as Markdown: bodies of markdown, captions,
    alerts, titles; labels and help of widgets, expanders, buttons; radio options."""
    out = []
    for n in _nodes(at._tree):
        proto = getattr(n, "proto", None)
        if proto is None:
            continue
        kind = type(n).__name__
        for field in ("body", "label", "help", "placeholder"):
            if field == "body" and kind in ("Html", "Code", "Text", "Json"):
                continue
            try:
                value = getattr(proto, field)
            except AttributeError:
                continue
            if isinstance(value, str) and value and not (field == "placeholder"):
                out.append((f"{kind}.{field}", value))
        if kind == "Radio":
            out += [(f"{kind}.option", o) for o in proto.options]
    return out


def unsafe_markdown(at) -> list[tuple[str, str]]:
    bad = []
    for where, body in markdown_texts(at):
        plain = _strip_code_spans(re.sub(r"\\[!-/:-@\[-`{-~]", "\x00", body))  # escaped characters are text
        hits = [r for r in RAW if r in plain]
        if hits:
            bad.append((where, body[:160], hits))
    return bad


def unsafe_plotly(at) -> list[str]:
    bad = []
    for n in _nodes(at._tree):
        proto = getattr(n, "proto", None)
        spec = getattr(proto, "spec", None) if proto is not None and type(n).__name__ != "Html" else None
        if isinstance(spec, str) and spec and PLOTLY_TAGS.search(spec):
            bad.append(PLOTLY_TAGS.search(spec).group(0) + " in " + spec[max(0, PLOTLY_TAGS.search(spec).start() - 60):][:160])
    return bad


def shown(body: str) -> str:
    """A Markdown body as a reader sees its characters (escapes and joiners dropped)."""
    return re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", body).replace("\u2060", "")


def errors(at) -> str:
    return "\n".join(shown(e.body) for e in at.error)


def assert_safe(at):
    assert not at.exception, at.exception
    assert not unsafe_markdown(at), unsafe_markdown(at)
    assert not unsafe_plotly(at), unsafe_plotly(at)


def run(at):
    at.run()
    assert not at.exception, at.exception
    return at


# -- the oracle itself ----------------------------------------------------------------------------
def test_the_oracle_sees_an_unescaped_link():
    assert _strip_code_spans("a `b` c ``d`e`` f") == "a   c   f"
    at = AppTest.from_string(f"import streamlit as st\nst.warning({LINK!r})\nst.caption('ok')")
    at.run()
    assert unsafe_markdown(at) and unsafe_markdown(at)[0][0] == "Warning.body"


# -- Compare -----------------------------------------------------------------------------------------
K = "compare_"
U = "compare_upload_"


def upload_tokenizer(at, filename: str, data: bytes | None = None):
    from upload_samples import GOOD

    data = data if data is not None else GOOD["minbpe"][1]()
    rerun(at, **{f"{U}panel": True})  # the panel draws its widgets only while open
    at.file_uploader(key=f"{U}file").set_value((filename, data, "application/octet-stream"))
    run(at)
    at.button(key=f"{U}load").click()
    return run(at)


def test_compare_link_with_hostile_parameters():
    at = app(text=ALL[:1900] + " ", tokenizers=f"{BAD_NAME},gpt2,{PAYLOADS['md_link']}", ref=LINK,
             view=PAYLOADS["script"], font=LINK, special="<script>", ws=LINK, mode=LINK, ab="1",
             text_b=PAYLOADS["md_link"], zzz=LINK, **{LINK: LINK})
    assert_safe(at)
    assert at.session_state[f"{K}text"] == ALL[:1900] + " "
    assert at.session_state[f"{K}tokenizers"] == ["gpt2"]
    warn = [w.body for w in at.warning if "do not exist" in w.body][0]
    assert "evil" in warn  # named, escaped


# what survives tokenizers.user_files.display_name (word characters, . - + and spaces): still an
# autolink, and emphasis
UPLOAD_NAME = f"Log in at www.{EVIL} __now__.model"


def test_compare_uploaded_tokenizer_named_with_markdown():
    at = app(text="hello world ", tokenizers="gpt2")
    upload_tokenizer(at, UPLOAD_NAME)
    assert not at.error, [e.body for e in at.error]
    name = UPLOAD_NAME
    assert at.session_state[f"{K}tokenizers"] == ["gpt2", name]
    at.session_state[f"{K}diff"] = True
    at.session_state[f"{K}ref"] = name
    run(at)
    at.session_state[f"{K}decoder"] = True
    at.session_state[f"{K}decode_tok"] = name
    at.session_state[f"{K}decode_ids"] = "1, 2, 3"
    run(at)
    assert_safe(at)
    shown = " ".join(m.body for m in [*at.caption, *at.info])
    for where in ("lives only in this visit", "in the whole text not in", "ends in a space"):
        assert where in shown  # each place the name is written was drawn
    for view in ("Text with boundaries", "IDs", "Table"):
        at.session_state[f"{K}view"] = view
        assert_safe(run(at))


def test_compare_decoder_with_hostile_ids():
    at = app(text="hi", tokenizers="gpt2")
    at.session_state[f"{K}decoder"] = True  # open: its widgets are drawn only then
    for raw in (PAYLOADS["md_link"], LINK, "(https://ev.il) 1", "1 www.evil.example", "99999999999999999", "1" * 40, "²", "-1"):
        at.session_state[f"{K}decode_ids"] = raw
        assert_safe(run(at))
        assert at.error, raw


def test_compare_text_and_chat_messages_with_every_payload():
    at = app(tokenizers="gpt2,cl100k_base,mistral_sp")
    at.session_state[f"{K}text"] = ALL
    assert_safe(run(at))
    at.session_state[f"{K}special"] = True
    assert_safe(run(at))
    at.session_state[f"{K}mode"] = "Chat"
    run(at)
    for i, (name, text) in enumerate(list(PAYLOADS.items())[:4]):
        at.session_state[f"{K}chat_text_{i}"] = ALL if i == 1 else text
    assert_safe(run(at))


# -- BPE Lab -------------------------------------------------------------------------------------------
L = "lab_"
FILE_NAME = f"notes {LINK[:-1]} <https:{EVIL}> .txt"   # a text file's name as the browser sends it


def lab() -> AppTest:
    at = app_test("bpe_lab", timeout=TIMEOUT)
    assert not at.exception, at.exception
    return at


def test_lab_upload_names_and_contents():
    at = lab()
    at.radio(key=f"{L}source").set_value("Upload a file")
    run(at)
    for data in (ALL.encode(), b"\x00\x01\x02" * 1000, b""):
        at.file_uploader(key=f"{L}upload").set_value((FILE_NAME, data, "text/plain"))
        assert_safe(run(at))
    at.file_uploader(key=f"{L}upload").set_value((FILE_NAME, ALL.encode(), "text/plain"))
    run(at)
    at.button(key=f"{L}train").click()
    assert_safe(run(at))
    assert at.session_state[f"{L}model"] is not None


def test_lab_regex_specials_and_search_with_payloads():
    at = lab()
    at.session_state[f"{L}text"] = ALL
    at.session_state[f"{L}split"] = "Custom regex"
    run(at)
    for regex in (PAYLOADS["md_link"], "(" + LINK, r"\w+|" + PAYLOADS["script"], "[" + PAYLOADS["md_autolink"]):
        at.session_state[f"{L}regex"] = regex
        assert_safe(run(at))
    at.session_state[f"{L}regex"] = r"\w+|\s+|[^\w\s]+"
    at.session_state[f"{L}specials"] = ",".join(list(PAYLOADS.values())[:20])
    at.session_state[f"{L}vocab"] = 400
    run(at)
    at.button(key=f"{L}train").click()
    assert_safe(run(at))
    for view in ("Merges", "Compression", "Step by step", "Vocabulary trade-off", "Tokens", "Save"):
        at.session_state[f"{L}view"] = view
        assert_safe(run(at))
    at.session_state[f"{L}view"] = "Merges"
    at.session_state[f"{L}search"] = LINK
    assert_safe(run(at))


def test_lab_model_upload_named_with_markdown_and_corrupt():
    at = lab()
    for data in (b"\xff\xfe garbage", b"minbpe v1\n\n1\n" + LINK.encode() + b" x\n", b"not a model"):
        at.file_uploader(key=f"{L}load").set_value((f"{LINK[:-1]} .model", data, "application/octet-stream"))
        assert_safe(run(at))
        assert at.error


# -- a .model whose vocabulary is huge, sparse or full of HTML -------------------------------------------
SPARSE_MODEL = ("minbpe v1\n\n2\n<|end|> 1000256\n<b onmouseover=\"window.__pwned=1\">x</b> 999999\n97 97\n256 97\n"
                "60 115\n258 99\n")


def test_a_sparse_model_is_named_at_upload_and_browsed_by_the_ids_in_use(request):
    at = lab()
    at.file_uploader(key=f"{L}load").set_value(("sparse.model", SPARSE_MODEL.encode(), "application/octet-stream"))
    assert_safe(run(at))
    assert any("only 262 of them are tokens" in i.body for i in at.info), [i.body for i in at.info]
    tok = at.session_state[f"{L}model"]
    assert tok.vocab_size == 1_000_257
    # Inside: its vocabulary browser and decoder, with a count of every lookup of an unused id
    misses = request.getfixturevalue("unused_id_lookups")  # counted from here on, not during the upload
    at.switch_page("app_pages/inside.py")
    at.session_state["inside_tok"] = "lab_bpe"
    at.session_state["inside_text"] = "aaa <sc <|end|>"
    at.session_state["inside_decode"] = "999999, 1000256, 500000"
    assert_safe(run(at))
    assert len(misses) < 10, len(misses)  # main walked all 1,000,257 ids on every rerun
    assert any("of 262" in c.body for c in at.caption), [c.body for c in at.caption]
    assert any("500000" in e.body and "unused" in e.body for e in at.error)


def test_a_model_whose_merges_chain_is_refused_before_it_takes_memory():
    import resource

    lines = ["minbpe v1", "", "0", "97 97"] + [f"{255 + k} 97" for k in range(1, 100_000)]
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    at = lab()
    at.file_uploader(key=f"{L}load").set_value(("chain.model", ("\n".join(lines) + "\n").encode(),
                                                "application/octet-stream"))
    assert_safe(run(at))
    assert any("bytes of tokens" in e.body for e in at.error), [e.body for e in at.error]
    # 100,000 chained merges would spell 5 GB; refused after 40 MB at most
    assert (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) < 200_000  # KB


# -- Inside a token ----------------------------------------------------------------------------------------
I = "inside_"


def inside(**query) -> AppTest:
    at = app_test("inside", query=query, timeout=TIMEOUT)
    assert not at.exception, at.exception
    return at


@pytest.mark.parametrize("query", [
    {"tokenizer": "gpt2", "text": ALL[:1900], "token": "3"},
    {"tokenizer": LINK, "text": PAYLOADS["md_link"], "id": LINK},
    {"tokenizer": "gpt2", "text": "hi", "token": "²"},          # str.isdigit() is true, int() refuses it
    {"tokenizer": "gpt2", "text": "hi", "id": "²"},
    {"tokenizer": "gpt2", "text": "hi", "token": "9" * 40},
    {"tokenizer": "gpt2", "text": "hi", "id": "9" * 40},
    {"tokenizer": "cl100k_base", "text": "hi", "id": "100256"},  # the hole in cl100k_base
    {"tokenizer": "mistral_sp", "text": "\U0001F600 <0x41>", "id": "31999"},
    {"tokenizer": "gpt2", "id": "١٢٣"},                          # Arabic-Indic digits: a valid id
    {"tokenizer": "gpt2", "text": "hi", "zzz": LINK, LINK: LINK},
])
def test_inside_link_parameters(query):
    at = inside(**query)
    assert_safe(at)


def test_inside_inputs_with_payloads():
    at = inside(tokenizer="gpt2")
    at.session_state[f"{I}text"] = ALL
    assert_safe(run(at))
    at.session_state[f"{I}by_id"] = True
    for raw in (LINK, "(https://ev.il)", "1 2", "99999999999999999", "50257"):
        at.session_state[f"{I}id"] = raw
        assert_safe(run(at))
        assert at.error, raw
    at.session_state[f"{I}by_id"] = False
    for raw in (LINK, "(https://ev.il) 1", "50257 50256 0", "9" * 18):
        at.session_state[f"{I}decode"] = raw
        assert_safe(run(at))
    at.session_state[f"{I}vq"] = LINK
    assert_safe(run(at))


# -- SentencePiece Lab ---------------------------------------------------------------------------------
S = "sp_"
PIECES = [p for p in PAYLOADS.values() if "," not in p and "\n" not in p and len(p) < 60][:12]


def sp_lab() -> AppTest:
    at = app_test("sentencepiece_lab", timeout=TIMEOUT)
    assert not at.exception, at.exception
    return at


def sp_tabs(at):
    for tab in ("Vocabulary", "Encode", "Byte fallback", "Merge tree", "Lattice", "Sampling", "Model & downloads"):
        at.session_state[f"{S}tab"] = tab
        assert_safe(run(at))


def test_sentencepiece_lab_options_pieces_and_texts_with_payloads():
    at = sp_lab()
    at.session_state[f"{S}source"] = "Paste"
    run(at)
    at.session_state[f"{S}text"] = (ALL + "\n") * 20
    at.session_state[f"{S}opt_user_defined_symbols"] = ",".join(PIECES[:6])
    at.session_state[f"{S}opt_control_symbols"] = ",".join(PIECES[6:])
    at.session_state[f"{S}opt_unk_piece"] = PAYLOADS["img_onerror"][:30]
    at.session_state[f"{S}opt_vocab_size"] = 400
    at.session_state[f"{S}opt_byte_fallback"] = True
    run(at)
    at.button(key=f"{S}train").click()
    assert_safe(run(at))
    assert not at.error, [e.body for e in at.error]
    tok = at.session_state[f"{S}model"]
    assert tok.piece_id(PIECES[0]) is not None
    for key in ("etext", "btext", "ltext", "stext", "vq", "tree_typed"):
        at.session_state[f"{S}{key}"] = PIECES[0] if key in ("ltext", "tree_typed") else ALL
    sp_tabs(at)
    at.session_state[f"{S}tree_typed"] = "²"   # isdigit() but not an int
    at.session_state[f"{S}tab"] = "Merge tree"
    assert_safe(run(at))
    # a unigram model: its lattice and samples draw pieces that hold HTML
    at.session_state[f"{S}opt_model_type"] = "unigram"
    run(at)
    at.button(key=f"{S}train").click()
    assert_safe(run(at))
    at.session_state[f"{S}ltext"] = PIECES[0][:20]
    at.session_state[f"{S}stext"] = " ".join(PIECES[:3])
    sp_tabs(at)


def test_sentencepiece_lab_bad_options_and_uploads_named_with_markdown():
    at = sp_lab()
    at.session_state[f"{S}opt_user_defined_symbols"] = LINK + "," + LINK
    at.session_state[f"{S}opt_unk_piece"] = ""
    run(at)
    at.button(key=f"{S}train").click()
    assert_safe(run(at))
    at.session_state[f"{S}source"] = "Upload a file"
    run(at)
    for data in (ALL.encode(), b"\x00" * 100, b""):
        at.file_uploader(key=f"{S}upload").set_value((FILE_NAME, data, "text/plain"))
        assert_safe(run(at))
    for data in (b"not a model", b"\x0a\x05" + LINK.encode()):
        at.file_uploader(key=f"{S}load").set_value((f"{LINK[:-1]} .model", data, "application/octet-stream"))
        assert_safe(run(at))
        assert at.error


# -- Algorithms -----------------------------------------------------------------------------------------
A = "alg_"


def test_algorithms_corpus_upload_and_inputs_with_payloads():
    at = app()
    at.switch_page("app_pages/algorithms.py")
    run(at)
    at.session_state[f"{A}source"] = "Paste"
    run(at)
    at.session_state[f"{A}text"] = ALL * 3
    at.session_state[f"{A}vocab"] = 300
    run(at)
    at.button(key=f"{A}train").click()
    assert_safe(run(at))
    at.session_state[f"{A}segment"] = ALL
    at.session_state[f"{A}vocab_q"] = LINK
    for tab in ("Vocabularies", "Training steps", "Length vs vocab size"):
        at.session_state[f"{A}tab"] = tab
        assert_safe(run(at))
    for alg in ("word_bpe", "wordpiece", "char", "byte_bpe"):
        at.session_state[f"{A}tab"] = "Training steps"
        at.session_state[f"{A}steps_alg"] = alg
        assert_safe(run(at))
    at.session_state[f"{A}source"] = "Upload a file"
    run(at)
    for data in (ALL.encode(), b"\x00" * 100):
        at.file_uploader(key=f"{A}upload").set_value((FILE_NAME, data, "text/plain"))
        assert_safe(run(at))


# -- Quirks and Languages, with an uploaded tokenizer among the chosen ones ----------------------------------
@pytest.mark.slow
def test_quirks_cards_and_evidence_with_payloads():
    at = app()
    upload_tokenizer(at, UPLOAD_NAME)
    at.switch_page("app_pages/quirks.py")
    run(at)
    at.session_state["quirks_tokenizers"] = ["gpt2", UPLOAD_NAME]
    run(at)
    from ui.quirks import CARDS

    for card in CARDS[:3]:  # one card at a time (the deck)
        at.session_state["quirks_card"] = card.key
        at.session_state[f"quirks_{card.key}_two"] = True
        at.session_state[f"quirks_{card.key}_a"] = ALL
        at.session_state[f"quirks_{card.key}_b"] = PAYLOADS["md_link"]
        assert_safe(run(at))
    for tab in ("Numbers", "Vocabulary audit", "Rare long tokens"):
        at.session_state["quirks_tab"] = tab
        run(at)
        at.session_state["quirks_audit_q"] = LINK
        assert_safe(run(at))


def test_languages_uploads_named_and_filled_with_payloads():
    at = app()
    upload_tokenizer(at, UPLOAD_NAME)
    at.switch_page("app_pages/languages.py")
    run(at)
    at.session_state["languages_tokenizers"] = ["gpt2", UPLOAD_NAME]
    at.session_state["languages_tab"] = "Your corpus"
    run(at)
    table = "eng\tfra\t" + LINK + "\n" + "\n".join(f"{p}\t{p}\t{p}".replace("\n", " ") for p in PIECES)
    at.file_uploader(key="languages_upload").set_value([(f"{LINK[:-1]}.tsv", table.encode(), "text/plain")])
    assert_safe(run(at))
    files = [("eng.txt", ALL.encode(), "text/plain"), ("fra.txt", ALL.encode(), "text/plain"),
             (f"{LINK[:-1]}.txt", b"x", "text/plain"), ("deu.txt", b"\x00" * 50, "text/plain")]
    at.file_uploader(key="languages_upload").set_value(files)
    assert_safe(run(at))
    for tab in ("Parallel text", "Programs"):
        at.session_state["languages_tab"] = tab
        assert_safe(run(at))


# -- an uploaded split pattern that backtracks for ever: a message on every page, never a traceback ----------
SLOW_PATTERN = r"(x+x+)+y|\s+|."
SLOW_TEXT = "x" * 3000 + "z"


@pytest.fixture
def quick_patterns(monkeypatch):
    """Uploaded patterns stop after 0.2 s instead of 3 s, so the test is quick."""
    from tokenizers.core import patterns

    monkeypatch.setattr(patterns, "UNTRUSTED_TIMEOUT", 0.2)


def upload_slow_tokenizer(at):
    from upload_samples import GOOD

    rerun(at, **{f"{U}panel": True})
    at.file_uploader(key=f"{U}file").set_value(("slow.tiktoken", GOOD["tiktoken"][1](), "application/octet-stream"))
    run(at)
    at.selectbox(key=f"{U}pattern").set_value("Paste a regex…")
    run(at)
    at.text_input(key=f"{U}regex").set_value(SLOW_PATTERN)
    run(at)
    at.button(key=f"{U}load").click()
    run(at)
    assert "slow.tiktoken" in at.session_state[f"{K}tokenizers"]
    return at


def test_a_catastrophic_uploaded_pattern_gives_a_message_on_every_page(quick_patterns):
    at = upload_slow_tokenizer(app(text="hello", tokenizers="gpt2"))
    at.session_state[f"{K}text"] = SLOW_TEXT
    run(at)
    assert "**slow.tiktoken** could not tokenize this text: The split pattern ran for more than" in errors(at), errors(at)
    assert "gpt2" in " ".join(h.proto.body for h in at.get("html"))  # the other tokenizers still drawn
    at.session_state[f"{K}decoder"] = True
    at.session_state[f"{K}decode_tok"] = "slow.tiktoken"
    assert_safe(run(at))
    at.switch_page("app_pages/inside.py")
    at.session_state["inside_tok"] = "slow.tiktoken"
    at.session_state["inside_text"] = SLOW_TEXT
    assert_safe(run(at))
    assert "ran for more than" in errors(at), errors(at)
    at.switch_page("app_pages/quirks.py")
    at.session_state["quirks_tokenizers"] = ["gpt2", "slow.tiktoken"]
    from ui.quirks import CARDS

    at.session_state[f"quirks_{CARDS[0].key}_a"] = SLOW_TEXT
    assert_safe(run(at))
    assert "ran for more than" in errors(at), errors(at)
    at.switch_page("app_pages/languages.py")
    at.session_state["languages_tokenizers"] = ["gpt2", "slow.tiktoken"]
    at.session_state["languages_tab"] = "Your corpus"
    run(at)
    at.file_uploader(key="languages_upload").set_value([("eng.txt", SLOW_TEXT.encode(), "text/plain"),
                                                        ("fra.txt", b"bonjour", "text/plain")])
    assert_safe(run(at))
    assert "ran for more than" in errors(at), errors(at)
