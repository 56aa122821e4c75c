"""The repository's promises: two README commands, CI runs the test one verbatim, the README fits in
250 lines, its links and the docs' stay inside the repository, and its ten lines of library run."""

import re
from pathlib import Path

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


def test_ci_runs_it_without_the_wasm_toolchain():
    """As a newcomer's machine and a hosting platform have it: stand-ins for clang and wasm-ld that fail come
    first on PATH when the README's test command runs, and the toolchain is used only in its own step after."""
    lines = (ROOT / ".ci" / "run").read_text().splitlines()
    at = lines.index(readme_commands()[1])
    hide = next(k for k, line in enumerate(lines) if line.startswith('export PATH="$nowasm:$PATH"'))
    restore = lines.index('export PATH="$real_path"')
    assert hide < at < restore
    assert any("for t in clang wasm-ld" in line for line in lines[:hide]) and "exit 127" in "\n".join(lines[:hide])
    assert any("build --wasm --check" in line for line in lines[restore:])
    assert any("TOKEN_LENS_REQUIRE_WASM=1" in line and "pytest" in line for line in lines[restore:])


def test_no_vocabulary_or_model_file_is_committed():
    import subprocess

    files = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True).stdout.split()
    assert not [f for f in files if f.endswith((".tiktoken", ".bpe", ".model", ".whl")) or "encoder.json" in f]


# --- the README fits, and its links and the docs' links lead somewhere inside the repository ---

README_MAX_LINES = 250


def markdown_files():
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def unfenced(text: str) -> str:
    return re.sub(r"^(```|~~~).*?^\1[^\n]*$", "", text, flags=re.S | re.M)


def prose(text: str) -> str:
    """The text outside fenced code blocks and inline code, where a link is a link."""
    text = unfenced(text)
    return re.sub(r"(`+)(?!`).*?(?<!`)\1(?!`)", "", text, flags=re.S)


