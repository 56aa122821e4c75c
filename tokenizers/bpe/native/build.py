"""Compile the C core: `python -m tokenizers.bpe.native.build [--check | --sanitize | --wasm [--check]]`.

setup.sh runs this after installing the packages: the shared library for ctypes, with the machine's C
compiler. With no C compiler it says so and exits 0: the library then runs on its pure-Python paths
(same results, slower). `--check` exits 1 when the library for the current sources is not built.
`--sanitize` builds an AddressSanitizer + UBSan copy for the tests and prints the two environment
variables that load it.

The same C compiled to WebAssembly for the browser is kept in the repository (tokenlens.wasm and its
record, lib.WASM_MODULE), so that no machine needs clang's wasm32 toolchain (Debian: clang, lld,
wasi-libc, libclang-rt-14-dev-wasm32) to get it. `--wasm` builds it again after a change to the C (and
set-up does when that toolchain is here); `--wasm --check` builds it from source into a temporary
folder and exits 1 unless the bytes are those in the repository (CI runs this with the pinned toolchain).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from .lib import (HEADERS, HERE, SOURCES, WASM_EXPORTS, WASM_RECORD, WASM_SOURCES, WASM_TOOLCHAIN, digest,
                  library_path, wasm_digest, wasm_path, wasm_record, wasm_status)

CFLAGS = ["-O2", "-std=c99", "-fPIC", "-shared", "-Wall", "-Wextra", "-Wno-unused-parameter",
          "-Werror=missing-prototypes"]
# a build for the tests under AddressSanitizer and UndefinedBehaviorSanitizer (`--sanitize`)
SANITIZE = ["-O1", "-g", "-fno-omit-frame-pointer", "-fsanitize=address,undefined", "-fno-sanitize-recover=undefined"]


def compiler() -> str | None:
    for cc in (os.environ.get("CC"), "cc", "gcc", "clang"):
        if cc and shutil.which(cc):
            return cc
    return None


def build(log=print, *, sanitize: bool = False) -> Path | None:
    """Build the library if it is not there yet; its path, or None when it cannot be built. With
    `sanitize`, an ASan+UBSan build next to it (libtokenlens-<digest>-asan.so), loaded by setting
    TOKEN_LENS_NATIVE_LIB to its path and LD_PRELOAD to the compiler's libasan."""
    out = library_path()
    if sanitize:
        out = out.with_name(out.stem + "-asan.so")
    if out.exists():
        log(f"native core: up to date ({out})")
        return out
    cc = compiler()
    if cc is None:
        log("native core: no C compiler found (cc, gcc or clang); Token Lens will use its "
            "pure-Python paths, which give the same results more slowly.")
        return None
    flags = [f for f in CFLAGS if f != "-O2"] + SANITIZE if sanitize else CFLAGS
    proc = _compile(out, lambda inc, target: [cc, *flags, f"-I{inc}", *(str(HERE / s) for s in SOURCES),
                                              "-o", str(target)])
    if proc.returncode != 0:
        log("native core: compilation failed; Token Lens will use its pure-Python paths.\n"
            + " ".join(proc.args) + "\n" + proc.stderr[-4000:])
        return None
    if proc.stderr.strip():
        log(proc.stderr.strip()[-2000:])
    for old in out.parent.glob("libtokenlens-*.so"):
        if digest() not in old.name:
            old.unlink(missing_ok=True)
    log(f"native core: built {out}")
    return out


def _compile(out: Path, command) -> subprocess.CompletedProcess:
    """Compile into `out`: the generated tables and the headers in a temporary folder beside it, the
    command `command(include_dir, target)` run there, and `out` replaced only when it succeeded (atomic:
    a concurrent loader sees the old state or the whole file). The finished process, its args the command."""
    from . import tables

    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=out.parent) as tmp:
        (Path(tmp) / "tl_tables.h").write_text(tables.header_text(), encoding="utf-8")
        for h in HEADERS:
            shutil.copy(HERE / h, Path(tmp) / h)
        target = Path(tmp) / out.name
        proc = subprocess.run(command(tmp, target), capture_output=True, text=True)
        if proc.returncode == 0:
            os.replace(target, out)
    return proc


# the same C for the browser: wasm32-wasi with wasi-libc (malloc, memcpy), no WASI imports used; a
# reactor module (no main) whose exports are WASM_EXPORTS and its memory
WASM_FLAGS = ["--target=wasm32-wasi", "-O2", "-std=c99", "-Wall", "-Wextra", "-Wno-unused-parameter",
              "-Werror=missing-prototypes", "-mexec-model=reactor", "-Wl,--strip-all"]


def wasm_sysroot() -> str | None:
    """Where wasi-libc is: Debian's wasi-libc puts it under /usr (lib/wasm32-wasi, include/wasm32-wasi);
    WASI_SYSROOT names another (wasi-sdk's share/wasi-sysroot)."""
    for root in (os.environ.get("WASI_SYSROOT"), "/usr", "/usr/share/wasi-sysroot", "/opt/wasi-sdk/share/wasi-sysroot"):
        if root and (Path(root) / "lib" / "wasm32-wasi" / "libc.a").exists():
            return root
    return None


