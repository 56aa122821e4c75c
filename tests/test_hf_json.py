"""tokenizer.json, read by this project (tokenizers/hf/tokenizer_json.py), held equal to Hugging Face's own
library (tokenizers==0.23.3, a test-only dependency) run in a subprocess outside the repository:
DeepSeek V3 and Claude's legacy file on a varied corpus and under a fuzz, and small tokenizers trained
by Hugging Face with each component the reader handles."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings, example
from hypothesis import strategies as st

from hf_reference import HuggingFace
from tokenizers import get_tokenizer
from tokenizers.hf.tokenizer_json import TokenizerFileError, UnsupportedComponent, read_tokenizer_json
from tokenizers.vocabularies.provision import vendor_path
from tokenizers.analysis.samples import varied_text


@pytest.fixture(scope="module")
def hf():
    h = HuggingFace()
    yield h
    h.close()


def corpus_docs(n_bytes: int = 300_000) -> list[str]:
    """The varied corpus (prose, code, many scripts, emoji, numbers) cut into documents of about
    2,000 characters, plus long whitespace, digit runs and special-token strings."""
    docs, cur = [], ""
    for line in varied_text(n_bytes).splitlines(keepends=True):
        cur += line
        if len(cur) > 2000:
            docs.append(cur)
            cur = ""
    docs.append(cur)
    docs += [" " * 5000, "\t \n" * 700, "\n" * 300 + "x", "1234567890" * 50, "   leading and trailing   ",
             "<|endoftext|> <EOT> <META> <｜User｜>hi<｜Assistant｜><｜begin▁of▁sentence｜>x<｜end▁of▁sentence｜>",
             "ﬁ ℌ ① ｶﾀｶﾅ Å e\u0301 \u1100\u1161\u11a8", ""]
    return docs


@pytest.mark.parametrize("name", ["deepseek_v3", "claude_legacy"])
def test_vendor_files_equal_hugging_face_on_a_varied_corpus(hf, name):
    docs = corpus_docs()
    tok = get_tokenizer(name)
    assert hf.ids(vendor_path(name), docs) == [tok.encode(d, allowed_special="all") for d in docs]
    # special-token strings as text (Hugging Face: encode_special_tokens; here: disallowed_special=())
    assert hf.ids(vendor_path(name), docs, as_text=True) == [tok.encode(d, disallowed_special=()) for d in docs]


# Left out: the segmented digits U+1FBF0-U+1FBF9 (Unicode 13), which NFKC makes digits in Python's
# unicodedata (Unicode 14.0) but Hugging Face's normalizer leaves alone (its tables are older):
# claude_legacy encodes "\U0001FBF0" as [20] here and [6617, 112, 113] there
TEXT = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",),
                             exclude_characters="".join(map(chr, range(0x1FBF0, 0x1FBFA)))), max_size=80)
PIECES = st.lists(st.one_of(TEXT, st.sampled_from([" ", "  ", "\n", "\t", "123", "4567", "'s", "é", "e\u0301", "ﬁ",
                                                   "👨‍👩‍👧", "<EOT>", "<｜User｜>", "<｜begin▁of▁sentence｜>", "中文",
                                                   "Hello", " world", "!!!", "\u00a0", "\u3000"])),
                  max_size=12).map("".join)


@pytest.mark.parametrize("name", ["deepseek_v3", "claude_legacy"])
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=PIECES)
def test_vendor_files_equal_hugging_face_under_a_fuzz(hf, name, text):
    tok = get_tokenizer(name)
    assert hf.ids(vendor_path(name), [text]) == [tok.encode(text, allowed_special="all")]


# -- every component, on tokenizers Hugging Face trains with it ------------------------------------
SPECS = {
    "bytelevel_prefix_lowercase": {"model": {"type": "BPE", "byte_level": True},
                                   "normalizer": "normalizers.Lowercase()",
                                   "pre_tokenizer": "pre_tokenizers.ByteLevel(add_prefix_space=True)"},
    "bytelevel_digits_split_seq": {"model": {"type": "BPE", "byte_level": True, "ignore_merges": True},
                                   "normalizer": "normalizers.Sequence([normalizers.NFKC(), normalizers.Strip()])",
                                   "pre_tokenizer": "pre_tokenizers.Sequence([pre_tokenizers.Digits(individual_digits=True),"
                                                    " pre_tokenizers.Split(r'\\s+', behavior='merged_with_previous'),"
                                                    " pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)])"},
    "bytelevel_split_next_contiguous": {"model": {"type": "BPE", "byte_level": True},
                                        "pre_tokenizer": "pre_tokenizers.Sequence([pre_tokenizers.Split(' ', "
                                                         "behavior='merged_with_next'), pre_tokenizers.Split("
                                                         "Regex(r'\\p{P}'), behavior='contiguous'),"
                                                         " pre_tokenizers.ByteLevel(use_regex=True)])"},
    "metaspace_bytefallback_nfkc": {"model": {"type": "BPE", "byte_fallback": True, "unk_token": "<unk>", "fuse_unk": True},
                                    "specials": ["<unk>", "<s>", "</s>"] + [f"<0x{b:02X}>" for b in range(256)],
                                    "limit_alphabet": 300,
                                    "normalizer": "normalizers.NFKC()",
                                    "pre_tokenizer": "pre_tokenizers.Metaspace(prepend_scheme='first')"},
    "metaspace_always_nosplit": {"model": {"type": "BPE", "unk_token": "<unk>"}, "specials": ["<unk>"],
                                 "limit_alphabet": 200,
                                 "normalizer": "normalizers.Sequence([normalizers.Replace('  ', ' '), normalizers.NFD(),"
                                               " normalizers.StripAccents()])",
                                 "pre_tokenizer": "pre_tokenizers.Metaspace(prepend_scheme='always', split=False)"},
    "replace_prepend_llama2_style": {"model": {"type": "BPE", "byte_fallback": True, "unk_token": "<unk>"},
                                     "specials": ["<unk>"] + [f"<0x{b:02X}>" for b in range(256)],
                                     "limit_alphabet": 250,
                                     "normalizer": "normalizers.Sequence([normalizers.Prepend('▁'), "
                                                   "normalizers.Replace(' ', '▁')])"},
    "whitespace_subword_affixes": {"model": {"type": "BPE", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
                                             "end_of_word_suffix": "</w>"},
                                   "specials": ["[UNK]"], "limit_alphabet": 300,
                                   "pre_tokenizer": "pre_tokenizers.Whitespace()"},
    "punctuation_whitespacesplit": {"model": {"type": "BPE", "unk_token": "[UNK]"}, "specials": ["[UNK]"],
                                    "limit_alphabet": 300,
                                    "pre_tokenizer": "pre_tokenizers.Sequence([pre_tokenizers.WhitespaceSplit(), "
                                                     "pre_tokenizers.Punctuation(behavior='merged_with_previous'), "
                                                     "pre_tokenizers.CharDelimiterSplit('x')])"},
    "split_removed_inverted": {"model": {"type": "BPE", "unk_token": "[UNK]"}, "specials": ["[UNK]"],
                               "limit_alphabet": 300,
                               "pre_tokenizer": "pre_tokenizers.Sequence([pre_tokenizers.Split(Regex("
                                                "r'\\w+|[^\\w\\s]+'), behavior='removed', invert=True), "
                                                "pre_tokenizers.Split(Regex(r'[aeiou]'), "
                                                "behavior='isolated', invert=True)])"},
    "bert_wordpiece": {"model": {"type": "WordPiece"},
                       "normalizer": "normalizers.BertNormalizer(lowercase=True)",
                       "pre_tokenizer": "pre_tokenizers.BertPreTokenizer()",
                       "added": [{"content": "hello world", "single_word": True}, {"content": "@@", "lstrip": True}],
                       "added_special": [{"content": "[MASK]", "lstrip": True, "rstrip": True}]},
    "wordpiece_cased_short_words": {"model": {"type": "WordPiece", "max_chars": 8},
                                    "normalizer": "normalizers.BertNormalizer(lowercase=False, strip_accents=False)",
                                    "pre_tokenizer": "pre_tokenizers.Whitespace()"},
    "bytelevel_added_tokens": {"model": {"type": "BPE", "byte_level": True},
                               "pre_tokenizer": "pre_tokenizers.ByteLevel(add_prefix_space=False)",
                               "added": [{"content": "<think>", "normalized": False},
                                         {"content": "the end", "rstrip": True}],
                               "added_special": [{"content": "<|eot|>"}]},
}


@pytest.fixture(scope="module")
def trained(hf, tmp_path_factory):
    folder = tmp_path_factory.mktemp("hf")
    (folder / "corpus.txt").write_text(varied_text(60_000, seed=3), encoding="utf-8")
    return hf.build(folder, SPECS)


def component_docs() -> list[str]:
    return corpus_docs(40_000) + ["Hello world hello worldly [MASK] x [MASK]y @@ a@@ b", "<think>the end   x<|eot|>",
                                  "ÀÉÎÕÜ ß İstanbul ΣΑΣ σας", "x" * 150, "word " * 30, "▁ literal ▁▁ marks"]


@pytest.mark.parametrize("spec", list(SPECS))
def test_components_equal_hugging_face(hf, trained, spec):
    path = trained[spec]
    tok = read_tokenizer_json(open(path, "rb").read(), name=spec)
    docs = component_docs()
    ours = [tok.encode(d, allowed_special="all") for d in docs]
    theirs = hf.ids(path, docs)
    assert len(theirs) == len(docs)  # zip would stop at the shorter list
    bad = [i for i, (a, b) in enumerate(zip(theirs, ours)) if a != b]
    assert not bad, f"{spec}: {len(bad)} of {len(docs)} differ, first {docs[bad[0]][:80]!r}"
    # spans tile the input whatever the pipeline dropped, replaced or inserted
    for d in docs[-8:]:
        toks = tok.tokenize(d, allowed_special="all")
        ends = [t.byte_span[1] for t in toks]
        starts = [t.byte_span[0] for t in toks]
        assert starts == [0, *ends[:-1]][:len(toks)] and (not toks or ends[-1] == len(d.encode()))


@pytest.mark.parametrize("spec", ["bytelevel_prefix_lowercase", "metaspace_bytefallback_nfkc", "bert_wordpiece",
                                  "whitespace_subword_affixes", "bytelevel_added_tokens"])
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=PIECES)
# marks of each kind: only nonspacing ones (Mn) are stripped; spacing (Mc) and enclosing (Me) stay
@example(text="\u093e")
@example(text="नमस्ते कि")
@example(text="e\u0301 a\u20dd")
def test_components_under_a_fuzz(hf, trained, spec, text):
    path = trained[spec]
    tok = read_tokenizer_json(open(path, "rb").read(), name=spec)
    assert hf.ids(path, [text]) == [tok.encode(text, allowed_special="all")]


def test_the_reader_takes_the_model_kind_it_should(trained):
    from tokenizers.bpe import BPETokenizer
    from tokenizers.hf.models import PipelineTokenizer

    kinds = {n: type(read_tokenizer_json(open(p, "rb").read(), name=n)).__name__ for n, p in trained.items()}
    lowercase = read_tokenizer_json(open(trained["bytelevel_prefix_lowercase"], "rb").read(), name="l")
    # byte-level, merges in id order: the one model, inside the pipeline that lowercases first
    assert isinstance(lowercase, PipelineTokenizer) and type(lowercase.model) is BPETokenizer
    assert kinds["metaspace_bytefallback_nfkc"] == "PipelineTokenizer"
    assert kinds["bert_wordpiece"] == "PipelineTokenizer"
    assert isinstance(get_tokenizer("deepseek_v3").model, BPETokenizer) and get_tokenizer("deepseek_v3").pre_tokenizer
    assert get_tokenizer("claude_legacy").pre_tokenizer is None  # ByteLevel's regex is GPT-2's pattern
    from tokenizers.bpe import native

    # the model's own pattern: the C core cuts the text (when there is a C core: TOKEN_LENS_NATIVE=0)
    assert get_tokenizer("claude_legacy").engine == ("C" if native.available() else "Python")


# -- errors that name what is wrong ----------------------------------------------------------------
def minimal(**over) -> dict:
    d = {"model": {"type": "BPE", "vocab": {"a": 0, "b": 1, "ab": 2}, "merges": ["a b"]},
         "normalizer": None, "pre_tokenizer": None, "added_tokens": []}
    d.update(over)
    return d


@pytest.mark.parametrize("data,message", [
    (b"\xff\xfe", "not UTF-8"),
    (b'{"model": {"type": "BPE", "vocab": {', "not valid JSON"),
    (b"[1, 2]", "no \"model\""),
    (json.dumps(minimal(normalizer={"type": "Precompiled", "precompiled_charsmap": "x"})), "unsupported: normalizer 'Precompiled'"),
    (json.dumps(minimal(pre_tokenizer={"type": "UnicodeScripts"})), "unsupported: pre_tokenizer 'UnicodeScripts'"),
    (json.dumps(minimal(model={"type": "Unigram", "vocab": []})), "unsupported: model 'Unigram'"),
    (json.dumps(minimal(model={"type": "BPE", "vocab": {"a": 0}, "merges": [], "dropout": 0.1})), "dropout"),
    (json.dumps(minimal(model={"type": "BPE", "vocab": {"a": 0, "b": 1}, "merges": ["a b"]})), "'ab', which is not in the vocab"),
    (json.dumps(minimal(model={"type": "BPE", "vocab": {"a": 99_000_000}, "merges": []})), "must be an integer from 0"),
    (json.dumps(minimal(pre_tokenizer={"type": "Split", "pattern": {"Regex": "(unclosed"}, "behavior": "Isolated"})),
     "does not compile"),
    (json.dumps(minimal(pre_tokenizer={"type": "Split", "pattern": {"Regex": "x"}, "behavior": "Sideways"})),
     "unsupported: pre_tokenizer Split behavior 'Sideways'"),
    (json.dumps(minimal(added_tokens=[{"content": "", "id": 5}])), "added_tokens[0]"),
    ("[" * 100_000 + "]" * 100_000, "not valid JSON"),
])
def test_bad_files_get_a_message_naming_the_problem(data, message):
    with pytest.raises(TokenizerFileError) as e:
        read_tokenizer_json(data, name="upload")
    assert message in str(e.value)


def test_unsupported_component_is_a_file_error_that_says_what_is_supported():
    with pytest.raises(UnsupportedComponent) as e:
        read_tokenizer_json(json.dumps(minimal(normalizer={"type": "Nmt"})), name="x")
    assert "NFC" in str(e.value) and e.value.what == "Nmt"


def test_limits_bound_what_a_file_may_hold():
    from tokenizers.hf.tokenizer_json import Limits

    small = Limits(max_bytes=1000, max_vocab=2, max_merges=0)
    with pytest.raises(TokenizerFileError, match="at most"):
        read_tokenizer_json(b" " * 2000, name="x", limits=small)
    with pytest.raises(TokenizerFileError, match="3 tokens"):
        read_tokenizer_json(json.dumps(minimal()), name="x", limits=small)
