"""The C core compiled to WebAssembly (issue 22), timed in real Chromium beside the library in Python.

    .venv/bin/python benchmarks/wasm_encode.py [--repeat 15] [--sizes 1000,10000,100000] [--no-anchor]
    .venv/bin/python benchmarks/wasm_encode.py --install    # only install the gpt-tokenizer anchor

For custom_bpe, gpt2, cl100k_base, o200k_base, mistral_sp and 1 KB, 10 KB, 100 KB of benchmarks/app_speed.py's
corpus:
  * wasm: tl_wasm.js's encode in Chromium (text to UTF-8 to ids, as a keystroke would), median of
    --repeat samples, each of enough runs to last 20 ms (performance.now() is coarse in a page);
  * py-C: the library's own C core through ctypes (BPETokenizer; for tiktoken vocabularies its `twin`;
    for mistral_sp SentencePieceTokenizer.native_encoder), and py-reg: the registry's tokenizer
    (tiktoken's Rust for gpt2/cl100k_base; for mistral_sp the sentencepiece package's C++ called
    directly, since the registry's now encodes with the C core), both in this process;
  * gpt-tokenizer: the npm package (pinned by sha256 and integrity in ANCHOR, fetched once with
    `npm pack` into the project cache by setup.sh --test or on first use; no CDN), its encode in the
    same page (it caches merges per word, so repeated text is its warm case; ours caches nothing);
  * the one-off costs: wasm module size and instantiation, each vocabulary's blob size (raw and gzip)
    and the time to build its encoder in the page.
Every wasm result is checked equal to the library's ids (and gpt-tokenizer's, where it has the
vocabulary) before timing. Ends with one JSON line. Needs clang's wasm32 toolchain (set-up builds the
module), Debian's /usr/bin/chromium (or CHROMIUM=...) and npm for the anchor.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.common import CHROMIUM, FLAGS, corpus  # noqa: E402

ORIGIN = "http://localhost:8766"
NAMES = ("custom_bpe", "gpt2", "cl100k_base", "o200k_base", "mistral_sp")
ANCHOR_ENCODINGS = {"gpt2": "r50k_base", "cl100k_base": "cl100k_base", "o200k_base": "o200k_base"}


# the in-browser anchor, from npm: fetched once with `npm pack` into <cache>/npm/, checked against these
# pins (the tarball's sha256, and npm's own integrity from `npm view gpt-tokenizer@4.0.0 dist.integrity`)
# by the project's one npm fetcher, tests/e2e/axe.py's fetch_pinned; its ESM files are served to the page
# out of the verified tarball
ANCHOR = ("gpt-tokenizer", "4.0.0", "e50075c9a98389fbe59bf6b42d8d50b49c1cbd7aec6c205bfc28847ee0eeb20a",
          "sha512-YAWIyzvuVUHEfW7tFfFAxH8qQb+Q3RU9nYOTy7skMNX5qzU6Q8jxTHZLyO56ug1vYvCR7wndzpd3jwD86/mhjQ==")


def gpt_tokenizer_files(log=print) -> dict[str, bytes] | None:
    """gpt-tokenizer's ESM build, {path under esm/: bytes}, from the verified tarball; None without it."""
    import tarfile

    from tests.e2e.axe import NpmPackageMissing, check_pinned, fetch_pinned

    package, version, sha256, integrity = ANCHOR

    def verify(data, where):
        check_pinned(data, where, package, version, sha256, integrity, "benchmarks/wasm_encode.py --install")

    try:
        path = fetch_pinned(package, version, verify)
    except NpmPackageMissing as e:
        log(f"gpt-tokenizer: left out ({e})")
        return None
    out = {}
    with tarfile.open(path) as tar:
        for m in tar.getmembers():
            if m.isfile() and m.name.startswith("package/esm/") and m.name.endswith(".js"):
                out[m.name[len("package/esm/"):]] = tar.extractfile(m).read()
    return out


def c_path(tok):
    """(encode(text) with the library's C core through ctypes, what that path is called)."""
    from tokenizers.bpe.model import BPETokenizer
    from tokenizers.core.text import clean_text

    if getattr(tok, "kind", None) == "sentencepiece":
        enc = tok.native_encoder()
        assert enc is not None, f"{tok.name}: {tok.native_refusal() or 'the C core is not built'}"
        return (lambda text: enc.encode(clean_text(text)[0].encode("utf-8"))), "C (tl_sp_encode)"
    c_tok = tok.twin if hasattr(tok, "twin") else tok
    assert isinstance(c_tok, BPETokenizer)
    return (lambda text: c_tok.encode(text, disallowed_special=())), c_tok.engine


