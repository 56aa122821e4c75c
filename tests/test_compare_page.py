"""The Compare page driven headlessly through Streamlit's AppTest: every control, the URL, two texts, the
boundaries view's data, a pinned token, presentation mode and the live box's revision rule."""

import json

import pytest
from streamlit.testing.v1 import AppTest

from conftest import TRICKY_TEXTS, app_test, rerun
from tokenizers import default_tokenizers, get_tokenizer

TIMEOUT = 120
K = "compare_"


def app(**query) -> AppTest:
    at = app_test(query=query, timeout=TIMEOUT)
    assert not at.exception
    return at


def html_bodies(at) -> list[str]:
    return [h.proto.body for h in at.get("html")]


def heads(at) -> dict[str, int]:
    """{tokenizer name: token count} read from the rendered headers."""
    import re

    out = {}
    for b in html_bodies(at):
        m = re.search(r'data-tokenizer="([^"]+)".*?class="tl-count">([\d,]+)<', b, re.S)
        if m:
            out[m.group(1)] = int(m.group(2).replace(",", ""))
    return out


def spans_html(at) -> list[str]:
    """Rendered spans: st.html bodies, and the spans components' data written as the same HTML."""
    from ui.spans import model_html

    out = [b for b in html_bodies(at) if 'class="tl-spans' in b]
    for c in at.get("bidi_component"):
        if c.proto.component_name == "token_lens.token_spans":
            out.append(model_html(json.loads(c.proto.bytes or c.proto.json or c.proto.mixed.json)))
    return out


def visible_text(span_html: str) -> str:
    """The text a reader sees in rendered spans, with SentencePiece's ▁ read back as the space it
    stands for (and its dummy prefix dropped), grouped-id counts removed."""
    import html
    import re

    inner = re.split(r'<div class="tl-spans[^"]*"[^>]*>', span_html, maxsplit=1)[1]
    inner = re.sub(r'<span class="tl-(?:ids|mark|nl)">.*?</span>', "", inner)
    inner = re.sub(r'<span class="tl-sp">(▁+)</span>', lambda m: "\x00" * len(m.group(1)), inner)
    text = html.unescape("".join(re.findall(r">([^<]*)<", inner)))
    return text.removeprefix("\x00").replace("\x00", " ")


def set_text(at, text):
    """What the live text box does when a person types: the page reads the text from session_state."""
    return rerun(at, **{f"{K}text": text})


def test_default_view_counts_match_the_library():
    at = app()
    text = at.session_state[f"{K}text"]
    assert heads(at) == {n: len(get_tokenizer(n).tokenize(text)) for n in default_tokenizers()}


@pytest.mark.parametrize("text", TRICKY_TEXTS + ["x" * 300_000])
def test_tricky_text_never_breaks_the_page(text):
    at = set_text(app(), text)
    assert at.session_state[f"{K}text"] == text  # the user's text is kept
    if not text:
        assert any("Type or paste" in i.value for i in at.info)
    else:
        assert set(heads(at)) == set(default_tokenizers())


def test_lone_surrogate_in_state_is_reported():
    """Widgets cannot carry a lone surrogate (protobuf wants UTF-8), but state set by code can."""
    at = app_test(state={f"{K}text": "a\ud83db"}, timeout=TIMEOUT)
    assert not at.exception
    assert any("lone surrogate" in w.value for w in at.warning)
    assert at.session_state[f"{K}text"] == "a\ufffdb"


def test_script_payload_is_shown_literally():
    payload = "<script>alert(1)</script><img src=x onerror=alert(2)>"
    at = set_text(app(), payload)
    assert len(spans_html(at)) == 4
    for body in spans_html(at):
        assert "<script" not in body and "<img" not in body
        assert visible_text(body) == payload


