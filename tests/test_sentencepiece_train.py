"""tokenizers.sentencepiece.train: the Llama 2 recipe reproduced id for id, byte fallback against
<unk>, n-best and sampling, the lattice held equal to encode, and every failure's message."""

import os
import re
import signal

import pytest
import sentencepiece as spm

from conftest import TRICKY_TEXTS
from tokenizers.core.corpus import stdlib_docstrings
from tokenizers.analysis.samples import mixed_scripts
from tokenizers.sentencepiece.model import ModelFormatError, SentencePieceTokenizer
from tokenizers.sentencepiece.lattice import build_lattice
from tokenizers.sentencepiece.train import (LLAMA2_OPTIONS, OPTIONS, SentencePieceTrainingError, T5_OPTIONS,
                                            load_model, split_long_lines, train)

CORPUS = stdlib_docstrings(150_000) + "\n" + mixed_scripts(4000)
# a toy corpus: English only, so Korean is something the model never saw
TOY = stdlib_docstrings(30_000)
PROBE = ("hello 안녕하세요 world, naïve café 1234567 👋🏽 <s> </s> def f(x):\n    return x ** 2\n"
         "  two  spaces   three")


def direct_train(tmp_path, text: str, **options) -> bytes:
    """SentencePiece's own trainer on the same text, in this process: the reference."""
    corpus = tmp_path / "corpus.txt"
    with open(corpus, "w", encoding="utf-8", newline="") as f:
        f.write(text)
    spm.SentencePieceTrainer.train(input=str(corpus), model_prefix=str(tmp_path / "ref"), **options)
    return (tmp_path / "ref.model").read_bytes()


def without_files(tok: SentencePieceTokenizer) -> bytes:
    """The model with its two file names (input, model_prefix) cleared: the rest must match byte for byte."""
    proto = tok.model_proto()
    proto.trainer_spec.ClearField("input")
    proto.trainer_spec.ClearField("model_prefix")
    return proto.SerializeToString()


@pytest.fixture(scope="module")
def unigram():
    return train(CORPUS, model_type="unigram", vocab_size=3000)


@pytest.fixture(scope="module")
def bpe():
    return train(CORPUS, model_type="bpe", vocab_size=3000, byte_fallback=True)


# -- the Llama 2 recipe ------------------------------------------------------------------------------
def test_llama2_options_are_the_published_ones():
    assert LLAMA2_OPTIONS == {
        "model_type": "bpe", "vocab_size": 32000, "normalization_rule_name": "identity",
        "remove_extra_whitespaces": False, "add_dummy_prefix": True, "character_coverage": 0.99995,
        "byte_fallback": True, "split_digits": True, "split_by_unicode_script": True, "split_by_whitespace": True,
        "split_by_number": True, "max_sentencepiece_length": 16, "allow_whitespace_only_pieces": True,
        "unk_id": 0, "bos_id": 1, "eos_id": 2, "pad_id": -1, "max_sentence_length": 4192,
        "input_sentence_size": 200_000_000, "seed_sentencepiece_size": 1_000_000, "shuffle_input_sentence": True}


def test_llama2_preset_is_identical_to_sentencepieces_own_trainer(tmp_path):
    options = {**LLAMA2_OPTIONS, "vocab_size": 2000}
    ours = train(CORPUS, **options)
    ref = SentencePieceTokenizer(model_proto=direct_train(tmp_path, CORPUS, **options))
    assert ours.vocab_size == ref.vocab_size == 2000
    # piece for piece, score for score, type for type
    assert [(p.piece, p.score, p.type) for p in ours.model_proto().pieces] == \
           [(p.piece, p.score, p.type) for p in ref.model_proto().pieces]
    assert without_files(ours) == without_files(ref)  # trainer and normalizer specs too
    for text in [PROBE, CORPUS[:20_000], *TRICKY_TEXTS]:
        assert ours.encode(text, disallowed_special=()) == ref.encode(text, disallowed_special=())
    assert ours.vocab_text().encode("utf-8") == (tmp_path / "ref.vocab").read_bytes()
    spec = ours.trainer_spec()
    for key, value in LLAMA2_OPTIONS.items():
        if key in ("vocab_size", "normalization_rule_name", "remove_extra_whitespaces", "add_dummy_prefix"):
            continue
        assert spec[key] == (pytest.approx(value) if isinstance(value, float) else value), key
    norm = ours.normalizer_spec()
    assert norm["name"] == "identity" and norm["add_dummy_prefix"] and not norm["remove_extra_whitespaces"]
    assert ours.piece_of(0) == "<unk>" and ours.piece_of(1) == "<s>" and ours.piece_of(2) == "</s>"
    assert [ours.piece_of(i) for i in (3, 4, 258)] == ["<0x00>", "<0x01>", "<0xFF>"]


