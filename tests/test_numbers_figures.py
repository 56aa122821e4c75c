"""Issue 20, item 8: the Numbers tab's figures of a registry vocabulary come from a small file on disk
(tokenizers.analysis.numbers), so a fresh server's first view of the tab loads no vocabulary. The file's
figures are held equal to the reference computed from the loaded vocabulary."""

import dataclasses
import json

import pytest

from tokenizers import available_tokenizers, get_tokenizer
from tokenizers.analysis import numbers


@pytest.fixture
def figures_dir(tmp_path, monkeypatch):
    """An empty folder for the figures files, and no figures kept in this process."""
    monkeypatch.setattr(numbers, "figures_dir", lambda: tmp_path)
    monkeypatch.setattr(numbers, "_figures", {})
    return tmp_path


def test_hand_worked_figures():
    f = numbers.number_figures(get_tokenizer("cl100k_base"))
    assert len(f.ids) == 10_000 and f.counts[:3] == [1, 1, 1] and f.counts[999] == 1 and f.counts[1000] == 2
    assert f.pieces(1275) == [b"127", b"5"] and (f.digit_tokens, f.longest_digit_token) == (1110, 3)
    sp = numbers.number_figures(get_tokenizer("mistral_sp"))
    assert [sp.tokens[i][1] for i in sp.ids[42]] == ["▁", "4", "2"] and sp.longest_digit_token == 1


def test_every_vocabulary_read_from_its_file_equals_the_reference(figures_dir):
    """Written once from the vocabulary, read back by a process that has not computed them (the memo
    emptied): the same figures as number_figures on the loaded vocabulary, for every registry entry."""
    for name in available_tokenizers():
        reference = numbers.number_figures(get_tokenizer(name))
        assert numbers.registry_number_figures(name) == reference, name
    assert sorted(p.name.split("-")[0] for p in figures_dir.iterdir()) == sorted(available_tokenizers())
    numbers._figures.clear()
    for name in available_tokenizers():
        def no_load():
            raise AssertionError(f"{name}: the file was not read")
        assert numbers.registry_number_figures(name, no_load) == numbers.number_figures(get_tokenizer(name)), name


def test_a_file_in_another_shape_is_computed_again(figures_dir):
    reference = numbers.number_figures(get_tokenizer("gpt2"))
    path = numbers.figures_path("gpt2")
    for bad in (b"", b"{not json", json.dumps({"format": 0}).encode(),
                json.dumps({**reference.to_json(), "ids": reference.to_json()["ids"][:-1]}).encode(),
                json.dumps({**reference.to_json(), "tokens": []}).encode()):
        path.write_bytes(bad)
        numbers._figures.clear()
        assert numbers.registry_number_figures("gpt2") == reference
        assert numbers.NumberFigures.from_json(json.loads(path.read_bytes())) == reference  # written again


def test_a_new_key_replaces_the_old_file(figures_dir, monkeypatch):
    """One file per vocabulary: the file of an older key (the code changed) goes when the new one is written."""
    numbers.registry_number_figures("gpt2")
    old = numbers.figures_path("gpt2")
    numbers._figures.clear()
    monkeypatch.setattr(numbers, "code_digest", lambda: "another encoder")
    numbers.registry_number_figures("gpt2")
    assert [p.name for p in figures_dir.iterdir()] == [numbers.figures_path("gpt2").name] != [old.name]


def test_the_key_follows_the_vocabularys_files_and_the_code(monkeypatch):
    from tokenizers.vocabularies import provision

    key = numbers.figures_key("cl100k_base")
    assert key == numbers.figures_key("cl100k_base") and key != numbers.figures_key("o200k_base")
    assert numbers.figures_key("o200k_base") != numbers.figures_key("o200k_harmony")  # one file, two names
    pins = provision.needed("cl100k_base")
    monkeypatch.setattr(provision, "needed", lambda name: [dataclasses.replace(p, sha256="0" * 64) for p in pins])
    assert numbers.figures_key("cl100k_base") != key  # another file under the same name
    monkeypatch.undo()
    monkeypatch.setattr(numbers, "code_digest", lambda: "another encoder")
    assert numbers.figures_key("cl100k_base") != key


def test_the_numbers_tab_loads_no_vocabulary_when_the_files_are_there(figures_dir, monkeypatch):
    """A fresh server (no figures in memory, no Streamlit cache) with the files written: the tab draws
    every vocabulary's table row and heatmap without loading one. Before, it loaded all of them (about
    4 s and 500 MB on a fresh server)."""
    import streamlit as st

    from app_pages.kit import shared
    from conftest import app_test, goto

    for name in available_tokenizers():
        numbers.registry_number_figures(name)
    numbers._figures.clear()
    st.cache_resource.clear()
    st.cache_data.clear()
    loaded = []
    monkeypatch.setattr(shared, "load_tokenizer", lambda name: loaded.append(name) or get_tokenizer(name))
    at = app_test(timeout=180)  # the router's first run is Compare's, which loads its own tokenizers
    loaded.clear()
    goto(at, "quirks", quirks_tab="Numbers")
    assert not at.exception and [t.value for t in at.title] == ["Quirks"]
    assert loaded == []
    table = at.dataframe[0].value.set_index("tokenizer")
    assert len(table) == len(available_tokenizers()) == len(at.get("plotly_chart"))
    assert table.loc["cl100k_base (GPT-4)", "all-digit tokens"] == 1110
    assert table.loc["cl100k_base (GPT-4)", "longest all-digit token"] == 3
    assert table.loc["Mistral 7B (SentencePiece)", "5+ tokens"] == 9000