def test_url_parameters_reproduce_the_view():
    at = app(text="hello world", tokenizers="gpt2,cl100k_base", special="1", ws="1", view="IDs")
    assert at.session_state[f"{K}text"] == "hello world"
    assert at.multiselect(key=f"{K}tokenizers").value == ["gpt2", "cl100k_base"]
    assert at.toggle(key=f"{K}special").value and at.toggle(key=f"{K}ws").value
    codes = [c.value for c in at.code]
    assert "31373, 995" in codes and "15339, 1917" in codes
    # and the page writes its state back into the link
    assert at.query_params["tokenizers"] == "gpt2,cl100k_base" and at.query_params["text"] == "hello world"


def test_state_changes_update_the_url():
    at = app()
    at.multiselect(key=f"{K}tokenizers").set_value(["o200k_base"]).run()
    at.toggle(key=f"{K}alt").set_value(True).run()
    set_text(at, "abc")
    assert at.query_params["tokenizers"] == "o200k_base"
    assert at.query_params["alt"] == "1" and at.query_params["text"] == "abc"
    set_text(at, "y" * 3000)
    assert "text" not in at.query_params
    assert any("longer than" in c.value for c in at.caption)


def test_unknown_tokenizer_in_the_link_is_named():
    at = app(tokenizers="GPT2,gpt5,gpt2,Cl100K_Base")
    assert any("gpt5" in w.value for w in at.warning)
    assert list(heads(at)) == ["gpt2", "cl100k_base"]


def test_invalid_utf8_in_the_link_is_reported():
    at = app(text="a\ufffd\ufffdb")
    assert any("not valid UTF-8" in w.value for w in at.warning)


def test_parse_special_toggle_and_notices():
    at = set_text(app(tokenizers="cl100k_base"), "a <|endoftext|> b")
    import re

    special = re.compile(r'class="tl-tok[^"]*tl-special')
    assert not special.search(" ".join(spans_html(at)))
    assert any("Parsing is **off**" in i.value for i in at.info)
    assert heads(at)["cl100k_base"] > 3
    at.toggle(key=f"{K}special").set_value(True).run()
    assert special.search(" ".join(spans_html(at)))
    assert any("Parsing is **on**" in i.value for i in at.info)
    text = "a <|endoftext|> b"
    assert heads(at)["cl100k_base"] == len(get_tokenizer("cl100k_base").encode(text, allowed_special="all")) == 4
    assert any("parsed" in c.value for c in at.caption)


def test_whitespace_and_alternating_colors():
    at = set_text(app(tokenizers="gpt2"), "a b\tc\nd")
    assert "·" not in visible_text(spans_html(at)[0])
    at.toggle(key=f"{K}ws").set_value(True).run()
    seen = visible_text(spans_html(at)[0])
    assert "·" in seen and "→" in seen and "↵" in seen
    at.toggle(key=f"{K}alt").set_value(True).run()
    body = spans_html(at)[0]
    assert 'class="tl-tok tl-a0' in body and 'class="tl-tok tl-a1' in body and "tl-c" not in body.split("</style>")[1]


def test_views_ids_and_table():
    at = set_text(app(tokenizers="cl100k_base"), "hello world")
    at.radio(key=f"{K}view").set_value("IDs").run()
    assert [c.value for c in at.code] == ["15339, 1917"]
    at.radio(key=f"{K}view").set_value("Table").run()
    table = at.dataframe[0].value
    assert list(table["id"]) == [15339, 1917] and list(table["bytes_hex"]) == ["68 65 6C 6C 6F", "20 77 6F 72 6C 64"]