def test_toy_corpus_byte_fallback_against_unk():
    with_bytes = train(TOY, **{**LLAMA2_OPTIONS, "vocab_size": 400})
    korean = "안녕하세요".encode("utf-8")
    pieces = with_bytes.encode_pieces("hello 안녕하세요")
    assert pieces[-len(korean):] == [f"<0x{b:02X}>" for b in korean]  # 15 byte pieces, in order
    assert all(not p.startswith("<0x") for p in pieces[:-len(korean)])
    assert all(with_bytes.is_byte_fallback(i) for i in with_bytes.encode_ordinary("hello 안녕하세요")[-15:])
    assert with_bytes.decode(with_bytes.encode_ordinary("hello 안녕하세요")) == "hello 안녕하세요"

    no_bytes = train(TOY, **{**LLAMA2_OPTIONS, "vocab_size": 400, "byte_fallback": False})
    ids = no_bytes.encode_ordinary("hello 안녕하세요")
    assert ids[-1] == no_bytes.unk_id == 0 and no_bytes.encode_pieces("hello 안녕하세요")[-2:] == ["▁", "<unk>"]
    assert no_bytes.decode(ids) == "hello  ⁇ "  # SentencePiece's unk_surface
    assert "<unk>" not in no_bytes.encode_pieces("hello")
    # spans still tile the text, the <unk> covering the five characters it stands for
    toks = no_bytes.tokenize("hello 안녕하세요", disallowed_special=())
    assert toks[-1].id == 0 and toks[-1].char_span == (6, 11)


def test_unk_spans_tile_even_when_lengths_would_add_up():
    tok = train(TOY, model_type="bpe", vocab_size=400)
    text = "é한 x ЖЖЖЖ"  # unknowns of 5 and 8 bytes: "<unk>" twice is 10 bytes, the same total by chance?
    toks = tok.tokenize(text, disallowed_special=())
    spans = [t.byte_span for t in toks]
    assert spans[0][0] == 0 and spans[-1][1] == len(text.encode())
    assert all(a[1] == b[0] for a, b in zip(spans, spans[1:]))
    for t in toks:
        if t.id == tok.unk_id:
            assert text.encode()[t.byte_span[0]:t.byte_span[1]].decode() in ("é한", "ЖЖЖЖ")


# -- defaults and presets -----------------------------------------------------------------------------
def test_option_defaults_are_the_trainers():
    tok = train(TOY, vocab_size=500)  # nothing else: every other option at SentencePiece's default
    spec = {**tok.trainer_spec(), **tok.normalizer_spec()}
    spec["normalization_rule_name"] = spec["name"]
    for name, opt in OPTIONS.items():
        if name == "vocab_size":
            continue
        got = spec[name]
        if isinstance(got, list):
            got = ",".join(got)
        assert got == (pytest.approx(opt.default) if isinstance(opt.default, float) else opt.default), name
    assert OPTIONS["vocab_size"].default == 8000  # SentencePiece's documented default


def test_t5_style_layout():
    tok = train(TOY, **{**T5_OPTIONS, "vocab_size": 600})
    assert tok.model_type == "unigram" and tok.normalizer_spec()["name"] == "nmt_nfkc"
    assert [tok.piece_of(i) for i in range(3)] == ["<pad>", "</s>", "<unk>"]
    assert tok.sp.bos_id() == -1


@pytest.mark.parametrize("model_type", ["bpe", "unigram", "char", "word"])
def test_every_model_type_trains_and_tiles(model_type):
    tok = train(CORPUS[:40_000], model_type=model_type, vocab_size=300 if model_type != "word" else 1000,
                hard_vocab_limit=model_type not in ("char",))
    assert tok.model_type == model_type and tok.report.model_type == model_type
    for text in TRICKY_TEXTS + [PROBE]:
        toks = tok.tokenize(text, disallowed_special=())
        n = len(text.encode("utf-8", errors="replace"))
        if len(toks):  # (a text of spaces alone may have no piece at all)
            assert toks.byte_starts[0] == 0 and toks.byte_ends[-1] == n
            assert all(a == b for a, b in zip(toks.byte_ends[:-1], toks.byte_starts[1:]))
        else:
            assert not text.strip()


