"""Every page keeps its settings when a visitor goes to another page and comes back, and a page's link
reproduces its view (app_pages/kit/links.py). Also the rules that keep it so: keyed input widgets keep
their value while not drawn, st.query_params is touched only by the link codecs, and compare_view is
made of parts a reader can hold."""

import ast
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from conftest import app_test, goto

ROOT = Path(__file__).resolve().parent.parent
PAGES = ROOT / "app_pages"
INPUT_WIDGETS = {"selectbox", "multiselect", "toggle", "checkbox", "text_input", "text_area", "number_input",
                 "radio", "select_slider", "segmented_control", "slider", "pills"}
# keyed inputs that do not keep their value while not drawn, and why
TRANSIENT = {
    ("compare.py", 'f"{K}example"'): "a picker that loads a text and goes back to its placeholder",
    ("compare.py", 'f"{K}page"'): "the page of a long text: a new text has its own pages",
    ("quirks.py", 'f"{K}{card.key}_preset"'): "a picker that loads a card's texts and goes back to its placeholder",
    ("inside.py", 'f"{K}stepk"'): "the merge step within one chunk, whose number of steps changes with the chunk",
}
# the upload form's fields belong to the one file being loaded (app_pages/kit/compare_upload.py)
TRANSIENT_FILES = {"compare_upload.py"}


def app() -> AppTest:
    """A visit not yet run (the tests put a link in first); conftest.app_test runs it."""
    return app_test(timeout=180, run=False)


def go(at: AppTest, page: str) -> AppTest:
    at.switch_page(f"app_pages/{page}.py").run()
    assert not at.exception, at.exception
    return at


def away_and_back(at: AppTest, page: str, elsewhere: str = "algorithms") -> AppTest:
    go(at, elsewhere)
    return go(at, page)


# -- the rules -------------------------------------------------------------------------------------------
def widget_calls():
    for path in sorted(PAGES.rglob("*.py")):
        src = path.read_text(encoding="utf-8")
        for node in ast.walk(ast.parse(src)):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                yield path.name, src, node


def test_every_keyed_input_widget_keeps_its_value_while_not_drawn():
    missing = []
    seen = 0
    for name, src, node in widget_calls():
        kws = {k.arg: k.value for k in node.keywords}
        if node.func.attr not in INPUT_WIDGETS or "key" not in kws or name in TRANSIENT_FILES:
            continue
        seen += 1
        key = ast.get_source_segment(src, kws["key"])
        if (name, key) in TRANSIENT:
            continue
        keep = kws.get("persist_state")
        if not (isinstance(keep, ast.Name) and keep.id == "KEEP"):
            missing.append(f"{name}:{node.lineno} {node.func.attr}(key={key})")
    assert seen > 60
    assert not missing, "keyed input widgets without persist_state=KEEP (app_pages/kit/links.py):\n" + "\n".join(missing)


def test_tabs_with_a_key_open_where_the_visitor_left_them():
    plain = [f"{name}:{node.lineno}" for name, src, node in widget_calls()
             if node.func.attr == "tabs" and any(k.arg == "key" for k in node.keywords)
             and ast.get_source_segment(src, node.func.value) == "st" and name != "links.py"]
    assert not plain, f"keyed st.tabs outside links.tabs: {plain}"


def test_query_params_are_read_and_written_only_by_the_link_codecs():
    used = [f"{path.name}:{node.lineno}" for path in [*PAGES.rglob("*.py"), ROOT / "app.py"]
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
            if isinstance(node, ast.Attribute) and node.attr == "query_params" and path.name != "links.py"]
    assert not used, f"st.query_params outside app_pages/kit/links.py: {used}"
    assert "def read(" in (PAGES / "kit" / "links.py").read_text() and "def write(" in (PAGES / "kit" / "links.py").read_text()


def test_the_old_ways_of_keeping_state_are_gone():
    src = "\n".join(p.read_text(encoding="utf-8") for p in PAGES.rglob("*.py"))
    for old in ("__kept", "def remember(", "def restore(", "def keep_view(", "def keep_font(", "last_view",
                "url_written", f'"{{K}}init"'):
        assert old not in src, old


def test_compare_view_is_made_of_parts_a_reader_can_hold():
    tree = ast.parse((PAGES / "compare.py").read_text(encoding="utf-8"))
    functions = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    for name, fn in functions.items():
        assert fn.end_lineno - fn.lineno + 1 <= 60, f"{name} is {fn.end_lineno - fn.lineno + 1} lines"
        assert not any(isinstance(n, ast.FunctionDef) for n in ast.walk(fn) if n is not fn), f"{name} has a closure"
    assert {"compare_view", "input_panel", "draw_column", "counts_and_downloads", "decoder"} <= set(functions)


