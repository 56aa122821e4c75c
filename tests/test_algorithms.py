"""The algorithms page's library: character-level, classic BPE with </w>, WordPiece, unigram and
byte-level BPE behind tokenizers.classic.algorithms.train, with hand-worked vectors."""

import random

import pytest

from conftest import TRICKY_TEXTS
from tokenizers import TrainingError
from tokenizers.classic import pair_merges
from tokenizers.classic.algorithms import (ALGORITHMS, NAMES, at_vocab_size, curve_sizes, held_out_split, length_curve,
                                   train, usage)
from tokenizers.core.tokenizer import Tokenizer
from tokenizers.classic.char_level import CharTokenizer
from tokenizers.core.corpus import stdlib_docstrings
from tokenizers.classic.word_bpe import WordBPETokenizer
from tokenizers.classic.wordpiece import WordPieceTokenizer

# Sennrich et al.'s example corpus
SENNRICH = " ".join(["low"] * 5 + ["lower"] * 2 + ["newest"] * 6 + ["widest"] * 3)
CORPUS = stdlib_docstrings(30_000)


@pytest.fixture(scope="module")
def models() -> dict[str, Tokenizer]:
    return {n: train(n, CORPUS, 600) for n in NAMES}


def spelled(tok, pair):
    return tok.spelling(pair[0]), tok.spelling(pair[1])


def test_names_and_entry_point(models):
    assert NAMES == ("char", "word_bpe", "wordpiece", "unigram", "byte_bpe")
    assert set(ALGORITHMS) == set(NAMES)
    for name, tok in models.items():
        assert isinstance(tok, Tokenizer) and tok.algorithm == name
        assert isinstance(tok.notes, list)
    assert models["byte_bpe"].vocab_size == models["word_bpe"].vocab_size == models["wordpiece"].vocab_size == 600
    assert models["unigram"].vocab_size == 600
    assert models["char"].vocab_size == len(set(CORPUS)) + 1  # the alphabet and <unk>, whatever the target
    with pytest.raises(ValueError, match="choose from"):
        train("bpe2", CORPUS, 300)


# -- classic BPE ------------------------------------------------------------------------------------
# every adjacent pair of l o w </w> x5, l o w e r </w> x2, n e w e s t </w> x6, w i d e s t </w> x3
SENNRICH_PAIRS = {("l", "o"): 7, ("o", "w"): 7, ("w", "</w>"): 5, ("w", "e"): 8, ("e", "r"): 2, ("r", "</w>"): 2,
                  ("n", "e"): 6, ("e", "w"): 6, ("e", "s"): 9, ("s", "t"): 9, ("t", "</w>"): 9, ("w", "i"): 3,
                  ("i", "d"): 3, ("d", "e"): 3}


def test_classic_bpe_first_pair_counts_are_the_papers():
    words = [("low", 5), ("lower", 2), ("newest", 6), ("widest", 3)]
    pairs, symbols = pair_merges.pair_stats([[*w, "</w>"] for w, _ in words], [n for _, n in words])
    assert pairs == SENNRICH_PAIRS and symbols["</w>"] == 16 and symbols["e"] == 17
    tok = WordBPETokenizer(name="b").train(SENNRICH, 100)
    first = [(spelled(tok, c.pair), c.count) for c in tok.history[0].candidates]
    # the trainer's ten best, in its order: count, then the spellings that sort first ('e' < 's' < 't')
    assert first == [(("e", "s"), 9), (("s", "t"), 9), (("t", "</w>"), 9), (("w", "e"), 8), (("l", "o"), 7),
                     (("o", "w"), 7), (("e", "w"), 6), (("n", "e"), 6), (("w", "</w>"), 5), (("d", "e"), 3)]
    assert all(SENNRICH_PAIRS[p] == c for p, c in first)
    # so of the three pairs tied at 9 the first merge is (e, s), as in the paper
    assert spelled(tok, tok.history[0].pair) == ("e", "s")
    assert [spelled(tok, s.pair) for s in tok.history[:6]] == [
        ("e", "s"), ("es", "t"), ("est", "</w>"), ("l", "o"), ("lo", "w"), ("e", "w")]
    assert [s.count for s in tok.history[:6]] == [9, 9, 9, 7, 7, 6]
    assert [tok.spelling(s.new_id) for s in tok.history[:3]] == ["es", "est", "est</w>"]
    assert tok.history[0].tokens_after == 79 + 16 - 9  # 95 symbols, 9 pairs joined