# -- n-best, sampling, the lattice ----------------------------------------------------------------------
@pytest.mark.parametrize("text", ["Hello world", "return the number of items", "naïve café", "안녕 hello 123",
                                  "subword regularization"])
def test_unigram_nbest_descends_and_starts_with_encode(unigram, text):
    best = unigram.nbest(text, 10)
    assert len(best) > 1
    scores = [s for _, s in best]
    assert scores == sorted(scores, reverse=True)
    assert best[0][0] == unigram.encode_ordinary(text)
    assert len({tuple(ids) for ids, _ in best}) == len(best)  # all different
    for ids, _ in best:
        assert unigram.decode(ids) == unigram.decode(best[0][0])  # every one spells the same text


def test_lattice_viterbi_equals_encode(unigram):
    lines = [line for line in (CORPUS[:60_000] + "\n" + "\n".join(TRICKY_TEXTS)).splitlines() if line.strip()]
    for line in lines:
        lat = build_lattice(unigram, line)
        assert lat.best_ids() == unigram.encode_ordinary(line), line
    lat = build_lattice(unigram, "Hello world")
    assert lat.best_score == pytest.approx(unigram.nbest("Hello world", 1)[0][1], abs=1e-5)
    assert "".join(n.piece for n in lat.best) == lat.normalized == "▁Hello▁world"
    # every node spells the normalized text at its place, and every position has one starting there
    assert all(lat.normalized[n.start:n.end] == n.piece or n.unknown for n in lat.nodes)
    assert {n.start for n in lat.nodes} == set(range(len(lat.normalized)))


def test_lattice_unknown_characters(unigram):
    lat = build_lattice(unigram, "a\u0f00\u0f01b")  # Tibetan: not in the corpus
    unknown = [n for n in lat.nodes if n.unknown]
    assert [n.piece for n in unknown] == ["\u0f00", "\u0f01"]
    assert lat.best_ids() == unigram.encode_ordinary("a\u0f00\u0f01b")


def test_lattice_needs_a_unigram_model(bpe):
    with pytest.raises(ValueError, match="unigram"):
        build_lattice(bpe, "x")
    with pytest.raises(ValueError, match="unigram"):
        bpe.nbest("x", 3)


def test_sampling_varies_and_spells_the_text(unigram, bpe):
    text = "subword regularization makes models robust"
    for tok, kw in [(unigram, dict(alpha=0.1, nbest_size=-1)), (unigram, dict(alpha=0.5, nbest_size=8)),
                    (bpe, dict(alpha=0.3))]:
        samples = {tuple(tok.sample(text, **kw)) for _ in range(60)}
        assert len(samples) > 1
        assert all(tok.decode(list(s)) == text for s in samples)
    assert {tuple(bpe.sample(text, alpha=0.0)) for _ in range(10)} == {tuple(bpe.encode_ordinary(text))}
    with pytest.raises(ValueError, match="nbest_size"):
        unigram.sample(text, alpha=0.1, nbest_size=1)


def test_merge_parents_only_for_bpe(bpe, unigram):
    long_piece = max(range(bpe.vocab_size), key=lambda i: (len(bpe.piece_of(i)) if bpe.piece_type(i) == "normal" else 0))
    tree = bpe.merge_tree(long_piece)

    def leaves(node):
        return [node] if not node["children"] else [x for c in node["children"] for x in leaves(c)]

    assert b"".join(leaf["bytes"] for leaf in leaves(tree)) == bpe.token_bytes(long_piece)
    assert all(len(leaf["bytes"].decode()) == 1 for leaf in leaves(tree))  # down to single characters
    assert all(unigram.merge_parents(i) is None for i in range(unigram.vocab_size))


def test_inspection_methods(bpe):
    assert [bpe.piece_type(i) for i in range(4)] == ["unknown", "control", "control", "byte"]
    assert bpe.piece_id("<0x41>") == 3 + 0x41
    assert bpe.score_of(300) < bpe.score_of(299) <= 0  # BPE scores fall with the merge order
    assert bpe.normalize("  a  b ") == "▁a▁b"
    assert load_model(bpe.serialized_model()).encode_ordinary(PROBE) == bpe.encode_ordinary(PROBE)


