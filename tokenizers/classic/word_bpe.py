"""Classic word-level BPE (Sennrich, Haddow & Birch 2016, "Neural Machine Translation of Rare Words
with Subword Units"), as the paper's Algorithm 1 states it:

- the text is cut into words at whitespace (which is then discarded); each word starts as its
  characters followed by the end-of-word symbol `</w>` ("low" -> l o w </w>);
- training repeatedly merges the most frequent adjacent pair of symbols, counted over all words
  (each word weighted by how often it occurs). Ties: see tokenizers/classic/pair_merges.py (the spellings
  that sort first, so on low×5 lower×2 newest×6 widest×3, where (e, s), (s, t) and (t, </w>) tie
  at 9, the first merge is (e, s));
- encoding applies the learned merges to each word, earliest first (the paper's apply step, by the
  project's one BPE rule, tokenizers/bpe/rule.py).

Unknown characters: a character not in the alphabet (never seen, or left out because the vocab size
is smaller than the alphabet) becomes the unknown token `<unk>`, one per character; it never merges.

Normalization: decode gives the words joined by single spaces (`</w>` reads as a space, the last one
dropped), so decode(encode(text)) == " ".join(text.split()) when every character is known.
Spans: see tokenizers/classic/word_level.py; `</w>` covers no input bytes (a lone `</w>` token covers only
the whitespace after its word, or nothing at the end of the text).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable

from tokenizers.bpe.model import apply_merges
from tokenizers.bpe.rule import bpe_merge
from tokenizers.core.tokenizer import Capabilities
from tokenizers.classic.word_level import MAX_TRAIN_WORD, UNK, Symbol, WordLevelTokenizer

END = 1  # the id of </w>
LONG_WORD = 64  # symbols; longer words take the heap-based copy of the rule
_WORD = re.compile(r"\S+")  # stdlib re: \s is exactly str.isspace, so this agrees with str.split


class WordBPETokenizer(WordLevelTokenizer):
    kind = "word_bpe"
    capabilities = Capabilities(model_type="bpe", merge_trees=True, unknown_token=True, training_history=True,
                                code_points=True)
    unk_token = "<unk>"
    rule = "count"
    reserved = (None, ("", True))  # <unk>, </w>

    def _join(self, a: Symbol, b: Symbol) -> Symbol:
        return (a[0] + b[0], b[1])  # the word ends where the right part ends

    def _spell(self, sym: Symbol) -> str:
        return sym[0] + "</w>" if sym[1] else sym[0]

    def word_spans(self, text: str) -> Iterable[tuple[int, int]]:
        return (m.span() for m in _WORD.finditer(text))

    def base_counts(self, words: Counter) -> Counter:
        counts: Counter = Counter()
        for w, n in words.items():
            for c, k in Counter(w).items():
                counts[(c, False)] += k * n
        return counts

    def _train_words(self, words: Counter) -> list[tuple[list[int], int]]:
        """Each word as base-symbol ids + </w>, cut at unknown characters (nothing merges across them)
        and into pieces of at most MAX_TRAIN_WORD symbols (a long word trains in bounded time)."""
        out: list[tuple[list[int], int]] = []
        ids = self.ids
        for w, n in words.items():
            seq: list[int] = []
            for c in w:
                i = ids.get((c, False))
                if i is None or len(seq) == MAX_TRAIN_WORD:
                    if seq:
                        out.append((seq, n))
                    seq = []
                if i is not None:
                    seq.append(i)
            seq.append(END)
            out.append((seq, n))
        return out

    def apply(self, symbols: list[int]) -> list[int]:
        """The learned merges applied to one word's symbols by the BPE rule (tokenizers/bpe/rule.py):
        the adjacent pair merged earliest in training first, the leftmost of equals first. The rank is
        the training step, not the resulting id: a spelling made twice (by two pairs) has one id."""
        merges = self.merges
        if len(symbols) <= LONG_WORD:
            return bpe_merge(symbols, lambda a, b: merges.get((a, b), (None,))[0],
                             lambda a, b: merges[(a, b)][1])
        # the same rule with a heap (bpe.apply_merges), whose merged part is the rank it was given: so
        # parts are (step, id), ordered by the step, and the id names the token
        parts = apply_merges([(-1, s) for s in symbols], lambda p: merges.get((p[0][1], p[1][1])))
        return [i for _, i in parts]

    def _encode_word(self, word: str) -> tuple[tuple[int, int], ...]:
        ids = self.ids
        out = self.apply([ids.get((c, False), UNK) for c in word] + [END])
        return tuple((i, 1 if i == UNK else len(self.symbols[i][0])) for i in out)

    def decode(self, ids, errors: str = "replace") -> str:
        """Tokens joined, each `</w>` read as a space; the final one is dropped."""
        ids = list(ids)
        self.check_ids(ids)
        parts = []
        for i in ids:
            if i == UNK:
                parts.append(self.unk_token)
            else:
                s, end = self.symbols[i]
                parts.append(s + " " if end else s)
        text = "".join(parts)
        return text[:-1] if ids and ids[-1] != UNK and self.symbols[ids[-1]][1] else text
