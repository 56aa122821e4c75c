"""Compare: one text (or two), several tokenizers side by side, updated as you type.

Read top to bottom: the link's settings (app_pages/kit/links.py), then compare_view, the page as one
fragment, which calls in order the input panel (settings in, `Inputs` out), the notes under it, the
tokenizing, one column per tokenizer (`draw_column`), the counts and downloads, and the decoder."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field, replace

import pandas as pd
import streamlit as st

from app_pages.kit import links
from app_pages.kit.compare_upload import upload_panel
from app_pages.kit import settings
from app_pages.kit.links import KEEP
from app_pages.kit.settings import FONT_SIZES, VIEWS
from app_pages.kit.shared import (TokenizeFailed, all_tokenizer_names, clean_state_text, lazy_popover, md_title,
                               render_decoder, resolve, spans_downloads, title_of, tokenize_text, user_tokenizers, TOKENIZE_ERRORS)
from app_pages.kit.widgets import (boundaries_view, bump, component_key, live_text, presentation_sidebar,
                               reported, text_sink, token_clicks, token_spans)
from tokenizers import REGISTRY, default_tokenizers
from tokenizers.bpe import files as bpe_files
from tokenizers.core.text import clean_text
from ui import analysis, export, paging
from service import browser_assets, limits
from ui.counts import render_counts
from ui.examples import EXAMPLES
from ui.figures import color_of, count_bars, plotly_text
from ui.formatting import escape_markdown, hexbytes, md_code, md_inline_code
from ui.spans import LEGEND, render_header, span_model
from ui.spans import window as token_window
from ui.trees import render_tree

PAGE_SIZE = 5000          # about this many tokens drawn per tokenizer and page
URL_TEXT_LIMIT = links.TEXT_LIMIT
K = settings.KEYS["compare"]  # widget key prefix
HEAD = f"{K}head_present"  # whether the head (the page run's) was drawn for presenting


def read_link() -> None:
    """The link's settings into session state, once per visit; what it named that does not exist here
    is kept for the page to say."""
    found = links.read("compare")
    if found is None:
        return
    if found.replacement_char:
        st.session_state[f"{K}link_fffd"] = True
    if "tokenizers" in found.values:
        st.session_state[f"{K}unknown"] = found.unknown
        st.session_state[f"{K}lab_missing"] = found.lab
    if "model" in found.values:  # model=gpt-4o: its tokenizer, after the link's tokenizers= (or alone)
        asked = found.values.get("tokenizers", [])
        st.session_state.pop(f"{K}model_link", None)
        st.session_state[f"{K}tokenizers"] = list(dict.fromkeys([*asked, *found.values["model"]]))
    st.session_state[f"{K}link_models"] = found.models


def add_model() -> None:
    """The "Add by model name" box: the tokenizer that model uses joins the picked ones, and the box is
    emptied; a name that maps to none keeps its text and says why, or what is close."""
    from tokenizers import name_for_model

    raw = st.session_state.get(f"{K}model", "")
    st.session_state.pop(f"{K}model_error", None)
    if not raw.strip():
        return
    try:
        name = name_for_model(raw)
    except KeyError as e:
        st.session_state[f"{K}model_error"] = str(e)
        return
    picked = st.session_state.get(f"{K}tokenizers", [])
    if name not in picked:
        st.session_state[f"{K}tokenizers"] = [*picked, name]
    st.session_state[f"{K}model_added"] = (raw.strip(), name)
    st.session_state[f"{K}model"] = ""


def load_example():
    choice = st.session_state[f"{K}example"]
    if choice is not None:
        st.session_state[f"{K}text"] = EXAMPLES[choice]
        bump(f"{K}text")
        st.session_state[f"{K}example"] = None  # back to the placeholder: the text is the user's now


@dataclass
class Inputs:
    """What the input panel read: the texts as typed, the chosen tokenizers and options."""
    text: str
    text_b: str
    names: list[str]
    parse_special: bool
    show_ws: bool
    alternating: bool
    view: str
    ab: bool
    present: bool
    font: str
    replaced: int  # lone surrogates replaced in the texts held in state
    carets: tuple = (None, None)  # where the person typed in A and B this run (characters), if the box sent


@dataclass
class Shown:
    """One run's results, which every column draws from."""
    inputs: Inputs
    clean: str
    clean_b: str
    tokenizers: dict
    results: dict
    results_b: dict
    diff_on: bool
    ref: str | None
    pinned: tuple | None
    sizes: tuple[int, int] = (0, 0)  # UTF-8 bytes of text A and B as typed (above the limit they were cut)
    browser: set = field(default_factory=set)  # the columns of text A whose spans the browser draws (draw_column)
    quiet: bool = False  # quiet_text: the page shows nothing of the text but its spans, heads and counts


# -- the frame and the inputs -------------------------------------------------------------------------
# Page CSS (this page's st.html: it goes when the page does). Both modes put the text and its options in
# a compact block, so that the first spans share the first screen with them (issue 20, at 1280x720).
BLOCK = "[data-testid='stMainBlockContainer']"
# the tokenizer picker takes a row of its own on a phone, not a sliver beside the text size; the
# sidebar's component draws nothing, and hidden it leaves no gap
PICKER = f".st-key-{K}tokenizers{{min-width:min(100%,22rem);}}.st-key-{K}sidebar{{display:none;}}"
DEFAULT_CSS = (f"<style>{BLOCK}{{padding-top:2.25rem;}}{PICKER}"
               f"@media (min-width:640px){{{BLOCK}{{padding-left:2rem;padding-right:2rem;}}}}</style>")