@pytest.mark.parametrize("data", [b"", b"not a model", b"\x0a\x05hello", os.urandom(64) + b"\x00" * 100])
def test_corrupt_model_is_refused_clearly(data):
    with pytest.raises(ModelFormatError, match="SentencePiece model") as e:
        load_model(data)
    assert "src/" not in str(e.value)  # the loader's words, not its source location


@pytest.mark.slow
def test_damaged_models_never_reach_the_app_broken(bpe, unigram):
    """Bytes flipped at random in real models: each loads and encodes, or is refused with a message."""
    import random

    rnd = random.Random(7)
    for _ in range(150):
        d = bytearray(rnd.choice([bpe, unigram]).serialized_model())
        for _ in range(rnd.randint(1, 10)):
            d[rnd.randrange(len(d))] = rnd.randrange(256)
        try:
            tok = load_model(bytes(d))
        except ModelFormatError:
            continue
        tok.tokenize(PROBE, disallowed_special=())


def fake_worker(tmp_path, monkeypatch, body: str):
    import tokenizers.sentencepiece.train as spt

    script = tmp_path / "worker.py"
    script.write_text(body)
    monkeypatch.setattr(spt, "WORKER", script)


def test_a_loader_crash_is_a_message(tmp_path, monkeypatch):
    fake_worker(tmp_path, monkeypatch, "import os\nos.abort()\n")
    with pytest.raises(ModelFormatError, match="the loader crashed"):
        load_model(b"anything")


def test_a_native_check_failure_in_training_is_a_message(tmp_path, monkeypatch):
    fake_worker(tmp_path, monkeypatch, "import os, sys\nsys.stderr.write('F0000 00:00:1.5 1 bpe_model_trainer.cc:99] "
                                       "Check failed: freq > 0 \\n')\nsys.stderr.flush()\nos.abort()\n")
    with pytest.raises(SentencePieceTrainingError) as e:
        train(TOY, vocab_size=400)
    assert e.value.reason == "crash" and "internal check: Check failed: freq > 0" in str(e.value)


# -- the child process --------------------------------------------------------------------------------
def test_report_and_progress():
    seen = []
    tok = train(CORPUS, model_type="unigram", vocab_size=2000, progress=seen.append)
    r = tok.report
    assert r.vocab_size == 2000 and r.requested_vocab_size == 2000 and r.model_type == "unigram"
    assert r.sentences == sum(1 for line in CORPUS.split("\n") if line)
    assert r.skipped_too_long == 0 and r.alphabet_size > 50 and 0.99 < r.character_coverage <= 1
    assert 0 < r.trainer_seconds < r.seconds and r.overhead_seconds > 0
    assert [p for _, p in r.phases][-1] == "Saving the model"
    assert "EM: estimating piece probabilities and pruning" in [p for _, p in r.phases]
    assert seen and all(p.pid > 0 for p in seen)
    assert [p.elapsed for p in seen] == sorted(p.elapsed for p in seen)


def _no_server_details(text: str, pids: set[int]) -> None:
    import tempfile

    assert "token-lens-spm" not in text and tempfile.gettempdir() + "/" not in text
    assert not any(re.search(rf"(?<!\d){pid}(?!\d)", text) for pid in pids), pids


def test_trained_model_and_its_log_carry_no_server_path_or_pid():
    """Issue 24 (9a): the .model a visitor downloads stored the job's temporary paths (trainer_spec input and
    model_prefix), and the log the page shows named them and the child's PID on every line."""
    seen = []
    text = "\n".join(line for line in TOY.splitlines() if not any(c.isdigit() for c in line))  # no digits to
    tok = train(text, vocab_size=400, progress=seen.append)  # mistake for a PID in the model's pieces
    pids = {p.pid for p in seen if p.pid}
    assert pids  # the child ran long enough to be seen
    data = tok.serialized_model()
    _no_server_details(data.decode("latin-1"), pids)
    spec = tok.trainer_spec()
    assert spec["input"] == ["corpus.txt"] and spec["model_prefix"] == "model"
    _no_server_details(tok.report.log, pids)
    assert "Saving model: model.model" in tok.report.log and "Loaded all" in tok.report.log
    assert tok.report.sentences and tok.report.alphabet_size  # the log is still read
    # and a failure's log and message
    seen.clear()
    with pytest.raises(SentencePieceTrainingError) as e:
        train(text, vocab_size=190_000, progress=seen.append)
    _no_server_details(e.value.log + str(e.value), {p.pid for p in seen if p.pid})


