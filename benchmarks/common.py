"""What several benchmarks share and none owns: a mixed text of any size, and how Chromium is started
(Debian's, headless, with the flags a machine with a closed network needs). A module of its own so that
app_speed, visitors and wasm_encode, which use each other's pieces, import it instead of each other."""

from __future__ import annotations

import os

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
FLAGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage"]


def corpus(n_bytes: int) -> str:
    """Mixed text (prose, code, numbers, scripts, emoji) of about n_bytes UTF-8 bytes."""
    from ui.examples import EXAMPLES

    unit = "\n".join(EXAMPLES.values()) + "\n"  # starts with "The lighthouse keeper…"
    text = unit * (n_bytes // len(unit.encode()) + 1)
    data = text.encode()[:n_bytes]
    return data.decode("utf-8", errors="ignore")
