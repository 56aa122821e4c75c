"""axe-core's provisioning for the browser tests (tests/e2e/axe.py): pinned, checked, cached, and a
clear message when it cannot be had. No network: npm is replaced by a script that writes a tarball."""

import io
import os
import stat
import tarfile

import pytest

from tests.e2e import axe


def fake_npm(tmp_path, payload: bytes):
    """An `npm` on PATH whose `pack` writes `payload` as the tarball, and counts its calls."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (tmp_path / "payload.tgz").write_bytes(payload)
    npm = bin_dir / "npm"
    npm.write_text(f"""#!/bin/sh
echo x >> {tmp_path}/calls
while [ "$1" != "--pack-destination" ]; do shift; done
cp {tmp_path}/payload.tgz "$2/{axe.PACKAGE}-{axe.VERSION}.tgz"
""")
    npm.chmod(npm.stat().st_mode | stat.S_IEXEC)
    return bin_dir


def tarball_bytes() -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        data = b"window.axe = {};"
        info = tarfile.TarInfo(axe.SCRIPT)
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def test_a_tarball_that_is_not_the_pinned_one_is_refused_and_never_cached(tmp_path, monkeypatch):
    monkeypatch.setenv("TOKEN_LENS_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("PATH", str(fake_npm(tmp_path, tarball_bytes())) + os.pathsep + os.environ["PATH"])
    with pytest.raises(axe.AxeMissing, match="is not axe-core .* as pinned"):
        axe.provision()
    assert not axe.tarball().exists()


def test_the_pinned_tarball_is_fetched_once_then_read_from_the_cache(tmp_path, monkeypatch):
    data = tarball_bytes()
    monkeypatch.setenv("TOKEN_LENS_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("PATH", str(fake_npm(tmp_path, data)) + os.pathsep + os.environ["PATH"])
    monkeypatch.setattr(axe, "_verify", lambda got, where: None if got == data else pytest.fail("other bytes"))
    assert axe.script() == "window.axe = {};"
    assert axe.script() == "window.axe = {};"
    assert (tmp_path / "calls").read_text().count("x") == 1  # the second read fetched nothing


def test_without_npm_it_says_what_to_install(tmp_path, monkeypatch):
    monkeypatch.setenv("TOKEN_LENS_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    with pytest.raises(axe.AxeMissing, match="apt-get install npm"):
        axe.provision()
    assert axe.main() == 0  # set-up goes on, saying so
