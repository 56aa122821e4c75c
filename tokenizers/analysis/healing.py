"""Where a prompt ends: the last token of a text, backed off, and every token that could have stood there.

    >>> from tokenizers import get_tokenizer, token_healing
    >>> h = token_healing(get_tokenizer("cl100k_base"), "http:")
    >>> h.prefix_ids, h.last_id, h.partial
    ((1277,), 25, b':')
    >>> 1129 in h.candidates  # "://", the token the text would have used had it gone on
    True

A text that stops inside what is usually one token (`http:` before `//`, a trailing space, half a
word) leaves the model at a boundary it rarely saw in training: after `http` + `:` it has seldom met
`//` as a token of its own, because `://` is one token. Token healing (Microsoft's guidance library
does it) removes the last token and lets the model write any token whose bytes start with the removed
ones. `token_healing` computes what that needs: the ids kept, the removed bytes, and the candidates.

Bytes are the tokenizer's own spelling, `decode_single_token_bytes`: SentencePiece's `▁word` is
` word` (so the `▁` SentencePiece puts before a text is part of its first token's bytes), a
byte-fallback piece `<0xE4>` is the byte E4. Candidates are found with the one vocabulary search's
prefix query (analysis/vocab_search.py) and ranked by `commonness`.
"""

from __future__ import annotations

import heapq
import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from tokenizers.analysis.vocab_search import PrefixIndex, prefix_index
from tokenizers.core.text import clean_text
from tokenizers.core.tokenizer import Tokenizer, TokenList

TOP = 10  # candidates ranked by default

# how `common` was ordered, as the page says it
BY_MERGE = "merge order"    # earlier merge first (single bytes and characters first: every merge starts from them)
BY_SCORE = "piece score"    # higher score first (byte-fallback pieces last)
BY_ID = "id order"          # the vocabulary keeps no ranks or scores


def _base(tok: Tokenizer, token_id: int) -> bool:
    """A token of the alphabet merges start from: one byte, or one whole character."""
    b = tok.token_bytes(token_id)
    if len(b) == 1:
        return True
    try:
        return len(b.decode("utf-8")) == 1
    except UnicodeDecodeError:
        return False


def commonness(tok: Tokenizer) -> tuple[str, Callable[[int], tuple]]:
    """(how, key): a sort key over token ids that puts the tokens most frequent in the tokenizer's
    training text first, from what every vocabulary keeps offline, asked through public methods:

    - `capabilities.scores` (SentencePiece): `score_of`, higher first: a unigram model's log-probability,
      or minus the merge order in a BPE model. Byte-fallback pieces (score 0) go last: a model uses them
      only for characters it has no piece for.
    - `capabilities.merge_trees` (BPE): `merge_rank`, lower first. BPE merges the most frequent pair
      at each step, so an earlier merge was a more frequent pair. Single bytes (or characters) come
      before every merge; tokens no merge made (added tokens) after all merges.
    - otherwise: ids in order.
    Ties break by id."""
    caps = tok.capabilities
    if caps.scores:
        return BY_SCORE, lambda i: (tok.is_byte_fallback(i), -tok.score_of(i), i)
    if caps.merge_trees:
        def key(i: int) -> tuple:
            r = tok.merge_rank(i)
            if r is not None:
                return (0, r, i)
            return (0, -1, i) if _base(tok, i) else (1, 0, i)

        return BY_MERGE, key
    return BY_ID, lambda i: (0, 0, i)


RANKED_KEPT = 64  # rankings kept per tokenizer: a page redrawn on every keystroke asks for the same few again
_ranked: "weakref.WeakKeyDictionary[PrefixIndex, OrderedDict]" = weakref.WeakKeyDictionary()
_ranked_lock = threading.Lock()