# presenting: no title, narrow margins (the sidebar is collapsed), the tokenizers' names and counts larger
PRESENT_CSS = (f"<style>{BLOCK}{{padding-top:3rem;padding-bottom:2rem;}}{PICKER}"
               f"@media (min-width:640px){{{BLOCK}{{padding-left:1.5rem;padding-right:1.5rem;}}}}"
               ".tl-head{font-size:1.1rem!important;}</style>")


@dataclass
class Areas:
    """Where each part of the page goes (`frame` places them): the input mode (presenting; else None: it is
    in the head), the link's warnings, the
    text box(es), the example and model boxes, what is said under them (the special-token mode; the
    upload panel beside two texts), the tokenizer picker, the text size, the switches, the view with
    the boundary marks. The notes and the results follow them on the page itself (not in containers of
    their own: every block is a message on every rerun), and `top` is None when the link left nothing to
    warn about."""
    mode: object
    top: object
    text: object
    side: object
    aside: object
    picker: object
    size: object
    switches: object
    view: object


def head() -> None:
    """What stays the same while a person types, drawn by the page's run and not by compare_view's (a pause
    rerun sent them all again, each a message): the page's CSS, the sidebar's control (presenting collapses
    it) and, when not presenting, the title beside the input mode. compare_view runs the page again when
    presenting turns on or off."""
    st.session_state.setdefault(f"{K}present", False)
    present = st.session_state[HEAD] = st.session_state[f"{K}present"]
    st.html(PRESENT_CSS if present else DEFAULT_CSS)
    presentation_sidebar(f"{K}sidebar", present)  # ui/web/sidebar.js: Streamlit's own collapse control
    if not present:
        title, mode = st.columns([3, 1], vertical_alignment="bottom")
        title.title("Compare tokenizers")
        input_mode(mode)


def input_mode(area) -> str:
    return area.radio("Input", list(settings.MODES), horizontal=True, key=f"{K}mode", persist_state=KEEP,
                      help="Chat: a conversation, rendered by each tokenizer's own chat format "
                           "(app_pages/kit/compare_chat.py).")


def frame(present: bool) -> Areas:
    """The page's areas under the head (presenting: the input mode beside the view). Rows are horizontal
    containers, which wrap on a narrow screen."""
    if present:  # 1,232 px wide: the picker beside the text, the text size with the switches
        top = st.container() if link_warned() else None  # a block costs a message on every rerun
        text, right = st.columns([3, 2], gap="medium")
        picker, side, aside = right.container(), right.container(horizontal=True), right.container()
        switches = st.container(horizontal=True, vertical_alignment="bottom", gap="xsmall")
        view = st.container(horizontal=True, vertical_alignment="bottom", gap="medium")
        return Areas(view, top, text, side, aside, picker, switches, switches, view)
    top = st.container() if link_warned() else None
    text, side = st.columns([3, 2], gap="medium")
    row = st.container(horizontal=True, vertical_alignment="bottom", gap="medium")
    switches = st.container(horizontal=True, gap="xsmall")  # one row at 1280 px beside the sidebar
    view = st.container(horizontal=True, vertical_alignment="bottom", gap="medium")
    return Areas(None, top, text, side, side, row, row, switches, view)


def link_warned() -> bool:
    return any(st.session_state.get(f"{K}{k}") for k in ("link_models", "unknown", "lab_missing"))


def link_warnings(controls) -> None:
    for message in st.session_state.get(f"{K}link_models", []):
        controls.warning("A model in the link was left out: " + escape_markdown(message))
    if st.session_state.get(f"{K}unknown"):
        controls.warning("The link names tokenizers that do not exist here: "
                         + ", ".join(md_code(n) for n in st.session_state[f"{K}unknown"]) + ". They were left out.")
    if st.session_state.get(f"{K}lab_missing"):
        controls.warning("The link names " + ", ".join(md_code(n) for n in st.session_state[f"{K}lab_missing"])
                         + ", a model trained in the BPE Lab. Trained models live only in the visit that trained it, "
                         "so it is not here. Train it again on the **BPE Lab** page, or load its saved `.model` file "
                         "there (whoever trained it can download it from the Lab's *Save* view, or from this page).")


