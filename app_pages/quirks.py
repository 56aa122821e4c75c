"""Quirks: why a model can't spell, add or count, shown live on editable examples; and the evidence
read from the vocabularies themselves (numbers, unreachable and partial tokens, rare long tokens)."""

import pandas as pd
import streamlit as st

from app_pages.kit import links
from app_pages.kit import settings
from app_pages.kit.links import KEEP
from app_pages.kit.shared import (TokenizeFailed, all_tokenizer_names, clean_state_text, load_tokenizer, md_title, resolve, result_of,
                               spans_downloads, title_of, tokenize_text, usable, TOKENIZE_ERRORS)
from tokenizers import Tokenizer, default_tokenizers, token_healing
from tokenizers.analysis import vocab_audit
from tokenizers.analysis import numbers
from tokenizers.analysis.vocab_search import VocabQuery
from tokenizers.core.text import clean_text
from service import limits
from app_pages.kit.widgets import bump, live_text
from ui.figures import number_heatmap
from ui.formatting import escape_markdown, hexbytes, md_inline_code, render_token
from ui.quirks import CARDS, EGGS, FORMATS, Card, bytes_label, healing_html, ranking_note
from ui.spans import LEGEND, render_small_header, render_spans

K = settings.KEYS["quirks"]
MAX_SPAN_TOKENS = 1500   # tokens drawn per tokenizer and text (counts cover the whole text)
LINK_LIMIT = links.TEXT_LIMIT  # Compare keeps texts up to this long in its link
MAX_ROWS = 500           # rows shown in the audit's lists
TABS = ["Gallery", "Numbers", "Vocabulary audit", "Rare long tokens"]


# -- helpers -----------------------------------------------------------------------------------------
def tokens_of(name: str, tok: Tokenizer, text: str, parse: bool = False):
    """Tokenize, from the results store all visitors share (service/cache.py: a rerun re-draws every card,
    and the store's budget bounds what the server keeps, however many visitors come); a failure is
    remembered too and raised as TokenizeFailed."""
    return tokenize_text(tok, text, parse=parse, name=name)


def compare_query(text: str, names: list[str], special: bool = False) -> dict[str, str] | None:
    """Compare's link parameters for `text` in these tokenizers, one text, tokenized as text or with special
    tokens parsed, as the card shows it; None when the text is too long for a link. Compare opens in the
    same tab, in this visit: the tokenizers trained or uploaded in it are there too."""
    q = links.query("compare", {"text": text, "tokenizers": names or default_tokenizers(), "special": special,
                                "ab": False, "mode": settings.MODES[0]})
    return q if "text" in q else None


def link_button(label: str, text: str, names: list[str], key: str, special: bool = False) -> None:
    """A card's way to Compare: a page link in the same tab (back on Quirks, the same card is open)."""
    query = compare_query(text, names, special)
    if query is None:
        st.button(label, key=key, disabled=True,
                  help=f"Texts over {LINK_LIMIT:,} characters do not fit in a link; paste it on Compare.")
    else:
        st.page_link("app_pages/compare.py", label=label, icon="🔍", query_params=query,
                     help="Opens this text on the Compare page" + (", with special tokens parsed" if special else "")
                     + "; Quirks keeps this card for when you come back.")


def label_of(tok: Tokenizer, i: int) -> str:
    return tok.piece_of(i) or render_token(tok.token_bytes(i))


def draw_tokens(name: str, tok: Tokenizer, text: str, title: str, parse: bool = False, flip: bool = False,
                versus: int = 0, whitespace: bool = False, into: dict | None = None) -> None:
    """One tokenizer's count and spans for one text; `versus`: text A's count, for B's ratio; `into`
    collects what was drawn (heading -> tokens), for the card's spans download."""
    try:
        toks = tokens_of(name, tok, text, parse)
    except TokenizeFailed as e:
        st.error(str(e), icon="⚠️")
        return
    note = f"{len(toks) / versus:.2f}× A ({len(toks) - versus:+,})" if versus else ""
    body = render_small_header(name, title, len(toks), len(text), note)
    if toks and into is not None:
        into[title] = toks
    if toks:
        body += render_spans(text, toks[:MAX_SPAN_TOKENS], rank_of=tok.merge_rank, flip_tips=flip,
                             whitespace=whitespace or st.session_state.get(f"{K}ws", False))
    st.html(body)
    if len(toks) > MAX_SPAN_TOKENS:
        st.caption(f"The first {MAX_SPAN_TOKENS:,} of {len(toks):,} tokens are drawn; the count covers all.")