def test_boundary_diff_marks_only_differences():
    import re

    at = set_text(app(tokenizers="gpt2,cl100k_base"), "    hello world!!!")
    assert "tl-diff" not in " ".join(spans_html(at)).replace(".tl-diff{", "")
    at.toggle(key=f"{K}diff").set_value(True).run()
    at.selectbox(key=f"{K}ref").set_value("gpt2").run()
    cl = [b for b in spans_html(at) if "15339" not in b and "24748" in b][0]
    # gpt2 cuts at bytes 0,1,2,3,9,15; cl100k at 0,3,9,15: cl100k has no boundary gpt2 lacks
    assert not re.search(r'class="tl-tok[^"]*tl-diff', cl)
    at.selectbox(key=f"{K}ref").set_value("cl100k_base").run()
    g2 = [b for b in spans_html(at) if "23748" in b][0]
    assert g2.count("tl-diff\"") + g2.count("tl-diff ") == 2  # the extra cuts at bytes 1 and 2
    assert any("2 boundaries in the whole text not in" in c.value for c in at.caption)


def test_trailing_whitespace_notice():
    at = set_text(app(tokenizers="gpt2"), "hello ")
    assert any("ends in a space" in i.value for i in at.info)
    for text in ["hello", "code\n", "   "]:  # no notice for a final newline or all-whitespace text
        set_text(at, text)
        assert not any("ends in a space" in i.value for i in at.info)


def test_examples_load_into_the_text_area():
    from ui.examples import EXAMPLES

    at = app()
    for name, text in [*EXAMPLES.items(), next(iter(EXAMPLES.items()))]:  # the first one twice
        at.selectbox(key=f"{K}example").set_value(name).run()
        assert not at.exception
        assert at.session_state[f"{K}text"] == text
        assert at.selectbox(key=f"{K}example").value is None  # back to the placeholder
        assert len(heads(at)) == 4
        set_text(at, "edited")


def test_the_decoder_runs_only_while_open():
    """Closed (as a pause rerun finds it), the decoder draws none of its widgets; opened, it does."""
    at = app(tokenizers="gpt2")
    assert f"{K}decode_tok" not in [w.key for w in at.selectbox]
    assert f"{K}decode_ids" not in [w.key for w in at.text_input]
    at.session_state[f"{K}decoder"] = True
    at.run()
    assert at.selectbox(key=f"{K}decode_tok").value == "gpt2"
    at.text_input(key=f"{K}decode_ids").set_value("31373, 995").run()
    assert any(c.value == "hello world" for c in at.code)
    at.text_input(key=f"{K}decode_ids").set_value("").run()  # clearing the ids leaves it open
    assert at.selectbox(key=f"{K}decode_tok").value == "gpt2"


def test_decode_ids_and_errors():
    at = app(tokenizers="gpt2")
    at.session_state[f"{K}decoder"] = True
    at.run()
    at.text_input(key=f"{K}decode_ids").set_value("31373, 995").run()
    assert any(c.value == "hello world" for c in at.code)
    at.text_input(key=f"{K}decode_ids").set_value("31373 99999999").run()
    assert any("99999999" in e.value and "no token id" in e.value for e in at.error)
    at.text_input(key=f"{K}decode_ids").set_value("12, abc").run()
    assert any("'abc'" in e.value.replace("\\", "") for e in at.error)  # escaped Markdown: \'abc\'
    at.text_input(key=f"{K}decode_ids").set_value("447").run()  # a lone byte of a character
    assert any("not valid UTF-8" in c.value for c in at.caption)
    assert at.session_state[f"{K}text"]  # the text is untouched


def test_big_text_pages_show_the_same_stretch_in_every_column():
    text = "".join(f"line {i}: naïve café 안녕 👋🏽 {i * 7919}\n" for i in range(12_000))  # ~430 K chars
    at = set_text(app(tokenizers="gpt2,cl100k_base,mistral_sp"), text)
    assert set(heads(at)) == {"gpt2", "cl100k_base", "mistral_sp"}  # the loop below checks each one
    for name, n in heads(at).items():
        assert n == len(get_tokenizer(name).tokenize(text))  # counts cover the whole text
    pages = at.number_input(key=f"{K}page").max
    assert pages > 1
    for page in [1, 7, pages]:
        at.number_input(key=f"{K}page").set_value(page).run()
        assert not at.exception
        import re

        cap = [c.value for c in at.caption if c.value.startswith("Showing characters")][0]
        first, last = (int(x.replace(",", "")) for x in re.search(r"([\d,]+)–([\d,]+)", cap).groups())
        seen = [visible_text(b) for b in spans_html(at)]
        assert len(seen) == 3
        for s_ in seen:  # every column covers this page's characters (a straddling token may add a few)
            assert text[first - 1:last] in s_ and s_ in text
            assert len(s_) < (last - first + 1) + 40


