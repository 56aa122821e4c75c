"""The training-text picker the three labs share (BPE Lab, SentencePiece Lab, Algorithms): the
built-in corpus, a pasted text or an uploaded file, with the same checks and messages everywhere."""

from __future__ import annotations

import streamlit as st

from app_pages.kit.links import KEEP
from app_pages.kit.shared import clean_state_text
from tokenizers.core.corpus import stdlib_docstrings
from service import uploads
from app_pages.kit.settings import BUILTIN_SIZES, SOURCES
from ui.formatting import escape_markdown, md_code


def training_text(k: str, *, default_text: str, first: str = "Built-in corpus", text_label: str = "Text to train on",
                  height: int = 160, builtin_note: str = "") -> str:
    """The chosen text (lone surrogates and invalid bytes already replaced, and said so). `k` is the
    page's widget-key prefix: its widgets are `{k}source`, `{k}text`, `{k}upload`, `{k}builtin_size`."""
    order = [first, *(s for s in SOURCES if s != first)]
    source = st.radio("Training text", order, horizontal=True, key=f"{k}source", persist_state=KEEP)
    corpus = ""
    if source == "Paste":
        st.session_state.setdefault(f"{k}text", default_text)
        lone = clean_state_text(f"{k}text")
        corpus = st.text_area(text_label, height=height, key=f"{k}text", persist_state=KEEP)
        if lone:
            st.warning(f"{lone:,} lone surrogate code point(s) were replaced by U+FFFD �.")
    elif source == "Upload a file":
        up = st.file_uploader(f"A text file ({uploads.upload_size_words()})",
                              type=[s[1:] for s in uploads.TEXT_SUFFIXES], key=f"{k}upload")
        if up is not None:
            try:
                corpus, replaced = uploads.decode_upload(up.name, up.getvalue())
                st.caption(f"{md_code(up.name)}: {len(corpus):,} characters.")
                if replaced:
                    st.warning(f"The file is not all valid UTF-8: {replaced:,} byte sequence(s) were replaced by "
                               "U+FFFD �.")
            except uploads.UploadError as e:
                st.error(escape_markdown(str(e)))
    else:
        size = st.select_slider("Size", BUILTIN_SIZES, value=100_000, key=f"{k}builtin_size", persist_state=KEEP,
                                format_func=lambda n: f"{n // 1000} KB")
        corpus = stdlib_docstrings(size)
        st.caption("Docstrings of Python's standard library, read from this machine (nothing is downloaded)."
                   + (f" {builtin_note}" if builtin_note else ""))
    return corpus
