"""Benchmark corpora, built at run time from what is already on the machine (no download).

- prose:  English prose, ~4.5 MB. In this order, until the size is reached: docstrings of the Python
          standard library (read with `ast`, nothing is imported), the Python reference topics
          (pydoc_data), GNU info manuals (/usr/share/info), then comments of the standard library
          (and, only if those run out, standard-library source).
- code:   Python standard-library source (.py files, test suites excluded), ~4 MB.
- sample: the first 185 KB of the prose corpus (so: Python docstrings only).
- mem10:  the prose recipe taken to 10 MB (the peak-memory measurement; its last ~1.4 MB is
          standard-library source, as the prose sources run out at ~8.6 MB).

Everything is read in sorted path order, invalid UTF-8 files are skipped, duplicate files are
skipped, and the text is cut at a line end, so the same machine always gives the same bytes. The
sha256 of each corpus is printed with the results so that runs on different machines can be told
apart. Only the standard library is used here (no import of the project or of the peers).
"""

from __future__ import annotations

import ast
import gzip
import hashlib
import io
import os
import sysconfig
import tokenize
from collections.abc import Iterator
from pathlib import Path

MB = 1_000_000
SIZES = {"prose": 4_500_000, "code": 4_000_000, "sample": 185_000, "mem10": 10_000_000}
TEST_DIRS = {"test", "tests", "idle_test"}


def stdlib_dir() -> Path:
    return Path(sysconfig.get_paths()["stdlib"])


def stdlib_sources() -> list[Path]:
    """Standard-library .py files outside test suites and site-packages, sorted by relative path."""
    root = stdlib_dir()
    out = []
    for p in root.rglob("*.py"):
        rel = p.relative_to(root).parts
        if "site-packages" in rel or "dist-packages" in rel or TEST_DIRS & set(rel):
            continue
        out.append(p)
    return sorted(out, key=lambda p: p.relative_to(root).as_posix())


