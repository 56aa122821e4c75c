"""tokenizers.for_model: model names -> registry tokenizers, as tiktoken's encoding_for_model does for
OpenAI's models, and the vendors' models by plain and Hugging Face repository names."""

import pytest
import tiktoken.model

from tokenizers import REGISTRY, UnknownModelError, for_model, get_tokenizer, name_for_model
from tokenizers.registry import MODELS
from tokenizers.vocabularies import models
from tokenizers.vocabularies.tiktoken_files import get_encoding

SAMPLE = "Hello world! 123 年 🤖 <|endoftext|>   def f(x):\n\treturn x"
SAME = {"r50k_base": "gpt2"}  # tiktoken's encodings the registry has under another name (test below)


def expected(encoding: str) -> str:
    return SAME.get(encoding, encoding)


def in_registry(encoding: str) -> bool:
    return expected(encoding) in REGISTRY


# -- tiktoken parity --------------------------------------------------------------------------------
@pytest.mark.parametrize("model", sorted(tiktoken.model.MODEL_TO_ENCODING))
def test_every_tiktoken_model_name_maps_as_tiktoken_maps_it(model):
    encoding = tiktoken.model.encoding_name_for_model(model)
    if in_registry(encoding):
        assert name_for_model(model) == expected(encoding)
        assert name_for_model(model.upper()) == expected(encoding)  # case does not matter
    else:  # p50k_base, p50k_edit: said, not guessed
        with pytest.raises(UnknownModelError, match=f"it uses tiktoken's {encoding}"):
            name_for_model(model)


def _prefix_probes() -> list[str]:
    probes = []
    for prefix in tiktoken.model.MODEL_PREFIX_TO_ENCODING:
        probes += [prefix + "2024-08-06", prefix + "0613", prefix + "mini-2025-04-14", prefix + "x:org::abc"]
    return probes


@pytest.mark.parametrize("model", _prefix_probes())
def test_tiktoken_prefixes_map_as_tiktoken_maps_them(model):
    assert name_for_model(model) == expected(tiktoken.model.encoding_name_for_model(model))


def test_tiktoken_parity_covers_what_the_issue_names():
    for model, name in [("gpt-4o", "o200k_base"), ("gpt-4o-2024-08-06", "o200k_base"), ("gpt-4.1", "o200k_base"),
                        ("gpt-4.1-nano", "o200k_base"), ("o1", "o200k_base"), ("o3-mini", "o200k_base"),
                        ("o4-mini-2025-04-16", "o200k_base"), ("gpt-4", "cl100k_base"), ("gpt-4-0613", "cl100k_base"),
                        ("gpt-3.5-turbo", "cl100k_base"), ("gpt-3.5-turbo-0125", "cl100k_base"),
                        ("text-embedding-3-small", "cl100k_base"), ("gpt2", "gpt2"), ("gpt-oss-120b", "o200k_harmony")]:
        assert name_for_model(model) == name == tiktoken.model.encoding_name_for_model(model), model


@pytest.mark.parametrize("encoding", sorted({e for e in tiktoken.model.MODEL_TO_ENCODING.values() if in_registry(e)}))
def test_for_model_gives_tiktokens_vocabulary(encoding):
    model = next(m for m, e in tiktoken.model.MODEL_TO_ENCODING.items() if e == encoding)
    ours, theirs = for_model(model), get_encoding(encoding)
    assert ours.name == expected(encoding) and ours.n_vocab == theirs.n_vocab
    assert ours.encode(SAMPLE, allowed_special="all") == theirs.encode(SAMPLE, allowed_special="all")


def test_r50k_base_is_gpt2():
    """The GPT-3 models map to gpt2: tiktoken's r50k_base has GPT-2's ranks, special token and pattern."""
    r50k, gpt2 = get_encoding("r50k_base"), get_encoding("gpt2")
    assert r50k._mergeable_ranks == gpt2._mergeable_ranks and r50k._special_tokens == gpt2._special_tokens
    assert r50k._pat_str == gpt2._pat_str and r50k.n_vocab == gpt2.n_vocab == get_tokenizer("gpt2").n_vocab


