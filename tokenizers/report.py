"""Corpus metrics for corpora bigger than a page: `python -m tokenizers.report`.

    python -m tokenizers.report corpus/ --tokenizers gpt2,cl100k_base,o200k_base --out report.csv

reads any number of UTF-8 files (folders are walked), one document per line (`--unit line`, the
default) or one per file (`--unit file`); a `.jsonl` file gives one document per line from its text
field (`--field text`). It never holds the corpus in memory: documents go out in batches of about
`--batch-mb` to worker processes (every core by default; `--dask tcp://host:port` or `--dask local`
for a Dask cluster), each worker loads the tokenizers once and returns exact counts
(`tokenizers.analysis.metrics.CorpusCounts`), and the counts are summed. The CSV has the same metrics
as `tokenizers.analysis.metrics.corpus_metrics` (the same `metrics_frame` computes both, so the
figures are equal on the same texts), one block of rows per file or per language (`--group`; the
language is the file's name without its suffix: `en.txt`, `fra.jsonl`) and one for the whole corpus.

A file that cannot be read whole as UTF-8 text (binary, another encoding, a broken JSON line, a
document over the size bound) is skipped with a warning naming it and the place, and nothing of it is
counted: the report never covers part of a file. Exit codes:

    0  report written, every file read
    1  nothing written: the corpus has no documents, or tokenizing failed (the message says where)
    2  nothing written: bad arguments (unknown tokenizer, a path that does not exist, Dask missing)
    3  report written, but some files were skipped (each named on stderr)
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from tokenizers.analysis.metrics import CorpusCounts, count_corpus, metrics_frame
from tokenizers.core.text import binary_reason

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_SKIPPED = 0, 1, 2, 3
UNITS = ("line", "file")
GROUPS = ("file", "language", "none")
JSONL_SUFFIXES = (".jsonl", ".ndjson")
BATCH_BYTES = 1_000_000
MAX_DOCUMENT_BYTES = 64_000_000  # one document (a line, a file) is held whole: bigger ones skip their file
BINARY_SAMPLE = 65536
BOM = b"\xef\xbb\xbf"  # UTF-8's byte order mark, which some editors write first: not part of the text


class SkipFile(Exception):
    """A file that cannot be read whole; the message names it and says where and why."""


class UsageError(Exception):
    pass


# -- reading ----------------------------------------------------------------------------------------

def find_files(paths: Iterable[str | os.PathLike]) -> list[Path]:
    """The files named, and the files under the folders named (sorted, hidden ones left out), each once.
    UsageError for a path that does not exist."""
    found: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            for root, dirs, files in os.walk(p):
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                # regular files only: a FIFO or a device in the folder would block or never end
                found += [Path(root) / f for f in sorted(files) if not f.startswith(".") and (Path(root) / f).is_file()]
        elif p.is_file():
            found.append(p)
        else:
            raise UsageError(f"{p}: no such file or folder.")
    seen, unique = set(), []
    for f in found:
        key = f.resolve()
        if key not in seen:
            seen.add(key)
            unique.append(f)
    return unique


def _decode(name: str, raw: bytes, offset: int, line: int | None) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as e:
        where = f"line {line:,}, " if line is not None else ""
        raise SkipFile(f"{name} is not UTF-8: byte 0x{raw[e.start]:02x} at {where}byte offset {offset + e.start:,} "
                       "does not decode (convert it first, e.g. `iconv -f latin1 -t utf-8`)") from None


def documents(path: Path, *, unit: str = "line", text_field: str = "text",
              max_document_bytes: int = MAX_DOCUMENT_BYTES) -> Iterator[tuple[str | None, int]]:
    """(document, bytes of the file consumed) for a file, in order; the document is None for a blank
    line or record (its bytes still count). `.jsonl` files give the string `text_field` of each record
    whatever `unit`. SkipFile when the file cannot be read whole (it may come after some documents)."""
    name = str(path)
    jsonl = path.suffix.lower() in JSONL_SUFFIXES
    with open(path, "rb") as f:
        reason = binary_reason(name, f.read(BINARY_SAMPLE))
        if reason:
            raise SkipFile(reason)
        f.seek(0)
        if unit == "file" and not jsonl:
            raw = f.read(max_document_bytes + 1)
            if len(raw) > max_document_bytes:
                raise SkipFile(f"{name} is over {max_document_bytes / 1e6:g} MB, the bound on one document; "
                               "read it with --unit line")
            bom = 3 if raw.startswith(BOM) else 0
            text = _decode(name, raw[bom:], bom, None)
            yield (text if text.strip() else None), len(raw)
            return
        offset, number = 0, 0
        while True:
            raw = f.readline(max_document_bytes + 1)
            if not raw:
                return
            number += 1
            if len(raw) > max_document_bytes and not raw.endswith(b"\n"):
                raise SkipFile(f"{name}: line {number:,} is over {max_document_bytes / 1e6:g} MB, the bound on one "
                               "document")
            body = raw.rstrip(b"\r\n")
            bom = 3 if number == 1 and body.startswith(BOM) else 0
            text = _decode(name, body[bom:], offset + bom, number)
            offset += len(raw)
            if jsonl and text.strip():
                text = _json_text(name, number, text, text_field)
            yield (text if text.strip() else None), len(raw)


def _json_text(name: str, number: int, line: str, text_field: str) -> str:
    try:
        record = json.loads(line)
    except json.JSONDecodeError as e:
        raise SkipFile(f"{name}: line {number:,} is not JSON ({e.msg} at column {e.colno})") from None
    if not isinstance(record, dict) or text_field not in record:
        raise SkipFile(f"{name}: line {number:,} has no field {text_field!r} (choose it with --field)")
    value = record[text_field]
    if not isinstance(value, str):
        raise SkipFile(f"{name}: line {number:,}: field {text_field!r} is {type(value).__name__}, not a string")
    return value


def batches(path: Path, *, batch_bytes: int = BATCH_BYTES, **reading) -> Iterator[tuple[list[str], int]]:
    """(documents, bytes of the file they came from) of about `batch_bytes` each, in order."""
    texts, size = [], 0
    for text, n in documents(path, **reading):
        size += n
        if text is not None:
            texts.append(text)
        if size >= batch_bytes:
            yield texts, size
            texts, size = [], 0
    if texts or size:
        yield texts, size


# -- the tokenizers, in every worker ----------------------------------------------------------------

@dataclass(frozen=True)
class FileTokenizer:
    """A tokenizer file (read by tokenizers.load_user_file), shipped to the workers as bytes."""

    name: str
    filename: str
    data: bytes = field(repr=False)
    digest: str = ""
    pattern: str | None = None   # the split pattern of a .tiktoken file (other formats carry theirs)


_files: dict[str, FileTokenizer] = {}   # name -> file, installed in each worker
_loaded: dict[tuple[str, str], object] = {}


def install(files: Sequence[FileTokenizer]) -> None:
    """Make tokenizer files known to this process (a worker's initializer)."""
    for f in files:
        _files[f.name] = f


def tokenizer(name: str):
    """A registry tokenizer, or an installed file's; built once per process."""
    f = _files.get(name)
    if f is None:
        from tokenizers.registry import get_tokenizer

        return get_tokenizer(name)
    key = (name, f.digest)
    if key not in _loaded:
        from tokenizers.user_files import load_user_file

        _loaded[key] = load_user_file(f.filename, f.data, name=name, pattern=f.pattern)
    return _loaded[key]


def count_batch(names: Sequence[str], texts: Sequence[str]) -> list[CorpusCounts]:
    """The work of one batch, in a worker: each tokenizer's counts over the texts."""
    return [count_corpus(tokenizer(n), texts) for n in names]


def worker_check() -> str:
    """Where this process's `tokenizers` package lives (a Dask worker must import this project's)."""
    import tokenizers

    return str(Path(tokenizers.__file__).resolve().parent.parent)


def resolve_tokenizers(specs: Sequence[str], pattern: str | None = None) -> tuple[list[str], list[FileTokenizer]]:
    """Names for the report and the tokenizer files among them, each loaded here once so that a bad
    name or file stops the run before any work. A spec is a registry name or a path to a file.
    `pattern` splits .tiktoken files: a name of user_files.known_patterns() or a regex (default: the
    upload form's default, GPT-4's)."""
    from tokenizers.registry import REGISTRY

    names, files = [], []
    for spec in specs:
        if spec in REGISTRY:
            names.append(spec)
            continue
        path = Path(spec)
        if not path.is_file():
            raise UsageError(f"{spec!r} is neither a tokenizer name ({', '.join(REGISTRY)}) nor a tokenizer file.")
        from tokenizers.user_files import FIRST_PATTERN, UserFileError, display_name, known_patterns, load_user_file

        data = path.read_bytes()
        name = display_name(path.name)
        regex = known_patterns().get(pattern or FIRST_PATTERN, pattern)
        try:
            load_user_file(path.name, data, name=name, pattern=regex)
        except UserFileError as e:
            raise UsageError(str(e)) from None
        files.append(FileTokenizer(name, path.name, data, hashlib.sha256(data).hexdigest(), regex))
        names.append(name)
    if len(set(names)) != len(names):
        raise UsageError(f"A tokenizer is named twice: {', '.join(names)}.")
    return names, files


# -- where the work runs ----------------------------------------------------------------------------

class InProcess:
    """One worker: this process."""

    workers = 1

    def submit(self, fn, *args) -> Future:
        done: Future = Future()
        try:
            done.set_result(fn(*args))
        except BaseException as e:  # handed over as a process pool would
            done.set_exception(e)
        return done

    def close(self) -> None:
        pass


class Pool:
    """Worker processes on this machine (tokenizers.jobs.worker_pool: the one place children start)."""

    def __init__(self, workers: int, files: Sequence[FileTokenizer]):
        from tokenizers import jobs

        self.workers = workers
        self.pool = jobs.worker_pool(workers, initializer=install, initargs=(tuple(files),))

    def submit(self, fn, *args) -> Future:
        return self.pool.submit(fn, *args)

    def close(self) -> None:
        self.pool.shutdown(wait=True, cancel_futures=True)


class DaskCluster:
    """A Dask cluster: an existing scheduler (`tcp://host:port`) or a LocalCluster on this machine."""

    def __init__(self, address: str, workers: int, files: Sequence[FileTokenizer], *, processes: bool = True):
        try:
            from distributed import Client, LocalCluster
        except ImportError:
            raise UsageError("--dask needs Dask's distributed scheduler, which the app does not install: "
                             "pip install 'dask[distributed]==2026.8.0' (pyproject.toml's optional extra `dask`).") from None
        self.cluster = None
        try:
            if address == "local":
                self.cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=processes,
                                            dashboard_address=None)
                self.client = Client(self.cluster)
            else:
                self.client = Client(address, timeout=20)
        except (OSError, TimeoutError) as e:
            self.close()
            raise UsageError(f"Cannot reach the Dask scheduler at {address}: {e}") from None
        try:
            self.client.submit(worker_check, pure=False).result(timeout=120)
        except TimeoutError:
            self.close()
            raise UsageError(f"No Dask worker of {address} answered within 120 s: are any connected?") from None
        except Exception as e:
            self.close()
            raise UsageError("The Dask workers cannot import this project's `tokenizers` package (the name is also "
                             "Hugging Face's): start them from the repository root or with PYTHONPATH set to it. "
                             f"({type(e).__name__}: {e})") from None
        self.client.run(install, tuple(files))  # workers that join later know registry names only
        self.workers = max(1, sum(self.client.nthreads().values()))

    def submit(self, fn, *args):
        return self.client.submit(fn, *args, pure=False)

    def close(self) -> None:
        if getattr(self, "client", None) is not None:
            self.client.close()
        if self.cluster is not None:
            self.cluster.close()


