"""Compile the C core: `python -m tokenizers.bpe.native.build [--check | --sanitize | --wasm]`.

setup.sh runs this after installing the packages: the shared library for ctypes, then the same C as a
WebAssembly module for the browser (`--wasm` builds only that). With no C compiler it says so and
exits 0: the library then runs on its pure-Python paths (same results, slower). Without clang's
wasm32 target (Debian: clang, lld, wasi-libc, libclang-rt-14-dev-wasm32) the module is skipped with
one line, and nothing else changes: the browser path is simply not offered. `--check` exits 1 when the
library for the current sources is not built. `--sanitize` builds an AddressSanitizer + UBSan copy
for the tests and prints the two environment variables that load it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from .lib import HEADERS, HERE, SOURCES, WASM_EXPORTS, WASM_SOURCES, digest, library_path, wasm_path

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


def build_wasm(log=print) -> Path | None:
    """Build the WebAssembly module (tokenlens-<digest>.wasm beside the library) if it is not there
    yet; its path, or None, said in one line, when clang, wasm-ld or wasi-libc is missing."""
    out = wasm_path()
    if out.exists():
        log(f"native core (wasm): up to date ({out})")
        return out
    clang = os.environ.get("WASM_CC") or shutil.which("clang")
    sysroot = wasm_sysroot()
    if clang is None or sysroot is None or shutil.which("wasm-ld") is None:
        missing = [name for name, ok in (("clang", clang), ("wasm-ld (lld)", shutil.which("wasm-ld")),
                                         ("wasi-libc", sysroot)) if not ok]
        log(f"native core (wasm): skipped, no {', '.join(missing)}; the app works as before, without "
            "in-browser tokenizing.")
        return None
    exports = [f"-Wl,--export={name}" for name in WASM_EXPORTS]
    proc = _compile(out, lambda inc, target: [clang, *WASM_FLAGS, f"--sysroot={sysroot}", f"-I{inc}", *exports,
                                              *(str(HERE / s) for s in (*SOURCES, *WASM_SOURCES)),
                                              "-o", str(target)])
    if proc.returncode != 0:
        first = (proc.stderr.strip().splitlines() or ["no message"])[-1]
        log(f"native core (wasm): skipped, the build failed ({first[:300]}); the app works as before, "
            "without in-browser tokenizing.")
        return None
    for old in out.parent.glob("tokenlens-*.wasm"):
        if old != out:
            old.unlink(missing_ok=True)
    log(f"native core (wasm): built {out} ({out.stat().st_size:,} bytes)")
    return out


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
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
    if "--wasm" in argv:
        return 0 if build_wasm() is not None or "--strict" not in argv else 1
    build()
    build_wasm()
    return 0


if __name__ == "__main__":
    sys.exit(main())