def test_classic_bpe_encodes_by_its_merges():
    tok = WordBPETokenizer(name="b").train(SENNRICH, 20)  # 12 base tokens + 8 merges
    assert tok.vocab_size == 20
    pieces = [tok.spelling(i) for i in tok.encode("lowest newer")]
    assert pieces == ["low", "est</w>", "n", "ew", "e", "r", "</w>"]  # merges: es est est</w> lo low ew ewest</w> newest</w>
    assert tok.decode(tok.encode("lowest   newer\n")) == "lowest newer"
    assert tok.spelling(tok.unk_id) == "<unk>"
    assert [tok.spelling(i) for i in tok.encode("lox")] == ["lo", "<unk>", "</w>"]  # x unseen


def test_classic_bpe_unknown_characters_do_not_stop_merges():
    tok = WordBPETokenizer(name="b").train(SENNRICH, 40)
    pieces = [tok.spelling(i) for i in tok.encode("low☃est")]
    assert pieces == ["low", "<unk>", "est</w>"]
    toks = tok.tokenize("low☃est")
    assert [t.byte_span for t in toks] == [(0, 3), (3, 6), (6, 9)]  # the snowman's three bytes are <unk>


# -- WordPiece --------------------------------------------------------------------------------------
def test_wordpiece_score_and_frequency_choose_differently():
    # symbol counts a=8, c=4, z=2, ##b=8, ##c=4, ##q=2
    corpus = " ".join(["ab"] * 4 + ["ac"] * 4 + ["cb"] * 4 + ["zq"] * 2)
    wp = WordPieceTokenizer(name="w").train(corpus, 20)
    first = wp.history[0]
    scores = {spelled(wp, c.pair): c.score("wordpiece") for c in first.candidates}
    assert scores == {("z", "##q"): 2 / (2 * 2), ("a", "##c"): 4 / (8 * 4), ("c", "##b"): 4 / (4 * 8),
                      ("a", "##b"): 4 / (8 * 8)}
    assert spelled(wp, first.pair) == ("z", "##q") and first.score == 0.5 and first.count == 2
    # frequency alone (classic BPE's rule) takes a pair seen 4 times; of the three, ('a', '##b') sorts first
    assert spelled(wp, first.by_count[0].pair) == ("a", "##b") and first.by_count[0].count == 4
    bpe = WordBPETokenizer(name="b").train(corpus, 20)
    assert spelled(bpe, bpe.history[0].pair) == ("b", "</w>")  # 8: ab x4 and cb x4 end in b


def test_wordpiece_on_the_paper_corpus():
    wp = WordPieceTokenizer(name="w").train(SENNRICH, 100)
    first = wp.history[0]
    # ##i and ##d occur only in "widest" (3 times): 3 / (3 * 3); (w, ##i) ties at 1/3 and '##i' < 'w'
    assert spelled(wp, first.pair) == ("##i", "##d") and first.score == pytest.approx(1 / 3)
    assert spelled(wp, first.candidates[1].pair) == ("w", "##i") and first.candidates[1].score("wordpiece") == 1 / 3
    assert spelled(wp, first.by_count[0].pair) == ("##e", "##s") and first.by_count[0].count == 9
    assert wp.spelling(first.new_id) == "##id"


def test_wordpiece_continuations_and_unseen_words():
    wp = WordPieceTokenizer(name="w").train(SENNRICH, 100)
    vocab = [wp.spelling(i) for i in range(wp.vocab_size)]
    assert "##est" in vocab and "low" in vocab
    assert [wp.spelling(i) for i in wp.encode("lowest")] == ["low", "##est"]  # unseen word, known pieces
    assert [wp.spelling(i) for i in wp.encode("newer")] == ["new", "##er"]
    # 'o' never starts a word in the corpus (only ##o exists), so "owl" cannot be spelled: one [UNK]
    assert wp.encode("owl") == [wp.unk_id] and wp.spelling(wp.unk_id) == "[UNK]"
    assert wp.encode("lowx") == [wp.unk_id]  # one unknown character makes the whole word [UNK]
    toks = wp.tokenize("low lowx!")
    assert [(t.id, t.byte_span) for t in toks] == [(wp.encode("low")[0], (0, 4)), (0, (4, 8)), (0, (8, 9))]
    assert wp.encode("x" * 101) == [wp.unk_id]  # BERT's max_input_chars_per_word


def test_wordpiece_words_are_berts():
    wp = WordPieceTokenizer(name="w")
    assert wp.words("Hello, world! it's 中文字 a-b\x1cc") == [
        "Hello", ",", "world", "!", "it", "'", "s", "中", "文", "字", "a", "-", "b", "c"]


