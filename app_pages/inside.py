"""Inside a token: merge trees, bytes and code points, regex chunks, encoding step by step, decoding,
and a vocabulary browser."""

from dataclasses import asdict

import pandas as pd
import streamlit as st

from app_pages.kit import links
from app_pages.kit.links import KEEP
from app_pages.kit.settings import KEYS
from app_pages.kit.shared import (TokenizeFailed, all_tokenizer_names, clean_state_text, first_usable, load_tokenizer,
                               render_decoder, resolve, result_of, spans_downloads, title_of, tokenize_text, TOKENIZE_ERRORS)
from tokenizers import UnknownTokenIdError
from tokenizers.analysis.characters import char_rows, counts, describe_cluster, graphemes
from tokenizers.core.patterns import GPT2_PATTERN, GPT4_PATTERN, compile_pattern, split_text
from tokenizers.core.text import clean_text
from service import limits
from ui.explain import PATTERN_PARTS
from ui.figures import length_histogram
from app_pages.kit.widgets import live_text, token_clicks
from ui.formatting import IdParseError, escape_markdown, hexbytes, md_inline_code, parse_ids, render_token
from ui.trees import render_tree
from ui.spans import render_chunks, render_parts, render_spans
from ui.tables import CATEGORIES, search_vocab, vocab_entries

K = KEYS["inside"]
DEFAULT_TOKENIZER = "cl100k_base"


@st.cache_resource(show_spinner="Reading the vocabulary…")
def registry_vocab(name: str):
    """Built once per server for everyone (a visitor's own tokenizers are read per visit)."""
    return vocab_entries(load_tokenizer(name))
MAX_PICK = 2000      # tokens offered in the picker


def numbered_pick(value, n: int) -> int:
    """The index a "#k  …" picker holds, between 0 and n - 1. Its options are range(n) labelled by the
    text, so a new text of as many tokens keeps the widget, and the browser sends the old label back;
    Streamlit returns a label that is no longer an option as the string itself (a TypeError here
    before). The label's number keeps the position."""
    if isinstance(value, str):
        digits = value[1:].split(" ", 1)[0] if value.startswith("#") else ""
        value = int(digits) if digits.isascii() and digits.isdigit() else 0
    return value if isinstance(value, int) and 0 <= value < n else 0

MAX_CHAR_ROWS = 400  # characters in the code point table
STEP_CHUNK_BYTES = 2000  # longest chunk encoded step by step (each step keeps all the chunk's parts)

st.title("Inside a token")
st.caption("Pick a token and see how it came to be: its merge tree, its bytes and code points, how the "
           "text was cut before BPE, and every merge applied while encoding. Click a token in the text to pick it.")

# -- a link (or Compare's "Open in Inside a token") chooses the tokenizer, text and token ------------
links.read("inside")

pick = token_clicks(f"{K}clicks", prefix="inside:")
c1, c2 = st.columns([1, 2])
fell_back = None
if f"{K}tok" not in st.session_state:  # first visit: the default, or one this server has when it cannot get it
    st.session_state[f"{K}tok"] = first_usable(DEFAULT_TOKENIZER)
    fell_back = st.session_state[f"{K}tok"] if st.session_state[f"{K}tok"] != DEFAULT_TOKENIZER else None
name = c1.selectbox("Tokenizer", all_tokenizer_names(), format_func=title_of, key=f"{K}tok", persist_state=KEEP)
if fell_back is not None and name == fell_back:
    st.info(f"This page usually opens on **{title_of(DEFAULT_TOKENIZER)}**, which is unavailable on this server "
            f"(see the note at the top); it shows **{title_of(fell_back)}** instead.", icon="↪️")
replaced = clean_state_text(f"{K}text")
st.session_state.setdefault(f"{K}text", "Tokenization isn't magic: 안녕하세요 👨‍👩‍👧 naïve café 1234567")
with c2:
    text = live_text(f"{K}text", label="Text", height=90)
tok = resolve(name)
if tok is None:
    st.stop()
clean, more = clean_text(text)
if replaced + more:
    st.warning("Lone surrogate code points were replaced by U+FFFD �.")
clean, size = limits.cut_text(clean, limits.INSIDE_TEXT_BYTES)
if size > limits.INSIDE_TEXT_BYTES:
    st.warning(limits.cut_message(size, limits.INSIDE_TEXT_BYTES, "Inside a token"))
bpe = tok if tok.capabilities.merge_steps else None  # byte-level BPE: merge steps can be shown
try:
    toks = tokenize_text(tok, clean, parse=False, name=name) if clean else []