def _utf8(data: bytes) -> str | None:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _docstrings() -> Iterator[str]:
    for p in stdlib_sources():
        try:
            tree = ast.parse(p.read_bytes())
        except (SyntaxError, ValueError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                d = ast.get_docstring(node)
                if d and len(d) >= 40:
                    yield d


def _topics() -> Iterator[str]:
    p = stdlib_dir() / "pydoc_data" / "topics.py"
    if not p.exists():
        return
    try:
        tree = ast.parse(p.read_bytes())
        topics = next(ast.literal_eval(n.value) for n in tree.body
                      if isinstance(n, ast.Assign) and getattr(n.targets[0], "id", "") == "topics")
    except Exception:
        return
    for k in sorted(topics):
        yield topics[k]


def _read_maybe_gz(p: Path) -> str | None:
    try:
        data = p.read_bytes()
        if p.suffix == ".gz":
            data = gzip.decompress(data)
    except (OSError, EOFError, gzip.BadGzipFile):
        return None
    return _utf8(data)


def _info_manuals() -> Iterator[str]:
    root = Path("/usr/share/info")
    if not root.is_dir():
        return
    for p in sorted(root.iterdir()):
        if p.name.endswith((".info.gz", ".info")) or ".info-" in p.name:
            t = _read_maybe_gz(p)
            if t:
                yield t.replace("\x1f", "").replace("\x7f", "")


def _doc_files() -> Iterator[str]:
    root = Path("/usr/share/doc")
    if not root.is_dir():
        return
    files = []
    for p in root.rglob("*"):
        name = p.name.lower()
        base = name[:-3] if name.endswith(".gz") else name
        if p.is_file() and not p.is_symlink() and (
                base.endswith((".txt", ".md", ".rst")) or base.startswith(("readme", "news"))):
            files.append(p)
    for p in sorted(files, key=lambda p: p.as_posix()):
        t = _read_maybe_gz(p)
        if t:
            yield t


def _comments() -> Iterator[str]:
    for p in stdlib_sources():
        lines = []
        try:
            for t in tokenize.tokenize(io.BytesIO(p.read_bytes()).readline):
                if t.type == tokenize.COMMENT and len(t.string) > 3:
                    lines.append(t.string.lstrip("#").strip())
        except (tokenize.TokenError, SyntaxError, UnicodeDecodeError):
            continue
        if lines:
            yield "\n".join(lines)


_memo: dict = {}


def _cached(gen):
    """A source read once per process, then replayed (sample, prose and mem10 share a prefix)."""
    def replay() -> Iterator[str]:
        if gen not in _memo:
            _memo[gen] = list(gen())
        yield from _memo[gen]
    return replay


PROSE_SOURCES = [("python docstrings", _cached(_docstrings)), ("python reference topics", _cached(_topics)),
                 ("/usr/share/info manuals", _cached(_info_manuals)), ("python comments", _comments)]
# /usr/share/doc is not used by default: it changes whenever a Debian package is installed (its
# text files, READMEs and NEWS are kept as an opt-in source, TOKEN_LENS_BENCH_DOCS=1).
if os.environ.get("TOKEN_LENS_BENCH_DOCS") == "1":
    PROSE_SOURCES.insert(3, ("/usr/share/doc text", _doc_files))


def _fill(target: int, sources) -> tuple[str, dict[str, int]]:
    """Concatenate documents (blank line between) from the sources in order, skipping duplicates,
    until `target` UTF-8 bytes; cut at a line end. Returns (text, bytes taken per source)."""
    parts, seen, used, total = [], set(), {}, 0
    for label, gen in sources:
        for doc in gen():
            doc = doc.strip("\n") + "\n\n"
            h = hashlib.sha1(doc.encode("utf-8", "surrogatepass")).digest()
            if h in seen or "\ufffd" in doc:
                continue
            seen.add(h)
            data = doc.encode("utf-8", "surrogatepass")
            if _utf8(data) is None:
                continue
            if total + len(data) > target:  # last document: keep whole lines that fit
                room = target - total
                cut = data[:room].rfind(b"\n")
                if cut > 0:
                    data = data[:cut + 1]
                    parts.append(data.decode("utf-8"))
                    used[label] = used.get(label, 0) + len(data)
                    total += len(data)
                return "".join(parts), used
            parts.append(doc)
            used[label] = used.get(label, 0) + len(data)
            total += len(data)
    return "".join(parts), used


def _code_docs() -> Iterator[str]:
    for p in stdlib_sources():
        t = _utf8(p.read_bytes())
        if t:
            yield t


def build(name: str, size: int | None = None) -> tuple[str, dict[str, int]]:
    """(text, bytes per source) for corpus `name` ("prose", "code", "sample", "mem10")."""
    size = size or SIZES[name]
    if name == "code":
        return _fill(size, [("python stdlib source", _code_docs)])
    text, used = _fill(size, PROSE_SOURCES)
    if len(text.encode("utf-8")) < size * 0.95:  # a machine with few docs: top up with source code
        more, used2 = _fill(size - len(text.encode("utf-8")), [("python stdlib source", _code_docs)])
        text += more
        used.update(used2)
    return text, used


def write_all(out_dir: Path, names=("sample", "prose", "code", "mem10"),
              sizes: dict[str, int] | None = None) -> dict[str, dict]:
    """Build the corpora into out_dir/<name>.txt; return {name: {path, bytes, sha256, sources}}."""
    out_dir.mkdir(parents=True, exist_ok=True)
    sizes = {**SIZES, **(sizes or {})}
    info = {}
    cache: dict[tuple[str, int], tuple[str, dict]] = {}
    for name in names:
        if name == "sample":  # a prefix of the prose recipe
            text, used = _fill(sizes["sample"], PROSE_SOURCES)
        else:
            key = (name, sizes[name])
            if key not in cache:
                cache[key] = build(name, sizes[name])
            text, used = cache[key]
        data = text.encode("utf-8")
        path = out_dir / f"{name}.txt"
        path.write_bytes(data)
        info[name] = {"path": str(path), "bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()[:16],
                      "sources": used}
    return info


if __name__ == "__main__":
    import json
    import sys

    out = Path(sys.argv[1] if len(sys.argv) > 1 else "corpora")
    print(json.dumps(write_all(out), indent=2))