def test_one_bert_splitter():
    """Hugging Face's BertPreTokenizer and the trained WordPiece cut words with the same function;
    the trained one also isolates CJK ideographs and cuts at str.isspace's whitespace."""
    from tokenizers.classic.wordpiece import _SPACES
    from tokenizers.pipeline.pre_tokenizers import BertPreTokenizer, Piece, bert_word_spans

    text = "Hi, 中文 a\x1cb\u3000c\U0002b820d\U0002b920"
    assert bert_word_spans(text) == [(0, 2), (2, 3), (4, 6), (7, 10), (11, 15)]
    assert [p.text for p in BertPreTokenizer().pre_tokenize([Piece(text, None, True)])] == [
        "Hi", ",", "中文", "a\x1cb", "c\U0002b820d\U0002b920"]
    # U+2B820 is not a CJK ideograph to Hugging Face (its ranges skip U+2B820..U+2B91F); U+2B920 is
    assert bert_word_spans(text, chinese_chars=True, whitespace=_SPACES) == [
        (0, 2), (2, 3), (4, 5), (5, 6), (7, 8), (9, 10), (11, 14), (14, 15)]


def test_one_wordpiece_rule():
    """Greedy longest-match-first, for the trained model's (text, continues) keys and for a
    tokenizer.json vocabulary of strings with a continuing-subword prefix."""
    from tokenizers.classic.wordpiece import longest_match
    from tokenizers.hf.models import WordPieceVocab

    vocab = {"[UNK]": 0, "un": 1, "##aff": 2, "##able": 3, "a": 4, "##f": 5, "##é": 6, "u": 7}
    by_string = lambda s, continues: vocab.get("##" + s if continues else s)  # noqa: E731
    assert longest_match("unaffable", by_string, 6) == [(1, 2), (2, 3), (3, 4)]
    assert longest_match("uaff", by_string, 6) == [(7, 1), (2, 3)]
    assert longest_match("uab", by_string, 6) is None  # no ##a, ##ab or ##b: the whole word is unknown
    assert longest_match("unf", by_string, 6) == [(1, 2), (5, 1)]
    assert longest_match("a" * 5, by_string, 6, max_chars=4) is None
    assert longest_match("unaffable", by_string, 2) is None  # pieces of at most 2 characters: no ##able
    wp = WordPieceVocab(vocab=vocab)
    assert wp.encode("unaffable") == ([1, 2, 3], [2, 3, 4])
    assert wp.encode("aé") == ([4, 6], [1, 2])  # lengths in UTF-8 bytes
    assert wp.encode("unx") == ([0], [3])
    assert WordPieceVocab(vocab=vocab, continuing_subword_prefix="").encode("unaff") == ([0], [5])
    assert WordPieceVocab(vocab=vocab, max_input_chars_per_word=3).encode("unaff") == ([0], [5])
    trained = WordPieceTokenizer(name="w").train(SENNRICH, 100)
    ids = {trained.spelling(i): i for i in range(trained.vocab_size)}
    assert trained.encode_word("lowest") == tuple(longest_match(
        "lowest", lambda s, continues: ids.get("##" + s if continues else s), 10))


# -- character-level --------------------------------------------------------------------------------
def test_char_model_maps_unseen_characters_to_its_unknown_id():
    tok = CharTokenizer(name="c").train("hello world", 100)
    assert tok.itos == ["<unk>", " ", "d", "e", "h", "l", "o", "r", "w"]
    assert tok.stoi["h"] == 4 and tok.unk_id == 0
    assert tok.encode("hold!") == [4, 6, 5, 2, 0]
    assert tok.decode(tok.encode("hold!")) == "hold<unk>"
    assert [s.count for s in tok.history[:2]] == [3, 2] and tok.spelling(tok.history[0].new_id) == "l"
    small = CharTokenizer(name="c").train("hello world", 3)  # l and o, the two most frequent
    assert small.itos == ["<unk>", "l", "o"] and small.notes and "become <unk>" in small.notes[0]


# -- every model -------------------------------------------------------------------------------------
def test_round_trips_up_to_the_documented_normalization(models):
    text = CORPUS
    for name, tok in models.items():
        back = tok.decode(tok.encode(text, disallowed_special=()))
        if name in ("char", "byte_bpe"):
            assert back == text, name
        elif name == "word_bpe":
            assert back == " ".join(text.split()) == tok.normalized(text)
        elif name == "wordpiece":
            assert back == " ".join(tok.words(text)) == tok.normalized(text)
        else:  # SentencePiece: its normalizer's output, ▁ read as a space, the dummy prefix dropped
            assert back == tok.normalize(text).replace("\u2581", " ").removeprefix(" ")


