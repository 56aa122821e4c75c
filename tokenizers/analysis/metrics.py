"""Corpus metrics: how well a tokenizer fits a corpus, in the measures the literature uses.

    >>> from tokenizers import corpus_metrics
    >>> corpus_metrics(["The sun rises in the morning.", "해는 아침에 뜹니다."], tokenizers=["gpt2", "o200k_base"])

One row per tokenizer, these columns (each text is encoded on its own with `encode_ordinary`: a
special-token string is text, as in user input):

    tokens            tokens over all texts
    words             whitespace-separated words, `len(text.split())` summed over the texts
    fertility         tokens / words (Rust et al. 2021, "How Good is Your Tokenizer?")
    continued_words   share of words cut into two or more tokens (Rust et al.'s "proportion of
                      continued words")
    bytes_per_token   UTF-8 bytes / tokens; chars_per_token: characters / tokens
    fallback_rate     (byte-fallback tokens + unknown-id tokens) / tokens: text the vocabulary had no
                      piece for (SentencePiece's <0xNN>, an unk id)
    renyi_efficiency  Rényi entropy of order 2.5 of the corpus's token unigram distribution over the log
                      of the vocabulary size (Zouhar et al. 2023, "Tokenization and the Noiseless
                      Channel"), as tokenization-scorer computes it with `vocab=`; |V| is n_vocab
                      (one more than the largest id, special tokens included). It grows with the
                      corpus: compare tokenizers on the same texts only
    premium           tokens / the reference row's tokens, when `reference=` names a row

When is a word *continued*? A word is a maximal run of non-whitespace characters (exactly the
pieces of `text.split()`). A token *touches* a word when its character span (from `tokenize`, the
one span builder) shares at least one character with it; whitespace a token carries (GPT-2's " word"
has its leading space) is outside every word, so it does not count. A word is continued when two or
more tokens touch it. So with GPT-2 " tokenization" = " token" + "ization" is continued, " the" is
not, and a byte-level token holding half of an emoji makes that word continued (two tokens touch the
emoji's character). A token spanning two words (".\\nThe" in some vocabularies) touches both.
A token with an empty span (SentencePiece's inserted "▁") touches nothing.

`CorpusCounts` are the raw tallies behind a row: plain integers and a Counter, so counts made on
batches, in other processes or on other machines add up (`a + b`, `sum(parts)`) to exactly the
counts of one pass (tokenizers.report does this); `metrics_frame` turns them into the frame.

Per language (a parallel text, {language: text}): `language_counts` counts each (tokenizer,
language) once, and both the token premium (tokenizers.analysis.languages.token_premium) and
`language_metrics` (a (tokenizer, language) frame, `with_premium` against a reference language) are
read off that one count.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields

import numpy as np
import pandas as pd

from tokenizers.core.tokenizer import TokenList, Tokenizer

RENYI_ALPHA = 2.5  # Zouhar et al. 2023 found alpha = 2.5 correlates best with BLEU
COLUMNS = ("tokens", "words", "fertility", "continued_words", "bytes_per_token", "chars_per_token",
           "fallback_rate", "renyi_efficiency")

# the characters str.isspace() calls whitespace (all below U+3001), so that words here are exactly
# the pieces of text.split()
_SPACES = np.array([c for c in range(0x3001) if chr(c).isspace()], dtype=np.uint32)


@dataclass
class CorpusCounts:
    """The tallies of one tokenizer over some texts. Add two (`a + b`, or `sum(parts)`) to get the
    counts of both corpora: every field is a sum, so batches counted apart (in threads, processes or
    on a cluster) merge exactly. `vocab_size` is the tokenizer's (n_vocab); adding counts of two
    vocabularies of different sizes is a ValueError. Picklable."""

    texts: int = 0
    tokens: int = 0
    words: int = 0
    continued_words: int = 0
    bytes: int = 0
    chars: int = 0
    fallback: int = 0        # byte-fallback tokens (SentencePiece's <0xNN>)
    unknown: int = 0         # tokens with the vocabulary's unknown id
    token_counts: Counter = field(default_factory=Counter)  # id -> how often, for the Rényi entropy
    vocab_size: int = 0      # 0 = not known yet (the empty counts, the identity of +)

    def __add__(self, other: "CorpusCounts") -> "CorpusCounts":
        if not isinstance(other, CorpusCounts):
            return NotImplemented
        if self.vocab_size and other.vocab_size and self.vocab_size != other.vocab_size:
            raise ValueError(f"Cannot add counts of two vocabularies ({self.vocab_size:,} and {other.vocab_size:,} "
                             "ids): counts add up only for the same tokenizer.")
        out = CorpusCounts(**{f.name: getattr(self, f.name) + getattr(other, f.name) for f in fields(self)
                              if f.name not in ("token_counts", "vocab_size")})
        out.token_counts = self.token_counts + other.token_counts
        out.vocab_size = self.vocab_size or other.vocab_size
        return out

    def __radd__(self, other):
        if other == 0:  # sum() starts from 0
            return self + CorpusCounts()
        return NotImplemented

    def merge(self, other: "CorpusCounts") -> "CorpusCounts":
        """self + other (a new object; neither is changed)."""
        return self + other

    # -- the metrics of these counts ------------------------------------------------------------------
    def renyi_efficiency(self, alpha: float = RENYI_ALPHA) -> float:
        """H_alpha(p) / log |V|: p is the unigram distribution of the tokens counted, H_alpha =
        log(sum p_i^alpha) / (1 - alpha), |V| = vocab_size. NaN without tokens or with |V| < 2."""
        return renyi_efficiency(self.token_counts, self.vocab_size, alpha)

    def metrics(self) -> dict[str, float]:
        """The COLUMNS of metrics_frame for these counts (ratios NaN where their denominator is 0)."""
        return {"tokens": self.tokens, "words": self.words,
                "fertility": _ratio(self.tokens, self.words),
                "continued_words": _ratio(self.continued_words, self.words),
                "bytes_per_token": _ratio(self.bytes, self.tokens),
                "chars_per_token": _ratio(self.chars, self.tokens),
                "fallback_rate": _ratio(self.fallback + self.unknown, self.tokens),
                "renyi_efficiency": self.renyi_efficiency()}


def _ratio(a: int, b: int) -> float:
    return a / b if b else math.nan


def renyi_efficiency(token_counts: Mapping[int, int], vocab_size: int, alpha: float = RENYI_ALPHA) -> float:
    """Rényi efficiency of a unigram distribution given by counts: H_alpha(p) / log(vocab_size).
    alpha = 1 is the Shannon efficiency. NaN when there are no tokens or vocab_size < 2."""
    # sorted, so that the float sums below do not depend on the order the Counter lists its ids in:
    # counts added up from batches (tokenizers.report) list them in another order than one pass,
    # and must give the same efficiency to the last bit
    freqs = np.sort(np.array([n for n in token_counts.values() if n > 0], dtype=np.float64))
    if not len(freqs) or vocab_size < 2:
        return math.nan
    p = freqs / freqs.sum()
    if alpha == 1.0:
        h = float(-(p * np.log(p)).sum())
    else:
        h = float(np.log(np.sum(p ** alpha)) / (1.0 - alpha))
    return h / math.log(vocab_size)


# -- counting ---------------------------------------------------------------------------------------
def code_points(text: str) -> np.ndarray:
    """The text's code points as a uint32 array (one per character of the str)."""
    return np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)


