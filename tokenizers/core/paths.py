"""Where the library keeps what set-up provisions and builds: vocabulary files, wheels, the compiled C
core. One folder, `.cache/token-lens/` at the repository root unless TOKEN_LENS_CACHE names another."""

from __future__ import annotations

import os
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]


def cache_root() -> Path:
    return Path(os.environ.get("TOKEN_LENS_CACHE") or REPO_ROOT / ".cache" / "token-lens")
