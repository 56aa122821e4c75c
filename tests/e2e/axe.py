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


class AxeMissing(RuntimeError):
    """axe-core is not provisioned and cannot be (no npm, or no registry)."""


def tarball() -> Path:
    return cache_root() / "npm" / f"{PACKAGE}-{VERSION}.tgz"


def _verify(data: bytes, where: Path) -> None:
    sha256 = hashlib.sha256(data).hexdigest()
    integrity = "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode()
    if sha256 != SHA256 or integrity != INTEGRITY:
        raise AxeMissing(f"{where} is not {PACKAGE} {VERSION} as pinned (sha256 {sha256}, want {SHA256}; "
                         f"integrity {integrity}, want {INTEGRITY}); delete it and run python -m tests.e2e.axe")


def provision() -> Path:
    """The verified tarball, fetched with `npm pack` if it is not in the cache yet."""
    path = tarball()
    if not path.exists():
        npm = shutil.which("npm")
        if npm is None:
            raise AxeMissing(f"{PACKAGE} is not provisioned ({path}) and there is no npm to fetch it "
                             "(apt-get install npm, then bash setup.sh --test)")
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=path.parent) as tmp:
            out = subprocess.run([npm, "pack", f"{PACKAGE}@{VERSION}", "--pack-destination", tmp, "--silent",
                                  "--ignore-scripts"],
                                 cwd=tmp, capture_output=True, text=True, timeout=300)
            got = Path(tmp) / f"{PACKAGE}-{VERSION}.tgz"
            if out.returncode != 0 or not got.exists():
                raise AxeMissing(f"npm pack {PACKAGE}@{VERSION} failed: {out.stderr.strip()[-500:]}")
            _verify(got.read_bytes(), got)
            got.replace(path)  # whole or not at all: a cut download never sits in the cache
    _verify(path.read_bytes(), path)
    return path


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
