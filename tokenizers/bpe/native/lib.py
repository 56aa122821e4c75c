"""Finding, loading and declaring the compiled C core (see the package docstring)."""

from __future__ import annotations

import ctypes
import hashlib
import logging
import os
import threading
from collections.abc import Callable
from ctypes import CFUNCTYPE, POINTER, c_char_p, c_int, c_int64, c_void_p
from pathlib import Path

HERE = Path(__file__).resolve().parent
SOURCES = ("pretok.c", "bpe.c")
HEADERS = ("tl_native.h",)
# the C pre-tokenizer's modes (tl_native.h TL_MODE_*); tokenizers/core/patterns.py CUTTERS names what each cuts
MODES = {"gpt2": 1, "gpt4": 2, "o200k": 3, "llama3": 4, "qwen": 5, "tekken": 6, "deepseek_v3": 7}
# the WebAssembly build (build.build_wasm): the same sources plus a file of memory helpers, and what
# it exports to JavaScript (tokenizers/bpe/native/tl_wasm.js calls these)
WASM_SOURCES = ("tl_wasm.c",)
WASM_EXPORTS = ("tl_alloc", "tl_dealloc", "tl_encoder_new", "tl_encoder_free", "tl_encode", "tl_split",
                "tl_sp_new", "tl_sp_free", "tl_sp_encode", "tl_sp_encode_part")
SP_FLAGS = {"dummy_prefix": 1, "escape_spaces": 2, "byte_fallback": 4}  # tl_native.h's TL_SP_*


def digest() -> str:
    import regex

    h = hashlib.sha256()
    for name in (*SOURCES, *HEADERS, "tables.py"):
        h.update(name.encode() + b"\0" + (HERE / name).read_bytes())
    h.update(str(getattr(regex, "__version__", "")).encode())
    return h.hexdigest()[:16]


def build_dir() -> Path:
    from tokenizers.core.paths import cache_root

    return cache_root() / "native"


def library_path() -> Path:
    """The library for the current sources, or the one named by TOKEN_LENS_NATIVE_LIB (a
    sanitizer build for the tests, say)."""
    override = os.environ.get("TOKEN_LENS_NATIVE_LIB")
    if override:
        return Path(override)
    return build_dir() / f"libtokenlens-{digest()}.so"


def wasm_digest() -> str:
    """digest() with the wasm-only sources: the module's record changes when any of its C does."""
    h = hashlib.sha256(digest().encode())
    for name in WASM_SOURCES:
        h.update(name.encode() + b"\0" + (HERE / name).read_bytes())
    return h.hexdigest()[:16]


# The WebAssembly module is kept in the repository, beside the C it is built from, so that every machine
# gets the browser build whether or not it has clang's wasm32 toolchain (a newcomer's laptop, a hosting
# platform): docs/architecture.md, "The browser build". Its record says which sources it was built from
# (wasm_digest), its sha256 and the toolchain; tests/test_wasm_blob.py fails when the C changes without the
# module being built again (python -m tokenizers.bpe.native.build --wasm), and CI builds it again from
# source with the pinned toolchain and checks the bytes are the same (--wasm --check).
WASM_MODULE = HERE / "tokenlens.wasm"
WASM_RECORD = HERE / "tokenlens.wasm.json"
WASM_TOOLCHAIN = "apt-get install clang lld wasi-libc libclang-rt-14-dev-wasm32"  # Debian 12's clang 14


