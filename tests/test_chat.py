"""Chat formats (tokenizers/chat/formats.py) against the vendors' own formatting code: llama-models'
ChatFormat and mistral-common's instruct tokenizers, run out of the provisioned wheels in a
subprocess; OpenAI's openai-harmony renderer; the anthropic SDK's prompt constants. And the counts:
the tokens of a chat are those of its formatted text encoded with the format's specials allowed."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import zipfile

import pytest

from tokenizers import get_tokenizer
from tokenizers.chat import FORMATS, Message, chat_tokenizer, format_for, tokenize_chat
from tokenizers.vocabularies.provision import LLAMA_MODELS, MISTRAL_COMMON, ANTHROPIC, _wheel_path, vendor_path

CONVERSATIONS = [
    [Message("user", "Hello world")],
    [Message("system", "Be brief."), Message("user", "Hello world"), Message("assistant", "Hi!"),
     Message("user", "Again")],
    [Message("system", "Tu es un assistant. Réponds en français 🇫🇷."), Message("user", "안녕하세요 👋 what's 2+2?"),
     Message("assistant", "4 — c'est facile.\n\n```python\nprint(2 + 2)\n```"), Message("user", "  spaces  and\ttabs ")],
    [Message("user", "first"), Message("assistant", "second"), Message("user", "third"), Message("assistant", "fourth"),
     Message("user", "<|im_start|> [INST] <s> stays text")],
]


def as_json(conv):
    return [{"role": m.role, "content": m.content} for m in conv]


def run_vendor(script: str, wheel, payload, tmp_path, extra_path=()) -> list:
    """Run a vendor's own code out of its provisioned wheel, in a fresh interpreter outside the repo."""
    target = tmp_path / wheel.requirement.split("==")[0]
    if not target.exists():
        with zipfile.ZipFile(_wheel_path(wheel)) as z:
            z.extractall(target)
    code = f"import sys, json; sys.path[:0] = {[str(target), *map(str, extra_path)]!r}\n" + script
    res = subprocess.run([sys.executable, "-I", "-c", code], input=json.dumps(payload), capture_output=True, text=True,
                         cwd=tmp_path, timeout=300)
    assert res.returncode == 0, res.stderr[-3000:]
    return json.loads(res.stdout.strip().splitlines()[-1])


LLAMA_SCRIPT = """
from pathlib import Path
from llama_models.llama3.chat_format import ChatFormat
from llama_models.llama3.tokenizer import Tokenizer
from llama_models.datatypes import RawMessage, StopReason
req = json.load(sys.stdin)
cf = ChatFormat(Tokenizer(Path(req["model"])))
out = []
for conv in req["conversations"]:
    msgs = [RawMessage(role=m["role"], content=m["content"],
                       **({"stop_reason": StopReason.end_of_turn} if m["role"] == "assistant" else {})) for m in conv]
    out.append(cf.encode_dialog_prompt(msgs).tokens)
print(json.dumps(out))
"""


def test_llama3_equals_llama_models_chat_format(tmp_path):
    want = run_vendor(LLAMA_SCRIPT, LLAMA_MODELS, {"model": str(vendor_path("llama3")),
                                                   "conversations": [as_json(c) for c in CONVERSATIONS]}, tmp_path)
    tok = get_tokenizer("llama3")
    assert len(want) == len(CONVERSATIONS)  # zip would stop at the shorter list
    for conv, ids in zip(CONVERSATIONS, want):
        assert list(tokenize_chat(tok, FORMATS["llama3"], conv).tokens.ids) == ids


MISTRAL_SCRIPT = """
from mistral_common.tokens.tokenizers.mistral import MistralTokenizer
from mistral_common.protocol.instruct.messages import UserMessage, AssistantMessage, SystemMessage
from mistral_common.protocol.instruct.request import ChatCompletionRequest
req = json.load(sys.stdin)
kinds = {"system": SystemMessage, "user": UserMessage, "assistant": AssistantMessage}
t = MistralTokenizer.from_file(req["model"])
out = []
for conv in req["conversations"]:
    r = t.encode_chat_completion(ChatCompletionRequest(messages=[kinds[m["role"]](content=m["content"]) for m in conv]))
    out.append([r.tokens, r.text])
print(json.dumps(out))
"""


@pytest.mark.parametrize("name,model", [("mistral_tekken", "tekken"), ("mistral_sp", "sentencepiece")])
def test_mistral_equals_mistral_common(tmp_path, name, model):
    from tokenizers.vocabularies.provision import sentencepiece_model_path

    path = vendor_path("mistral_tekken") if model == "tekken" else sentencepiece_model_path()
    if model == "sentencepiece":  # mistral-common tells the version from the file name
        link = tmp_path / "tokenizer.model.v1"
        link.write_bytes(path.read_bytes())
        path = link
    else:
        link = tmp_path / "tekken_240718.json"
        link.write_bytes(path.read_bytes())
        path = link
    convs = [c for c in CONVERSATIONS if c[-1].role == "user"]
    want = run_vendor(MISTRAL_SCRIPT, MISTRAL_COMMON, {"model": str(path), "conversations": [as_json(c) for c in convs]},
                      tmp_path)
    tok = get_tokenizer(name)
    assert len(want) == len(convs) > 0  # zip would stop at the shorter list
    for conv, (ids, _text) in zip(convs, want):
        got = tokenize_chat(tok, format_for(name), conv)
        assert list(got.tokens.ids) == ids


