"""An optional C core for the hot loops: the GPT-2/GPT-4 pre-tokenizer, chunk counting, the BPE
merge loop of training, and encoding with a trained model.

It is compiled once at set-up (`python -m tokenizers.bpe.native.build`, run by setup.sh) with the
machine's C compiler into the project cache, and loaded here with ctypes. Everything it does has a
pure-Python twin in this package (`patterns.split_text`, `bpe_fast.train_fast`, `BPETokenizer`'s
chunk cache), which runs when the library is missing (no compiler, or TOKEN_LENS_NATIVE=0), and
which the tests hold equal to it.

The library's file name carries a digest of its sources and of the Unicode tables it was built
with (taken from the installed `regex` module), so a stale build is never loaded.
"""

from __future__ import annotations

from .lib import HEADERS, HERE, MODES, SOURCES, available, build_dir, digest, disabled, library_path, load

__all__ = ["HEADERS", "HERE", "MODES", "SOURCES", "available", "build_dir", "digest", "disabled",
           "library_path", "load"]