def text_height(*texts: str) -> int:
    lines = max(t.count("\n") + 1 for t in texts)
    return max(68, min(320, 26 * lines + 20))


# -- the gallery -------------------------------------------------------------------------------------
def load_preset(card: Card) -> None:
    k = f"{K}{card.key}"
    label = st.session_state[f"{k}_preset"]
    if label is None:
        return
    p = next(p for p in card.presets if p.label == label)
    for suffix, value in (("_a", p.a), ("_b", p.b or ""), ("_two", p.b is not None)):
        st.session_state[k + suffix] = value
    bump(f"{k}_a")  # the live boxes show the example's texts
    bump(f"{k}_b")
    st.session_state[f"{k}_preset"] = None  # back to the placeholder: the text is the visitor's now


def extra_table(card: Card, names: list[str], toks: dict[str, Tokenizer]) -> None:
    if card.extra == "variants":  # a row per tokenizer and spelling: a column per spelling ran off the card
        rows = [{"tokenizer": title_of(n), "text": v, "tokens": len(ids),
                 "pieces": " ".join(label_of(toks[n], i) for i in ids), "ids": " ".join(map(str, ids))}
                for n in names for v in card.variants for ids in [tokens_of(n, toks[n], v).ids]]
        st.markdown("**The four spellings, token by token**")
        st.dataframe(pd.DataFrame(rows), hide_index=True, key=f"{K}{card.key}_variants",
                     height=35 * len(rows) + 38 if len(rows) <= 20 else "auto")
    elif card.extra == "formats":
        rows = [{"format": f, "characters": len(t), **{title_of(n): len(tokens_of(n, toks[n], t)) for n in names}}
                for f, t in FORMATS.items()]
        st.markdown("**The same three records in every format** (tokens)")
        st.dataframe(pd.DataFrame(rows), hide_index=True, key=f"{K}{card.key}_formats")
    elif card.extra == "glitch":
        rows = []
        for s in vocab_audit.GPT2_GLITCH_TOKENS:
            row = {"string": repr(s)}
            for n in names:
                ids = tokens_of(n, toks[n], s).ids
                row[title_of(n)] = f"1 token: {ids[0]}" if len(ids) == 1 else f"{len(ids)} tokens"
            rows.append(row)
        st.markdown("**Published GPT-2 glitch tokens** (Rumbelow & Watkins, 2023), in each tokenizer")
        st.dataframe(pd.DataFrame(rows), hide_index=True, key=f"{K}{card.key}_glitch", height=250)


def card_head(card: Card, widths: list[int]):
    """A card's title, its text and its example menu; returns the column beside the menu."""
    st.subheader(card.title, anchor=card.key)
    st.markdown(card.body)
    c1, c2 = st.columns(widths)
    c1.selectbox("Examples", [p.label for p in card.presets], index=None, placeholder="Load an example…",
                 key=f"{K}{card.key}_preset", on_change=load_preset, args=(card,), label_visibility="collapsed")
    return c2


def card_texts(*texts: str) -> list[str]:
    """A card's texts, cleaned and cut to the card's bound (said once when one was cut)."""
    cut = [limits.cut_text(clean_text(t)[0], limits.CARD_TEXT_BYTES) for t in texts]
    size = max(n for _, n in cut)
    if size > limits.CARD_TEXT_BYTES:
        st.warning(limits.cut_message(size, limits.CARD_TEXT_BYTES, "this card"))
    return [t for t, _ in cut]


def healing_row(name: str, h) -> dict:
    tok = h.tokens.tokenizer
    return {"tokenizer": title_of(name), "tokens": h.n_tokens, "last token": bytes_label(h.partial),
            "id": h.last_id, "bytes (hex)": hexbytes(h.partial), "could continue it": len(h.candidates),
            "most common": "  |  ".join(bytes_label(tok.decode_single_token_bytes(i)) for i in h.common[:5])}


