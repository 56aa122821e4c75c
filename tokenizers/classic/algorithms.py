"""Five tokenization algorithms behind one entry point, for training them side by side on one text.

    >>> from tokenizers.classic.algorithms import NAMES, train
    >>> models = {name: train(name, text, 1000) for name in NAMES}

| name | what | its normalization | what it never saw |
|---|---|---|---|
| char | one token per character (char_level.py) | none | an unseen character is `<unk>` |
| word_bpe | Sennrich et al.'s BPE, words + `</w>` (word_bpe.py) | whitespace runs -> one space | an unseen character is `<unk>` |
| wordpiece | BERT's WordPiece, `##` pieces (wordpiece.py) | whitespace dropped, punctuation spaced | a word it cannot spell is `[UNK]` |
| unigram | SentencePiece's unigram model (sentencepiece_train.py) | NFKC, whitespace squeezed | an unseen character is `<unk>` |
(unigram keeps every character of the corpus when the vocab size allows, character_coverage=1.0; else
SentencePiece's default 0.9995 leaves the rarest out)
| byte_bpe | this project's byte-level BPE, GPT-4 split (bpe.py) | none | nothing: every byte is a token |
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from tokenizers.core.tokenizer import Tokenizer
from tokenizers.bpe.model import BPETokenizer, TrainingError
from tokenizers.core.text import clean_text

NAMES = ("char", "word_bpe", "wordpiece", "unigram", "byte_bpe")


@dataclass(frozen=True)
class Algorithm:
    name: str
    title: str
    how: str            # how it trains and encodes, in a sentence or two
    normalization: str  # what decode(encode(text)) gives back
    unknowns: str       # what happens to what it never saw


ALGORITHMS: dict[str, Algorithm] = {a.name: a for a in [
    Algorithm("char", "Character-level",
              "The vocabulary is the corpus's alphabet (stoi/itos); each character is one token. Nothing is learned "
              "beyond the alphabet, so a bigger vocab size changes nothing.",
              "None: decode gives the text back exactly.",
              "A character it never saw becomes <unk> (id 0)."),
    Algorithm("word_bpe", "Classic BPE (</w>)",
              "Sennrich et al. 2016: words split on whitespace, each spelled as characters + </w>; the most frequent "
              "adjacent pair is merged, again and again. Encoding replays the merges in order.",
              "Whitespace is not kept: decode joins the words with single spaces (each </w> reads as a space).",
              "A character it never saw becomes <unk>, one per character; the rest of the word is still merged."),
    Algorithm("wordpiece", "WordPiece (##)",
              "BERT: words split on whitespace and punctuation; a later character of a word is a ## piece. Merges "
              "go to the pair with the highest count(pair) / (count(left) × count(right)). Encoding is greedy "
              "longest-match-first over the vocabulary.",
              "Whitespace is not kept, punctuation comes back spaced: decode joins words with single spaces.",
              "A word it cannot spell from its pieces (or longer than 100 characters) becomes one [UNK]."),
    Algorithm("unigram", "Unigram (SentencePiece)",
              "Kudo 2018, trained by SentencePiece: start from many candidate pieces and prune the ones whose loss "
              "costs the corpus's likelihood least; encoding picks the most probable segmentation (Viterbi).",
              "SentencePiece's defaults: NFKC normalization, runs of spaces squeezed, ▁ marks a space.",
              "A character it never saw becomes <unk> (no byte fallback here); so do the rarest 0.05% when the "
              "vocab size is smaller than the alphabet."),
    Algorithm("byte_bpe", "Byte-level BPE",
              "GPT-2/GPT-4 style: the text is cut by the GPT-4 pattern, every chunk starts as UTF-8 bytes (256 base "
              "tokens), and the most frequent pair of tokens is merged.",
              "None: decode gives the text back exactly.",
              "Nothing is unknown: any text is bytes, and every byte is a token."),
]}


def model_name(algorithm: str) -> str:
    """The name a trained algorithm's tokenizer gets ("alg_byte_bpe"), so a page can find it again."""
    return f"alg_{algorithm}"


class ProgressAdapter:
    """Adapters from each trainer's progress to `report(fraction, detail)`."""

    def __init__(self, report: Callable[[float, str], None] | None):
        self.report = report

    def counts(self, done: int, total: int) -> None:
        if self.report:
            self.report(done / total if total else 1.0, f"{done:,} of {total:,}")

    def sentencepiece(self, p) -> None:
        if self.report:
            self.report(p.fraction if p.fraction is not None else 0.0, f"{p.phase} {p.detail}".strip())


