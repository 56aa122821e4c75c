"""Uploaded text files: size and binary checks, decoding with invalid bytes counted. No Streamlit calls."""

from __future__ import annotations

MAX_UPLOAD_BYTES = 5 * 1024 * 1024
TEXT_SUFFIXES = (".txt", ".md", ".py", ".json", ".csv", ".tsv", ".yaml", ".yml", ".html", ".xml", ".js",
                 ".ts", ".rs", ".go", ".c", ".h", ".java", ".rst", ".tex", ".log", ".ini", ".toml")


# C0 control bytes other than tab, newline, vertical tab, form feed, carriage return and escape, and
# DEL: text in any encoding (UTF-8, Latin-1, cp1251, Shift-JIS…) almost never holds them, while
# random or compressed bytes hold one in ten
CONTROL_BYTES = frozenset(range(0x20)) - {0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x1B} | {0x7F}


class UploadError(ValueError):
    pass


def decode_upload(name: str, data: bytes) -> tuple[str, int]:
    """(text, replaced) from an uploaded file, or UploadError saying what is wrong and what to do."""
    if len(data) > MAX_UPLOAD_BYTES:
        raise UploadError(f"{name} is {len(data) / 1e6:.1f} MB; the lab takes files up to "
                          f"{MAX_UPLOAD_BYTES / 1e6:.0f} MB. Upload a part of it.")
    if not data:
        raise UploadError(f"{name} is empty.")
    sample = data[:65536]
    if sample.count(b"\x00") > len(sample) // 100:
        raise UploadError(f"{name} looks like a binary file (it is full of zero bytes), not text. "
                          f"Upload a text file ({', '.join(TEXT_SUFFIXES[:6])}, …).")
    controls = sum(sample.count(bytes([c])) for c in CONTROL_BYTES)
    if controls > max(2, len(sample) // 100):
        raise UploadError(f"{name} looks like a binary file, not text: {controls:,} of its first {len(sample):,} "
                          "bytes are control codes that text does not contain. "
                          f"Upload a text file ({', '.join(TEXT_SUFFIXES[:6])}, …).")
    text = data.decode("utf-8", errors="replace")
    replaced = text.count("\ufffd") - data.count("\ufffd".encode())
    return text, replaced


def vocabulary_note(tok, *, sparse_factor: int = 4) -> str | None:
    """A sentence for an uploaded or loaded model whose id range is mostly unused (a special token far
    past its merges, ids with gaps): how many ids it really has. None for an ordinary vocabulary."""
    used = sum(1 for _ in tok.iter_vocab())
    if tok.vocab_size <= sparse_factor * used + 4096:
        return None
    return (f"Its ids run from 0 to {tok.vocab_size - 1:,}, but only {used:,} of them are tokens; the rest of the "
            "range is unused (a special token placed far past the merges). The pages list, draw and decode the "
            "ids in use; an unused id typed into a decoder is named as unused.")
