"""A character-level tokenizer: the vocabulary is the corpus's alphabet, one token per character.

Training reads the distinct characters (`stoi`: character -> id, `itos`: id -> character, as in
Karpathy's makemore/nanoGPT). Id 0 is the unknown token `<unk>`, which any character not in the
alphabet becomes; the characters follow in code-point order. There is nothing to merge, so the
vocabulary cannot grow past the alphabet: a larger vocab size changes nothing. A smaller one keeps
the most frequent characters (the notes say how many were left out). The training steps are the
characters in the order they were chosen (most frequent first) with their counts.

Normalization: none. Whitespace characters are tokens too, so decode(encode(text)) == text when
every character is known; an unknown character decodes as `<unk>`. Spans: one character each.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from typing import AbstractSet

from tokenizers.core.tokenizer import Capabilities, Tokenizer
from tokenizers.bpe.model import TrainingError
from tokenizers.classic.pair_merges import Step
from tokenizers.core.text import clean_text
from tokenizers.classic.word_level import keep_most_frequent

UNK = 0


class CharTokenizer(Tokenizer):
    kind = "char"
    unk_token = "<unk>"
    capabilities = Capabilities(model_type="char", unknown_token=True, training_history=True, code_points=True)

    def __init__(self, *, name: str = "char", title: str = ""):
        self.name = name
        self.title = title or name
        self.special_tokens: dict[str, int] = {}
        self.itos: list[str] = [self.unk_token]
        self.stoi: dict[str, int] = {}
        self.history: list[Step] = []
        self.notes: list[str] = []
        self.base_size = 1
        self.dropped_chars = 0

    def train(self, text: str, vocab_size: int, *, progress: Callable[[int, int], None] | None = None,
              **_) -> "CharTokenizer":
        text, _ = clean_text(text)
        if not text:
            raise TrainingError("The training text is empty: paste or upload some text first.")
        if vocab_size < 2:
            raise TrainingError(f"A vocab size of {vocab_size} leaves no room for a character next to <unk>: "
                                "the character-level model needs at least 2.")
        counts = Counter(text)
        kept, dropped = keep_most_frequent(counts, vocab_size - 1)
        self.itos = [self.unk_token, *sorted(kept)]
        self.stoi = {c: i for i, c in enumerate(self.itos) if i != UNK}
        self.history = [Step(k, None, self.stoi[c], counts[c], float(counts[c])) for k, c in enumerate(kept)]
        if dropped:
            lost = sum(counts[c] for c in dropped)
            self.dropped_chars = len(dropped)
            self.notes.append(f"The corpus has {len(counts):,} distinct characters but the vocab size is "
                              f"{vocab_size:,}: the {len(dropped):,} rarest ({lost:,} occurrences, "
                              f"{lost / len(text):.2%} of the text) become <unk>.")
        elif vocab_size > len(self.itos):
            self.notes.append(f"A character-level vocabulary is the corpus's alphabet: {len(counts):,} characters "
                              f"+ <unk> = {len(self.itos):,} tokens, whatever the target ({vocab_size:,}).")
        if progress:
            progress(1, 1)
        return self

    def truncated(self, steps: int) -> "CharTokenizer":
        """The model with only the `steps` most frequent characters (= trained with vocab steps + 1)."""
        out = CharTokenizer(name=f"{self.name}@{steps}", title=self.title)
        out.history = self.history[:max(0, steps)]
        out.itos = [self.unk_token, *sorted(self.itos[s.new_id] for s in out.history)]
        out.stoi = {c: i for i, c in enumerate(out.itos) if i != UNK}
        return out

    def steps_for_size(self, vocab_size: int) -> int:
        return max(0, min(len(self.history), vocab_size - 1))

    @property
    def vocab_size(self) -> int:
        return len(self.itos)

    @property
    def unk_id(self) -> int:
        return UNK

    def token_bytes(self, token_id: int) -> bytes:
        self.check_ids([token_id])
        return self.itos[token_id].encode("utf-8")

    def piece_of(self, token_id: int) -> str:
        return self.unk_token if token_id == UNK else ""

    def spelling(self, token_id: int) -> str:
        self.check_ids([token_id])
        return self.itos[token_id]

    def normalized(self, text: str) -> str:
        return clean_text(text)[0]

    def _encode(self, text: str, specials: AbstractSet[str]) -> list[int]:
        get = self.stoi.get
        return [get(c, UNK) for c in text]

    def span_lengths(self, text: str, ids: Sequence[int]):
        if text.isascii():
            return [1] * len(text)
        return [1 if c < "\x80" else 2 if c < "\u0800" else 3 if c < "\U00010000" else 4 for c in text]

    def decode(self, ids, errors: str = "replace") -> str:
        ids = list(ids)
        self.check_ids(ids)
        return "".join(self.itos[i] for i in ids)