def _runs(tool: str | None) -> str | None:
    """`tool` when it is there and answers --version (a stand-in that fails, as CI puts first on PATH to
    play a machine without the toolchain, counts as missing)."""
    if not tool:
        return None
    try:
        ok = subprocess.run([tool, "--version"], capture_output=True, timeout=30).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        ok = False
    return tool if ok else None


def wasm_toolchain() -> tuple[str | None, str | None, list[str]]:
    """(clang, wasi sysroot, the names of what is missing: [] when the module can be built here)."""
    clang = _runs(os.environ.get("WASM_CC") or shutil.which("clang"))
    sysroot = wasm_sysroot()
    missing = [name for name, ok in (("clang", clang), ("wasm-ld (lld)", _runs(shutil.which("wasm-ld"))),
                                     ("wasi-libc", sysroot)) if not ok]
    return clang, sysroot, missing


def _clang_version(clang: str) -> str:
    proc = subprocess.run([clang, "--version"], capture_output=True, text=True)
    return (proc.stdout.splitlines() or ["unknown"])[0].strip()


def build_wasm(log=print, *, out: Path | None = None) -> Path | None:
    """Build the WebAssembly module from the C in this folder into `out`, or, by default, into the
    repository's module (lib.WASM_MODULE) with its record, when that one is not built from these sources
    yet. Its path, or None, said in one line, when clang, wasm-ld or wasi-libc is missing or the build
    fails (the module already in the repository is left as it is)."""
    keep = out is None
    out = out or wasm_path()
    if keep and wasm_status() == "ok":
        log(f"native core (wasm): up to date ({out}, built from these sources)")
        return out
    clang, sysroot, missing = wasm_toolchain()
    if missing:
        log(f"native core (wasm): not built, no {', '.join(missing)} ({WASM_TOOLCHAIN}); "
            + ("the module kept in the repository is older than its C sources, so the browser path is off"
               if keep and wasm_status() == "stale" else "nothing else changes"))
        return None
    exports = [f"-Wl,--export={name}" for name in WASM_EXPORTS]
    proc = _compile(out, lambda inc, target: [clang, *WASM_FLAGS, f"--sysroot={sysroot}", f"-I{inc}", *exports,
                                              *(str(HERE / s) for s in (*SOURCES, *WASM_SOURCES)),
                                              "-o", str(target)])
    if proc.returncode != 0:
        first = (proc.stderr.strip().splitlines() or ["no message"])[-1]
        log(f"native core (wasm): the build failed ({first[:300]}); the module in the repository is left as it is")
        return None
    if keep:
        data = out.read_bytes()
        record = {"sources": wasm_digest(), "sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data),
                  "toolchain": _clang_version(clang), "flags": WASM_FLAGS}
        WASM_RECORD.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    log(f"native core (wasm): built {out} ({out.stat().st_size:,} bytes)")
    return out


def check_wasm(log=print) -> bool:
    """Whether the module in the repository is the one its C builds: its record names these sources, and
    a build from them here (which needs the toolchain) gives the same bytes. What differs is said."""
    status = wasm_status()
    if status != "ok":
        log(f"native core (wasm): the module in the repository is {status}: run "
            "python -m tokenizers.bpe.native.build --wasm and commit tokenlens.wasm and its record")
        return False
    with tempfile.TemporaryDirectory() as tmp:
        built = build_wasm(log=log, out=Path(tmp) / "tokenlens.wasm")
        if built is None:
            return False
        same = built.read_bytes() == wasm_path().read_bytes()
    record = wasm_record()
    clang, _, _ = wasm_toolchain()
    if same:
        log(f"native core (wasm): rebuilt from source with {_clang_version(clang)}: the same "
            f"{record['bytes']:,} bytes as the module in the repository (sha256 {record['sha256'][:16]}…)")
    else:
        log(f"native core (wasm): rebuilt from source with {_clang_version(clang)}, the bytes differ from the "
            f"module in the repository (built with {record.get('toolchain')}): build it again with the pinned "
            "toolchain and commit it")
    return same


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if "--wasm" in argv:
        if "--check" in argv:
            return 0 if check_wasm() else 1
        return 0 if build_wasm() is not None or "--strict" not in argv else 1
    if "--check" in argv:
        ok = library_path().exists()
        print(f"native core: {'built' if ok else 'not built'} ({library_path()})")
        return 0 if ok else 1
    if "--sanitize" in argv:
        out = build(sanitize=True)
        if out is None:
            return 1
        cc = compiler() or "cc"
        asan = subprocess.run([cc, "-print-file-name=libasan.so"], capture_output=True, text=True).stdout.strip()
        print(f"TOKEN_LENS_NATIVE_LIB={out}\nLD_PRELOAD={asan}")
        return 0
    build()
    if wasm_status() == "stale":  # a developer changed the C: build the module again if this machine can
        build_wasm()
    return 0


if __name__ == "__main__":
    sys.exit(main())
