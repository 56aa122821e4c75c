"""The C core's WebAssembly build and the vocabulary blob it reads (tokenizers/bpe/native/blob.py,
build.build_wasm, tl_wasm.js): the blob holds exactly the model's encoder state, refuses what it
cannot carry, says when it is damaged; the build skips quietly without clang; and Node, a second
JavaScript host, gives the library's ids (the browser test, tests/e2e/test_wasm_browser.py, is the
one that counts)."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from tokenizers.bpe.native import blob as vblob
from tokenizers.bpe.native import build, lib
from tokenizers.bpe.native.lib import HERE, MODES
from tokenizers.core.patterns import O200K_PATTERN, split_text
from wasm_parity import BROWSER_NAMES, NAMES, expected, first_difference, texts, tokenizer, utf16
from conftest import TRICKY_TEXTS


@pytest.mark.parametrize("name", NAMES)
def test_blob_holds_the_encoder_state(name):
    from tokenizers.bpe.merges import RecoveredMerges

    tok = tokenizer(name)
    model = getattr(tok, "model", tok)  # a pipeline's (DeepSeek V3's) byte-level model
    b = vblob.serialize(tok)
    got = vblob.parse(b.data)
    assert got["whole"] == dict(model._bytes_to_id)
    assert got["byte_ids"] == model.byte_ids
    h = got["header"]
    assert (h["name"], h["pattern"], h["shortcut"], h["special_tokens"]) == (
        tok.name, model.pattern or "", int(model.whole_chunk_shortcut), tok.special_tokens)
    if h["by_ranks"]:  # tiktoken's vocabularies: the byte-rank rule, no merge list
        assert got["pairs"] == [] and isinstance(model.merges, RecoveredMerges)
    else:
        assert got["pairs"] == list(dict.items(model.merges))
    assert b.data[:8] == vblob.MAGIC and len(b.sha256) == 64
    assert vblob.serialize(tok).data == b.data  # the same model, the same bytes (a cache key)


def test_blob_header_vectors():
    b = vblob.serialize(tokenizer("custom_bpe"))
    assert (b.header["mode"], b.header["by_ranks"], b.header["npairs"], b.header["ntok"]) == (MODES["gpt4"], 0, 1792, 2048)
    o = vblob.serialize(tokenizer("o200k_base")).header
    assert (o["mode"], o["by_ranks"], o["ntok"]) == (MODES["o200k"], 1, 199998)
    g = vblob.serialize(tokenizer("gpt2")).header
    assert (g["mode"], g["by_ranks"], g["ntok"], g["special_tokens"]) == (MODES["gpt2"], 1, 50256, {"<|endoftext|>": 50256})


def test_sentencepiece_blob_holds_the_encoder_state():
    """mistral_sp's blob: the normal pieces (U+2581 for a space) with their ids and float32 scores, the
    byte pieces' ids, <unk> and the options, exactly what SentencePieceTokenizer.native_state gives."""
    tok = tokenizer("mistral_sp")
    b = vblob.serialize(tok)
    got = vblob.parse(b.data)
    st = tok.native_state()
    assert got["whole"] == {p: i for p, i, _ in st["pieces"]}
    assert got["scores"] == {i: s for _, i, s in st["pieces"]}  # Mistral's scores are exact in float32
    assert got["byte_ids"] == st["byte_ids"] == list(range(3, 259)) and got["pairs"] == []
    h = b.header
    assert (h["algorithm"], h["sp_flags"], h["unk_id"], h["scores"], h["mode"], h["pattern"]) == (
        "sentencepiece_bpe", 1 | 2 | 4, 0, True, 0, "")
    assert (h["ntok"], h["first_id"], h["sequential_ids"]) == (31_741, 259, True)
    assert h["special_tokens"] == {"<unk>": 0, "<s>": 1, "</s>": 2}
    assert got["whole"]["▁the".encode()] == 272 and got["scores"][272] == -13.0
    assert vblob.serialize(tok).data == b.data


def test_damaged_blob_is_refused():
    data = bytearray(vblob.serialize(tokenizer("lab")).data)
    data[-1] ^= 1
    with pytest.raises(ValueError, match="checksum"):
        vblob.parse(bytes(data))
    with pytest.raises(ValueError, match="not a Token Lens"):
        vblob.parse(b"garbage" * 10)
    wrong = bytearray(vblob.serialize(tokenizer("lab")).data)
    wrong[8] = 99
    with pytest.raises(ValueError, match="format 99"):
        vblob.parse(bytes(wrong))