def input_panel(a: Areas, present: bool) -> Inputs:
    """The text box(es), the tokenizers and every option, in the areas of `frame`."""
    replaced = clean_state_text(f"{K}text") + clean_state_text(f"{K}text_b")
    st.session_state.setdefault(f"{K}text", EXAMPLES["Emoji, joiners and flags"])
    st.session_state.setdefault(f"{K}tokenizers", default_tokenizers())
    st.session_state.setdefault(f"{K}font", "M")
    ab = st.session_state.get(f"{K}ab", False)
    with a.text:
        text = live_text(f"{K}text", label="Text A" if ab else "Text", height=120,
                         font_size="1.05rem" if present else None)
        text_b = live_text(f"{K}text_b", label="Text B", height=120,
                           placeholder="A second text to compare with A") if ab else ""
    with a.side:
        st.selectbox("Example", list(EXAMPLES), index=None, placeholder="Load an example…", key=f"{K}example",
                     on_change=load_example)
        st.text_input("Add by model name", key=f"{K}model", on_change=add_model, persist_state=KEEP,
                      placeholder="e.g. gpt-4o",
                      help="A model's name (gpt-4o, o3-mini, Llama-3.1-8B, mistral-nemo, claude-2.1) or its "
                           "Hugging Face repository (meta-llama/Llama-3.2-1B): the tokenizer it uses is added.")
    if st.session_state.get(f"{K}model_error"):
        a.aside.error(escape_markdown(st.session_state[f"{K}model_error"]))
    elif st.session_state.get(f"{K}model_added"):
        model, name = st.session_state.pop(f"{K}model_added")
        a.aside.caption(f"{md_inline_code(model)} uses {md_title(name)} ({md_inline_code(name)}): added.")
    with a.aside if ab else a.text:  # under the text, or beside two (app_pages/kit/compare_upload.py)
        upload_panel(f"{K}upload_", f"{K}tokenizers")
    names = a.picker.multiselect("Tokenizers (in the order shown)", all_tokenizer_names(), format_func=title_of,
                                 key=f"{K}tokenizers", persist_state=KEEP)
    with a.switches:
        parse_special = st.toggle("Parse special tokens", key=f"{K}special", persist_state=KEEP,
                                  help="Off: a string like <|endoftext|> is ordinary text. On: it becomes the special token.")
        show_ws = st.toggle("Show whitespace", key=f"{K}ws", help="space ·  tab →  newline ↵", persist_state=KEEP)
        alternating = st.toggle("Alternating colors", key=f"{K}alt", persist_state=KEEP,
                                help="Off: the color comes from the token id, so a repeated token keeps its color "
                                     "(neighbours never share one).")
        st.toggle("Presentation mode", key=f"{K}present", persist_state=KEEP,
                  help="For a projector or a shared screen: the tokenizers side by side, bigger text, "
                       "the sidebar collapsed.")
        st.toggle("Two texts (A and B)", key=f"{K}ab", persist_state=KEEP,
                  help="Tokenize a second text and see both counts side by side.")
    # required: a segmented control could otherwise be clicked off, leaving no size
    a.size.segmented_control("Text size", list(FONT_SIZES), key=f"{K}font", required=True, persist_state=KEEP)
    view = a.view.radio("View", VIEWS, horizontal=True, key=f"{K}view", persist_state=KEEP)
    carets = (st.session_state.pop(f"{K}text_caret", None), st.session_state.pop(f"{K}text_b_caret", None))
    return Inputs(text, text_b, names, parse_special, show_ws, alternating, view, ab, present,
                  FONT_SIZES.get(st.session_state[f"{K}font"], FONT_SIZES["M"]), replaced, carets)


def input_notes(a: Areas, inp: Inputs, replaced: int, sizes: tuple[int, int]) -> None:
    """Beside the text, the special-token mode; under the inputs, what was replaced or cut, and the
    visitor's own tokenizers, which a link cannot carry."""
    a.aside.caption("Special tokens: **parsed** as special tokens." if inp.parse_special
                    else "Special tokens: **treated as text** (the safe default).")
    if st.session_state.pop(f"{K}link_fffd", False):
        st.warning("The link's text was not valid UTF-8; the invalid bytes were replaced by U+FFFD �.")
    if replaced:
        st.warning(f"The text held {replaced} lone surrogate code point(s), which have no UTF-8 encoding; "
                   "each is shown and tokenized as U+FFFD �.")
    for label, size in zip(("", "B"), sizes):
        if size > limits.COMPARE_TEXT_BYTES:
            st.warning(limits.cut_message(size, limits.COMPARE_TEXT_BYTES, "Compare")
                       .replace("The text", f"Text {label}" if label else "The text"))
    own = [n for n in inp.names if n in user_tokenizers() and n not in REGISTRY]
    if own:
        st.caption(", ".join(md_title(n) for n in own) + " lives only in this visit: a link to this page will not "
                   "carry it. Download the model to keep it or to share it.")
        for n in own:
            tok_own = user_tokenizers()[n]
            if tok_own.capabilities.merge_steps and n == "lab_bpe":
                st.download_button("lab_bpe.model", lambda m=tok_own: bpe_files.model_text(m), "lab_bpe.model",
                                   key=f"{K}dl_{n}", on_click="ignore")  # built when clicked


# -- tokenizing ----------------------------------------------------------------------------------------
def tokenize_all(tokenizers: dict, txt: str, parse: bool) -> dict:
    """name -> tokens (results shared by all visitors in one bounded store: service/cache.py); a tokenizer
    that fails on this text (an uploaded split pattern that runs out of time) is left out with a message;
    its failure is remembered like a result."""
    out = {}
    for name, tok in tokenizers.items():
        try:
            out[name] = tokenize_text(tok, txt, parse=parse, name=name)
        except TokenizeFailed as e:
            st.error(str(e), icon="⚠️")
    return out


