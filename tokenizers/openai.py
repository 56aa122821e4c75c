"""OpenAI's encodings through tiktoken (the fast path), read from the provisioned cache."""

from __future__ import annotations

from typing import AbstractSet

from .base import Tokenizer, UnknownTokenIdError
from .provision import VocabularyMissingError, encoding_status, missing_message, use_project_cache

TITLES = {"gpt2": "GPT-2", "r50k_base": "r50k_base", "cl100k_base": "cl100k_base (GPT-4)",
          "o200k_base": "o200k_base (GPT-4o)"}


def get_encoding(name: str):
    """tiktoken.get_encoding, pointed at the project cache, with a message that names the set-up
    command instead of a network traceback when a file is missing or corrupt."""
    import tiktoken

    use_project_cache()
    status = encoding_status(name)
    try:
        return tiktoken.get_encoding(name)  # with network, tiktoken fetches what is missing itself
    except Exception as e:  # offline: a connection error, or a hash mismatch after a re-fetch
        bad = ", ".join(f"{url.rsplit('/', 1)[-1]} {s}" for url, s in status.items() if s != "ok")
        raise VocabularyMissingError(missing_message(name, bad or str(e))) from e


class TiktokenTokenizer(Tokenizer):
    kind = "bpe"

    def __init__(self, encoding_name: str):
        self.name = encoding_name
        self.title = TITLES.get(encoding_name, encoding_name)
        self.encoding = get_encoding(encoding_name)
        self.special_tokens = dict(self.encoding._special_tokens)
        self.pattern = self.encoding._pat_str
        self._twin = None

    @property
    def vocab_size(self) -> int:
        return self.encoding.n_vocab

    def token_bytes(self, token_id: int) -> bytes:
        self.check_ids([token_id])
        return self.encoding.decode_single_token_bytes(token_id)

    def check_ids(self, ids) -> None:
        ranks, specials = self.encoding._mergeable_ranks, self._special_ids()
        n = len(ranks)  # ids below n are ranks; above are specials (cl100k has a hole at 100256)
        bad = [i for i in ids if not (0 <= i < n or i in specials)]
        if bad:
            raise UnknownTokenIdError(self.name, bad, self.vocab_size)

    def decode_bytes(self, ids) -> bytes:
        ids = list(ids)
        self.check_ids(ids)
        return self.encoding.decode_bytes(ids)

    def _encode(self, text: str, specials: AbstractSet[str]) -> list[int]:
        return self.encoding.encode(text, allowed_special=specials, disallowed_special=())

    @property
    def twin(self):
        """The pure-Python BPETokenizer over the same ranks (merge trees, step-by-step views)."""
        if self._twin is None:
            from .bpe import BPETokenizer

            self._twin = BPETokenizer.from_ranks(self.encoding._mergeable_ranks, pattern=self.pattern,
                                                 special_tokens=self.special_tokens, name=f"bpe:{self.name}")
        return self._twin

    def merge_parents(self, token_id: int) -> tuple[int, int] | None:
        self.check_ids([token_id])
        return None if self.is_special(token_id) else self.twin.merge_parents(token_id)