except TokenizeFailed as e:  # an uploaded split pattern that runs out of time on this text
    st.error(str(e), icon="⚠️")
    st.stop()
shown = toks[:MAX_PICK]
# the picker is keyed by tokenizer: one shared key kept showing the last tokenizer's token in the
# browser after a switch ("#0 Token (id 3404)" above a description of Mistral's token 16625)
pick_key = f"{K}pick_{name}"
if pick and pick["owner"] == f"inside:{name}" and pick["pos"] < len(shown):
    st.session_state[pick_key] = pick["pos"]
    st.session_state[f"{K}by_id"] = False
st.session_state[pick_key] = numbered_pick(st.session_state.get(pick_key, 0), len(shown))

# -- which token -----------------------------------------------------------------------------------
by_id = st.toggle("Type a token id instead", key=f"{K}by_id", persist_state=KEEP)
token_id, k = None, None
if by_id:
    raw = st.text_input("Token id", "15339" if name == "cl100k_base" else "300", key=f"{K}id", persist_state=KEEP)
    try:
        ids = parse_ids(raw)
        if len(ids) != 1:
            raise IdParseError("Type one token id.")
        tok.check_ids(ids)
        tok.token_bytes(ids[0])  # an id inside the range may still be unused (a gap in the file's ids)
        token_id = ids[0]
    except (IdParseError, UnknownTokenIdError) as e:
        st.error(escape_markdown(str(e)))
elif shown:
    k = st.selectbox("Token", range(len(shown)), key=pick_key, persist_state=KEEP,
                     format_func=lambda i: f"#{i}  {render_token(shown[i].bytes)!s}  (id {shown[i].id})")
    token_id = shown[k].id
else:
    st.info("Type some text, or switch on *Type a token id instead*.")
if shown:
    st.html(render_spans(clean, shown, rank_of=tok.merge_rank, owner=f"inside:{name}", pinned=k,
                         label=f"{title_of(name)}: tokens"))
    spans_downloads(f"{K}spans", {name: toks}, pinned=k, file_stem="inside_spans")

links.write("inside", tokenizer=name, text=clean, id=token_id if by_id else None,
            token=k if not by_id else None)

if token_id is not None:
    b = tok.token_bytes(token_id)
    rank = tok.merge_rank(token_id)
    st.markdown(f"**Token {token_id}** · bytes `{hexbytes(b) or '—'}` · repr {md_inline_code(repr(b))}"
                + (f" · merge rank {rank}" if rank is not None else "")
                + (" · **special token**" if tok.is_special(token_id) else ""))

tabs = st.tabs(["Merge tree", "Bytes & code points", "Regex chunks", "Encode step by step", "Decode", "Vocabulary"])

with tabs[0]:
    if token_id is None:
        st.info("Pick a token above.")
    elif tok.is_special(token_id):
        st.info("Special tokens are not built by merges: they are added to the vocabulary as whole strings.")
    elif not tok.capabilities.merge_trees and tok.capabilities.model_type not in ("bpe", "unknown"):
        st.info(f"This is a {'SentencePiece ' if tok.capabilities.scores else ''}{escape_markdown(tok.capabilities.model_type)} model: "
                "its pieces are not built by merging pairs, so they have no merge tree.")
    elif tok.merge_parents(token_id) is None:
        st.info("A base token: a single byte" + (" or code point" if tok.capabilities.code_points else "")
                + ", where every merge tree ends.")
    else:
        st.html(render_tree(tok, token_id))
        st.caption("Leaves are single bytes (code points for SentencePiece); each box above joins the two below it. "
                   "The small number is the token id; hover for bytes and merge rank. A wide tree scrolls sideways. "
                   + ("SentencePiece keeps scores, not merges: parents are the last merge its own rule makes "
                      "when it encodes the piece alone." if tok.capabilities.scores else ""))

with tabs[1]:
    sample = clean[:MAX_CHAR_ROWS]
    st.dataframe(pd.DataFrame([counts(clean, len(toks))]), hide_index=True, key=f"{K}counts")
    st.dataframe(pd.DataFrame([asdict(r) for r in char_rows(sample)]), hide_index=True, key=f"{K}chars")
    if len(clean) > MAX_CHAR_ROWS:
        st.caption(f"The first {MAX_CHAR_ROWS} characters of {len(clean):,}.")
    multi = [g for g in dict.fromkeys(graphemes(sample)) if len(g) > 1]
    if multi:
        st.markdown("**Clusters of several code points** (each looks like one character):")
        for g in multi[:20]:
            cps = " ".join(f"U+{ord(c):04X}" for c in g)
            st.markdown(f"- {md_inline_code(g)} = {cps}: {escape_markdown(describe_cluster(g))}")