def test_downloads_are_offered_while_their_popovers_are_open():
    """Two popovers, "Download tokens" and "Download spans"; closed (as a pause rerun finds them) they draw
    no buttons, and the upload panel and the boundaries' reference picker none of their widgets either."""
    at = set_text(app(tokenizers="gpt2,cl100k_base"), "hello world")
    assert [b.proto.label for b in at.get("download_button")] == []
    assert f"{K}upload_file" not in [w.proto.id.rsplit("-", 1)[-1] for w in at.get("file_uploader")]
    assert f"{K}ref" not in [w.key for w in at.selectbox]
    at.session_state[f"{K}tokens_pop"] = True
    at.session_state[f"{K}spans_pop"] = True
    at.run()
    labels = [b.proto.label for b in at.get("download_button")]
    assert labels == ["Download tokens (CSV)", "Download tokens (JSON)", "Download spans (SVG, for slides)",
                      "Download spans (HTML page)"]
    at.toggle(key=f"{K}diff").set_value(True).run()
    assert at.selectbox(key=f"{K}ref").value == "gpt2"


def test_exports_hold_every_token():
    import csv
    import io

    from ui import export as cmp

    text = "hello world 👋"
    results = {n: get_tokenizer(n).tokenize(text) for n in ["gpt2", "cl100k_base"]}
    data = json.loads(cmp.export_json(text, results, parse_special=False))
    assert data["text"] == text
    for n, toks in results.items():
        assert data["tokenizers"][n]["id"] == list(toks.ids)
        assert list(data["tokenizers"][n]) == data["columns"] == cmp.COLUMNS
    rows = list(csv.DictReader(io.StringIO(cmp.export_csv(results))))
    assert len(rows) == sum(len(t) for t in results.values())
    assert rows[0]["tokenizer"] == "gpt2" and rows[0]["id"] == "31373"


def test_missing_vocabulary_shows_the_fix_and_keeps_the_page(tmp_path, monkeypatch):
    import streamlit as st
    import tiktoken.registry

    import tokenizers

    monkeypatch.setattr(tiktoken.registry, "ENCODINGS", {})
    monkeypatch.setenv("TOKEN_LENS_CACHE", str(tmp_path))
    monkeypatch.delenv("TIKTOKEN_CACHE_DIR", raising=False)
    monkeypatch.setattr(tokenizers.registry, "_built", {})
    st.cache_resource.clear()
    try:
        at = app()
        errors = [e.value for e in at.error]
        assert len(errors) == 1, errors  # one message, at the top of the page, naming every missing one
        assert "unavailable offline" in errors[0] and "tokenizers.vocabularies.provision" in errors[0]
        assert len(at.main.children[1].error) == 1  # above the page (app.py's notice_area), not beside each column
        assert "custom_bpe" in heads(at)  # needs no file: still renders
    finally:
        st.cache_resource.clear()


def test_bulk_export_columns_equal_token_objects():
    """The exports' fast columns (built from arrays) say exactly what the Token objects say."""
    from tokenizers.analysis.samples import mixed_scripts

    from ui import export as cmp

    text = "".join(TRICKY_TEXTS) + mixed_scripts(3000) + "a\u0301\U0001F600x"
    for name in ["custom_bpe", "gpt2", "cl100k_base", "mistral_sp"]:
        for t in (text, "ascii only text", ""):
            toks = get_tokenizer(name).tokenize(t, allowed_special="all")
            rows = cmp.token_rows(toks[:])
            assert [dict(zip(cmp.COLUMNS, r)) for r in zip(*cmp.token_columns(toks))] == rows, name