# -- the report -------------------------------------------------------------------------------------

@dataclass
class Report:
    tokenizers: list[str]
    groups: dict[str, dict[str, CorpusCounts]]   # language -> tokenizer -> counts (group "language")
    overall: dict[str, CorpusCounts] | None      # tokenizer -> counts over every file read
    files: int = 0
    documents: int = 0
    bytes_read: int = 0
    seconds: float = 0.0
    skipped: list[str] = field(default_factory=list)   # one message per file skipped
    notes: list[str] = field(default_factory=list)     # files read that gave no document
    group_by: str = "file"
    reference: str | None = None   # a language (group "language"): adds the premium column
    # file -> its rows (group "file"): made when the file is done, so that its Counters are let go
    file_rows: dict[str, pd.DataFrame] = field(default_factory=dict)

    def frame(self) -> pd.DataFrame:
        """One row per (group, tokenizer), then the overall rows: columns scope, group, tokenizer, documents
        and the metrics of `metrics_frame` (the COLUMNS of tokenizers.analysis.metrics), and with a
        reference language the premium: a language's tokens over the reference's, per tokenizer (NaN
        overall)."""
        if self.group_by == "file":
            blocks = [(g, rows) for g, rows in self.file_rows.items()]
        else:
            blocks = [(g, rows_of(c)) for g, c in self.groups.items()] if self.group_by == "language" else []
        parts = []
        for scope, (group, df) in [*((self.group_by, b) for b in blocks), ("overall", ("", rows_of(self.overall)))]:
            df = df.copy()
            df.insert(0, "group", group)
            df.insert(0, "scope", scope)
            if self.reference is not None:
                df["premium"] = [self.premium(t).get(group, float("nan")) for t in df["tokenizer"]]
            parts.append(df)
        return pd.concat(parts, ignore_index=True)

    def premium(self, tokenizer: str) -> dict[str, float]:
        """language -> its tokens over the reference language's, under one tokenizer."""
        by_language = {g: c[tokenizer] for g, c in self.groups.items()}
        return metrics_frame(by_language, reference=self.reference, index_name="language")["premium"].to_dict()


