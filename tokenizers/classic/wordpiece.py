"""WordPiece as BERT trains and encodes it (Schuster & Nakajima 2012; Devlin et al. 2019; the
training score as Hugging Face's course states it).

- Words: the text is cut at whitespace (discarded), and every punctuation character and every CJK
  ideograph is a word of its own, as BERT's BasicTokenizer does: the one BERT splitter,
  `bert_word_spans` in tokenizers/pipeline/pre_tokenizers.py, cutting at str.isspace's whitespace.
  Unlike bert-base-uncased there is no lowercasing or accent stripping (bert-base-cased keeps case
  too), and control characters are kept as ordinary characters.
- Symbols: a word's first character as itself, every later character with the continuation marker
  `##` ("hug" -> h ##u ##g). Merging (h, ##u) gives hu; (##u, ##g) gives ##ug.
- Training merges the pair with the highest count(pair) / (count(left) * count(right)): a pair whose
  parts seldom occur apart beats a pair of two common symbols that are merely often neighbours
  (ties: tokenizers/classic/pair_merges.py). The vocabulary is the alphabet plus every merged token.
- Encoding is greedy longest-match-first, word by word: take the longest vocabulary entry that
  starts the word, then the longest `##` entry that continues it, and so on. If some position has no
  match, the whole word becomes [UNK] (BERT's rule), as does a word over 100 characters
  (`max_input_chars_per_word`). Merges are not replayed when encoding: the vocabulary is all it uses.
  The rule is `longest_match`, which tokenizer.json's WordPiece uses too.

Normalization: decode joins pieces inside a word and words with single spaces, so punctuation comes
back spaced ("Hello, world!" -> "Hello , world !"): decode(encode(text)) == normalized(text) when
every word is known. Spans: see tokenizers/classic/word_level.py; `##` covers no input bytes, [UNK] covers
its whole word.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable

from tokenizers.classic.word_level import UNK, Symbol, WordLevelTokenizer
from tokenizers.core.tokenizer import Capabilities
from tokenizers.pipeline.pre_tokenizers import bert_word_spans

MAX_WORD_CHARS = 100  # BERT's max_input_chars_per_word: longer words are [UNK]
# str.isspace's whitespace, as classic BPE cuts words (the Unicode White_Space property, which Hugging
# Face's BertPreTokenizer cuts at, leaves out U+001C..U+001F)
_SPACES = frozenset(c for c in map(chr, range(0x3001)) if c.isspace())


def longest_match(word: str, lookup: Callable[[str, bool], int | None], longest: int,
                  max_chars: int = MAX_WORD_CHARS) -> list[tuple[int, int]] | None:
    """WordPiece's encoding rule, greedy longest-match-first: the longest vocabulary entry that
    starts the word, then the longest continuation entry that goes on from where it ends, and so on.

    `lookup(piece, continues)` is the id of `piece` (as a continuation, `##piece`, when `continues`)
    or None; `longest` bounds the pieces tried, in characters. Returns [(id, characters it covers)],
    or None when the word is unknown: longer than `max_chars` characters, or with a position where no
    entry matches (BERT then gives the whole word its unknown token). The one rule behind the trained
    WordPiece here (symbols keyed by (text, continues)) and tokenizer.json's WordPiece
    (tokenizers/hf/models.py: strings with a `continuing_subword_prefix`, lengths in bytes)."""
    n = len(word)
    if n > max_chars:
        return None
    out, start = [], 0
    while start < n:
        for end in range(min(n, start + longest), start, -1):
            i = lookup(word[start:end], start > 0)
            if i is not None:
                out.append((i, end - start))
                start = end
                break
        else:
            return None
    return out


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
        return bert_word_spans(text, chinese_chars=True, whitespace=_SPACES)

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
        ids = self.ids
        got = longest_match(word, lambda s, continues: ids.get((s, continues)), self._max_len())
        return ((UNK, len(word)),) if got is None else tuple(got)

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


__all__ = ["MAX_WORD_CHARS", "WordPieceTokenizer", "longest_match"]
