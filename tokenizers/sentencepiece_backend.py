"""SentencePiece models (the pretrained Mistral 7B / Llama-style BPE, and models trained in the app)."""

from __future__ import annotations

import re
from typing import AbstractSet

from .base import Tokenizer
from .bpe_rule import bpe_merge

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
        first = self.sp.EncodeAsIds("a")
        self._dummy_prefix = bool(first) and self._pieces[first[0]].startswith("\u2581")

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

    def parseable_specials(self):
        """None: SentencePiece never parses its control pieces (<s>, </s>, <unk>) from text, so a
        "<s>" in the text is always text and there is nothing for disallowed_special to guard."""
        return frozenset()

    @property
    def eot_token(self) -> int:
        """The end-of-sequence id (</s>), where the model has one."""
        i = self.sp.eos_id()
        if i < 0:
            raise AttributeError(f"{self.name} has no end-of-sequence piece")
        return i

    @property
    def unk_id(self) -> int:
        return self.sp.unk_id()

    def is_byte_fallback(self, token_id: int) -> bool:
        return token_id in self._byte

    def piece_of(self, token_id: int) -> str:
        return self._pieces[token_id]

    def _span_lengths(self, text: str, ids):
        """Piece lengths, less the dummy-prefix ▁ (it stands for no input byte). A literal ▁ in the
        input breaks one-byte-per-space, so then SentencePiece's own offsets are used instead."""
        if "\u2581" in text:
            return None
        lengths = list(map(self.token_length, ids))
        if lengths and self._dummy_prefix and self._pieces[ids[0]].startswith("\u2581"):
            lengths[0] -= 1
        return lengths

    def _untiled_spans(self, text: str, ids, n_bytes: int):
        return self._exact_spans(text)

    def _exact_spans(self, text: str) -> tuple[list[int], list[int], list[int]]:
        """SentencePiece's own byte offsets, with one fix-up. subtle: it gives a byte-fallback run
        the whole character's span on its last piece and empty spans before it; give each piece
        its own byte instead, so spans tile the input."""
        pieces = list(self.sp.Encode(text, return_type="proto").pieces) if text else []
        ids, starts, ends = [], [], []
        i = 0
        while i < len(pieces):
            p = pieces[i]
            if p.id not in self._byte:
                ids.append(p.id), starts.append(p.begin), ends.append(p.end)
                i += 1
                continue
            j = i
            while pieces[j].begin == pieces[j].end and j + 1 < len(pieces) and pieces[j + 1].id in self._byte:
                j += 1
            start, end, n = pieces[j].begin, pieces[j].end, j - i + 1
            for k in range(n):
                q = pieces[i + k]
                ids.append(q.id)
                if end - start == n:
                    starts.append(start + k), ends.append(start + k + 1)
                else:  # not one byte per piece: keep SentencePiece's own spans
                    starts.append(q.begin), ends.append(q.end)
            i = j + 1
        return ids, starts, ends

    def merge_parents(self, token_id: int) -> tuple[int, int] | None:
        """For a BPE model: the last merge SentencePiece's own rule makes when it encodes the piece
        alone. That rule is the BPE rule (bpe_rule.bpe_merge) with the score of the joined piece as
        the priority, highest first."""
        self.check_ids([token_id])
        if token_id in self._parents:
            return self._parents[token_id]
        parents = None
        piece = self._pieces[token_id]
        if token_id not in self._byte and token_id not in self._control and len(piece) > 1:
            ids, scores = self._piece_ids, self._scores

            def rank(a: str, b: str):
                j = ids.get(a + b)
                return None if j is None else -scores[j]

            two: list[str] = []

            def remember(parts: list, at: int, r) -> None:
                if len(parts) == 2:
                    two[:] = parts

            out = bpe_merge(list(piece), rank, str.__add__, visualise=remember)
            if len(out) == 1 and two and two[0] in ids and two[1] in ids:
                parents = (ids[two[0]], ids[two[1]])
        self._parents[token_id] = parents
        return parents

    def save(self, prefix) -> tuple:
        """Write prefix.model (the serialized model) and prefix.vocab (piece and score per line,
        as spm_train writes it); the two paths."""
        from pathlib import Path

        prefix = Path(prefix)
        model, vocab = prefix.with_suffix(".model"), prefix.with_suffix(".vocab")
        model.write_bytes(self.sp.serialized_model_proto())
        vocab.write_text("".join(f"{p}\t{s:g}\n" for p, s in zip(self._pieces, self._scores)), encoding="utf-8")
        return model, vocab

    @classmethod
    def load(cls, model_file, *, name: str = "sentencepiece") -> "SentencePieceTokenizer":
        return cls(str(model_file), name=name)

    def __reduce__(self):
        """Pickled as the serialized model (and rebuilt from it)."""
        return (_from_proto, (self.sp.serialized_model_proto(), self.name, self.title))


def _from_proto(proto: bytes, name: str, title: str) -> "SentencePieceTokenizer":
    return SentencePieceTokenizer(model_proto=proto, name=name, title=title)
