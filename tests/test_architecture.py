"""The shape docs/architecture.md describes: pages, ui/ and service/ use only public names of library objects; the
library is in subpackages by concern, each saying what lives there, with few modules at its root; its
modules and its subpackages import each other without cycles; ui/ is presentation only; and the names
other code imports from before the move keep working."""

import ast
import re
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


# The one module allowed private names, and only these: Streamlit's, not the library's. It mends a bug of
# Streamlit's runtime (a nested fragment's deltas kept while its parent's are dropped: a blank page) for the
# version requirements.txt pins; tests/test_nested_fragments.py fails when that version's clear changes.
STREAMLIT_PATCH = {"app_pages/kit/nested_fragments.py": {"._clear_queue", "._fragment_storage",
                                                      "getattr(..., '_parent_by_id')"}}


def test_pages_and_ui_use_only_public_names():
    files = sorted([*(ROOT / "app_pages").rglob("*.py"), *(ROOT / "ui").glob("*.py"), *(ROOT / "service").glob("*.py"),
                    ROOT / "app.py"])
    assert len(files) > 5
    found = [f for path in files for f in _private_attributes(path)
             if f.split(": ", 1)[1] not in STREAMLIT_PATCH.get(str(path.relative_to(ROOT)), ())]
    assert not found, "private attribute access:\n" + "\n".join(found)
    patch = ROOT / "app_pages" / "kit" / "nested_fragments.py"
    assert {f.split(": ", 1)[1] for f in _private_attributes(patch)} == STREAMLIT_PATCH[str(patch.relative_to(ROOT))]


def test_the_check_catches_private_access(tmp_path, monkeypatch):
    monkeypatch.setattr(__import__(__name__), "ROOT", tmp_path)  # paths are reported relative to ROOT
    sample = tmp_path / "sample.py"
    sample.write_text("def f(tok):\n    return tok._ranks, getattr(tok, '_native'), tok.__len__\n", encoding="utf-8")
    assert _private_attributes(sample) == ["sample.py:2: ._ranks", "sample.py:2: getattr(..., '_native')"]


# names the pages and ui/ give tokenizer objects (tok, tok_own, bpe, model, small, ...)
TOKENIZER_NAMES = re.compile(r"^(t|tok|tokenizer|model|bpe|small|loaded|own|twin|partner)(_\w+)?$|_tok$")


