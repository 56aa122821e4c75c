"""Compare's chat mode: a conversation (system / user / assistant turns, added and removed), rendered
by each tokenizer's own chat format, with its special tokens drawn as specials, per-message and total
counts, and what the format itself costs. Called from app_pages/compare.py; formats and counting
are the library's (tokenizers/chat/formats.py)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from app_pages.kit.links import KEEP
from app_pages.kit.shared import all_tokenizer_names, resolve, spans_downloads, title_of
from app_pages.kit.widgets import component_key
from tokenizers.chat import FORMAT_OF, ROLES, Message, chat_tokenizer, format_for, tokenize_chat
from tokenizers.core.text import clean_text
from service.cache import results_store
from ui.formatting import escape_markdown
from ui.spans import render_spans

DEFAULT_CHAT = [("system", "You are a helpful assistant. Answer briefly."),
                ("user", "What is a token? 🤔"),
                ("assistant", "A piece of text, often part of a word, that the model reads as one unit."),
                ("user", "How many are in this conversation?")]
DEFAULT_TOKENIZERS = ["llama3", "qwen", "mistral_tekken", "o200k_harmony"]
MAX_TURNS = 40
MAX_CHARS = 100_000  # per message
SHOWN_CHARS = 20_000  # characters of the formatted text drawn (the rest is downloaded)
MAX_TOTAL_CHARS = 200_000  # over all messages: four formats of 40 long turns took 40 s per rerun


def cut_messages(messages: list[Message], limit: int = MAX_TOTAL_CHARS) -> tuple[list[Message], int]:
    """(the conversation within `limit` characters: whole messages while they fit, the next one cut,
    the rest left out; the characters it had)."""
    total = sum(len(m.content) for m in messages)
    if total <= limit:
        return messages, total
    out, left = [], limit
    for m in messages:
        if left <= 0:
            break
        out.append(m if len(m.content) <= left else Message(m.role, m.content[:left]))
        left -= len(m.content)
    return out, total


def formatted(name: str, tok, fmt, messages: list[Message], prompt: bool):
    """tokenize_chat, from the results store all visitors share (a rerun draws every format again)."""
    # the tokenizer itself in the key, not its id: the entry keeps it alive, so its id is never reused
    key = ("chat", name, tok, fmt.title, tuple((m.role, m.content) for m in messages), prompt)
    return results_store().get(key, lambda: tokenize_chat(chat_tokenizer(name, tok), fmt, messages,
                                                          add_generation_prompt=prompt),
                               lambda res: res.total + len(res.text))


def _state(k: str) -> list[int]:
    """The turns' ids (their widgets are keyed by id, so removing one keeps the others' text)."""
    if f"{k}turns" not in st.session_state:
        st.session_state[f"{k}turns"] = list(range(len(DEFAULT_CHAT)))
        st.session_state[f"{k}next"] = len(DEFAULT_CHAT)
        for i, (role, text) in enumerate(DEFAULT_CHAT):
            st.session_state[f"{k}role_{i}"] = role
            st.session_state[f"{k}text_{i}"] = text
    return st.session_state[f"{k}turns"]


def _add(k: str, role: str) -> None:
    turns = _state(k)
    if len(turns) >= MAX_TURNS:
        return
    i = st.session_state[f"{k}next"]
    st.session_state[f"{k}next"] = i + 1
    st.session_state[f"{k}role_{i}"] = role
    st.session_state[f"{k}text_{i}"] = ""
    turns.append(i)


def _remove(k: str, i: int) -> None:
    turns = _state(k)
    if i in turns:
        turns.remove(i)
    st.session_state.pop(f"{k}role_{i}", None)
    st.session_state.pop(f"{k}text_{i}", None)


def _editor(k: str) -> list[Message]:
    turns = _state(k)
    messages = []
    for n, i in enumerate(turns):
        c1, c2, c3 = st.columns([1.2, 5.8, 1], vertical_alignment="top")  # "Remove" whole at 1280 px
        role = c1.selectbox(f"Turn {n + 1}", ROLES, key=f"{k}role_{i}", persist_state=KEEP)
        text = c2.text_area(f"Message {n + 1}", key=f"{k}text_{i}", height=68, label_visibility="collapsed",
                            max_chars=MAX_CHARS, persist_state=KEEP)
        c3.button("Remove", key=f"{k}remove_{i}", on_click=_remove, args=(k, i), help="Remove this turn")
        messages.append(Message(role, clean_text(text or "")[0]))
    b1, b2, b3, _ = st.columns([1, 1, 1, 3])
    for col, role in zip((b1, b2, b3), ("user", "assistant", "system")):
        col.button(f"+ {role}", key=f"{k}add_{role}", on_click=_add, args=(k, role),
                   disabled=len(turns) >= MAX_TURNS)
    return messages


def chat_mode(k: str) -> None:
    """The whole chat view under Compare's mode switch; `k` is the widget-key prefix."""
    st.caption("Each tokenizer renders the conversation in its own chat format: the special tokens and headers "
               "of the template (dark) cost tokens too. Counts: every token of the formatted text; the "
               "messages' own words (each message encoded alone); and the format's overhead, the difference.")
    messages = _editor(k)
    with_chat = [n for n in all_tokenizer_names() if n in FORMAT_OF]
    st.session_state.setdefault(f"{k}tokenizers", [n for n in DEFAULT_TOKENIZERS if n in with_chat])
    names = st.multiselect("Tokenizers (each with its own chat format)", with_chat, format_func=title_of,
                           key=f"{k}tokenizers", persist_state=KEEP)
    c1, c2 = st.columns(2)
    prompt = c1.toggle("End with the assistant's header (prompt a reply)", value=True, key=f"{k}prompt",
                       persist_state=KEEP,
                       help="Off: the text ends after the last message, as stored for training.")
    show_ws = c2.toggle("Show whitespace", value=True, key=f"{k}ws", help="space ·  tab →  newline ↵",
                        persist_state=KEEP)
    others = [title_of(n) for n in all_tokenizer_names() if n not in FORMAT_OF]
    st.caption("No chat format here for: " + escape_markdown(", ".join(others)) + " (base vocabularies, or a "
               "format no package here lets us check).")
    if not messages:
        st.info("Add a turn to see how each format renders it.")
        return
    if not names:
        st.info("Pick at least one tokenizer.")
        return
    messages, total = cut_messages(messages)
    if total > MAX_TOTAL_CHARS:
        st.warning(f"The conversation has {total:,} characters; chat mode counts its first {MAX_TOTAL_CHARS:,} "
                   "(the messages after that are left out), so that one visitor's text cannot slow the server "
                   "for everyone.")
    rows = []
    results = {}
    for name in names:
        tok = resolve(name)
        fmt = format_for(name)
        if tok is None or fmt is None:
            continue
        try:
            res = formatted(name, tok, fmt, messages, prompt)
        except ValueError as e:
            st.error(escape_markdown(f"{title_of(name)}: {e}"))
            continue
        results[name] = (fmt, res)
        rows.append({"tokenizer": title_of(name), "format": fmt.title, "tokens": res.total,
                     "message words": res.content_total, "format overhead": res.overhead,
                     "overhead %": round(100 * res.overhead / res.total, 1) if res.total else 0.0})
    if not rows:
        return
    st.subheader("Counts")
    st.dataframe(pd.DataFrame(rows), hide_index=True, key=f"{k}summary")
    for name, (fmt, res) in results.items():
        st.markdown(f"#### {escape_markdown(title_of(name))}: {escape_markdown(fmt.title)}")
        st.caption(f"{res.total:,} tokens: {res.content_total:,} for the messages' words, {res.overhead:,} for the "
                   f"format ({res.format_tokens:,} outside any message). Template: {escape_markdown(fmt.source)}."
                   + (f" {escape_markdown(fmt.note)}" if fmt.note else ""))
        for w in res.warnings:
            st.warning(escape_markdown(w))
        inside = [s for s in fmt.specials if any(s in m.content for m in messages)]
        if inside:
            st.info("A message contains " + ", ".join(escape_markdown(s) for s in inside) + ": it stays text "
                    "(several tokens), as the vendors' chat code keeps it. Only the template's own markers are "
                    "special tokens.")
        st.html(render_spans(res.text, res.tokens[:5000], whitespace=show_ws))
        spans_downloads(f"{k}spans_{component_key(name)}", {name: res.tokens}, whitespace=show_ws,
                        each={name: {"title": f"{title_of(name)} · {fmt.title}"}}, file_stem="chat_spans")
        if res.total > 5000:
            st.caption(f"The spans show the first 5,000 of {res.total:,} tokens; the counts cover them all.")
        per = pd.DataFrame([{"turn": str(n + 1), "role": m.role, "tokens": m.tokens, "words alone": m.content,
                             "template": m.overhead} for n, m in enumerate(res.messages)]
                           + [{"turn": "—", "role": "format only", "tokens": res.format_tokens, "words alone": 0,
                               "template": res.format_tokens}])
        c1, c2 = st.columns([2, 3])
        c1.dataframe(per, hide_index=True, key=f"{k}per_{name}")
        with c2:
            if len(res.text) <= SHOWN_CHARS:
                st.caption("The formatted text (copy it with the button at its corner):")
                st.code(res.text, language=None, wrap_lines=True)
            else:  # forty long turns would send megabytes per tokenizer on every rerun
                st.caption(f"The first {SHOWN_CHARS:,} of {len(res.text):,} characters of the formatted text; "
                           "download it whole:")
                st.code(res.text[:SHOWN_CHARS] + " …", language=None, wrap_lines=True)
                st.download_button("Formatted text (.txt)", lambda t=res.text: t.encode("utf-8"), "chat.txt",
                                   "text/plain", key=f"{k}dl_{component_key(name)}", on_click="ignore")
