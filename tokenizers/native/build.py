"""Compile the C core: `python -m tokenizers.native.build [--check]`.

setup.sh runs this after installing the packages. With no C compiler it says so and exits 0: the
library then runs on its pure-Python paths (same results, slower). `--check` exits 1 when the
library for the current sources is not built.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from . import HEADERS, HERE, SOURCES, library_path

CFLAGS = ["-O2", "-std=c99", "-fPIC", "-shared", "-Wall", "-Wextra", "-Wno-unused-parameter"]


def compiler() -> str | None:
    for cc in (os.environ.get("CC"), "cc", "gcc", "clang"):
        if cc and shutil.which(cc):
            return cc
    return None


def build(log=print) -> Path | None:
    """Build the library if it is not there yet; its path, or None when it cannot be built."""
    out = library_path()
    if out.exists():
        log(f"native core: up to date ({out})")
        return out
    cc = compiler()
    if cc is None:
        log("native core: no C compiler found (cc, gcc or clang); Token Lens will use its "
            "pure-Python paths, which give the same results more slowly.")
        return None
    from . import tables

    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=out.parent) as tmp:
        (Path(tmp) / "tl_tables.h").write_text(tables.header_text(), encoding="utf-8")
        for h in HEADERS:
            shutil.copy(HERE / h, Path(tmp) / h)
        target = Path(tmp) / out.name
        cmd = [cc, *CFLAGS, f"-I{tmp}", *(str(HERE / s) for s in SOURCES), "-o", str(target)]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            log("native core: compilation failed; Token Lens will use its pure-Python paths.\n"
                + " ".join(cmd) + "\n" + proc.stderr[-4000:])
            return None
        if proc.stderr.strip():
            log(proc.stderr.strip()[-2000:])
        os.replace(target, out)  # atomic: a concurrent loader sees the old state or the whole file
    for old in out.parent.glob("libtokenlens-*.so"):
        if old != out:
            old.unlink(missing_ok=True)
    log(f"native core: built {out}")
    return out


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if "--check" in argv:
        ok = library_path().exists()
        print(f"native core: {'built' if ok else 'not built'} ({library_path()})")
        return 0 if ok else 1
    build()
    return 0


if __name__ == "__main__":
    sys.exit(main())