@pytest.mark.parametrize("text", TRICKY_TEXTS + ["x" * 10_000 + " short " + "y" * 10_000, "a  b\u3000c\x1cd"])
def test_spans_tile_the_input(models, text):
    data = text.encode("utf-8")
    for name, tok in models.items():
        toks = tok.tokenize(text, disallowed_special=())
        if not toks:  # only whitespace: the word-level models discard it, SentencePiece squeezes it away
            assert not text or (name in ("word_bpe", "wordpiece", "unigram") and not text.strip()), name
            continue
        assert toks[0].byte_span[0] == 0 and toks[-1].byte_span[1] == len(data), name
        for a, b in zip(toks, toks[1:]):
            assert a.byte_span[1] == b.byte_span[0], name
        assert list(toks.ids) == tok.encode(text, disallowed_special=()), name
        if name in ("word_bpe", "wordpiece"):  # a token covers its characters, plus whitespace at its edges
            for t in toks:
                if t.id != tok.unk_id:
                    assert data[slice(*t.byte_span)].decode().strip() == t.bytes.decode(), (name, t)


def test_markers_cover_no_bytes():
    bpe = WordBPETokenizer(name="b").train(SENNRICH, 14)
    toks = bpe.tokenize("lo  ")
    assert [(t.piece, t.bytes, t.byte_span) for t in toks] == [
        ("l", b"l", (0, 1)), ("o", b"o", (1, 2)), ("</w>", b"", (2, 4))]  # </w> holds only the spaces after it
    assert [(t.piece, t.byte_span) for t in bpe.tokenize("lo")][-1] == ("</w>", (2, 2))  # at the end: nothing
    wp = WordPieceTokenizer(name="w").train(SENNRICH, 100)
    toks = wp.tokenize(" lowest")
    assert [(t.piece, t.bytes, t.byte_span) for t in toks] == [("low", b"low", (0, 4)), ("##est", b"est", (4, 7))]


@pytest.mark.slow
def test_fast_trainer_equals_the_reference():
    rng = random.Random(7)
    texts = [SENNRICH, stdlib_docstrings(6000), "aaaa aaa aa a aaaaaaa abab baba " * 3]
    texts += [" ".join("".join(rng.choice("aabbcd") for _ in range(rng.randint(1, 12))) for _ in range(80))
              for _ in range(12)]
    for text in texts:
        for cls in (WordBPETokenizer, WordPieceTokenizer):
            for size in (15, 60, 400):
                fast = cls(name="f").train(text, size)
                ref = cls(name="r").train(text, size, trainer="reference")
                assert fast.history == ref.history and fast.symbols == ref.symbols, (cls, size, text[:30])


def test_truncated_models_equal_smaller_trainings():
    for cls in (WordBPETokenizer, WordPieceTokenizer):
        big = cls(name="b").train(CORPUS, 500)
        for size in (big.base_size, big.base_size + 37, 400):
            small = big.truncated(big.steps_for_size(size))
            fresh = cls(name="s").train(CORPUS, size)
            assert small.symbols == fresh.symbols and small.vocab_size == size
            assert small.encode(CORPUS[:3000]) == fresh.encode(CORPUS[:3000])


# -- bad input ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", NAMES)
def test_empty_corpus_says_so(name):
    with pytest.raises(TrainingError, match="empty"):
        train(name, "", 300)
    if name in ("word_bpe", "wordpiece", "unigram"):  # they discard whitespace: nothing is left
        with pytest.raises(TrainingError, match="only whitespace"):
            train(name, "  \n\t ", 300)
    else:  # whitespace is characters (bytes) like any other
        tok = train(name, "  \n\t ", 300)
        assert tok.decode(tok.encode("\t \n")) == "\t \n"


def test_vocab_size_below_the_alphabet():
    text = CORPUS
    for name in ("char", "word_bpe", "wordpiece"):
        tok = train(name, text, 40)
        assert tok.vocab_size == 40 and any("become" in n for n in tok.notes), name
        assert usage(tok, "Zebra §").unknown >= 1
    with pytest.raises(TrainingError, match="at least 256"):
        train("byte_bpe", text, 40)
    with pytest.raises(TrainingError, match="too small"):
        train("unigram", text, 40)
    with pytest.raises(TrainingError, match="needs at least"):
        train("word_bpe", text, 2)