def pinned_token(results: dict, clean: str, clean_b: str) -> tuple | None:
    """A click on a token (this run's pick, or the one pinned before): (tokenizer, "a"|"b", position,
    hash of its text), or None when the text or the tokenizers changed since."""
    pick = token_clicks(f"{K}clicks", prefix="compare:", unpin=True)
    if pick and pick["pos"] is None:  # Escape on a token
        st.session_state.pop(f"{K}pinned", None)
    elif pick:
        owner = pick["owner"].split(":")
        which = owner[2] if len(owner) > 2 else "a"
        st.session_state[f"{K}pinned"] = (owner[1], which, pick["pos"], hash(clean if which == "a" else clean_b))
    pinned = st.session_state.get(f"{K}pinned")
    if pinned and (pinned[0] not in results or pinned[3] != hash(clean if pinned[1] == "a" else clean_b)):
        return None
    return pinned


def text_findings(clean: str, clean_b: str, tokenizers: dict, results: dict) -> tuple[list, list]:
    """What the text holds that the reader should know (text_notes says it; quiet_text asks whether there is
    any): the special-token strings in either text, and the tokenizers whose tokens of text A end in a
    trailing space of its own."""
    specials = analysis.special_strings_in(clean + clean_b,
                                           sorted({s for t in tokenizers.values() for s in t.special_tokens}))
    return specials, [n for n, toks in results.items() if analysis.trailing_space_token(clean, toks)]


def text_notes(inp: Inputs, found: tuple[list, list]) -> None:
    """text_findings, said: special-token strings, a trailing space."""
    specials, trailing = found
    if specials:
        shown = ", ".join(md_code(s) for s in specials)
        if inp.parse_special:
            st.info(f"The text contains {shown}. Parsing is **on**: each becomes one special token in the "
                    "tokenizers that define it (shown dark); SentencePiece never parses them from text.")
        else:
            st.info(f"The text contains {shown}. Parsing is **off**: it is split like any other text. "
                    "Turn on *Parse special tokens* to see it as the single special token a model would get.")
    if trailing:
        st.info("The text ends in a space that becomes its own token in " + ", ".join(md_title(n) for n in trailing)
                + ". In ordinary text a space belongs to the next word (' world'), so models rarely see a lone "
                "trailing space; prompts that end in one can behave oddly.")


def diff_controls(inp: Inputs, results: dict) -> tuple[bool, str]:
    """(mark boundaries that differ?, from which tokenizer): drawn in the Spans view only."""
    ref_options = list(results)
    st.session_state.setdefault(f"{K}ref", ref_options[0])
    if st.session_state[f"{K}ref"] not in ref_options:
        st.session_state[f"{K}ref"] = ref_options[0]
    if inp.view != "Spans":
        return st.session_state.get(f"{K}diff", False), st.session_state[f"{K}ref"]
    diff_on = st.toggle("Mark boundaries that differ", key=f"{K}diff", persist_state=KEEP)
    if not diff_on:  # the picker only while marking (a widget is a message and a registration every rerun)
        return False, st.session_state[f"{K}ref"]
    ref = st.selectbox("from", ref_options, format_func=title_of, key=f"{K}ref", label_visibility="collapsed",
                       persist_state=KEEP, width=260)
    return diff_on, ref


# -- one tokenizer's column ------------------------------------------------------------------------------
def pinned_panel(s: Shown, name: str, toks, pos: int, txt: str) -> None:
    """The clicked token's details, a preview of its merge tree, and a way into Inside a token."""
    tok = s.tokenizers[name]
    t = toks[pos]
    rank = tok.merge_rank(t.id)
    with st.container(border=True):
        st.markdown(f"**Token {t.id}** in {md_title(name)} · bytes `{hexbytes(t.bytes) or '—'}` · "
                    f"text {md_inline_code(t.piece or t.bytes.decode('utf-8', 'backslashreplace'))}"
                    + (f" · merge rank {rank}" if rank is not None else "")
                    + (" · special token" if t.special else "") + (" · byte-fallback piece" if t.byte_fallback else ""))
        if not t.special and tok.merge_parents(t.id) is not None:
            st.html(render_tree(tok, t.id, max_depth=3, max_nodes=64))
        query = links.query("inside", {"tokenizer": name, "token": pos, "text": txt})
        if "text" not in query:  # too long for a link: Inside opens the token by its id
            query["id"] = str(t.id)
        l1, l2 = st.columns([3, 1])
        l1.page_link("app_pages/inside.py", label="Open in Inside a token →", icon="🔬", query_params=query)
        if l2.button("Unpin", key=f"{K}unpin_{name}"):
            st.session_state.pop(f"{K}pinned", None)
            st.rerun()


