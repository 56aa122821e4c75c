"""Building the C core: with no compiler, or a failing one, set-up goes on and says what happens."""

from __future__ import annotations

from tokenizers.bpe.native import build


def test_no_compiler_is_reported_not_fatal(monkeypatch, tmp_path):
    monkeypatch.setenv("TOKEN_LENS_CACHE", str(tmp_path))
    monkeypatch.setattr(build, "compiler", lambda: None)
    said = []
    assert build.build(log=said.append) is None
    assert "no C compiler" in said[0] and "pure-Python" in said[0]
    assert build.main(["--check"]) == 1


def test_failed_compilation_is_reported_not_fatal(monkeypatch, tmp_path):
    monkeypatch.setenv("TOKEN_LENS_CACHE", str(tmp_path))
    monkeypatch.setattr(build, "CFLAGS", [*build.CFLAGS, "-DTL_NOT_A_FLAG", "-include", "/nonexistent.h"])
    said = []
    assert build.build(log=said.append) is None
    assert "compilation failed" in said[0] and "nonexistent.h" in said[0]
    assert not list(tmp_path.rglob("*.so"))


def test_builds_into_a_fresh_cache(monkeypatch, tmp_path):
    monkeypatch.setenv("TOKEN_LENS_CACHE", str(tmp_path))
    if build.compiler() is None:
        import pytest

        pytest.skip("no C compiler on this machine")
    said = []
    out = build.build(log=said.append)
    assert out is not None and out.exists() and out.parent == tmp_path / "native"
    assert build.build(log=said.append) == out and "up to date" in said[-1]
