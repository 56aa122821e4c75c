"""The SentencePiece Lab page through AppTest: every control, every failure message, the tabs, the
upload, a child killed mid-training, and the trained model on Compare and Inside."""

import os
import threading
import time
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from conftest import app_test, open_page
import tokenizers.sentencepiece.train as spt
from tokenizers.core.corpus import stdlib_docstrings
from tokenizers.sentencepiece.train import LLAMA2_OPTIONS, OPTIONS, T5_OPTIONS

K = "sp_"
SMALL = ("The cat sat on the mat. The cat ate the rat. A fat rat sat on the cat's hat.\n"
         "Tokenizers cut text into pieces; a unigram model keeps the pieces that make the text most likely.\n")


def sp_app(**state) -> AppTest:
    return open_page("sentencepiece_lab", "SentencePiece Lab", state={f"{K}{k}": v for k, v in state.items()})


def set_option(at, name: str, value):
    key = f"{K}opt_{name}"
    default = OPTIONS[name].default
    if OPTIONS[name].choices:
        at.selectbox(key=key).set_value(value)
    elif isinstance(default, bool):
        at.checkbox(key=key).set_value(value)
    elif isinstance(default, (int, float)):
        at.number_input(key=key).set_value(value)
    else:
        at.text_input(key=key).set_value(value)


def train(at, text=None, **options) -> AppTest:
    if text is not None:
        at.radio(key=f"{K}source").set_value("Paste").run()
        at.text_area(key=f"{K}text").set_value(text)
    for name, value in options.items():
        set_option(at, name, value)
    at.button(key=f"{K}train").click().run()
    assert not at.exception
    return at


def errors(at) -> str:
    """The error messages as a reader sees them (the page escapes Markdown in them)."""
    import re

    return " ".join(re.sub(r"\\(.)", r"\1", e.value) for e in at.error)


def model(at):
    return at.session_state[f"{K}model"]


def tab(at, name: str) -> AppTest:
    at.session_state[f"{K}tab"] = name
    at.run()
    assert not at.exception
    return at


@pytest.fixture(scope="module")
def trained_bpe():
    """The default: Llama 2 preset on the built-in corpus (100 KB), vocab_size 1,000."""
    at = train(sp_app())
    assert any("Trained a **bpe** model of 1,000 pieces" in s.value for s in at.success)
    return at


@pytest.fixture(scope="module")
def trained_unigram():
    return train(sp_app(), model_type="unigram")


# -- training --------------------------------------------------------------------------------------
def test_first_view_explains_what_to_do():
    at = sp_app()
    assert any("press **Train**" in i.value for i in at.info)
    assert at.selectbox(key=f"{K}preset").value == "Llama 2"
    assert at.number_input(key=f"{K}opt_vocab_size").value == 1000
    assert any("Exactly Meta's published settings" in c.value for c in at.caption)


def test_llama2_preset_on_the_page_is_sentencepieces_own_model(trained_bpe, tmp_path):
    import sentencepiece as spm

    tok = model(trained_bpe)
    text = stdlib_docstrings(100_000)
    (tmp_path / "c.txt").write_text(text, encoding="utf-8", newline="")
    spm.SentencePieceTrainer.train(input=str(tmp_path / "c.txt"), model_prefix=str(tmp_path / "ref"),
                                   **{**LLAMA2_OPTIONS, "vocab_size": 1000})
    ref = spm.SentencePieceProcessor(model_file=str(tmp_path / "ref.model"))
    assert [tok.piece_of(i) for i in range(tok.vocab_size)] == [ref.IdToPiece(i) for i in range(ref.GetPieceSize())]
    probe = "hello 안녕하세요 👋 naïve café 1234567\n  def f(x): return x"
    assert tok.encode(probe, disallowed_special=()) == ref.EncodeAsIds(probe)
    from app_pages.kit.shared import USER_TOKENIZERS

    assert trained_bpe.session_state[USER_TOKENIZERS]["sp_lab"] is tok
    layout = [m.value for m in trained_bpe.markdown if m.value.startswith("**Layout**")][0]
    assert "control: 3 · byte: 256 · learned:" in layout