def components(at, name: str) -> list[dict]:
    return [json.loads(c.proto.bytes or c.proto.json or c.proto.mixed.json) for c in at.get("bidi_component")
            if c.proto.component_name == f"token_lens.{name}"]


def test_two_texts_side_by_side():
    at = app(tokenizers="gpt2,cl100k_base", ab="1", text="hello world", text_b="héllo wörld, hello world")
    assert at.toggle(key=f"{K}ab").value
    counts = [b for b in html_bodies(at) if 'class="tl-counts"' in b][0]
    for name in ("gpt2", "cl100k_base"):
        tok = get_tokenizer(name)
        a = len(tok.encode("hello world"))
        b = len(tok.encode("héllo wörld, hello world"))
        row = counts.split(f'data-label="tokenizer">{tok.title}</td>')[1].split("</tr>")[0]
        assert f'data-label="tokens A">{a:,}<' in row and f'data-label="tokens B">{b:,}<' in row
        assert f'data-label="B − A">{b - a:,}<' in row
    heads = [b for b in html_bodies(at) if 'class="tl-head"' in b]
    assert sum('data-tokenizer="gpt2:b"' in h for h in heads) == 1  # B's own column
    assert len(components(at, "token_spans")) == 4
    assert at.query_params["ab"] == "1" and at.query_params["text_b"] == "héllo wörld, hello world"


def counts_row(at, title: str) -> str:
    counts = [b for b in html_bodies(at) if 'class="tl-counts"' in b][0]
    return counts.split(f'data-label="tokenizer">{title}</td>')[1].split("</tr>")[0]


def test_counts_ratios_are_to_cl100k_by_default_and_to_the_reference_picked():
    text = "Tokenization isn't magic: 1234567 + 89 = ?"
    n = {name: len(get_tokenizer(name).encode(text)) for name in default_tokenizers()}
    at = app(text=text)  # the defaults: Custom BPE first
    assert at.selectbox(key=f"{K}vs").value == "cl100k_base"
    for name in default_tokenizers():
        ratio = f"{n[name] / n['cl100k_base']:,.3f}".rstrip("0").rstrip(".")
        assert f'data-label="tokens vs reference">{ratio}<' in counts_row(at, get_tokenizer(name).title)
    assert "vs" not in at.query_params  # the default is not written
    rerun(at, **{f"{K}vs": "gpt2"})
    assert f'data-label="tokens vs reference">1<' in counts_row(at, "GPT-2")
    assert at.query_params["vs"] == "gpt2"
    again = app(text=text, vs="gpt2")  # the link reproduces it
    assert again.selectbox(key=f"{K}vs").value == "gpt2"
    # without cl100k_base, the first tokenizer shown
    assert app(text=text, tokenizers="gpt2,mistral_sp").selectbox(key=f"{K}vs").value == "gpt2"


def test_custom_bpe_header_says_what_it_is():
    at = app(text="hello world")
    [head] = [b for b in html_bodies(at) if 'data-tokenizer="custom_bpe"' in b and "tl-head" in b]
    assert "own small BPE, trained at first use on Python standard-library docstrings: 2,048 tokens" in head
    [gpt2] = [b for b in html_bodies(at) if 'data-tokenizer="gpt2"' in b and "tl-head" in b]
    assert "tl-head-note" not in gpt2


def test_text_with_boundaries_sends_cuts_in_javascript_offsets():
    text = "a😀b مرحبا"
    at = app(tokenizers="cl100k_base", view="Text with boundaries", text=text)
    [data] = components(at, "boundaries")
    assert data["text"] == text
    toks = get_tokenizer("cl100k_base").tokenize(text, disallowed_special=())
    from ui.spans import segments

    starts = [s.char_span[0] for s in segments(text, toks)][1:]
    # the emoji is one code point but two UTF-16 units: every cut after it moves by one
    assert data["cuts"] == [c + (1 if c > 1 else 0) for c in starts]


