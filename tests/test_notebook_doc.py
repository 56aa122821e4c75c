"""docs/notebook.md cannot rot: its ```python blocks are doctests, run here as the page says (a Python
started in the repository root), and its remedy for Hugging Face's `tokenizers` shadowing this one is
run from another folder."""

import os
import re
import subprocess
import sys

from conftest import ROOT

DOC = ROOT / "docs" / "notebook.md"


def blocks(lang: str) -> list[str]:
    return re.findall(rf"^```{lang}\n(.*?)^```$", DOC.read_text(encoding="utf-8"), flags=re.M | re.S)


def run(code: str, cwd, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *args, "-c", code], cwd=cwd, capture_output=True, text=True,
                          timeout=300, env={**os.environ, "PYTHONPATH": ""})


def test_every_python_block_is_a_doctest_and_they_pass(tmp_path):
    found = blocks("python")
    assert len(found) >= 8 and all(b.startswith(">>> ") for b in found), "```python blocks are doctests"
    lecture = "\n".join(found)
    for example in ("127 + 677 = 804", "Egg. I have an egg. egg. EGG.", "안녕하세요", "SolidGoldMagikarp",
                    "    if i % 15"):
        assert example in lecture
    (tmp_path / "notebook.txt").write_text("\n".join(found), encoding="utf-8")
    # run from the repository root, as the page says; a doctest file, so each block's output is checked
    code = ("import doctest, sys; r = doctest.testfile(sys.argv[1], module_relative=False, "
            "optionflags=doctest.NORMALIZE_WHITESPACE); sys.exit(bool(r.failed) or not r.attempted)")
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path / "notebook.txt")], cwd=ROOT,
                         capture_output=True, text=True, timeout=300, env={**os.environ, "PYTHONPATH": ""})
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-2000:]


def test_the_shadowing_remedy_works_from_another_folder(tmp_path):
    """From another folder, `import tokenizers` finds Hugging Face's (installed here as a test-only
    dependency); the page's first cell makes it find this one."""
    probe = "import tokenizers; print(hasattr(tokenizers, 'show'), tokenizers.__file__)"
    plain = run(probe, tmp_path)
    if plain.returncode == 0:  # Hugging Face's package is installed in this environment: it wins here
        assert plain.stdout.startswith("False "), plain.stdout
    (remedy,) = blocks("py")
    fixed = run(remedy.replace("/path/to/token-lens", str(ROOT)) + "\nprint(hasattr(tokenizers, 'show'))\n",
                tmp_path)
    assert fixed.returncode == 0, fixed.stderr
    path, ok = fixed.stdout.split()
    assert ok == "True" and path == str(ROOT / "tokenizers" / "__init__.py")