def test_presets_set_every_option_but_vocab_size():
    at = sp_app()
    at.number_input(key=f"{K}opt_vocab_size").set_value(777).run()
    for preset, values in [("Library defaults", {}), ("T5-style unigram", T5_OPTIONS), ("Llama 2", LLAMA2_OPTIONS)]:
        at.selectbox(key=f"{K}preset").set_value(preset).run()
        assert not at.exception
        for name, opt in OPTIONS.items():
            if name != "vocab_size":
                assert at.session_state[f"{K}opt_{name}"] == values.get(name, opt.default), (preset, name)
        assert at.number_input(key=f"{K}opt_vocab_size").value == 777
    changed = [c.value for c in at.caption if "Library default" in c.value and "**changed**" in c.value]
    assert len(changed) == len([n for n in LLAMA2_OPTIONS if LLAMA2_OPTIONS[n] != OPTIONS[n].default])


def test_every_option_reaches_the_trainer():
    at = sp_app()
    train(at, SMALL * 20, model_type="unigram", vocab_size=50, character_coverage=1.0, split_digits=False,
          split_by_unicode_script=False, split_by_whitespace=True, split_by_number=False, add_dummy_prefix=False,
          remove_extra_whitespaces=True, normalization_rule_name="nfkc", max_sentencepiece_length=8,
          allow_whitespace_only_pieces=False, treat_whitespace_as_suffix=True, max_sentence_length=9000,
          shuffle_input_sentence=False, input_sentence_size=1000, seed_sentencepiece_size=5000, unk_id=3, bos_id=2,
          eos_id=1, pad_id=0, unk_piece="<UNK>", bos_piece="<BOS>", eos_piece="<EOS>", pad_piece="<PAD>",
          user_defined_symbols="<tag>", control_symbols="<mask>,<sep>", byte_fallback=False)
    assert not errors(at)
    tok = model(at)
    spec, norm = tok.trainer_spec(), tok.normalizer_spec()
    assert spec["model_type"] == "unigram" and tok.vocab_size == 50 and spec["character_coverage"] == 1.0
    assert not spec["split_by_unicode_script"] and not spec["split_by_number"] and spec["treat_whitespace_as_suffix"]
    assert spec["max_sentencepiece_length"] == 8 and spec["max_sentence_length"] == 9000
    assert not spec["shuffle_input_sentence"] and spec["input_sentence_size"] == 1000
    assert spec["seed_sentencepiece_size"] == 5000
    assert norm["name"] == "nfkc" and not norm["add_dummy_prefix"]
    assert [tok.piece_of(i) for i in range(4)] == ["<PAD>", "<EOS>", "<BOS>", "<UNK>"]
    assert spec["user_defined_symbols"] == ["<tag>"] and spec["control_symbols"] == ["<mask>", "<sep>"]
    assert tok.piece_type(tok.piece_id("<tag>")) == "user_defined"
    assert any("Preset **Llama 2** with changes:" in c.value for c in at.caption)