def train(name: str, text: str, vocab_size: int, *, progress: Callable[[float, str], None] | None = None,
          timeout: float = 120.0) -> Tokenizer:
    """Train algorithm `name` (one of NAMES) on `text` to `vocab_size` tokens. Raises TrainingError
    (its message says what to change) when the text or the size cannot work. `progress(fraction,
    detail)` is called as training goes. The tokenizer carries `algorithm` (its name here) and `notes`
    (a list, maybe empty): what training did that a reader should know (a cut alphabet, a vocabulary
    that stopped short)."""
    if name not in ALGORITHMS:
        raise ValueError(f"No algorithm named {name!r}; choose from {', '.join(NAMES)}.")
    text, _ = clean_text(text)
    title = ALGORITHMS[name].title
    report = ProgressAdapter(progress)
    if name == "char":
        from tokenizers.classic.char_level import CharTokenizer

        tok = CharTokenizer(name=model_name(name), title=title).train(text, vocab_size, progress=report.counts)
    elif name in ("word_bpe", "wordpiece"):
        from tokenizers.classic.word_bpe import WordBPETokenizer
        from tokenizers.classic.wordpiece import WordPieceTokenizer

        cls = WordBPETokenizer if name == "word_bpe" else WordPieceTokenizer
        tok = cls(name=model_name(name), title=title).train(text, vocab_size, progress=report.counts)
    elif name == "unigram":
        tok = _train_unigram(text, vocab_size, report, timeout)
    else:
        tok = BPETokenizer("gpt4", name=model_name(name))
        result = tok.train(text, vocab_size, progress=report.counts)
        tok.title = title
        tok.notes = [result.stopped_early] if result.stopped_early else []
    tok.algorithm = name
    return tok


SP_MAX_LINE = 4192  # bytes: SentencePiece's trainer skips longer lines (max_sentence_length)


def _train_unigram(text: str, vocab_size: int, report: ProgressAdapter, timeout: float) -> Tokenizer:
    """SentencePiece's unigram model, with its defaults except two choices that make it comparable to the
    others: every character of the corpus gets a piece when the vocab size allows it (as the other models
    keep their whole alphabet), and long lines are cut to fit the trainer instead of being skipped."""
    from tokenizers.sentencepiece.train import SentencePieceTrainingError, split_long_lines
    from tokenizers.sentencepiece.train import train as sp_train

    if not text.strip():
        raise TrainingError("The training text is empty (or only whitespace): paste or upload some text first.")
    text, cut = split_long_lines(text, SP_MAX_LINE)
    notes = []
    if cut:
        notes.append(f"{cut:,} line(s) longer than {SP_MAX_LINE:,} bytes were cut into shorter lines: SentencePiece's "
                     "trainer skips longer ones.")
    # a soft limit: a small text supports fewer pieces than asked, and then gets what it supports
    options = dict(model_type="unigram", vocab_size=vocab_size, hard_vocab_limit=False, timeout=timeout,
                   progress=report.sentencepiece, name=model_name("unigram"), title=ALGORITHMS["unigram"].title)
    try:
        tok = sp_train(text, character_coverage=1.0, **options)
    except SentencePieceTrainingError as e:
        if e.reason != "vocab_too_small":
            raise
        tok = sp_train(text, **options)  # the default coverage, 0.9995: the rarest characters are left out
        notes.append(f"The vocab size is below the corpus's alphabet ({e.limit:,} pieces needed for every "
                     "character), so SentencePiece's default character_coverage (0.9995) was used: the rarest "
                     "characters have no piece and become <unk>.")
    if tok.vocab_size < vocab_size:
        notes.append(f"SentencePiece made {tok.vocab_size:,} pieces, short of {vocab_size:,}: that is all the "
                     "candidates this text supports. Use more text for a bigger vocabulary.")
    tok.notes = notes
    return tok


# -- comparing them on held-out text -------------------------------------------------------------------
def held_out_split(text: str, fraction: float = 0.1, *, max_chars: int = 50_000) -> tuple[str, str]:
    """(training part, held-out part): the last `fraction` of the text (at most `max_chars`), cut at
    a line break or else a space near there so that no word is split (in the middle of a word only
    when there is none within twice that length). The held-out part is empty when the text is too
    short to spare any."""
    n = min(int(len(text) * fraction), max_chars)
    if n < 1:
        return text, ""
    at = len(text) - n
    for sep in ("\n", " "):
        cut = text.rfind(sep, 0, at + 1)
        if cut > 0 and cut >= len(text) - 2 * n:
            return text[:cut], text[cut + 1:]
    return text[:at], text[at:]


@dataclass(frozen=True)
class Usage:
    """How a tokenizer handles one text: token count and what it could not represent."""

    tokens: int
    unknown: int        # unknown tokens
    unknown_chars: int  # characters those tokens stand for
    chars: int

    @property
    def unknown_rate(self) -> float:
        return self.unknown / self.tokens if self.tokens else 0.0

    @property
    def unknown_char_rate(self) -> float:
        return self.unknown_chars / self.chars if self.chars else 0.0


