"""What a language costs in tokens: counts and the *token premium* on parallel text.

The premium of a language under a tokenizer is its token count divided by the reference
language's token count on a text that says the same thing (English by default): 2.0 means the
same message costs twice as many tokens, so twice the price, half the context, twice the steps.

    >>> from tokenizers.analysis.languages import token_premium
    >>> df = token_premium({"eng": "Good morning.", "fra": "Bonjour."}, ["gpt2", "cl100k_base"])
    >>> df["premium"]          # languages x tokenizers
    >>> df[("tokens", "gpt2")]  # one column

The frame has one row per language (index "language", in the order given) and two column levels,
("metric", "tokenizer"):

    tokens, premium, chars_per_token, bytes_per_token    one column per tokenizer
    chars, bytes                                         one column each (tokenizer level "")

so `df["premium"]` is a languages x tokenizers frame and `df["chars"]` a Series. `flat(df)` gives
single-level columns named "tokens:gpt2", "premium:gpt2", ..., "chars", "bytes" for tables and CSV.
Tokens are counted with `encode_ordinary` (special-token strings are text, as in user input), by
the same count as the corpus metrics (tokenizers.analysis.metrics.language_counts; `premium_frame`
makes this frame from it), so a page that shows both never disagrees with itself.

Also here: reading a user's parallel corpus, as one file per language (file name = language code,
one sentence per line) or one TSV/CSV table with a column per language. No Streamlit.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import pandas as pd

from tokenizers.analysis.metrics import CorpusCounts, language_counts
from tokenizers.core.tokenizer import Tokenizer

PER_TOKENIZER = ("tokens", "premium", "chars_per_token", "bytes_per_token")
PER_LANGUAGE = ("chars", "bytes")


def token_premium(texts: Mapping[str, str], tokenizers: Sequence[str | Tokenizer], reference: str = "eng", *,
                  progress: Callable[[int, int], None] | None = None) -> pd.DataFrame:
    """Tokens, characters and bytes per token, and the premium against `reference`, for every
    language of a parallel text and every tokenizer (registry names, or Tokenizer objects such as a
    model trained in the app; a Tokenizer's column is named by its `.name`).

    `progress(done, total)` is called after each (language, tokenizer) pair. ValueError when the
    reference is missing or has no tokens, or when no tokenizer or text is given. A language with
    an empty text gets 0 tokens and NaN ratios."""
    if not texts:
        raise ValueError("No texts to compare: give at least the reference language's text.")
    if not tokenizers:
        raise ValueError("No tokenizers: give at least one registry name or Tokenizer.")
    if reference not in texts:
        raise ValueError(f"The reference language {reference!r} is not among the texts "
                         f"({', '.join(map(repr, list(texts)[:10]))}); pass reference= one of them.")
    counts = language_counts(texts, tokenizers, progress=progress)  # one count with the corpus metrics
    return premium_frame(counts, reference)


def premium_frame(counts: Mapping[str, Mapping[str, CorpusCounts]], reference: str = "eng") -> pd.DataFrame:
    """token_premium's frame from metrics.language_counts' {tokenizer: {language: counts}}."""
    names = list(counts)
    langs = list(next(iter(counts.values()))) if counts else []
    if reference not in langs:
        raise ValueError(f"The reference language {reference!r} is not among the texts "
                         f"({', '.join(map(repr, langs[:10]))}); pass reference= one of them.")
    for name in names:
        if counts[name][reference].tokens == 0:
            raise ValueError(f"The reference text ({reference!r}) has no tokens under {name}; it cannot be "
                             "the denominator. Give it some text.")
    first = counts[names[0]]
    chars = pd.Series({lang: first[lang].chars for lang in langs}, dtype="int64")
    nbytes = pd.Series({lang: first[lang].bytes for lang in langs}, dtype="int64")
    cols: dict[tuple[str, str], pd.Series] = {("chars", ""): chars, ("bytes", ""): nbytes}
    for metric in PER_TOKENIZER:
        for name in names:
            n = pd.Series({lang: counts[name][lang].tokens for lang in langs}, dtype="int64")
            if metric == "tokens":
                cols[(metric, name)] = n
            elif metric == "premium":
                cols[(metric, name)] = n / counts[name][reference].tokens
            else:
                size = chars if metric == "chars_per_token" else nbytes
                cols[(metric, name)] = (size / n.where(n > 0)).astype("float64")
    df = pd.DataFrame(cols, index=pd.Index(langs, name="language"))
    df.columns = pd.MultiIndex.from_tuples(df.columns, names=["metric", "tokenizer"])
    return df


def flat(df: pd.DataFrame) -> pd.DataFrame:
    """token_premium's frame with single-level columns: "chars", "bytes", "tokens:gpt2", ..."""
    out = df.copy()
    out.columns = [m if not t else f"{m}:{t}" for m, t in df.columns]
    return out


# -- a user's parallel corpus -----------------------------------------------------------------------
MAX_LANGUAGES = 60
MAX_CHARS = 200_000        # per language; longer texts are cut (at a line break) and reported
MAX_TOTAL_CHARS = 2_000_000  # over all languages: the per-language bound shrinks when there are many
_CODE = re.compile(r"[A-Za-z]{2,8}(?:[-_][A-Za-z0-9]{1,8}){0,3}")


@dataclass
class Corpus:
    """A parallel corpus read from uploads: {code: text} and what had to be changed to read it."""

    texts: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)   # what was cut or skipped, for the page to show