@pytest.mark.parametrize("preset,text,options,says", [
    ("Llama 2", SMALL, dict(model_type="unigram", vocab_size=5000), "the trainer can make at most"),
    ("Llama 2", None, dict(vocab_size=100), "vocab_size 100 is too small: the model needs 352 pieces"),
    ("Llama 2", None, dict(character_coverage=0.5), "character_coverage must be between 0.98 and 1.0; it is 0.5"),
    ("Llama 2", "", {}, "The text is empty"),
    ("Library defaults", "   \n \t \n", {}, "The text holds only whitespace"),
    ("Llama 2", None, dict(bos_id=0), "unk_id and bos_id are both 0"),
    ("Llama 2", None, dict(pad_id=5000), "pad_id 5000 is not below vocab_size 1,000"),
    ("Library defaults", None, dict(unk_id=-1), "unk_id is -1, but the unknown piece must have an id"),
    ("Llama 2", None, dict(user_defined_symbols="<x>,<x>"), "<x> is defined twice"),
    ("Llama 2", None, dict(max_sentencepiece_length=0), "max_sentencepiece_length must be between 1 and 512"),
    ("Llama 2", None, dict(input_sentence_size=10), "input_sentence_size must be 0 (all lines) or more than 100"),
    ("Llama 2", None, dict(max_sentence_length=5), "max_sentence_length must be between 10 and"),
    ("Llama 2", None, dict(unk_piece=""), "unk_piece must not be empty"),
    ("Llama 2", None, dict(model_type="char", vocab_size=200), "the control and byte pieces alone take 259 ids"),
])
def test_failures_give_the_fix(preset, text, options, says):
    at = sp_app(preset=preset)
    if preset != "Llama 2":
        at.selectbox(key=f"{K}preset").set_value(preset).run()
    at = train(at, text, **options)
    assert says in errors(at), errors(at)
    assert f"{K}model" not in at.session_state
    assert any("press **Train**" in i.value for i in at.info)  # the page goes on
    if text is not None:
        assert at.text_area(key=f"{K}text").value == text  # the text is kept


def test_too_long_lines_split_on_request():
    at = sp_app()
    at.selectbox(key=f"{K}preset").set_value("Library defaults").run()
    at = train(at, SMALL.replace("\n", " ") * 60, vocab_size=40)  # one line of about 10,000 bytes
    assert "Every line of the text is longer than max_sentence_length (4,192 bytes): the one line was skipped" \
        in errors(at)
    at.button(key=f"{K}split_retry").click().run()
    assert not at.exception and not errors(at), errors(at)
    assert at.checkbox(key=f"{K}split_long").value
    assert any("1 long line(s) were split before training" in c.value for c in at.caption)
    assert model(at).report.skipped_too_long == 0 and model(at).report.sentences > 2


def test_skipped_lines_are_counted_and_can_be_split():
    at = sp_app()
    at.selectbox(key=f"{K}preset").set_value("Library defaults").run()
    at = train(at, stdlib_docstrings(20_000) + "\n" + "\n".join(["word " * 1000] * 2), vocab_size=300)
    assert any("2 line(s) were longer than max_sentence_length (4,192 bytes)" in w.value for w in at.warning)
    at.button(key=f"{K}split_retry_ok").click().run()
    assert not at.exception and not at.warning and model(at).report.skipped_too_long == 0


def test_timeout_and_memory_cap_messages(monkeypatch):
    real = spt.train
    monkeypatch.setattr(spt, "train", lambda text, **kw: real(text, **{**kw, "timeout": 0.01}))
    at = train(sp_app())
    assert "Training took longer than 0.01 s and was stopped" in errors(at)
    monkeypatch.setattr(spt, "train", lambda text, **kw: real(text, **{**kw, "memory_mb": 60}))
    at = train(at, model_type="unigram")
    assert "more memory than its cap (60 MB" in errors(at)
    monkeypatch.setattr(spt, "train", real)
    at = train(at)
    assert not errors(at) and any("Trained a" in s.value for s in at.success)


def _kill_worker_when_training(done: threading.Event, killed: list):
    """Find this process's training child (tokenizers/sentencepiece/worker.py) and SIGKILL it once its log
    shows that training has started."""
    me = os.getpid()
    while not done.is_set():
        for pid in os.listdir("/proc"):
            if not pid.isdigit():
                continue
            try:
                stat = Path(f"/proc/{pid}/stat").read_text()
                cmd = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
            if ppid == me and any(c.endswith(b"sentencepiece/worker.py") for c in cmd):
                log = Path(f"/proc/{pid}/fd/2")  # the trainer logs to stderr, a file the runner reads
                try:
                    started = "Starts training" in log.read_text(errors="replace")
                except OSError:
                    started = False
                if started:
                    os.kill(int(pid), 9)
                    killed.append(int(pid))
                    return
        time.sleep(0.002)