def draw_healing(card: Card, names: list[str], toks: dict[str, Tokenizer]) -> None:
    """The card "Where a prompt ends": one text, its end in the picked tokenizer, and every chosen
    tokenizer in a table (tokenizers.token_healing, on the tokens the results store holds)."""
    k = f"{K}{card.key}"
    st.session_state.setdefault(f"{k}_a", card.presets[0].a)
    if st.session_state.get(f"{k}_tok") not in names:
        st.session_state[f"{k}_tok"] = "cl100k_base" if "cl100k_base" in names else names[0]
    with st.container(border=True, key=f"{k}_card"):
        c2 = card_head(card, [1, 1])
        titles = {n: title_of(n) for n in names}  # read now: a visitor's own titles live in the session
        name = c2.selectbox("Tokenizer", names, format_func=lambda n: titles.get(n, n), key=f"{k}_tok",
                            persist_state=KEEP, label_visibility="collapsed")
        replaced = clean_state_text(f"{k}_a")
        text = live_text(f"{k}_a", label="Text", height=text_height(st.session_state[f"{k}_a"]))
        if replaced:
            st.warning("Lone surrogate code points (halves of a UTF-16 pair) were replaced by U+FFFD �.")
        (text,) = card_texts(text)
        if not text:
            st.info("Type a text above, or load an example: the card shows where it ends.")
            return
        found, rows = {}, []
        for n in names:
            try:
                found[n] = token_healing(toks[n], text, tokens=tokens_of(n, toks[n], text))
                rows.append(healing_row(n, found[n]))
            except TokenizeFailed as e:
                rows.append({"tokenizer": title_of(n), "last token": "(could not tokenize this text)"})
                if n == name:
                    st.error(str(e), icon="⚠️")
            except ValueError as e:  # no tokens at all (a normalizer removed the whole text)
                rows.append({"tokenizer": title_of(n), "tokens": 0, "last token": "(no tokens)"})
                if n == name:
                    st.info(f"**{md_title(n)}**: {escape_markdown(str(e))}")
        h = found.get(name)
        if h is not None:
            st.html(render_small_header(name, title_of(name), h.n_tokens, len(h.text), "the last token outlined")
                    + healing_html(h, toks[name]))
            st.caption(ranking_note(h.ranking))
        if rows:
            st.markdown("**Every chosen tokenizer** (the last token's bytes: space ·, newline ↵, not UTF-8 \\xNN)")
            st.dataframe(pd.DataFrame(rows), hide_index=True, key=f"{k}_table", column_config={
                "could continue it": st.column_config.NumberColumn(
                    help="Tokens of the vocabulary whose bytes start with the last token's (itself included)"),
                "most common": st.column_config.TextColumn(width="medium")})
        with st.container(horizontal=True, vertical_alignment="center"):
            link_button("Open on Compare", text, names, f"{k}_open_a")
            if h is not None:
                spans_downloads(f"{k}_spans", {name: h.tokens}, file_stem=card.key, whitespace=True,
                                pinned=len(h.tokens) - 1)


