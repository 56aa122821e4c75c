"""A text's characters, code points, bytes and grapheme clusters, and the byte ranges that are not
UTF-8: what the Inside page shows beside a token's merges (those are BPETokenizer.encode_steps)."""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

import regex


@dataclass(frozen=True)
class CharRow:
    index: int
    char: str
    code_point: str   # U+XXXX
    name: str
    utf8: str         # hex bytes
    n_bytes: int


def char_rows(text: str) -> list[CharRow]:
    rows = []
    for i, ch in enumerate(text):
        b = ch.encode("utf-8", errors="surrogatepass")
        name = unicodedata.name(ch, "") or _control_name(ch)
        rows.append(CharRow(i, ch, f"U+{ord(ch):04X}", name, " ".join(f"{x:02X}" for x in b), len(b)))
    return rows


def _control_name(ch: str) -> str:
    names = {"\n": "LINE FEED (LF)", "\r": "CARRIAGE RETURN (CR)", "\t": "CHARACTER TABULATION", "\x00": "NULL"}
    if ch in names:
        return names[ch]
    cat = unicodedata.category(ch)
    return {"Cc": "control character", "Cs": "lone surrogate", "Co": "private use", "Cn": "unassigned"}.get(cat, cat)


def graphemes(text: str) -> list[str]:
    """User-perceived characters (extended grapheme clusters): 👨‍👩‍👧 is one, made of five code points."""
    return regex.findall(r"\X", text)


def describe_cluster(cluster: str) -> str:
    """Why a cluster holds several code points, in words."""
    cps = list(cluster)
    if len(cps) == 1:
        return "one code point"
    if "\u200d" in cps:
        return f"{len(cps)} code points joined by ZERO WIDTH JOINER (U+200D) into one symbol"
    if all(0x1F1E6 <= ord(c) <= 0x1F1FF for c in cps):
        return "a flag: two REGIONAL INDICATOR letters"
    if any(0x1F3FB <= ord(c) <= 0x1F3FF for c in cps):
        return "an emoji with a skin-tone modifier"
    if any(unicodedata.category(c).startswith("M") for c in cps[1:]):
        return "a base character with combining mark(s)"
    if "\ufe0f" in cps:
        return "a character with VARIATION SELECTOR-16 (emoji presentation)"
    if cluster == "\r\n":
        return "CR LF, one line break"
    return f"{len(cps)} code points"


def counts(text: str, n_tokens: int) -> dict[str, int]:
    return {"graphemes": len(graphemes(text)), "code points": len(text),
            "UTF-8 bytes": len(text.encode("utf-8", errors="surrogatepass")), "tokens": n_tokens}


def invalid_utf8_spans(data: bytes) -> list[tuple[int, int]]:
    """Byte ranges that do not decode as UTF-8 (each becomes one U+FFFD when decoded with 'replace')."""
    out, i = [], 0
    while i < len(data):
        try:
            data[i:].decode("utf-8")
            break
        except UnicodeDecodeError as e:
            out.append((i + e.start, i + e.end))
            i += e.end
    return out
