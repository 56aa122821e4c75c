"""Chat formats: how a conversation (system / user / assistant messages) becomes the one text a model
reads, and what the format itself costs in tokens. No Streamlit.

Each format is a small template written here from the vendor's public documentation, and the tests
hold it equal to the vendor's own formatting code where a package offers it
(tests/test_chat.py):

- ChatML: `<|im_start|>{role}\\n{content}<|im_end|>\\n` per message, `<|im_start|>assistant\\n` to
  prompt a reply. Qwen (Qwen's chat documentation) and GPT-3.5/GPT-4 (OpenAI's ChatML document;
  tiktoken's README extends cl100k_base with <|im_start|> = 100264 and <|im_end|> = 100265, which is
  what `chat_tokenizer` does). Qwen's own templates add a default system message when there is
  none; this one adds nothing the person did not write.
- Llama 3 (Meta's prompt-format documentation; llama_models/llama3/chat_format.py):
  `<|begin_of_text|>`, then per message `<|start_header_id|>{role}<|end_header_id|>\\n\\n{content}<|eot_id|>`,
  and the assistant header to prompt a reply.
- Mistral (mistral-common): `<s>[INST] ... [/INST]` around each user turn, each assistant reply
  followed by `</s>`. For the SentencePiece v1 tokenizer (Mistral 7B v0.1) the markers are text,
  spaced, and the system prompt goes before the first user message; for Tekken (v3) they are
  special tokens, unspaced, and the system prompt goes before the last user message. SentencePiece
  never parses special tokens from text, so for it each piece is encoded on its own, as
  mistral-common does (each gets SentencePiece's ▁ prefix), and <s>, </s> are added as ids.
- OpenAI harmony (gpt-oss, o200k_harmony; OpenAI's harmony documentation and its `openai-harmony`
  renderer): a system message with the model's identity, knowledge cut-off, reasoning level and
  channels; the person's system prompt as a developer message (`# Instructions`); each message
  `<|start|>{role}<|message|>{content}<|end|>`, assistant replies in the `final` channel.
- Claude ≤ 2 (Anthropic's legacy Text Completions format; the anthropic SDK's HUMAN_PROMPT and
  AI_PROMPT): `\\n\\nHuman: {content}` and `\\n\\nAssistant: {content}`, the system prompt first,
  ending with `\\n\\nAssistant:`. It has no special tokens.

Counting: the template's special tokens are their ids, and the text between them is encoded as text,
so a special-token string inside a message stays text (as every vendor's chat code keeps it). For
tokenizers that parse special tokens this is exactly the formatted text encoded with the format's
special tokens allowed, whenever no message itself holds a special-token string. A token belongs to the message whose part of
the text it starts in; tokens of the template outside any message (a <|begin_of_text|>, harmony's
system message, the reply prompt) belong to the format. A message's "content" tokens are its text
encoded on its own; everything else is the format's overhead.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from tokenizers.core.spans import tile
from tokenizers.core.tokenizer import Tokenizer, TokenList
from tokenizers.vocabularies import records

ROLES = ("system", "user", "assistant")


@dataclass(frozen=True)
class Message:
    role: str
    content: str


@dataclass(frozen=True)
class Part:
    text: str
    special: bool = False          # one special token
    message: int | None = None     # index of the message it belongs to; None: the format's own
    unit: int = 0                  # where the vendor encodes pieces separately (SentencePiece), a new unit


@dataclass
class ChatFormat:
    key: str
    title: str
    source: str                     # where the template comes from, in words
    render: Callable[[list[Message], bool], list[Part]]
    specials: tuple[str, ...] = ()  # the special tokens the format uses
    segmented: bool = False         # encode each unit on its own (SentencePiece)
    note: str = ""

    def warnings(self, messages: list[Message]) -> list[str]:
        out = []
        if self.key.startswith("mistral"):
            turns = [m.role for m in messages if m.role != "system"]
            if turns and (turns[0] != "user" or any(a == b for a, b in zip(turns, turns[1:]))):
                out.append("Mistral's format expects user and assistant turns to alternate, starting with the user; "
                           "mistral-common refuses other orders. Shown as the template writes it.")
            if not turns or "user" not in turns:
                out.append("Mistral's format puts the system prompt into a user message; with no user message it "
                           "is left out.")
        return out


# -- the templates ---------------------------------------------------------------------------------
def _chatml(messages: list[Message], prompt: bool) -> list[Part]:
    parts: list[Part] = []
    for i, m in enumerate(messages):
        parts += [Part("<|im_start|>", True, i), Part(f"{m.role}\n{m.content}", False, i), Part("<|im_end|>", True, i),
                  Part("\n", False, i)]
    if prompt:
        parts += [Part("<|im_start|>", True), Part("assistant\n")]
    return parts


def _llama3(messages: list[Message], prompt: bool) -> list[Part]:
    parts = [Part("<|begin_of_text|>", True)]
    for i, m in enumerate(messages):
        parts += [Part("<|start_header_id|>", True, i), Part(m.role, False, i), Part("<|end_header_id|>", True, i),
                  Part("\n\n" + m.content, False, i), Part("<|eot_id|>", True, i)]
    if prompt:
        parts += [Part("<|start_header_id|>", True), Part("assistant"), Part("<|end_header_id|>", True), Part("\n\n")]
    return parts


def _mistral(spaced: bool, system_first: bool):
    """Mistral's [INST] format: v1 (SentencePiece, spaced text markers, system before the first user
    message) or v3 Tekken (special-token markers, system before the last user message)."""

    def render(messages: list[Message], prompt: bool) -> list[Part]:
        system = [i for i, m in enumerate(messages) if m.role == "system"]
        users = [i for i, m in enumerate(messages) if m.role == "user"]
        host = (users[0] if system_first else users[-1]) if users else None
        parts = [Part("<s>", True)]
        unit = 0
        for i, m in enumerate(messages):
            if m.role == "system":
                continue
            unit += 1
            if m.role == "user":
                open_, close = ("[INST] ", " [/INST]") if spaced else ("[INST]", "[/INST]")
                parts.append(Part(open_, not spaced, i, unit))
                if i == host:
                    for k, s in enumerate(system):
                        parts.append(Part(messages[s].content, False, s, unit))
                        parts.append(Part("\n\n", False, i, unit))
                parts.append(Part(m.content, False, i, unit))
                parts.append(Part(close, not spaced, i, unit))
            else:
                parts.append(Part(m.content, False, i, unit))
                parts.append(Part("</s>", True, i, unit))
        return parts

    return render


HARMONY_SYSTEM = ("You are ChatGPT, a large language model trained by OpenAI.\nKnowledge cutoff: 2024-06\n\n"
                  "Reasoning: medium\n\n# Valid channels: analysis, commentary, final. Channel must be included for "
                  "every message.")


def _harmony(messages: list[Message], prompt: bool) -> list[Part]:
    parts = [Part("<|start|>", True), Part("system"), Part("<|message|>", True), Part(HARMONY_SYSTEM),
             Part("<|end|>", True)]
    system = [i for i, m in enumerate(messages) if m.role == "system"]
    for i in system:
        parts += [Part("<|start|>", True, i), Part("developer", False, i), Part("<|message|>", True, i),
                  Part("# Instructions\n\n" + messages[i].content, False, i), Part("<|end|>", True, i)]
    for i, m in enumerate(messages):
        if m.role == "system":
            continue
        parts += [Part("<|start|>", True, i), Part(m.role, False, i)]
        if m.role == "assistant":
            parts += [Part("<|channel|>", True, i), Part("final", False, i)]
        parts += [Part("<|message|>", True, i), Part(m.content, False, i), Part("<|end|>", True, i)]
    if prompt:
        parts += [Part("<|start|>", True), Part("assistant")]
    return parts


def _claude_legacy(messages: list[Message], prompt: bool) -> list[Part]:
    parts: list[Part] = []
    for i, m in enumerate(messages):
        if m.role == "system":
            parts.append(Part(m.content, False, i))
        elif m.role == "user":
            parts.append(Part(f"\n\nHuman: {m.content}", False, i))
        else:
            parts.append(Part(f"\n\nAssistant: {m.content}", False, i))
    if prompt:
        parts.append(Part("\n\nAssistant:"))
    return parts


CHATML_SOURCE = "ChatML, written from Qwen's and OpenAI's public documentation"
FORMATS = {
    "chatml_qwen": ChatFormat("chatml_qwen", "ChatML (Qwen)", CHATML_SOURCE, _chatml, ("<|im_start|>", "<|im_end|>"),
                              note="Qwen's own templates add a default system message when none is given; this adds "
                                   "only what you wrote."),
    "chatml_openai": ChatFormat("chatml_openai", "ChatML (GPT-3.5 / GPT-4)", CHATML_SOURCE, _chatml,
                                ("<|im_start|>", "<|im_end|>"),
                                note="cl100k_base with <|im_start|> = 100264 and <|im_end|> = 100265, as tiktoken's "
                                     "README extends it. OpenAI's API adds hidden tokens of its own, so its usage "
                                     "counts can differ by a few."),
    "llama3": ChatFormat("llama3", "Llama 3 header tokens",
                         "Meta's Llama 3 prompt format (llama-models' chat_format.py)", _llama3,
                         ("<|begin_of_text|>", "<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>")),
    "mistral_v1": ChatFormat("mistral_v1", "Mistral [INST] (SentencePiece v1)", "mistral-common's v1 instruct format",
                             _mistral(spaced=True, system_first=True), ("<s>", "</s>"), segmented=True,
                             note="SentencePiece never parses special tokens from text: each part is encoded on its "
                                  "own (with its ▁ prefix), as mistral-common does, and <s>, </s> are added as ids."),
    "mistral_v3": ChatFormat("mistral_v3", "Mistral [INST] (Tekken v3)", "mistral-common's v3 instruct format",
                             _mistral(spaced=False, system_first=False), ("<s>", "</s>", "[INST]", "[/INST]")),
    "harmony": ChatFormat("harmony", "OpenAI harmony (gpt-oss)", "OpenAI's harmony format (openai-harmony)", _harmony,
                          ("<|start|>", "<|message|>", "<|end|>", "<|channel|>"),
                          note="Harmony's system message (identity, knowledge cut-off, reasoning level, channels) is "
                               "part of every conversation: it counts as the format's overhead."),
    "claude_legacy": ChatFormat("claude_legacy", "Human / Assistant (Claude ≤ 2)",
                                "Anthropic's legacy Text Completions format (HUMAN_PROMPT, AI_PROMPT)", _claude_legacy),
}

# the chat formats of registry tokenizers that are not tiktoken-format vocabularies; those name theirs
# in their record (tokenizers/vocabularies/records.py)
OTHER_FORMATS = {"mistral_sp": "mistral_v1", "claude_legacy": "claude_legacy"}


# registry name -> FORMATS key, for the tokenizers that have a chat format
FORMAT_OF = records.View(lambda: {**{r.name: r.chat_format for r in records.VOCABULARIES if r.chat_format},
                                  **OTHER_FORMATS})


def format_for(name: str) -> ChatFormat | None:
    """The chat format of a registry tokenizer, or None when it has no published one."""
    key = FORMAT_OF.get(name)
    return FORMATS[key] if key else None


_chat_tokenizers: dict[int, Tokenizer] = {}


def chat_tokenizer(name: str, tok: Tokenizer) -> Tokenizer:
    """The tokenizer to render the chat with: `tok`, or, for a vocabulary whose record names special tokens
    its chat format adds (cl100k_base: ChatML's two, tiktoken README's cl100k_im), the same model with
    them, encoded by this library's own encoder."""
    record = records.find(name)
    extra = record.chat_specials if record is not None else None
    if not extra:
        return tok
    got = _chat_tokenizers.get(id(tok))
    if got is None:
        from tokenizers.bpe.model import BPETokenizer

        got = BPETokenizer.from_model(vocab=tok.vocab, merges=tok.merges, pattern=tok.pattern,
                                      special_tokens={**tok.special_tokens, **extra}, name=f"{name}+chatml")
        got.title = f"{tok.title} + ChatML tokens"
        _chat_tokenizers[id(tok)] = got
    return got