# -- the codec -------------------------------------------------------------------------------------------
def test_bad_link_values_are_ignored():
    at = app()
    at.query_params.update(view="Nonsense", font="XXL", special="yes", tokenizers="gpt2", text="hi", mode="x")
    at.run()
    assert not at.exception
    assert at.radio(key="compare_view").value == "Spans"
    assert at.segmented_control(key="compare_font").value == "M"
    assert at.toggle(key="compare_special").value is False
    assert at.radio(key="compare_mode").value == "Paste"
    assert at.query_params["view"] == "Spans" and "font" not in at.query_params
    assert at.query_params["special"] == "0"


def test_the_old_view_name_in_a_link_still_opens_its_view():
    at = app()
    at.query_params.update(view="Boundaries", tokenizers="gpt2", text="hi")
    at.run()
    assert at.radio(key="compare_view").value == "Text with boundaries"


def test_quirks_opens_compare_with_the_same_link_codec():
    from app_pages.kit import links

    assert links.url("compare", {"text": "a b", "tokenizers": ["gpt2", "o200k_base"], "special": True}) == \
        "./?text=a%20b&tokenizers=gpt2%2Co200k_base&special=1"
    assert links.url("compare", {"text": "x" * 2001, "tokenizers": ["gpt2"]}) is None


# -- every page keeps its settings --------------------------------------------------------------------------
def test_compare_keeps_its_options_and_its_link_reproduces_the_view():
    at = app()
    at.run()
    at.multiselect(key="compare_tokenizers").set_value(["o200k_base", "gpt2"]).run()
    for flag in ("special", "ws", "alt", "ab"):
        at.toggle(key=f"compare_{flag}").set_value(True).run()
    at.radio(key="compare_view").set_value("IDs").run()
    at.segmented_control(key="compare_font").set_value("L").run()
    at.selectbox(key="compare_metric").set_value("bytes/token").run()
    at.session_state["compare_text"] = "hello world"
    at.session_state["compare_text_b"] = "hola mundo"
    at.run()
    link = dict(at.query_params)
    away_and_back(at, "compare", elsewhere="bpe_lab")
    assert at.multiselect(key="compare_tokenizers").value == ["o200k_base", "gpt2"]
    assert all(at.toggle(key=f"compare_{f}").value for f in ("special", "ws", "alt", "ab"))
    assert at.radio(key="compare_view").value == "IDs"
    assert at.segmented_control(key="compare_font").value == "L"
    assert at.selectbox(key="compare_metric").value == "bytes/token"
    assert at.session_state["compare_text"] == "hello world"
    assert dict(at.query_params) == link
    # the link alone, in a new visit, reproduces the view
    fresh = app()
    fresh.query_params.update(link)
    fresh.run()
    assert not fresh.exception
    assert fresh.multiselect(key="compare_tokenizers").value == ["o200k_base", "gpt2"]
    assert all(fresh.toggle(key=f"compare_{f}").value for f in ("special", "ws", "alt", "ab"))
    assert fresh.radio(key="compare_view").value == "IDs" and fresh.segmented_control(key="compare_font").value == "L"
    assert fresh.session_state["compare_text_b"] == "hola mundo"
    assert [c.value for c in fresh.code] == [c.value for c in at.code]


def test_compare_keeps_its_options_across_chat_mode_and_back():
    at = app()
    at.run()
    at.toggle(key="compare_ws").set_value(True).run()
    at.radio(key="compare_mode").set_value("Chat").run()
    assert dict(at.query_params) == {"mode": "chat"}
    at.multiselect(key="compare_chat_tokenizers").set_value(["llama3"]).run()
    at.toggle(key="compare_chat_prompt").set_value(False).run()
    at.text_area(key="compare_chat_text_1").set_value("What is a byte?").run()
    away_and_back(at, "compare", elsewhere="inside")
    assert at.radio(key="compare_mode").value == "Chat"
    assert at.multiselect(key="compare_chat_tokenizers").value == ["llama3"]
    assert at.toggle(key="compare_chat_prompt").value is False
    assert at.text_area(key="compare_chat_text_1").value == "What is a byte?"
    at.radio(key="compare_mode").set_value("Paste").run()
    assert at.toggle(key="compare_ws").value is True


