"""How a tokenizer cuts the whole numbers 0-9999, and its all-digit tokens: the Quirks page's Numbers
figures, for one tokenizer (`number_figures`, the reference, from the loaded vocabulary) or for a
registry vocabulary from a small file on disk (`registry_number_figures`).

    >>> f = number_figures(get_tokenizer("cl100k_base"))
    >>> f.counts[:3], f.counts[1275], f.pieces(1275), f.digit_tokens, f.longest_digit_token
    ([1, 1, 1], 2, [b'127', b'5'], 1110, 3)

Why the file: the figures cover every vocabulary, and loading all twelve takes seconds and about 500 MB
that the server then keeps (issue 20: the tab's first view on a fresh server was 2.1x its warm one). The
file is written the first time the figures are computed (or by `python -m tokenizers.analysis.numbers`
at set-up), under cache_root()/numbers/, named by `figures_key`: a digest of what the figures depend on
(the vocabulary's files by their pinned sha256, the library's own code, the Python and packages that
encode), so a changed vocabulary or encoder is never answered from an old file. A file that is missing,
unreadable or not in this shape is computed again from the vocabulary; tests hold the file's figures
equal to the reference.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from tokenizers.analysis.vocab_audit import digit_tokens, number_tokens
from tokenizers.core.paths import cache_root
from tokenizers.core.tokenizer import Tokenizer

STOP = 10_000   # the numbers 0 .. STOP - 1
FORMAT = 1      # of the file; a new shape is a new FORMAT, so old files are never misread


@dataclass(frozen=True)
class NumberFigures:
    """`ids[n]`: the ids of str(n) (encode_ordinary) for n in range(STOP); `tokens`: each id among
    them -> (its bytes, its piece or ""); the count of all-digit tokens (vocab_audit.digit_tokens) and
    the length in bytes of the longest (0 without any)."""

    ids: tuple[tuple[int, ...], ...]
    tokens: dict[int, tuple[bytes, str]]
    digit_tokens: int
    longest_digit_token: int

    @property
    def counts(self) -> list[int]:
        """Tokens per number."""
        return [len(x) for x in self.ids]

    def pieces(self, n: int) -> list[bytes]:
        """The bytes of each token of str(n)."""
        return [self.tokens[i][0] for i in self.ids[n]]

    def to_json(self) -> dict:
        return {"format": FORMAT, "stop": len(self.ids), "ids": [list(x) for x in self.ids],
                "tokens": [[i, b.hex(), p] for i, (b, p) in sorted(self.tokens.items())],
                "digit_tokens": self.digit_tokens, "longest_digit_token": self.longest_digit_token}

    @classmethod
    def from_json(cls, data: dict) -> NumberFigures:
        """The figures of `to_json`; ValueError for anything else (another FORMAT, a cut file)."""
        try:
            if data["format"] != FORMAT or data["stop"] != STOP or len(data["ids"]) != STOP:
                raise ValueError("not this format")
            tokens = {int(i): (bytes.fromhex(h), str(p)) for i, h, p in data["tokens"]}
            ids = tuple(tuple(int(i) for i in x) for x in data["ids"])
            if any(i not in tokens for x in ids for i in x):
                raise ValueError("an id without its token")
            return cls(ids, tokens, int(data["digit_tokens"]), int(data["longest_digit_token"]))
        except (KeyError, TypeError) as e:
            raise ValueError(f"not number figures: {e}") from None


def number_figures(tok: Tokenizer) -> NumberFigures:
    """The reference: the figures computed from the tokenizer itself."""
    ids = tuple(tuple(x) for x in number_tokens(tok, STOP))
    used = sorted({i for x in ids for i in x})
    digits = digit_tokens(tok)
    return NumberFigures(ids, {i: (tok.token_bytes(i), tok.piece_of(i) or "") for i in used}, len(digits),
                         max((len(tok.token_bytes(i)) for i in digits), default=0))


@functools.lru_cache(maxsize=1)
def code_digest() -> str:
    """A digest of what encodes, besides the vocabulary's files: this library's Python and C sources,
    the Python that runs it (Custom BPE trains on its standard library's docstrings) and the packages
    the encoders use."""
    h = hashlib.sha256()
    root = Path(__file__).resolve().parents[1]
    for path in sorted(p for p in root.rglob("*") if p.suffix in (".py", ".c", ".h") and p.is_file()):
        h.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes() + b"\0")
    h.update(sys.version.encode())
    for package in ("regex", "tiktoken"):
        try:
            h.update(f"{package}=={metadata.version(package)}".encode())
        except metadata.PackageNotFoundError:
            h.update(f"{package} absent".encode())
    return h.hexdigest()


def figures_key(name: str) -> str:
    """What registry vocabulary `name`'s figures depend on, as one digest: its name, its files' pinned
    sha256 (provision.needed) and code_digest()."""
    from tokenizers.vocabularies.provision import needed

    h = hashlib.sha256(f"{FORMAT}\0{name}\0{code_digest()}".encode())
    for n in needed(name):
        h.update(f"\0{n.label}\0{n.sha256}".encode())
    return h.hexdigest()[:24]


def figures_dir() -> Path:
    return cache_root() / "numbers"


def figures_path(name: str) -> Path:
    return figures_dir() / f"{name}-{figures_key(name)}.json"


_figures: dict[str, NumberFigures] = {}
_lock = threading.Lock()


def registry_number_figures(name: str, load: Callable[[], Tokenizer] | None = None) -> NumberFigures:
    """The figures of registry vocabulary `name`, once per process: read from its file, or computed
    from the vocabulary (`load()`, by default the registry's get_tokenizer) and the file written for
    the next server. A file that cannot be written (a read-only cache) only costs the next server the
    computation."""
    with _lock:
        found = _figures.get(name)
    if found is not None:
        return found
    path = figures_path(name)
    try:
        found = NumberFigures.from_json(json.loads(path.read_bytes()))
    except (OSError, ValueError):  # missing, unreadable, not JSON (a ValueError too) or not this shape
        if load is None:
            from tokenizers.registry import get_tokenizer

            def load() -> Tokenizer:
                return get_tokenizer(name)
        found = number_figures(load())
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_name(f"{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
            tmp.write_text(json.dumps(found.to_json(), separators=(",", ":")), encoding="utf-8")
            tmp.replace(path)
            for old in path.parent.glob(f"{name}-*.json"):  # older keys' files: one file per vocabulary
                if old != path:
                    old.unlink(missing_ok=True)
        except OSError:
            pass
    with _lock:
        return _figures.setdefault(name, found)


def main(argv: list[str] | None = None) -> int:
    """Write the figures file of every registry vocabulary whose files are in place (set-up's step),
    each vocabulary built, used and let go in turn (never all in memory at once)."""
    from tokenizers.registry import REGISTRY
    from tokenizers.vocabularies.provision import missing

    names = argv if argv else list(REGISTRY)
    for name in names:
        if missing(name):
            print(f"numbers: {name} skipped (its files are not in place)")
            continue
        path = figures_path(name)
        if path.exists():
            print(f"numbers: {name} up to date ({path.name})")
            continue
        registry_number_figures(name, REGISTRY[name].build)
        print(f"numbers: {name} written ({path})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
