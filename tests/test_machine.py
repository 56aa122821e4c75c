"""What set-up's last block and the sidebar's line say about this machine (service/machine.py): the C core, the
browser build, the tokenizers' files, and the command for each gap."""

from __future__ import annotations

import subprocess
import sys

from conftest import ROOT, app_test
from service import machine
from tokenizers import REGISTRY
from tokenizers.bpe.native import lib

NAMES = tuple(REGISTRY)


def test_a_machine_with_everything_says_nothing_is_missing():
    m = machine.Machine(True, True, "ok", NAMES, ())
    lines = machine.block(m)
    assert lines[0] == "== Token Lens on this machine" and lines[-1] == "nothing is missing"
    assert lines[1].endswith("yes") and "browser build: yes" in lines[2] and f"{len(NAMES)} of {len(NAMES)}" in lines[3]
    assert len(lines) <= 6  # one short block
    assert machine.one_line(m) == (f"This server: C core · typing tokenized in the browser · {len(NAMES)} of "
                                   f"{len(NAMES)} tokenizers.")


def test_each_gap_gets_the_command_that_fills_it():
    m = machine.Machine(False, False, "stale", NAMES[:3], NAMES[3:])
    text = "\n".join(machine.block(m))
    assert "C core:        no: the pure-Python paths run" in text
    assert "apt-get install gcc" in text                          # no compiler
    assert "older than its C sources" in text and lib.WASM_TOOLCHAIN in text
    assert f"3 of {len(NAMES)} (missing: {', '.join(NAMES[3:])})" in text
    assert "python -m tokenizers.vocabularies.provision" in text or "setup.sh" in text
    assert machine.one_line(m).startswith("This server: no C core (slower) · typing waits for the server · 3 of")
    # a compiler but no build: the build command, not the compiler's install
    assert "tokenizers.bpe.native.build" in "\n".join(machine.fixes(machine.Machine(False, True, "ok", NAMES, ())))


def test_this_machine_as_set_up_prints_it():
    out = subprocess.run([sys.executable, "-m", "service.machine"], cwd=ROOT, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == "== Token Lens on this machine" and len(lines) <= 6
    here = machine.look()
    assert here.browser == "ok"  # the module is kept in the repository: no toolchain needed
    assert f"{len(here.ready)} of {len(NAMES)}" in out.stdout


def test_setup_ends_with_the_block():
    setup = (ROOT / "setup.sh").read_text(encoding="utf-8").rstrip().splitlines()
    assert setup[-1] == ".venv/bin/python -m service.machine"


def test_the_sidebar_says_it_in_one_line():
    at = app_test()
    assert not at.exception
    said = [c.value for c in at.sidebar.caption if c.value.startswith("This server:")]
    assert said == [machine.one_line(machine.look())]
