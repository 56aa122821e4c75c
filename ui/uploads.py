"""Uploaded text files: size and binary checks, decoding with invalid bytes counted. No Streamlit calls."""

from __future__ import annotations

MAX_UPLOAD_BYTES = 5 * 1024 * 1024
TEXT_SUFFIXES = (".txt", ".md", ".py", ".json", ".csv", ".tsv", ".yaml", ".yml", ".html", ".xml", ".js",
                 ".ts", ".rs", ".go", ".c", ".h", ".java", ".rst", ".tex", ".log", ".ini", ".toml")


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
    text = data.decode("utf-8", errors="replace")
    replaced = text.count("\ufffd") - data.count("\ufffd".encode())
    return text, replaced
