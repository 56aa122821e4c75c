"""An optional C core for the hot loops: the GPT-2/GPT-4 pre-tokenizer, chunk counting, the BPE
merge loop of training, and encoding with a trained model.

It is compiled once at set-up (`python -m tokenizers.native.build`, run by setup.sh) with the
machine's C compiler into the project cache, and loaded here with ctypes. Everything it does has a
pure-Python twin in this package (`patterns.split_text`, `bpe_fast.train_fast`, `BPETokenizer`'s
chunk cache), which runs when the library is missing (no compiler, or TOKEN_LENS_NATIVE=0), and
which the tests hold equal to it.

The library's file name carries a digest of its sources and of the Unicode tables it was built
with (taken from the installed `regex` module), so a stale build is never loaded.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
from pathlib import Path

HERE = Path(__file__).resolve().parent
SOURCES = ("pretok.c", "bpe.c")
HEADERS = ("tl_native.h",)
MODES = {"gpt2": 1, "gpt4": 2}  # pre-tokenizer modes known to the C code


def _digest() -> str:
    import regex

    h = hashlib.sha256()
    for name in (*SOURCES, *HEADERS, "tables.py"):
        h.update(name.encode() + b"\0" + (HERE / name).read_bytes())
    h.update(str(getattr(regex, "__version__", "")).encode())
    return h.hexdigest()[:16]


def build_dir() -> Path:
    from ..provision import cache_root

    return cache_root() / "native"


def library_path() -> Path:
    return build_dir() / f"libtokenlens-{_digest()}.so"


def disabled() -> bool:
    return os.environ.get("TOKEN_LENS_NATIVE", "1").strip().lower() in ("0", "false", "no", "off")


_lib: ctypes.CDLL | None = None
_tried = False


def load() -> ctypes.CDLL | None:
    """The compiled library, or None (not built, or disabled by TOKEN_LENS_NATIVE=0)."""
    global _lib, _tried
    if disabled():
        return None
    if not _tried:
        _tried = True
        path = library_path()
        if path.exists():
            try:
                _lib = _declare(ctypes.CDLL(str(path)))
            except OSError:
                _lib = None
    return _lib


def available() -> bool:
    return load() is not None


def _declare(lib: ctypes.CDLL) -> ctypes.CDLL:
    """Argument and result types of every exported function (ctypes guesses int otherwise)."""
    from . import api

    api.declare(lib)
    return lib
