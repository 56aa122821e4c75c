"""SentencePiece models (the pretrained Mistral 7B / Llama-style BPE, and models trained in the app)."""

from __future__ import annotations

import re
from typing import AbstractSet

from .base import Token, Tokenizer
from .text import ByteCharMap, clean_text

_BYTE_PIECE = re.compile(r"^<0x([0-9A-Fa-f]{2})>$")


class SentencePieceTokenizer(Tokenizer):
    kind = "sentencepiece"

    def __init__(self, model_file: str | None = None, *, model_proto: bytes | None = None,
                 name: str = "sentencepiece", title: str | None = None):
        import sentencepiece as spm

        self.name = name
        self.title = title or name
        self.sp = spm.SentencePieceProcessor()
        if model_proto is not None:
            self.sp.LoadFromSerializedProto(model_proto)
        else:
            self.sp.Load(str(model_file))
        n = self.sp.GetPieceSize()
        self._pieces = [self.sp.IdToPiece(i) for i in range(n)]
        self._scores = [self.sp.GetScore(i) for i in range(n)]
        self._byte = {}
        self._control = set()
        for i, p in enumerate(self._pieces):
            m = _BYTE_PIECE.match(p)
            if m and self.sp.IsByte(i):
                self._byte[i] = int(m.group(1), 16)
            elif self.sp.IsControl(i) or self.sp.IsUnknown(i):
                self._control.add(i)
        # SentencePiece never parses these from text; they are listed so the UI can say so
        self.special_tokens = {self._pieces[i]: i for i in sorted(self._control)}
        self._piece_ids = {p: i for i, p in enumerate(self._pieces)}
        self._parents: dict[int, tuple[int, int] | None] = {}

    @property
    def vocab_size(self) -> int:
        return len(self._pieces)

    def piece(self, token_id: int) -> str:
        self.check_ids([token_id])
        return self._pieces[token_id]

    def token_bytes(self, token_id: int) -> bytes:
        self.check_ids([token_id])
        if token_id in self._byte:
            return bytes([self._byte[token_id]])
        return self._pieces[token_id].replace("\u2581", " ").encode("utf-8")

    def decode(self, ids) -> str:
        ids = list(ids)
        self.check_ids(ids)
        return self.sp.DecodeIds(ids)  # drops the dummy-prefix space, as SentencePiece does

    def _encode(self, text: str, specials: AbstractSet[str]) -> list[int]:
        return list(self.sp.EncodeAsIds(text))

    def tokenize(self, text: str, *, allowed_special="none") -> list[Token]:
        text, _ = clean_text(text)
        self._resolve_specials(text, allowed_special)
        pieces = list(self.sp.Encode(text, return_type="proto").pieces) if text else []
        cmap = ByteCharMap.of(text)
        out: list[Token] = []
        i = 0
        while i < len(pieces):
            p = pieces[i]
            if p.id not in self._byte:
                out.append(self._token(p, p.begin, p.end, cmap))
                i += 1
                continue
            # subtle: SentencePiece gives a byte-fallback run the whole character's span on its last
            # piece and empty spans before it; give each piece its own byte instead
            j = i
            while pieces[j].begin == pieces[j].end and j + 1 < len(pieces) and pieces[j + 1].id in self._byte:
                j += 1
            start, end, n = pieces[j].begin, pieces[j].end, j - i + 1
            for k in range(n):
                if end - start == n:
                    b0, b1 = start + k, start + k + 1
                else:  # not one byte per piece: keep SentencePiece's own spans
                    b0, b1 = pieces[i + k].begin, pieces[i + k].end
                out.append(self._token(pieces[i + k], b0, b1, cmap))
            i = j + 1
        return out

    def _token(self, p, b0: int, b1: int, cmap: ByteCharMap) -> Token:
        partial = not (cmap.is_boundary(b0) and cmap.is_boundary(b1))
        return Token(p.id, self.token_bytes(p.id), (b0, b1), cmap.char_span(b0, b1),
                     special=p.id in self._control, byte_fallback=p.id in self._byte,
                     partial=partial, piece=self._pieces[p.id])

    def merge_parents(self, token_id: int) -> tuple[int, int] | None:
        """For a BPE model: the last merge SentencePiece's own rule makes when it encodes the piece
        alone (merge the adjacent pair whose joined piece has the highest score)."""
        self.check_ids([token_id])
        if token_id in self._parents:
            return self._parents[token_id]
        parents = None
        piece = self._pieces[token_id]
        if token_id not in self._byte and token_id not in self._control and len(piece) > 1:
            parts = list(piece)
            last = None
            while len(parts) > 1:
                best, at = None, -1
                for k in range(len(parts) - 1):
                    j = self._piece_ids.get(parts[k] + parts[k + 1])
                    if j is not None and (best is None or self._scores[j] > self._scores[best]):
                        best, at = j, k
                if best is None:
                    break
                last = (self._piece_ids[parts[at]], self._piece_ids[parts[at + 1]])
                parts[at:at + 2] = [parts[at] + parts[at + 1]]
            if len(parts) == 1 and last is not None:
                parents = last
        self._parents[token_id] = parents
        return parents