def wasm_record() -> dict:
    """The module's record ({"sources", "sha256", "bytes", "toolchain"}), or {} when there is none."""
    import json

    try:
        return json.loads(WASM_RECORD.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def wasm_status() -> str:
    """"ok" (the module is built from these sources and is the file its record names), "stale" (the C
    changed since: build it again), or "missing"."""
    record = wasm_record()
    if not WASM_MODULE.exists() or not record:
        return "missing"
    if record.get("sources") != wasm_digest():
        return "stale"
    if hashlib.sha256(WASM_MODULE.read_bytes()).hexdigest() != record.get("sha256"):
        return "stale"
    return "ok"


def wasm_path() -> Path:
    """Where the WebAssembly module the browser runs is kept (check wasm_status() before using it)."""
    return WASM_MODULE


def wasm_module() -> Path | None:
    """The WebAssembly module built from these sources, or None (wasm_status() says why)."""
    return WASM_MODULE if wasm_status() == "ok" else None


def disabled() -> bool:
    return os.environ.get("TOKEN_LENS_NATIVE", "1").strip().lower() in ("0", "false", "no", "off")


def build_on_first_use() -> bool:
    """Whether load() may compile a missing library (a server started without set-up): not when a
    build is named by TOKEN_LENS_NATIVE_LIB, nor with TOKEN_LENS_PROVISION=0 (nothing made at run time)."""
    if os.environ.get("TOKEN_LENS_NATIVE_LIB"):
        return False
    return os.environ.get("TOKEN_LENS_PROVISION", "1").strip().lower() not in ("0", "false", "no", "off")


# compiles the library, given a log function (the package sets it to build.build: this module imports
# nothing of build's, which imports this one)
builder: Callable[[Callable[[str], None]], object] | None = None

_lib: ctypes.CDLL | None = None
_tried = False
_load_lock = threading.Lock()
status = "not loaded yet"  # what happened, said once in the log: "loaded …", "built …", "pure-Python: …"
log = logging.getLogger("tokenizers.bpe.native")


def load() -> ctypes.CDLL | None:
    """The compiled library, or None (not built, or disabled by TOKEN_LENS_NATIVE=0). A missing library
    is built here, once per process (other threads wait for it), when a C compiler exists and
    build_on_first_use() allows; otherwise the pure-Python paths run, which the log says once."""
    global _lib, _tried, status
    if disabled():
        return None
    if not _tried:
        with _load_lock:
            if not _tried:
                path = library_path()
                if not path.exists() and build_on_first_use() and builder is not None:
                    said: list[str] = []
                    builder(said.append)
                    if said:
                        log.info(said[-1].splitlines()[0])
                if path.exists():
                    try:
                        _lib = _declare(ctypes.CDLL(str(path)))
                        status = f"loaded {path}"
                    except OSError as e:
                        _lib, status = None, f"pure-Python paths: {path} does not load ({e})"
                else:
                    status = f"pure-Python paths: the C core is not built ({path})"
                if _lib is None:
                    log.warning("Token Lens runs on its %s", status)
                _tried = True
    return _lib


def available() -> bool:
    return load() is not None


i32p, i64p = POINTER(ctypes.c_int32), POINTER(c_int64)
PROGRESS = CFUNCTYPE(c_int, c_int64, c_int64)


def _declare(lib: ctypes.CDLL) -> ctypes.CDLL:
    """Argument and result types of every exported function (ctypes guesses int otherwise); the
    same list as tl_native.h."""
    sig = {
        "tl_split": ([c_int, c_char_p, c_int64, i64p, c_int64], c_int64),
        "tl_chunks_new": ([], c_void_p),
        "tl_chunks_free": ([c_void_p], None),
        "tl_chunks_add": ([c_void_p, c_char_p, c_int64, c_int64], c_int),
        "tl_chunks_count_text": ([c_void_p, c_int, c_char_p, c_int64], c_int64),
        "tl_chunks_distinct": ([c_void_p], c_int64),
        "tl_chunks_total": ([c_void_p], c_int64),
        "tl_chunks_tokens": ([c_void_p], c_int64),
        "tl_chunks_get": ([c_void_p, c_int64, c_char_p, i64p], c_int64),
        "tl_train": ([c_void_p, c_int64, c_void_p, c_void_p, c_void_p, c_void_p, PROGRESS, c_int64, c_int], c_int64),
        "tl_encoder_new": ([c_int, c_int, c_void_p, c_void_p, c_void_p, c_void_p, c_int64, c_char_p, c_void_p,
                            c_void_p, c_int64], c_void_p),
        "tl_encoder_free": ([c_void_p], None),
        "tl_encode": ([c_void_p, c_int, c_char_p, c_int64, c_void_p], c_int64),
        "tl_sp_new": ([c_int, ctypes.c_int32, c_void_p, c_char_p, c_void_p, c_void_p, c_void_p, c_int64], c_void_p),
        "tl_sp_free": ([c_void_p], None),
        "tl_sp_encode": ([c_void_p, c_char_p, c_int64, c_void_p], c_int64),
        "tl_sp_encode_part": ([c_void_p, c_char_p, c_int64, c_void_p, c_int], c_int64),
    }
    for name, (args, res) in sig.items():
        fn = getattr(lib, name)
        fn.argtypes, fn.restype = args, res
    return lib