def reference(tok):
    """encode(text) by the registry's tokenizer, or for a SentencePiece model by the package itself."""
    if getattr(tok, "kind", None) == "sentencepiece":
        from tokenizers.core.text import clean_text

        return lambda text: list(tok.sp.EncodeAsIds(clean_text(text)[0]))
    return lambda text: tok.encode(text, disallowed_special=())


def median_ms(fn, repeat: int) -> float:
    """As the page's `time`: median of `repeat` samples of k runs, each sample >= 20 ms."""
    k, t = 1, time.perf_counter()
    fn()
    while time.perf_counter() - t < 0.02:
        k *= 2
        t = time.perf_counter()
        for _ in range(k):
            fn()
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        for _ in range(k):
            fn()
        times.append((time.perf_counter() - t) * 1000 / k)
    return statistics.median(times)


# the page's timer (a function body's first lines; `repeat` in scope), shared with app_speed.py's anchor
TIMER_JS = """
  const now = () => performance.now();
  const med = xs => { const s = [...xs].sort((a, b) => a - b); const m = s.length >> 1;
                      return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };
  // performance.now() is coarse here (100 us without cross-origin isolation): each sample runs f k
  // times, k chosen so that a sample takes at least 20 ms, and counts as (its time) / k
  const time = f => {
    let k = 1, t0 = now(); f();
    while (now() - t0 < 20) { k *= 2; t0 = now(); for (let i = 0; i < k; i++) f(); }
    const xs = [];
    for (let r = 0; r < repeat; r++) { const t = now(); for (let i = 0; i < k; i++) f(); xs.push((now() - t) / k); }
    return med(xs);
  };
"""

