"""The files a browser fetches to tokenize while typing (issue 22): the WebAssembly build of the C core,
its JavaScript host (tokenizers/bpe/native/tl_wasm.js), each vocabulary's blob (blob.serialize) and the
table of character names the spans' accessible labels use.

They are served by Streamlit's static file serving (`server.enableStaticServing`, .streamlit/config.toml):
written once per process, on first use, into <app folder>/static/tl/ (ignored by git) under a name made of
their sha256, and fetched by the page at app/static/tl/<sha256>.<ext>. The name changes whenever the bytes
do, so the browser may keep a file as long as it likes, and each reaches a visitor once (ui/web/live_spans.js
keeps what it loaded for the rest of the visit). Nothing is downloaded: the module is the one kept in the
repository beside its C (tokenizers/bpe/native/tokenlens.wasm, which needs no toolchain here), and a
module older than its C is never served (every column then stays on the server).

Only the app's own vocabularies are published (every registry tokenizer: byte-level BPE, the pipelines whose
stages the browser follows, and the SentencePiece BPE model mistral_sp), but those an operator keeps on the
server (TOKEN_LENS_SERVER_ONLY): a visitor's uploaded or trained tokenizer never becomes a public file.""" 

from __future__ import annotations

import functools
import hashlib
import json
import logging
import os
import sys
import tempfile
import unicodedata
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STATIC = ROOT / "static" / "tl"   # Streamlit serves <folder of app.py>/static at app/static
URL = "app/static/tl/"            # relative to the page, so a server.baseUrlPath is kept
log = logging.getLogger("token_lens.browser_assets")


def publish(data: bytes, suffix: str) -> str:
    """The URL of `data` under the static folder, written there (atomically) if it is not yet."""
    name = hashlib.sha256(data).hexdigest()[:24] + suffix
    path = STATIC / name
    if not path.exists():
        STATIC.mkdir(parents=True, exist_ok=True)
        ignore = STATIC.parent / ".gitignore"
        if not ignore.exists():
            ignore.write_text("# written at run time by service/browser_assets.py\n*\n", encoding="utf-8")
        fd, tmp = tempfile.mkstemp(dir=STATIC, suffix=".part")
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    return URL + name


@functools.lru_cache(maxsize=1)
def core_urls() -> tuple[str, str] | None:
    """(module URL, host script URL), or None when the module kept in the repository is not built from
    its C (a developer changed the C: on a machine with clang's wasm32 toolchain it is built again here,
    unless TOKEN_LENS_PROVISION=0)."""
    from tokenizers.bpe.native import lib

    if lib.wasm_status() == "stale" and lib.build_on_first_use():
        from tokenizers.bpe.native import build

        build.build_wasm(log=log.info)
    if lib.wasm_status() != "ok":
        return None
    return publish(lib.wasm_path().read_bytes(), ".wasm"), publish((lib.HERE / "tl_wasm.js").read_bytes(), ".js")


def kept_on_the_server() -> frozenset[str]:
    """The registry tokenizers whose columns this server draws itself, never publishing their blobs: the names in
    TOKEN_LENS_SERVER_ONLY (comma-separated), say for a class on a slow network that should not fetch DeepSeek
    V3's 2.5 MB (docs/serving.md). Empty by default: every registry tokenizer runs in the browser."""
    return frozenset(n.strip() for n in os.environ.get("TOKEN_LENS_SERVER_ONLY", "").split(",") if n.strip())


@functools.lru_cache(maxsize=64)
def vocab_url(name: str) -> str | None:
    """The URL of a registry vocabulary's blob, or None when the browser cannot encode it or draw its spans
    (a pipeline, a SentencePiece model other than draws_spans' kind, a pattern the C pre-tokenizer has no
    mode for)."""
    from tokenizers import REGISTRY, get_tokenizer

    if name not in REGISTRY or name in kept_on_the_server():
        return None
    return blob_url(get_tokenizer(name))


def blob_url(tok) -> str | None:
    """vocab_url's work for a tokenizer in hand (set-up's step builds each in turn and lets it go)."""
    from tokenizers.bpe.native import blob

    try:
        made = blob.serialize(tok)
    except ValueError:
        return None
    if not draws_spans(made.header):
        return None
    return publish(made.data, ".bin")


