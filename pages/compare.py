"""Compare: one text, several tokenizers side by side."""

import streamlit as st

from pages.shared import clean_state_text, title_of, try_load
from tokenizers import available_tokenizers, default_tokenizers
from tokenizers.text import clean_text
from ui.spans import render_header, render_spans

SPAN_LIMIT = 5000
EXAMPLE = "Tokenizers turn text into ids: 안녕하세요 👋, 👨‍👩‍👧, naïve café, and    four spaces.\n<|endoftext|>"

st.title("Compare tokenizers")
replaced = clean_state_text("compare_text")
text = st.text_area("Text", value=EXAMPLE, height=140, key="compare_text")
names = st.multiselect("Tokenizers", available_tokenizers(), default=default_tokenizers(),
                       format_func=title_of, key="compare_tokenizers")
c1, c2 = st.columns(2)
parse_special = c1.toggle("Parse special tokens", value=False, key="compare_parse_special",
                          help="Off: a string like <|endoftext|> in the text is ordinary text. "
                               "On: it becomes that tokenizer's special token.")
show_ws = c2.toggle("Show whitespace", value=False, key="compare_whitespace")
st.caption("Special tokens: **parsed** as special tokens." if parse_special
           else "Special tokens: **treated as text** (the safe default).")

clean, more = clean_text(text)
replaced += more
if replaced:
    st.warning(f"The text held {replaced} lone surrogate code point(s) with no UTF-8 encoding; "
               "each is shown and tokenized as U+FFFD �.")
if not clean:
    st.info("Type or paste some text above to see its tokens.")
elif not names:
    st.info("Pick at least one tokenizer.")
else:
    cols = st.columns(min(len(names), 2))
    for k, name in enumerate(names):
        with cols[k % len(cols)]:
            tok = try_load(name)
            if tok is None:
                continue
            toks = tok.tokenize(clean, allowed_special="all" if parse_special else "none")
            st.html(render_header(name, title_of(name), len(toks), len(clean), len(clean.encode("utf-8"))))
            if len(toks) > SPAN_LIMIT:
                st.caption(f"Showing the first {SPAN_LIMIT:,} tokens; counts cover the whole text.")
            st.html(render_spans(clean, toks[:SPAN_LIMIT], whitespace=show_ws))
