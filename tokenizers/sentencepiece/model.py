"""SentencePiece models (the pretrained Mistral 7B / Llama-style BPE, and models trained in the app)."""

from __future__ import annotations

import re
from collections import Counter
from functools import cached_property
from typing import AbstractSet

from tokenizers.core.tokenizer import Capabilities, ModelFormatError, Tokenizer
from tokenizers.bpe.rule import bpe_merge
from tokenizers.core.text import clean_text

_BYTE_PIECE = re.compile(r"^<0x([0-9A-Fa-f]{2})>$")

MODEL_TYPES = {1: "unigram", 2: "bpe", 3: "word", 4: "char"}  # TrainerSpec.ModelType
PIECE_TYPES = {1: "normal", 2: "unknown", 3: "control", 4: "user_defined", 5: "unused", 6: "byte"}


class SentencePieceTokenizer(Tokenizer):
    kind = "sentencepiece"
    report = None  # how the model was trained, when tokenizers.sentencepiece.train made it

    def __init__(self, model_file: str | None = None, *, model_proto: bytes | None = None,
                 name: str = "sentencepiece", title: str | None = None):
        import sentencepiece as spm

        self.name = name
        self.title = title or name
        self.sp = spm.SentencePieceProcessor()
        try:
            if model_proto is not None:
                self.sp.LoadFromSerializedProto(bytes(model_proto))
            else:
                self.sp.Load(str(model_file))
            n = self.sp.GetPieceSize()
            self._pieces = [self.sp.IdToPiece(i) for i in range(n)]  # raises if a piece is not UTF-8
            self.model_proto()
        except Exception as e:  # whatever a damaged file makes the loader say (RuntimeError, DecodeError, ...)
            what = "These bytes are" if model_proto is not None else f"{model_file} is"
            raise ModelFormatError(f"{what} not a SentencePiece model ({type(e).__name__}: {e}). A SentencePiece "
                                   "model is the binary .model file written by spm_train or "
                                   "SentencePieceTrainer.train.") from None
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
        # a piece's length is the length of the text it covers only when the normalizer changes nothing
        # but spaces to ▁ (Llama/Mistral: identity, extra spaces kept, ▁ as a prefix)
        norm, spec = self.model_proto().normalizer_spec, self.model_proto().trainer_spec
        self._lengths_are_spans = (norm.name == "identity" and not norm.remove_extra_whitespaces
                                   and not norm.normalization_rule_tsv and not spec.treat_whitespace_as_suffix)
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
        fast = self.native_encoder()
        if fast is not None:  # the C core's twin, held equal to the package by tests/test_native_sentencepiece.py
            return fast.encode(text.encode("utf-8"))
        return list(self.sp.EncodeAsIds(text))

    @property
    def engine(self) -> str:
        """Which code encodes: "C" (the C core's twin of SentencePiece's BPE) or "sentencepiece"."""
        return "C" if self.native_encoder() is not None else "sentencepiece"

    # -- the C core's twin of SentencePiece's BPE encoder (tokenizers/bpe/native/bpe.c, tl_sp_*) ----
    def native_refusal(self) -> str | None:
        """Why the C core cannot give this model's ids exactly (it then stays with the sentencepiece
        package, on the server), or None when it can: a BPE model whose normalizer does nothing but
        escape spaces and add the dummy prefix (Llama, Mistral 7B), with no user-defined or unused pieces."""
        proto = self.model_proto()
        norm, spec = proto.normalizer_spec, proto.trainer_spec
        if self.model_type != "bpe":
            return f"{self.name} is a {self.model_type} model; the C core encodes SentencePiece BPE only"
        if norm.name != "identity" or norm.precompiled_charsmap or norm.normalization_rule_tsv:
            return f"{self.name} normalizes text ({norm.name or 'custom rules'}); the C core only escapes spaces"
        if norm.remove_extra_whitespaces:
            return f"{self.name} removes extra whitespace, which the C core does not"
        if spec.treat_whitespace_as_suffix:
            return f"{self.name} treats whitespace as a suffix, which the C core does not"
        types = self.piece_types()
        if set(types) & {"user_defined", "unused"}:
            return (f"{self.name} has user-defined or unused pieces, which SentencePiece matches or "
                    "re-splits in ways the C core does not")
        if any(len(p) == 1 for p, t in zip(self._pieces, types) if t != "normal"):
            return f"{self.name} has a one-character control, unknown or byte piece"
        return None

    def native_state(self) -> dict:
        """What the C core's SentencePiece encoder is built from (api.SentencePieceEncoder; the browser
        blob carries the same): the normal pieces as (UTF-8 bytes, id, score), the byte pieces' ids
        (<unk>'s where one is missing), <unk>'s id and the options that apply. ValueError when
        native_refusal() says the C core would not give this model's ids."""
        why = self.native_refusal()
        if why:
            raise ValueError(why)
        norm, spec = self.model_proto().normalizer_spec, self.model_proto().trainer_spec
        unk = self.sp.unk_id()
        byte_ids = [unk] * 256
        for i, b in self._byte.items():
            byte_ids[b] = i
        flags = [f for f, on in (("dummy_prefix", norm.add_dummy_prefix), ("escape_spaces", norm.escape_whitespaces),
                                 ("byte_fallback", spec.byte_fallback and bool(self._byte))) if on]
        types = self.piece_types()
        pieces = [(p.encode("utf-8"), i, self._scores[i]) for i, p in enumerate(self._pieces)
                  if types[i] == "normal"]
        return {"pieces": pieces, "byte_ids": byte_ids, "unk_id": unk, "flags": flags}

    def native_encoder(self):
        """The C core's encoder of this model (api.SentencePieceEncoder), built once; None when the C
        core is not built or native_refusal() gives a reason."""
        enc = getattr(self, "_native", False)
        if enc is False:
            from tokenizers.bpe import native

            enc = None
            if native.available() and self.native_refusal() is None:
                from tokenizers.bpe.native.api import SentencePieceEncoder

                st = self.native_state()
                enc = SentencePieceEncoder(st["pieces"], st["byte_ids"], st["unk_id"], st["flags"])
            self._native = enc
        return enc

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

    @cached_property
    def capabilities(self) -> Capabilities:
        """Read off the model: merge trees for a BPE model, byte fallback when it has byte pieces (then
        no character is unknown), scores and code points always; special tokens are never parsed."""
        has_bytes = bool(self._byte)
        return Capabilities(model_type=self.model_type, merge_trees=self.model_type == "bpe", byte_fallback=has_bytes,
                            unknown_token=self.sp.unk_id() >= 0 and not has_bytes, scores=True, code_points=True,
                            parses_specials=False)

    def is_byte_fallback(self, token_id: int) -> bool:
        return token_id in self._byte

    def is_unused(self, token_id: int) -> bool:
        """An unused piece (a reserved slot; SentencePiece never produces it)."""
        return self.piece_type(token_id) == "unused"

    def piece_of(self, token_id: int) -> str:
        return self._pieces[token_id]

    def span_lengths(self, text: str, ids):
        """Piece lengths, less the dummy-prefix ▁ (it stands for no input byte). A literal ▁ in the
        input breaks one-byte-per-space, so then SentencePiece's own offsets are used instead."""
        if "\u2581" in text or not self._lengths_are_spans:
            return None
        unk = self.sp.unk_id()
        if unk >= 0 and unk in ids:  # <unk> covers the characters it replaced, not its own spelling
            return None
        lengths = list(map(self.token_length, ids))
        if lengths and self._dummy_prefix and self._pieces[ids[0]].startswith("\u2581"):
            lengths[0] -= 1
        return lengths

    def aligned_spans(self, text: str, ids, n_bytes: int):
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
        # text the normalizer removed (extra spaces at the ends, with remove_extra_whitespaces) belongs
        # to no piece: give it to the neighbouring piece, so spans still tile the input
        if ids:
            starts[0] = 0
            for k in range(1, len(ids)):
                if starts[k] > ends[k - 1]:
                    ends[k - 1] = starts[k]
            ends[-1] = len(text.encode("utf-8"))
        return ids, starts, ends

    # -- looking inside the model ---------------------------------------------------------------
    def serialized_model(self) -> bytes:
        """The model as SentencePiece's binary .model file."""
        return self.sp.serialized_model_proto()

    def model_proto(self):
        """The model parsed as SentencePiece's protobuf message (sentencepiece_model_pb2.ModelProto)."""
        proto = getattr(self, "_proto", None)
        if proto is None:
            from sentencepiece import sentencepiece_model_pb2

            proto = self._proto = sentencepiece_model_pb2.ModelProto.FromString(self.serialized_model())
        return proto

    @property
    def model_type(self) -> str:
        """"bpe", "unigram", "char" or "word", as the model's trainer spec records it."""
        return MODEL_TYPES.get(self.model_proto().trainer_spec.model_type, "unknown")

    def trainer_spec(self) -> dict:
        """Every field of the trainer spec stored in the model, enums by name (model_type: "bpe")."""
        return _fields(self.model_proto().trainer_spec)

    def normalizer_spec(self) -> dict:
        """The normalizer spec stored in the model, without its binary precompiled_charsmap."""
        spec = _fields(self.model_proto().normalizer_spec)
        spec.pop("precompiled_charsmap", None)
        return spec

    def score_of(self, token_id: int) -> float:
        """The piece's score: a log-probability in a unigram model, minus the merge order in BPE."""
        self.check_ids([token_id])
        return self._scores[token_id]

    def piece_type(self, token_id: int) -> str:
        """"normal", "unknown", "control", "user_defined", "unused" or "byte"."""
        self.check_ids([token_id])
        return self.piece_types()[token_id]

    def piece_types(self) -> list[str]:
        """Every piece's type, by id (piece_type's table, read from the model once)."""
        types = getattr(self, "_types", None)
        if types is None:
            types = self._types = [PIECE_TYPES.get(p.type, "normal") for p in self.model_proto().pieces]
        return types

    def piece_id(self, piece: str) -> int | None:
        """The id of a piece spelled as in the vocabulary ("▁the"), or None."""
        return self._piece_ids.get(piece)

    def normalize(self, text: str) -> str:
        """The text as the model sees it: normalized, spaces as ▁, the dummy prefix added."""
        return self.sp.Normalize(clean_text(text)[0])

    def encode_pieces(self, text: str) -> list[str]:
        """The pieces of the text, spelled as in the vocabulary (byte pieces as <0xNN>)."""
        return [self._pieces[i] for i in self.encode_ordinary(text)]

    def nbest(self, text: str, n: int) -> list[tuple[list[int], float]]:
        """The n best segmentations (unigram models only) with their scores (sums of log-probabilities),
        best first, as SentencePiece's nbest_encode gives them."""
        text = clean_text(text)[0]
        if self.model_type != "unigram":
            raise ValueError(f"n-best segmentations need a unigram model; {self.name} is {self.model_type}.")
        # subtle: asked for one, SentencePiece runs plain Viterbi and reports a score of 0
        result = self.sp.NBestEncodeAsProto(text, nbest_size=max(2, int(n)))
        return [([p.id for p in best.pieces], best.score) for best in result.nbests][:max(1, int(n))]

    def sample(self, text: str, *, alpha: float, nbest_size: int = -1) -> list[int]:
        """One sampled segmentation: subword regularization for a unigram model (sampled from the
        `nbest_size` best, or the whole lattice when -1, sharpened by `alpha`), BPE-dropout for a BPE
        model (each merge skipped with probability `alpha`; nbest_size is ignored)."""
        text = clean_text(text)[0]
        if self.model_type not in ("unigram", "bpe"):
            raise ValueError(f"sampling needs a unigram or BPE model; {self.name} is {self.model_type}.")
        if self.model_type == "unigram" and nbest_size in (0, 1):
            raise ValueError("nbest_size must be -1 (the whole lattice) or more than 1.")
        return list(self.sp.Encode(text, enable_sampling=True, alpha=float(alpha),
                                   nbest_size=int(nbest_size) if self.model_type == "unigram" else -1))

    def sample_counts(self, text: str, n: int, *, alpha: float, nbest_size: int = -1) -> list[tuple[list[int], int]]:
        """`n` sampled segmentations of the text, as (ids, how many times it was drawn), most frequent first."""
        counts = Counter(tuple(self.sample(text, alpha=alpha, nbest_size=nbest_size)) for _ in range(int(n)))
        return [(list(ids), c) for ids, c in counts.most_common()]

    def piece_kind(self, token_id: int) -> str:
        """Where a piece sits in the vocabulary's layout: "control" (unk, bos, eos, pad and control
        symbols), "byte", "user-defined", "unused", "character" (a single character) or "learned"."""
        t = self.piece_type(token_id)
        if t in ("unknown", "control"):
            return "control"
        if t in ("byte", "unused"):
            return t
        if t == "user_defined":
            return "user-defined"
        return "character" if len(self._pieces[token_id]) == 1 else "learned"

    def layout(self) -> list[tuple[str, int, int]]:
        """The vocabulary in id order as runs of one kind: [(kind, first id, last id), ...]."""
        runs: list[tuple[str, int, int]] = []
        for i in range(self.vocab_size):
            kind = self.piece_kind(i)
            if runs and runs[-1][0] == kind and runs[-1][2] == i - 1:
                runs[-1] = (kind, runs[-1][1], i)
            else:
                runs.append((kind, i, i))
        return runs

    def vocab_text(self) -> str:
        """The .vocab file SentencePiece writes beside a model: one "piece<TAB>score" line per id."""
        return "".join(f"{p}\t{_score_text(s)}\n" for p, s in zip(self._pieces, self._scores))

    def merge_parents(self, token_id: int) -> tuple[int, int] | None:
        """For a BPE model: the last merge SentencePiece's own rule makes when it encodes the piece
        alone. That rule is the BPE rule (bpe.rule.bpe_merge) with the score of the joined piece as
        the priority, highest first. None for unigram, char and word models, whose pieces are not
        made by merges, and for user-defined pieces, which are added whole."""
        self.check_ids([token_id])
        if token_id in self._parents:
            return self._parents[token_id]
        parents = None
        piece = self._pieces[token_id]
        # only BPE builds pieces by merging; user-defined pieces are added whole
        if self.model_type == "bpe" and self.piece_type(token_id) == "normal" and len(piece) > 1:
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
        vocab.write_bytes(self.vocab_text().encode("utf-8"))  # byte for byte: a piece may be "\r"
        return model, vocab

    @classmethod
    def load(cls, model_file, *, name: str = "sentencepiece") -> "SentencePieceTokenizer":
        return cls(str(model_file), name=name)

    def __reduce__(self):
        """Pickled as the serialized model (and rebuilt from it)."""
        return (_from_proto, (self.sp.serialized_model_proto(), self.name, self.title, self.report))


