"""An optional C core for the hot loops: the GPT-2/GPT-4 pre-tokenizer, chunk counting, the BPE
merge loop of training, encoding with a trained model, and encoding with a SentencePiece BPE model
(Mistral 7B's), whose twin is the sentencepiece package itself.

It is compiled once at set-up (`python -m tokenizers.bpe.native.build`, run by setup.sh) with the
machine's C compiler into the project cache, and loaded here with ctypes; a server started without
set-up compiles it at first use, once per process (`lib.load`; not with TOKEN_LENS_PROVISION=0). Everything it does has a
pure-Python twin in this package (`patterns.split_text`, `fast.train_fast`, `BPETokenizer`'s
chunk cache), which runs when the library is missing (no compiler, or TOKEN_LENS_NATIVE=0), and
which the tests hold equal to it.

The library's file name carries a digest of its sources and of the Unicode tables it was built
with (taken from the installed `regex` module), so a stale build is never loaded.
"""

from __future__ import annotations

from . import lib as _lib
from .lib import HEADERS, HERE, MODES, SOURCES, available, build_dir, digest, disabled, library_path, load


def _build_at_first_use(log):
    from . import build  # not at import: `python -m tokenizers.bpe.native.build` imports this package first

    return build.build(log=log)


_lib.builder = _build_at_first_use  # what load() compiles with at first use

__all__ = ["HEADERS", "HERE", "MODES", "SOURCES", "available", "build_dir", "digest", "disabled",
           "library_path", "load"]