def most_common(tok: Tokenizer, partial: bytes, candidates: Sequence[int], top: int) -> tuple[str, tuple[int, ...]]:
    """(how, the first `top` of `candidates` by `commonness`). The candidates of a prefix are the same until
    the vocabulary changes, so the last RANKED_KEPT answers are kept with the tokenizer's prefix index
    (which is rebuilt, and these dropped, when the vocabulary changes)."""
    how, key = commonness(tok)
    index = prefix_index(tok)
    with _ranked_lock:
        memo = _ranked.setdefault(index, OrderedDict())
        got = memo.get((partial, top))
        if got is not None:
            memo.move_to_end((partial, top))
            return how, got
    got = tuple(heapq.nsmallest(max(0, top), candidates, key=key))
    with _ranked_lock:
        memo[(partial, top)] = got
        while len(memo) > RANKED_KEPT:
            memo.popitem(last=False)
    return how, got


@dataclass(frozen=True, eq=False)
class TokenHealing:
    """The end of one text in one tokenizer. `tokens` is the whole encoding (ordinary: a special-token
    string is text), `prefix_ids` all of it but the last token, `partial` the last token's bytes (as
    `decode_single_token_bytes` spells them; for the unknown token, the input it covers),
    `candidates` the ids of every ordinary token (not special, not unknown) whose bytes start with
    `partial` (the last token among them), ascending; `common` the first `top` of them by
    `ranking` (see `commonness`). `covered` is the input the last token covers: it differs from
    `partial` where the tokenizer changes text (SentencePiece's ▁ before a text, NFKC) and is part of
    a character where the token is (bytes of an emoji)."""

    tokens: TokenList
    prefix_ids: tuple[int, ...]
    last_id: int
    partial: bytes
    covered: bytes
    char_span: tuple[int, int]     # the characters of the text the last token touches
    candidates: tuple[int, ...]
    common: tuple[int, ...]
    ranking: str
    replaced: int = 0              # lone surrogates replaced by U+FFFD before encoding

    @property
    def text(self) -> str:
        """The text encoded (lone surrogates replaced)."""
        return self.tokens.text

    @property
    def n_tokens(self) -> int:
        return len(self.tokens)

    @property
    def longer(self) -> int:
        """How many candidates are longer than the last token: tokens the text could have continued into."""
        return sum(1 for i in self.candidates if i != self.last_id) if self.last_id in self.candidates \
            else len(self.candidates)


def token_healing(tok: Tokenizer, text: str, *, top: int = TOP, tokens: TokenList | None = None) -> TokenHealing:
    """The last token of `text` backed off, and every token that could have continued the text from
    there (see the module's docstring). Special-token strings in the text are text (`<|endoftext|>` is
    ordinary characters here); lone surrogates become U+FFFD first, as in every encode.

    `tokens`: the text's tokens when the caller has them already (`tok.tokenize(text,
    disallowed_special=())`), so that a long text is encoded once. Only the last token is looked at.

    ValueError when the text gives no token (it is empty, or the tokenizer's normalizer removes all of it)."""
    clean, replaced = clean_text(text)
    if tokens is None:
        tokens = tok.tokenize(clean, disallowed_special=())
    elif tokens.text != clean or tokens.tokenizer is not tok:
        raise ValueError("token_healing: `tokens` are not this tokenizer's tokens of this text")
    if not len(tokens):
        raise ValueError(f"{tok.name}: the text gives no tokens (it is empty{'' if not clean else ', once normalized'}), "
                         "so there is no last token to back off.")
    last = tokens[-1]
    c0, c1 = last.char_span
    b0, b1 = last.byte_span
    start = tokens.cmap.byte_of(c0)
    covered = clean[c0:c1].encode("utf-8")[b0 - start:b1 - start]
    # the unknown token's bytes are its name (<unk>), not text: back off to the input it stood for
    partial = covered if last.id == tok.unk_id else tok.decode_single_token_bytes(last.id)
    candidates = tuple(prefix_index(tok).ids_with_prefix(partial))
    how, common = most_common(tok, partial, candidates, top)
    return TokenHealing(tokens, tuple(tokens.ids[:-1]), last.id, partial, covered, last.char_span, candidates, common,
                        how, replaced)


__all__ = ["BY_ID", "BY_MERGE", "BY_SCORE", "TOP", "TokenHealing", "commonness", "most_common", "token_healing"]