def test_child_killed_mid_training_leaves_the_page_usable():
    at = sp_app(source="Built-in corpus", builtin_size=250_000)
    at.selectbox(key=f"{K}opt_model_type").set_value("unigram")
    at.number_input(key=f"{K}opt_vocab_size").set_value(8000)
    done, killed = threading.Event(), []
    killer = threading.Thread(target=_kill_worker_when_training, args=(done, killed), daemon=True)
    killer.start()
    at.button(key=f"{K}train").click().run()
    done.set()
    killer.join()
    assert not at.exception
    assert killed, "the training child was never seen"
    assert "The training process was stopped by SIGKILL before it finished" in errors(at)
    assert "train again" in errors(at)
    at.number_input(key=f"{K}opt_vocab_size").set_value(2000)
    at.button(key=f"{K}train").click().run()
    assert not at.exception and not errors(at)
    assert model(at).vocab_size == 2000


# -- inspecting ------------------------------------------------------------------------------------
def test_vocabulary_search_and_filters(trained_bpe):
    at = trained_bpe
    tab(at, "Vocabulary")
    at.selectbox(key=f"{K}vkind").set_value("byte").run()
    rows = at.dataframe[0].value
    assert list(rows["id"][:3]) == [3, 4, 5] and list(rows["piece"][:2]) == ["<0x00>", "<0x01>"]
    assert any("256 piece(s) match" in c.value for c in at.caption)
    at.selectbox(key=f"{K}vkind").set_value("all pieces")
    at.text_input(key=f"{K}vq").set_value("▁the").run()
    rows = at.dataframe[0].value
    assert len(rows) and all("▁the" in p for p in rows["piece"])
    at.text_input(key=f"{K}vq").set_value("3C 73 3E").run()  # <s> by its bytes
    assert 1 in list(at.dataframe[0].value["id"])
    at.text_input(key=f"{K}vq").set_value("")
    at.selectbox(key=f"{K}vcat").set_value("digits only").run()
    assert set(at.dataframe[0].value["piece"]) <= set("0123456789")  # split_digits: digits stand alone
    at.selectbox(key=f"{K}vcat").set_value("all tokens").run()


def test_encode_shows_pieces_ids_and_decoded_text(trained_bpe):
    at = tab(trained_bpe, "Encode")
    tok = model(at)
    text = "<script>alert(1)</script> hello 안녕"
    at.session_state[f"{K}etext"] = text
    at.run()
    ids = tok.encode(text, disallowed_special=())
    codes = [c.value for c in at.code]
    assert " ".join(tok.piece_of(i) for i in ids) in codes and ", ".join(map(str, ids)) in codes
    assert text in codes  # decoded back, byte fallback loses nothing
    assert "▁" in codes[0]
    bodies = [h.proto.body for h in at.get("html")]
    assert bodies and all("<script" not in b for b in bodies)
    at.session_state[f"{K}etext"] = ""
    at.run()
    assert any("Type some text" in i.value for i in at.info)


def test_lone_surrogate_in_encode_text_is_replaced():
    at = sp_app(etext="a\ud83db")  # state set by code (a widget cannot send a lone surrogate)
    at = tab(train(at), "Encode")
    assert at.session_state[f"{K}etext"] == "a\ufffdb"


def test_byte_fallback_on_and_off_side_by_side(trained_bpe):
    at = tab(trained_bpe, "Byte fallback")
    at.session_state[f"{K}btext"] = "hello 안녕하세요"
    at.run()
    at.button(key=f"{K}twin_bytes").click().run()
    assert not at.exception and not errors(at)
    heads = [m.value for m in at.markdown if "byte_fallback" in m.value and "pieces" in m.value]
    assert heads[0].startswith("**byte_fallback on**") and "15 of them byte pieces" in heads[0]
    assert heads[1].startswith("**byte_fallback off**") and "1 of them <unk\\>" in heads[1]
    codes = [c.value for c in at.code]
    assert "hello 안녕하세요" in codes and "hello  ⁇ " in codes
    korean = "안녕하세요".encode()
    assert any(" ".join(f"<0x{b:02X}>" for b in korean) in c for c in codes)
    assert any("U+C548" in m.value for m in at.markdown)


