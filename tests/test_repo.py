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
