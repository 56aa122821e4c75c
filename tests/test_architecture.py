"""The shape DESIGN.md promises: pages and ui/ use only public names of library objects, and the
library's modules import each other without cycles."""

import ast
from pathlib import Path

from conftest import ROOT


def _private_attributes(path: Path) -> list[str]:
    """`obj._name` in a file (dunders such as `d.__getitem__` are public protocol, not private)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.endswith("__"):
            found.append(f"{path.relative_to(ROOT)}:{node.lineno}: .{node.attr}")
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("getattr", "hasattr"):
            if len(node.args) > 1 and isinstance(node.args[1], ast.Constant) and str(node.args[1].value).startswith("_"):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {node.func.id}(..., {node.args[1].value!r})")
    return found


def test_pages_and_ui_use_only_public_names():
    files = sorted([*(ROOT / "app_pages").glob("*.py"), *(ROOT / "ui").glob("*.py"), ROOT / "app.py"])
    assert len(files) > 5
    found = [f for path in files for f in _private_attributes(path)]
    assert not found, "private attribute access:\n" + "\n".join(found)


def test_the_check_catches_private_access(tmp_path):
    sample = ROOT / "ui" / "_sample_for_test.py"
    sample.write_text("def f(tok):\n    return tok._ranks, getattr(tok, '_native')\n", encoding="utf-8")
    try:
        assert len(_private_attributes(sample)) == 2
    finally:
        sample.unlink()


def import_graph() -> dict[str, set[str]]:
    """tokenizers module -> the tokenizers modules it imports (anywhere in the file, functions too)."""
    pkg = ROOT / "tokenizers"
    graph: dict[str, set[str]] = {}
    for path in pkg.rglob("*.py"):
        rel = path.relative_to(ROOT).with_suffix("")
        parts = list(rel.parts)
        is_pkg = parts[-1] == "__init__"
        mod = ".".join(parts[:-1] if is_pkg else parts)
        here = parts[:-1]  # the package this module is in
        deps = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = here[:len(here) - (node.level - 1)]
                    target = ".".join(base + (node.module.split(".") if node.module else []))
                else:
                    target = node.module or ""
                if not target.startswith("tokenizers"):
                    continue
                names = [a.name for a in node.names]
                # `from . import x` imports the submodule x when there is one
                subs = [f"{target}.{n}" for n in names
                        if (ROOT / Path(*f"{target}.{n}".split("."))).with_suffix(".py").exists()
                        or (ROOT / Path(*f"{target}.{n}".split(".")) / "__init__.py").exists()]
                deps.update(subs or [target])
            elif isinstance(node, ast.Import):
                deps.update(a.name for a in node.names if a.name.startswith("tokenizers"))
        deps.discard(mod)
        graph[mod] = deps
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    found, state, stack = [], {}, []

    def visit(m):
        state[m] = 1
        stack.append(m)
        for d in sorted(graph.get(m, ())):
            if state.get(d) == 1:
                found.append(stack[stack.index(d):] + [d])
            elif d in graph and not state.get(d):
                visit(d)
        stack.pop()
        state[m] = 2

    for m in sorted(graph):
        if not state.get(m):
            visit(m)
    return found


def test_no_import_cycles_in_the_library():
    graph = import_graph()
    assert "tokenizers.bpe" in graph and "tokenizers.openai" in graph["tokenizers"] | {"tokenizers.openai"}
    assert not cycles(graph), cycles(graph)


def test_the_cycle_check_finds_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == [["a", "b", "c", "a"]]