@dataclass
class MessageCount:
    role: str
    tokens: int     # tokens of the formatted text that start in this message's part
    content: int    # the message's text encoded on its own
    overhead: int   # tokens - content


@dataclass
class ChatResult:
    text: str                       # the formatted conversation
    tokens: TokenList
    owner: list[int | None]         # per token: the message it belongs to, or None (the format's own)
    messages: list[MessageCount]
    format_tokens: int              # tokens outside any message
    warnings: list[str] = field(default_factory=list)

    @property
    def total(self) -> int:
        return len(self.tokens)

    @property
    def content_total(self) -> int:
        return sum(m.content for m in self.messages)

    @property
    def overhead(self) -> int:
        return self.total - self.content_total


def _encode_parts(tok: Tokenizer, text: str, parts: list[Part], segmented: bool) -> TokenList:
    """Special parts as their ids; the text between them encoded as text (special-token strings in a
    message stay text, as every vendor's chat code keeps them). `segmented` (SentencePiece): each
    unit's text on its own, as mistral-common encodes it."""
    ids, lengths = [], []  # each token's bytes of text (tokenizers/core/spans.py tiles them)
    lead = 0  # bytes of text before the first token (a chunk the tokenizer gave no token)
    i = 0
    while i < len(parts):
        p = parts[i]
        if p.special:
            ids.append(tok.special_tokens[p.text])
            lengths.append(len(p.text.encode("utf-8")))
            i += 1
            continue
        j, chunk = i, ""
        while j < len(parts) and not parts[j].special and (not segmented or parts[j].unit == p.unit):
            chunk += parts[j].text
            j += 1
        got = tok.tokenize(chunk, disallowed_special=()) if chunk else []
        if got:
            ids.extend(got.ids)
            lengths.extend(b - a for a, b in zip(got.byte_starts, got.byte_ends))
        elif chunk:  # only whitespace a model drops: its bytes go to the token before
            if lengths:
                lengths[-1] += len(chunk.encode("utf-8"))
            else:
                lead += len(chunk.encode("utf-8"))
        i = j
    if lengths:
        lengths[0] += lead
    return TokenList(text, ids, *tile(lengths), tok)


