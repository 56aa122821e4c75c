"""OpenAI's vocabularies (and, through their records' loaders, other vendors' tiktoken-style ones), read
through tiktoken's own constructors (`tiktoken_ext.openai_public.ENCODING_CONSTRUCTORS`), which return the split pattern (`pat_str`),
the ranks (`mergeable_ranks`, bytes -> id) and the special tokens, from the files that set-up
provisioned. tiktoken checks each file against its pinned sha256 as it reads it; this module reads
each encoding once per process, so that check runs once per process too."""

from __future__ import annotations

import threading

from tokenizers.core.tokenizer import VocabularyMissingError
from tokenizers.core.patterns import trust_pattern
from tokenizers.vocabularies import records
from tokenizers.vocabularies.provision import (cache_path, encoding_status, missing_message, tiktoken_pins,
                                               use_project_cache, vendor_file)

_params: dict[str, dict] = {}
_lock = threading.Lock()


def encoding_names() -> list[str]:
    from tiktoken_ext.openai_public import ENCODING_CONSTRUCTORS

    return list(ENCODING_CONSTRUCTORS)


def encoding_params(name: str) -> dict:
    """{"name", "pat_str", "mergeable_ranks", "special_tokens", ...} for one of OpenAI's encodings,
    read once per process. A missing or corrupt file raises VocabularyMissingError naming the
    set-up command (with network, tiktoken fetches what is missing itself)."""
    with _lock:
        got = _params.get(name)
        if got is None:
            record = records.find(name)
            if record is not None and not record.from_tiktoken:  # a vendor's file, from its own package
                got = {**record.loader(vendor_file(name).read_bytes(), record.what), "name": name}
                if record.pattern is not None:
                    got["pat_str"] = record.pattern
                if record.normalizer:
                    got["normalizer"] = record.normalizer
                trust_pattern(got["pat_str"])  # the vendor's own pattern (tests hold it to its source)
                _params[name] = got
                return got
            from tiktoken_ext.openai_public import ENCODING_CONSTRUCTORS

            if name not in ENCODING_CONSTRUCTORS:
                raise KeyError(f"tiktoken has no encoding {name!r}; it has {', '.join(ENCODING_CONSTRUCTORS)}")
            use_project_cache()
            present = {url: cache_path(url).exists() for url, _ in tiktoken_pins(name)}
            try:
                got = ENCODING_CONSTRUCTORS[name]()
            except Exception as e:  # offline: a connection error, or a hash mismatch after a re-fetch
                # tiktoken deletes a cached file whose sha256 is wrong before trying to fetch it
                # again, so a file that was there and is gone now was corrupt
                status = {url: ("corrupt" if present[url] and not cache_path(url).exists() else s)
                          for url, s in encoding_status(name).items()}
                bad = ", ".join(f"{url.rsplit('/', 1)[-1]} {s}" for url, s in status.items() if s != "ok")
                raise VocabularyMissingError(missing_message(name, bad or str(e))) from e
            trust_pattern(got["pat_str"])
            _params[name] = _share_ranks(got)
        return _params[name]


def _share_ranks(got: dict) -> dict:
    """`got` with the ranks of an encoding read before when they are the same (o200k_harmony is
    o200k_base's ranks with other special tokens: one copy of 200,000 entries, not two)."""
    ranks = got["mergeable_ranks"]
    for other in _params.values():
        theirs = other.get("mergeable_ranks")
        if theirs is not ranks and theirs is not None and len(theirs) == len(ranks) and theirs == ranks:
            return {**got, "mergeable_ranks": theirs}
    return got


def get_encoding(name: str):
    """A tiktoken.Encoding built from encoding_params (one read of the files per process)."""
    import tiktoken

    p = encoding_params(name)
    return tiktoken.Encoding(name=p["name"], pat_str=p["pat_str"], mergeable_ranks=p["mergeable_ranks"],
                             special_tokens=p["special_tokens"], explicit_n_vocab=p.get("explicit_n_vocab"))
