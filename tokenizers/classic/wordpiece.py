"""WordPiece as BERT trains and encodes it (Schuster & Nakajima 2012; Devlin et al. 2019; the
training score as Hugging Face's course states it).

- Words: the text is cut at whitespace (discarded), and every punctuation character and every CJK
  ideograph is a word of its own, as BERT's BasicTokenizer does. Unlike bert-base-uncased there is
  no lowercasing or accent stripping (bert-base-cased keeps case too), and control characters are
  kept as ordinary characters.
- Symbols: a word's first character as itself, every later character with the continuation marker
  `##` ("hug" -> h ##u ##g). Merging (h, ##u) gives hu; (##u, ##g) gives ##ug.
- Training merges the pair with the highest count(pair) / (count(left) * count(right)): a pair whose
  parts seldom occur apart beats a pair of two common symbols that are merely often neighbours
  (ties: tokenizers/classic/pair_merges.py). The vocabulary is the alphabet plus every merged token.
- Encoding is greedy longest-match-first, word by word: take the longest vocabulary entry that
  starts the word, then the longest `##` entry that continues it, and so on. If some position has no
  match, the whole word becomes [UNK] (BERT's rule), as does a word over 100 characters
  (`max_input_chars_per_word`). Merges are not replayed when encoding: the vocabulary is all it uses.

Normalization: decode joins pieces inside a word and words with single spaces, so punctuation comes
back spaced ("Hello, world!" -> "Hello , world !"): decode(encode(text)) == normalized(text) when
every word is known. Spans: see tokenizers/classic/word_level.py; `##` covers no input bytes, [UNK] covers
its whole word.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

import regex

from tokenizers.classic.word_level import UNK, Symbol, WordLevelTokenizer
from tokenizers.core.tokenizer import Capabilities

MAX_WORD_CHARS = 100  # BERT's max_input_chars_per_word: longer words are [UNK]
# str.isspace's whitespace, exactly (regex's \s leaves out U+001C..U+001F, which str.split cuts at)
_WS = "".join(c for c in map(chr, range(0x3001)) if c.isspace())
_WS_CLASS = regex.escape(_WS, special_only=False)
# BERT's punctuation: Unicode P* plus the ASCII symbols !"#$%&'()*+,-./:;<=>?@[\]^_`{|}~
_PUNCT = r"\p{P}!-/:-@\[-`{-~"
# BERT's "Chinese characters": the CJK Unified Ideographs blocks and their compatibility forms
_CJK = "\u4e00-\u9fff\u3400-\u4dbf\U00020000-\U0002a6df\U0002a700-\U0002b73f\U0002b740-\U0002b81f" \
       "\U0002b820-\U0002ceaf\uf900-\ufaff\U0002f800-\U0002fa1f"
_WORD = regex.compile(f"[{_PUNCT}]|[{_CJK}]|[^{_WS_CLASS}{_PUNCT}{_CJK}]+")


class WordPieceTokenizer(WordLevelTokenizer):
    kind = "wordpiece"
    capabilities = Capabilities(model_type="wordpiece", merge_trees=True, unknown_token=True, training_history=True,
                                code_points=True)
    unk_token = "[UNK]"
    rule = "wordpiece"

    def _join(self, a: Symbol, b: Symbol) -> Symbol:
        return (a[0] + b[0], a[1])  # a continuation iff the left part is one

    def _spell(self, sym: Symbol) -> str:
        return "##" + sym[0] if sym[1] else sym[0]

    def word_spans(self, text: str) -> Iterable[tuple[int, int]]:
        return (m.span() for m in _WORD.finditer(text))

    def base_counts(self, words: Counter) -> Counter:
        counts: Counter = Counter()
        for w, n in words.items():
            if len(w) <= MAX_WORD_CHARS:
                counts[(w[0], False)] += n
                for c, k in Counter(w[1:]).items():
                    counts[(c, True)] += k * n
        return counts

    def _train_words(self, words: Counter) -> list[tuple[list[int], int]]:
        """Each word as its base symbols. Words that would encode to [UNK] anyway (over 100 characters,
        or holding a symbol left out of the alphabet) are not trained on; the notes say how many."""
        out: list[tuple[list[int], int]] = []
        ids = self.ids
        too_long = unknown = 0
        for w, n in words.items():
            if len(w) > MAX_WORD_CHARS:
                too_long += n
                continue
            seq = [ids.get((c, k > 0)) for k, c in enumerate(w)]
            if None in seq:
                unknown += n
                continue
            out.append((seq, n))
        if too_long:
            self.notes.append(f"{too_long:,} word(s) longer than {MAX_WORD_CHARS} characters are [UNK] when "
                              "encoding (BERT's max_input_chars_per_word), so they were not trained on. "
                              "WordPiece needs text cut into words by spaces or punctuation.")
        if unknown:
            self.notes.append(f"{unknown:,} word(s) hold a character left out of the alphabet; they encode to "
                              "[UNK] and were not trained on.")
        return out

    def _nothing_to_train(self) -> str:
        return (f"Every word of the text is longer than {MAX_WORD_CHARS} characters: it has no whitespace or "
                "punctuation to cut it into words. WordPiece, as BERT uses it, turns such a word into [UNK] "
                "(max_input_chars_per_word), so there is nothing to learn from. Give it text with spaces; "
                "unigram and byte-level BPE do not need them.")

    def _max_len(self) -> int:
        n = getattr(self, "_longest", None)
        if n is None or n[0] != len(self.symbols):
            n = self._longest = (len(self.symbols), max((len(s[0]) for s in self.symbols if s), default=1))
        return n[1]

    def _encode_word(self, word: str) -> tuple[tuple[int, int], ...]:
        """Greedy longest-match-first; the whole word is [UNK] when some position has no match."""
        n = len(word)
        if n > MAX_WORD_CHARS:
            return ((UNK, n),)
        ids, longest = self.ids, self._max_len()
        out, start = [], 0
        while start < n:
            for end in range(min(n, start + longest), start, -1):
                i = ids.get((word[start:end], start > 0))
                if i is not None:
                    out.append((i, end - start))
                    start = end
                    break
            else:
                return ((UNK, n),)
        return tuple(out)

    def decode(self, ids, errors: str = "replace") -> str:
        """Pieces joined: a `##` piece continues the word before it, any other starts a new word."""
        ids = list(ids)
        self.check_ids(ids)
        out: list[str] = []
        for i in ids:
            if i == UNK:
                out.append((" " if out else "") + self.unk_token)
                continue
            s, cont = self.symbols[i]
            out.append(s if cont or not out else " " + s)
        return "".join(out)


__all__ = ["MAX_WORD_CHARS", "WordPieceTokenizer"]
