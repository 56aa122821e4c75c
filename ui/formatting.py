"""Formatting of bytes, ids, counts and user text for display. No Streamlit calls."""

from __future__ import annotations

import re

# hexbytes and plural live in the library (its span renderer uses them); the pages import them from here
from tokenizers.core.text import hexbytes, plural, printable_bytes  # noqa: F401


def render_token(b: bytes) -> str:
    """Token bytes as readable text (whitespace marked · ↵ →, undecodable bytes as \\xNN): the one
    rendering every page uses for tables, trees and pickers."""
    return printable_bytes(b)


def duration(seconds: float) -> str:
    """'0.4 ms', '35 ms', '1.25 s': training in C often takes less than a hundredth of a second."""
    if seconds < 0.01:
        return f"{seconds * 1000:.1f} ms"
    if seconds < 1:
        return f"{seconds * 1000:.0f} ms"
    return f"{seconds:.2f} s"


class IdParseError(ValueError):
    pass


MAX_IDS = 1_000_000  # ids parsed from one field


def parse_ids(s: str) -> list[int]:
    """'15339, 1917' or '[15339 1917]' -> [15339, 1917]; anything else is named in the error."""
    parts = [p for p in re.split(r"[\s,;\[\]]+", s.strip()) if p]
    bad = [p for p in parts if not re.fullmatch(r"\d{1,18}", p)]
    if bad:
        shown = ", ".join(repr(b[:20] + ("…" if len(b) > 20 else "")) for b in bad[:5])
        raise IdParseError(f"Token ids are whole numbers (at most 18 digits) separated by commas or spaces; "
                           f"not {shown}.")
    if len(parts) > MAX_IDS:
        raise IdParseError(f"{len(parts):,} ids is more than this field takes ({MAX_IDS:,}).")
    return [int(p) for p in parts]


# Streamlit renders Markdown with GitHub's extensions and its own: directives (:red[…]), math ($…$),
# emoji shortcodes (:smile:) and icons (:material/home:). Escaping every ASCII punctuation character
# with a backslash (CommonMark allows it for all of them) stops each of those. Two things need more:
# GitHub's autolink literals (https://…, www.…, a@b.c) and Streamlit's :streamlit: logo are found in
# the text *after* escapes are resolved, so a WORD JOINER (U+2060, invisible, no width) goes before
# "http", "www." and "@" and after a colon that a word follows, where it keeps the link, shortcode or
# icon from starting; and Streamlit rewrites ":material/" to an icon anywhere in the raw source, which
# the escaped "/" and the joiner prevent.
WORD_JOINER = "\u2060"
_MD_PUNCT = re.compile(r"([!-/:-@\[-`{-~])")           # every ASCII punctuation character
_JOIN_AT = re.compile(r"(?i)(?=https?:|www\.|@)|(?<=:)(?=[\w+-])")


def escape_markdown(s: str) -> str:
    """User-controlled text made safe for st.markdown / st.info / captions / labels / help: it renders
    as the literal characters (links, images, autolinks, headings, lists, code spans, HTML, entities,
    math, :color[…] directives, emoji shortcodes and icons all stay text). Newlines become spaces.
    The only change a reader could find is an invisible U+2060 before "http", "www." and "@" and
    after a colon that a word follows (see above): `ui.formatting.WORD_JOINER`."""
    s = s.replace("\r", " ").replace("\n", " ")
    s = _JOIN_AT.sub(WORD_JOINER, s)
    return _MD_PUNCT.sub(r"\\\1", s)


def md_code(s: str, limit: int = 80) -> str:
    """A user string shown inline in Markdown, escaped (not in backticks: a backtick in the value
    would close the code span), shortened to `limit` characters."""
    short = s if len(s) <= limit else s[:limit] + "…"
    return escape_markdown(short)


def md_inline_code(s: str, limit: int = 80) -> str:
    """A user string as a Markdown code span that shows it literally: the fence is one backtick longer
    than the longest run of backticks inside (CommonMark), so no value can close it early; newlines
    become spaces. Streamlit rewrites ":material/" in the raw source even inside code spans, so a
    WORD JOINER goes after its colon."""
    short = (s if len(s) <= limit else s[:limit] + "…").replace("\r", " ").replace("\n", " ")
    short = short.replace(":material/", ":" + WORD_JOINER + "material/")
    fence = "`" * (max((len(m) for m in re.findall(r"`+", short)), default=0) + 1)
    pad = " " if short.startswith("`") or short.endswith("`") or not short.strip() else ""
    return f"{fence}{pad}{short}{pad}{fence}"
