"""Formatting of bytes, ids, counts and user text for display. No Streamlit calls."""

from __future__ import annotations

import re

from tokenizers.text import printable_bytes


def hexbytes(b: bytes) -> str:
    """b'hi' -> '68 69'."""
    return " ".join(f"{x:02X}" for x in b)


def render_token(b: bytes) -> str:
    """Token bytes as readable text (whitespace marked · ↵ →, undecodable bytes as \\xNN): the one
    rendering every page uses for tables, trees and pickers."""
    return printable_bytes(b)


def plural(n: int, word: str) -> str:
    return word if n == 1 else word + "s"


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


# every character that Markdown (CommonMark + GitHub extensions + Streamlit's directives) gives a
# meaning: escaping each with a backslash makes any string render as itself
_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~:$=&\"'])")


def escape_markdown(s: str) -> str:
    """User-controlled text made safe for st.markdown / st.info / labels: every Markdown
    metacharacter backslash-escaped, so links, images, headings, code spans, HTML, math ($…$) and
    Streamlit's :color[…] directives render as the literal characters. Newlines become spaces."""
    return _MD_SPECIAL.sub(r"\\\1", s.replace("\r", " ").replace("\n", " "))


def md_code(s: str, limit: int = 80) -> str:
    """A user string shown inline in Markdown, escaped (not in backticks: a backtick in the value
    would close the code span), shortened to `limit` characters."""
    short = s if len(s) <= limit else s[:limit] + "…"
    return escape_markdown(short)


def md_inline_code(s: str, limit: int = 80) -> str:
    """A user string as a Markdown code span that shows it literally: the fence is one backtick longer
    than the longest run of backticks inside (CommonMark), so no value can close it early; newlines
    become spaces."""
    import re as _re

    short = (s if len(s) <= limit else s[:limit] + "…").replace("\r", " ").replace("\n", " ")
    fence = "`" * (max((len(m) for m in _re.findall(r"`+", short)), default=0) + 1)
    pad = " " if short.startswith("`") or short.endswith("`") or not short.strip() else ""
    return f"{fence}{pad}{short}{pad}{fence}"