def test_corpus_with_no_whitespace():
    text = "thequickbrownfoxjumpsoverthelazydog" * 300  # one word of 10,500 characters
    bpe = train("word_bpe", text, 60)  # learns from it in 100-character pieces
    assert bpe.vocab_size == 60 and len(bpe.encode(text)) < len(text) // 5
    assert bpe.decode(bpe.encode(text)) == text
    with pytest.raises(TrainingError, match="no whitespace or punctuation"):
        train("wordpiece", text, 60)
    for name in ("char", "unigram", "byte_bpe"):
        assert train(name, text, 300).encode(text)


def test_long_words_encode_and_tile():
    bpe = train("word_bpe", CORPUS, 400)
    word = "abcdefghij" * 1000
    toks = bpe.tokenize(f"a {word} b")
    assert toks[-1].byte_span[1] == len(word) + 4 and bpe.decode(toks.ids) == f"a {word} b"
    wp = train("wordpiece", CORPUS, 400)
    assert [t.byte_span for t in wp.tokenize(word)] == [(0, len(word))]


# -- comparing on held-out text ----------------------------------------------------------------------
def test_held_out_split_cuts_between_words():
    text = "one two three\nfour five six seven eight nine ten"
    train_part, held = held_out_split(text, 0.2)
    assert train_part + " " + held == text and held == "nine ten"
    assert held_out_split("short", 0.1) == ("short", "")
    long_word = "x" * 100 + " " + "y" * 100
    assert held_out_split(long_word, 0.1) == ("x" * 100 + " " + "y" * 80, "y" * 20)  # no space near the end


def test_curve_sizes():
    assert curve_sizes(1000) == [62, 92, 137, 204, 256, 304, 452, 672, 1000]
    assert curve_sizes(8192)[0] == 512 and curve_sizes(8192)[-1] == 8192
    assert curve_sizes(2) == [2]


def test_length_curve_and_unknown_rates(models):
    train_part, held = held_out_split(CORPUS)
    sizes = curve_sizes(600)
    for name in ("byte_bpe", "word_bpe", "char"):
        points = length_curve(models[name], CORPUS, held, sizes)
        assert points[-1].vocab_size == models[name].vocab_size
        if name != "char":
            tokens = [p.usage.tokens for p in points if p.vocab_size >= models[name].base_size] \
                if name == "word_bpe" else [p.usage.tokens for p in points]
            assert tokens == sorted(tokens, reverse=True), name  # more tokens in the vocabulary, shorter text
    byte_points = length_curve(models["byte_bpe"], CORPUS, held, sizes)
    assert byte_points[0].vocab_size == 256 and byte_points[0].usage.tokens == len(held.encode())
    assert all(p.usage.unknown == 0 for p in byte_points)
    unseen = "안녕 👋"
    for name, tok in models.items():
        u = usage(tok, unseen)
        assert (u.unknown == 0) == (name == "byte_bpe"), name
    assert usage(models["wordpiece"], unseen).unknown_chars == 3  # 안녕 and 👋, each a whole [UNK] word
    assert usage(models["char"], unseen).unknown == 3 and usage(models["char"], unseen).tokens == 4


def test_at_vocab_size_below_the_alphabet_retrains():
    tok = models_word = train("word_bpe", CORPUS, 300)
    small = at_vocab_size(models_word, 20, CORPUS)
    assert small.vocab_size == 20 and small.algorithm == "word_bpe" and tok.vocab_size == 300
    with pytest.raises(TrainingError):
        at_vocab_size(train("byte_bpe", CORPUS, 300), 100, CORPUS)


def test_long_words_take_the_same_rule(monkeypatch):
    """The heap copy of the BPE rule (words over LONG_WORD symbols) merges exactly as the plain one."""
    from tokenizers.classic import word_bpe

    tok = WordBPETokenizer(name="b").train(CORPUS, 500)
    rng = random.Random(3)
    letters = "".join(sorted(set(CORPUS) - set(" \n")))
    words = ["".join(rng.choice(letters[:30]) for _ in range(rng.randint(1, 90))) for _ in range(300)]
    words += [w for w in CORPUS.split() if len(w) > 3][:300]
    plain = [tok.encode_word(w) for w in words]
    monkeypatch.setattr(word_bpe, "LONG_WORD", 0)
    tok._cache.clear()
    assert [tok.encode_word(w) for w in words] == plain
