"""Issue 22: a keystroke's encode and model in the browser's code (ui/web/live_spans.js liveModel), in Node.

    .venv/bin/python benchmarks/live_model.py [--size 10000] [--repeat 400] [--root CHECKOUT]

For each of Compare's default tokenizers that the browser draws (custom_bpe, gpt2, cl100k_base, mistral_sp)
and o200k_base: app_speed.py's corpus, then `--repeat` keystrokes at its start as app_speed.py types them (a
letter, then Backspace), each encoded and modelled as a column does (its first page, as Compare pages the text
for the four defaults); the median and 90th percentile per keystroke, for the edit path (only the lines a
keystroke touched) and for the whole text encoded (liveModel's `whole`, the reference). `--root`: the
live_spans.js of another checkout (one without the edit path gives its only path in both rows). Ends with one
JSON line. Needs Node and the WebAssembly build (tokenizers.bpe.native.build).
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from app_speed import corpus  # noqa: E402

NAMES = ("custom_bpe", "gpt2", "cl100k_base", "mistral_sp", "o200k_base")
RUN = """
import { readFileSync } from "node:fs";
const job = JSON.parse(readFileSync(process.argv[2], "utf8"));
const TokenLensWasm = (await import(job.host)).default;
globalThis.TokenLensWasm = TokenLensWasm;
const L = await import(job.spans);
const core = await TokenLensWasm.load(readFileSync(job.wasm));
const out = {};
for (const [name, path] of Object.entries(job.blobs)) {
  const data = readFileSync(path);
  out[name] = {};
  for (const whole of [false, true]) {
    const v = { vocab: core.vocab(data), table: L.tokenTable(TokenLensWasm.readBlob(data)), names: job.names };
    const live = { parse: true, whitespace: false, alternating: false, win: job.win };
    const d = { owner: "compare:b", flip: false, font: "", label: "B" };
    L.liveModel(v, job.text, live, d, whole);
    const ms = [];
    for (let k = 0; k < job.repeat; k++) {
      const text = k % 2 ? job.text : "QXZJKVWY"[(k >> 1) % 8] + job.text;
      const t = performance.now();
      L.liveModel(v, text, live, d, whole);
      ms.push(performance.now() - t);
    }
    ms.sort((a, b) => a - b);
    out[name][whole ? "whole" : "edit"] = [ms[ms.length >> 1], ms[Math.floor(ms.length * 0.9)]];
  }
}
console.log(JSON.stringify(out));
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size", type=int, default=10_000)
    ap.add_argument("--repeat", type=int, default=400)
    ap.add_argument("--root", type=Path, default=ROOT, help="the checkout whose live_spans.js is measured")
    args = ap.parse_args()
    from app_pages.compare import PAGE_SIZE
    from service import browser_assets
    from tokenizers import get_tokenizer
    from tokenizers.bpe.native import blob as vblob
    from tokenizers.bpe.native import lib
    from tokenizers.bpe.native.lib import HERE
    from ui import paging

    node = shutil.which("node") or shutil.which("nodejs")
    wasm = lib.wasm_module()
    if node is None or wasm is None:
        sys.exit("needs Node.js and the WebAssembly build")
    text = corpus(args.size).rstrip()
    toks = {n: get_tokenizer(n) for n in NAMES}
    # Compare's page for the four defaults (app_pages/compare.py page_windows)
    per = paging.chars_per_page(len(text), [len(toks[n].encode(text, disallowed_special=())) for n in NAMES[:4]],
                                PAGE_SIZE)
    spans = (args.root / "ui/web/live_spans.js").read_text(encoding="utf-8")
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        (d / "spans.mjs").write_text(spans, encoding="utf-8")
        (d / "run.mjs").write_text(RUN, encoding="utf-8")
        blobs = {}
        for n in NAMES:
            blobs[n] = str(d / f"{n}.bin")
            Path(blobs[n]).write_bytes(vblob.serialize(toks[n]).data)
        job = {"host": str(HERE / "tl_wasm.js"), "spans": str(d / "spans.mjs"), "wasm": str(wasm), "blobs": blobs,
               "names": browser_assets.spoken_names(), "text": text, "win": [per, 0], "repeat": args.repeat}
        (d / "job.json").write_text(json.dumps(job), encoding="utf-8")
        got = json.loads(subprocess.run([node, str(d / "run.mjs"), str(d / "job.json")], capture_output=True,
                                        text=True, check=True, timeout=600).stdout)
    print(f"liveModel per keystroke at the start of {len(text):,} characters (page of {per:,}), "
          f"{args.root.resolve()}, median / p90 of {args.repeat}:")
    print("| tokenizer | edit path | whole text (reference) |")
    print("|---|---|---|")
    for n in NAMES:
        e, w = got[n]["edit"], got[n]["whole"]
        print(f"| {n} | {e[0]:.2f} / {e[1]:.2f} ms | {w[0]:.2f} / {w[1]:.2f} ms |")
    print(json.dumps({"root": str(args.root.resolve()), "chars": len(text), "per_page": per, "ms": got}))


if __name__ == "__main__":
    main()