def trees(at) -> list[str]:
    return [h.proto.body for h in at.get("html") if 'class="tl-tree"' in h.proto.body]


def test_merge_tree_pick_and_type(trained_bpe):
    at = tab(trained_bpe, "Merge tree")
    assert not at.get("plotly_chart") and len(trees(at)) == 1  # Inside's HTML tree, not a plotly figure
    first = at.selectbox(key=f"{K}tree_pick").value
    assert model(at).piece_of(first).strip("▁")  # the default is a real word, not a run of spaces
    at.text_input(key=f"{K}tree_typed").set_value("zzzz-not-a-piece").run()
    assert "No piece zzzz-not-a-piece in this model" in errors(at)
    at.text_input(key=f"{K}tree_typed").set_value("3").run()  # <0x00>: a base piece
    assert any("A base piece" in i.value for i in at.info)
    at.text_input(key=f"{K}tree_typed").set_value("").run()


def test_bpe_model_has_no_lattice(trained_bpe):
    at = tab(trained_bpe, "Lattice")
    assert any("The lattice belongs to unigram models" in i.value for i in at.info)


def test_lattice_and_nbest(trained_unigram):
    at = tab(trained_unigram, "Lattice")
    tok = model(at)
    at.session_state[f"{K}ltext"] = "Hello world"
    at.run()
    assert len(at.get("plotly_chart")) == 1
    at.number_input(key=f"{K}nbest").set_value(5).run()
    table = at.dataframe[0].value
    assert list(table["rank"]) == list(range(1, len(table) + 1)) and len(table) <= 5
    assert list(table["score"]) == sorted(table["score"], reverse=True)
    assert table.iloc[0]["segmentation"] == "|".join(tok.encode_pieces("Hello world"))
    assert any("The red path is Viterbi's best" in c.value for c in at.caption)
    at.session_state[f"{K}ltext"] = "x" * 80
    at.run()
    assert any("up to 40 characters" in w.value for w in at.warning)
    at.session_state[f"{K}ltext"] = ""
    at.run()
    assert any("Type a short text" in i.value for i in at.info)


def test_merge_tree_says_unigram_has_none(trained_unigram):
    at = tab(trained_unigram, "Merge tree")
    assert any("not built by merging pairs" in i.value for i in at.info)


def test_sampling_unigram_beside_bpe_dropout(trained_unigram):
    at = tab(trained_unigram, "Sampling")
    at.slider(key=f"{K}n").set_value(100).run()
    rows = at.dataframe[0].value
    assert rows["times"].sum() == 100 and list(rows["times"]) == sorted(rows["times"], reverse=True)
    assert len(rows) > 1
    at.button(key=f"{K}twin_type").click().run()
    assert not at.exception and not errors(at)
    heads = [m.value for m in at.markdown if "distinct segmentation" in m.value]
    assert heads[0].startswith("**unigram: subword regularization") and heads[1].startswith("**BPE-dropout")
    assert len(at.dataframe) == 2 and at.dataframe[1].value["times"].sum() == 100
    at.slider(key=f"{K}alpha").set_value(0.0).run()
    assert len(at.dataframe[1].value) == 1  # no dropout: always the same segmentation
    at.number_input(key=f"{K}nbest_size").set_value(1).run()
    assert "nbest_size must be -1 (the whole lattice) or more than 1" in errors(at)
    at.number_input(key=f"{K}nbest_size").set_value(-1).run()


def test_model_tab_downloads_and_spec(trained_bpe):
    at = tab(trained_bpe, "Model & downloads")
    labels = [b.proto.label for b in at.get("download_button")]
    assert labels == ["sp_lab.model", "sp_lab.vocab"]
    assert any('"byte_fallback": true' in c.value for c in at.code)
    assert any(r["phase"] == "Saving the model" for _, r in at.dataframe[0].value.iterrows())


