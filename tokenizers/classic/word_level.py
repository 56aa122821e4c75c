"""What classic BPE and WordPiece share: they cut text into words first, discard the whitespace
between them, and learn merges inside words (tokenizers/classic/pair_merges.py).

A symbol is (surface, flag): the characters it stands for, and one bit that each model spells with
its marker (classic BPE: the word ends here, `</w>`; WordPiece: the word goes on here, `##`). The
marker is part of the token's spelling (`piece_of`), not of its bytes: `token_bytes` are the
characters the token covers, and a marker covers no input bytes. Id 0 is the unknown token.

Spans: each token covers its own characters of its word. The whitespace that the models discard is
given to the token before it (the last token of the previous word; whitespace at the very start goes
to the first token), so that spans still tile the text. A text of only whitespace has no tokens.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from typing import AbstractSet

from tokenizers.classic import pair_merges
from tokenizers.core.tokenizer import Tokenizer
from tokenizers.bpe.model import TrainingError
from tokenizers.classic.pair_merges import Step
from tokenizers.core.text import clean_text

Symbol = tuple[str, bool]
UNK = 0
# words longer than this are cut into pieces of this length for training, so that a corpus with no
# whitespace (one 100,000-character "word") still trains in bounded time
MAX_TRAIN_WORD = 100
WORD_CACHE = 100_000


class Ids(list):
    """Token ids that also carry how many input bytes each token covers (for tokenize's spans)."""

    lengths: list[int]


def keep_most_frequent(counts: Counter, room: int) -> tuple[list, list]:
    """(the `room` most frequent keys, the rest): ties go to the smaller key."""
    ranked = sorted(counts, key=lambda c: (-counts[c], c))
    return ranked[:room], ranked[room:]


class WordLevelTokenizer(Tokenizer):
    """Base of the two word-level models. Subclasses set `kind`, `unk_token`, `rule` and define
    `word_spans` (how text is cut into words), `_join`, `_spell`, `base_counts`, `_train_words`,
    `_encode_word` and `decode`."""

    unk_token = "<unk>"
    rule = "count"
    reserved: tuple[Symbol | None, ...] = (None,)   # id 0: the unknown token

    def __init__(self, *, name: str, title: str = ""):
        self.name = name
        self.title = title or name
        self.special_tokens: dict[str, int] = {}
        self.symbols: list[Symbol | None] = list(self.reserved)   # id -> symbol
        self.ids: dict[Symbol, int] = {s: i for i, s in enumerate(self.reserved) if s is not None}
        self.history: list[Step] = []                # the training steps, in order
        self.merges: dict[tuple[int, int], tuple[int, int]] = {}  # pair -> (step, resulting id)
        self.notes: list[str] = []                   # what training did that a reader should know
        self.base_size = 1                           # tokens before any merge (unknown + alphabet)
        self.dropped_chars = 0                       # distinct characters left out of the alphabet
        self._parents: dict[int, tuple[int, int]] = {}
        self._cache: dict[str, tuple[tuple[int, int], ...]] = {}

    # -- symbols -----------------------------------------------------------------------------------
    def _join(self, a: Symbol, b: Symbol) -> Symbol:
        raise NotImplementedError

    def _spell(self, sym: Symbol) -> str:
        raise NotImplementedError

    def _add(self, sym: Symbol) -> int:
        i = self.ids.get(sym)
        if i is None:
            i = self.ids[sym] = len(self.symbols)
            self.symbols.append(sym)
        return i

    def join(self, a: int, b: int) -> tuple[int, bool]:
        """SymbolTable for the trainer: the id of the merge of a and b, and whether it is new."""
        sym = self._join(self.symbols[a], self.symbols[b])
        new = sym not in self.ids
        return self._add(sym), new

    def spelling(self, token_id: int) -> str:
        """The token as the model writes it: `</w>` or `##` included; the unknown token's name."""
        if token_id == UNK:
            return self.unk_token
        return self._spell(self.symbols[token_id])

    # -- the Tokenizer interface -------------------------------------------------------------------
    @property
    def vocab_size(self) -> int:
        return len(self.symbols)

    @property
    def unk_id(self) -> int:
        return UNK

    def token_bytes(self, token_id: int) -> bytes:
        """The characters the token stands for, without its marker (the unknown token: its name)."""
        self.check_ids([token_id])
        if token_id == UNK:
            return self.unk_token.encode("utf-8")
        return self.symbols[token_id][0].encode("utf-8")

    def piece_of(self, token_id: int) -> str:
        return self.spelling(token_id)

    def merge_parents(self, token_id: int) -> tuple[int, int] | None:
        """The pair whose merge first made this token; None for the alphabet and the unknown token."""
        return self._parents.get(token_id)

    def merge_rank(self, token_id: int) -> int | None:
        p = self._parents.get(token_id)
        return None if p is None else self.merges[p][0]

    def decode_bytes(self, ids) -> bytes:
        return self.decode(ids).encode("utf-8")

    def word_spans(self, text: str) -> Iterable[tuple[int, int]]:
        raise NotImplementedError

    def words(self, text: str) -> list[str]:
        return [text[a:b] for a, b in self.word_spans(text)]

    def normalized(self, text: str) -> str:
        """What decode(encode(text)) gives when every word of the text is known: the words joined by
        single spaces (the whitespace between them is not kept)."""
        return " ".join(self.words(clean_text(text)[0]))

    def _encode_word(self, word: str) -> tuple[tuple[int, int], ...]:
        """[(id, characters of the word it covers)] for one word."""
        raise NotImplementedError

    def encode_word(self, word: str) -> tuple[tuple[int, int], ...]:
        hit = self._cache.get(word)
        if hit is None:
            hit = self._encode_word(word)
            if len(self._cache) < WORD_CACHE and len(word) <= MAX_TRAIN_WORD:
                self._cache[word] = hit
        return hit

    def _encode(self, text: str, specials: AbstractSet[str]) -> list[int]:
        ids, lengths = Ids(), []
        lead = pos = 0  # pos: characters of the text consumed so far
        for a, b in self.word_spans(text):
            gap = len(text[pos:a].encode("utf-8")) if a > pos else 0
            if lengths:
                lengths[-1] += gap
            else:
                lead = gap
            k = a
            for tid, n in self.encode_word(text[a:b]):
                ids.append(tid)
                lengths.append(len(text[k:k + n].encode("utf-8")) if n else 0)
                k += n
            pos = b
        if lengths:
            lengths[0] += lead
            lengths[-1] += len(text[pos:].encode("utf-8"))
        ids.lengths = lengths
        return ids

    def span_lengths(self, text: str, ids: Sequence[int]):
        lengths = getattr(ids, "lengths", None)
        return lengths if lengths is not None else self._encode(text, frozenset()).lengths

    def aligned_spans(self, text: str, ids, n_bytes: int):
        if ids:
            raise AssertionError(f"{self.name}: spans do not cover the {n_bytes} input bytes")
        return [], [], []  # only whitespace: the models discard it, so there is no token

    # -- training ----------------------------------------------------------------------------------
    def _train_words(self, words: Counter) -> list[tuple[list[int], int]]:
        """The words as sequences of base-symbol ids, with their counts: what the trainer merges."""
        raise NotImplementedError

    def _nothing_to_train(self) -> str:
        return "Nothing is left to train on."

    def base_counts(self, words: Counter) -> Counter:
        """How often each base symbol occurs in the words (the alphabet to keep or cut)."""
        raise NotImplementedError

    def train(self, text: str, vocab_size: int, *, progress: Callable[[int, int], None] | None = None,
              trainer: str = "fast") -> "WordLevelTokenizer":
        """Learn merges until the vocabulary has `vocab_size` tokens (or no pair is left). A vocab
        size smaller than the corpus's alphabet keeps the most frequent base symbols; the others
        become the unknown token (the notes say how many)."""
        if len(self.symbols) != len(self.reserved):
            raise ValueError("train a fresh model: this one is trained already")
        text, _ = clean_text(text)
        words = Counter(self.words(text))
        if not words:
            raise TrainingError("The training text is empty (or only whitespace): paste or upload some text first.")
        counts = self.base_counts(words)
        reserved = len(self.reserved)  # the unknown token (and classic BPE's </w>)
        if vocab_size < reserved + 1:
            raise TrainingError(f"A vocab size of {vocab_size} leaves no room for even one character: "
                                f"{self.name} needs at least {reserved + 1}.")
        kept, dropped = keep_most_frequent(counts, vocab_size - reserved)
        for sym in sorted(kept, key=self._spell):
            self._add(sym)
        self.base_size = len(self.symbols)
        if dropped:
            lost = sum(counts[s] for s in dropped)
            self.dropped_chars = len(dropped)
            self.notes.append(
                f"The corpus has {len(counts):,} base symbols but the vocab size is {vocab_size:,}: the "
                f"{len(dropped):,} rarest ({lost:,} occurrences, {lost / sum(counts.values()):.2%}) were left "
                f"out and become {self.unk_token}. Choose a vocab size of at least {reserved + len(counts):,} "
                "to keep them all.")
        seqs = self._train_words(words)
        if not seqs:
            raise TrainingError(self._nothing_to_train())
        learn = pair_merges.learn if trainer == "fast" else pair_merges.learn_reference
        self.history = learn(seqs, self, vocab_size - len(self.symbols), self.rule, progress)
        for step in self.history:
            self.merges.setdefault(step.pair, (step.rank, step.new_id))
            if step.new_token:
                self._parents[step.new_id] = step.pair
        self._cache = {}
        if len(self.symbols) < vocab_size:
            self.notes.append(f"Stopped at {len(self.symbols):,} tokens, short of {vocab_size:,}: every word of the "
                              "corpus is a single token already, so no pair is left to merge. Use more (or more "
                              "varied) text for a bigger vocabulary.")
        return self

    def truncated(self, steps: int) -> "WordLevelTokenizer":
        """The model after its first `steps` training steps (what training with a smaller vocab size
        gives, as long as that size keeps the whole alphabet)."""
        out = type(self)(name=f"{self.name}@{steps}", title=self.title)
        keep = self.history[:max(0, steps)]
        n = self.base_size + sum(s.new_token for s in keep)
        out.symbols, out.ids = self.symbols[:n], {s: i for i, s in enumerate(self.symbols[:n]) if s is not None}
        out.base_size, out.history, out.dropped_chars = self.base_size, keep, self.dropped_chars
        for step in keep:
            out.merges.setdefault(step.pair, (step.rank, step.new_id))
            if step.new_token:
                out._parents[step.new_id] = step.pair
        return out

    def steps_for_size(self, vocab_size: int) -> int:
        """How many training steps a vocabulary of `vocab_size` tokens holds."""
        n = self.base_size
        for k, step in enumerate(self.history):
            if step.new_token:
                if n >= vocab_size:
                    return k
                n += 1
        return len(self.history)
