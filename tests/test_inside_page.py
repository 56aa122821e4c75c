"""The Inside-a-token page through AppTest."""

from streamlit.testing.v1 import AppTest

from conftest import app_test, open_page
from tokenizers import get_tokenizer

K = "inside_"


def inside_app(**state) -> AppTest:
    return open_page("inside", "Inside a token", state={f"{K}{k}": v for k, v in state.items()})


def test_tree_for_a_typed_id():
    at = inside_app(tok="cl100k_base", by_id=True, id="15339")
    assert any("**Token 15339**" in m.value and "68 65 6C 6C 6F" in m.value for m in at.markdown)
    tree = [h.proto.body for h in at.get("html") if 'class="tl-tree"' in h.proto.body]
    assert len(tree) == 1 and tree[0].count('class="tl-tbox tl-tleaf"') == 5  # h e l l o


def test_unknown_and_bad_ids_are_named():
    at = inside_app(tok="gpt2", by_id=True, id="99999999")
    assert any("99999999" in e.value for e in at.error)
    at = inside_app(tok="cl100k_base", by_id=True, id="100256")  # a hole: the KeyError's message, no quotes
    assert [e.value for e in at.error] == ["cl100k\\_base has no token id 100256 \\(unused in this vocabulary\\)\\."]
    at = inside_app(tok="gpt2", by_id=True, id="abc")
    assert any("'abc'" in e.value.replace("\\", "") for e in at.error)  # escaped Markdown: \'abc\'


def test_step_by_step_ends_in_encode():
    at = inside_app(tok="gpt2", text=" tokenization")
    table = [d for d in at.dataframe if "step" in d.value.columns][0].value
    assert int(table.iloc[-1]["new id"]) in get_tokenizer("gpt2").encode(" tokenization")
    assert any("ids [" in c.value for c in at.caption)


def test_decode_explains_a_lone_continuation_byte():
    at = inside_app(tok="cl100k_base")
    assert any("not a complete UTF-8 character" in c.value for c in at.caption)


def test_chars_and_clusters():
    at = inside_app(text="e\u0301👨\u200d👩\u200d👧🇰🇷")
    md = " ".join(m.value for m in at.markdown)
    assert "ZERO WIDTH JOINER" in md and "flag" in md and "combining" in md
    counts = [d for d in at.dataframe if "graphemes" in d.value.columns][0].value
    assert int(counts.iloc[0]["graphemes"]) == 3 and int(counts.iloc[0]["code points"]) == 9


def test_vocabulary_search_and_sentencepiece():
    at = inside_app(tok="mistral_sp", vq="▁hell")
    rows = [d for d in at.dataframe if "bytes_hex" in d.value.columns and "length" in d.value.columns][0].value
    assert 6312 in list(rows["id"])
    at = inside_app(tok="cl100k_base", vcat="only Hangul", vq="")
    rows = [d for d in at.dataframe if "length" in d.value.columns][0].value
    assert len(rows) > 10


def test_empty_and_tricky_text_keep_the_page():
    for text in ["", "<script>alert(1)</script>", "<|endoftext|>", "a\ud83db"]:
        at = inside_app(text=text)
        assert not at.exception


def test_a_link_selects_tokenizer_text_and_token():
    at = app_test("inside", query={"tokenizer": "gpt2", "text": "hello world", "token": "1"})
    assert not at.exception
    assert at.selectbox(key=f"{K}tok").value == "gpt2"
    assert at.selectbox(key=f"{K}pick_gpt2").value == 1
    assert any("**Token 995**" in m.value for m in at.markdown)  # gpt2's " world"
    assert at.query_params["token"] == "1" and at.query_params["tokenizer"] == "gpt2"
    at.query_params.clear()
    at.query_params.update({"tokenizer": "cl100k_base", "text": "hello world", "id": "1917"})
    at.run()
    assert at.toggle(key=f"{K}by_id").value and any("**Token 1917**" in m.value for m in at.markdown)


def test_each_tokenizer_has_its_own_picker():
    """One shared picker key showed the old tokenizer's token after a switch (in the browser)."""
    at = inside_app(text="Tokenization")
    at.selectbox(key=f"{K}pick_cl100k_base").set_value(1).run()
    at.selectbox(key=f"{K}tok").set_value("mistral_sp").run()
    assert not at.exception
    pick = at.selectbox(key=f"{K}pick_mistral_sp")
    tid = get_tokenizer("mistral_sp").encode("Tokenization")[pick.value]
    assert f"(id {tid})" in pick.proto.options[pick.value] if hasattr(pick.proto, "options") else True
    assert any(f"**Token {tid}**" in m.value for m in at.markdown)