def rows_of(counts: dict[str, CorpusCounts]) -> pd.DataFrame:
    """metrics_frame as rows: tokenizer, documents, then the metrics."""
    df = metrics_frame(counts).reset_index()
    df.insert(1, "documents", [c.texts for c in counts.values()])
    return df


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:  # gone since the folder was walked: reading it says so
        return 0


def group_of(path: Path, group_by: str) -> str:
    if group_by == "language":
        return path.name.split(".", 1)[0] or path.name
    return str(path)


def _add(total: dict[str, CorpusCounts] | None, part: Sequence[CorpusCounts], names: Sequence[str]):
    part = dict(zip(names, part))
    return part if total is None else {n: total[n] + part[n] for n in names}


def run(paths: Sequence[str | os.PathLike], tokenizers: Sequence[str], *, unit: str = "line", text_field: str = "text",
        group_by: str = "file", workers: int | None = None, dask: str | None = None, dask_processes: bool = True,
        reference: str | None = None, pattern: str | None = None, batch_bytes: int = BATCH_BYTES, max_document_bytes: int = MAX_DOCUMENT_BYTES,
        progress: Callable[[int, int], None] | None = None, warn: Callable[[str], None] | None = None) -> Report:
    """Count a corpus of files; see the module's docstring. UsageError for bad arguments; a failure in
    a worker is raised (with the file it came from noted). Files that cannot be read are skipped
    (`warn(message)` for each, and listed in `Report.skipped`)."""
    if unit not in UNITS or group_by not in GROUPS:
        raise UsageError(f"unit must be one of {UNITS} and group one of {GROUPS}.")
    if not tokenizers:
        raise UsageError("Name at least one tokenizer.")
    if reference is not None and group_by != "language":
        raise UsageError("A reference language needs --group language.")
    started = time.perf_counter()
    files = find_files(paths)
    languages = sorted({group_of(f, "language") for f in files})
    if reference is not None and reference not in languages:
        raise UsageError(f"The reference language {reference!r} is not among the files' languages "
                         f"({', '.join(languages)}).")
    names, tokenizer_files = resolve_tokenizers(tokenizers, pattern)
    install(tokenizer_files)
    workers = workers or len(os.sched_getaffinity(0))
    if dask:
        runner = DaskCluster(dask, workers, tokenizer_files, processes=dask_processes)
    elif workers == 1:
        runner = InProcess()
    else:
        runner = Pool(workers, tokenizer_files)
    total_bytes = sum(_size(f) for f in files)
    # counts are summed in file order and, within a file, in batch order (the order of one pass over
    # the corpus), whatever order the workers finish in: the report is the same from run to run
    report = Report(names, {}, None, files=len(files), group_by=group_by, reference=reference)
    done_bytes = 0
    pending: dict[int, dict[str, CorpusCounts] | None] = {}   # file index -> counts so far
    skipped: set[int] = set()
    queue: deque = deque()   # ("batch", file index, future, bytes) and ("end", file index), in order
    window = 2 * runner.workers + 1
    warn = warn or (lambda message: None)

    def settle(entry) -> None:
        nonlocal done_bytes
        if entry[0] == "batch":
            _, i, future, size = entry
            try:
                result = future.result()
            except Exception as e:
                raise RuntimeError(f"{files[i]}: tokenizing failed: {type(e).__name__}: {e}") from e
            if i not in skipped:
                pending[i] = _add(pending[i], result, names)
            done_bytes += size
            if progress:
                progress(done_bytes, total_bytes)
            return
        _, i = entry
        counts = pending.pop(i)
        if i in skipped:
            return
        if counts is None or counts[names[0]].texts == 0:
            report.notes.append(f"{files[i]}: no documents (the file is empty or blank)")
            return
        report.documents += counts[names[0]].texts
        report.overall = _add(report.overall, [counts[n] for n in names], names)
        g = group_of(files[i], group_by)
        if group_by == "file":
            report.file_rows[g] = rows_of(counts)
        elif group_by == "language":
            report.groups[g] = _add(report.groups.get(g), [counts[n] for n in names], names)

    try:
        for i, path in enumerate(files):
            pending[i] = None
            read = 0
            try:
                for texts, size in batches(path, batch_bytes=batch_bytes, unit=unit, text_field=text_field,
                                           max_document_bytes=max_document_bytes):
                    read += size
                    queue.append(("batch", i, runner.submit(count_batch, names, texts), size))
                    while len(queue) > window:
                        settle(queue.popleft())
            except (SkipFile, OSError) as e:
                message = str(e) if isinstance(e, SkipFile) else f"{path}: cannot be read: {e.strerror or e}"
                skipped.add(i)
                report.skipped.append(f"{message}; skipped, nothing of it is counted")
                warn(report.skipped[-1])
                done_bytes += max(0, _size(path) - read)
            queue.append(("end", i))
        while queue:
            settle(queue.popleft())
    finally:
        runner.close()
    report.overall = report.overall or {n: CorpusCounts() for n in names}
    if reference is not None and report.documents and reference not in report.groups:
        report.reference = None
        report.notes.append(f"the reference language {reference!r} has no documents: no premium column")
    report.bytes_read = done_bytes
    report.seconds = time.perf_counter() - started
    return report


