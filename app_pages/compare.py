"""Compare: one text (or two), several tokenizers side by side, updated as you type."""

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from app_pages.compare_upload import upload_panel
from app_pages.shared import (TokenizeFailed, all_tokenizer_names, clean_state_text, md_title, render_decoder,
                               resolve, title_of, tokenize_text, user_tokenizers, TOKENIZE_ERRORS)
from app_pages.widgets import boundaries_view, bump, component_key, live_text, token_clicks, token_spans
from tokenizers import REGISTRY, bpe_io, default_tokenizers
from tokenizers.core.text import clean_text
from ui import analysis, export, paging
from service import limits
from ui.counts import render_counts
from ui.examples import EXAMPLES
from ui.figures import plotly_text
from ui.formatting import hexbytes, md_code, md_inline_code
from ui.spans import LEGEND, render_header, span_model
from ui.spans import window as token_window
from ui.trees import render_tree

SAFE_COLORS = ["#88CCEE", "#CC6677", "#DDCC77", "#117733", "#332288", "#AA4499", "#44AA99", "#999933", "#882255",
               "#661100", "#6699CC", "#888888"] * 4  # a color-blind-safe qualitative set (Tol's)
PAGE_SIZE = 5000          # about this many tokens drawn per tokenizer and page
URL_TEXT_LIMIT = 2000     # longer texts are not put in the link
VIEWS = ["Spans", "Text with boundaries", "IDs", "Table"]
VIEW_ALIASES = {"Boundaries": "Text with boundaries"}
FONT_SIZES = {"S": "0.85rem", "M": "0.95rem", "L": "1.25rem", "XL": "1.6rem"}
LAB_NAMES = ("lab_bpe",)  # what the labs add for a visit (tokenizers a link cannot carry)
K = "compare_"            # widget key prefix

# -- state from the URL, once per visit ------------------------------------------------------------
if f"{K}init" not in st.session_state:
    st.session_state[f"{K}init"] = True
    q = st.query_params
    for field, key in (("text", f"{K}text"), ("text_b", f"{K}text_b")):
        if field in q:
            st.session_state[key] = q[field]
            st.session_state[f"{K}link_fffd"] = st.session_state.get(f"{K}link_fffd") or "\ufffd" in q[field]
    if "tokenizers" in q:
        by_lower = {n.lower(): n for n in all_tokenizer_names()}
        asked = [n.strip() for n in q["tokenizers"].split(",") if n.strip()]
        st.session_state[f"{K}tokenizers"] = list(dict.fromkeys(by_lower[n.lower()] for n in asked
                                                                  if n.lower() in by_lower))
        missing = [n for n in asked if n.lower() not in by_lower]
        st.session_state[f"{K}unknown"] = [n for n in missing if n.lower() not in LAB_NAMES]
        st.session_state[f"{K}lab_missing"] = [n for n in missing if n.lower() in LAB_NAMES]
    for flag in ("special", "ws", "alt", "diff", "present", "ab"):
        if flag in q:
            st.session_state[f"{K}{flag}"] = q[flag] == "1"
    view = VIEW_ALIASES.get(q.get("view"), q.get("view"))
    if view in VIEWS:
        st.session_state[f"{K}view"] = view
    if q.get("font") in FONT_SIZES:
        st.session_state[f"{K}font"] = q["font"]
    if "ref" in q:
        st.session_state[f"{K}ref"] = q["ref"]
    if q.get("mode") == "chat":
        st.session_state[f"{K}mode"] = "Chat"


def load_example():
    choice = st.session_state[f"{K}example"]
    if choice is not None:
        st.session_state[f"{K}text"] = EXAMPLES[choice]
        bump(f"{K}text")
        st.session_state[f"{K}example"] = None  # back to the placeholder: the text is the user's now


def keep_font():
    if st.session_state.get(f"{K}font") is None:
        st.session_state[f"{K}font"] = "M"


