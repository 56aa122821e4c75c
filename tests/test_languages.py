"""tokenizers.analysis.languages (token premium, reading a parallel corpus) and tokenizers.analysis.parallel (the
built-in corpus)."""

import contextlib
import io
import math
import unicodedata

import pandas as pd
import pytest

from tokenizers import BPETokenizer, available_tokenizers, get_tokenizer
from tokenizers.analysis.languages import corpus_from_files, corpus_from_table, flat, language_code, token_premium
from tokenizers.analysis.parallel import LANGUAGES, PROGRAMS, as_tsv, language_texts, program_texts

# the Unicode name prefixes of each script's letters
SCRIPT_NAMES = {"Latin": ("LATIN",), "Cyrillic": ("CYRILLIC",), "Greek": ("GREEK",), "Arabic": ("ARABIC",),
                "Hebrew": ("HEBREW",), "Devanagari": ("DEVANAGARI",), "Bengali": ("BENGALI",),
                "Han": ("CJK UNIFIED",), "Kanji and kana": ("CJK UNIFIED", "HIRAGANA", "KATAKANA"),
                "Hangul": ("HANGUL",), "Thai": ("THAI",), "Georgian": ("GEORGIAN",), "Armenian": ("ARMENIAN",)}


def test_premium_of_a_text_against_itself_is_one():
    text = language_texts()["hin"]
    names = available_tokenizers()
    df = token_premium({"eng": text, "same": text}, names)
    assert (df["premium"] == 1.0).all().all()
    assert list(df["premium"].columns) == names and list(df.index) == ["eng", "same"]


def test_frame_layout_and_exact_figures():
    df = token_premium({"eng": "hello world", "twice": "hello world hello world", "none": ""}, ["gpt2"])
    assert df.columns.names == ["metric", "tokenizer"] and df.index.name == "language"
    assert df[("tokens", "gpt2")].tolist() == [2, 4, 0]
    assert df[("premium", "gpt2")].tolist() == [1.0, 2.0, 0.0]
    assert df["chars"].tolist() == [11, 23, 0] and df["bytes"].tolist() == [11, 23, 0]
    assert df.loc["eng", ("chars_per_token", "gpt2")] == 5.5
    assert math.isnan(df.loc["none", ("bytes_per_token", "gpt2")])
    assert list(flat(df).columns) == ["chars", "bytes", "tokens:gpt2", "premium:gpt2", "chars_per_token:gpt2",
                                      "bytes_per_token:gpt2"]
    assert isinstance(df["premium"], pd.DataFrame) and isinstance(df["chars"], pd.Series)


def test_reference_and_argument_errors():
    with pytest.raises(ValueError, match="'eng' is not among"):
        token_premium({"fra": "bonjour"}, ["gpt2"])
    with pytest.raises(ValueError, match="no tokens"):
        token_premium({"eng": "", "fra": "bonjour"}, ["gpt2"])
    with pytest.raises(ValueError, match="No tokenizers"):
        token_premium({"eng": "hi"}, [])
    with pytest.raises(KeyError):
        token_premium({"eng": "hi"}, ["gpt5"])
    assert token_premium({"fra": "bonjour", "eng": "hello"}, ["gpt2"], reference="fra").loc["fra", ("premium", "gpt2")] == 1


def test_tokenizer_objects_progress_and_surrogates():
    own = BPETokenizer("gpt4", name="mine")
    own.train("hello world " * 50, 260)
    seen = []
    df = token_premium({"eng": "hello world", "x": "a\ud83db"}, [own, "gpt2"], progress=lambda d, t: seen.append((d, t)))
    assert list(df["tokens"].columns) == ["mine", "gpt2"]
    assert seen == [(1, 4), (2, 4), (3, 4), (4, 4)]
    assert df.loc["x", "bytes"] == 5  # the lone surrogate counted as U+FFFD, as encoding sees it


def test_the_built_in_premiums():
    df = token_premium(language_texts(), ["cl100k_base", "o200k_base", "gpt2"])
    t = df["tokens"]
    assert t.loc["eng"].tolist() == [46, 46, 50]
    assert t.loc["hin"].tolist() == [190, 59, 280]
    p = df["premium"]
    assert p.loc["hin", "cl100k_base"] > 4 and p.loc["hin", "o200k_base"] < 1.3  # the headline
    assert (p.drop("eng") > 1).all().all()  # every language costs more than English here


