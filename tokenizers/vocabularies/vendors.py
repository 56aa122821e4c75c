"""The vendors' own vocabularies in tiktoken's shape ({"mergeable_ranks", "special_tokens",
"explicit_n_vocab"}; Tekken's file adds its "pat_str"), read from the files `provision` took out of each
vendor's package; each vocabulary's record (records.py) names its loader here and adds its split
pattern and normalizer. The split patterns and special tokens below are the ones each vendor's package
source sets (tests/test_vendor_models.py reads that source out of the provisioned package and holds
these equal to it):

- llama3: llama_models/llama3/tokenizer.py (llama-models 0.3.0): `Tokenizer.pat_str`, and 256
  special tokens after the 128,000 ranks: 12 named, then <|reserved_special_token_2|> ... 249;
- qwen: dashscope/tokenizers/qwen_tokenizer.py (dashscope 2.0.2): `PAT_STR` (single digits), the
  specials <|endoftext|>, <|im_start|>, <|im_end|>, <|extra_0|> ... <|extra_204|> from id 151643, and
  `unicodedata.normalize("NFC", text)` before encoding;
- whisper: whisper/tokenizer.py (openai-whisper 20250625): `get_encoding("multilingual")` with the
  package default of 99 languages, GPT-2's pattern, 1,608 specials from 50257 (51,865 ids);
- mistral_tekken: the Tekken file itself holds the pattern; mistral_common/tokens/tokenizers/tekken.py
  (mistral-common 1.13.1) keeps the first `default_vocab_size - default_num_special_tokens` entries as
  ranks and shifts every id up by the 1,000 special ids; a file without a "special_tokens" list (this
  one, version v3) gets Tekkenizer.DEPRECATED_SPECIAL_TOKENS for ids 0-19 and <SPECIAL_20> ... 999.

In every one of them a lower id is an earlier merge (ids are tiktoken ranks; Tekken's shifted by a
constant), which tests/test_vendor_models.py checks.
"""

from __future__ import annotations

import base64
import json

# the split patterns live with every other in tokenizers/core/patterns.py (CUTTERS: the C mode of each)
from tokenizers.core.patterns import LLAMA3_PATTERN, QWEN_PATTERN, WHISPER_PATTERN  # noqa: F401

LLAMA3_NAMED_SPECIALS = ("<|begin_of_text|>", "<|end_of_text|>", "<|reserved_special_token_0|>",
                         "<|reserved_special_token_1|>", "<|finetune_right_pad_id|>", "<|step_id|>",
                         "<|start_header_id|>", "<|end_header_id|>", "<|eom_id|>", "<|eot_id|>", "<|python_tag|>",
                         "<|image|>")
LLAMA3_NUM_SPECIALS = 256

QWEN_SPECIAL_START = 151643
QWEN_EXTRAS = 205

# whisper.tokenizer.LANGUAGES, the first 99 (the package's default num_languages)
WHISPER_LANGUAGES = (
    "en zh de es ru ko fr ja pt tr pl ca nl ar sv it id hi fi vi he uk el ms cs ro da hu ta no th ur hr bg lt la mi "
    "ml cy sk te fa lv bn sr az sl kn et mk br eu is hy ne mn bs kk sq sw gl mr pa si km sn yo so af oc ka be tg sd "
    "gu am yi lo uz fo ht ps tk nn mt sa lb my bo tl mg as tt haw ln ha ba jw su").split()

TEKKEN_DEPRECATED_SPECIALS = ("<unk>", "<s>", "</s>", "[INST]", "[/INST]", "[AVAILABLE_TOOLS]", "[/AVAILABLE_TOOLS]",
                              "[TOOL_RESULTS]", "[/TOOL_RESULTS]", "[TOOL_CALLS]", "[IMG]", "<pad>", "[IMG_BREAK]",
                              "[IMG_END]", "[PREFIX]", "[MIDDLE]", "[SUFFIX]", "[SYSTEM_PROMPT]", "[/SYSTEM_PROMPT]",
                              "[TOOL_CONTENT]")


class FileBoundsError(ValueError):
    """The file is well formed but holds more than `Limits` allow; the message says what and where."""


def _limits(limits):
    if limits is None:
        from tokenizers.pipeline.components import LIMITS as limits
    return limits


def _base64_length(token: bytes) -> int:
    """The length of what a base64 string decodes to, read off its length (so before decoding it)."""
    return len(token) * 3 // 4 - token[-2:].count(b"=") if token else 0


def read_tiktoken_ranks(data: bytes, what: str, limits=None) -> dict[bytes, int]:
    """A .tiktoken file's lines (base64 token, space, rank) -> {bytes: rank}. Within `limits`
    (tokenizers.pipeline.components.Limits; its LIMITS by default): the number of lines before any is
    read, each token's length before it is decoded, each rank's before it is read as a number."""
    limits = _limits(limits)
    if data.count(b"\n") + 1 > limits.max_vocab:
        lines = sum(1 for line in data.splitlines() if line.strip())
        if lines > limits.max_vocab:
            raise FileBoundsError(f"{lines:,} lines; at most {limits.max_vocab:,} tokens are accepted")
    ranks: dict[bytes, int] = {}
    for lineno, line in enumerate(data.splitlines(), 1):
        if not line.strip():
            continue
        parts = line.split()
        if len(parts) != 2 or not parts[1].isdigit():
            raise ValueError(f"{what}: line {lineno} is not '<base64 token> <rank>'")
        size = _base64_length(parts[0])
        if size > limits.max_token_bytes:
            raise FileBoundsError(limits.long_token(f"the token on line {lineno:,}", size))
        if len(parts[1]) > 12 or int(parts[1]) > limits.max_id:
            raise FileBoundsError(f"line {lineno:,} has rank {parts[1][:20].decode()}; ids up to "
                                  f"{limits.max_id:,} are accepted")
        ranks[base64.b64decode(parts[0])] = int(parts[1])
    return ranks