# -- uploads -----------------------------------------------------------------------------------------
def test_upload_a_model_and_a_corrupt_one(trained_unigram):
    data = model(trained_unigram).serialized_model()
    at = sp_app()
    at.file_uploader(key=f"{K}load").set_value(("mine.model", data, "application/octet-stream")).run()
    assert not at.exception
    assert any("Loaded a **unigram** model of 1,000 pieces" in s.value for s in at.success)
    from app_pages.kit.shared import USER_TOKENIZERS

    assert "sp_upload" in at.session_state[USER_TOKENIZERS]
    tab(at, "Lattice")
    assert len(at.get("plotly_chart")) == 1
    tab(at, "Byte fallback")
    assert any("A loaded model has no training text" in i.value for i in at.info)
    at.file_uploader(key=f"{K}load").set_value(("broken.model", b"\x89PNG\r\n\x1a\n" * 20, "image/png")).run()
    assert not at.exception
    assert "This is not a SentencePiece model" in errors(at)
    assert model(at).vocab_size == 1000  # the loaded model stays


def test_uploaded_text_corpus():
    at = sp_app()
    at.radio(key=f"{K}source").set_value("Upload a file").run()
    at.file_uploader(key=f"{K}upload").set_value(("corpus.txt", (SMALL * 50).encode(), "text/plain")).run()
    at.selectbox(key=f"{K}preset").set_value("Library defaults").run()
    train(at, vocab_size=40)
    assert not errors(at) and model(at).vocab_size == 40
    at.file_uploader(key=f"{K}upload").set_value(("blob.txt", b"\x00\x01" * 5000, "text/plain")).run()
    assert "looks like a binary file" in errors(at)


def test_char_model_tabs_say_what_applies():
    at = sp_app()
    at.selectbox(key=f"{K}preset").set_value("Library defaults").run()
    at = train(at, SMALL * 10, model_type="char", vocab_size=40)
    assert not errors(at) and model(at).model_type == "char"
    for name, says in [("Merge tree", "not built by merging pairs"), ("Lattice", "The lattice belongs to unigram models"),
                       ("Sampling", "Sampling needs a unigram or BPE model")]:
        tab(at, name)
        assert any(says in i.value for i in at.info), name
    tab(at, "Vocabulary")
    tab(at, "Encode")
    tab(at, "Byte fallback")


def test_picking_a_piece_and_a_sampling_text(trained_bpe):
    at = trained_bpe
    tok = model(at)
    tab(at, "Merge tree")
    at.text_input(key=f"{K}tree_typed").set_value(" the").run()  # a space stands for ▁
    [tree] = trees(at)
    assert tok.merge_parents(tok.piece_id("▁the"))
    root = tok.piece_id("▁the")
    assert f'<div class="tl-tbox" data-id="{root}"' in tree and f">▁the<sub>{root}</sub>" in tree  # the root
    at.text_input(key=f"{K}tree_typed").set_value("").run()
    tab(at, "Sampling")
    at.session_state[f"{K}stext"] = "hello world"
    at.run()
    rows = at.dataframe[0].value
    assert len(rows) > 0  # all() of nothing is true
    assert all(r.replace("|", "") == "▁hello▁world" for r in rows["segmentation"])


def test_vocabulary_strings_reach_plotly_escaped():
    """A piece is text, never markup: an uploaded model's "<b>" or "<a href=…>" must not style or link."""
    from tokenizers.sentencepiece.lattice import build_lattice
    from tokenizers.sentencepiece.train import train as sp_train
    from ui.figures import lattice_figure
    from ui.trees import render_tree

    tok = sp_train(SMALL * 20, model_type="unigram", vocab_size=40, user_defined_symbols="<b>,<a href=x>")
    fig = lattice_figure(build_lattice(tok, "x<b>y<a href=x>"))
    texts = " ".join(t for trace in fig.data for t in (trace.text or ()))
    assert "&lt;b&gt;" in texts and "<b>" not in texts.replace("<br>", "") and "<a href" not in texts
    bpe = sp_train(SMALL * 20 + "<<<< >>>>\n" * 20, model_type="bpe", vocab_size=80)
    piece = next(i for i in range(bpe.vocab_size) if "<<" in bpe.piece_of(i))
    labels = render_tree(bpe, piece)
    assert "&lt;&lt;" in labels and "<<" not in labels