def test_parallel_corpus_covers_the_required_scripts():
    assert len(LANGUAGES) >= 20
    scripts = {lang.script for lang in LANGUAGES.values()}
    assert len(scripts) >= 10
    assert {"Latin", "Cyrillic", "Greek", "Arabic", "Hebrew", "Devanagari", "Bengali", "Han", "Kanji and kana",
            "Hangul", "Thai"} <= scripts and {"Georgian", "Armenian"} & scripts
    for code, lang in LANGUAGES.items():
        assert len(lang.sentences) == 5 and all(s.strip() == s and s for s in lang.sentences), code
        letters = [c for c in lang.text if c.isalpha()]
        ok = sum(unicodedata.name(c, "").startswith(SCRIPT_NAMES[lang.script]) for c in letters)
        assert ok / len(letters) > 0.95, (code, lang.script)  # written in the script it claims
        assert unicodedata.normalize("NFC", lang.text) == lang.text, code
    assert list(language_texts())[0] == "eng"


def test_programs_and_the_python_one_runs():
    assert len(PROGRAMS) >= 6 and list(program_texts())[0] == "python"
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(PROGRAMS["python"].source, "fizzbuzz.py", "exec"), {})
    lines = out.getvalue().split()
    assert len(lines) == 100 and lines[:5] == ["1", "2", "Fizz", "4", "Buzz"] and lines[14] == "FizzBuzz"
    assert "\tfor i := 1" in PROGRAMS["go"].source  # gofmt's tabs


def test_tsv_round_trip():
    corpus = corpus_from_table(as_tsv(), "corpus.tsv")
    assert corpus.notes == [] and corpus.texts == language_texts()


def test_corpus_from_files():
    c = corpus_from_files({"eng.txt": "a\r\nb\nc\n\n", "pt-BR.txt": "x\ny", "my notes.txt": "q", "eng.md": "z"})
    assert c.texts == {"eng": "a\nb", "pt-BR": "x\ny"}
    assert any("'my notes.txt'" in n for n in c.notes) and any("second file for eng" in n for n in c.notes)
    assert any("different numbers of lines" in n and "eng 3" in n for n in c.notes)
    assert language_code("dir/fra.txt") == "fra" and language_code("x") is None and language_code("e.txt") is None


def test_long_texts_are_cut_to_the_same_lines():
    c = corpus_from_files({"eng.txt": "aaaa\n" * 100, "fra.txt": "bbbbbbbb\n" * 100}, max_chars=100)
    assert {k: v.count("\n") + 1 for k, v in c.texts.items()} == {"eng": 11, "fra": 11}
    assert any("first 11 parallel line" in n for n in c.notes)
    c = corpus_from_files({"eng.txt": "x" * 50, "fra.txt": "y" * 50}, max_total=60)
    assert c.texts == {"eng": "x" * 30, "fra": "y" * 30}


def test_corpus_from_table_csv_quirks():
    text = '\ufeffeng,fra,Bad Header!,deu\n"Hello, you",Salut\n"Yes","Oui","x","Ja"\n\n'
    c = corpus_from_table(text, "t.csv")
    assert c.texts == {"eng": "Hello, you\nYes", "fra": "Salut\nOui", "deu": "\nJa"}
    assert any(": 3 ('Bad Header!')." in n for n in c.notes) and any("fewer cells" in n for n in c.notes)
    assert corpus_from_table("", "t.tsv").texts == {}
    assert corpus_from_table("eng\tkor\nhi\t안녕\n").texts == {"eng": "hi", "kor": "안녕"}  # sniffed tab


def test_every_registry_tokenizer_encodes_every_text():
    for name in available_tokenizers():
        tok = get_tokenizer(name)
        for code, text in {**language_texts(), **program_texts()}.items():
            # a tokenizer that normalizes first (Claude's legacy file: NFKC, which writes Thai's ำ as ํา)
            # gives back the normalized text
            want = tok.normalize(text) if getattr(tok, "normalizer", None) is not None else text
            assert tok.decode(tok.encode_ordinary(text)) == want, (name, code)


def test_skipped_columns_are_one_note_per_kind():
    header = "\t".join(["en", "de", "en"] + [f"col {k}" for k in range(20)])
    c = corpus_from_table(header + "\n" + "\t".join(["x"] * 23) + "\n", "t.tsv")
    assert set(c.texts) == {"en", "de"}
    assert len(c.notes) == 2
    assert c.notes[0].startswith("Skipped 20 column(s) whose header is not a language code: 4 ('col 0')")
    assert c.notes[0].endswith(" ….")
    assert c.notes[1] == "Skipped 1 column(s) repeating a language: 3 (en)."
