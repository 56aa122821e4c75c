"""Compare: one text, several tokenizers side by side."""

import pandas as pd
import plotly.express as px
import streamlit as st

from app_pages.compare_upload import upload_panel
from app_pages.shared import all_tokenizer_names, clean_state_text, render_decoder, resolve, title_of
from tokenizers import default_tokenizers
from tokenizers.text import clean_text
from ui import analysis, export, paging
from ui.examples import EXAMPLES

from ui.spans import LEGEND, render_header, render_spans

PAGE_SIZE = 5000          # about this many tokens drawn per tokenizer and page
URL_TEXT_LIMIT = 2000     # longer texts are not put in the link
VIEWS = ["Spans", "IDs", "Table"]
K = "compare_"            # widget key prefix

# -- state from the URL, once per visit ------------------------------------------------------------
if f"{K}init" not in st.session_state:
    st.session_state[f"{K}init"] = True
    q = st.query_params
    if "text" in q:
        st.session_state[f"{K}text"] = q["text"]
        st.session_state[f"{K}link_fffd"] = "\ufffd" in q["text"]
    if "tokenizers" in q:
        by_lower = {n.lower(): n for n in all_tokenizer_names()}
        asked = [n.strip() for n in q["tokenizers"].split(",") if n.strip()]
        st.session_state[f"{K}tokenizers"] = list(dict.fromkeys(by_lower[n.lower()] for n in asked
                                                                  if n.lower() in by_lower))
        st.session_state[f"{K}unknown"] = [n for n in asked if n.lower() not in by_lower]
    for flag in ("special", "ws", "alt"):
        if flag in q:
            st.session_state[f"{K}{flag}"] = q[flag] == "1"
    if q.get("view") in VIEWS:
        st.session_state[f"{K}view"] = q["view"]
    if "ref" in q:
        st.session_state[f"{K}ref"] = q["ref"]
    if q.get("mode") == "chat":
        st.session_state[f"{K}mode"] = "Chat"


def load_example():
    choice = st.session_state[f"{K}example"]
    if choice is not None:
        st.session_state[f"{K}text"] = EXAMPLES[choice]
        st.session_state[f"{K}example"] = None  # back to the placeholder: the text is the user's now


st.title("Compare tokenizers")
mode = st.radio("Input", ["Paste", "Chat"], horizontal=True, key=f"{K}mode",
                help="Chat: a conversation, rendered by each tokenizer's own chat format (app_pages/compare_chat.py).")
if mode == "Chat":
    from app_pages.compare_chat import chat_mode

    st.query_params.from_dict({"mode": "chat"})
    chat_mode(f"{K}chat_")
    st.stop()
if st.session_state.get(f"{K}unknown"):
    st.warning("The link names tokenizers that do not exist here: "
               + ", ".join(f"`{n}`" for n in st.session_state[f"{K}unknown"]) + ". They were left out.")

st.selectbox("Example", list(EXAMPLES), index=None, placeholder="Load an example…", key=f"{K}example",
             on_change=load_example)
replaced = clean_state_text(f"{K}text")
st.session_state.setdefault(f"{K}text", EXAMPLES["Emoji, joiners and flags"])
text = st.text_area("Text", height=150, key=f"{K}text")
st.session_state.setdefault(f"{K}tokenizers", default_tokenizers())
upload_panel(f"{K}upload_", f"{K}tokenizers")  # your own tokenizer file (app_pages/compare_upload.py)
names = st.multiselect("Tokenizers (in the order shown)", all_tokenizer_names(), format_func=title_of,
                       key=f"{K}tokenizers")

c1, c2, c3, c4 = st.columns(4)
parse_special = c1.toggle("Parse special tokens", key=f"{K}special",
                          help="Off: a string like <|endoftext|> is ordinary text. On: it becomes the special token.")
show_ws = c2.toggle("Show whitespace", key=f"{K}ws", help="space ·  tab →  newline ↵")
alternating = c3.toggle("Alternating colors", key=f"{K}alt",
                        help="Off: the color comes from the token id, so a repeated token keeps its color.")
view = c4.radio("View", VIEWS, horizontal=True, key=f"{K}view")

clean, more = clean_text(text)
replaced += more
st.caption("Special tokens: **parsed** as special tokens." if parse_special
           else "Special tokens: **treated as text** (the safe default).")
st.html(LEGEND)
if st.session_state.pop(f"{K}link_fffd", False):
    st.warning("The link's text was not valid UTF-8; the invalid bytes were replaced by U+FFFD �.")
if replaced:
    st.warning(f"The text held {replaced} lone surrogate code point(s), which have no UTF-8 encoding; "
               "each is shown and tokenized as U+FFFD �.")

# -- the link that reproduces this view ------------------------------------------------------------
params = {"tokenizers": ",".join(names), "special": "1" if parse_special else "0",
          "ws": "1" if show_ws else "0", "alt": "1" if alternating else "0", "view": view}
if len(clean) <= URL_TEXT_LIMIT:
    params["text"] = clean
st.query_params.from_dict(params)

if not clean:
    st.info("Type or paste some text above, or load an example, to see its tokens.")
    st.stop()
if not names:
    st.info("Pick at least one tokenizer.")
    st.stop()
if len(clean) > URL_TEXT_LIMIT:
    st.caption(f"The text is longer than {URL_TEXT_LIMIT:,} characters, so the page's link keeps the "
               "tokenizers and options but not the text.")

# -- tokenize (per-visitor results kept in session_state) ------------------------------------------
tokenizers = {n: t for n in names if (t := resolve(n)) is not None}
cache = st.session_state.setdefault(f"{K}results", {})
results = {}
for name, tok in tokenizers.items():
    key = (name, id(tok), hash(clean), parse_special)
    if key not in cache:
        if len(cache) > 16:
            cache.clear()
        cache[key] = (tok.tokenize(clean, allowed_special="all") if parse_special
                      else tok.tokenize(clean, disallowed_special=()))
    results[name] = cache[key]
