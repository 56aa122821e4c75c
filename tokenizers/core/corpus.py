"""A built-in training corpus that needs no download: the docstrings of a fixed list of Python
standard-library modules, in a fixed order. The same Python installation always gives the same text
(and so the same trained tokenizer); another Python version may differ slightly."""

from __future__ import annotations

import importlib
import inspect
import warnings

MODULES = (
    "abc argparse base64 bisect calendar collections contextlib copy csv dataclasses datetime "
    "decimal difflib email.message enum fractions functools gzip hashlib heapq html http.client "
    "inspect io ipaddress itertools json logging math operator os pathlib pickle pprint queue random "
    "re shlex shutil socket sqlite3 statistics string struct subprocess tarfile tempfile textwrap "
    "threading time timeit typing unittest urllib.parse uuid warnings zipfile"
).split()


def stdlib_docstrings(max_chars: int = 400_000) -> str:
    """Up to `max_chars` of docstrings: each module's, then its public classes' and functions'."""
    parts: list[str] = []
    total = 0
    for name in MODULES:
        try:
            mod = importlib.import_module(name)
        except ImportError:  # a Python built without sqlite3, say
            continue
        docs = [inspect.getdoc(mod) or ""]
        with warnings.catch_warnings():  # typing.io and friends warn when touched
            warnings.simplefilter("ignore", DeprecationWarning)
            for attr in sorted(vars(mod)):
                obj = getattr(mod, attr)
                if attr.startswith("_") or getattr(obj, "__module__", None) != mod.__name__:
                    continue
                if inspect.isclass(obj) or inspect.isfunction(obj):
                    docs.append(inspect.getdoc(obj) or "")
        for d in docs:
            if d and total < max_chars:
                parts.append(d)
                total += len(d) + 2
    return "\n\n".join(parts)[:max_chars]