def links(text: str) -> list[str]:
    """Targets of inline links and images, `[text](target)` and `![alt](target "title")`."""
    return [m.group(1) for m in re.finditer(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)", prose(text))]


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, Markdown marks and punctuation dropped, spaces to '-'."""
    heading = re.sub(r"[`*_]|\[([^\]]*)\]\([^)]*\)", r"\1", heading.strip()).lower()
    return re.sub(r"[^\w\- ]", "", heading).replace(" ", "-")


def anchors(path) -> set[str]:
    seen: dict[str, int] = {}
    out = set()
    for m in re.finditer(r"^#{1,6}\s+(.+?)\s*#*\s*$", unfenced(path.read_text()), re.M):
        s = slug(m.group(1))
        n = seen.get(s, 0)
        seen[s] = n + 1
        out.add(s if n == 0 else f"{s}-{n}")
    return out


def test_slug_and_links_parse_as_github_does():
    assert slug("The app's speed budget") == "the-apps-speed-budget"
    assert slug("More visitors: several processes behind nginx") == "more-visitors-several-processes-behind-nginx"
    assert slug("Vendor tokenizers: load, memory, speed") == "vendor-tokenizers-load-memory-speed"
    assert slug("`tokenizers.report` for corpora") == "tokenizersreport-for-corpora"
    assert "before-you-start-which-tokenizers-you-import" in anchors(ROOT / "docs" / "notebook.md")  # `code` in a heading
    text = "see [a](docs/a.md#x) and ![b](b.png \"t\"), not `[c](c.md)` nor\n```\n[d](d.md)\n```\n"
    assert links(text) == ["docs/a.md#x", "b.png"]


def test_readme_fits():
    n = len((ROOT / "README.md").read_text().splitlines())
    assert n <= README_MAX_LINES, f"README.md has {n} lines; the long reference belongs in docs/"


def test_links_in_readme_and_docs_lead_to_files_and_anchors_in_the_repository():
    bad = []
    for md in markdown_files():
        for target in links(md.read_text()):
            where = f"{md.relative_to(ROOT)}: {target}"
            if re.match(r"[a-z][a-z0-9+.-]*:", target, re.I):
                if not target.startswith("https://"):
                    bad.append(f"{where} (only https:// links leave the repository)")
                continue
            path, _, anchor = target.partition("#")
            dest = (md.parent / path).resolve() if path else md
            if path.startswith("/") or not dest.is_relative_to(ROOT):
                bad.append(f"{where} (outside the repository)")
            elif not dest.exists():
                bad.append(f"{where} (no such file)")
            elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
                bad.append(f"{where} (no heading with that anchor)")
    assert not bad, "\n".join(bad)


def test_no_path_in_readme_or_docs_leads_outside_the_repository():
    """A link is not the only way to point out of the repository: `../shared/DESIGN.md` in inline code
    sent readers to a file no clone has. Any `../` path, in prose or code, must stay inside."""
    bad = []
    for md in markdown_files():
        for m in re.finditer(r"(?<![\w.])((?:\.\./)+[\w./-]*)", md.read_text()):
            if not (md.parent / m.group(1)).resolve().is_relative_to(ROOT):
                bad.append(f"{md.relative_to(ROOT)}: {m.group(1)}")
    assert not bad, "\n".join(bad)


def test_the_readmes_ten_lines_of_library_run_and_give_what_their_comments_say():
    """The README's library block, line by line: each line runs, and a comment that opens with a
    value (`# [15339, 1917]: ...`) states exactly what the line gives. The file it loads is the
    provisioned claude_legacy tokenizer.json."""
    import ast

    from tokenizers.vocabularies.provision import vendor_path

    text = (ROOT / "README.md").read_text()
    block = text.split("## The library in ten lines", 1)[1]
    code = re.search(r"```python\n(.*?)\n```", block, re.S).group(1).splitlines()
    assert len(code) <= 10
    ns: dict = {}
    for line in code:
        stmt, _, comment = line.partition("  #")
        stmt = stmt.strip().replace("path/to/tokenizer.json", str(vendor_path("claude_legacy")))
        try:
            expr = compile(stmt, "README.md", "eval")
        except SyntaxError:
            exec(stmt, ns)
            continue
        value = eval(expr, ns)
        said = re.match(r"\s*(\[.*\]|\{.*?\}|'.*?')(?:[:;]|$)", comment)
        if said:
            assert value == ast.literal_eval(said.group(1)), line
    assert len(ns["vocab_diff"]("cl100k_base", "o200k_base").only_b) == 114_965
    assert 1129 in ns["token_healing"](ns["tok"], "http:").candidates  # "://"
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


# -- paths and modules named in prose ---------------------------------------------------------------
# A comment or doc that names a file or module the repository no longer holds sends a reader nowhere
# (after the library's move to subpackages, a dozen did: tokenizers/native, bpe_fast.train_fast, ...).
# Every repository path (app_pages/..., tokenizers/..., docs/...) and every dotted module name of the
# house (tokenizers.x.y, service.x, ui.x) in the docs and in the code's comments and strings must resolve.
SOURCE_SUFFIXES = (".py", ".c", ".h", ".js", ".md", ".sh", ".toml")
NOT_OURS = {".venv", ".git", "node_modules", "static", ".cache", ".pytest_cache"}
TOP = ("app_pages", "tokenizers", "service", "ui", "tests", "benchmarks", "docs", ".ci", ".streamlit")
PATH_IN_PROSE = re.compile(r"(?<![\w./-])((?:%s)/[\w./*<>-]*[\w*>])" % "|".join(map(re.escape, TOP)))
MODULE_IN_PROSE = re.compile(r"(?<![\w./-])((?:tokenizers|service|ui|app_pages|benchmarks)\.[a-z_]\w*(?:\.[A-Za-z_]\w*)*)")


def house_files():
    for path in sorted(ROOT.rglob("*")):
        rel = path.relative_to(ROOT)
        if rel.parts[0] not in NOT_OURS and path.is_file() and (path.suffix in SOURCE_SUFFIXES or rel == Path(".ci/run")):
            yield path


def names_in(module: Path) -> set[str]:
    """What `module.NAME` can mean: its top-level definitions, assignments and imports, and every
    identifier-like string (`__all__`, the names a module `__getattr__` answers)."""
    import ast

    names = set()
    for node in ast.walk(ast.parse(module.read_text(encoding="utf-8"))):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.alias):
            names.add((node.asname or node.name).split(".")[0])
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.isidentifier():
            names.add(node.value)
    return names


def module_resolves(dotted: str, cache: dict) -> bool:
    from tokenizers import ALIASES

    if dotted in ALIASES or any(dotted.startswith(old + ".") for old in ALIASES):
        return True  # the old names, kept as aliases (docs/library.md)
    parts, here = dotted.split("."), ROOT
    for i, part in enumerate(parts):
        if (here / part).is_dir():
            here = here / part
            continue
        if (here / f"{part}.py").exists():
            if i + 1 == len(parts):
                return True
            module, name = here / f"{part}.py", parts[i + 1]
        else:  # a name the package's __init__ gives
            module, name = here / "__init__.py", part
            if i == 0 or not module.exists():
                return False
        if module not in cache:
            cache[module] = names_in(module)
        return name in cache[module] or name.startswith("__")
    return True


def test_paths_and_modules_named_in_docs_and_comments_exist():
    bad, cache = [], {}
    for path in house_files():
        rel, text = path.relative_to(ROOT), path.read_text(encoding="utf-8", errors="replace")
        if rel == Path("tests/test_repo.py"):
            continue  # this check's own examples
        for m in PATH_IN_PROSE.finditer(text):
            named = m.group(1).rstrip(".")
            if any(c in named for c in "*<>") or any(g in named for g in ("/.work", "/.venv", "/.cache")):
                continue  # a pattern, a placeholder, or a folder the tools make
            stem, dot, attr = named.rpartition(".")  # `app_pages/kit/widgets.text_sink`: a name in widgets.py
            if not (ROOT / named).exists() and not (dot and "/" not in attr and any(
                    (ROOT / f"{stem}{ext}").exists() for ext in (".py", ".js"))):
                bad.append(f"{rel}: {named} (no such path)")
        for m in MODULE_IN_PROSE.finditer(text):
            named = m.group(1).rstrip(".")
            first = named.split(".")[1]
            if first in dir(dict) or named == "tokenizers.json":
                continue  # a dict that is called `tokenizers` (`tokenizers.items()`); Hugging Face's file
            if not module_resolves(named, cache):
                bad.append(f"{rel}: {named} (no such module or name)")
    assert not bad, "\n".join(bad)


def test_the_prose_check_knows_a_moved_name_from_a_present_one():
    cache: dict = {}
    assert module_resolves("tokenizers.bpe.fast.train_fast", cache)
    assert module_resolves("tokenizers.vocabularies.from_tiktoken", cache)  # a name its __init__ gives
    assert module_resolves("tokenizers.bpe_io", cache)  # an old name, kept as an alias
    for moved in ("tokenizers.bpe_fast.train_fast", "tokenizers.patterns.chunk_counts", "tokenizers.native",
                  "ui.spans.no_such_function", "service.nothing"):
        assert not module_resolves(moved, cache), moved
    assert PATH_IN_PROSE.findall("see tokenizers/native/lib.py MODES.") == ["tokenizers/native/lib.py"]