def test_a_pinned_token_shows_details_tree_and_link():
    text = "Tokenization isn't magic"
    at = app_test(query={"text": text, "tokenizers": "gpt2,cl100k_base"},
                  state={f"{K}pinned": ("cl100k_base", "a", 1, hash(text))})
    assert not at.exception
    tid = get_tokenizer("cl100k_base").encode(text)[1]
    assert any(f"**Token {tid}**" in m.value for m in at.markdown)
    assert any('class="tl-tree"' in b for b in html_bodies(at))
    spans = [d for d in components(at, "token_spans") if d["owner"] == "compare:cl100k_base:a"][0]
    assert [s for s in spans["segs"] if "tl-pin" in s[0]][0][3] == 1
    links = at.get("page_link")
    assert links and "Inside" in links[0].proto.label
    at.session_state[f"{K}text"] = "something else"  # a new text: the pin no longer applies
    at.run()
    assert not any(f"**Token {tid}**" in m.value for m in at.markdown)


def test_presentation_mode_and_font_size_from_the_link():
    at = app(present="1", font="XL", tokenizers="gpt2", text="hello")
    assert at.toggle(key=f"{K}present").value and at.segmented_control(key=f"{K}font").value == "XL"
    assert not at.title  # the title gives its room to the results
    [spans] = components(at, "token_spans")
    assert spans["font"] == "1.6rem"
    assert at.query_params["present"] == "1" and at.query_params["font"] == "XL"


def test_live_box_takes_only_edits_on_the_current_revision():
    """An edit typed before Python replaced the text (an example) must not undo the replacement."""
    from app_pages.kit import widgets

    at = app(tokenizers="gpt2", text="start")
    box = [c for c in at.get("bidi_component") if c.proto.component_name == "token_lens.live_text"]
    assert box and json.loads(box[0].proto.json or box[0].proto.mixed.json)["value"] == "start"
    at.selectbox(key=f"{K}example").set_value("English prose").run()
    rev = at.session_state[f"{K}text_rev"]
    assert rev == 1 and at.session_state[f"{K}text"].startswith("The lighthouse keeper")
    [data] = [json.loads(c.proto.json or c.proto.mixed.json) for c in at.get("bidi_component")
              if c.proto.component_name == "token_lens.live_text"]
    assert data["rev"] == 1 and data["value"].startswith("The lighthouse")
    assert widgets.LIVE_LIMIT == 20_000 and widgets.LIVE_DEBOUNCE_MS == 150


def test_a_token_pinned_in_text_b_opens_text_b():
    a, b = "hello world", "Tokenization isn't magic"
    at = app_test(query={"text": a, "text_b": b, "ab": "1", "tokenizers": "cl100k_base"},
                  state={f"{K}pinned": ("cl100k_base", "b", 1, hash(b))})
    assert not at.exception
    tid = get_tokenizer("cl100k_base").encode(b)[1]
    assert any(f"**Token {tid}**" in m.value for m in at.markdown)
    from urllib.parse import parse_qs

    link = at.get("page_link")[0].proto
    assert "Inside" in link.label
    assert parse_qs(link.query_string) == {"tokenizer": ["cl100k_base"], "token": ["1"], "text": [b]}