# -- the vendors' models ----------------------------------------------------------------------------
@pytest.mark.parametrize("model, name", [
    ("meta-llama/Meta-Llama-3-8B", "llama3"), ("meta-llama/Meta-Llama-3.1-8B", "llama3"),
    ("meta-llama/Llama-3.1-8B-Instruct", "llama3"), ("meta-llama/Llama-3.2-1B", "llama3"),
    ("meta-llama/Llama-3.2-11B-Vision-Instruct", "llama3"), ("meta-llama/Llama-3.3-70B-Instruct", "llama3"),
    ("Llama 3.1".replace(" ", "-"), "llama3"), ("llama3.2", "llama3"), ("LLAMA-3", "llama3"),
    ("mistralai/Mistral-7B-v0.1", "mistral_sp"), ("mistralai/Mistral-7B-Instruct-v0.2", "mistral_sp"),
    ("Mistral-7B", "mistral_sp"), ("mistralai/Mixtral-8x7B-Instruct-v0.1", "mistral_sp"),
    ("mistralai/Mistral-Nemo-Instruct-2407", "mistral_tekken"), ("mistral-nemo", "mistral_tekken"),
    ("mistralai/Ministral-8B-Instruct-2410", "mistral_tekken"), ("mistralai/Pixtral-12B-2409", "mistral_tekken"),
    ("Qwen/Qwen-7B", "qwen"), ("Qwen/Qwen1.5-7B-Chat", "qwen"), ("Qwen/Qwen2-72B", "qwen"),
    ("Qwen/Qwen2.5-7B-Instruct", "qwen"), ("qwen2.5", "qwen"), ("Qwen/Qwen2.5-Coder-32B-Instruct", "qwen"),
    ("deepseek-ai/DeepSeek-V3", "deepseek_v3"), ("deepseek-ai/DeepSeek-V3-0324", "deepseek_v3"),
    ("deepseek-ai/DeepSeek-R1", "deepseek_v3"), ("DeepSeek-R1-Zero", "deepseek_v3"),
    ("claude-2.1", "claude_legacy"), ("claude-instant-1.2", "claude_legacy"), ("claude-1.3-100k", "claude_legacy"),
    ("claude-v1", "claude_legacy"),
    ("openai/whisper-small", "whisper"), ("whisper-large-v2", "whisper"), ("whisper-1", "whisper"),
    ("openai/gpt-oss-20b", "o200k_harmony"), ("gpt-oss-120b", "o200k_harmony"),
    ("openai-community/gpt2-large", "gpt2"), ("  GPT-4o  ", "o200k_base"),
])
def test_vendor_models_by_plain_and_repository_names(model, name):
    assert name_for_model(model) == name
    assert for_model(model) is get_tokenizer(name)


@pytest.mark.parametrize("model, why", [
    ("claude-3-5-sonnet-20241022", "Anthropic has not published"), ("claude-sonnet-4-5", "Anthropic has not published"),
    ("mistralai/Mistral-7B-v0.3", "32,768"), ("deepseek-ai/DeepSeek-R1-Distill-Qwen-7B", "qwen has the same"),
    ("deepseek-ai/DeepSeek-R1-Distill-Llama-8B", "llama3 has the same"), ("openai/whisper-large-v3", "100 language"),
    ("openai/whisper-large-v3-turbo", "100 language"), ("openai/whisper-tiny.en", "gpt2 has the same"),
    ("code-davinci-002", "p50k_base"),
])
def test_models_whose_tokenizer_is_not_offered_say_why(model, why):
    with pytest.raises(UnknownModelError) as e:
        name_for_model(model)
    assert str(e.value) == f"Token Lens does not offer the tokenizer of {model!r}: it {e.value.reason}."
    assert why in str(e.value) and e.value.suggestions == ()


# -- unknown names ----------------------------------------------------------------------------------
def test_an_unknown_name_is_a_key_error_with_close_matches():
    with pytest.raises(KeyError) as e:
        for_model("gpt-4x")
    assert isinstance(e.value, UnknownModelError) and e.value.suggestions[:2] == ("gpt-4", "gpt-4o")
    # no KeyError quotes around the message: pages show str(e)
    assert str(e.value) == ("No tokenizer is known for the model 'gpt-4x'. Close matches: "
                            + ", ".join(e.value.suggestions) + ". Or pick a tokenizer by name.")
    with pytest.raises(KeyError) as e:
        name_for_model("meta-llama/Lama-3.1-8B")
    assert "llama-3.1" in e.value.suggestions
    for nothing in ("", "   ", "zzzzzzzz", "<script>"):
        with pytest.raises(UnknownModelError) as e:
            name_for_model(nothing)
        assert e.value.suggestions == ()


def test_a_llama_that_is_not_llama_3_is_not_taken_for_it():
    for model in ("llama-30b", "huggyllama/llama-30b", "meta-llama/Llama-2-7b-hf", "meta-llama/Llama-4-Scout-17B-16E",
                  "llama2", "Llama-4"):
        with pytest.raises(UnknownModelError):
            name_for_model(model)
    with pytest.raises(UnknownModelError, match="Llama 2's SentencePiece"):
        name_for_model("meta-llama/Llama-2-7b-chat-hf")


# -- the table --------------------------------------------------------------------------------------
def test_each_model_name_belongs_to_one_tokenizer():
    seen: dict[str, str] = {}
    for entry in REGISTRY.values():
        for m in entry.models:
            assert m == m.lower().strip() and m.count("*") <= 1 and m.rstrip("*") == m.replace("*", "")
            assert m not in seen, f"{m} is in both {seen[m]} and {entry.name}"
            seen[m] = entry.name
    assert not set(seen) & set(models.ELSEWHERE)
    assert len(MODELS) == len(seen) and set(MODELS.values()) <= set(REGISTRY)


def test_every_registry_tokenizer_but_the_trained_one_has_models():
    assert [n for n, e in REGISTRY.items() if not e.models] == ["custom_bpe"]


def test_every_suggestion_is_a_name_that_maps():
    """A prefix's stem is suggested only where it is a model name itself (gpt-4o, not gpt-4.5)."""
    for typo in ("gpt-4x", "gpt-4.5", "lama-3", "qwen3", "claude", "mistral", "deepseek-v2", "whisper-larg"):
        with pytest.raises(UnknownModelError) as e:
            name_for_model(typo)
        assert e.value.suggestions, typo
        for s in e.value.suggestions:
            assert name_for_model(s) in REGISTRY
    assert "gpt-4.5" not in models.suggest("gpt-4.5", MODELS)
