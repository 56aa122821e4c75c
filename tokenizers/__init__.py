"""Token Lens's tokenizer library: one interface over several engines. Never imports streamlit.

    >>> from tokenizers import get_tokenizer
    >>> get_tokenizer("gpt2").encode("hello world")
    [31373, 995]

The map (each subpackage's docstring says more):

    core/           Token, TokenList, Tokenizer (tiktoken's Encoding API + declared capabilities), errors,
                    text hygiene, ids + lengths -> tiling spans, split patterns, the built-in corpus
    bpe/            the minbpe-style byte-level model, the one BPE rule, the trainers, merges recovered
                    from ranks, .model/.tiktoken files, native/ (the C core)
    vocabularies/   tiktoken-format vocabularies of every vendor (OpenAI, Meta, Qwen, Mistral, Whisper),
                    one record each (records.py), and provisioning them at set-up
    sentencepiece/  pretrained and trained SentencePiece models, training in a child process, the lattice
    pipeline/       the stages around a model: normalizers, pre-tokenizers, added tokens
    hf/             Hugging Face tokenizer.json files, the models only they use, and PipelineTokenizer,
                    which runs those stages around any model (a byte-level BPETokenizer too)
    classic/        character-level, word-level BPE with </w>, WordPiece, the pair-merge trainer, and
                    the five algorithms side by side
    core/html.py    token spans as HTML: the app's renderer, TokenList._repr_html_ and `show` for notebooks
    analysis/       what is read off tokenizers: languages and parallel texts, corpus metrics, vocabulary
                    audit, diff and search, where a prompt ends, characters and graphemes, sample texts
    chat/           chat formats per vendor
    registry.py     the tokenizers the app offers by name, and by a model's name (`for_model`)
    jobs.py         the one runner for child processes (the labs' trainings: bpe.model.train_bpe,
                    classic.algorithms.train_algorithms)
    user_files.py   the one entry point for a tokenizer file a person uploads
    report.py       `python -m tokenizers.report`: corpus metrics over files of any size, on every core
                    or a Dask cluster (docs/report.md)

Note: this package's name shadows Hugging Face's `tokenizers` inside this repository.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import warnings
from collections.abc import Sequence

from tokenizers.analysis.healing import TokenHealing, token_healing
from tokenizers.bpe.model import BPETokenizer, TrainingError, TrainReport
from tokenizers.core.html import Comparison
from tokenizers.core.patterns import PatternError
from tokenizers.core.tokenizer import (AllowedSpecial, SpecialTokenError, Token, TokenList, Tokenizer,
                                       UnknownTokenIdError, VocabularyMissingError)
from tokenizers.analysis.vocab_diff import VocabDiff, vocab_diff
from tokenizers.registry import (REGISTRY, Entry, available_tokenizers, default_tokenizers, for_model, get_tokenizer,
                                 name_for_model)
from tokenizers.vocabularies.models import UnknownModelError



def show(text: str, tokenizers: Sequence[str | Tokenizer] = ("gpt2", "cl100k_base"), *, whitespace: bool = True,
         allowed_special: AllowedSpecial = frozenset(), disallowed_special="all") -> Comparison:
    """`text` tokenized by each of `tokenizers` (registry names or Tokenizer objects), side by side:
    in Jupyter the colored spans with their counts, in a terminal the tokens in plain text.
    `whitespace` draws space, tab and newline as · → ↵; the special-token options are encode's.

        >>> show("hello world", tokenizers=["gpt2"]).counts()
        {'gpt2': 2}
    """
    toks = [get_tokenizer(t) if isinstance(t, str) else t for t in tokenizers]
    return Comparison(text, {t.name: t.tokenize(text, allowed_special=allowed_special,
                                                disallowed_special=disallowed_special) for t in toks},
                      whitespace=whitespace)


# Module names from before the library had subpackages, for code outside this repository (nothing in
# it imports them: tests/test_architecture.py checks). Each is an alias of the module that now holds
# it: `import tokenizers.bpe_io` gives tokenizers.bpe.files itself (the same object, so a monkeypatch
# on either name is seen through both), with a DeprecationWarning naming the new module. docs/library.md
# lists them.
ALIASES = {
    "tokenizers.bpe_io": "tokenizers.bpe.files",
    "tokenizers.bpe.io": "tokenizers.bpe.files",
    "tokenizers.sentencepiece_train": "tokenizers.sentencepiece.train",
    "tokenizers.algorithms": "tokenizers.classic.algorithms",
    "tokenizers.vocab_audit": "tokenizers.analysis.vocab_audit",
    "tokenizers.languages": "tokenizers.analysis.languages",
}


def _deprecated(old: str):
    """The module an old name stands for, with a warning pointed at the caller's line (the first frame
    outside importlib and this file)."""
    new = ALIASES[old]
    frame, level = sys._getframe(1), 2
    ours = (__file__, importlib.__file__)  # `warnings` itself steps over importlib's frozen frames only
    while frame and (frame.f_code.co_filename.startswith("<frozen") or frame.f_code.co_filename in ours):
        level += frame.f_code.co_filename in ours
        frame = frame.f_back
    warnings.warn(f"{old} is now {new}: import {new} instead (the old name is an alias, kept for a while)",
                  DeprecationWarning, stacklevel=level)
    return importlib.import_module(new)


class _AliasLoader(importlib.abc.Loader):
    def __init__(self, target: str):
        self.target = target

    def create_module(self, spec):
        return _deprecated(spec.name)

    def exec_module(self, module):
        pass  # the target module ran when it was imported


class _AliasFinder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path=None, target=None):
        if fullname in ALIASES:
            return importlib.util.spec_from_loader(fullname, _AliasLoader(ALIASES[fullname]))
        return None


if not any(isinstance(f, _AliasFinder) for f in sys.meta_path):
    sys.meta_path.insert(0, _AliasFinder())


def __getattr__(name: str):
    """`tokenizers.bpe_io` and friends as attributes, and `load_user_file`, `corpus_metrics` and
    `CorpusCounts`, imported when first asked for (the upload reader pulls in every file format, the
    metrics pandas)."""
    if f"tokenizers.{name}" in ALIASES:
        return importlib.import_module(f"tokenizers.{name}")  # through the finder, which warns once
    if name == "load_user_file":
        from tokenizers.user_files import load_user_file

        return load_user_file
    if name in ("corpus_metrics", "CorpusCounts"):  # pandas, imported when first asked for
        from tokenizers.analysis import metrics

        return getattr(metrics, name)
    raise AttributeError(f"module 'tokenizers' has no attribute {name!r}")


__all__ = ["AllowedSpecial", "BPETokenizer", "CorpusCounts", "Entry", "PatternError", "REGISTRY",
           "SpecialTokenError", "Token", "TokenHealing", "TokenList", "Tokenizer", "TrainReport", "TrainingError",
           "UnknownModelError", "UnknownTokenIdError", "VocabDiff", "VocabularyMissingError", "available_tokenizers",
           "corpus_metrics", "default_tokenizers", "for_model", "get_tokenizer", "load_user_file", "name_for_model",
           "show", "token_healing", "vocab_diff"]
