"""Streamlit glue shared by the pages: cached tokenizers and error display."""

from __future__ import annotations

import streamlit as st

from tokenizers import REGISTRY, Tokenizer, VocabularyMissingError, get_tokenizer
from tokenizers.text import clean_text


@st.cache_resource(show_spinner="Loading tokenizer…")
def load_tokenizer(name: str) -> Tokenizer:
    return get_tokenizer(name)


def try_load(name: str) -> Tokenizer | None:
    """The tokenizer, or None after showing an error that says how to fix it."""
    try:
        return load_tokenizer(name)
    except VocabularyMissingError as e:
        st.error(f"**{REGISTRY[name].title}** is unavailable offline.\n\n{e}", icon="📦")
    except Exception as e:  # keep the rest of the page alive whatever one backend does
        st.error(f"**{REGISTRY[name].title}** failed to load: {e}", icon="⚠️")
    return None


USER_TOKENIZERS = "user_tokenizers"  # session_state key: {name: Tokenizer} trained in the labs


def user_tokenizers() -> dict[str, Tokenizer]:
    """Tokenizers this visitor trained or uploaded during this visit (not shared with others)."""
    return st.session_state.setdefault(USER_TOKENIZERS, {})


def all_tokenizer_names() -> list[str]:
    return [*REGISTRY, *user_tokenizers()]


def resolve(name: str) -> Tokenizer | None:
    """A registry tokenizer (cached for everyone) or one of this visitor's own."""
    own = user_tokenizers().get(name)
    return own if own is not None else try_load(name)


def title_of(name: str) -> str:
    if name in REGISTRY:
        return REGISTRY[name].title
    own = user_tokenizers().get(name)
    return getattr(own, "title", None) or name


def clean_state_text(key: str) -> int:
    """Replace lone surrogates in a text widget's state before the widget is drawn (Streamlit
    cannot send them to the browser). Returns how many were replaced, so the page can say so."""
    value = st.session_state.get(key)
    if isinstance(value, str):
        fixed, n = clean_text(value)
        if n:
            st.session_state[key] = fixed
            return n
    return 0
