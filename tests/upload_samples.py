"""Small tokenizer files of every uploadable format, good and corrupt, made here from a model this
project trains (nothing downloaded), for the upload tests (library, AppTest and browser)."""

from __future__ import annotations

import base64
import json
from functools import lru_cache

from tokenizers.bpe import BPETokenizer
from tokenizers.hf.tokenizer_json import byte_chars

TRAIN_TEXT = ("Tokenizers cut text into tokens. Hello world, hello tokens! " * 40
              + "안녕하세요 세계 " * 10 + "def f(x):\n    return x * 2\n" * 10)


@lru_cache(maxsize=1)
def trained() -> BPETokenizer:
    tok = BPETokenizer("gpt4", name="sample")
    tok.train(TRAIN_TEXT, 400)
    return tok


def tiktoken_file() -> bytes:
    tok = trained()
    return "".join(f"{base64.b64encode(b).decode()} {i}\n" for i, b in sorted(tok.vocab.items())).encode()


def minbpe_file() -> bytes:
    from tokenizers.bpe.files import model_text

    return model_text(trained()).encode()


def tokenizer_json_file() -> bytes:
    """The trained model as a Hugging Face byte-level BPE tokenizer.json (its GPT-4 split as a Split
    regex before ByteLevel, the whole-chunk shortcut as ignore_merges), with one special token."""
    tok = trained()
    chars = byte_chars()

    def spell(b: bytes) -> str:
        return "".join(chars[x] for x in b)

    vocab = {spell(b): i for i, b in tok.vocab.items()}
    merges = [f"{spell(tok.vocab[a])} {spell(tok.vocab[b])}" for (a, b), _ in tok.merges.ordered()]
    return json.dumps({
        "version": "1.0", "added_tokens": [{"id": 400, "content": "<|endoftext|>", "special": True, "lstrip": False,
                                             "rstrip": False, "single_word": False, "normalized": False}],
        "normalizer": {"type": "NFC"},
        "pre_tokenizer": {"type": "Sequence", "pretokenizers": [
            {"type": "Split", "pattern": {"Regex": tok.pattern}, "behavior": "Isolated", "invert": False},
            {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": False}]},
        "post_processor": None, "decoder": {"type": "ByteLevel"},
        "model": {"type": "BPE", "vocab": vocab, "merges": merges, "ignore_merges": True}}).encode()


def vocab_txt_file() -> bytes:
    words = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "hello", "world", "token", "##s", "##izer", "cut",
             "text", "into", ",", "!", ".", "h", "##e", "##l", "##o", "t", "##o", "##k", "##n", "a", "##a"]
    return ("\n".join(words) + "\n").encode()


def sentencepiece_file() -> bytes:
    from tokenizers.vocabularies.provision import sentencepiece_model_path

    return sentencepiece_model_path().read_bytes()


# (file name, content, extra) per format: good files
GOOD = {
    "tiktoken": ("my_vocab.tiktoken", tiktoken_file),
    "sentencepiece": ("mistral.model", sentencepiece_file),
    "minbpe": ("lab.model", minbpe_file),
    "tokenizer.json": ("tokenizer.json", tokenizer_json_file),
    "vocab.txt": ("vocab.txt", vocab_txt_file),
}

# corrupt or unusable files, with a word the error message must contain
BAD = {
    "tiktoken": ("broken.tiktoken", lambda: b"aGVsbG8= 0\nnot-base64!! x\n", "not a .tiktoken file"),
    "sentencepiece": ("broken.model", lambda: sentencepiece_file()[:5000], "not a SentencePiece model"),
    "minbpe": ("broken.model", lambda: b"minbpe v1\n\n1\n<|x|> abc\n", "Line 4"),
    "tokenizer.json": ("tokenizer.json", lambda: tokenizer_json_file()[:3000], "not valid JSON"),
    "unsupported": ("tokenizer.json", lambda: json.dumps({"normalizer": {"type": "Precompiled"},
                                                           "model": {"type": "BPE", "vocab": {}, "merges": []}}).encode(),
                    "unsupported: normalizer 'Precompiled'"),
    "vocab.txt": ("vocab.txt", lambda: b"\xff\xfe\x00garbage", "not UTF-8"),
}