def draw_card(card: Card, names: list[str], toks: dict[str, Tokenizer]) -> None:
    if card.extra == "healing":
        return draw_healing(card, names, toks)
    k = f"{K}{card.key}"
    first = card.presets[0]
    special = card.extra == "special"
    ws = card.whitespace
    # the cards' widgets keep their values while another tab is open (persist_state, app_pages/kit/links.py)
    st.session_state.setdefault(f"{k}_a", first.a)
    st.session_state.setdefault(f"{k}_b", first.b or "")
    st.session_state.setdefault(f"{k}_two", first.b is not None)
    with st.container(border=True, key=f"{k}_card"):
        c2 = card_head(card, [2, 1])
        two = c2.toggle("Text B beside it", key=f"{k}_two", persist_state=KEEP)
        replaced = clean_state_text(f"{k}_a") + clean_state_text(f"{k}_b")
        height = text_height(st.session_state[f"{k}_a"], st.session_state[f"{k}_b"] if two else "")
        cols = st.columns(2) if two else [st.container()]
        with cols[0]:
            a = live_text(f"{k}_a", label="Text A" if two else "Text", height=height)
        b = ""
        if two:
            with cols[1]:
                b = live_text(f"{k}_b", label="Text B", height=height)
        if replaced:
            st.warning("Lone surrogate code points (halves of a UTF-16 pair) were replaced by U+FFFD �.")
        a, b = card_texts(a, b)
        drawn: dict = {}  # heading -> TokenList, for the card's spans download
        if not a and not (two and b):
            st.info("Type a text above, or load an example.")
        elif special:  # each text as text (left) and parsed (right)
            for label, text in [("A", a), ("B", b)] if two else [("", a)]:
                if label:
                    st.markdown(f"**Text {label}**")
                which = f" · {label}" if label else ""
                for name in names:
                    c_text, c_parsed = st.columns(2)
                    with c_text:
                        draw_tokens(name, toks[name], text, f"{title_of(name)} · as text{which}", whitespace=ws,
                                    into=drawn)
                    with c_parsed:
                        draw_tokens(name, toks[name], text, f"{title_of(name)} · parsed{which}", parse=True,
                                    flip=True, whitespace=ws, into=drawn)
                        if not toks[name].capabilities.parses_specials:
                            st.caption("SentencePiece never parses special tokens from text.")
        elif two:
            for name in names:
                c_a, c_b = st.columns(2)
                na = len(tokens_of(name, toks[name], a))
                with c_a:
                    draw_tokens(name, toks[name], a, f"{title_of(name)} · A", whitespace=ws, into=drawn)
                with c_b:
                    draw_tokens(name, toks[name], b, f"{title_of(name)} · B", flip=True, versus=na, whitespace=ws,
                                    into=drawn)
        else:
            for row in range(0, len(names), 2):
                cols = st.columns(2)
                for j, name in enumerate(names[row:row + 2]):
                    with cols[j]:
                        draw_tokens(name, toks[name], a, title_of(name), flip=j == 1, whitespace=ws, into=drawn)
        extra_table(card, names, toks)
        if special:
            buttons = [(f"Compare {x}{how}", t, f"_open_{x.strip().lower() or 'a'}_{how}", how == "parsed")
                       for x, t in ([("A ", a), ("B ", b)] if two else [("", a)]) for how in ("as text", "parsed")]
        else:
            buttons = [("Open A on Compare" if two else "Open on Compare", a, "_open_a", False)]
            buttons += [("Open B on Compare", b, "_open_b", False)] if two else []
        with st.container(horizontal=True, vertical_alignment="center"):  # the card's actions in a row
            for label, text, suffix, parsed in buttons:
                link_button(label, text, names, k + suffix.replace(" ", "_"), special=parsed)
            if drawn:
                spans_downloads(f"{k}_spans", drawn, each={t: {"title": t} for t in drawn}, file_stem=card.key,
                                whitespace=ws or st.session_state.get(f"{K}ws", False))


# -- the deck: one card at a time ----------------------------------------------------------------------
CARD = f"{K}card"                  # the card shown (its key: card= in the link)
UNKNOWN_CARD = f"{K}card_unknown"  # a link's card that does not exist, said until the visitor moves on


def card_index() -> int:
    keys = [c.key for c in CARDS]
    return keys.index(st.session_state[CARD]) if st.session_state.get(CARD) in keys else 0


def card_label(key: str) -> str:
    i = [c.key for c in CARDS].index(key)
    return f"{i + 1} / {len(CARDS)} · {CARDS[i].title}"


def moved() -> None:
    st.session_state.pop(UNKNOWN_CARD, None)


def step_card(step: int) -> None:
    """Previous / Next (before the run): the card `step` away, round the deck."""
    st.session_state[CARD] = CARDS[(card_index() + step) % len(CARDS)].key
    moved()


