"""Uploaded text files, the one reader for every page that takes one (the labs' training text
through app_pages/kit/training_text.py, the Languages page's parallel corpus): one `UploadLimits`, size and
binary checks, decoding with invalid bytes counted. No Streamlit calls. (Tokenizer files have their
own reader and limits: tokenizers.user_files.)"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tokenizers.analysis.languages import MAX_LANGUAGES, Corpus, corpus_from_texts
from tokenizers.core.text import binary_reason

TEXT_SUFFIXES = (".txt", ".md", ".py", ".json", ".csv", ".tsv", ".yaml", ".yml", ".html", ".xml", ".js",
                 ".ts", ".rs", ".go", ".c", ".h", ".java", ".rst", ".tex", ".log", ".ini", ".toml")


@dataclass(frozen=True)
class UploadLimits:
    """What an uploaded text may cost."""

    max_bytes: int      # one file
    max_files: int      # files read from one upload (a parallel corpus: one file per language)


LIMITS = UploadLimits(max_bytes=5 * 1024 * 1024, max_files=MAX_LANGUAGES)  # the one place these bounds are written

class UploadError(ValueError):
    pass


def upload_size_words() -> str:
    """LIMITS.max_bytes in words, for a page to say before a visitor picks a file."""
    n = LIMITS.max_bytes
    return f"up to {n / 1e6:.0f} MB" if n >= 1e6 else f"up to {n / 1e3:.0f} KB"


def decode_upload(name: str, data: bytes) -> tuple[str, int]:
    """(text, replaced) from an uploaded file, or UploadError saying what is wrong and what to do."""
    if len(data) > LIMITS.max_bytes:
        raise UploadError(f"{name} is {len(data) / 1e6:.1f} MB; text files {upload_size_words()} are read. "
                          "Upload a part of it.")
    if not data:
        raise UploadError(f"{name} is empty.")
    reason = binary_reason(name, data[:65536])  # the library's rule, as the corpus report applies it
    if reason:
        raise UploadError(f"{reason}. Upload a text file ({', '.join(TEXT_SUFFIXES[:6])}, …).")
    text = data.decode("utf-8", errors="replace")
    replaced = text.count("\ufffd") - data.count("\ufffd".encode())
    return text, replaced


def parallel_corpus(files: Sequence[tuple[str, bytes]]) -> Corpus:
    """Several uploaded files as one parallel corpus (one table, or one file per language: the
    library decides, tokenizers.analysis.languages.corpus_from_texts). Each file is read by
    decode_upload; what could not be read, or was replaced, is a note, first in `notes`."""
    decoded, problems = {}, []
    for name, data in files[:LIMITS.max_files]:
        try:
            text, replaced = decode_upload(name, data)
        except UploadError as e:
            problems.append(str(e))
            continue
        if replaced:
            problems.append(f"{name} is not all valid UTF-8: {replaced:,} byte sequence(s) were replaced by "
                            "U+FFFD �.")
        decoded[name] = text
    if len(files) > LIMITS.max_files:
        problems.append(f"Only the first {LIMITS.max_files} files are read.")
    corpus = corpus_from_texts(decoded)
    corpus.notes[:0] = problems
    return corpus


def vocabulary_note(tok, *, sparse_factor: int = 4) -> str | None:
    """A sentence for an uploaded or loaded model whose id range is mostly unused (a special token far
    past its merges, ids with gaps): how many ids it really has. None for an ordinary vocabulary."""
    used = sum(1 for _ in tok.iter_vocab())
    if tok.vocab_size <= sparse_factor * used + 4096:
        return None
    return (f"Its ids run from 0 to {tok.vocab_size - 1:,}, but only {used:,} of them are tokens; the rest of the "
            "range is unused (a special token placed far past the merges). The pages list, draw and decode the "
            "ids in use; an unused id typed into a decoder is named as unused.")