# Each loader reads a provisioned file (the bytes, and what to call it in a message) into tiktoken's
# shape; the record in records.py adds the split pattern and normalizer it states.
def llama3(data: bytes, what: str) -> dict:
    ranks = read_tiktoken_ranks(data, what)
    n = len(ranks)
    names = list(LLAMA3_NAMED_SPECIALS) + [f"<|reserved_special_token_{2 + i}|>"
                                           for i in range(LLAMA3_NUM_SPECIALS - len(LLAMA3_NAMED_SPECIALS))]
    return {"mergeable_ranks": ranks, "special_tokens": {s: n + i for i, s in enumerate(names)},
            "explicit_n_vocab": n + len(names)}


def qwen(data: bytes, what: str) -> dict:
    names = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", *(f"<|extra_{i}|>" for i in range(QWEN_EXTRAS))]
    return {"mergeable_ranks": read_tiktoken_ranks(data, what),
            "special_tokens": {s: QWEN_SPECIAL_START + i for i, s in enumerate(names)}}


def whisper(data: bytes, what: str) -> dict:
    ranks = read_tiktoken_ranks(data, what)
    names = ["<|endoftext|>", "<|startoftranscript|>", *(f"<|{c}|>" for c in WHISPER_LANGUAGES), "<|translate|>",
             "<|transcribe|>", "<|startoflm|>", "<|startofprev|>", "<|nospeech|>", "<|notimestamps|>",
             *(f"<|{i * 0.02:.2f}|>" for i in range(1501))]
    n = len(ranks)
    return {"mergeable_ranks": ranks, "special_tokens": {s: n + i for i, s in enumerate(names)},
            "explicit_n_vocab": n + len(names)}


def _count(config: dict, key: str) -> int:
    value = config[key]
    if not isinstance(value, int) or isinstance(value, bool):
        raise ValueError(f"config {key} is {str(value)[:40]!r}, not a whole number")
    return value


def tekken_params(data: bytes, name: str = "mistral_tekken", limits=None) -> dict:
    """A Tekken JSON file's model: ranks shifted by the number of special ids, and the specials. Its
    declared counts are held to `limits` (tokenizers.pipeline.components.Limits; its LIMITS by
    default) before anything is built from them: 20,000,000 declared special tokens used to be named
    one by one (3 GB) before the count was found wrong; each token's length before it is decoded."""
    limits = _limits(limits)
    try:
        model = json.loads(data)
        config = model["config"]
        n_special, n_vocab = _count(config, "default_num_special_tokens"), _count(config, "default_vocab_size")
    except (KeyError, TypeError, ValueError) as e:
        raise ValueError(f"not a Tekken file this reader understands: {e}") from None
    if not 0 <= n_special <= limits.max_added:
        raise FileBoundsError(f"it declares {n_special:,} special tokens (default_num_special_tokens); at most "
                              f"{limits.max_added:,} are accepted")
    inner = n_vocab - n_special
    if not 0 <= inner <= limits.max_vocab or n_vocab > limits.max_id + 1:
        raise FileBoundsError(f"it declares {n_vocab:,} ids of which {n_special:,} special (default_vocab_size); at "
                              f"most {limits.max_vocab:,} tokens and ids up to {limits.max_id:,} are accepted")
    try:
        entries = model["vocab"][:inner]
        for i, e in enumerate(entries):
            size = _base64_length(e["token_bytes"].encode("ascii"))
            if size > limits.max_token_bytes:
                raise FileBoundsError(limits.long_token(f"token {i + n_special:,} (vocab entry {i:,})", size))
        ranks = {}
        for i, e in enumerate(entries):
            if e["rank"] != i:
                raise ValueError(f"vocab entry {i} has rank {e['rank']}")
            ranks[base64.b64decode(e["token_bytes"])] = i + n_special
        listed = model.get("special_tokens")
        if listed and len(listed) > n_special:
            raise ValueError(f"{len(listed):,} special tokens listed for {n_special:,} special ids")
        for t in listed or ():
            if len(t["token_str"].encode("utf-8")) > limits.max_token_bytes:
                raise FileBoundsError(limits.long_token(f"special token {t['rank']}",
                                                        len(t["token_str"].encode("utf-8"))))
        specials = ([t["token_str"] for t in sorted(listed, key=lambda t: t["rank"])] if listed
                    else list(TEKKEN_DEPRECATED_SPECIALS))
        specials += [f"<SPECIAL_{i}>" for i in range(len(specials), n_special)]
        pattern = config["pattern"]
    except FileBoundsError:
        raise
    except (KeyError, TypeError, ValueError, AttributeError, UnicodeEncodeError) as e:
        raise ValueError(f"not a Tekken file this reader understands: {e}") from None
    if len(ranks) != inner or len(specials) != n_special:
        raise ValueError(f"not a Tekken file this reader understands: {len(ranks)} distinct tokens for {inner} ids")
    return {"name": name, "pat_str": pattern, "mergeable_ranks": ranks,
            "special_tokens": {s: i for i, s in enumerate(specials)}, "explicit_n_vocab": inner + n_special}


def mistral_tekken(data: bytes, what: str) -> dict:
    return tekken_params(data)