PAGE_JS = """async ([names, anchors, sizes, texts, repeat]) => {
  const get = async p => new Uint8Array(await (await fetch(p)).arrayBuffer());""" + TIMER_JS + """  const out = {wasm: {}, anchor: {}, ids: {}, anchorIds: {}, load: {}};
  let t = now();
  const core = await TokenLensWasm.load(await get("/tokenlens.wasm"));
  out.instantiate_ms = now() - t;
  for (const name of names) {
    const blob = await get("/vocab/" + name);
    t = now();
    const v = core.vocab(blob);
    out.load[name] = now() - t;
    out.wasm[name] = {}; out.ids[name] = {};
    for (const size of sizes) {
      const text = texts[size];
      out.ids[name][size] = Array.from(v.encode(text));
      out.wasm[name][size] = time(() => v.encode(text));
    }
    v.free();
  }
  for (const [name, enc] of Object.entries(anchors)) {
    t = now();
    const m = await import("/gpt-tokenizer/encoding/" + enc + ".js");
    m.encode("warm up");  // its ranks are parsed at first use
    out.load["gpt-tokenizer " + enc] = now() - t;
    out.anchor[name] = {}; out.anchorIds[name] = {};
    for (const size of sizes) {
      const text = texts[size];
      out.anchorIds[name][size] = m.encode(text, {disallowedSpecial: new Set()});
      out.anchor[name][size] = time(() => m.encode(text, {disallowedSpecial: new Set()}));
    }
  }
  return out;
}"""


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=15)
    ap.add_argument("--sizes", default="1000,10000,100000")
    ap.add_argument("--no-anchor", action="store_true", help="leave gpt-tokenizer out")
    ap.add_argument("--install", action="store_true", help="install gpt-tokenizer into the cache and stop")
    args = ap.parse_args(argv)
    if args.install:
        esm = gpt_tokenizer_files()
        print(f"gpt-tokenizer {ANCHOR[1]}: {len(esm)} ESM files, verified" if esm else "gpt-tokenizer: not installed")
        return 0 if esm else 1
    sizes = [int(s) for s in args.sizes.split(",")]

    from tokenizers.bpe.native import blob as vblob
    from tokenizers.bpe.native import lib
    from tokenizers.bpe.native.lib import HERE
    from tokenizers.registry import get_tokenizer

    wasm = lib.wasm_module()
    if wasm is None:
        print(f"the WebAssembly module is {lib.wasm_status()} (python -m tokenizers.bpe.native.build --wasm)")
        return 1
    texts = {n: corpus(n) for n in sizes}
    toks = {name: get_tokenizer(name) for name in NAMES}
    blobs, not_in_browser, report = {}, {}, {"wasm_module_bytes": wasm.stat().st_size, "blob": {}}
    for name, tok in toks.items():
        try:
            b = vblob.serialize(tok)
        except ValueError as e:
            not_in_browser[name] = str(e)
            continue
        blobs[name] = b.data
        report["blob"][name] = {"raw": len(b.data), "gzip": len(gzip.compress(b.data, 9))}
    esm = None if args.no_anchor else gpt_tokenizer_files()
    anchors = {n: ANCHOR_ENCODINGS[n] for n in NAMES if n in ANCHOR_ENCODINGS} if esm else {}

    # Python: the C core through ctypes (a tiktoken vocabulary's twin), and the registry's tokenizer
    py_c, py_reg, want = {}, {}, {}
    for name, tok in toks.items():
        c_encode, engine = c_path(tok)
        ref = reference(tok)
        py_c[name], py_reg[name], want[name] = {}, {}, {}
        for n, text in texts.items():
            want[name][n] = ref(text)
            assert c_encode(text) == want[name][n] == tok.encode(text, disallowed_special=())
            py_c[name][n] = median_ms(lambda: c_encode(text), args.repeat)
            py_reg[name][n] = median_ms(lambda: ref(text), args.repeat)
        py_c[name]["engine"] = engine

    files = {"/": (b"<!doctype html><meta charset=utf-8><title>wasm bench</title><script src='/tl_wasm.js'></script>",
                   "text/html"),
             "/tl_wasm.js": ((HERE / "tl_wasm.js").read_bytes(), "text/javascript"),
             "/tokenlens.wasm": (wasm.read_bytes(), "application/wasm"),
             **{f"/vocab/{n}": (d, "application/octet-stream") for n, d in blobs.items()}}

    def answer(route):
        path = route.request.url[len(ORIGIN):]
        if path in files:
            body, kind = files[path]
            return route.fulfill(status=200, body=body, content_type=kind)
        if esm is not None and path.startswith("/gpt-tokenizer/") and path[len("/gpt-tokenizer/"):] in esm:
            return route.fulfill(status=200, body=esm[path[len("/gpt-tokenizer/"):]], content_type="text/javascript")
        route.fulfill(status=404, body=b"")

    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        page = browser.new_page()
        page.route(f"{ORIGIN}/**", answer)
        page.goto(f"{ORIGIN}/")
        page.wait_for_function("() => typeof TokenLensWasm === 'object'")
        got = page.evaluate(PAGE_JS, [list(blobs), anchors, sizes, {str(n): t for n, t in texts.items()},
                                      args.repeat])
        version = browser.version
        browser.close()

    for name in blobs:
        for n in sizes:
            assert got["ids"][name][str(n)] == want[name][n], f"{name} {n}: wasm ids differ from the library's"
    anchor_same = {name: all(got["anchorIds"][name][str(n)] == want[name][n] for n in sizes) for name in anchors}

    print(f"Chromium {version}; wasm module {report['wasm_module_bytes']:,} bytes, instantiated in "
          f"{got['instantiate_ms']:.1f} ms; median of {args.repeat} runs, ms")
    for name in NAMES:
        if name in not_in_browser:
            print(f"\n{name}: not in the browser ({not_in_browser[name]})")
        else:
            b = report["blob"][name]
            print(f"\n{name}: blob {b['raw']:,} bytes ({b['gzip']:,} gzip), encoder built in the page in "
                  f"{got['load'][name]:.1f} ms; Python C path: {py_c[name]['engine']}")
        if name in anchors:
            print(f"  gpt-tokenizer {anchors[name]} loaded in {got['load']['gpt-tokenizer ' + anchors[name]]:.0f} ms;"
                  f" its ids {'equal' if anchor_same[name] else 'DIFFER from'} the library's")
        print(f"  {'size':>8} {'wasm':>8} {'py-C':>8} {'py-reg':>8} {'gpt-tok':>8} {'py-C/wasm':>10} {'gpt-tok/wasm':>13}")
        for n in sizes:
            w = got["wasm"].get(name, {}).get(str(n))
            a = got["anchor"].get(name, {}).get(str(n))
            pc, pr = py_c[name][n], py_reg[name][n]
            f = lambda x: f"{x:8.3f}" if x is not None else f"{'-':>8}"  # noqa: E731
            r1 = f"{pc / w:10.1f}" if w else f"{'-':>10}"
            r2 = f"{a / w:13.2f}" if w and a else f"{'-':>13}"
            print(f"  {n:>8} {f(w)} {f(pc)} {f(pr)} {f(a)} {r1} {r2}")
    report.update({"chromium": version, "repeat": args.repeat, "instantiate_ms": got["instantiate_ms"],
                   "encoder_load_ms": got["load"], "wasm_ms": got["wasm"], "gpt_tokenizer_ms": got["anchor"],
                   "gpt_tokenizer_same_ids": anchor_same, "py_c_ms": py_c, "py_registry_ms": py_reg,
                   "not_in_browser": list(not_in_browser)})
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