def word_spans(cps: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(starts, ends): the character spans of the pieces of text.split(), as int64 arrays, from the
    text's code_points."""
    word = ~np.isin(cps, _SPACES)
    edges = np.diff(np.concatenate(([False], word, [False])).astype(np.int8))
    return np.flatnonzero(edges == 1).astype(np.int64), np.flatnonzero(edges == -1).astype(np.int64)


def char_of_bytes(cps: np.ndarray, b0: np.ndarray, b1: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Character spans of non-empty byte spans [b0, b1) of the text whose code_points are `cps`: each
    equal to ByteCharMap.char_span(b0, b1) (the characters the bytes touch), all at once."""
    if not len(cps) or cps.max() < 0x80:  # ASCII: bytes are characters
        return b0, b1
    sizes = 1 + (cps >= 0x80).astype(np.int64) + (cps >= 0x800) + (cps >= 0x10000)
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))  # the byte where each character starts
    # the character holding byte b is the last one starting at or before b
    return np.searchsorted(starts, b0, side="right") - 1, np.searchsorted(starts, b1 - 1, side="right")


def count_tokenized(tokenizer: Tokenizer, batch: Sequence[TokenList]) -> CorpusCounts:
    """The counts of texts already tokenized (TokenLists of `tokenizer`), each text on its own.

    The texts are counted together, for speed: joined with a newline between them (whitespace, so
    no word crosses from one text into the next) and each token's span moved by where its text
    starts; then one pass finds every word, every token's character span and the words two or more
    tokens touch. Equal to counting each text apart (tests/test_metrics.py holds it to a plain loop)."""
    texts = [t.text for t in batch]  # lone surrogates already replaced by U+FFFD, as encoding does
    n_bytes = [len(t.encode("utf-8")) for t in texts]
    n_tokens = [len(t) for t in batch]
    ids = np.frombuffer(b"".join(t.ids.tobytes() for t in batch), dtype=np.int64)
    b0 = np.frombuffer(b"".join(t.byte_starts.tobytes() for t in batch), dtype=np.int64)
    b1 = np.frombuffer(b"".join(t.byte_ends.tobytes() for t in batch), dtype=np.int64)
    if len(batch) > 1:  # where each text starts in the joined text's bytes (+1 a newline)
        offsets = np.concatenate(([0], np.cumsum(np.asarray(n_bytes[:-1], dtype=np.int64) + 1)))
        shift = np.repeat(offsets, n_tokens)
        b0, b1 = b0 + shift, b1 + shift
    cps = code_points("\n".join(texts))
    ws, we = word_spans(cps)
    cont = 0
    if len(ws):
        keep = b1 > b0  # an empty span (an inserted ▁) touches nothing
        c0, c1 = char_of_bytes(cps, b0[keep], b1[keep])
        # the tokens tile each text in order, so both ends are sorted: the tokens touching [ws, we)
        # are those starting before we, less those ending at or before ws
        touching = np.searchsorted(c0, we, side="left") - np.searchsorted(c1, ws, side="right")
        cont = int(np.count_nonzero(touching >= 2))
    values, freqs = np.unique(ids, return_counts=True)
    counts = Counter(dict(zip(values.tolist(), freqs.tolist())))
    unk = tokenizer.unk_id
    return CorpusCounts(texts=len(batch), tokens=len(ids), words=len(ws), continued_words=cont,
                        bytes=sum(n_bytes), chars=sum(map(len, texts)),
                        fallback=sum(n for i, n in counts.items() if tokenizer.is_byte_fallback(i)),
                        unknown=counts.get(unk, 0) if unk is not None else 0,
                        token_counts=counts, vocab_size=tokenizer.n_vocab)


def count_text(tokenizer: Tokenizer, text: str) -> CorpusCounts:
    """The counts of one text, encoded as ordinary text (special-token strings are text)."""
    return count_tokenized(tokenizer, [tokenizer.tokenize(text, disallowed_special=())])


BATCH_CHARS = 1 << 20  # count_corpus counts up to this many characters of texts at once (or 4,096 texts)
BATCH_TEXTS = 4096


def count_corpus(tokenizer: Tokenizer, texts: Iterable[str], *,
                 progress: Callable[[int], None] | None = None) -> CorpusCounts:
    """The counts of a tokenizer over texts, each encoded on its own (`encode_ordinary`). A str is
    one text (not a sequence of one-character texts). `progress(k)` after each text, k counted from 1.
    Texts are counted in batches (count_tokenized): a short text costs its encoding and little more."""
    if isinstance(texts, str):
        texts = [texts]
    total = CorpusCounts(vocab_size=tokenizer.n_vocab)
    batch, size = [], 0
    for k, text in enumerate(texts, 1):
        batch.append(tokenizer.tokenize(text, disallowed_special=()))
        size += len(text)
        if size >= BATCH_CHARS or len(batch) >= BATCH_TEXTS:
            total = _add_into(total, count_tokenized(tokenizer, batch))
            batch, size = [], 0
        if progress is not None:
            progress(k)
    if batch:
        total = _add_into(total, count_tokenized(tokenizer, batch))
    return total


def _add_into(acc: CorpusCounts, c: CorpusCounts) -> CorpusCounts:
    """acc += c in place (a corpus of many texts would copy its Counter once per text with +)."""
    for f in fields(acc):
        if f.name == "token_counts":
            acc.token_counts.update(c.token_counts)
        elif f.name != "vocab_size":
            setattr(acc, f.name, getattr(acc, f.name) + getattr(c, f.name))
    return acc


# -- the frame --------------------------------------------------------------------------------------
def metrics_frame(counts: Mapping[str, CorpusCounts], *, reference: str | None = None,
                  index_name: str = "tokenizer") -> pd.DataFrame:
    """One row per entry of `counts` (tokenizer names, in the order given) and the COLUMNS, with
    `premium` = tokens / tokens of the row named `reference` when one is named. Ratios whose
    denominator is 0 (an empty corpus) are NaN, never an error. The rows may be anything counted
    alike: keyed by language for one tokenizer (index_name="language", reference="eng"), the premium
    is the token premium of tokenizers.analysis.languages."""
    if reference is not None and reference not in counts:
        raise ValueError(f"The reference {reference!r} is not among the rows ({', '.join(map(repr, counts))}).")
    rows = {name: c.metrics() for name, c in counts.items()}
    df = pd.DataFrame.from_dict(rows, orient="index", columns=list(COLUMNS))
    df = df.astype({"tokens": "int64", "words": "int64"})
    df.index = pd.Index(list(counts), name=index_name, dtype="object")
    if reference is not None:
        ref = counts[reference].tokens
        df["premium"] = [_ratio(c.tokens, ref) for c in counts.values()]
    return df


def _resolve(t: str | Tokenizer) -> tuple[str, Tokenizer]:
    if isinstance(t, Tokenizer):
        return t.name, t
    from tokenizers.registry import get_tokenizer

    return t, get_tokenizer(t)


def corpus_metrics(texts: Iterable[str], tokenizers: Sequence[str | Tokenizer], *, reference: str | None = None,
                   progress: Callable[[int, int], None] | None = None) -> pd.DataFrame:
    """metrics_frame of count_corpus for each tokenizer (registry names, or Tokenizer objects named
    by their `.name`). `reference` is one of those names: its row's tokens are the premium's 1.0.
    `progress(done, total)` after each (tokenizer, text). ValueError for no texts or no tokenizers."""
    texts = [texts] if isinstance(texts, str) else list(texts)
    if not texts:
        raise ValueError("No texts to measure: give at least one text (an empty string counts as one).")
    if not tokenizers:
        raise ValueError("No tokenizers: give at least one registry name or Tokenizer.")
    named = [_resolve(t) for t in tokenizers]
    names = [n for n, _ in named]
    if len(set(names)) != len(names):
        raise ValueError(f"Two tokenizers share a name ({names}); their rows would collide.")
    total, counts = len(texts) * len(named), {}
    for k, (name, tok) in enumerate(named):
        def step(j: int, k=k) -> None:
            progress(k * len(texts) + j, total)

        counts[name] = count_corpus(tok, texts, progress=step if progress else None)
    return metrics_frame(counts, reference=reference)


# -- languages: one count per (tokenizer, language) -------------------------------------------------------
def language_counts(texts: Mapping[str, str], tokenizers: Sequence[str | Tokenizer], *,
                    progress: Callable[[int, int], None] | None = None) -> dict[str, dict[str, CorpusCounts]]:
    """{tokenizer: {language: counts of that language's text}}, each language's text encoded as one
    text. The one count behind both the token premium (tokenizers.analysis.languages.token_premium)
    and the per-language metrics, so the two never disagree. `progress(done, total)` after each
    (language, tokenizer) pair. Tokenizers are keyed by registry name or by their `.name`."""
    named = [_resolve(t) for t in tokenizers]
    names = [n for n, _ in named]
    if len(set(names)) != len(names):
        raise ValueError(f"Two tokenizers share a name ({names}); their columns would collide.")
    total, done, out = len(texts) * len(named), 0, {}
    for name, tok in named:
        out[name] = {}
        for lang, text in texts.items():
            out[name][lang] = count_text(tok, text)
            done += 1
            if progress is not None:
                progress(done, total)
    return out


def overall(counts: Mapping[str, Mapping[str, CorpusCounts]]) -> dict[str, CorpusCounts]:
    """{tokenizer: the counts of all its languages added up}: language_counts as one corpus."""
    return {name: sum(by_lang.values(), CorpusCounts()) for name, by_lang in counts.items()}


def language_metrics(counts: Mapping[str, Mapping[str, CorpusCounts]], *, reference: str | None = None) -> pd.DataFrame:
    """language_counts as one long frame indexed by (tokenizer, language), the COLUMNS and, with a
    reference language, `premium` = the language's tokens / the reference's under the same
    tokenizer (the token premium; with_premium adds it to a frame made without)."""
    frames = {name: metrics_frame(by_lang, index_name="language") for name, by_lang in counts.items()}
    if not frames:
        raise ValueError("No tokenizers: give at least one.")
    out = pd.concat(frames, names=["tokenizer", "language"])
    return out if reference is None else with_premium(out, reference)


def with_premium(by_language: pd.DataFrame, reference: str) -> pd.DataFrame:
    """language_metrics' frame with `premium` (again) against `reference`, from its tokens column:
    so a page keeps the frame and changes the reference without the counts."""
    languages = by_language.index.get_level_values("language")
    if reference not in set(languages):
        raise ValueError(f"The reference {reference!r} is not among the languages.")
    ref = by_language["tokens"].xs(reference, level="language")
    denominator = by_language.index.get_level_values("tokenizer").map(ref).to_numpy(dtype="float64")
    out = by_language.copy()
    with np.errstate(divide="ignore", invalid="ignore"):
        out["premium"] = np.where(denominator > 0, by_language["tokens"].to_numpy() / denominator, np.nan)
    return out