# -- the command ------------------------------------------------------------------------------------

class ProgressLine:
    """`\\r`-rewritten progress on stderr: MB done of the total, percent, MB/s."""

    def __init__(self, stream=sys.stderr):
        self.stream, self.start, self.last = stream, time.perf_counter(), 0.0
        self.drawn = False  # a line is on screen, so a message first ends it

    def __call__(self, done: int, total: int) -> None:
        now = time.perf_counter()
        if now - self.last < 0.2 and done < total:
            return
        self.last = now
        share = done / total if total else 1.0
        bar = "#" * int(30 * share)
        rate = done / 1e6 / max(now - self.start, 1e-9)
        unit, scale = ("MB", 1e6) if total >= 1e6 else ("KB", 1e3)
        self.stream.write(f"\r[{bar:<30}] {done / scale:,.1f}/{total / scale:,.1f} {unit} {share:4.0%} "
                          f"{rate:,.2f} MB/s")
        self.stream.flush()
        self.drawn = True

    def end(self) -> None:
        if self.drawn:
            self.stream.write("\n")
            self.stream.flush()
        self.drawn = False


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m tokenizers.report",
        description="Corpus metrics (tokens, fertility, continued words, bytes and characters per token, "
                    "Rényi efficiency...) of several tokenizers over files of any size, per file or language "
                    "and overall, as CSV.",
        epilog="Exit codes: 0 written; 1 no documents or tokenizing failed; 2 bad arguments; "
               "3 written, but some files were skipped.")
    p.add_argument("paths", nargs="+", metavar="FILE_OR_DIR", help="UTF-8 text files, .jsonl files, folders")
    p.add_argument("--tokenizers", required=True,
                   help="comma-separated registry names (gpt2,cl100k_base,...) or paths to tokenizer files")
    p.add_argument("--pattern", default=None,
                   help="the split pattern of .tiktoken files given by path: 'GPT-4 (cl100k_base)' (default), "
                        "'GPT-2 (r50k_base)', 'GPT-4o (o200k_base)', 'Llama 3', 'Qwen', or a regex")
    p.add_argument("--out", default="-", help="the CSV to write (default: standard output)")
    p.add_argument("--unit", choices=UNITS, default="line", help="a document is a line (default) or a whole file")
    p.add_argument("--field", default="text", help="the text field of .jsonl records (default: text)")
    p.add_argument("--group", choices=GROUPS, default="file",
                   help="rows per file, per language (the file's name before its first dot: en.txt, fra.jsonl) "
                        "or none; the overall rows are always written")
    p.add_argument("--reference", metavar="LANGUAGE", default=None,
                   help="with --group language: add each language's token premium against this one (e.g. eng)")
    p.add_argument("--workers", type=int, default=None, help="worker processes (default: every core)")
    p.add_argument("--dask", metavar="ADDRESS", default=None,
                   help="run on a Dask cluster: tcp://host:port, or 'local' for a LocalCluster of --workers")
    p.add_argument("--batch-mb", type=float, default=BATCH_BYTES / 1e6, help="documents sent to a worker at once")
    bar = p.add_mutually_exclusive_group()
    bar.add_argument("--progress", dest="progress", action="store_true", default=None,
                     help="show the progress bar (default: when stderr is a terminal)")
    bar.add_argument("--no-progress", dest="progress", action="store_false")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)

    def warn(message: str) -> None:
        if bar:
            bar.end()
        sys.stderr.write(f"warning: {message}\n")

    show = sys.stderr.isatty() if args.progress is None else args.progress
    bar = ProgressLine() if show else None
    if args.workers is not None and args.workers < 1:
        print("error: --workers must be 1 or more", file=sys.stderr)
        return EXIT_USAGE
    try:
        report = run(args.paths, [t.strip() for t in args.tokenizers.split(",") if t.strip()], unit=args.unit,
                     text_field=args.field, group_by=args.group, reference=args.reference, pattern=args.pattern,
                     workers=args.workers,
                     dask=args.dask, batch_bytes=max(1, int(args.batch_mb * 1e6)), progress=bar, warn=warn)
    except UsageError as e:
        print(f"error: {e}", file=sys.stderr)
        return EXIT_USAGE
    except RuntimeError as e:
        print(f"\nerror: {e}", file=sys.stderr)
        return EXIT_FAILED
    except KeyboardInterrupt:
        print("\nstopped; nothing written", file=sys.stderr)
        return 130
    finally:
        if bar:
            bar.end()
    for note in report.notes:
        print(f"note: {note}", file=sys.stderr)
    if report.documents == 0:
        print(f"error: no documents in {report.files:,} file(s)"
              + (f" ({len(report.skipped)} skipped)" if report.skipped else "") + "; nothing written", file=sys.stderr)
        return EXIT_FAILED
    frame = report.frame()
    if args.out == "-":
        frame.to_csv(sys.stdout, index=False)
    else:
        frame.to_csv(args.out, index=False)
    mb = report.bytes_read / 1e6
    print(f"{'wrote ' + args.out + ': ' if args.out != '-' else ''}{report.files:,} file(s), "
          f"{report.documents:,} documents, {mb:,.1f} MB in {report.seconds:,.1f} s "
          f"({mb / max(report.seconds, 1e-9):,.2f} MB/s)"
          + (f"; {len(report.skipped)} file(s) skipped" if report.skipped else ""), file=sys.stderr)
    return EXIT_SKIPPED if report.skipped else EXIT_OK


if __name__ == "__main__":
    # run the module's functions as tokenizers.report, not __main__, so that worker processes and Dask
    # find them by that name
    from tokenizers.report import main as _main

    sys.exit(_main())
