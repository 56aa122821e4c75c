"""The segmentation lattice of a unigram SentencePiece model, and its Viterbi path, in plain Python.

A unigram model scores a segmentation by the sum of its pieces' log-probabilities and encodes a
text with the best one. The lattice holds every vocabulary piece that matches at every position of
the normalized text (where no single character matches, an <unk> node with the lowest score less
10); Viterbi walks it left to right keeping, for each node, the best path that ends just before it.
This is the educational twin of SentencePiece's own encoder, written from its rules: the same
candidates, scores in float32 as in C++, and ties going to the node found first. Tests hold its path
equal to `encode`.
"""

from __future__ import annotations

import struct
import weakref
from dataclasses import dataclass

from tokenizers.sentencepiece.model import SentencePieceTokenizer

UNK_PENALTY = 10.0           # SentencePiece's kUnkPenalty
_FLT_MIN = 1.1754943508222875e-38  # where SentencePiece starts its max score (C's FLT_MIN)


def f32(x: float) -> float:
    """x rounded to float32, as SentencePiece stores and adds scores."""
    return struct.unpack("f", struct.pack("f", x))[0]


@dataclass(frozen=True)
class LatticeNode:
    start: int          # character offsets in the normalized text
    end: int
    id: int
    piece: str
    score: float        # the piece's log-probability (for <unk>: the lowest score less 10)
    unknown: bool = False


@dataclass(frozen=True)
class Lattice:
    normalized: str                   # the text as the model sees it (▁ for spaces, dummy prefix)
    nodes: tuple[LatticeNode, ...]    # by start, then by length
    best: tuple[LatticeNode, ...]     # the Viterbi path
    best_score: float

    def at(self, position: int) -> list[LatticeNode]:
        """The nodes that start at a character position."""
        return [n for n in self.nodes if n.start == position]

    def best_ids(self) -> list[int]:
        """The path's ids with runs of <unk> joined into one, as SentencePiece's encode gives them
        (for a model without byte fallback)."""
        out: list[int] = []
        for k, n in enumerate(self.best):
            if not (n.unknown and k and self.best[k - 1].unknown):
                out.append(n.id)
        return out


_index: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _model_index(tok: SentencePieceTokenizer):
    """(piece -> id for the pieces a text can match, the longest piece's length, <unk>'s score, the
    score of a user-defined piece per character), read once per model."""
    found = _index.get(tok)
    if found is None:
        types = tok.piece_types()
        normal = [tok.score_of(i) for i, t in enumerate(types) if t == "normal"]
        by_piece = {tok.piece_of(i): i for i, t in enumerate(types) if t in ("normal", "user_defined")}
        user = {i for i, t in enumerate(types) if t == "user_defined"}
        found = _index[tok] = (by_piece, user, max((len(p) for p in by_piece), default=1),
                               f32(min(normal, default=0.0) - UNK_PENALTY), max([_FLT_MIN, *normal]))
    return found


def build_lattice(tok: SentencePieceTokenizer, text: str) -> Lattice:
    """Every piece of `tok` (a unigram model) that matches anywhere in `text`, and the best path."""
    if tok.model_type != "unigram":
        raise ValueError(f"the lattice belongs to unigram models; {tok.name} is {tok.model_type}.")
    normalized = tok.normalize(text)
    by_piece, user, longest, unk_score, max_score = _model_index(tok)

    nodes: list[LatticeNode] = []
    for start in range(len(normalized)):
        has_single = False
        for length in range(1, min(longest, len(normalized) - start) + 1):
            piece = normalized[start:start + length]
            i = by_piece.get(piece)
            if i is None:
                continue
            # a user-defined piece scores above any path through ordinary pieces, so it always wins
            score = f32(length * max_score - 0.1) if i in user else tok.score_of(i)
            nodes.append(LatticeNode(start, start + length, i, piece, score))
            has_single = has_single or length == 1
        if not has_single:
            nodes.append(LatticeNode(start, start + 1, tok.unk_id, normalized[start], unk_score, unknown=True))

    # Viterbi: best[k] is the best (score, previous node) of a path that ends with node k
    ending: dict[int, list[int]] = {}
    for k, n in enumerate(nodes):
        ending.setdefault(n.end, []).append(k)
    back: list[tuple[float, int]] = []
    for n in nodes:
        if n.start == 0:
            back.append((n.score, -1))
            continue
        best_score, best_prev = None, -1
        for k in ending.get(n.start, []):
            s = f32(back[k][0] + n.score)
            if best_score is None or s > best_score:  # ties keep the first, as SentencePiece does
                best_score, best_prev = s, k
        back.append((best_score if best_score is not None else float("-inf"), best_prev))
    path: list[LatticeNode] = []
    if normalized:
        last = max(ending[len(normalized)], key=lambda k: (back[k][0], -k))
        score = back[last][0]
        while last >= 0:
            path.append(nodes[last])
            last = back[last][1]
        path.reverse()
    else:
        score = 0.0
    return Lattice(normalized, tuple(nodes), tuple(path), score)