def test_what_the_blob_cannot_carry_is_refused():
    from tokenizers.bpe.model import BPETokenizer

    with pytest.raises(ValueError, match="no mode for its split pattern"):
        vblob.serialize(BPETokenizer(r"\w+|\W", name="custom pattern"))
    from tokenizers.registry import get_tokenizer
    from tokenizers.sentencepiece.model import SentencePieceTokenizer

    from sentencepiece import sentencepiece_model_pb2

    proto = sentencepiece_model_pb2.ModelProto.FromString(get_tokenizer("mistral_sp").serialized_model())
    proto.normalizer_spec.remove_extra_whitespaces = True  # a SentencePiece model the C core would get wrong
    squeezed = SentencePieceTokenizer(model_proto=proto.SerializeToString(), name="squeezed")
    with pytest.raises(ValueError, match="removes extra whitespace, .* so the browser cannot give its ids"):
        vblob.serialize(squeezed)
    # pipelines: byte-level BPE inside stages the browser follows exactly, or refused with the stage that is not
    from tokenizers.hf.models import PipelineTokenizer
    from tokenizers.pipeline import normalizers as nz
    from tokenizers.pipeline import pre_tokenizers as pt
    from tokenizers.pipeline.added_tokens import AddedToken

    model = get_tokenizer("claude_legacy").model
    with pytest.raises(ValueError, match="normalizer .*Lowercase.* not one the browser applies"):
        vblob.serialize(PipelineTokenizer(name="lower", model=model, normalizer=nz.Lowercase()))
    with pytest.raises(ValueError, match="no mode for its pre-tokenizer"):
        vblob.serialize(PipelineTokenizer(name="words", model=model, pre_tokenizer=pt.Split(r"\w+")))
    with pytest.raises(ValueError, match="strips or matches whole words"):
        vblob.serialize(PipelineTokenizer(name="strip", model=model, added_tokens=[AddedToken("<x>", 9, lstrip=True)]))
    for name, form, added in (("qwen", "NFC", 0), ("claude_legacy", "NFKC", 0), ("deepseek_v3", None, 53)):
        h = vblob.serialize(get_tokenizer(name)).header
        assert h.get("normalizer") == form and len(h["added"]) == added, name


def test_the_module_in_the_repository_is_built_from_these_sources():
    """The module the browser runs is kept beside its C; a change to the C (or to the Unicode tables of the
    pinned `regex`) without building it again fails here, on every machine, toolchain or not."""
    record = lib.wasm_record()
    assert lib.wasm_status() == "ok", (
        f"tokenizers/bpe/native/tokenlens.wasm is {lib.wasm_status()}: its record names sources "
        f"{record.get('sources')}, these are {lib.wasm_digest()}. Build it again "
        f"(python -m tokenizers.bpe.native.build --wasm, with {lib.WASM_TOOLCHAIN}) and commit both files")
    data = lib.wasm_path().read_bytes()
    assert data[:4] == b"\0asm" and record["bytes"] == len(data)
    assert record["toolchain"].startswith("Debian clang version 14.") and record["flags"] == build.WASM_FLAGS


def test_a_changed_source_makes_the_module_stale(monkeypatch, tmp_path):
    """wasm_status follows the sources (the digest) and the file's bytes (its sha256); a stale module is
    never served."""
    from service import browser_assets

    real = lib.wasm_digest()
    monkeypatch.setattr(lib, "wasm_digest", lambda: "0" * 16)
    assert lib.wasm_status() == "stale" and lib.wasm_module() is None
    monkeypatch.setattr(lib, "build_on_first_use", lambda: False)
    browser_assets.core_urls.cache_clear()
    try:
        assert browser_assets.core_urls() is None
        assert "older than its C" in browser_assets.server_only_reason("gpt2")
    finally:
        browser_assets.core_urls.cache_clear()
    monkeypatch.setattr(lib, "wasm_digest", lambda: real)
    copy = tmp_path / "tokenlens.wasm"
    copy.write_bytes(lib.wasm_path().read_bytes()[:-1] + b"x")
    monkeypatch.setattr(lib, "WASM_MODULE", copy)
    assert lib.wasm_status() == "stale"
    monkeypatch.setattr(lib, "WASM_MODULE", tmp_path / "none.wasm")
    assert lib.wasm_status() == "missing"