def language_code(file_name: str) -> str | None:
    """'fra.txt' -> 'fra', 'pt-BR.txt' -> 'pt-BR'; None when the stem is not a language code."""
    stem = file_name.rsplit("/", 1)[-1].rsplit("\\", 1)[-1]
    stem = stem.rsplit(".", 1)[0] if "." in stem else stem
    return stem if _CODE.fullmatch(stem) else None


def _lines(text: str) -> list[str]:
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    while lines and not lines[-1].strip():
        lines.pop()
    return lines


def _bound(corpus: Corpus, max_chars: int, max_total: int) -> Corpus:
    """At most MAX_LANGUAGES languages, each at most `max_chars` characters and all together at most
    `max_total`; texts are cut to the same number of lines, so they stay parallel."""
    if len(corpus.texts) > MAX_LANGUAGES:
        dropped = list(corpus.texts)[MAX_LANGUAGES:]
        corpus.texts = dict(list(corpus.texts.items())[:MAX_LANGUAGES])
        corpus.notes.append(f"Only the first {MAX_LANGUAGES} languages are used; left out: {', '.join(dropped)}.")
    if not corpus.texts:
        return corpus
    budget = min(max_chars, max_total // len(corpus.texts))
    if all(len(t) <= budget for t in corpus.texts.values()):
        return corpus
    keep = None
    for text in corpus.texts.values():
        size, n = -1, 0
        for line in text.split("\n"):
            size += len(line) + 1
            if size > budget:
                break
            n += 1
        keep = n if keep is None else min(keep, n)
    keep = max(keep or 0, 1)
    corpus.texts = {c: "\n".join(t.split("\n")[:keep])[:budget] for c, t in corpus.texts.items()}
    corpus.notes.append(f"The texts are long: only their first {keep:,} parallel line(s) are used, at most "
                        f"{budget:,} characters per language.")
    return corpus


def _align(columns: dict[str, list[str]], corpus: Corpus) -> Corpus:
    """Parallel lines: every language cut to the shortest one's number of lines."""
    if not columns:
        return corpus
    sizes = {c: len(v) for c, v in columns.items()}
    n = min(sizes.values())
    if len(set(sizes.values())) > 1:
        shown = ", ".join(f"{c} {k:,}" for c, k in sizes.items())
        corpus.notes.append(f"The languages have different numbers of lines ({shown}), so they may not say the "
                            f"same thing; the first {n:,} lines of each are compared.")
    for code, lines in columns.items():
        corpus.texts[code] = "\n".join(lines[:n])
    return corpus


def corpus_from_files(files: Mapping[str, str], *, max_chars: int = MAX_CHARS,
                      max_total: int = MAX_TOTAL_CHARS) -> Corpus:
    """One text per language: {file name: decoded text}, the file name's stem being the language
    code ("eng.txt"), one sentence per line. Each text is bounded to `max_chars`, and all of them
    together to `max_total` (cut at a line break; a note says so)."""
    corpus = Corpus()
    columns: dict[str, list[str]] = {}
    for file_name, text in files.items():
        code = language_code(file_name)
        if code is None:
            corpus.notes.append(f"Skipped {file_name!r}: name the file by its language code, such as eng.txt or "
                                "pt-BR.txt.")
        elif code in columns:
            corpus.notes.append(f"Skipped {file_name!r}: a second file for {code}.")
        else:
            columns[code] = _lines(text)
    return _bound(_align(columns, corpus), max_chars, max_total)


def corpus_from_table(text: str, file_name: str = "", *, max_chars: int = MAX_CHARS,
                      max_total: int = MAX_TOTAL_CHARS) -> Corpus:
    """A TSV or CSV whose header row names the languages and whose rows are parallel sentences.
    The delimiter is a tab for .tsv, a comma for .csv, else whichever the header line holds."""
    corpus = Corpus()
    lower = file_name.lower()
    header = text.split("\n", 1)[0]
    delimiter = "\t" if lower.endswith(".tsv") else "," if lower.endswith(".csv") else \
        ("\t" if "\t" in header else ",")
    rows = list(csv.reader(io.StringIO(text.replace("\r\n", "\n")), delimiter=delimiter))
    rows = [r for r in rows if any(cell.strip() for cell in r)]
    if not rows:
        corpus.notes.append("The table is empty.")
        return corpus
    columns: dict[str, list[str]] = {}
    not_codes, repeats = [], []
    for k, raw in enumerate(rows[0]):
        code = raw.strip().lstrip("\ufeff")
        if not _CODE.fullmatch(code):
            not_codes.append(f"{k + 1} ({code[:30]!r})")
        elif code in columns:
            repeats.append(f"{k + 1} ({code})")
        else:
            columns[code] = [r[k] if k < len(r) else "" for r in rows[1:]]
    # one note per kind, however many columns (a header of twenty non-codes was twenty warnings)
    shown = 8
    if not_codes:
        corpus.notes.append(f"Skipped {len(not_codes)} column(s) whose header is not a language code: "
                            + ", ".join(not_codes[:shown]) + (" …" if len(not_codes) > shown else "") + ".")
    if repeats:
        corpus.notes.append(f"Skipped {len(repeats)} column(s) repeating a language: "
                            + ", ".join(repeats[:shown]) + (" …" if len(repeats) > shown else "") + ".")
    short = sum(1 for r in rows[1:] if len(r) < len(rows[0]))
    if short:
        corpus.notes.append(f"{short:,} row(s) have fewer cells than the header; the missing cells count as empty.")
    corpus.texts = {c: "\n".join(v) for c, v in columns.items()}
    return _bound(corpus, max_chars, max_total)


def corpus_from_texts(texts: Mapping[str, str], **bounds) -> Corpus:
    """Uploaded files, {file name: decoded text}, as one parallel corpus: one table (a .tsv or .csv,
    corpus_from_table) or one text per language (corpus_from_files). When both come, the first table
    is used and a note says so. `bounds` (max_chars, max_total) go to the reader."""
    tables = [n for n in texts if n.lower().endswith((".tsv", ".csv"))]
    if not tables:
        return corpus_from_files(texts, **bounds)
    corpus = corpus_from_table(texts[tables[0]], tables[0], **bounds)
    if len(texts) > 1:
        corpus.notes.insert(0, "Upload either one table (TSV/CSV) or one text file per language, not both; "
                               "the table was used.")
    return corpus