def test_killed_child_gives_a_message_and_the_next_training_works():
    def kill(p):
        os.kill(p.pid, signal.SIGKILL)

    big = CORPUS * 4
    with pytest.raises(SentencePieceTrainingError) as e:
        train(big, model_type="unigram", vocab_size=4000, progress=kill)
    assert e.value.reason == "killed" and "SIGKILL" in str(e.value) and "train again" in str(e.value)
    assert train(TOY, vocab_size=400).vocab_size == 400


def test_progress_callback_that_raises_stops_the_child():
    pids = []

    def boom(p):
        pids.append(p.pid)
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        train(CORPUS * 4, model_type="unigram", vocab_size=4000, progress=boom)
    with pytest.raises(ProcessLookupError):  # reaped: no such process any more
        os.kill(pids[0], 0)


def test_trainings_wait_their_turn(monkeypatch):
    import threading

    from tokenizers import jobs

    busy = jobs._Slots(1, 0)  # the one runner's slots, all taken
    assert busy.try_take(jobs._Ticket(None), None, False) == "general"
    monkeypatch.setattr(jobs, "_slots", busy)
    with pytest.raises(SentencePieceTrainingError) as e:
        train(TOY, vocab_size=400, timeout=0.5)
    assert e.value.reason == "busy" and "Try again in a moment" in str(e.value)
    threading.Timer(0.6, busy.release, args=("general", None)).start()
    seen = []
    assert train(TOY, vocab_size=400, progress=seen.append).vocab_size == 400
    assert seen[0].phase == "Waiting for another training to finish" and seen[-1].phase != seen[0].phase


def test_a_visitors_second_training_waits_for_its_first(monkeypatch):
    """Issue 24 (8): one slot per visitor, SentencePiece trainings included (the page passes its visitor)."""
    import threading

    from tokenizers import jobs

    slots = jobs._Slots(2, 0)
    assert slots.try_take(jobs._Ticket("visitor"), "visitor", False) == "general"  # its first training runs
    monkeypatch.setattr(jobs, "_slots", slots)
    threading.Timer(0.6, slots.release, args=("general", "visitor")).start()
    seen = []
    assert train(TOY, vocab_size=400, progress=seen.append, owner="visitor").vocab_size == 400
    assert seen[0].phase == "Waiting for your other training to finish"  # though a slot was free
    assert train(TOY, vocab_size=400, progress=seen.append, owner="someone else").vocab_size == 400


def test_timeout():
    with pytest.raises(SentencePieceTrainingError) as e:
        train(CORPUS, vocab_size=2000, timeout=0.01)
    assert e.value.reason == "timeout" and "longer than 0.01 s" in str(e.value)


def test_memory_cap():
    with pytest.raises(SentencePieceTrainingError) as e:
        train(CORPUS, model_type="unigram", vocab_size=2000, memory_mb=60)
    assert e.value.reason == "memory" and "60 MB" in str(e.value)


# -- failures, in the trainer's own words -------------------------------------------------------------
def test_vocab_too_large_names_the_largest_and_it_works():
    with pytest.raises(SentencePieceTrainingError) as e:
        train(TOY, model_type="unigram", vocab_size=50_000)
    assert e.value.reason == "vocab_too_large"
    top = e.value.limit
    assert f"at most {top:,} pieces" in str(e.value)
    assert train(TOY, model_type="unigram", vocab_size=top).vocab_size == top


def test_vocab_too_small_names_the_smallest_and_it_works():
    with pytest.raises(SentencePieceTrainingError) as e:
        train(TOY, **{**LLAMA2_OPTIONS, "vocab_size": 300})
    err = e.value
    assert err.reason == "vocab_too_small" and "byte_fallback off" in str(err)
    assert f"needs {err.limit:,} pieces" in str(err) and "259 control and byte pieces" in str(err)
    assert train(TOY, **{**LLAMA2_OPTIONS, "vocab_size": err.limit}).vocab_size == err.limit
    with pytest.raises(SentencePieceTrainingError, match="vocab_size 100 is too small"):
        train(TOY, model_type="char", byte_fallback=True, vocab_size=100)


@pytest.mark.parametrize("coverage", [0.5, 1.5])
def test_character_coverage_out_of_range(coverage):
    with pytest.raises(SentencePieceTrainingError) as e:
        train(TOY, vocab_size=400, character_coverage=coverage)
    assert e.value.reason == "coverage"
    assert str(e.value).startswith(f"character_coverage must be between 0.98 and 1.0; it is {coverage}.")