def deck_nav(where: str) -> None:
    """Previous and Next, then at the top the card list and a link to the card, under the card its number (in
    that order a phone keeps Previous and Next side by side, the list on its own line)."""
    i = card_index()
    before, after = (i - 1) % len(CARDS), (i + 1) % len(CARDS)
    with st.container(horizontal=True, vertical_alignment="center", key=f"{K}deck_{where}"):
        st.button("Previous", key=f"{K}prev_{where}", icon=":material/arrow_back:", on_click=step_card, args=(-1,),
                  help=f"Card {before + 1}: {escape_markdown(CARDS[before].title)}")
        st.button("Next", key=f"{K}next_{where}", icon=":material/arrow_forward:", icon_position="right",
                  on_click=step_card, args=(1,), help=f"Card {after + 1}: {escape_markdown(CARDS[after].title)}")
        if where != "top":
            st.caption(f"Card {i + 1} of {len(CARDS)}")
            return
        st.selectbox("Card", [c.key for c in CARDS], format_func=card_label, key=CARD, persist_state=KEEP,
                     on_change=moved, label_visibility="collapsed", width=420)
        # the address bar holds it too: the page's link names the card
        st.page_link("app_pages/quirks.py", label="Link to this card", icon=":material/link:",
                     query_params={**links.params("quirks"), "card": CARDS[i].key},
                     help="This card with these tokenizers, for a bookmark or to share (its texts stay here).")


# -- evidence ------------------------------------------------------------------------------------------
@st.cache_resource(show_spinner="Auditing the vocabulary…")
def registry_audit(name: str) -> dict:
    return vocab_audit.audit(name)


def audit_of(name: str, tok: Tokenizer) -> dict:
    return result_of(name, tok, registry=registry_audit, own=lambda: vocab_audit.audit_tokenizer(tok),
                     key=f"{K}own_audit")


def _numbers(f: numbers.NumberFigures) -> tuple[list[int], list[str], int, int]:
    """(tokens per number 0–9999, how each was cut, how many all-digit tokens, the longest one's bytes):
    the Numbers tab's evidence, from a tokenizer's figures (tokenizers.analysis.numbers)."""
    labels = {i: piece or render_token(data) for i, (data, piece) in f.tokens.items()}  # label_of's
    return f.counts, ["|".join(labels[i] for i in x) for x in f.ids], f.digit_tokens, f.longest_digit_token


@st.cache_resource(max_entries=16, show_spinner="Tokenizing the numbers 0–9999…")
def registry_numbers(name: str) -> tuple[list[int], list[str], int, int]:
    """A registry vocabulary's from a small file on disk, without loading the vocabulary (issue 20: the
    tab's first view loaded all twelve); the file is computed and written on first use, or at set-up."""
    return _numbers(numbers.registry_number_figures(name, lambda: load_tokenizer(name)))


def numbers_of(name: str, tok: Tokenizer | None) -> tuple[list[int], list[str], int, int]:
    return result_of(name, tok, registry=registry_numbers, own=lambda: _numbers(numbers.number_figures(tok)),
                     key=f"{K}own_numbers")


def sample_texts() -> list[str]:
    """The texts this app ships: Compare's presets, the Quirks examples (but not the glitch card's,
    which holds the glitch strings on purpose), the Languages page's parallel text and programs,
    and the built-in docstring corpus of the BPE Lab."""
    from tokenizers.core.corpus import stdlib_docstrings
    from tokenizers.analysis.parallel import language_texts, program_texts
    from ui.examples import EXAMPLES

    texts = list(EXAMPLES.values()) + list(FORMATS.values()) + list(EGGS)
    texts += [t for c in CARDS if c.key != "glitch" for p in c.presets for t in (p.a, p.b) if t]
    return texts + list(language_texts().values()) + list(program_texts().values()) + [stdlib_docstrings()]


@st.cache_data(max_entries=16, show_spinner="Encoding the app's sample texts…")
def registry_unused(name: str, limit: int) -> list[int]:
    return vocab_audit.unused_long_tokens(load_tokenizer(name), sample_texts(), limit)


def numbers_covered() -> dict[str, Tokenizer | None]:
    """Every tokenizer the Numbers tab covers: a registry vocabulary whose files are in place as None
    (its figures come from disk, numbers_of: it is not loaded), the others resolved (a missing vocabulary
    downloaded, or said missing and left out; a visitor's own)."""
    out: dict[str, Tokenizer | None] = {}
    for n in all_tokenizer_names():
        if usable(n):
            out[n] = None
        elif (t := resolve(n)) is not None:
            out[n] = t
    return out


