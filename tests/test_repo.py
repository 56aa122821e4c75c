"""The repository's promises: two README commands, and CI runs the test one verbatim."""

import re

from conftest import ROOT


def readme_commands() -> list[str]:
    text = (ROOT / "README.md").read_text()
    quick = text.split("## Quickstart", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```(?:bash|sh)\n(.*?)\n```", quick, re.S)


def test_readme_gives_exactly_two_commands():
    cmds = readme_commands()
    assert len(cmds) == 2 and all("\n" not in c for c in cmds)
    assert "streamlit run app.py" in cmds[0] and "pytest" in cmds[1]


def test_ci_runs_the_readme_test_command_verbatim():
    lines = (ROOT / ".ci" / "run").read_text().splitlines()
    assert readme_commands()[1] in lines


def test_no_vocabulary_or_model_file_is_committed():
    import subprocess

    files = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True).stdout.split()
    assert not [f for f in files if f.endswith((".tiktoken", ".bpe", ".model", ".whl")) or "encoder.json" in f]


# -- the Pythons set-up supports --------------------------------------------------------------------
# Each pin of requirements.txt and requirements-dev.txt with the oldest and newest CPython (of 3.10 to
# 3.14) for which PyPI has an installable file of it (a wheel for Linux x86-64 or a pure-Python one, whose
# Requires-Python admits that version); None where every one of them has one. Checked against the
# registry on 2026-11-24 with, for each pin and each version V:
#   pip download --no-deps --only-binary=:all: --python-version V --implementation cp \
#       --platform manylinux_2_28_x86_64 --platform manylinux2014_x86_64 --platform linux_x86_64 PIN -d /tmp/x
# A new pin (or a new version of one) fails test_every_pin_has_its_pythons until it is checked and
# added here; the supported range is then what all of them allow.
PIN_PYTHONS: dict[str, tuple[str | None, str | None]] = {
    "streamlit==1.67.0": ("3.11", None),     # Requires-Python >=3.11
    "tiktoken==0.14.0": (None, None),
    "sentencepiece==0.2.3": (None, None),
    "protobuf==7.36.2": (None, None),
    "regex==2024.11.6": (None, "3.13"),      # wheels cp310 to cp313; 3.14 would build the sdist
    "pandas==3.1.1": ("3.11", None),         # wheels cp311 to cp314
    "plotly==7.1.0": (None, None),
    "ahocorasick-rs==1.0.3": (None, None),   # wheels cp310 to cp314
    "pytest==9.2.0": (None, None),
    "hypothesis==6.170.15": ("3.11", None),  # Requires-Python >=3.11
    "playwright==1.65.2": (None, None),
    "dask[distributed]==2026.8.0": (None, None),
    "tokenizers==0.23.3": (None, None),
    "openai-harmony==0.0.8": (None, None),
    "pydantic==2.14.3": (None, None),
    "pydantic-extra-types[pycountry]==2.11.1": (None, None),
    "tokenization-scorer==1.1.8": ("3.11", None),  # Requires-Python >=3.11
}


def _pins() -> list[str]:
    pins = []
    for name in ("requirements.txt", "requirements-dev.txt"):
        for line in (ROOT / name).read_text().splitlines():
            line = line.split("#", 1)[0].strip()
            if line and not line.startswith("-r"):
                pins.append(line)
    return pins


def _v(s: str) -> tuple[int, int]:
    major, minor = s.split(".")
    return int(major), int(minor)


def supported_pythons() -> tuple[str, str]:
    """The oldest and newest Python every pin installs on, from PIN_PYTHONS."""
    low = max((_v(lo) for lo, _ in PIN_PYTHONS.values() if lo), default=(3, 10))
    high = min((_v(hi) for _, hi in PIN_PYTHONS.values() if hi), default=(3, 14))
    return "%d.%d" % low, "%d.%d" % high


def test_every_pin_has_its_pythons():
    assert sorted(_pins()) == sorted(PIN_PYTHONS)


def test_the_pins_need_python_3_11_to_3_13():
    assert supported_pythons() == ("3.11", "3.13")


def test_readme_setup_and_pyproject_name_the_pins_pythons():
    low, high = supported_pythons()
    setup = (ROOT / "setup.sh").read_text()
    assert re.findall(r"^PY_MIN=(\S+)$", setup, re.M) == [low]
    assert re.findall(r"^PY_MAX=(\S+)$", setup, re.M) == [high]
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["requires-python"] == f">={low},<{_v(high)[0]}.{_v(high)[1] + 1}"
    quick = (ROOT / "README.md").read_text().split("## Quickstart", 1)[1].split("\n## ", 1)[0]
    said = re.findall(r"Python (3\.\d+)(?: to |–|-)(3\.\d+)", quick)
    assert said == [(low, high)], said
    assert not re.search(r"Python 3\.\d+\+", (ROOT / "README.md").read_text())  # no open-ended "3.10+"


def test_readme_quickstart_says_which_address_to_open():
    quick = (ROOT / "README.md").read_text().split("## Quickstart", 1)[1].split("\n## ", 1)[0]
    assert "http://localhost:8501" in quick