def test_a_megabyte_in_every_text_field():
    big = ("naïve café 안녕하세요 👨‍👩‍👧 <script>x</script> " * 25_000)[:1_000_000]
    at = train(sp_app(), model_type="unigram")
    tab(at, "Encode")
    at.session_state[f"{K}etext"] = big
    at.run()
    assert not at.exception and any("the first 2,000 of" in c.value for c in at.caption)
    for name, key in [("Byte fallback", "btext"), ("Lattice", "ltext"), ("Sampling", "stext")]:
        tab(at, name)
        at.session_state[f"{K}{key}"] = big
        at.run()
        assert not at.exception, name
    tab(at, "Lattice")
    assert any("up to 40 characters" in w.value for w in at.warning)


# -- the rest of the app -------------------------------------------------------------------------------
def test_trained_model_joins_compare(trained_bpe):
    at = trained_bpe
    at.switch_page("app_pages/compare.py")
    at.run()
    assert not at.exception
    assert "SentencePiece Lab (bpe, 1,000)" in at.multiselect(key="compare_tokenizers").options
    at.multiselect(key="compare_tokenizers").set_value(["sp_lab", "mistral_sp"]).run()
    assert not at.exception
    heads = [h.proto.body for h in at.get("html") if 'class="tl-head"' in h.proto.body]
    assert len(heads) == 2 and 'data-tokenizer="sp_lab"' in heads[0]


def test_the_lab_remembers_its_settings_across_pages(trained_unigram):
    at = trained_unigram
    at.switch_page("app_pages/compare.py")
    at.run()
    assert not at.exception
    at.switch_page("app_pages/sentencepiece_lab.py")
    at.run()
    assert not at.exception and model(at).name == "sp_lab"
    # the widgets were not drawn on the other page; the lab puts back what was set
    assert at.selectbox(key=f"{K}opt_model_type").value == "unigram"
    assert at.number_input(key=f"{K}opt_vocab_size").value == 1000


def test_trained_model_joins_inside(trained_unigram):
    from app_pages.kit.shared import USER_TOKENIZERS

    at = trained_unigram
    at.switch_page("app_pages/inside.py")
    at.session_state["inside_tok"] = "sp_lab"
    at.session_state["inside_text"] = "hello world"
    at.run()
    assert not at.exception
    assert at.session_state[USER_TOKENIZERS]["sp_lab"] is model(at)
    assert any(h.proto.body.count("tl-tok") >= 2 for h in at.get("html"))  # the text in the lab model's pieces
    assert any("SentencePiece unigram model: its pieces are not built by merging" in i.value for i in at.info)
    # (AppTest cannot run again after this: it does not know the Inside picker's format_func)


def test_a_normalizing_model_on_compare_with_tricky_text():
    """Library defaults remove extra spaces and apply NFKC: spans must still tile, and text that is
    only spaces (no piece at all) must not break the Compare page."""
    from conftest import TRICKY_TEXTS

    from app_pages.kit.shared import USER_TOKENIZERS
    from test_compare_page import spans_html

    tok = spt.train(stdlib_docstrings(100_000), vocab_size=2000, name="sp_lab", title="SP defaults")
    for text in TRICKY_TEXTS + ["ｆｕｌｌ ﬁ ﷺ   x  ", "   "]:
        at = app_test(state={USER_TOKENIZERS: {"sp_lab": tok}, "compare_tokenizers": ["sp_lab", "gpt2"],
                             "compare_text": text})
        assert not at.exception, text
        toks = tok.tokenize(text, disallowed_special=())
        if len(toks):
            assert toks.byte_starts[0] == 0 and toks.byte_ends[-1] == len(text.encode("utf-8"))
            assert len(spans_html(at)) == 2