def draw_numbers(names: list[str], toks: dict[str, Tokenizer | None]) -> None:
    st.markdown(
        "How many tokens does each whole number from 0 to 9999 take, written alone? Each square is one number "
        "(row: the hundreds, column: the last two digits); hover to see how it was cut. **cl100k_base** and "
        "**o200k_base** split every run of digits into groups of at most three, from the left, and hold a token "
        "for every string of one to three digits (10 + 100 + 1,000 = 1,110 tokens), so 0–999 is one token and "
        "1000–9999 two (`127|5`): the last digit stands alone and the groups do not follow thousands. **GPT-2** "
        "learned number tokens by frequency, with no digit rule: common numbers (years, round numbers) are one "
        "token and others are cut wherever its merges happen to fall, so the pattern is ragged. **Mistral's "
        "SentencePiece** model is trained with `split_digits`: every digit is its own token (plus the "
        "word-start piece `▁` that SentencePiece puts before a text), so a number costs one token per digit and "
        "place value is always visible. A model doing arithmetic works on these pieces, not on digits.")
    rows = []
    for name in names:
        counts, _, digits, longest = numbers_of(name, toks[name])
        row = {"tokenizer": title_of(name), "all-digit tokens": digits, "longest all-digit token": longest,
               "mean tokens per number": round(sum(counts) / len(counts), 3)}
        for k in (1, 2, 3, 4):
            row[f"{k} token{'s' if k > 1 else ''}"] = sum(1 for c in counts if c == k)
        row["5+ tokens"] = sum(1 for c in counts if c >= 5)
        rows.append(row)
    st.dataframe(pd.DataFrame(rows), hide_index=True, key=f"{K}numbers_table")
    st.caption("All-digit tokens: tokens whose bytes are only ASCII digits 0–9. The count columns say how many of "
               "the 10,000 numbers take that many tokens.")
    most = max(max(numbers_of(n, toks[n])[0], default=1) for n in names)
    st.markdown(f"**One color scale for every map**: the same color is the same number of tokens in each, from "
                f"1 to {most} (the most any of these tokenizers takes for one number).")
    for row in range(0, len(names), 2):
        cols = st.columns(2)
        for j, name in enumerate(names[row:row + 2]):
            counts, splits, _, _ = numbers_of(name, toks[name])
            cols[j].plotly_chart(number_heatmap(counts, splits, title_of(name), most=most), key=f"{K}heat_{name}")


AUDIT_LISTS = {"Unreachable": "unreachable", "Partial UTF-8": "partial_utf8", "All-digit": "all_digit",
               "Not checked": "not_checked"}


def audit_rows(tok: Tokenizer, ids: list[int], query: str, what: str) -> list[dict]:
    q = VocabQuery.parse(query)
    rows = []
    for i in ids:
        b = tok.token_bytes(i)
        if not q.matches(i, b, tok.piece_of(i)):
            continue
        text = label_of(tok, i)
        row = {"id": i, "token": text, "bytes_hex": hexbytes(b), "bytes": len(b)}
        if what == "unreachable":
            again = vocab_audit.reencode(tok, i) or []
            row["its text encodes to"] = (" ".join(label_of(tok, j) for j in again) + "  —  "
                                          + " ".join(map(str, again)))
            chunks = vocab_audit.pattern_chunks(tok, i)
            if chunks is not None:
                row["split pattern's chunks"] = " | ".join(render_token(c.encode("utf-8")) for c in chunks)
        rows.append(row)
        if len(rows) >= MAX_ROWS:
            break
    return rows