def usage(tok: Tokenizer, text: str, toks=None) -> Usage:
    """Token and unknown counts of `text` (pass `toks`, its TokenList, when it is tokenized already)."""
    if toks is None:
        toks = tok.tokenize(text, disallowed_special=())
    text = toks.text
    unk = tok.unk_id
    unknown = unknown_chars = 0
    if unk is not None:
        cmap = toks.cmap
        for i, a, b in zip(toks.ids, toks.byte_starts, toks.byte_ends):
            if i == unk:
                unknown += 1
                c0, c1 = cmap.char_span(a, b)
                # not the whitespace a word-level token carries at its edges (unless it is all there is)
                unknown_chars += len(text[c0:c1].strip()) or c1 - c0
    return Usage(len(toks), unknown, unknown_chars, len(toks.text))


def at_vocab_size(tok: Tokenizer, vocab_size: int, text: str = "", *, timeout: float = 60.0) -> Tokenizer:
    """The model `tok` (made by `train`) as it would be with `vocab_size` tokens: the first training
    steps where training is a sequence of steps (char, classic BPE, WordPiece, byte-level BPE, as long
    as the size keeps the alphabet whole), else trained again on `text` (unigram, or a size below the
    alphabet)."""
    name = tok.algorithm
    if name == "byte_bpe":
        if vocab_size < 256:
            raise TrainingError(f"vocab_size must be at least 256 (the 256 single bytes); got {vocab_size}.")
        small = tok.truncated(vocab_size - 256)
        small.title = tok.title
    elif name == "unigram" or (name in ("word_bpe", "wordpiece") and vocab_size < tok.base_size):
        return train(name, text, vocab_size, timeout=timeout)  # a cut alphabet trains differently
    else:
        small = tok.truncated(tok.steps_for_size(vocab_size))
    small.algorithm = name
    return small


@dataclass(frozen=True)
class CurvePoint:
    vocab_size: int     # the model's real size (may be below the size asked for)
    asked: int
    usage: Usage


def curve_sizes(target: int, points: int = 8) -> list[int]:
    """Vocab sizes for a length-vs-size curve: `points` sizes spread evenly on a log scale from
    1/16 of the target up to it, with 256 (byte-level BPE's smallest) when that is in range."""
    lo = max(2, target // 16)
    sizes = {round(lo * (target / lo) ** (k / (points - 1))) for k in range(points)} if target > lo else {target}
    if lo < 256 < target:
        sizes.add(256)
    return sorted(sizes)


def length_curve(tok: Tokenizer, train_text: str, held_out: str, sizes: Sequence[int],
                 progress: Callable[[int, int], None] | None = None) -> list[CurvePoint]:
    """Held-out token counts (and unknowns) of `tok` at each vocab size it can have: no size above its
    own, none below what the algorithm needs (byte-level BPE: 256)."""
    out = []
    for k, v in enumerate(sizes):
        if v <= tok.vocab_size:
            try:
                small = tok if v == tok.vocab_size else at_vocab_size(tok, v, train_text)
            except TrainingError:
                small = None
            if small is not None:
                out.append(CurvePoint(small.vocab_size, v, usage(small, held_out)))
        if progress:
            progress(k + 1, len(sizes))
    if not out or out[-1].vocab_size != tok.vocab_size:
        out.append(CurvePoint(tok.vocab_size, tok.vocab_size, usage(tok, held_out)))
    return out


# -- the Algorithms page's training, as one call a child process runs (tokenizers.jobs.run) -------------------
def train_algorithms(train_text: str, held_out: str, vocab_size: int, *, progress: Callable | None = None) -> dict:
    """The Algorithms page's five models trained on `train_text`, with their held-out length curves:
    {"models", "errors", "seconds", "curves"}. `progress(fraction, detail)` as it goes."""
    start = time.perf_counter()
    models, errors, seconds, curves = {}, {}, {}, {}
    phases = 2 * len(NAMES)

    def say(fraction: float, detail: str) -> None:
        if progress is not None:
            progress(min(1.0, fraction), f"{detail} · {time.perf_counter() - start:.1f} s")

    for k, name in enumerate(NAMES):
        title = ALGORITHMS[name].title

        def report(fraction: float, detail: str, k=k, title=title) -> None:
            say((k + fraction) / phases, f"Training {title} · {detail}")

        report(0.0, "starting")
        t0 = time.perf_counter()
        try:
            models[name] = train(name, train_text, int(vocab_size), progress=report)
            seconds[name] = time.perf_counter() - t0
        except TrainingError as e:
            errors[name] = str(e)
    sizes = curve_sizes(int(vocab_size))
    for k, (name, tok) in enumerate(models.items()):
        title = ALGORITHMS[name].title

        def step(done: int, total: int, k=k, title=title) -> None:
            say((len(NAMES) + (k + done / total) * len(NAMES) / len(models)) / phases,
                f"Held-out length of {title} at {done} of {total} vocab sizes")

        curves[name] = length_curve(tok, train_text, held_out, sizes, progress=step)
    return {"models": models, "errors": errors, "seconds": seconds, "curves": curves}