def draw_column(s: Shown, name: str, toks, txt: str, k: int, which: str, page_slice: tuple[int, int]) -> None:
    """One tokenizer's header and its tokens in the chosen view, for this page of the text."""
    inp, tok = s.inputs, s.tokenizers[name]
    # what a model trained by this app is (Custom BPE: which text, how many tokens); vendors' titles say it
    note = REGISTRY[name].about if name in REGISTRY and tok.capabilities.training_history else ""
    st.html(render_header(name if which == "a" else f"{name}:b", title_of(name) + (" · B" if which == "b" else ""),
                          len(toks), len(txt), len(txt.encode("utf-8")), note=note))
    lo, hi = paging.char_window(toks, *page_slice)
    if hi <= lo:
        st.caption("No tokens in this stretch of text.")
    elif inp.view == "Spans":
        marks = frozenset()
        if s.diff_on and name != s.ref and which == "a":
            marks = analysis.differing_starts(toks, s.results[s.ref])
            st.caption(f"{len(marks):,} {'boundary' if len(marks) == 1 else 'boundaries'} "
                       f"in the whole text not in {md_title(s.ref)} (red edge).")
        here = s.pinned and s.pinned[0] == name and s.pinned[1] == which
        live = live_spans(s, name, which, page_slice)
        if live["assets"] is None:
            st.caption(f"Updates after a pause in typing, from the server ({live['why']}).")
        pinned = s.pinned[2] if here else None
        label = f"{title_of(name)}{' (text B)' if which == 'b' else ''}: tokens"
        flip = k == 1 and not inp.present
        if browser_draws(s, live, which):
            if which == "a":
                s.browser.add(name)
            model = compact_spans(txt, toks, lo, hi, marks, pinned, owner=f"compare:{name}:{which}", flip=flip,
                                  font=inp.font, label=label)
        else:
            model = span_model(txt, token_window(toks, lo, hi), whitespace=inp.show_ws, alternating=inp.alternating,
                               marks=marks, rank_of=tok.merge_rank, flip_tips=flip, owner=f"compare:{name}:{which}",
                               start=lo, pinned=pinned, font_size=inp.font, label=label)
        token_spans(component_key(f"{K}spans", name, which), model, live)
        if here and lo <= s.pinned[2] < hi:
            pinned_panel(s, name, toks, s.pinned[2], txt)
    elif inp.view == "Text with boundaries":
        boundaries_view(component_key(f"{K}bview", name, which), txt, token_window(toks, lo, hi), font_size=inp.font)
    elif inp.view == "IDs":
        st.code(", ".join(str(t.id) for t in token_window(toks, lo, hi)), language=None, wrap_lines=True)
    else:
        st.dataframe(pd.DataFrame(export.token_rows(token_window(toks, lo, hi))), hide_index=True,
                     height=min(400, 35 * (hi - lo + 1) + 3), key=f"{K}table_{name}_{which}")


def browser_draws(s: Shown, live: dict, which: str) -> bool:
    """Whether this column's spans go to the browser as a compact payload: its live box reported that this
    browser draws the column itself (widgets.reported: a hint, never trusted alone), the server publishes
    the column's tokenizer to browsers (live["assets"]), and the text was not cut (the browser draws the
    box's text, which then is the server's)."""
    return (live["assets"] is not None and live["head"] in reported(live["source"])
            and s.sizes[0 if which == "a" else 1] <= live["limit"])


def compact_spans(txt: str, toks, lo: int, hi: int, marks: frozenset, pinned: int | None, **model) -> dict:
    """What a column the browser draws needs from the server (issue 22): span_model's owner, flip, font and
    label, and what only the server knows: the red edges of "Mark boundaries that differ" on this page of
    the text (byte offsets, as span_model's `marks`) and the pinned token's index. No segments: the browser
    encodes the box's text itself (live_spans.js buildModel, held equal to span_model).
    Without marks or a pin the data does not depend on the text, so a pause rerun sends the same element
    (Streamlit then sends only a reference to it); with them, "of" (the text's hash) makes every text's
    data new, so that the browser draws them again for the text they belong to."""
    if marks and hi > lo:
        b0, b1 = toks[lo].byte_span[0], toks[hi - 1].byte_span[1]
        marks = sorted(m for m in marks if b0 <= m < b1)
    out = {**model, "marks": sorted(marks), "pinned": pinned}
    if marks or pinned is not None:
        out["of"] = hash(txt)
    return out