def draw_audit(names: list[str], toks: dict[str, Tokenizer]) -> None:
    st.markdown(
        "Every token of each vocabulary, checked with the library's public API "
        "(`tokenizers.analysis.vocab_audit.audit`):\n"
        "- **Unreachable**: the token's bytes are valid UTF-8, yet encoding that text gives other tokens "
        "(`encode_ordinary(decode_bytes([t])) != [t]`). Ordinary encoding never produces it, so a model trained "
        "on encoded text never saw it as input and its embedding stayed untrained; the model could still emit "
        "it. Special tokens are left out.\n"
        "- **Partial UTF-8**: the token's bytes are not valid UTF-8 on their own: a piece of a character, such "
        "as the 128 single bytes 0x80–0xFF or two of an emoji's four bytes. It only ever appears next to the "
        "other pieces of its character.\n"
        "- **All-digit**: only ASCII digits.\n\n"
        "SentencePiece puts a word-start `▁` before every text, so for it a word-start piece is checked by "
        "encoding its text without the leading space, and pieces from inside a word (which only follow other "
        "text) are listed as **not checked**. Mistral's unreachable pieces are byte-fallback pieces (`<0x41>`) "
        "for characters that have a piece of their own, so the fallback is never needed for them.")
    rows = []
    for name in names:
        r = audit_of(name, toks[name])
        rows.append({"tokenizer": title_of(name), "ordinary tokens": r["ordinary"], "special": r["special"],
                     "unreachable": len(r["unreachable"]), "partial UTF-8": len(r["partial_utf8"]),
                     "all-digit": len(r["all_digit"]), "not checked": len(r["not_checked"]),
                     "audit time (s)": round(r["seconds"], 3)})
    st.dataframe(pd.DataFrame(rows), hide_index=True, key=f"{K}audit_table")
    st.caption("Audit time: measured once per server (the result is kept), on this machine.")
    c1, c2, c3 = st.columns([1, 1, 2])
    if st.session_state.get(f"{K}audit_tok") not in names:  # o200k_base has unreachable tokens to show
        st.session_state[f"{K}audit_tok"] = "o200k_base" if "o200k_base" in names else names[0]
    name = c1.selectbox("Vocabulary", names, format_func=title_of, key=f"{K}audit_tok", persist_state=KEEP)
    kind = c2.selectbox("List", list(AUDIT_LISTS), key=f"{K}audit_list", persist_state=KEEP)
    query = c3.text_input("Search by id, text or hex bytes", key=f"{K}audit_q", persist_state=KEEP,
                          placeholder="3914, //, E4 BA")
    what = AUDIT_LISTS[kind]
    ids = audit_of(name, toks[name])[what]
    shown = audit_rows(toks[name], ids, query, what)
    st.caption(f"{len(ids):,} {kind.lower()} token(s) in {escape_markdown(title_of(name))}; {len(shown):,} shown"
               + (f" (at most {MAX_ROWS})" if len(shown) >= MAX_ROWS else "") + ".")
    if what == "unreachable" and ids:
        cut = [i for i in ids if len(vocab_audit.pattern_chunks(toks[name], i) or []) > 1]
        if cut:
            examples = (" (a newline before `//`, Chinese before Latin letters, a word before an apostrophe)"
                        if name == "o200k_base" else "")
            st.markdown(f"{len(cut):,} of these {len(ids):,} tokens span a cut that "
                        f"{escape_markdown(title_of(name))}'s split pattern always makes{examples}: BPE never "
                        "merges across the pattern's chunks, so encoding cannot build them. They must have been "
                        "learned under a different split, or added directly.")
    if shown:
        st.dataframe(pd.DataFrame(shown), hide_index=True, key=f"{K}audit_rows")
    elif not ids:
        st.info(f"{escape_markdown(title_of(name))} has no {kind.lower()} tokens.")


