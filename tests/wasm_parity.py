"""What the WebAssembly parity tests share (tests/test_wasm_blob.py with Node, tests/e2e/test_wasm_browser.py
with Chromium): the texts, the tokenizers, and the JavaScript that encodes them with the module and the
vocabulary blobs. A text goes to JavaScript as its UTF-16 code units, so that a lone surrogate reaches
TextEncoder as one (and becomes U+FFFD there, as clean_text makes it in Python)."""

from __future__ import annotations

import functools
import random

from conftest import TRICKY_TEXTS
from payloads import PAYLOADS
from test_native_split import PIECES

# the tokenizers the browser must agree with, through the module alone (vocab.encode: no added tokens found, no
# normalizer: Qwen's and Claude's pipelines are held equal through live_spans.js in tests/test_live_spans.py, which
# parses added tokens and leaves a text its normalizer changes to the server); "lab" is a BPETokenizer trained here
# as the Lab does. Each C mode is here: GPT-2 (gpt2, whisper), GPT-4, o200k, Llama 3, Tekken, DeepSeek V3.
NAMES = ("custom_bpe", "gpt2", "cl100k_base", "o200k_base", "o200k_harmony", "llama3", "mistral_tekken", "whisper",
         "deepseek_v3", "lab")
# and the SentencePiece BPE models, encoded by the C core's tl_sp_* (their blobs hold pieces and scores)
SP_NAMES = ("mistral_sp",)
BROWSER_NAMES = (*NAMES, *SP_NAMES)
FUZZ = 400


def fuzz_texts(n: int = FUZZ, seed: int = 22) -> list[str]:
    """Seeded random texts: pieces the patterns treat specially, random code points from every plane
    (astral, private use, unassigned), lone and paired surrogates, and a few long runs."""
    rng = random.Random(seed)

    def char() -> str:
        r = rng.random()
        if r < 0.5:
            return rng.choice(PIECES)
        if r < 0.75:
            return chr(rng.randrange(0x20, 0x800))
        if r < 0.9:
            return chr(rng.randrange(0x800, 0x10000))
        if r < 0.97:
            return chr(rng.randrange(0x10000, 0x110000))
        return chr(rng.randrange(0xD800, 0xE000))  # a surrogate: lone, or paired by chance

    out = ["".join(char() for _ in range(rng.randrange(0, 60))) for _ in range(n)]
    out += ["".join(rng.choice(PIECES) for _ in range(3000)), " " * 200 + "x" + "\n" * 50,
            "a" * 500 + "'LL" + "9" * 40]
    return out


def texts() -> list[str]:
    return [*TRICKY_TEXTS, *PAYLOADS.values(), *fuzz_texts()]


@functools.lru_cache(maxsize=None)
def tokenizer(name: str):
    if name == "lab":
        from tokenizers.bpe.model import BPETokenizer

        tok = BPETokenizer("gpt4", name="lab")
        tok.train("\n".join([*TRICKY_TEXTS, *PAYLOADS.values()] * 3), 300)
        return tok
    from tokenizers.registry import get_tokenizer

    return get_tokenizer(name)


def expected(name: str, items: list[str]) -> list[list[int]]:
    """The library's ids; for a SentencePiece model the sentencepiece package's own (the library's
    encode may be the C core, the very code under test)."""
    tok = tokenizer(name)
    if name in SP_NAMES:
        from tokenizers.core.text import clean_text

        return [list(tok.sp.EncodeAsIds(clean_text(t)[0])) for t in items]
    return [list(tok.encode(t, disallowed_special=())) for t in items]


def utf16(text: str) -> list[int]:
    data = text.encode("utf-16-le", "surrogatepass")
    return [int.from_bytes(data[i:i + 2], "little") for i in range(0, len(data), 2)]


# in a page served at ORIGIN (tests/e2e/test_wasm_browser.py answers its requests: no server, no
# network): fetch the module and each blob as the app will, check the blob, encode every text
ORIGIN = "http://localhost:8765"
ENCODE_ALL = """async ([names, units]) => {
  const get = async path => new Uint8Array(await (await fetch(path)).arrayBuffer());
  const core = await TokenLensWasm.load(await get("/tokenlens.wasm"));
  const texts = units.map(u => { let s = ""; for (let i = 0; i < u.length; i += 4096)
                                   s += String.fromCharCode(...u.slice(i, i + 4096)); return s; });
  const out = {};
  for (const name of names) {
    const b = await get("/vocab/" + name);
    if ((await TokenLensWasm.verifyBlob(b)) !== true) throw new Error(name + ": checksum");
    const v = core.vocab(b);
    out[name] = texts.map(t => Array.from(v.encode(t)));
    v.free();
  }
  return out;
}"""


def first_difference(name: str, items: list[str], got: list[list[int]], want: list[list[int]]) -> str | None:
    """None when equal, else which text first differs and how."""
    if len(got) != len(want):
        return f"{name}: {len(got)} results for {len(want)} texts"
    for k, (g, w) in enumerate(zip(got, want)):
        if g != w:
            i = next((j for j, (a, b) in enumerate(zip(g, w)) if a != b), min(len(g), len(w)))
            return (f"{name}: text {k} {items[k][:80]!r}: ids differ at {i}: wasm {g[max(0, i - 3):i + 4]} "
                    f"library {w[max(0, i - 3):i + 4]} ({len(g)} vs {len(w)} ids)")
    return None
