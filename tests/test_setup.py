"""setup.sh run again over a .venv/ it cannot use: it says so and makes the venv again, instead of
repeating the same failure on every run.

Each test runs the real setup.sh, copied into a small project of its own: an empty requirements.txt
(so pip installs nothing and needs no network) and, for each `.venv/bin/python -m tokenizers...` or
`-m service...` step setup.sh runs after the venv (provisioning, the C core, the closing block), a module
that does nothing."""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT

SETUP = (ROOT / "setup.sh").read_text()
PYTHON = sys.executable
MINOR = "%d.%d" % sys.version_info[:2]
STEPS = re.findall(r"^\.venv/bin/python -m ((?:tokenizers|service)(?:\.\w+)+)", SETUP, re.M)


def project(tmp_path: Path) -> Path:
    shutil.copy(ROOT / "setup.sh", tmp_path / "setup.sh")
    (tmp_path / "requirements.txt").write_text("")
    (tmp_path / "requirements-dev.txt").write_text("-r requirements.txt\n")
    assert STEPS  # provisioning, the C core's build, the Numbers figures, the closing block: stubbed below
    for module in STEPS:
        path = tmp_path.joinpath(*module.split(".")).with_suffix(".py")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("print('step ran')\n")
    return tmp_path


def run_setup(root: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME")}
    env["PYTHON"] = PYTHON
    return subprocess.run(["bash", str(root / "setup.sh")], cwd="/", env=env, capture_output=True, text=True,
                          timeout=300)


def venv_works(root: Path) -> bool:
    out = subprocess.run([str(root / ".venv/bin/python"), "-c",
                          "import sys, pip; print('%d.%d' % sys.version_info[:2])"],
                         capture_output=True, text=True)
    return out.returncode == 0 and out.stdout.strip() == MINOR


def check_made_again(root: Path, why: str) -> None:
    out = run_setup(root)
    assert out.returncode == 0, out.stderr
    assert f".venv/ is not usable ({why}): removing it and making it again with {PYTHON} ({MINOR})" in out.stderr
    assert venv_works(root)
    assert out.stdout.count("step ran") == len(STEPS)
    again = run_setup(root)  # and now it is kept, quietly
    assert again.returncode == 0 and "not usable" not in again.stderr


def test_a_venv_without_pip_is_made_again(tmp_path):
    root = project(tmp_path)
    subprocess.run([PYTHON, "-m", "venv", "--without-pip", str(root / ".venv")], check=True)
    check_made_again(root, "it has no pip")


@pytest.mark.slow  # a venv with pip each: seconds; the no-pip case above stays quick
def test_a_venv_whose_python_is_missing_is_made_again(tmp_path):
    root = project(tmp_path)
    (root / ".venv" / "bin").mkdir(parents=True)
    (root / ".venv" / "pyvenv.cfg").write_text("home = /nowhere\n")
    check_made_again(root, "its .venv/bin/python is missing or does not run")


@pytest.mark.slow  # a venv with pip each: seconds; the no-pip case above stays quick
def test_a_venv_whose_python_fails_is_made_again(tmp_path):
    root = project(tmp_path)
    (root / ".venv" / "bin").mkdir(parents=True)
    (root / ".venv" / "bin" / "python").symlink_to("/nowhere/python3.9")  # its base Python was removed
    check_made_again(root, "its .venv/bin/python is missing or does not run")


@pytest.mark.slow  # a venv with pip each: seconds; the no-pip case above stays quick
def test_a_venv_of_another_python_is_made_again(tmp_path):
    root = project(tmp_path)
    fake = root / ".venv" / "bin" / "python"
    fake.parent.mkdir(parents=True)
    fake.write_text("#!/bin/sh\necho 3.10\n")  # answers as a Python 3.10 would
    fake.chmod(0o755)
    check_made_again(root, f"it was made with Python 3.10, and {PYTHON} is {MINOR}")


def test_a_working_venv_is_kept(tmp_path):
    root = project(tmp_path)
    subprocess.run([PYTHON, "-m", "venv", str(root / ".venv")], check=True)
    (root / ".venv" / "kept").write_text("")
    out = run_setup(root)
    assert out.returncode == 0, out.stderr
    assert "not usable" not in out.stderr and (root / ".venv" / "kept").exists()


@pytest.mark.parametrize("version", ["3.10", "3.14"])
def test_a_python_outside_the_pins_range_is_refused(tmp_path, version):
    root = project(tmp_path)
    fake = tmp_path / "python"
    major, minor = version.split(".")
    # a Python that reports `version`: the real one running `python -c CODE ARGS` with sys.version_info replaced
    fake.write_text(f"#!{PYTHON}\nimport sys\ncode = sys.argv[2]\nsys.argv = ['-c'] + sys.argv[3:]\n"
                    f"sys.version_info = ({major}, {minor}, 0)\nexec(code)\n")
    fake.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME")}
    out = subprocess.run(["bash", str(root / "setup.sh")], env=env | {"PYTHON": str(fake)}, capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 1
    assert f"Token Lens needs Python 3.11 to 3.13, whose wheels its pinned packages publish ({fake} is {version})" \
        in out.stderr
    assert not (root / ".venv").exists()
