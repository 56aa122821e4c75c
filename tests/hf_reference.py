"""Hugging Face's `tokenizers` library as the reference for tokenizers/hf/tokenizer_json.py, run in a
subprocess (tests/hf_worker.py) with `python -I` and a working directory outside the repository."""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

WORKER = Path(__file__).with_name("hf_worker.py")


class HuggingFace:
    """One worker process, kept open for many requests."""

    def __init__(self):
        self._cwd = tempfile.TemporaryDirectory()
        self.proc = subprocess.Popen([sys.executable, "-I", str(WORKER)], cwd=self._cwd.name, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, encoding="utf-8")

    def _ask(self, req: dict) -> dict:
        self.proc.stdin.write(json.dumps(req) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError("Hugging Face worker died:\n" + self.proc.stderr.read()[-3000:])
        out = json.loads(line)
        assert "site-packages" in out["module"], out["module"]  # Hugging Face's library, not this project's
        return out

    def ids(self, path, texts: list[str], *, as_text: bool = False) -> list[list[int]]:
        """Hugging Face's ids (add_special_tokens=False; special tokens parsed unless as_text)."""
        return self._ask({"op": "encode", "path": str(path), "texts": list(texts), "as_text": as_text})["ids"]

    def build(self, folder, specs: dict) -> dict[str, str]:
        return self._ask({"op": "build", "dir": str(folder), "specs": specs})["paths"]

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait(timeout=30)
        self._cwd.cleanup()