def tokenize_chat(tok: Tokenizer, fmt: ChatFormat, messages: list[Message], *,
                  add_generation_prompt: bool = True) -> ChatResult:
    """The conversation rendered by `fmt` and tokenized by `tok` (see the module's notes)."""
    from tokenizers.core.patterns import pattern_budget

    with pattern_budget():  # one text: the uploaded patterns its parts and messages meet share one time budget
        return _tokenize_chat(tok, fmt, messages, add_generation_prompt)


def _tokenize_chat(tok: Tokenizer, fmt: ChatFormat, messages: list[Message], add_generation_prompt: bool) -> ChatResult:
    for m in messages:
        if m.role not in ROLES:
            raise ValueError(f"role must be one of {', '.join(ROLES)}, not {m.role!r}")
    prompt = add_generation_prompt and (not messages or messages[-1].role != "assistant")
    parts = fmt.render(list(messages), prompt)
    text = "".join(p.text for p in parts)
    missing = [s for s in fmt.specials if s not in tok.special_tokens]
    if missing:
        raise ValueError(f"{tok.name} has no special token(s) {', '.join(missing)} for {fmt.title}")
    toks = _encode_parts(tok, text, parts, fmt.segmented)
    # which message each byte belongs to: part boundaries in bytes
    bounds, owners, pos = [], [], 0
    for p in parts:
        pos += len(p.text.encode("utf-8"))
        bounds.append(pos)
        owners.append(p.message)
    from bisect import bisect_right

    owner = []
    for a in toks.byte_starts:
        k = bisect_right(bounds, a)
        owner.append(owners[k] if k < len(owners) else None)
    counts = []
    for i, m in enumerate(messages):
        n = sum(1 for o in owner if o == i)
        content = len(tok.encode(m.content, disallowed_special=())) if m.content else 0
        counts.append(MessageCount(m.role, n, content, n - content))
    return ChatResult(text, toks, owner, counts, sum(1 for o in owner if o is None), fmt.warnings(list(messages)))