def live_spans(s: Shown, name: str, which: str, page_slice: tuple[int, int]) -> dict:
    """What lets a column's spans follow the text box as the person types (issue 22; widgets.token_spans):
    its tokenizer encoded in the browser by the WebAssembly core, on the page of the text this run draws.
    "assets" is None for a tokenizer the browser cannot run (a tokenizer.json pipeline, SentencePiece, an
    upload or a Lab model), or when the app does not serve static files: that column waits for the server."""
    static = st.get_option("server.enableStaticServing")
    assets = browser_assets.live_assets(name) if static else None
    why = "" if assets else browser_assets.server_only_reason(name) if static else "this server serves no static files"
    txt, res = (s.clean, s.results) if which == "a" else (s.clean_b, s.results_b)
    per, pages = page_windows(txt, res)  # a text that grows past its page while typed is drawn a page at a time
    if pages == 1 and (round_per := 1 << (per.bit_length() - 1)) >= len(txt):
        # one page: a round page size that still holds the whole text draws the same, and keeps the column's
        # data the same from one pause to the next (the browser then reuses what it has: compact_spans)
        per = round_per
    return {"source": f"{K}text" if which == "a" else f"{K}text_b", "assets": assets,
            "head": name if which == "a" else f"{name}:b", "parse": s.inputs.parse_special,
            "whitespace": s.inputs.show_ws, "alternating": s.inputs.alternating,
            "win": [per, page_slice[0] // per], "limit": limits.COMPARE_TEXT_BYTES, "why": why}


# -- the columns, a page of the text at a time --------------------------------------------------------------
def page_windows(txt: str, res: dict) -> tuple[int, int]:
    """(characters per page, pages) for one text, so that no column draws much more than PAGE_SIZE
    tokens (text B is paged as text A is: drawn whole, a megabyte of B sent 31 MB to the browser)."""
    per = paging.chars_per_page(len(txt), [len(t) for t in res.values()], PAGE_SIZE)
    return per, (len(txt) - 1) // per + 1 if txt else 1


def window_of(txt: str, per: int, n_pages: int, page: int) -> tuple[int, int]:
    k = min(page, n_pages - 1)
    return k * per, min(len(txt), (k + 1) * per)


def caret_page(caret, per: int, pages: int) -> int | None:
    """The page (from 0) holding the character just typed before the caret, or None without a caret."""
    if not isinstance(caret, int) or isinstance(caret, bool):
        return None
    return min(max(caret - 1, 0) // per, pages - 1)


def per_row_of(n: int, present: bool) -> int:
    """Tokenizers side by side: two to a row; presenting, all of them up to four (five or more in rows as
    even as they can be: 3+2, 3+3, 4+3), so a projector shows them at once."""
    if not present:
        return 1 if n == 1 else 2
    rows = -(-n // 4)
    return -(-n // rows)


def columns(s: Shown) -> None:
    """Per tokenizer: two to a row, two to four when presenting (A and B side by side in two-text mode),
    with a page picker when a text is long."""
    clean, clean_b, results, results_b = s.clean, s.clean_b, s.results, s.results_b
    two = s.inputs.ab and results_b
    per_page, pages = page_windows(clean, results)
    per_b, pages_b = page_windows(clean_b, results_b) if two else (1, 1)
    page = 0
    if max(pages, pages_b) > 1:
        n_pages = max(pages, pages_b)
        # typing moves the picker to the page being typed on (the box sent its caret this run); a run
        # without an edit (a page picked, a toggle) leaves it where the visitor put it
        follow = caret_page(s.inputs.carets[0], per_page, pages)
        if two and s.inputs.carets[1] is not None:
            follow = caret_page(s.inputs.carets[1], per_b, pages_b)
        if follow is not None:
            st.session_state[f"{K}page"] = follow + 1
        page = limits.clamp_int(st.number_input(f"Page (1–{n_pages})", 1, n_pages, "min", key=f"{K}page"),
                                1, n_pages, 1) - 1
        a0, a1 = window_of(clean, per_page, pages, page)
        b0, b1 = window_of(clean_b, per_b, pages_b, page)
        st.caption(f"Showing characters {a0 + 1:,}–{a1:,} of {len(clean):,}"
                   + (f" (text B: {b0 + 1:,}–{b1:,} of {len(clean_b):,})" if pages_b > 1 else "")
                   + ", the same stretch in every column; the counts cover the whole text.")
    window = window_of(clean, per_page, pages, page)
    if two:
        window_b = window_of(clean_b, per_b, pages_b, page)
        for name in results:
            ca, cb = st.columns(2)
            with ca:
                draw_column(s, name, results[name], clean, 0, "a", window)
            with cb:
                if name in results_b:
                    draw_column(s, name, results_b[name], clean_b, 1, "b", window_b)
    else:
        items = list(results.items())
        per_row = per_row_of(len(items), s.inputs.present)
        for row in range(0, len(items), per_row):
            cols = st.columns(per_row) if per_row > 1 else [st.container()]
            for k, (name, toks) in enumerate(items[row:row + per_row]):
                with cols[k]:
                    draw_column(s, name, toks, clean, k, "a", window)
    if s.inputs.view == "Spans" and not s.inputs.present:
        st.html(LEGEND)  # under the spans: above them it pushed the first ones off the first screen
    if s.inputs.view == "Text with boundaries":
        st.caption("The text as your browser shapes it (Arabic and Hebrew right to left and joined, Devanagari "
                   "conjuncts and emoji sequences whole), with a tick above and below the line at each token "
                   "boundary, so no mark covers a letter; a dotted underline marks a character that tokens split "
                   "inside.")


# -- counts, downloads, decoder ---------------------------------------------------------------------------
def quiet_text(inp: Inputs, clean: str, replaced: int, size: int, results: dict, found: tuple[list, list]) -> bool:
    """Whether the page above the counts shows nothing of this text but its spans, heads and counts (which
    the browser draws as the person types): not empty, nothing replaced or cut, short enough for the link,
    one page of spans, no special-token string or trailing-space token to point out, every tokenizer's
    tokens. Then, and while it stays so, a pause in typing runs only the counts (counts_view)."""
    if not clean or replaced or size > limits.COMPARE_TEXT_BYTES or len(clean) > URL_TEXT_LIMIT:
        return False
    return len(results) == len(inp.names) and page_windows(clean, results)[1] == 1 and not any(found)


def light(s: Shown) -> bool:
    """Whether a pause in typing may run the counts alone: one text, in the Spans view, every column drawn
    by the browser, no boundaries marked or token pinned (the server draws those), a quiet text."""
    i = s.inputs
    return (i.view == "Spans" and not i.ab and not s.diff_on and s.pinned is None and s.quiet
            and s.browser == set(s.results))


@st.fragment
def counts_view(s: Shown) -> None:
    """The counts, chart and downloads, as a fragment of the page's: while `light`, the live box sends a
    pause's text here (widgets.text_sink), and only this part runs (issue 22: the spans and their heads
    already follow the box in the browser). Run alone, `s` is the page's last run's: the text in the
    session is newer, and when it is not quiet, or a column is no longer drawn by the browser, the page
    runs instead."""
    text_sink(f"{K}text", light(s))
    text = st.session_state[f"{K}text"]
    if text != s.inputs.text:  # a pause's text, or another text sent here before this run
        clean, more = clean_text(text)
        clean, size = limits.cut_text(clean, limits.COMPARE_TEXT_BYTES)
        results = tokenize_all(s.tokenizers, clean, s.inputs.parse_special)
        found = text_findings(clean, "", s.tokenizers, results)
        if not (light(s) and quiet_text(s.inputs, clean, more, size, results, found)
                and set(results) <= reported(f"{K}text")):
            st.rerun()
        links.write("compare", text=clean)
        s = replace(s, inputs=replace(s.inputs, text=text), clean=clean, results=results, sizes=(size, 0))
    counts_and_downloads(s)


def counts_reference(results: dict) -> str:
    """The tokenizer the counts' ratios are relative to: the visitor's pick (in the link as vs=),
    cl100k_base by default, the first one shown when the pick is not shown."""
    options = list(results)
    if st.session_state.get(f"{K}vs") not in options:
        st.session_state[f"{K}vs"] = settings.COUNTS_REFERENCE if settings.COUNTS_REFERENCE in options else options[0]
    # a width of its own, not the first of three columns: each column is a message on every rerun
    return st.selectbox("Ratios relative to", options, format_func=title_of, key=f"{K}vs", persist_state=KEEP,
                        width=320, help="The tokenizer whose count is 1.0 in the column *tokens vs reference*.")


def counts_and_downloads(s: Shown) -> None:
    """The counts table (A and B side by side in two-text mode), a chart of one metric, and the tokens
    as CSV or JSON, the spans as SVG or HTML for slides."""
    clean, results, results_b = s.clean, s.results, s.results_b
    st.subheader("Counts")
    reference = counts_reference(results) if not (s.inputs.ab and results_b) else None
    stats_rows = analysis.stats_rows(clean, results, {n: title_of(n) for n in results}, reference)
    if s.inputs.ab and results_b:
        rows_b = {r["tokenizer"]: r for r in analysis.stats_rows(s.clean_b, results_b,
                                                                  {n: title_of(n) for n in results_b})}
        ab_rows = [{"tokenizer": r["tokenizer"], "tokens A": r["tokens"], "tokens B": rows_b[r["tokenizer"]]["tokens"],
                    "B − A": rows_b[r["tokenizer"]]["tokens"] - r["tokens"],
                    "B / A": round(rows_b[r["tokenizer"]]["tokens"] / r["tokens"], 3) if r["tokens"] else None,
                    "chars A": r["characters"], "chars B": rows_b[r["tokenizer"]]["characters"]}
                   for r in stats_rows if r["tokenizer"] in rows_b]
        st.html(render_counts(ab_rows))
    else:
        st.html(render_counts(stats_rows))
    metric = st.selectbox("Chart", ["tokens", "chars/token", "bytes/token", "byte-fallback/unknown",
                                    "tokens vs reference"], key=f"{K}metric", persist_state=KEEP)
    st.plotly_chart(count_bars(tuple(plotly_text(r["tokenizer"]) for r in stats_rows),
                               tuple(r.get(metric) for r in stats_rows), tuple(color_of(n) for n in results), metric),
                    key=f"{K}chart")
    # one row (one block: columns cost three messages a rerun) of two popovers whose buttons are drawn only
    # while open: closed, as a pause rerun finds them, they are two messages and no widgets
    with st.container(horizontal=True, gap="small"):
        with lazy_popover("Download tokens", f"{K}tokens_pop", icon=":material/download:") as box:
            if box.open:
                st.download_button("Download tokens (CSV)", lambda: export.export_csv(results), "tokens.csv",
                                   "text/csv", key=f"{K}csv", on_click="ignore")
                st.download_button("Download tokens (JSON)",
                                   lambda: export.export_json(clean, results, parse_special=s.inputs.parse_special),
                                   "tokens.json", "application/json", key=f"{K}json", on_click="ignore")
                total_tokens = sum(len(t) for t in results.values())  # built when clicked: 1 MB is a million rows
                if total_tokens > 100_000:
                    st.caption(f"The files hold all {total_tokens:,} tokens (roughly {total_tokens * 80 / 1e6:,.0f} "
                               "MB as CSV) and take some seconds to build after the click.")
        spans_for_slides(s)


def spans_for_slides(s: Shown) -> None:
    """The spans download, as on screen: every tokenizer's A (and B), with the boundaries that differ."""
    texts = {"a": s.results, "b": s.results_b} if s.inputs.ab and s.results_b else {"": s.results}
    spans = {entry_key(n, w): got[n] for n in s.results for w, got in texts.items()}
    spans_downloads(f"{K}spans", spans, each=functools.partial(download_entries, s, texts),
                    whitespace=s.inputs.show_ws, alternating=s.inputs.alternating)


def entry_key(name: str, which: str) -> str:
    return f"{name}:{which}" if which else name


def download_entries(s: Shown, texts: dict) -> dict[str, dict]:
    """Each download entry's heading and diff marks (built when a download is clicked), as on screen:
    the marks on text A (draw_column)."""
    return {entry_key(n, w): {**({"title": f"{title_of(n)} · {w.upper()}"} if w else {}),
                              **({"marks": analysis.differing_starts(got[n], got[s.ref])}
                                 if s.diff_on and n != s.ref and w != "b" else {})}
            for n in s.results for w, got in texts.items()}


def decoder(tokenizers: dict) -> None:
    """Token ids back to text, with any tokenizer (not only the ones shown). Its controls run only while it
    is open (an expander that keeps its state: opening it runs the page), so that a pause rerun, with the
    decoder closed, has none of its widgets to send. (No `expanded=` that follows its ids: that is part of
    the expander's identity, and clearing the ids closed it.)"""
    box = st.expander("Decode token ids", key=f"{K}decoder", on_change="rerun")
    if not box.open:
        return
    with box:
        options = list(dict.fromkeys([*tokenizers, *all_tokenizer_names()]))
        dn = st.selectbox("Tokenizer", options, format_func=title_of, key=f"{K}decode_tok", persist_state=KEEP,
                          help="Any tokenizer, not only the ones shown above.")
        dtok = tokenizers.get(dn) or resolve(dn)
        if dtok is not None:
            try:
                example = ", ".join(str(i) for i in dtok.encode("hello world", disallowed_special=()))
            except TOKENIZE_ERRORS:
                example = ""
            raw = st.text_input("Token ids (commas or spaces)", key=f"{K}decode_ids", placeholder=example,
                                persist_state=KEEP)
            render_decoder(dtok, raw, key=f"{K}decode")


# -- the page --------------------------------------------------------------------------------------------
@st.fragment
def compare_view():
    """The whole page as one fragment: typing, clicking a token and the options rerun only this,
    not the app's navigation and sidebar."""
    present = st.session_state[f"{K}present"]
    if present != st.session_state.get(HEAD):
        st.rerun()  # presenting turned on or off: the head (page CSS, title, sidebar) is the page run's
    a = frame(present)
    mode = input_mode(a.mode) if present else st.session_state.get(f"{K}mode", settings.MODES[0])
    if mode == "Chat":
        from app_pages.kit.compare_chat import chat_mode

        links.write("compare_chat")
        chat_mode(f"{K}chat_")
        st.stop()
    if a.top is not None:
        link_warnings(a.top)
    inp = input_panel(a, present)
    (clean, more), (clean_b, more_b) = clean_text(inp.text), clean_text(inp.text_b)
    # one visitor's text is bounded (service/limits.py): a 5 MB paste is cut, with a notice, not tokenized whole
    clean, size_a = limits.cut_text(clean, limits.COMPARE_TEXT_BYTES)
    clean_b, size_b = limits.cut_text(clean_b, limits.COMPARE_TEXT_BYTES)
    links.write("compare", text=clean, text_b=clean_b if inp.ab else None)  # the link that reproduces this view
    input_notes(a, inp, inp.replaced + more + more_b, (size_a, size_b))
    if not clean:
        st.info("Type or paste some text above, or load an example, to see its tokens.")
        st.stop()
    if not inp.names:
        st.info("Pick at least one tokenizer.")
        st.stop()
    if len(clean) > URL_TEXT_LIMIT or (inp.ab and len(clean_b) > URL_TEXT_LIMIT):
        st.caption(f"The text is longer than {URL_TEXT_LIMIT:,} characters, so the page's link keeps the "
                         "tokenizers and options but not the text.")
    tokenizers = {n: t for n in inp.names if (t := resolve(n)) is not None}
    results = tokenize_all(tokenizers, clean, inp.parse_special)
    results_b = tokenize_all(tokenizers, clean_b, inp.parse_special) if inp.ab and clean_b else {}
    if results_b:  # side by side: only the tokenizers that managed both texts
        results = {n: r for n, r in results.items() if n in results_b}
        results_b = {n: r for n, r in results_b.items() if n in results}
    if not results:
        st.stop()
    pinned = pinned_token(results, clean, clean_b)
    with a.view:  # beside the view radio
        diff_on, ref = diff_controls(inp, results)
    found = text_findings(clean, clean_b, tokenizers, results)
    text_notes(inp, found)
    shown = Shown(inp, clean, clean_b, tokenizers, results, results_b, diff_on, ref, pinned, (size_a, size_b),
                  quiet=quiet_text(inp, clean, inp.replaced + more + more_b, size_a, results, found))
    columns(shown)
    counts_view(shown)
    decoder(tokenizers)


read_link()
head()
compare_view()