def test_inside_keeps_its_options_and_its_link_reproduces_the_view():
    at = app()
    at.run()
    go(at, "inside")
    at.selectbox(key="inside_tok").set_value("gpt2").run()
    at.session_state["inside_text"] = "hello world"
    at.run()
    at.selectbox(key="inside_pick_gpt2").set_value(1).run()
    at.selectbox(key="inside_vcat").set_value(at.selectbox(key="inside_vcat").options[1]).run()
    vcat = at.selectbox(key="inside_vcat").value
    link = dict(at.query_params)
    assert link == {"tokenizer": "gpt2", "text": "hello world", "token": "1"}
    away_and_back(at, "inside", elsewhere="quirks")
    assert at.selectbox(key="inside_tok").value == "gpt2"
    assert at.session_state["inside_text"] == "hello world"
    assert at.selectbox(key="inside_pick_gpt2").value == 1
    assert at.selectbox(key="inside_vcat").value == vcat
    fresh = app()
    fresh.switch_page("app_pages/inside.py")
    fresh.query_params.update(link)
    fresh.run()
    assert fresh.selectbox(key="inside_tok").value == "gpt2" and fresh.selectbox(key="inside_pick_gpt2").value == 1


def test_bpe_lab_keeps_its_options():
    at = app()
    at.run()
    go(at, "bpe_lab")
    at.radio(key="lab_source").set_value("Paste").run()
    at.text_area(key="lab_text").set_value("abababab cdcd").run()
    at.number_input(key="lab_vocab").set_value(300).run()
    at.selectbox(key="lab_split").set_value("Custom regex").run()
    at.text_input(key="lab_regex").set_value(r"\w+").run()
    at.text_input(key="lab_specials").set_value("<|x|>").run()
    away_and_back(at, "bpe_lab")
    assert at.radio(key="lab_source").value == "Paste"
    assert at.text_area(key="lab_text").value == "abababab cdcd"
    assert at.number_input(key="lab_vocab").value == 300
    assert at.selectbox(key="lab_split").value == "Custom regex"
    assert at.text_input(key="lab_regex").value == r"\w+" and at.text_input(key="lab_specials").value == "<|x|>"


def test_sentencepiece_lab_keeps_its_options():
    at = app()
    at.run()
    go(at, "sentencepiece_lab")
    at.selectbox(key="sp_preset").set_value("T5-style unigram").run()
    at.number_input(key="sp_opt_vocab_size").set_value(500).run()
    at.checkbox(key="sp_split_long").check().run()
    model_type = at.selectbox(key="sp_opt_model_type").value
    away_and_back(at, "sentencepiece_lab")
    assert at.selectbox(key="sp_preset").value == "T5-style unigram"
    assert at.number_input(key="sp_opt_vocab_size").value == 500
    assert at.checkbox(key="sp_split_long").value is True
    assert at.selectbox(key="sp_opt_model_type").value == model_type


def test_algorithms_keeps_its_options():
    at = app()
    at.run()
    go(at, "algorithms")
    at.number_input(key="alg_vocab").set_value(300).run()
    at.radio(key="alg_source").set_value("Paste").run()
    at.text_area(key="alg_text").set_value("low lower lowest").run()
    away_and_back(at, "algorithms", elsewhere="compare")
    assert at.number_input(key="alg_vocab").value == 300
    assert at.radio(key="alg_source").value == "Paste"
    assert at.text_area(key="alg_text").value == "low lower lowest"


def test_quirks_keeps_its_options_its_cards_and_its_tab():
    from ui.quirks import CARDS

    at = app()
    at.run()
    go(at, "quirks")
    card = CARDS[0].key
    at.multiselect(key="quirks_tokenizers").set_value(["gpt2"]).run()
    at.toggle(key="quirks_ws").set_value(True).run()
    at.session_state[f"quirks_{card}_a"] = "strawberry"
    at.run()
    at.toggle(key=f"quirks_{card}_two").set_value(True).run()
    away_and_back(at, "quirks")
    assert at.multiselect(key="quirks_tokenizers").value == ["gpt2"]
    assert at.toggle(key="quirks_ws").value is True
    assert at.session_state[f"quirks_{card}_a"] == "strawberry"
    assert at.toggle(key=f"quirks_{card}_two").value is True
    at.session_state["quirks_tab"] = "Rare long tokens"
    at.run()
    at.select_slider(key="quirks_rare_n").set_value(20).run()
    away_and_back(at, "quirks")
    assert at.session_state["quirks_tab"] == "Rare long tokens"
    assert at.select_slider(key="quirks_rare_n").value == 20


