"""Compare's chat mode through AppTest: the counts of each vendor's chat format equal the library's, turns
are added and removed, a link opens it, and a long conversation is cut to its bound."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from conftest import app_test
from tokenizers import get_tokenizer
from tokenizers.chat import Message, chat_tokenizer, format_for, tokenize_chat

K = "compare_"


def chat_app() -> AppTest:
    at = app_test(timeout=180)
    assert not at.exception
    at.radio(key=f"{K}mode").set_value("Chat").run()
    assert not at.exception
    return at


def summary(at) -> dict[str, dict]:
    df = at.dataframe[0].value  # the summary comes first
    return {r["tokenizer"]: r for r in df.to_dict("records")}


def conversation(at) -> list[Message]:
    roles = [s.value for s in at.selectbox if s.key and s.key.startswith(f"{K}chat_role_")]
    texts = [t.value for t in at.text_area if t.key and t.key.startswith(f"{K}chat_text_")]
    return [Message(r, t) for r, t in zip(roles, texts)]


def test_chat_mode_counts_equal_the_library():
    at = chat_app()
    conv = conversation(at)
    got = summary(at)
    assert set(got) == {"Llama 3", "Qwen / Qwen2.5", "Mistral Tekken", "o200k_harmony (gpt-oss)"}
    for name in ["llama3", "qwen", "mistral_tekken", "o200k_harmony"]:
        tok = chat_tokenizer(name, get_tokenizer(name))
        res = tokenize_chat(tok, format_for(name), conv)
        row = got[tok.title if name != "o200k_harmony" else "o200k_harmony (gpt-oss)"]
        assert row["tokens"] == res.total == len(tok.encode(res.text, allowed_special=set(format_for(name).specials)))
        assert row["message words"] == res.content_total and row["format overhead"] == res.overhead
    assert at.query_params["mode"] == "chat"
    codes = [c.value for c in at.code]
    assert any(c.startswith("<|begin_of_text|><|start_header_id|>system") for c in codes)
    assert "tl-special" in " ".join(h.proto.body for h in at.get("html"))


def test_chat_turns_are_added_and_removed():
    at = chat_app()
    n = len(conversation(at))
    at.button(key=f"{K}chat_add_assistant").click().run()
    assert len(conversation(at)) == n + 1 and conversation(at)[-1].role == "assistant"
    at.button(key=f"{K}chat_remove_0").click().run()
    conv = conversation(at)
    assert len(conv) == n and conv[0].role == "user"  # the system turn went, the others kept their text
    texts = [t for t in at.text_area if t.key and t.key.startswith(f"{K}chat_text_")]
    texts[0].set_value("<|im_start|> and [INST] are text here").run()
    assert not at.exception
    assert any("stays text" in i.value for i in at.info)


def test_chat_mode_with_cl100k_and_mistral_sp_and_an_empty_conversation():
    at = chat_app()
    at.multiselect(key=f"{K}chat_tokenizers").set_value(["cl100k_base", "mistral_sp", "claude_legacy"]).run()
    assert not at.exception
    assert set(summary(at)) == {"cl100k_base (GPT-4)", "Mistral 7B (SentencePiece)", "Claude ≤ 2 (legacy)"}
    for key in [k for k in (s.key for s in at.button) if k and k.startswith(f"{K}chat_remove_")]:
        at.button(key=key).click().run()
    assert any("Add a turn" in i.value for i in at.info)


def test_chat_link_opens_chat_mode():
    at = app_test(query={"mode": "chat"}, timeout=180)
    assert not at.exception
    assert at.radio(key=f"{K}mode").value == "Chat"


def test_a_long_conversation_is_cut_to_its_bound():
    from app_pages.kit.compare_chat import cut_messages

    msgs = [Message("user", "a" * 70), Message("assistant", "b" * 70), Message("user", "c" * 70)]
    assert cut_messages(msgs, 1000) == (msgs, 210)
    cut, total = cut_messages(msgs, 100)
    assert total == 210
    assert [(m.role, m.content) for m in cut] == [("user", "a" * 70), ("assistant", "b" * 30)]
    assert cut_messages(msgs, 70)[0] == msgs[:1]


def test_the_chat_page_counts_a_long_conversation_up_to_its_bound():
    from app_pages.kit.compare_chat import MAX_TOTAL_CHARS
    from conftest import app_test

    at = app_test(query={"tokenizers": "gpt2"}, timeout=300)
    at.session_state["compare_mode"] = "Chat"
    at.run()
    at.session_state["compare_chat_tokenizers"] = ["llama3"]
    for i in range(4):
        at.session_state[f"compare_chat_text_{i}"] = "word " * 20_000  # 100,000 characters each
    at.run()
    assert not at.exception, at.exception
    assert any(f"chat mode counts its first {MAX_TOTAL_CHARS:,}" in w.value for w in at.warning)
    # the counts are those of the cut conversation
    from app_pages.kit.compare_chat import cut_messages
    from tokenizers import get_tokenizer
    from tokenizers.chat import ROLES, chat_tokenizer, format_for, tokenize_chat

    roles = [at.session_state[f"compare_chat_role_{i}"] for i in range(4)]
    assert set(roles) <= set(ROLES)
    msgs, _ = cut_messages([Message(r, "word " * 20_000) for r in roles])
    want = tokenize_chat(chat_tokenizer("llama3", get_tokenizer("llama3")), format_for("llama3"), msgs,
                         add_generation_prompt=True).total
    assert at.dataframe[0].value["tokens"].tolist() == [want]
