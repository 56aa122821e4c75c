"""Spans: which bytes of the input each token covers, so that a text's tokens tile it.

`tile(lengths)` is the one function that turns token lengths into spans: every backend's spans
come out of it. A byte-level BPE's lengths are its tokens' lengths; the word-level models' include
the whitespace they drop (tokenizers/classic/word_level.py); a chat's are its special tokens' and
its chunks' (tokenizers/chat/formats.py); SpanBuilder's below are read off the alignment of
normalized text. (SentencePiece's exact spans are SentencePiece's own offsets, fixed up in
tokenizers/sentencepiece/model.py.)

SpanBuilder: spans for tokenizers whose model does not see the text as typed: it normalized it
(NFC, NFKC, lowercase, BERT's clean-up), replaced characters (Metaspace's ▁ for a space), inserted
some (a prefix space or ▁) or dropped some (whitespace between WordPiece words).

The rule, so that spans still tile the input's UTF-8 bytes:
- a token's span ends where the input characters its text came from end; it starts where the token
  before it ended. So whitespace a pre-tokenizer dropped belongs to the token after it (to the first
  token at the very start too), and the last token's span runs to the end of the input;
- a token made only of inserted text (a prefix ▁), or the second of two tokens cut from one input
  character that normalization expanded (NFKC's "ﬁ" -> "fi" -> "f" "i"), has an empty span;
- where the model's text equals the input character it came from, a token may end inside the
  character (a byte-level token holding part of an emoji), and its span ends at that byte.

`Token.bytes` are always the vocabulary's bytes; for these tokenizers they can differ from the
input bytes of the span (that is the normalization, shown as it is).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable
from itertools import accumulate

from tokenizers.core.text import ByteCharMap


def tile(lengths: Iterable[int]) -> tuple[list[int], list[int]]:
    """Byte spans of tokens laid end to end from byte 0, the k-th covering lengths[k] bytes:
    ([starts], [ends])."""
    ends = list(accumulate(lengths))
    return [0, *ends[:-1]] if ends else [], ends


class SpanBuilder:
    def __init__(self, text: str):
        self.text = text
        self.cmap = ByteCharMap.of(text)
        self.ids: list[int] = []
        self.lengths: list[int] = []
        self.end = 0  # where the last token pushed ends (0 before any)

    def _push(self, token_id: int, end_byte: int) -> None:
        end = max(self.end, end_byte)
        self.ids.append(token_id)
        self.lengths.append(end - self.end)
        self.end = end

    def add_matched(self, token_id: int, end_char: int) -> None:
        """A token matched in the input itself (a special or added token) ending at `end_char`."""
        self._push(token_id, self.cmap.byte_of(end_char))

    def add_piece(self, piece, ids, lengths) -> None:
        """The tokens of one chunk: `lengths` are how many bytes of the chunk's UTF-8 text each
        covers (they add up to the chunk's length)."""
        chars = piece.text
        if not chars:
            for i in ids:
                self._push(i, self.end)
            return
        sizes = [len(c.encode("utf-8")) for c in chars]
        starts = [0, *accumulate(sizes)]  # byte offset of each character in the chunk, and the end
        offs = piece.offs
        pos = 0
        for token_id, n in zip(ids, lengths):
            pos += n
            if pos <= 0:
                self._push(token_id, self.end if self.ids else self.cmap.byte_of(offs[0][0]))
                continue
            k = bisect_right(starts, pos - 1) - 1  # the character holding the token's last byte
            k = min(k, len(chars) - 1)
            a, b = offs[k]
            within = pos - starts[k]
            if within >= sizes[k]:
                self._push(token_id, self.cmap.byte_of(b))
            elif b - a == 1 and self.text[a] == chars[k]:  # the same character: cut inside it, byte-exact
                self._push(token_id, self.cmap.byte_of(a) + within)
            else:
                self._push(token_id, self.cmap.byte_of(b))

    def result(self) -> tuple[list[int], list[int], list[int]]:
        """(ids, starts, ends): the last token runs to the end of the input."""
        lengths = list(self.lengths)
        if lengths:
            lengths[-1] += self.cmap.n_bytes - self.end
        return (self.ids, *tile(lengths))
