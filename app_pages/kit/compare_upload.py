"""Compare's "Load your own tokenizer file" panel: a file becomes a tokenizer for this visit (in
app_pages.kit.shared.user_tokenizers(), so every page can use it), named by its file. Called from
app_pages/compare.py; the reading itself is the library's (tokenizers/user_files.py)."""

from __future__ import annotations

import time

import streamlit as st

from app_pages.kit.shared import user_tokenizers
from tokenizers import REGISTRY
from tokenizers import user_files
from tokenizers.user_files import FORMATS, UserFileError, detect_format, known_patterns, load_user_file
from ui.formatting import escape_markdown
from service.uploads import vocabulary_note

MAX_LOADED = 6            # uploaded tokenizers kept per visit
PASTE = "Paste a regex…"


def _unique(name: str) -> str:
    taken = set(REGISTRY) | set(user_tokenizers())
    if name not in taken:
        return name
    k = 2
    while f"{name} ({k})" in taken:
        k += 1
    return f"{name} ({k})"


def _load(k: str, selection_key: str) -> None:
    """on_click of Load: runs before the page, so it may add the new tokenizer to the selection."""
    st.session_state.pop(f"{k}error", None)
    st.session_state.pop(f"{k}loaded", None)
    up = st.session_state.get(f"{k}file")
    if up is None:
        st.session_state[f"{k}error"] = "Choose a file first."
        return
    data = up.getvalue()
    own = user_tokenizers()
    if len(_uploaded(k)) >= MAX_LOADED:
        st.session_state[f"{k}error"] = (f"{MAX_LOADED} uploaded tokenizers are loaded already; remove one below "
                                         "before loading another.")
        return
    pattern = None
    choice = st.session_state.get(f"{k}pattern")
    if choice == PASTE:
        pattern = st.session_state.get(f"{k}regex", "")
    elif choice is not None:
        pattern = known_patterns().get(choice)
    t0 = time.perf_counter()
    try:
        tok = load_user_file(up.name, data, pattern=pattern, specials=st.session_state.get(f"{k}specials", ""))
    except UserFileError as e:
        st.session_state[f"{k}error"] = str(e)
        return
    except Exception as e:  # whatever a hostile file does, the page stays as it was
        st.session_state[f"{k}error"] = f"{up.name} could not be read: {type(e).__name__}: {str(e)[:300]}"
        return
    name = _unique(tok.name)
    tok.name = tok.title = name
    own[name] = tok
    st.session_state[f"{k}names"] = [*st.session_state.get(f"{k}names", []), name]
    chosen = list(st.session_state.get(selection_key, []))
    if name not in chosen:
        st.session_state[selection_key] = chosen + [name]
    st.session_state[f"{k}loaded"] = (name, tok.source_format, tok.vocab_size, time.perf_counter() - t0,
                                      vocabulary_note(tok))


def _uploaded(k: str) -> dict:
    """The tokenizers this panel loaded and the visitor has not removed (the labs load theirs too)."""
    own = user_tokenizers()
    return {n: own[n] for n in st.session_state.get(f"{k}names", []) if n in own}


def _remove(k: str, name: str, selection_key: str) -> None:
    user_tokenizers().pop(name, None)
    st.session_state[f"{k}names"] = [n for n in st.session_state.get(f"{k}names", []) if n != name]
    st.session_state[selection_key] = [n for n in st.session_state.get(selection_key, []) if n != name]


def upload_panel(k: str, selection_key: str) -> None:
    """The panel; `k` is its widget-key prefix, `selection_key` the key of the page's tokenizer picker."""
    own = user_tokenizers()
    uploaded = _uploaded(k)
    # drawn only while open (an expander that keeps its state: opening it runs the page), so that a pause
    # rerun of Compare, with the panel closed, has none of its widgets to send; a file chosen and not loaded
    # is let go when the panel closes. (No `expanded=` that follows the page's state: it is part of the
    # expander's identity, and a new one starts closed.)
    box = st.expander("Load your own tokenizer file", key=f"{k}panel", on_change="rerun")
    if not box.open:
        return
    with box:
        st.caption("A tiktoken `.tiktoken` file, a SentencePiece or minbpe `.model`, a Hugging Face `tokenizer.json`, "
                   "a Mistral Tekken `.json` or a BERT `vocab.txt`. It is read here, on the server, and kept for "
                   f"this visit only ({user_files.limits_words()}).")
        up = st.file_uploader("Tokenizer file", type=["tiktoken", "model", "json", "txt", "vocab"], key=f"{k}file")
        if up is not None and up.name.lower().endswith(".tiktoken"):
            c1, c2 = st.columns(2)
            options = [*known_patterns(), PASTE]
            choice = c1.selectbox("Split pattern (a .tiktoken file has none)", options, key=f"{k}pattern")
            if choice == PASTE:
                c1.text_input("Regex (Python `regex` syntax, as tiktoken's pat_str)", key=f"{k}regex",
                              placeholder=r"'s|'t| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+")
            c2.text_area("Special tokens (JSON, or one 'token id' per line)", key=f"{k}specials", height=100,
                         placeholder='{"<|endoftext|>": 100257}')
        elif up is not None:
            try:
                st.caption(f"Read as: {FORMATS[detect_format(up.name, up.getvalue()[:4096])]}.")
            except UserFileError as e:
                st.caption(escape_markdown(str(e)))
        st.button("Load", key=f"{k}load", on_click=_load, args=(k, selection_key), disabled=up is None,
                  type="primary")
        err = st.session_state.get(f"{k}error")
        if err:
            st.error(escape_markdown(err), icon="⚠️")
        done = st.session_state.get(f"{k}loaded")
        if done and done[0] in own:
            name, fmt, size, secs, note = done
            st.success(f"Loaded **{escape_markdown(name)}** ({escape_markdown(fmt)}, {size:,} ids) in {secs:.1f} s. "
                       "It is in the tokenizer picker, on every page, until you leave.")
            if note:
                st.info(note)
        for name, tok in uploaded.items():
            c1, c2 = st.columns([5, 1])
            c1.caption(f"{escape_markdown(name)}: {escape_markdown(tok.source_format)}, {tok.vocab_size:,} ids")
            c2.button("Remove", key=f"{k}remove_{name}", on_click=_remove, args=(k, name, selection_key))
