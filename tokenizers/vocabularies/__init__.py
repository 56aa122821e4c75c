"""Vocabularies published as tiktoken ranks: OpenAI's encodings and other vendors' files (Llama 3,
Qwen, Whisper, Mistral's Tekken), one record each (`records.VOCABULARIES`: name, title, pinned files,
loader, split pattern, chat format), read into the one byte-level model
(`tiktoken_bpe.TiktokenTokenizer`, a BPETokenizer that encodes through tiktoken), and `provision`,
which fetches and verifies every file at set-up so nothing downloads at run time. A new vendor
vocabulary is one record."""


def __getattr__(name: str):
    # imported when first asked for, so that `python -m tokenizers.vocabularies.provision` runs before
    # anything reads a vocabulary
    if name in ("TiktokenTokenizer", "from_tiktoken"):
        from tokenizers.vocabularies import tiktoken_bpe

        return getattr(tiktoken_bpe, name)
    raise AttributeError(f"module 'tokenizers.vocabularies' has no attribute {name!r}")


__all__ = ["TiktokenTokenizer", "from_tiktoken"]