@pytest.fixture
def harmony(tmp_path, monkeypatch):
    """openai-harmony reads o200k_base from TIKTOKEN_ENCODINGS_BASE: the provisioned file, renamed."""
    from tokenizers.vocabularies.provision import cache_path, tiktoken_pins

    (url, _), = tiktoken_pins("o200k_base")
    (tmp_path / "o200k_base.tiktoken").write_bytes(cache_path(url).read_bytes())
    monkeypatch.setenv("TIKTOKEN_ENCODINGS_BASE", str(tmp_path))
    import openai_harmony as oh

    return oh, oh.load_harmony_encoding(oh.HarmonyEncodingName.HARMONY_GPT_OSS)


def test_harmony_equals_openai_harmony(harmony):
    oh, enc = harmony
    tok = get_tokenizer("o200k_harmony")
    for conv in CONVERSATIONS:
        msgs = [oh.Message.from_role_and_content(oh.Role.SYSTEM, oh.SystemContent.new())]
        system = [m for m in conv if m.role == "system"]
        for m in system:
            msgs.append(oh.Message.from_role_and_content(oh.Role.DEVELOPER,
                                                         oh.DeveloperContent.new().with_instructions(m.content)))
        for m in conv:
            if m.role == "user":
                msgs.append(oh.Message.from_role_and_content(oh.Role.USER, m.content))
            elif m.role == "assistant":
                msgs.append(oh.Message.from_role_and_content(oh.Role.ASSISTANT, m.content).with_channel("final"))
        convo = oh.Conversation.from_messages(msgs)
        want = enc.render_conversation_for_completion(convo, oh.Role.ASSISTANT)
        assert list(tokenize_chat(tok, FORMATS["harmony"], conv).tokens.ids) == list(want)


def test_claude_legacy_uses_the_sdk_prompt_constants(tmp_path):
    with zipfile.ZipFile(_wheel_path(ANTHROPIC)) as z:
        src = z.read("anthropic/_constants.py").decode()
    consts = {n.targets[0].id: ast.literal_eval(n.value) for n in ast.parse(src).body
              if isinstance(n, ast.Assign) and isinstance(n.targets[0], ast.Name)
              and n.targets[0].id in ("HUMAN_PROMPT", "AI_PROMPT")}
    human, ai = consts["HUMAN_PROMPT"], consts["AI_PROMPT"]
    conv = CONVERSATIONS[1]
    got = tokenize_chat(get_tokenizer("claude_legacy"), FORMATS["claude_legacy"], conv)
    assert got.text == f"Be brief.{human} Hello world{ai} Hi!{human} Again{ai}"


CHATML_QWEN = [151644, 8948, 198, 3430, 9814, 13, 151645, 198, 151644, 872, 198, 9707, 1879, 151645, 198,
               151644, 77091, 198]


def test_chatml_vectors():
    conv = [Message("system", "Be brief."), Message("user", "Hello world")]
    got = tokenize_chat(get_tokenizer("qwen"), FORMATS["chatml_qwen"], conv)
    assert got.text == "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nHello world<|im_end|>\n<|im_start|>assistant\n"
    assert list(got.tokens.ids) == CHATML_QWEN
    cl = chat_tokenizer("cl100k_base", get_tokenizer("cl100k_base"))
    ids = list(tokenize_chat(cl, FORMATS["chatml_openai"], conv).tokens.ids)
    assert ids[0] == 100264 and ids.count(100265) == 2 and cl.special_tokens["<|im_end|>"] == 100265


@pytest.mark.parametrize("name", ["qwen", "cl100k_base", "llama3", "mistral_tekken", "o200k_harmony", "claude_legacy"])
@pytest.mark.parametrize("k", range(len(CONVERSATIONS) - 1))  # the last one holds special-token strings
def test_counts_equal_the_formatted_text_encoded_with_specials_allowed(name, k):
    conv = CONVERSATIONS[k]
    fmt = format_for(name)
    tok = chat_tokenizer(name, get_tokenizer(name))
    got = tokenize_chat(tok, fmt, conv)
    assert got.total == len(tok.encode(got.text, allowed_special=set(fmt.specials)))
    assert sum(m.tokens for m in got.messages) + got.format_tokens == got.total
    assert got.content_total == sum(len(tok.encode(m.content, disallowed_special=())) for m in conv)
    assert got.overhead == got.total - got.content_total
    # special tokens are drawn as specials
    assert sum(t.special for t in got.tokens) == sum(got.text.count(s) for s in fmt.specials)


@pytest.mark.parametrize("name", ["qwen", "cl100k_base", "mistral_tekken"])
def test_special_strings_inside_a_message_stay_text(name):
    conv = CONVERSATIONS[-1]
    fmt = format_for(name)
    got = tokenize_chat(chat_tokenizer(name, get_tokenizer(name)), fmt, conv)
    inside = sum(m.content.count(s) for m in conv for s in fmt.specials)
    assert inside > 0
    assert sum(t.special for t in got.tokens) == sum(got.text.count(s) for s in fmt.specials) - inside


def test_sentencepiece_chat_spans_tile_the_formatted_text():
    got = tokenize_chat(get_tokenizer("mistral_sp"), FORMATS["mistral_v1"], CONVERSATIONS[2])
    ends = list(got.tokens.byte_ends)
    assert list(got.tokens.byte_starts) == [0, *ends[:-1]] and ends[-1] == len(got.text.encode())
    assert [t.id for t in got.tokens if t.special] == [1, 2]


def test_mistral_order_warning():
    got = tokenize_chat(get_tokenizer("mistral_tekken"), FORMATS["mistral_v3"],
                        [Message("assistant", "hi"), Message("assistant", "again")])
    assert any("alternate" in w for w in got.warnings)


def test_no_format_for_tokenizers_without_one():
    assert format_for("gpt2") is None and format_for("whisper") is None