def _probes(path: Path) -> list[str]:
    """Duck typing on tokenizers: `hasattr(tok, ...)`, `getattr(tok, ...)` or `isinstance(tok, ...)` on a
    name that holds a tokenizer, and `isinstance(x, SomeTokenizer)` with a library class. Pages ask
    `tok.capabilities` instead."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    library = {a.asname or a.name for node in ast.walk(tree)
               if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("tokenizers") for a in node.names}
    found = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id in ("isinstance", "hasattr", "getattr") and node.args):
            continue
        first = node.args[0]
        name = first.id if isinstance(first, ast.Name) else first.attr if isinstance(first, ast.Attribute) else ""
        where = f"{path.relative_to(ROOT)}:{node.lineno}: {node.func.id}({name or '...'}, ...)"
        if TOKENIZER_NAMES.match(name):
            found.append(where)
        elif node.func.id == "isinstance" and len(node.args) > 1:
            classes = node.args[1].elts if isinstance(node.args[1], ast.Tuple) else [node.args[1]]
            if any(isinstance(c, ast.Name) and c.id in library and c.id.endswith("Tokenizer") for c in classes):
                found.append(where)
    return found


def test_pages_and_ui_ask_capabilities_instead_of_probing():
    files = sorted([*(ROOT / "app_pages").rglob("*.py"), *(ROOT / "ui").glob("*.py"), ROOT / "app.py"])
    found = [f for path in files for f in _probes(path)]
    assert not found, "probing a tokenizer (ask tok.capabilities instead):\n" + "\n".join(found)


def test_the_check_catches_probing(tmp_path, monkeypatch):
    monkeypatch.setattr(__import__(__name__), "ROOT", tmp_path)
    sample = tmp_path / "sample.py"
    sample.write_text("from tokenizers import BPETokenizer\n"
                      "def f(tok, tok_own, x, tokens, value):\n"
                      "    a = hasattr(tok_own, 'merges'), getattr(tok, 'unk_id', None), isinstance(x, BPETokenizer)\n"
                      "    return a, isinstance(value, str), hasattr(tokens, 'byte_starts')\n", encoding="utf-8")
    assert _probes(sample) == ["sample.py:3: hasattr(tok_own, ...)", "sample.py:3: getattr(tok, ...)",
                               "sample.py:3: isinstance(x, ...)"]


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


SUBPACKAGES = ["core", "bpe", "vocabularies", "sentencepiece", "pipeline", "hf", "classic", "analysis", "chat"]


def package_of(module: str) -> str:
    """tokenizers.bpe.native.api -> tokenizers.bpe; a module at the root stays itself."""
    parts = module.split(".")
    return ".".join(parts[:2]) if len(parts) > 1 and parts[1] in SUBPACKAGES else module


def package_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for mod, deps in import_graph().items():
        here = package_of(mod)
        graph.setdefault(here, set()).update(package_of(d) for d in deps if package_of(d) != here)
    return graph


# The one import that closes a circle, each named with its reason, and allowed only inside a function:
# bpe/files.py is the model's file formats, which BPETokenizer.save/load use; its `load` and `loads`
# (the old bpe_io's, kept for code outside the repository) build a BPETokenizer, so they import the
# class when called.
DEFERRED_EDGES = {("tokenizers.bpe.files", "tokenizers.bpe.model"): "files.load/loads build the class"}


def module_level_imports(module: str) -> set[str]:
    path = ROOT / Path(*module.split(".")).with_suffix(".py")
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {n.module for n in tree.body if isinstance(n, ast.ImportFrom) and n.module} | \
        {a.name for n in tree.body if isinstance(n, ast.Import) for a in n.names}


def test_no_import_cycles_in_the_library():
    graph = import_graph()
    assert {"tokenizers.bpe.model", "tokenizers.core.tokenizer"} <= graph["tokenizers.vocabularies.tiktoken_bpe"]
    for a, b in DEFERRED_EDGES:
        assert b in graph[a] and b not in module_level_imports(a), (a, b)  # still there, and only deferred
        graph[a] = graph[a] - {b}
    assert not cycles(graph), cycles(graph)


def test_no_import_cycles_between_subpackages():
    graph = package_graph()
    assert "tokenizers.core" in graph["tokenizers.bpe"] and "tokenizers.bpe" in graph["tokenizers.hf"]
    assert graph["tokenizers.core"] == set(), "core imports nothing else of the library"
    assert not cycles(graph), cycles(graph)


def test_the_library_is_a_map():
    pkg = ROOT / "tokenizers"
    root_modules = sorted(p.name for p in pkg.glob("*.py"))
    assert len(root_modules) <= 8, root_modules
    for name in SUBPACKAGES:
        init = pkg / name / "__init__.py"
        doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8")))
        assert doc and len(doc) > 80, f"tokenizers/{name}/__init__.py must say what lives there"
    assert sorted(p.name for p in pkg.iterdir() if (p / "__init__.py").exists()) == sorted(SUBPACKAGES)


def _imports(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module.split(".")[0])
    return names


def test_the_library_and_ui_never_import_streamlit_or_the_app():
    for path in [*(ROOT / "tokenizers").rglob("*.py"), *(ROOT / "ui").glob("*.py")]:
        found = _imports(path) & {"streamlit", "app_pages", "service", "app"}
        assert not found, f"{path.relative_to(ROOT)} imports {found}"


OLD_NAMES = r"""
import importlib, json, warnings
warnings.simplefilter("always")
out = {}
for old in ("tokenizers.bpe_io", "tokenizers.bpe.io", "tokenizers.sentencepiece_train", "tokenizers.algorithms",
            "tokenizers.vocab_audit", "tokenizers.languages"):
    with warnings.catch_warnings(record=True) as seen:
        module = importlib.import_module(old)
    out[old] = [module.__name__, [(w.category.__name__, str(w.message), w.filename) for w in seen]]