@st.fragment
def compare_view():
    """The whole page as one fragment: typing, clicking a token and the options rerun only this,
    not the app's navigation and sidebar."""
    st.session_state.setdefault(f"{K}present", False)
    present = st.session_state[f"{K}present"]
    if present:  # presentation: less chrome above the results, so a projector shows them at once
        st.html("<style>[data-testid='stMainBlockContainer']{padding-top:2.2rem;padding-bottom:2rem;}</style>")
    else:
        st.title("Compare tokenizers")
    # beside the results when presenting, so the first tokenizer's spans start at the top
    controls, results_area = st.columns([2, 3], gap="medium") if present else (st.container(), st.container())
    mode = controls.radio("Input", ["Paste", "Chat"], horizontal=True, key=f"{K}mode",
                          help="Chat: a conversation, rendered by each tokenizer's own chat format "
                               "(app_pages/compare_chat.py).")
    if mode == "Chat":
        from app_pages.compare_chat import chat_mode

        st.query_params.from_dict({"mode": "chat"})
        chat_mode(f"{K}chat_")
        st.stop()
    if st.session_state.get(f"{K}unknown"):
        controls.warning("The link names tokenizers that do not exist here: "
                   + ", ".join(md_code(n) for n in st.session_state[f"{K}unknown"]) + ". They were left out.")
    if st.session_state.get(f"{K}lab_missing"):
        controls.warning("The link names " + ", ".join(md_code(n) for n in st.session_state[f"{K}lab_missing"])
                   + ", a model trained in the BPE Lab. Trained models live only in the visit that trained them, "
                   "so it is not here. Train it again on the **BPE Lab** page, or load its saved `.model` file there "
                   "(whoever trained it can download it from the Lab's *Save* view, or from this page).")

    replaced = clean_state_text(f"{K}text") + clean_state_text(f"{K}text_b")
    st.session_state.setdefault(f"{K}text", EXAMPLES["Emoji, joiners and flags"])
    st.session_state.setdefault(f"{K}tokenizers", default_tokenizers())
    st.session_state.setdefault(f"{K}font", "M")
    font = FONT_SIZES.get(st.session_state[f"{K}font"], FONT_SIZES["M"])

    # -- controls: above the results, or beside them in presentation mode --------------------------------
    with controls:
        st.selectbox("Example", list(EXAMPLES), index=None, placeholder="Load an example…", key=f"{K}example",
                     on_change=load_example)
        ab = st.session_state.get(f"{K}ab", False)
        text = live_text(f"{K}text", label="Text A" if ab else "Text", height=110 if present else 150,
                         font_size="1.05rem" if present else None)
        text_b = live_text(f"{K}text_b", label="Text B", height=110 if present else 150,
                           placeholder="A second text to compare with A") if ab else ""
        upload_panel(f"{K}upload_", f"{K}tokenizers")  # your own tokenizer file (app_pages/compare_upload.py)
        names = st.multiselect("Tokenizers (in the order shown)", all_tokenizer_names(), format_func=title_of,
                               key=f"{K}tokenizers")
        # three to a row; one under another beside the results, where a row is too narrow for the labels
        c1, c2, c3 = st.columns(3) if not present else (st.container(),) * 3
        parse_special = c1.toggle("Parse special tokens", key=f"{K}special",
                                  help="Off: a string like <|endoftext|> is ordinary text. On: it becomes the special token.")
        show_ws = c2.toggle("Show whitespace", key=f"{K}ws", help="space ·  tab →  newline ↵")
        alternating = c3.toggle("Alternating colors", key=f"{K}alt",
                                help="Off: the color comes from the token id, so a repeated token keeps its color "
                                     "(neighbours never share one).")
        c4, c5, c6 = st.columns(3) if not present else (st.container(),) * 3
        c4.toggle("Presentation mode", key=f"{K}present",
                  help="Text and options beside the results, bigger text: for a projector or a shared screen.")
        c5.toggle("Two texts (A and B)", key=f"{K}ab", help="Tokenize a second text and see both counts side by side.")
        c6.segmented_control("Text size", list(FONT_SIZES), key=f"{K}font", on_change=keep_font)
        view = st.radio("View", VIEWS, horizontal=True, key=f"{K}view")

    clean, more = clean_text(text)
    clean_b, more_b = clean_text(text_b)
    replaced += more + more_b
    # one visitor's text is bounded (service/limits.py): a 5 MB paste is cut, with a notice, not tokenized whole
    clean, size_a = limits.cut_text(clean, limits.COMPARE_TEXT_BYTES)
    clean_b, size_b = limits.cut_text(clean_b, limits.COMPARE_TEXT_BYTES)

    # -- the link that reproduces this view ------------------------------------------------------------
    diff_on = st.session_state.get(f"{K}diff", False)
    params = {"tokenizers": ",".join(names), "special": "1" if parse_special else "0",
              "ws": "1" if show_ws else "0", "alt": "1" if alternating else "0", "view": view}
    if diff_on:
        params.update(diff="1", ref=st.session_state.get(f"{K}ref", ""))
    if present:
        params["present"] = "1"
    if st.session_state[f"{K}font"] != "M":
        params["font"] = st.session_state[f"{K}font"]
    if ab:
        params["ab"] = "1"
    if len(clean) <= URL_TEXT_LIMIT:
        params["text"] = clean
    if ab and len(clean_b) <= URL_TEXT_LIMIT:
        params["text_b"] = clean_b
    st.query_params.from_dict(params)

    with controls:
        st.caption("Special tokens: **parsed** as special tokens." if parse_special
                   else "Special tokens: **treated as text** (the safe default).")
        if not present:
            st.html(LEGEND)
        if st.session_state.pop(f"{K}link_fffd", False):
            st.warning("The link's text was not valid UTF-8; the invalid bytes were replaced by U+FFFD �.")
        if replaced:
            st.warning(f"The text held {replaced} lone surrogate code point(s), which have no UTF-8 encoding; "
                       "each is shown and tokenized as U+FFFD �.")
        for label, size in (("", size_a), ("B", size_b)):
            if size > limits.COMPARE_TEXT_BYTES:
                st.warning(limits.cut_message(size, limits.COMPARE_TEXT_BYTES, "Compare")
                           .replace("The text", f"Text {label}" if label else "The text"))
        own = [n for n in names if n in user_tokenizers() and n not in REGISTRY]
        if own:
            st.caption(", ".join(md_title(n) for n in own) + " lives only in this visit: a link to this page will not "
                       "carry it. Download the model to keep it or to share it.")
            for n in own:
                tok_own = user_tokenizers()[n]
                if tok_own.capabilities.merge_steps and n == "lab_bpe":
                    st.download_button("lab_bpe.model", lambda m=tok_own: bpe_io.model_text(m), "lab_bpe.model",
                                       key=f"{K}dl_{n}", on_click="ignore")  # built when clicked

    if not clean:
        results_area.info("Type or paste some text above, or load an example, to see its tokens.")
        st.stop()
    if not names:
        results_area.info("Pick at least one tokenizer.")
        st.stop()
    if len(clean) > URL_TEXT_LIMIT or (ab and len(clean_b) > URL_TEXT_LIMIT):
        controls.caption(f"The text is longer than {URL_TEXT_LIMIT:,} characters, so the page's link keeps the "
                         "tokenizers and options but not the text.")


    # -- tokenize (results shared by all visitors in one bounded store: service/cache.py) ---------------------
    def tokenize_all(tokenizers: dict, txt: str) -> dict:
        """name -> tokens; a tokenizer that fails on this text (an uploaded split pattern that runs
        out of time) is left out with a message; its failure is remembered like a result (service/cache.py)."""
        out = {}
        for name, tok in tokenizers.items():
            try:
                out[name] = tokenize_text(tok, txt, parse=parse_special, name=name)
            except TokenizeFailed as e:
                results_area.error(str(e), icon="⚠️")
        return out


    tokenizers = {n: t for n in names if (t := resolve(n)) is not None}
    results = tokenize_all(tokenizers, clean)
    results_b = tokenize_all(tokenizers, clean_b) if ab and clean_b else {}
    if results_b:  # side by side: only the tokenizers that managed both texts
        results = {n: r for n, r in results.items() if n in results_b}
        results_b = {n: r for n, r in results_b.items() if n in results}
    if not results:
        st.stop()

    # a click on a token (this run's pick, or the one pinned before) -----------------------------------
    pick = token_clicks(f"{K}clicks", prefix="compare:")
    if pick:
        owner = pick["owner"].split(":")
        which = owner[2] if len(owner) > 2 else "a"
        st.session_state[f"{K}pinned"] = (owner[1], which, pick["pos"], hash(clean if which == "a" else clean_b))
    pinned = st.session_state.get(f"{K}pinned")
    if pinned and (pinned[0] not in results or pinned[3] != hash(clean if pinned[1] == "a" else clean_b)):
        pinned = None  # the text or the tokenizers changed since

    with results_area:
        specials = analysis.special_strings_in(clean + clean_b,
                                               sorted({s for t in tokenizers.values() for s in t.special_tokens}))
        if specials:
            shown = ", ".join(md_code(s) for s in specials)
            if parse_special:
                st.info(f"The text contains {shown}. Parsing is **on**: each becomes one special token in the "
                        "tokenizers that define it (shown dark); SentencePiece never parses them from text.")
            else:
                st.info(f"The text contains {shown}. Parsing is **off**: it is split like any other text. "
                        "Turn on *Parse special tokens* to see it as the single special token a model would get.")
        trailing = [md_title(n) for n, toks in results.items() if analysis.trailing_space_token(clean, toks)]
        if trailing:
            st.info("The text ends in a space that becomes its own token in " + ", ".join(trailing)
                    + ". In ordinary text a space belongs to the next word (' world'), so models rarely see a lone "
                    "trailing space; prompts that end in one can behave oddly.")

        ref_options = list(results)
        st.session_state.setdefault(f"{K}ref", ref_options[0])
        if st.session_state[f"{K}ref"] not in ref_options:
            st.session_state[f"{K}ref"] = ref_options[0]
        if view == "Spans":
            d1, d2 = st.columns([2, 3] if present else [1, 3])
            diff_on = d1.toggle("Mark boundaries that differ", key=f"{K}diff")
            ref = d2.selectbox("from", ref_options, format_func=title_of, key=f"{K}ref", disabled=not diff_on,
                               label_visibility="collapsed")
        else:
            ref = st.session_state[f"{K}ref"]


    def pinned_panel(name: str, toks, pos: int, txt: str) -> None:
        """The clicked token's details, a preview of its merge tree, and a way into Inside a token."""
        tok = tokenizers[name]
        t = toks[pos]
        rank = tok.merge_rank(t.id)
        with st.container(border=True):
            st.markdown(f"**Token {t.id}** in {md_title(name)} · bytes `{hexbytes(t.bytes) or '—'}` · "
                        f"text {md_inline_code(t.piece or t.bytes.decode('utf-8', 'backslashreplace'))}"
                        + (f" · merge rank {rank}" if rank is not None else "")
                        + (" · special token" if t.special else "") + (" · byte-fallback piece" if t.byte_fallback else ""))
            if not t.special and tok.merge_parents(t.id) is not None:
                st.html(render_tree(tok, t.id, max_depth=3, max_nodes=64))
            query = {"tokenizer": name, "token": str(pos)}
            query["text" if len(txt) <= URL_TEXT_LIMIT else "id"] = txt if len(txt) <= URL_TEXT_LIMIT else str(t.id)
            l1, l2 = st.columns([3, 1])
            l1.page_link("app_pages/inside.py", label="Open in Inside a token →", icon="🔬", query_params=query)
            if l2.button("Unpin", key=f"{K}unpin_{name}"):
                st.session_state.pop(f"{K}pinned", None)
                st.rerun()


    def draw_column(name: str, toks, txt: str, k: int, which: str, page_slice: tuple[int, int]) -> None:
        tok = tokenizers[name]
        st.html(render_header(name if which == "a" else f"{name}:b", title_of(name) + (" · B" if which == "b" else ""),
                              len(toks), len(txt), len(txt.encode("utf-8"))))
        lo, hi = paging.char_window(toks, *page_slice)
        shown = token_window(toks, lo, hi)
        if not shown:
            st.caption("No tokens in this stretch of text.")
        elif view == "Spans":
            marks = frozenset()
            if diff_on and name != ref and which == "a":
                marks = analysis.differing_starts(toks, results[ref])
                st.caption(f"{len(marks):,} {'boundary' if len(marks) == 1 else 'boundaries'} "
                           f"in the whole text not in {md_title(ref)} (red edge).")
            here = pinned and pinned[0] == name and pinned[1] == which
            token_spans(component_key(f"{K}spans", name, which),
                        span_model(txt, shown, whitespace=show_ws, alternating=alternating, marks=marks,
                                   rank_of=tok.merge_rank, flip_tips=k == 1 and not present,
                                   owner=f"compare:{name}:{which}", start=lo, pinned=pinned[2] if here else None,
                                   font_size=font))
            if here and lo <= pinned[2] < hi:
                pinned_panel(name, toks, pinned[2], txt)
        elif view == "Text with boundaries":
            boundaries_view(component_key(f"{K}bview", name, which), txt, shown, font_size=font)
        elif view == "IDs":
            st.code(", ".join(str(t.id) for t in shown), language=None, wrap_lines=True)
        else:
            st.dataframe(pd.DataFrame(export.token_rows(shown)), hide_index=True,
                         height=min(400, 35 * (len(shown) + 1) + 3), key=f"{K}table_{name}_{which}")


    # -- per tokenizer: two to a row (A and B side by side in two-text mode; one to a row when presenting)
    def page_windows(txt: str, res: dict) -> tuple[int, int]:
        """(characters per page, pages) for one text, so that no column draws much more than PAGE_SIZE
        tokens (text B is paged as text A is: drawn whole, a megabyte of B sent 31 MB to the browser)."""
        per = paging.chars_per_page(len(txt), [len(t) for t in res.values()], PAGE_SIZE)
        return per, (len(txt) - 1) // per + 1 if txt else 1

    def window_of(txt: str, per: int, n_pages: int, page: int) -> tuple[int, int]:
        k = min(page, n_pages - 1)
        return k * per, min(len(txt), (k + 1) * per)

    n_chars = len(clean)
    per_page, pages = page_windows(clean, results)
    per_b, pages_b = page_windows(clean_b, results_b) if ab and results_b else (1, 1)
    page = 0
    with results_area:
        if max(pages, pages_b) > 1:
            n_pages = max(pages, pages_b)
            page = limits.clamp_int(st.number_input(f"Page (1–{n_pages})", 1, n_pages, 1, key=f"{K}page"),
                                    1, n_pages, 1) - 1
            a0, a1 = window_of(clean, per_page, pages, page)
            st.caption(f"Showing characters {a0 + 1:,}–{a1:,} of {n_chars:,}"
                       + (f" (text B: {window_of(clean_b, per_b, pages_b, page)[0] + 1:,}–"
                          f"{window_of(clean_b, per_b, pages_b, page)[1]:,} of {len(clean_b):,})" if pages_b > 1 else "")
                       + ", the same stretch in every column; the counts cover the whole text.")
        window = window_of(clean, per_page, pages, page)
        if ab and results_b:
            window_b = window_of(clean_b, per_b, pages_b, page)
            for name in results:
                ca, cb = st.columns(2)
                with ca:
                    draw_column(name, results[name], clean, 0, "a", window)
                with cb:
                    if name in results_b:
                        draw_column(name, results_b[name], clean_b, 1, "b", window_b)
        else:
            items = list(results.items())
            per_row = 1 if present or len(items) == 1 else 2
            for row in range(0, len(items), per_row):
                cols = st.columns(per_row) if per_row > 1 else [st.container()]
                for k, (name, toks) in enumerate(items[row:row + per_row]):
                    with cols[k]:
                        draw_column(name, toks, clean, k, "a", window)
        if view == "Text with boundaries":
            st.caption("The text as your browser shapes it (Arabic and Hebrew right to left and joined, Devanagari "
                       "conjuncts and emoji sequences whole), with a thin mark at each token boundary; a dotted "
                       "underline marks a character that tokens split inside.")

        # -- counts ------------------------------------------------------------------------------------
        st.subheader("Counts")
        stats_rows = analysis.stats_rows(clean, results, {n: title_of(n) for n in results})
        if ab and results_b:
            rows_b = {r["tokenizer"]: r for r in analysis.stats_rows(clean_b, results_b, {n: title_of(n) for n in results_b})}
            ab_rows = [{"tokenizer": r["tokenizer"], "tokens A": r["tokens"], "tokens B": rows_b[r["tokenizer"]]["tokens"],
                        "B − A": rows_b[r["tokenizer"]]["tokens"] - r["tokens"],
                        "B / A": round(rows_b[r["tokenizer"]]["tokens"] / r["tokens"], 3) if r["tokens"] else None,
                        "chars A": r["characters"], "chars B": rows_b[r["tokenizer"]]["characters"]}
                       for r in stats_rows if r["tokenizer"] in rows_b]
            st.html(render_counts(ab_rows))
        else:
            st.html(render_counts(stats_rows))
        stats = pd.DataFrame(stats_rows)
        metric = st.selectbox("Chart", ["tokens", "chars/token", "bytes/token", "byte-fallback/unknown",
                                        "tokens vs first"], key=f"{K}metric")
        # plotly.graph_objects, not plotly.express: express takes ~25 ms a rerun to build four bars
        fig = go.Figure(go.Bar(x=[plotly_text(t) for t in stats["tokenizer"]], y=stats[metric], text=stats[metric],
                               marker_color=SAFE_COLORS[:len(stats)]))
        fig.update_layout(showlegend=False, height=320, margin=dict(l=10, r=10, t=30, b=10),
                          xaxis_title="tokenizer", yaxis_title=metric)
        st.plotly_chart(fig, key=f"{K}chart")
        e1, e2 = st.columns(2)
        # built only when clicked: a 1 MB text has a million rows
        total_tokens = sum(len(t) for t in results.values())
        if total_tokens > 100_000:
            st.caption(f"The downloads hold all {total_tokens:,} tokens (roughly {total_tokens * 80 / 1e6:,.0f} MB as "
                       "CSV) and take some seconds to build after the click.")
        e1.download_button("Download tokens (CSV)", lambda: export.export_csv(results), "tokens.csv", "text/csv",
                           key=f"{K}csv")
        e2.download_button("Download tokens (JSON)",
                           lambda: export.export_json(clean, results, parse_special=parse_special),
                           "tokens.json", "application/json", key=f"{K}json")

        # -- decode ------------------------------------------------------------------------------------
        with st.expander("Decode token ids", expanded=bool(st.session_state.get(f"{K}decode_ids"))):
            options = list(dict.fromkeys([*tokenizers, *all_tokenizer_names()]))
            dn = st.selectbox("Tokenizer", options, format_func=title_of, key=f"{K}decode_tok",
                              help="Any tokenizer, not only the ones shown above.")
            dtok = tokenizers.get(dn) or resolve(dn)
            if dtok is not None:
                try:
                    example = ", ".join(str(i) for i in dtok.encode("hello world", disallowed_special=()))
                except TOKENIZE_ERRORS:
                    example = ""
                raw = st.text_input("Token ids (commas or spaces)", key=f"{K}decode_ids", placeholder=example)
                render_decoder(dtok, raw, key=f"{K}decode")


compare_view()