def _from_proto(proto: bytes, name: str, title: str, report=None) -> "SentencePieceTokenizer":
    tok = SentencePieceTokenizer(model_proto=proto, name=name, title=title)
    tok.report = report
    return tok


def _fields(message) -> dict:
    """A protobuf message's fields (set or not) as a plain dict, enums by their lower-case name."""
    out = {}
    for f in message.DESCRIPTOR.fields:
        value = getattr(message, f.name)
        if f.enum_type is not None:
            value = f.enum_type.values_by_number[value].name.lower()
        elif f.is_repeated:
            value = list(value)
        out[f.name] = value
    return out


def _score_text(score: float) -> str:
    """A score as SentencePiece's .vocab file writes it (C++ stream default: 6 significant digits)."""
    return f"{score:g}"


def check_bounds(data: bytes, limits, filename: str = "the file") -> None:
    """Hold a .model file's pieces to `limits` (tokenizers.pipeline.components.Limits) before SentencePiece
    loads it: how many there are, what the trainer spec declares, and each piece's length. The bytes are
    parsed by protobuf's own reader (which refuses what it cannot parse, without aborting the process);
    a file it cannot parse is left to the loader in a child process to judge and explain. Raises
    ModelFormatError saying which bound."""
    from google.protobuf.message import DecodeError
    from sentencepiece import sentencepiece_model_pb2

    try:
        proto = sentencepiece_model_pb2.ModelProto.FromString(bytes(data))
    except (DecodeError, ValueError, RecursionError):
        return
    n = len(proto.pieces)
    if n > limits.max_vocab:
        raise ModelFormatError(f"{filename} has {n:,} pieces; at most {limits.max_vocab:,} are accepted.")
    declared = proto.trainer_spec.vocab_size
    if declared > limits.max_vocab:
        raise ModelFormatError(f"{filename} declares a vocabulary of {declared:,} pieces (trainer_spec.vocab_size); "
                               f"at most {limits.max_vocab:,} are accepted.")
    for i, p in enumerate(proto.pieces):
        size = len(p.piece.encode("utf-8", "surrogatepass"))
        if size > limits.max_token_bytes:
            raise ModelFormatError(f"{filename}: " + limits.long_token(f"piece {i:,}", size) + ".")