with warnings.catch_warnings(record=True) as seen:
    from tokenizers import bpe_io  # the attribute form, once the module is imported: no second warning
out["again"] = len(seen)
print(json.dumps(out))
"""


def test_names_that_stay():
    """Names other code imports, from before the library had subpackages: each is the module that now
    holds it, and importing it warns once, naming the new module, at the importing line."""
    import importlib
    import json
    import subprocess
    import sys

    from tokenizers import BPETokenizer, available_tokenizers, get_tokenizer, load_user_file
    from tokenizers.bpe import BPETokenizer as bpe_class
    from tokenizers.bpe import files

    assert bpe_class is BPETokenizer and "gpt2" in available_tokenizers()
    assert get_tokenizer("gpt2").encode("hello world") == [31373, 995]
    assert callable(files.save) and callable(files.load) and callable(files.loads)
    assert not (ROOT / "tokenizers" / "bpe" / "io.py").exists()  # no re-export module: the alias is files itself
    user_files = importlib.import_module("tokenizers.user_files")
    assert load_user_file is user_files.load_user_file

    done = subprocess.run([sys.executable, "-c", OLD_NAMES], cwd=ROOT, capture_output=True, text=True, check=True)
    got = json.loads(done.stdout)
    from tokenizers import ALIASES

    assert got.pop("again") == 0
    assert set(got) == set(ALIASES)
    for old, (name, warned) in got.items():
        assert name == ALIASES[old]
        assert [(c, f) for c, _, f in warned] == [("DeprecationWarning", "<string>")], (old, warned)
        assert ALIASES[old] in warned[0][1]
    sp = importlib.import_module("tokenizers.sentencepiece.train")
    assert callable(sp.train) and sp.LLAMA2_OPTIONS and sp.PRESETS and sp.OPTIONS


def test_nothing_here_imports_an_old_name():
    """The app, tests, benchmarks and the library itself use the new module names; the old ones are
    for code outside the repository (tokenizers.ALIASES)."""
    from tokenizers import ALIASES

    found = []
    for path in sorted(ROOT.rglob("*.py")):
        rel = path.relative_to(ROOT)
        if rel.parts[0] in (".venv", "node_modules", "static") or rel == Path("tokenizers/__init__.py"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            for name in names:
                if name in ALIASES:
                    found.append(f"{rel}:{node.lineno} {name}")
            if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "import_module" and node.args \
                    and isinstance(node.args[0], ast.Constant) and node.args[0].value in ALIASES:
                found.append(f"{rel}:{node.lineno} {node.args[0].value}")
    assert not found, found


def test_the_cycle_check_finds_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == [["a", "b", "c", "a"]]


# Names two modules define on purpose, each with its reason.
SAME_NAME_ON_PURPOSE = {"Sequence": "Hugging Face's own names: normalizers.Sequence and pre_tokenizers.Sequence, "
                                    "the `type` tokenizer.json gives each"}


def test_one_class_per_name_in_the_house():
    """A class name means one thing across the library, service/, ui/ and the pages (two `Limits`, two
    `Vocabulary` and two `ModelFormatError` were three puzzles for a reader)."""
    where: dict[str, list[str]] = {}
    for top in ("tokenizers", "service", "ui", "app_pages"):
        for path in sorted((ROOT / top).rglob("*.py")):
            for node in ast.parse(path.read_text(encoding="utf-8")).body:
                if isinstance(node, ast.ClassDef):
                    where.setdefault(node.name, []).append(str(path.relative_to(ROOT)))
    twice = {name: files for name, files in where.items() if len(files) > 1}
    assert set(twice) == set(SAME_NAME_ON_PURPOSE), twice
    assert len(where) > 100


def test_library_modules_import_no_private_name_of_another():
    """A name with a leading underscore is its module's own: another module that needs it asks for a
    public one (tokenizer.json's reader once imported four of pipeline/components.py's)."""
    found = []
    for path in sorted((ROOT / "tokenizers").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("tokenizers"):
                found += [f"{path.relative_to(ROOT)}:{node.lineno}: {node.module}.{a.name}" for a in node.names
                          if a.name.startswith("_") and not a.name.startswith("__")]
    assert not found, "\n".join(found)


def test_each_pages_key_prefix_and_bounds_are_written_once():
    """A page's widget-key prefix and the bounds its form and link share live in app_pages/kit/settings.py:
    no page or link retypes them (`k = "lab_"` beside `K = "lab_"`, `Int(256, 8192), 276` beside MAX_VOCAB)."""
    from app_pages.kit import settings
    from tokenizers.sentencepiece.train import INT_LOWEST

    prefixes = set(settings.KEYS.values())
    found = []
    for path in sorted((ROOT / "app_pages").rglob("*.py")):
        if path.name == "settings.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and node.value in prefixes:
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {node.value!r}")
            if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "Int" and node.args \
                    and all(isinstance(a, ast.Constant) for a in node.args):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}: Int{tuple(a.value for a in node.args)}")
    assert not found, "\n".join(found)
    assert settings.SENTENCEPIECE_VOCAB.lo == INT_LOWEST["vocab_size"]
    assert len(prefixes) == len(settings.KEYS)  # one prefix per page


CACHE_DECORATORS = {"cache_resource": "st.cache_resource", "cache_data": "st.cache_data", "lru_cache": "functools.lru_cache",
                    "cache": "functools.cache"}


def test_every_cache_is_the_bounded_store_or_named_with_its_reason():
    """docs/architecture.md's table of caches is the code's: each decorated function is a row, each row
    a decorated function."""
    found = set()
    for path in sorted([*(ROOT / "tokenizers").rglob("*.py"), *(ROOT / "service").glob("*.py"),
                        *(ROOT / "ui").glob("*.py"), *(ROOT / "app_pages").rglob("*.py"), ROOT / "app.py"]):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for d in node.decorator_list:
                    target = d.func if isinstance(d, ast.Call) else d
                    name = getattr(target, "attr", getattr(target, "id", ""))
                    if name in CACHE_DECORATORS:
                        found.add((CACHE_DECORATORS[name], f"{path.relative_to(ROOT)}: {node.name}"))
    doc = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8").split("## Where results are kept", 1)[1]
    listed = set(re.findall(r"^\| `([\w.]+)` \| `([^`]+)` \|", doc, re.M))
    assert found == listed, {"in the code, not the table": found - listed, "in the table, not the code": listed - found}
    assert len(found) > 10


def house_graph() -> dict[str, set[str]]:
    """Module -> the modules of the house it imports (anywhere in the file), for app.py, the pages and
    their kit, service/, ui/ and benchmarks/ (whose scripts import each other by bare name, from their
    folder), with the library as one node (its own graph is checked above)."""
    modules: dict[str, Path] = {"app": ROOT / "app.py"}
    for top in ("app_pages", "service", "ui", "benchmarks"):
        for path in (ROOT / top).rglob("*.py"):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    bench = {p.stem for p in (ROOT / "benchmarks").glob("*.py")}

    def resolve(name: str, here: str) -> str | None:
        if name == "tokenizers" or name.startswith("tokenizers."):
            return "tokenizers"
        if here.startswith("benchmarks.") and name.split(".")[0] in bench:
            name = f"benchmarks.{name}"
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name or None

    graph = {}
    for mod, path in modules.items():
        deps = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [f"{node.module}.{a.name}" for a in node.names] if isinstance(node, ast.ImportFrom) and node.module \
                and not node.level else []
            deps.update(d for d in (resolve(n, mod) for n in names) if d and d != mod)
        graph[mod] = deps
    return graph


def test_no_import_circle_anywhere_in_the_house():
    graph = house_graph()
    assert {"app_pages.kit.settings", "tokenizers"} <= graph["app_pages.kit.links"]
    assert "benchmarks.common" in graph["benchmarks.app_speed"]
    assert not cycles(graph), cycles(graph)