def test_languages_keeps_its_options_and_its_tab():
    at = app()
    at.run()
    go(at, "languages")
    at.multiselect(key="languages_tokenizers").set_value(["gpt2", "o200k_base"]).run()
    at.selectbox(key="languages_ref").set_value("fra").run()
    away_and_back(at, "languages")
    assert at.multiselect(key="languages_tokenizers").value == ["gpt2", "o200k_base"]
    assert at.selectbox(key="languages_ref").value == "fra"
    at.session_state["languages_tab"] = "Programs"
    at.run()
    at.selectbox(key="languages_code_ref").set_value("go").run()
    away_and_back(at, "languages")
    assert at.session_state["languages_tab"] == "Programs"
    assert at.selectbox(key="languages_code_ref").value == "go"


@pytest.mark.parametrize("page", ["compare", "inside"])
def test_a_link_into_a_page_wins_over_what_it_kept(page):
    """A link followed during a visit (Compare's "Open in Inside a token") sets the page; Compare reads its
    link once per visit, and again only for a link into it that names tokenizers (Quirks' "Open on
    Compare"), not for parameters alone."""
    at = app()
    at.run()
    if page == "inside":
        go(at, "inside")
        at.selectbox(key="inside_tok").set_value("gpt2").run()
        at.query_params.clear()
        at.query_params.update({"tokenizer": "cl100k_base", "text": "abc", "id": "1917"})
        at.run()
        assert at.selectbox(key="inside_tok").value == "cl100k_base" and at.toggle(key="inside_by_id").value
        assert at.text_input(key="inside_id").value == "1917"
    else:
        at.toggle(key="compare_ws").set_value(True).run()
        at.query_params.clear()
        at.query_params.update({"ws": "0"})
        at.run()
        assert at.toggle(key="compare_ws").value is True
        at.query_params.update({"ws": "0", "tokenizers": "gpt2", "text": "followed"})
        at.run()
        assert at.toggle(key="compare_ws").value is False and at.session_state["compare_text"] == "followed"


def test_bpe_lab_keeps_its_view_step_and_search_after_training():
    at = app()
    at.run()
    go(at, "bpe_lab")
    at.button(key="lab_classic").click().run()   # trains aaabdaaabac and opens the step view at step 3
    assert not at.exception and at.session_state["lab_model"] is not None
    at.slider(key="lab_step").set_value(2).run()
    at.toggle(key="lab_names").set_value(True).run()
    away_and_back(at, "bpe_lab", elsewhere="compare")
    assert at.segmented_control(key="lab_view").value == "Step by step"
    assert at.slider(key="lab_step").value == 2 and at.toggle(key="lab_names").value is True
    at.segmented_control(key="lab_view").set_value("Merges").run()
    at.text_input(key="lab_search").set_value("aa").run()
    away_and_back(at, "bpe_lab", elsewhere="inside")
    assert at.segmented_control(key="lab_view").value == "Merges"
    assert at.text_input(key="lab_search").value == "aa"


def test_sentencepiece_lab_keeps_its_open_tab_and_what_is_typed_in_it():
    at = app()
    at.run()
    go(at, "sentencepiece_lab")
    at.button(key="sp_train").click().run()
    assert not at.exception and at.session_state["sp_model"] is not None
    at.session_state["sp_tab"] = "Encode"
    at.run()
    at.session_state["sp_etext"] = "kept across pages"
    at.run()
    away_and_back(at, "sentencepiece_lab", elsewhere="languages")
    assert at.session_state["sp_tab"] == "Encode"
    assert at.session_state["sp_etext"] == "kept across pages"


# -- the other pages' links: a reload or a shared link opens the same form (issue 20) ------------------------
def link_round_trip(page: str, settings: dict) -> tuple[dict, AppTest]:
    """Set `settings` (session-state key -> value, as the widgets would), take the page's link, and open
    that link in a new visit; (the link, the new visit)."""
    at = app()
    at.run()
    goto(at, page)
    for key, value in settings.items():
        at.session_state[key] = value
    at.run()
    assert not at.exception, at.exception
    link = dict(at.query_params)
    fresh = app()
    fresh.run()
    goto(fresh, page, query=link)
    assert not fresh.exception, fresh.exception
    for key, value in settings.items():
        assert fresh.session_state[key] == value, key
    return link, fresh


def test_the_bpe_lab_form_is_in_its_link():
    link, fresh = link_round_trip("bpe_lab", {"lab_text": "my lecture's text 🙂", "lab_vocab": 300,
                                              "lab_split": "Custom regex", "lab_regex": r"\w+",
                                              "lab_specials": "<|x|>",
                                              "lab_ties": "Met first in the text (minbpe, the lecture)"})
    assert link == {"text": "my lecture's text 🙂", "vocab": "300", "split": "custom", "regex": r"\w+",
                    "specials": "<|x|>", "ties": "first"}
    assert fresh.text_area(key="lab_text").value == "my lecture's text 🙂"
    assert fresh.number_input(key="lab_vocab").value == 300