if not results:
    st.stop()

specials = analysis.special_strings_in(clean, sorted({s for t in tokenizers.values() for s in t.special_tokens}))
if specials:
    shown = ", ".join(f"`{s}`" for s in specials)
    if parse_special:
        st.info(f"The text contains {shown}. Parsing is **on**: each becomes one special token in the "
                "tokenizers that define it (shown dark); SentencePiece never parses them from text.")
    else:
        st.info(f"The text contains {shown}. Parsing is **off**: it is split like any other text. "
                "Turn on *Parse special tokens* to see it as the single special token a model would get.")
trailing = [title_of(n) for n, toks in results.items() if analysis.trailing_space_token(clean, toks)]
if trailing:
    st.info("The text ends in a space that becomes its own token in " + ", ".join(trailing)
            + ". In ordinary text a space belongs to the next word (' world'), so models rarely see a lone "
            "trailing space; prompts that end in one can behave oddly.")

ref_options = list(results)
st.session_state.setdefault(f"{K}ref", ref_options[0])
if st.session_state[f"{K}ref"] not in ref_options:
    st.session_state[f"{K}ref"] = ref_options[0]
d1, d2 = st.columns([1, 3])
diff_on = d1.toggle("Mark boundaries that differ", key=f"{K}diff")
ref = d2.selectbox("from", ref_options, format_func=title_of, key=f"{K}ref", disabled=not diff_on,
                   label_visibility="collapsed")

# -- per tokenizer, two to a row (rows keep the chosen order, also when a phone stacks them) --------
n_chars, n_bytes = len(clean), len(clean.encode("utf-8"))
per_page = paging.chars_per_page(n_chars, [len(t) for t in results.values()], PAGE_SIZE)
pages = (n_chars - 1) // per_page + 1
page = 0
if pages > 1:
    page = st.number_input(f"Page (1–{pages})", 1, pages, 1, key=f"{K}page") - 1
    st.caption(f"Showing characters {page * per_page + 1:,}–{min(n_chars, (page + 1) * per_page):,} of "
               f"{n_chars:,}, the same stretch in every column; the counts cover the whole text.")
c0, c1 = page * per_page, min(n_chars, (page + 1) * per_page)
items = list(results.items())
for row in range(0, len(items), 2):
    cols = st.columns(2) if len(items) > 1 else [st.container()]
    for k, (name, toks) in enumerate(items[row:row + 2]):
        tok = tokenizers[name]
        with cols[k]:
            st.html(render_header(name, title_of(name), len(toks), n_chars, n_bytes))
            lo, hi = paging.char_window(toks, c0, c1)
            shown = toks[lo:hi]
            if not shown:
                st.caption("No tokens in this stretch of text.")
            elif view == "Spans":
                marks = analysis.differing_starts(toks, results[ref]) if diff_on and name != ref else frozenset()
                if diff_on and name != ref:
                    st.caption(f"{len(marks):,} {'boundary' if len(marks) == 1 else 'boundaries'} "
                               f"in the whole text not in {title_of(ref)} (red edge).")
                st.html(render_spans(clean, shown, whitespace=show_ws, alternating=alternating, marks=marks,
                                     rank_of=tok.merge_rank, flip_tips=k == 1))
            elif view == "IDs":
                st.code(", ".join(str(t.id) for t in shown), language=None, wrap_lines=True)
            else:
                st.dataframe(pd.DataFrame(export.token_rows(shown)), hide_index=True,
                             height=min(400, 35 * (len(shown) + 1) + 3), key=f"{K}table_{name}")

# -- counts ----------------------------------------------------------------------------------------
st.subheader("Counts")
stats = pd.DataFrame(analysis.stats_rows(clean, results, {n: title_of(n) for n in results}))
st.dataframe(stats, hide_index=True, key=f"{K}stats")
metric = st.selectbox("Chart", ["tokens", "chars/token", "bytes/token", "byte-fallback/unknown", "tokens vs first"],
                      key=f"{K}metric")
fig = px.bar(stats, x="tokenizer", y=metric, text=metric, color="tokenizer",
             color_discrete_sequence=px.colors.qualitative.Safe)
fig.update_layout(showlegend=False, height=320, margin=dict(l=10, r=10, t=30, b=10))
st.plotly_chart(fig, key=f"{K}chart")
e1, e2 = st.columns(2)
# built only when clicked: a 1 MB text has a million rows
total_tokens = sum(len(t) for t in results.values())
if total_tokens > 100_000:
    st.caption(f"The downloads hold all {total_tokens:,} tokens (roughly {total_tokens * 80 / 1e6:,.0f} MB as CSV) "
               "and take some seconds to build after the click.")
e1.download_button("Download tokens (CSV)", lambda: export.export_csv(results), "tokens.csv", "text/csv",
                   key=f"{K}csv")
e2.download_button("Download tokens (JSON)", lambda: export.export_json(clean, results, parse_special=parse_special),
                   "tokens.json", "application/json", key=f"{K}json")

# -- decode ----------------------------------------------------------------------------------------
with st.expander("Decode token ids", expanded=bool(st.session_state.get(f"{K}decode_ids"))):
    dn = st.selectbox("Tokenizer", list(tokenizers), format_func=title_of, key=f"{K}decode_tok")
    raw = st.text_input("Token ids (commas or spaces)", key=f"{K}decode_ids", placeholder="15339, 1917")
    render_decoder(tokenizers[dn], raw, key=f"{K}decode")