def test_no_clang_builds_nothing_said_in_one_line(monkeypatch, tmp_path):
    monkeypatch.delenv("WASM_CC", raising=False)
    real = shutil.which
    monkeypatch.setattr(build.shutil, "which", lambda n: None if n == "clang" else real(n))
    said = []
    assert build.build_wasm(log=said.append, out=tmp_path / "m.wasm") is None
    assert len(said) == 1 and "not built, no clang" in said[0] and lib.WASM_TOOLCHAIN in said[0]
    assert not list(tmp_path.rglob("*.wasm")) and lib.wasm_status() == "ok"


@pytest.mark.usefixtures("need_wasm_toolchain")
def test_rebuilding_the_module_from_source_gives_the_same_bytes():
    """What CI's toolchain step checks (build --wasm --check): the module in the repository is the one
    its C builds with the pinned toolchain, byte for byte."""
    said = []
    assert build.check_wasm(log=said.append), said
    assert "the same" in said[-1]


def _wasm():
    out = lib.wasm_module()
    assert out is not None, f"the WebAssembly module is {lib.wasm_status()} (python -m tokenizers.bpe.native.build --wasm)"
    return out


def test_wasm_module_exports_the_c_api():
    data = _wasm().read_bytes()
    assert data[:4] == b"\0asm"
    if shutil.which("node") is None:
        pytest.skip("no node")
    js = ("const m = new WebAssembly.Module(require('fs').readFileSync(process.argv[1]));"
          "console.log(JSON.stringify([WebAssembly.Module.imports(m), WebAssembly.Module.exports(m).map(e => e.name)]))")
    imports, exports = json.loads(subprocess.run(["node", "-e", js, str(_wasm())], capture_output=True,
                                                 text=True, check=True).stdout)
    assert imports == []  # nothing to provide: no WASI calls, no host functions
    assert set(build.WASM_EXPORTS) <= set(exports)


NODE_ENCODE = """
const T = require(process.argv[1]); const fs = require('fs');
const job = JSON.parse(fs.readFileSync(process.argv[2]));
(async () => {
  const core = await T.load(fs.readFileSync(job.wasm));
  const texts = job.units.map(u => { let s = ""; for (let i = 0; i < u.length; i += 4096)
                                       s += String.fromCharCode(...u.slice(i, i + 4096)); return s; });
  const out = {};
  for (const [name, path] of Object.entries(job.blobs)) {
    const b = fs.readFileSync(path);
    if ((await T.verifyBlob(b)) !== true) throw new Error(name + ": checksum");
    const v = core.vocab(b);
    out[name] = texts.map(t => Array.from(v.encode(t)));
    v.free();
  }
  fs.writeFileSync(job.out, JSON.stringify(out));
})().catch(e => { console.error(e); process.exit(1); });
"""


@pytest.mark.slow
def test_node_gives_the_library_ids(tmp_path):
    """Node as a second host: every tokenizer of NAMES, every text, the same ids as the library."""
    if shutil.which("node") is None:
        pytest.skip("no node")
    wasm = _wasm()
    items = texts()
    blobs = {}
    for name in BROWSER_NAMES:
        (tmp_path / f"{name}.bin").write_bytes(vblob.serialize(tokenizer(name)).data)
        blobs[name] = str(tmp_path / f"{name}.bin")
    job = {"wasm": str(wasm), "blobs": blobs, "units": [utf16(t) for t in items], "out": str(tmp_path / "out.json")}
    (tmp_path / "job.json").write_text(json.dumps(job))
    subprocess.run(["node", "-e", NODE_ENCODE, str(HERE / "tl_wasm.js"), str(tmp_path / "job.json")], check=True,
                   timeout=300)
    got = json.loads((tmp_path / "out.json").read_text())
    for name in BROWSER_NAMES:
        assert first_difference(name, items, got[name], expected(name, items)) is None


@pytest.mark.usefixtures("need_native")
def test_o200k_mode_through_the_whole_c_api():
    """Mode 3 (o200k_base's pattern, added for the browser) is accepted wherever a mode is: splitting,
    chunk counting and encoding, each equal to `regex` and the library."""
    import regex

    from collections import Counter

    from tokenizers.bpe.native import api

    text = "\n".join(TRICKY_TEXTS) + " I'LL don't HTTPServer's naïve Ǆemal\u0301 x²³ 12345/\r\n/ "
    compiled = regex.compile(O200K_PATTERN)
    want = split_text(text, compiled)
    assert api.split("o200k", text) == want
    counts = api.Chunks.from_text(text.encode(), MODES["o200k"]).items()
    assert dict(counts) == {c.encode(): n for c, n in Counter(want).items()}
    tok = tokenizer("o200k_base")
    enc = tok.twin._c_encoder()
    assert enc.encode(MODES["o200k"], text.encode()) == tok.encode(text, disallowed_special=())