@pytest.mark.parametrize("text,says", [("", "The text is empty"), ("   \n\n \t \n", "only whitespace")])
def test_empty_or_whitespace_corpus(text, says):
    with pytest.raises(SentencePieceTrainingError) as e:
        train(text, vocab_size=100)
    assert e.value.reason == "empty" and says in str(e.value)


def test_long_sentences_skipped_counted_and_split():
    text = TOY + "\n" + "\n".join(["word " * 1000] * 3)  # three lines of 5,000 bytes
    tok = train(text, vocab_size=500)
    assert tok.report.skipped_too_long == 3
    fixed, cut = split_long_lines(text, 4192)
    assert cut == 3
    assert train(fixed, vocab_size=500).report.skipped_too_long == 0
    with pytest.raises(SentencePieceTrainingError) as e:
        train("x" * 5000 + "\n" + "y" * 6000, vocab_size=100)
    assert e.value.reason == "too_long" and e.value.count == 2 and "all 2 lines were skipped" in str(e.value)


def test_split_long_lines():
    text = "short\n" + "ab cd " * 10 + "\n" + "안" * 10 + "\n"
    fixed, cut = split_long_lines(text, 8)
    assert cut == 2
    assert all(len(line.encode()) <= 8 for line in fixed.split("\n"))
    assert fixed.replace("\n", "").replace(" ", "") == text.replace("\n", "").replace(" ", "")
    assert fixed.startswith("short\nab cd ab\n")
    assert split_long_lines("abc", 10) == ("abc", 0)


@pytest.mark.parametrize("options,says", [
    (dict(bos_id=0), "unk_id and bos_id are both 0"),
    (dict(pad_id=5000), "pad_id 5000 is not below vocab_size 400"),
    (dict(unk_id=-1), "unk_id is -1"),
    (dict(bos_piece="<unk>"), "unk_piece and bos_piece are both '<unk>'"),
    (dict(user_defined_symbols=["<x>", "<x>"]), "<x> is defined twice"),
    (dict(control_symbols=["<unk>"]), "<unk> is defined twice"),
])
def test_conflicting_ids(options, says):
    with pytest.raises(SentencePieceTrainingError) as e:
        train(TOY, vocab_size=400, **options)
    assert e.value.reason == "ids" and says in str(e.value)


@pytest.mark.parametrize("options,says", [
    (dict(vocab_sise=400), "Did you mean vocab_size"),
    (dict(model_type="bpee"), "Choose one of bpe, unigram, char, word"),
    (dict(normalization_rule_name="nope"), "Choose one of identity, nmt_nfkc"),
    (dict(vocab_size="abc"), "'abc' is not a valid int"),
    (dict(max_sentencepiece_length=0), "max_sentencepiece_length must be between 1 and 512"),
    (dict(input_sentence_size=10), "input_sentence_size must be 0 (all lines) or more than 100"),
    (dict(unk_piece=""), "unk_piece must not be empty"),
    (dict(input="/etc/passwd"), "do not pass input"),
])
def test_bad_options(options, says):
    with pytest.raises(SentencePieceTrainingError) as e:
        train(TOY, **{"vocab_size": 400, **options})
    assert says in str(e.value)


def test_the_child_stops_itself_if_the_parent_never_does(tmp_path):
    """The worker's own deadline (SIGALRM, set by the runner's child before it becomes the worker), for
    when the app dies and cannot kill it."""
    import json
    import subprocess
    import sys

    from tokenizers import jobs
    from tokenizers.sentencepiece.train import WORKER

    from tokenizers.analysis.samples import stdlib_source

    (tmp_path / "corpus.txt").write_text(stdlib_source(3_000_000), encoding="utf-8")  # several seconds' work
    (tmp_path / "job.json").write_text(json.dumps({"options": {"model_type": "unigram", "vocab_size": 8000}}))
    env = {**os.environ, jobs.ENV: json.dumps({"deadline": 1})}
    proc = subprocess.run([sys.executable, "-I", jobs.__file__, "--exec", sys.executable, "-I", str(WORKER),
                           str(tmp_path)], capture_output=True, timeout=60, env=env)
    assert proc.returncode == -signal.SIGALRM
    assert not (tmp_path / "model.model").exists()