def test_huge_merge_tree_leaves_are_all_drawn():
    from ui.trees import render_tree

    tok = get_tokenizer("cl100k_base")
    html = render_tree(tok, 58040)  # 128 spaces
    assert html.count("class=\"tl-tbox tl-tleaf\"") == 128 and "class=\"tl-tbox tl-tmore\"" not in html
    small = render_tree(tok, 58040, max_depth=2)
    assert "class=\"tl-tbox tl-tmore\"" in small and small.count("class=\"tl-tbox") == 7 + 4  # 3 levels, then 4 folded boxes


def test_repr_is_shown_as_typed_not_escaped():
    at = inside_app(tok="cl100k_base", by_id=True, id="4536")  # " isn"
    assert any("repr `b' isn'`" in m.value for m in at.markdown)
    from ui.formatting import md_inline_code

    assert md_inline_code("a`b") == "``a`b``" and md_inline_code("`") == "`` ` ``"


# the stale token picker is a browser-side effect: tests/e2e/test_interaction_browser.py


# -- the one vocabulary search (tokenizers/analysis/vocab_search.py) ----------------------------------
SMALL_VOCAB = [(0, b"A", ""), (1, b"\xe2\x96\x81", ""), (2, b" the", ""), (3, b"the", ""), (4, b"//", ""),
               (5, b"\n//", ""), (6, b"\xe2\x96", ""), (7, b" the", "\u2581the"), (8, b"\x96\x81", ""),
               (300, b"other", ""), (301, b"x300", ""), (302, b"ing", "##ing")]
SEARCHES = {
    "E2 96 81": [1],             # hex bytes, byte-aligned
    "e296 81": [1],
    "0x41": [0],
    "E2 96": [1, 6],
    "96 81": [1, 8],
    "300": [300, 301],           # the id, and the text
    " the": [2, 7],              # spaces count: not "the", not "other"
    "·the": [2, 7],              # as the tables show a space
    "\u2581the": [7],            # a SentencePiece piece as spelled
    "//": [4, 5],
    "↵//": [5],
    "##ing": [302],
    "E29": [],                   # not whole bytes: text only
    "  ": list(range(9)) + [300, 301, 302],  # only whitespace: every token
}


def test_one_vocabulary_search_exact_vectors():
    from tokenizers.analysis.vocab_search import VocabQuery, hex_query, search

    assert hex_query("E2 96 81") == hex_query("e296 81") == hex_query("0xE2 0x96 0x81") == b"\xe2\x96\x81"
    assert hex_query("0x41") == b"A" and hex_query("300") is None and hex_query(" the") is None
    assert hex_query("//") is None and hex_query("E29 681") is None
    assert VocabQuery.parse(" 300 ").token_id == 300 and VocabQuery.parse("3" * 40).token_id is None
    for query, ids in SEARCHES.items():
        assert search(SMALL_VOCAB, query) == ids, query


def test_every_vocabulary_table_searches_with_the_one_rule():
    """The vocabulary browser (Inside) and the SentencePiece Lab's pieces filter with VocabQuery, as the
    audit lists (Quirks) and the BPE Lab's merges do: the same query gives the same tokens."""
    from ui.tables import search_vocab, sp_vocab_rows

    class Pieces:  # what sp_vocab_rows reads of a SentencePiece model
        def iter_vocab(self):
            return ((i, b) for i, b, _ in SMALL_VOCAB)

        def piece_of(self, i):
            return dict((j, p) for j, _, p in SMALL_VOCAB)[i] or dict((j, b) for j, b, _ in SMALL_VOCAB)[i].decode(
                "utf-8", "replace")

        def piece_kind(self, i):
            return "learned"

        def score_of(self, i):
            return 0.0

    for query, ids in SEARCHES.items():
        assert [r["id"] for r in search_vocab(SMALL_VOCAB, query, "all tokens")] == ids, query
        rows, _ = sp_vocab_rows(Pieces(), query, "all pieces", "all tokens")
        assert [r["id"] for r in rows] == ids, query