def draw_rare(names: list[str], toks: dict[str, Tokenizer]) -> None:
    st.markdown(
        "A vocabulary is learned first, on one body of text; the model is trained afterwards, often on other "
        "text. A token that was frequent in the first but rare in the second keeps an embedding that was "
        "hardly trained, and the model behaves strangely when it meets it: these are the *glitch tokens*. "
        "Below, the longest word-like tokens of each vocabulary that never occur in the app's own sample texts "
        "(Compare's presets, these examples, the Languages page's parallel text and programs, and the BPE "
        "Lab's built-in corpus of Python docstrings, about 400,000 characters). Absence from so small a sample "
        "is weak evidence (plenty of ordinary long words are absent too); the published studies used the "
        "models' own embedding weights, which this app does not have.")
    c1, c2 = st.columns([1, 1])
    if st.session_state.get(f"{K}rare_tok") not in names:
        st.session_state[f"{K}rare_tok"] = "gpt2" if "gpt2" in names else names[0]
    name = c1.selectbox("Vocabulary", names, format_func=title_of, key=f"{K}rare_tok", persist_state=KEEP)
    limit = c2.select_slider("How many", [20, 50, 100, 200], value=50, key=f"{K}rare_n", persist_state=KEEP)
    tok = toks[name]
    ids = result_of(name, tok, registry=lambda n: registry_unused(n, limit),
                    own=lambda: vocab_audit.unused_long_tokens(tok, sample_texts(), limit), key=f"{K}own_unused{limit}")
    published = set(vocab_audit.GPT2_GLITCH_TOKENS)
    rows = []
    for i in ids:
        text = tok.token_bytes(i).decode("utf-8")
        rows.append({"id": i, "token": label_of(tok, i), "characters": len(text),
                     "published GPT-2 glitch token": "yes" if tok.name == "gpt2" and text in published else ""})
    st.dataframe(pd.DataFrame(rows), hide_index=True, key=f"{K}rare_rows")
    st.markdown("**Published findings for GPT-2** (the same 50,257 tokens served GPT-2 and GPT-3). Sources:")
    st.markdown("\n".join(f"- {s}" for s in vocab_audit.GLITCH_SOURCES))
    if "gpt2" in toks:
        g = toks["gpt2"]
        found = set(ids) if name == "gpt2" else None
        rows = []
        for s in vocab_audit.GPT2_GLITCH_TOKENS:
            i = g.encode_ordinary(s)[0]
            rows.append({"string": repr(s), "GPT-2 id": i} if found is None else
                        {"string": repr(s), "GPT-2 id": i, "among the candidates above": "yes" if i in found else ""})
        st.dataframe(pd.DataFrame(rows), hide_index=True, key=f"{K}rare_published", height=300)


# -- the page ----------------------------------------------------------------------------------------
st.title("Quirks")
st.caption("Why can't a model spell, reverse a string or add big numbers? Why does it stop at <|endoftext|>? "
           "Each card answers with a live example you can edit (one card at a time: Previous, Next or the list); "
           "the tabs after the gallery compute the evidence "
           "from the vocabularies themselves.")
found = links.read("quirks")
if found is not None and "card" in found.refused:  # card=… that is not a card (a mistyped or old link)
    st.session_state[UNKNOWN_CARD] = found.refused["card"]
tabs = links.tabs(TABS, key=f"{K}tab", bind="query-params")
links.write("quirks")  # the settings as this run starts with them (the gallery's widgets are drawn in its tab)
with tabs[0]:
    if tabs[0].open:
        st.session_state.setdefault(f"{K}tokenizers", default_tokenizers())
        st.session_state[f"{K}tokenizers"] = [n for n in st.session_state[f"{K}tokenizers"]
                                              if n in all_tokenizer_names()]
        names = st.multiselect("Tokenizers", all_tokenizer_names(), format_func=title_of, key=f"{K}tokenizers",
                               persist_state=KEEP)
        toks = {n: t for n in names if (t := resolve(n)) is not None}
        c1, c2 = st.columns([1, 3])
        with c1:
            st.toggle("Show whitespace", key=f"{K}ws",
                      persist_state=KEEP, help="space ·  tab →  newline ↵ in every card")
        with c2:
            st.html(LEGEND)
        if not toks:
            st.info("Pick at least one tokenizer.")
        else:
            if UNKNOWN_CARD in st.session_state:
                st.info(f"This link asks for a card named {md_inline_code(st.session_state[UNKNOWN_CARD], limit=60)}, "
                        f"which Quirks does not have, so the first card is shown. The list below holds all "
                        f"{len(CARDS)}.", icon="🃏")
            deck_nav("top")
            try:
                draw_card(CARDS[card_index()], list(toks), toks)
            except TokenizeFailed as e:  # a count or table beyond the spans (each column says so itself)
                st.error(str(e), icon="⚠️")
            deck_nav("end")
if not tabs[0].open:  # the evidence covers every vocabulary, this visitor's own ones included
    for tab, draw in zip(tabs[1:], (draw_numbers, draw_audit, draw_rare)):
        with tab:
            if tab.open:
                every = numbers_covered() if draw is draw_numbers else \
                    {n: t for n in all_tokenizer_names() if (t := resolve(n)) is not None}
                st.caption("Computed over every tokenizer: "
                           + ", ".join(escape_markdown(title_of(n)) for n in every) + ".")
                try:
                    draw(list(every), every)
                except TOKENIZE_ERRORS as e:  # a visitor's own tokenizer whose split pattern gives up
                    st.error(escape_markdown(str(e)), icon="⚠️")