def draws_spans(header: dict) -> bool:
    """Whether ui/web/live_spans.js draws the spans of a blob with this header exactly as span_model does:
    byte-level BPE (no "algorithm"), or SentencePiece BPE that escapes spaces as ▁ and has a byte piece for
    every byte (so it never gives <unk>, whose span SentencePiece's offsets decide), with the byte pieces'
    spellings in the blob. Any other blob stays on the server."""
    algorithm = header.get("algorithm")
    if algorithm is None:
        return True
    if algorithm != "sentencepiece_bpe":
        return False
    from tokenizers.bpe.native.lib import SP_FLAGS

    flags = header.get("sp_flags", 0)
    need = SP_FLAGS["escape_spaces"] | SP_FLAGS["byte_fallback"]
    pieces = header.get("byte_pieces") or []
    return flags & need == need and len(pieces) == 256 and all(pieces)


def spoken_names() -> dict[str, str]:
    """Every character tokenizers.core.html.spoken says by name (except space, tab, newline and carriage
    return, which it names itself): its Unicode name in lower case, or U+XXXX for one without a name.
    Only the candidates a regex finds among all code points are asked (about 250 of 1.1 million: 40 ms
    where asking each took 260 ms, paid by a fresh server's first visitor); spoken_names_reference asks
    every one, and tests/test_browser_assets.py holds the two equal."""
    from array import array

    import regex

    every = (array("I", range(0xD800)) + array("I", range(0xE000, sys.maxunicode + 1))).tobytes()
    candidates = regex.findall(r"[\p{Cc}\p{Cf}\p{Z}\s\ufffd]", every.decode("utf-32-le" if sys.byteorder == "little"
                                                                             else "utf-32-be"))
    return _names_of(candidates)


def spoken_names_reference() -> dict[str, str]:
    """spoken_names, by asking every code point but the surrogates."""
    return _names_of(chr(cp) for cp in range(sys.maxunicode + 1) if not 0xD800 <= cp <= 0xDFFF)


def _names_of(chars) -> dict[str, str]:
    from tokenizers.core.html import _spoken_char

    out = {}
    for ch in chars:
        if ch in " \n\t\r":
            continue
        cat = unicodedata.category(ch)
        if cat in ("Cf", "Cc", "Zl", "Zp", "Zs") or ch.isspace() or ch == "\ufffd":
            name = _spoken_char(ch)
            if name is not None:
                out[ch] = name
    return out


@functools.lru_cache(maxsize=1)
def names_url() -> str:
    return publish(json.dumps(spoken_names(), ensure_ascii=False, sort_keys=True).encode("utf-8"), ".json")


def server_only_reason(name: str) -> str:
    """Why a column with no live_assets waits for the server, in a few words for its caption."""
    try:
        core = core_urls()
        if core is not None:
            vocab_url(name)
    except OSError:  # as in live_assets: the files could not be written
        return "this server cannot write the files a browser would need"
    if core is None:
        return "this server's WebAssembly build is older than its C sources"
    if name in kept_on_the_server():
        return "this server keeps it off the browser: TOKEN_LENS_SERVER_ONLY"
    return "this tokenizer does not run in the browser"


def live_assets(name: str) -> dict | None:
    """What a spans component needs to encode `name`'s columns in the browser ({"wasm", "host", "vocab",
    "names"}), or None when this column stays on the server."""
    try:
        core = core_urls()
        vocab = vocab_url(name) if core else None
        if vocab is None:
            return None
        return {"wasm": core[0], "host": core[1], "vocab": vocab, "names": names_url()}
    except OSError as e:  # the app's folder is read-only (some hosts) or full: the server draws, as before
        log.warning("browser assets unavailable (%s): the columns update from the server", e)
        return None


def main(argv: list[str] | None = None) -> int:
    """Set-up's step: publish every file the browser would fetch (the module, its host, the names table and
    the blob of every registry tokenizer whose files are in place), so that a server whose app folder is
    read-only later finds them all written and still tokenizes in the browser, and no first visitor waits
    for a blob to be made. Prints one line; a folder that cannot be written is said, and set-up goes on."""
    from tokenizers import REGISTRY
    from tokenizers.vocabularies.provision import missing

    names = argv if argv else list(REGISTRY)
    live, left = [], []
    for name in names:
        if missing(name):
            left.append(f"{name} (its files are not in place)")
            continue
        try:
            ok = (core_urls() is not None and name not in kept_on_the_server()
                  and blob_url(REGISTRY[name].build()) is not None and names_url())
        except OSError as e:
            ok, why = False, f"cannot write: {e}"
        else:
            why = server_only_reason(name)
        if ok:
            live.append(name)
        else:
            left.append(f"{name} ({why})")
    print(f"browser files: {len(live)} of {len(names)} tokenizers published in {STATIC}"
          + (f"; on the server: {', '.join(left)}" if left else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
