"""axe-core, Deque's accessibility rules engine, for the browser tests (tests/e2e/test_a11y_browser.py).

    python -m tests.e2e.axe      # fetch it if it is missing, verify it (setup.sh --test runs this)

It comes from npm, fetched once with npm's own client (`npm pack axe-core@VERSION`, which downloads the
published tarball and runs nothing), checked against the sha256 pinned here and npm's own sha512
integrity string, and kept as that tarball in the project cache (`<cache>/npm/`), so later runs fetch
nothing. The tests read `axe.min.js` out of the verified tarball and add it to the page under test: no
CDN, nothing else downloaded, nothing committed.
"""

from __future__ import annotations

import base64
import hashlib
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

from tokenizers.core.paths import cache_root

PACKAGE = "axe-core"
VERSION = "4.14.1"
SHA256 = "e6b0ce02b84d892e2e33e403485e7f3d6c29e2be6df65daf44d89ba564139745"
# `npm view axe-core@4.14.1 dist.integrity`
INTEGRITY = "sha512-FHfa+lmNjQZfJz1q8wKqIDwC6DExcHt/pkjNQb09a3NPjCKg2rhu5qb2S4r76ASyFNNtuFooJpZe37OgudVGtQ=="
SCRIPT = "package/axe.min.js"


class NpmPackageMissing(RuntimeError):
    """A pinned npm package is not provisioned and cannot be (no npm, or no registry)."""


class AxeMissing(NpmPackageMissing):
    """axe-core is not provisioned and cannot be (no npm, or no registry)."""


def tarball() -> Path:
    return cache_root() / "npm" / f"{PACKAGE}-{VERSION}.tgz"


def check_pinned(data: bytes, where: Path, package: str, version: str, sha256: str, integrity: str,
                 rerun: str, error=NpmPackageMissing) -> None:
    """Raise `error` unless `data` is the tarball pinned by its sha256 and npm's sha512 integrity."""
    got_sha = hashlib.sha256(data).hexdigest()
    got_int = "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode()
    if got_sha != sha256 or got_int != integrity:
        raise error(f"{where} is not {package} {version} as pinned (sha256 {got_sha}, want {sha256}; "
                    f"integrity {got_int}, want {integrity}); delete it and run {rerun}")


def _verify(data: bytes, where: Path) -> None:
    check_pinned(data, where, PACKAGE, VERSION, SHA256, INTEGRITY, "python -m tests.e2e.axe", AxeMissing)


def fetch_pinned(package: str, version: str, verify, error=NpmPackageMissing) -> Path:
    """`<cache>/npm/<package>-<version>.tgz`, fetched with `npm pack` if it is not in the cache yet;
    `verify(data, where)` raises unless the bytes are the pinned ones (check_pinned), before the
    tarball enters the cache and each time it is read."""
    path = cache_root() / "npm" / f"{package}-{version}.tgz"
    if not path.exists():
        npm = shutil.which("npm")
        if npm is None:
            raise error(f"{package} is not provisioned ({path}) and there is no npm to fetch it "
                        "(apt-get install npm, then bash setup.sh --test)")
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=path.parent) as tmp:
            out = subprocess.run([npm, "pack", f"{package}@{version}", "--pack-destination", tmp, "--silent",
                                  "--ignore-scripts"],
                                 cwd=tmp, capture_output=True, text=True, timeout=300)
            got = Path(tmp) / f"{package}-{version}.tgz"
            if out.returncode != 0 or not got.exists():
                raise error(f"npm pack {package}@{version} failed: {out.stderr.strip()[-500:]}")
            verify(got.read_bytes(), got)
            got.replace(path)  # whole or not at all: a cut download never sits in the cache
    verify(path.read_bytes(), path)
    return path


def provision() -> Path:
    """The verified tarball, fetched with `npm pack` if it is not in the cache yet."""
    return fetch_pinned(PACKAGE, VERSION, lambda data, where: _verify(data, where), AxeMissing)


def script() -> str:
    """axe.min.js, read from the verified tarball."""
    with tarfile.open(provision()) as tar:
        return tar.extractfile(SCRIPT).read().decode("utf-8")


def main() -> int:
    try:
        path = provision()
    except AxeMissing as e:  # set-up goes on: the browser tests say so loudly (or fail under E2E_REQUIRED=1)
        print(f"setup: {e}", file=sys.stderr)
        return 0
    print(f"{PACKAGE} {VERSION}: {path} (sha256 verified)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