def test_the_classic_examples_form_is_in_the_link():
    at = app()
    at.run()
    goto(at, "bpe_lab")
    at.button(key="lab_classic").click().run()
    assert dict(at.query_params) == {"text": "aaabdaaabac", "vocab": "259", "split": "none", "specials": "",
                                     "ties": "first"}


def test_the_bpe_lab_link_with_bad_values_keeps_the_defaults():
    at = app()
    at.run()
    goto(at, "bpe_lab", query={"vocab": "99999", "split": "nonsense", "source": "x", "text": "<script>x</script>"})
    assert not at.exception
    assert at.number_input(key="lab_vocab").value == 276 and at.selectbox(key="lab_split").value == "GPT-4 pattern"
    assert at.text_area(key="lab_text").value == "<script>x</script>"  # a text is a text


def test_the_algorithms_form_and_segment_text_are_in_its_link():
    link, _ = link_round_trip("algorithms", {"alg_source": "Paste", "alg_text": "low lower lowest", "alg_vocab": 300,
                                             "alg_segment": "안녕 👨‍👩‍👧", "alg_ws": True})
    assert link == {"source": "paste", "text": "low lower lowest", "vocab": "300", "segment": "안녕 👨‍👩‍👧",
                    "ws": "1"}


def test_the_sentencepiece_lab_form_is_in_its_link():
    link, _ = link_round_trip("sentencepiece_lab", {"sp_source": "Paste", "sp_text": "a b c\nd e f",
                                                    "sp_opt_model_type": "bpe", "sp_opt_vocab_size": 300,
                                                    "sp_split_long": True})
    assert link == {"source": "paste", "text": "a b c\nd e f", "model_type": "bpe", "vocab": "300",
                    "split_long": "1"}


def test_the_sentencepiece_labs_expert_options_are_in_its_link():
    """Every option of the expander that differs from the preset is in the link, by its own name, and a
    fresh visit to that link trains with the same options (issue 20, item 1)."""
    options = {"sp_opt_byte_fallback": False, "sp_opt_character_coverage": 0.98, "sp_opt_pad_id": 3,
               "sp_opt_bos_id": -1, "sp_opt_normalization_rule_name": "nfkc_cf",
               "sp_opt_user_defined_symbols": "<tool>,<|x|>", "sp_opt_max_sentencepiece_length": 8}
    link, fresh = link_round_trip("sentencepiece_lab", options)
    assert link == {"byte_fallback": "0", "character_coverage": "0.98", "pad_id": "3", "bos_id": "-1",
                    "normalization_rule_name": "nfkc_cf", "user_defined_symbols": "<tool>,<|x|>",
                    "max_sentencepiece_length": "8", "model_type": "bpe", "size": "100000"}
    assert fresh.checkbox(key="sp_opt_byte_fallback").value is False        # Llama 2's preset has it on
    assert fresh.number_input(key="sp_opt_character_coverage").value == 0.98
    assert fresh.number_input(key="sp_opt_bos_id").value == -1


def test_a_sentencepiece_lab_link_with_bad_option_values_keeps_the_presets():
    at = app()
    at.run()
    goto(at, "sentencepiece_lab", query={"character_coverage": "nan", "pad_id": "-7", "bos_id": "--1",
                                         "vocab_size": "x", "normalization_rule_name": "<script>",
                                         "input_sentence_size": "-1"})
    assert not at.exception, at.exception
    assert at.number_input(key="sp_opt_character_coverage").value == 0.99995  # Llama 2's value
    assert at.number_input(key="sp_opt_input_sentence_size").value == 200_000_000
    assert at.selectbox(key="sp_opt_normalization_rule_name").value == "identity"
    assert at.checkbox(key="sp_opt_byte_fallback").value is True              # not in the link: the preset's


def test_the_quirks_and_languages_settings_are_in_their_links():
    link, _ = link_round_trip("quirks", {"quirks_tokenizers": ["gpt2", "o200k_base"], "quirks_ws": True})
    assert link == {"tokenizers": "gpt2,o200k_base", "ws": "1"}
    link, _ = link_round_trip("languages", {"languages_tokenizers": ["gpt2"], "languages_ref": "fra"})
    assert link == {"tokenizers": "gpt2", "ref": "fra"}


def test_a_page_drops_the_last_pages_link():
    """A page writes its own link: Compare's parameters never stay on the BPE Lab's address."""
    at = app()
    at.run()
    at.switch_page("app_pages/bpe_lab.py")
    at.run()
    assert "tokenizers" not in at.query_params and at.query_params["text"] == at.session_state["lab_text"]
