"""What this machine got: the C core, the browser build, the tokenizers' files, and the one command that
adds what is missing. Set-up prints it as its last block (`python -m service.machine`), and the app's
sidebar says it in one line (`one_line`), so that a newcomer, or a teacher on a borrowed server, sees what a
missing toolchain or an offline set-up cost them without reading fifty lines of log.

    python -m service.machine            the block (exit 0)
"""

from __future__ import annotations

import sys
from dataclasses import dataclass


@dataclass(frozen=True)
class Machine:
    c_core: bool                # the C core is built for these sources and loads (else the pure-Python paths)
    compiler: bool              # a C compiler is on PATH (what building it needs)
    browser: str                # the WebAssembly module: "ok", "stale" (older than its C), "missing"
    ready: tuple[str, ...]      # the registry's tokenizers whose files are in place
    missing: tuple[str, ...]    # and those whose files are not

    @property
    def total(self) -> int:
        return len(self.ready) + len(self.missing)


def look() -> Machine:
    """This machine, now (no download, no build: the C core is loaded if it is built)."""
    from tokenizers import REGISTRY
    from tokenizers.bpe import native
    from tokenizers.bpe.native import build, lib
    from tokenizers.vocabularies import provision

    c_core = native.library_path().exists() and native.available()
    ready, missing = [], []
    for name in REGISTRY:
        (missing if provision.missing(name) else ready).append(name)
    return Machine(c_core, build.compiler() is not None, lib.wasm_status(), tuple(ready), tuple(missing))


def fixes(m: Machine) -> list[str]:
    """The commands that would add what is missing, one per gap."""
    from tokenizers.bpe.native import lib
    from tokenizers.vocabularies import provision

    out = []
    if not m.c_core:
        out.append("a C compiler (Debian: apt-get install gcc), then bash setup.sh" if not m.compiler
                   else "python -m tokenizers.bpe.native.build (and read its message)")
    if m.browser != "ok":
        out.append(f"{lib.WASM_TOOLCHAIN}, then python -m tokenizers.bpe.native.build --wasm "
                   "(the module in the repository is older than its C)")
    if m.missing:
        out.append(provision.setup_command() + " (with access to PyPI)")
    return out


def block(m: Machine) -> list[str]:
    """Set-up's last lines."""
    c = "yes" if m.c_core else "no: the pure-Python paths run (same ids, slower)"
    web = {"ok": "yes (tokenlens.wasm, built from this repository's C): typing tokenizes in the browser",
           "stale": "no: tokenlens.wasm is older than its C sources, so every column waits for the server",
           "missing": "no: tokenlens.wasm is missing, so every column waits for the server"}[m.browser]
    vocab = f"{len(m.ready)} of {m.total}" + (f" (missing: {', '.join(m.missing)})" if m.missing else "")
    lines = ["== Token Lens on this machine", f"C core:        {c}", f"browser build: {web}",
             f"tokenizers:    {vocab}"]
    todo = fixes(m)
    lines += [f"to add what is missing: {todo[0]}"] + [f"                        {t}" for t in todo[1:]] if todo \
        else ["nothing is missing"]
    return lines


def one_line(m: Machine) -> str:
    """The sidebar's line: the same facts, short."""
    parts = ["C core" if m.c_core else "no C core (slower)",
             "typing tokenized in the browser" if m.browser == "ok" else "typing waits for the server",
             f"{len(m.ready)} of {m.total} tokenizers"]
    return "This server: " + " · ".join(parts) + "."


def main(argv: list[str] | None = None) -> int:
    print("\n".join(block(look())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