def test_bulk_window_equals_slicing():
    """ui.spans.window builds the same Token objects as TokenList slicing, for every kind of token."""
    from conftest import TRICKY_TEXTS
    from tokenizers.analysis.samples import mixed_scripts
    from ui.spans import window

    text = "".join(TRICKY_TEXTS) + mixed_scripts(2000) + "a\u0301\U0001F600x"
    for name in ["custom_bpe", "gpt2", "cl100k_base", "mistral_sp", "o200k_base"]:
        for t in (text, "ascii only", ""):
            for special in ("all", None):
                toks = (get_tokenizer(name).tokenize(t, allowed_special="all") if special
                        else get_tokenizer(name).tokenize(t, disallowed_special=()))
                n = len(toks)
                for lo, hi in ((0, n), (n // 3, n // 2), (n, n)):
                    assert window(toks, lo, hi) == toks[lo:hi], (name, lo, hi)


def test_the_whole_text_window_equals_the_mapped_one():
    """ui.paging.char_window of the whole text (without the character map) is char_window_mapped's, for
    byte-level BPE, SentencePiece (its empty dummy-prefix piece) and a tokenizer.json pipeline, with and
    without special tokens, on texts with multi-byte characters, a text of one character and none."""
    from tokenizers.analysis.samples import mixed_scripts
    from ui.paging import char_window, char_window_mapped

    texts = [*TRICKY_TEXTS, "".join(TRICKY_TEXTS) + mixed_scripts(500), "é", "", " ", "a<|endoftext|>"]
    for name in ["custom_bpe", "gpt2", "cl100k_base", "mistral_sp", "o200k_base", "qwen", "deepseek_v3", "whisper"]:
        tok = get_tokenizer(name)
        for t in texts:
            for toks in (tok.tokenize(t, allowed_special="all"), tok.tokenize(t, disallowed_special=())):
                assert char_window(toks, 0, len(t)) == char_window_mapped(toks, 0, len(t)), (name, t)


def test_decoder_placeholder_is_valid_for_its_tokenizer():
    from ui.formatting import parse_ids

    at = app()
    at.session_state["compare_decoder"] = True
    at.run()
    dec = at.selectbox(key="compare_decode_tok")
    tok = get_tokenizer(dec.value)
    placeholder = at.text_input(key="compare_decode_ids").proto.placeholder
    ids = parse_ids(placeholder)
    tok.check_ids(ids)  # raises for an id the tokenizer does not have
    at.text_input(key="compare_decode_ids").set_value(placeholder).run()
    assert not at.error
    # the decoder may use any tokenizer, not only the ones shown
    from tokenizers import REGISTRY

    assert set(dec.options) >= {e.title for e in REGISTRY.values()}


def test_link_naming_a_lab_model_explains_and_keeps_the_diff():
    at = app(tokenizers="lab_bpe,gpt2,cl100k_base", diff="1", ref="cl100k_base")
    warn = " ".join(w.value for w in at.warning)
    assert "lab\\_bpe" in warn or "lab_bpe" in warn
    assert "only in the visit that trained" in warn
    assert at.toggle(key="compare_diff").value is True
    assert at.selectbox(key="compare_ref").value == "cl100k_base"
    assert at.query_params["diff"] == "1" and at.query_params["ref"] == "cl100k_base"


def test_table_view_marks_spaces():
    at = app(text="a  b", tokenizers="gpt2", view="Table", ws="1")
    assert list(at.dataframe[0].value["token"]) == ["a", "·", "·b"]


# -- model names ------------------------------------------------------------------------------------
def test_a_model_name_adds_the_tokenizer_it_uses():
    at = app(tokenizers="gpt2")
    at.text_input(key=f"{K}model").set_value("Qwen/Qwen2.5-7B-Instruct").run()
    assert not at.exception
    assert at.multiselect(key=f"{K}tokenizers").value == ["gpt2", "qwen"] and list(heads(at)) == ["gpt2", "qwen"]
    assert at.text_input(key=f"{K}model").value == ""  # emptied: the tokenizer is in the picker now
    assert any("Qwen/Qwen2.5-7B-Instruct" in c.value and "added" in c.value for c in at.caption)
    assert at.query_params["tokenizers"] == "gpt2,qwen"
    at.text_input(key=f"{K}model").set_value("GPT-2").run()  # already picked: nothing doubles
    assert at.multiselect(key=f"{K}tokenizers").value == ["gpt2", "qwen"]


def test_an_unknown_model_name_says_what_is_close_and_keeps_the_text():
    at = app(tokenizers="gpt2")
    at.text_input(key=f"{K}model").set_value("gpt-4x").run()
    assert not at.exception
    assert at.multiselect(key=f"{K}tokenizers").value == ["gpt2"]
    assert at.text_input(key=f"{K}model").value == "gpt-4x"
    errors = [e.value for e in at.error]
    assert len(errors) == 1 and errors[0].startswith("No tokenizer is known for the model") and "gpt\\-4o" in errors[0]
    # a model whose tokenizer is not offered says why; Markdown in the name stays text
    at.text_input(key=f"{K}model").set_value("claude-3-opus **x** <script>").run()
    assert [e.value for e in at.error] == [
        "Token Lens does not offer the tokenizer of \\'claude\\-3\\-opus \\*\\*x\\*\\* \\<script\\>\\'\\: it uses a "
        "tokenizer Anthropic has not published \\(claude\\_legacy is Claude 1 and 2\\'s\\)\\."]
    at.text_input(key=f"{K}model").set_value("gpt-4o").run()  # fixed: the message goes
    assert not at.error and at.multiselect(key=f"{K}tokenizers").value == ["gpt2", "o200k_base"]


def test_a_link_names_models():
    at = app(model="gpt-4o")
    assert list(heads(at)) == ["o200k_base"] and at.query_params["tokenizers"] == "o200k_base"
    assert "model" not in at.query_params  # what it writes back is tokenizers=
    at = app(tokenizers="gpt2", model="meta-llama/Meta-Llama-3.1-8B,gpt-4o,nonsense-9")
    assert list(heads(at)) == ["gpt2", "llama3", "o200k_base"]
    warnings = [w.value for w in at.warning]
    assert warnings == ["A model in the link was left out: No tokenizer is known for the model \\'nonsense\\-9\\'\\. "
                        "Or pick a tokenizer by name\\."]


def head_rows(at) -> list[list[str]]:
    """The tokenizers' headers as the reader sees them: rows, top to bottom, of headers side by side (in
    the columns of one row of st.columns, left to right)."""
    import re

    heads = []  # (the row of columns it is in, its column there, its name), in page order

    def walk(node, path):
        if type(node).__name__ == "Html":
            m = re.search(r'class="tl-head" data-tokenizer="([^"]+)"', node.proto.body)
            at_column = max((i for i, (kind, _) in enumerate(path) if kind == "Column"), default=None)
            if m and at_column is not None:
                heads.append((path[:at_column], path[at_column][1], m.group(1)))
            elif m:
                heads.append(((), 0, m.group(1)))
        kids = getattr(node, "children", None) or {}
        for i, kid in (kids.items() if isinstance(kids, dict) else enumerate(kids)):
            walk(kid, (*path, (type(kid).__name__, i)))

    walk(at.main, ())
    rows, last = [], None
    for row, column, name in heads:
        if last and last[0] == row and column > last[1]:
            rows[-1].append(name)  # beside the one before
        else:
            rows.append([name])  # under it
        last = (row, column)
    return rows


@pytest.mark.parametrize("present, names, rows", [
    ("1", "gpt2,cl100k_base", [["gpt2", "cl100k_base"]]),
    ("1", "gpt2,cl100k_base,o200k_base,mistral_sp", [["gpt2", "cl100k_base", "o200k_base", "mistral_sp"]]),
    ("1", "gpt2,cl100k_base,o200k_base,mistral_sp,llama3", [["gpt2", "cl100k_base", "o200k_base"],
                                                            ["mistral_sp", "llama3"]]),
    ("0", "gpt2,cl100k_base,o200k_base", [["gpt2", "cl100k_base"], ["o200k_base"]]),
])
def test_presentation_puts_two_to_four_tokenizers_side_by_side(present, names, rows):
    """Failed on main when presenting: one tokenizer to a row, so GPT-2 and cl100k never shared a
    projector's screen (issue 20)."""
    at = app(present=present, tokenizers=names, text="hello world")
    assert head_rows(at) == rows