with tabs[2]:
    cols = st.columns(2)
    for col, (label, pattern) in zip(cols, [("GPT-2", GPT2_PATTERN), ("GPT-4", GPT4_PATTERN)]):
        with col:
            chunks = split_text(clean, compile_pattern(pattern)) if clean else []
            st.markdown(f"**{label}**: {len(chunks):,} chunks")
            st.html(render_chunks(chunks[:1500]))
            st.code(pattern, language="regex", wrap_lines=True)
            st.markdown("\n".join(f"- `{alt}` — {what}" for alt, what in PATTERN_PARTS[label]))
    st.caption("BPE never merges across chunks, so these cuts are final: a token never spans two chunks.")

with tabs[3]:
    if bpe is None:
        st.info("Step-by-step encoding is shown for byte-level BPE tokenizers (custom, lab, GPT-2, cl100k, o200k).")
    elif not clean:
        st.info("Type some text above.")
    else:
        chunks = bpe.split(clean)[:500]
        st.session_state[f"{K}chunk"] = numbered_pick(st.session_state.get(f"{K}chunk", 0), len(chunks))
        ci = st.selectbox("Chunk", range(len(chunks)), key=f"{K}chunk", persist_state=KEEP,
                          format_func=lambda i: f"#{i}  {chunks[i][:60]!r}" + (" …" if len(chunks[i]) > 60 else ""))
        ci = numbered_pick(ci, len(chunks))
        n_bytes = len(chunks[ci].encode("utf-8"))
        if n_bytes > STEP_CHUNK_BYTES:  # every step keeps the chunk's parts: a long chunk costs its length squared
            st.info(f"This chunk is {n_bytes:,} bytes long; the steps are shown for chunks up to {STEP_CHUNK_BYTES:,} "
                    "bytes. Pick a shorter chunk.")
        else:
            start, steps = bpe.encode_steps(chunks[ci])
            k = st.slider("Merges applied", 0, len(steps), len(steps), key=f"{K}stepk") if steps else 0
            parts = steps[k - 1].parts if k else start
            labels = [render_token(bpe.token_bytes(p)) for p in parts]
            st.html(render_parts(labels, steps[k - 1].position if k else None))
            st.caption(f"{len(start)} bytes → {len(parts)} token(s) after {k} of {len(steps)} merges: "
                       f"ids {list(parts)}. Each step merges the adjacent pair with the lowest rank.")
            st.dataframe(pd.DataFrame([{"step": s.step, "left": render_token(bpe.token_bytes(s.pair[0])),
                                        "right": render_token(bpe.token_bytes(s.pair[1])),
                                        "→ new token": render_token(bpe.token_bytes(s.new_id)), "new id": s.new_id,
                                        "rank": s.rank} for s in steps]), hide_index=True, key=f"{K}steps")

with tabs[4]:
    example = ""
    if bpe is not None:
        lone = bpe.byte_ids[0x8B]
        try:
            hi = tok.encode_ordinary("hi")[0]
        except TOKENIZE_ERRORS:
            hi = bpe.byte_ids[0x68]
        example = f"{hi}, {lone}"
        st.caption(f"Try `{example}`: id {lone} is the single byte 0x8B, a UTF-8 continuation byte that "
                   "cannot stand alone.")
    raw = st.text_input("Token ids", example, key=f"{K}decode", persist_state=KEEP)
    render_decoder(tok, raw, key=f"{K}decode")

with tabs[5]:
    v1, v2 = st.columns([2, 1])
    q = v1.text_input("Search by id, text or hex bytes", key=f"{K}vq", placeholder="15339, ' hello', E2 96 81",
                      persist_state=KEEP)
    cat = v2.selectbox("Show", CATEGORIES, key=f"{K}vcat", persist_state=KEEP)
    # a visitor's own is read once per visit (a loaded model may hold a million tokens)
    vocab, longest = result_of(name, tok, registry=registry_vocab, own=lambda: vocab_entries(tok), key=f"{K}own_vocab")
    rows = search_vocab(vocab, q, cat)
    st.caption(f"{len(rows):,} token(s) shown (at most 200) of {len(vocab):,}.")
    st.dataframe(pd.DataFrame(rows), hide_index=True, key=f"{K}vrows")
    st.markdown("**Longest tokens**")
    st.dataframe(pd.DataFrame([{"id": i, "token": p or render_token(b), "bytes": len(b)} for i, b, p in longest]),
                 hide_index=True, key=f"{K}vlong")
    if bpe is not None:
        st.plotly_chart(length_histogram(len(b) for b in bpe.vocab.values() if len(b) > 1), key=f"{K}vhist")
