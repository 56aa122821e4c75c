"""Model names -> the tokenizer a model uses, as tiktoken's `encoding_name_for_model` does for OpenAI's.

People think in models ("gpt-4o", "Qwen/Qwen2.5-7B-Instruct"), the registry in vocabularies ("o200k_base",
"qwen"). Each record names its models beside its files (`Vocabulary.models` in records.py,
`Entry.models` in registry.py for the tokenizers that are not tiktoken-format records), each list with
its source; `tokenizers.for_model(name)` reads them through `lookup` here. A model name in those lists is

    "gpt-4o"     that model
    "gpt-4o-*"   any name that starts with "gpt-4o-": tiktoken's prefixes, for dated snapshots
                 ("gpt-4o-2024-08-06"), sizes and variants ("llama-3.1-8b-instruct")

and a name is matched case-insensitively, whole first and then, for a Hugging Face repository name
("meta-llama/Meta-Llama-3.1-8B"), without its owner; an exact name before a prefix, and the longest
prefix first (tiktoken tries its prefixes in a hand-kept order; the longest gives the same answers and
needs no order). `ELSEWHERE` names models whose tokenizer Token Lens does not offer, so that asking for
one says why instead of guessing a near name.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping

# models with a prefix of a known family whose tokenizer is another one, not in the registry: asked for,
# they raise UnknownModelError with this reason (checked like the records' names, so the longest wins)
_P50K = "uses tiktoken's p50k_base"
_CLAUDE = "uses a tokenizer Anthropic has not published (claude_legacy is Claude 1 and 2's)"
_MISTRAL_V3 = "extends Mistral 7B v0.1's 32,000 pieces to 32,768 (mistral-common's v3 tokenizer)"
_WHISPER_EN = "uses GPT-2's vocabulary with Whisper's special tokens (gpt2 has the same ordinary tokens)"
ELSEWHERE: dict[str, str] = {
    # tiktoken 0.14 model.py: text-davinci-002/003 and the Codex models use p50k_base, the edit models p50k_edit
    **dict.fromkeys(("text-davinci-003", "text-davinci-002", "code-davinci-002", "code-davinci-001",
                     "code-cushman-002", "code-cushman-001", "davinci-codex", "cushman-codex"), _P50K),
    "text-davinci-edit-001": "uses tiktoken's p50k_edit",
    "code-davinci-edit-001": "uses tiktoken's p50k_edit",
    # Anthropic has published the tokenizer of Claude 1 and 2 only (the claude_legacy entry)
    **dict.fromkeys(("claude-3*", "claude-sonnet-*", "claude-opus-*", "claude-haiku-*"), _CLAUDE),
    # llama-models 0.3.0: Llama 2 has a SentencePiece vocabulary (sku_list.py's LLAMA2_VOCAB_SIZE), Llama 4
    # its own (llama_models/llama4/tokenizer.model); neither is in the registry
    **dict.fromkeys(("llama-2*", "llama2*", "meta-llama-2*"), "uses Llama 2's SentencePiece vocabulary (llama3 is Llama "
                                                                "3's)"),
    **dict.fromkeys(("llama-4*", "llama4*"), "uses Llama 4's vocabulary (llama3 is Llama 3's)"),
    # Mistral 7B v0.3 (mistralai/Mistral-7B-v0.3) extends v0.1's 32,000 pieces to 32,768 (mistral-common's
    # tokenizer v3, mistral_instruct_tokenizer_240323.model.v3), which the registry does not have
    "mistral-7b-v0.3*": _MISTRAL_V3,
    "mistral-7b-instruct-v0.3*": _MISTRAL_V3,
    # deepseek-ai/DeepSeek-R1-Distill-*: "fine-tuned based on open-source models ... We slightly change their
    # configs and tokenizers" (the model card): Qwen2.5's or Llama 3's tokens with DeepSeek's special tokens
    "deepseek-r1-distill-qwen-*": "uses Qwen2.5's tokens with DeepSeek's special tokens (qwen has the same "
                                  "ordinary tokens)",
    "deepseek-r1-distill-llama-*": "uses Llama 3's tokens with DeepSeek's special tokens (llama3 has the same "
                                   "ordinary tokens)",
    # openai/whisper-large-v3 adds a 100th language token (Cantonese), which moves every special id after it;
    # the English-only models (whisper-tiny.en ...) use GPT-2's vocabulary (whisper/tokenizer.py, gpt2.tiktoken)
    "whisper-large-v3*": "has 100 language tokens, one more than the whisper entry's 99, so its special ids "
                         "differ",
    **dict.fromkeys(("whisper-tiny.en", "whisper-base.en", "whisper-small.en", "whisper-medium.en"), _WHISPER_EN),
}


SHOWN = 80          # characters of a model name a message repeats
LONGEST = 200       # longer names are no model's: no close matches are looked for


class UnknownModelError(KeyError):
    """A model name `for_model` cannot map: a KeyError, as tiktoken's `encoding_for_model` raises, whose
    message says why (a tokenizer the registry does not offer) or lists close matches (`suggestions`).
    `str()` is the plain message (KeyError's own would quote it)."""

    def __init__(self, model: str, *, reason: str = "", suggestions: tuple[str, ...] = ()):
        self.model, self.reason, self.suggestions = model, reason, suggestions
        model = model if len(model) <= SHOWN else model[:SHOWN] + "…"
        if reason:
            message = f"Token Lens does not offer the tokenizer of {model!r}: it {reason}."
        else:
            message = f"No tokenizer is known for the model {model!r}."
            if suggestions:
                message += f" Close matches: {', '.join(suggestions)}."
            message += " Or pick a tokenizer by name."
        super().__init__(message)

    def __str__(self) -> str:
        return str(self.args[0])


def normalize(name: str) -> str:
    return name.strip().lower()


def _candidates(name: str) -> list[str]:
    """The lowercased name, and for an owner/model repository name the model part too."""
    key = normalize(name)
    return [key, key.rsplit("/", 1)[1]] if "/" in key.rstrip("/") else [key]


def _match(key: str, patterns: Mapping[str, object]):
    """The value of the exact name, else of the longest prefix pattern that `key` starts with, else None."""
    if key in patterns and not key.endswith("*"):
        return patterns[key]
    best = None
    for pattern in patterns:
        if pattern.endswith("*") and key.startswith(pattern[:-1]) and (best is None or len(pattern) > len(best)):
            best = pattern
    return None if best is None else patterns[best]


class _Elsewhere(str):
    pass


def lookup(name: str, table: Mapping[str, str]) -> str:
    """The tokenizer name `table` (model name or "prefix*" -> tokenizer name, lowercase) gives model
    `name`, with ELSEWHERE's reasons among them; UnknownModelError if none does."""
    if not isinstance(name, str) or not name.strip():
        raise UnknownModelError(str(name), suggestions=())
    patterns: dict[str, object] = {p: _Elsewhere(why) for p, why in ELSEWHERE.items()}
    patterns.update(table)
    for key in _candidates(name):
        found = _match(key, patterns)
        if isinstance(found, _Elsewhere):
            raise UnknownModelError(name.strip(), reason=str(found))
        if found is not None:
            return found
    raise UnknownModelError(name.strip(), suggestions=suggest(name, table))


def suggest(name: str, table: Mapping[str, str], n: int = 5) -> tuple[str, ...]:
    """Model names of `table` (a prefix without its "*") close to `name` (difflib's ratio)."""
    if len(name) > LONGEST:
        return ()
    # the names, and each prefix's stem where that is a name too ("gpt-4o" of "gpt-4o-*"; not "gpt-4.5")
    names = sorted({n for n in (p.rstrip("*").rstrip("-") for p in table) if _match(n, table) is not None})
    found: list[str] = []
    for key in _candidates(name):
        for m in difflib.get_close_matches(key, names, n=n, cutoff=0.6):
            if m not in found:
                found.append(m)
    return tuple(found[:n])
