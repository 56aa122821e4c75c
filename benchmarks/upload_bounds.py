"""Time and peak memory of the crafted tokenizer files of issue 24 (items 2, 4, 5, 7), loaded through the
one entry point every upload takes, `tokenizers.load_user_file`, in a fresh process per file.

    .venv/bin/python benchmarks/upload_bounds.py                       # this checkout
    .venv/bin/python benchmarks/upload_bounds.py --repo /path/to/main  # another checkout (before/after)
    .venv/bin/python benchmarks/upload_bounds.py --only added          # one attack

The attacks:
- check: a .tiktoken of the 256 bytes with 100,000 special tokens, then a megabyte of text with none
  in it encoded with specials refused (tiktoken's default): the check that none is in the text used to
  scan the text once per special;
- added: a 19.9 MB tokenizer.json with 100,000 added tokens (the documented maximum), loaded, then one
  text encoded with every special allowed and again with one allowed (each set of allowed specials
  used to compile its own regex of all of them);
- double: the 203-byte minbpe .model whose 24 merges double "a" to a 16.8 MB token;
- tekken: a 9.7 KB Tekken file declaring 20,000,000 special tokens;
- recovery: a .tiktoken holding "aa" and "a" * 20,000, and the merge that made the long token (the
  bound refuses that file now, so the same token's recovery is also timed on the library's own
  RecoveredMerges, outside the upload path).

Each child reports its wall time and its peak resident memory (ru_maxrss); the table ends with a JSON line.

Figures (2-core server shared with other work, so "before" ran slower than the issue's own figures;
before = main at b5d8ebb, after = branch bounds; `--repo <main checkout>` and no --repo):

| attack | before | after |
|---|---|---|
| check: 1 MB encoded, 100,000 specials refused | 527 s (a scan of the text per special), 73 MB | 0.59 s, 81 MB |
| added: 100,000 added tokens, 19.9 MB | load 56 s, encode all 233 s, encode with one allowed 208 s; 2,089 MB | load 0.85 s, 1.10 s, 0.48 s; 497 MB |
| double: 203-byte minbpe .model | loads (its 16.8 MB token costs later, in decoding) | refused at merge 14 in 0.002 s: "token 270 ... is 32 KB (32,768 bytes); a token may be at most 16 KB" |
| tekken: 20,000,000 declared specials | 147 s and 2,788 MB, then refused | refused in 0.0002 s, 96 MB (the interpreter) |
| recovery: "a" * 20,000 | merge shown after 68 s (the library alone: 53 s) | refused by the 16 KB bound; the library alone: 0.024 s |
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def added_file() -> bytes:
    from random import Random

    rng = Random(24)
    letters = "abcdefghijklmnopqrstuvwxyz"
    printable = [*range(0x21, 0x7F), *range(0xA1, 0xAD), *range(0xAE, 0x100)]  # byte-level BPE's alphabet
    others = iter(range(0x100, 0x200))
    vocab = {(chr(b) if b in printable else chr(next(others))): b for b in range(256)}
    added = [{"id": 1_000 + k, "content": f"<|{k}:" + "".join(rng.choice(letters) for _ in range(65)) + "|>",
              "single_word": False, "lstrip": False, "rstrip": False, "normalized": False, "special": k % 2 == 0}
             for k in range(100_000)]
    return json.dumps({"added_tokens": added,
                       "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False, "use_regex": True},
                       "model": {"type": "BPE", "vocab": vocab, "merges": []}}).encode()


def double_file() -> bytes:
    lines = ["minbpe v1", "", "0", "97 97"] + [f"{255 + k} {255 + k}" for k in range(1, 24)]
    return ("\n".join(lines) + "\n").encode()


def tekken_file() -> bytes:
    vocab = [{"rank": i, "token_bytes": base64.b64encode(bytes([i])).decode(), "token_str": None} for i in range(256)]
    return json.dumps({"config": {"pattern": r"\S+|\s+", "num_vocab_tokens": 256, "default_vocab_size": 20_000_256,
                                  "default_num_special_tokens": 20_000_000, "version": "v3"}, "vocab": vocab}).encode()


def recovery_file() -> bytes:
    lines = [f"{base64.b64encode(bytes([i])).decode()} {i}" for i in range(256)]
    lines += [f"{base64.b64encode(b'aa').decode()} 256", f"{base64.b64encode(b'a' * 20_000).decode()} 257"]
    return ("\n".join(lines) + "\n").encode()


def bytes_file() -> bytes:
    return "".join(f"{base64.b64encode(bytes([i])).decode()} {i}\n" for i in range(256)).encode()


ATTACKS = {"check": ("specials.tiktoken", bytes_file), "added": ("added.json", added_file), "double": ("double.model", double_file),
           "tekken": ("tekken.json", tekken_file), "recovery": ("long.tiktoken", recovery_file)}

CHILD = r"""
import json, resource, sys, time
sys.path.insert(0, ".")
kind, path = sys.argv[1], sys.argv[2]
from tokenizers import load_user_file
data = open(path, "rb").read()
out = {}
options = {"specials": {f"<|s{k}|>": 1_000 + k for k in range(100_000)}} if kind == "check" else {}
t = time.perf_counter()
try:
    tok = load_user_file(path.rsplit("/", 1)[-1], data, **options)
    out["load"] = "loaded"
except Exception as e:
    tok = None
    out["load"] = f"{type(e).__name__}: {str(e)[:160]}"
out["load_s"] = time.perf_counter() - t
if tok is not None and kind == "added":
    text = "Hello " + json.loads(data)["added_tokens"][4]["content"] + " world " * 50
    t = time.perf_counter(); tok.encode(text, allowed_special="all"); out["encode_all_s"] = time.perf_counter() - t
    one = {json.loads(data)["added_tokens"][4]["content"]}
    t = time.perf_counter(); tok.encode(text, allowed_special=one); out["encode_one_s"] = time.perf_counter() - t
if tok is not None and kind == "check":  # a megabyte with no special in it, specials refused (the default)
    text = "Hello world, <|s not quite|> " * 36_000
    t = time.perf_counter(); tok.encode(text); out["encode_1mb_s"] = time.perf_counter() - t
if tok is not None and kind == "recovery":
    t = time.perf_counter(); out["parents"] = str(tok.merge_parents(257)); out["recover_s"] = time.perf_counter() - t
if kind == "recovery":  # the same token's recovery, without the upload path's bound
    from tokenizers.bpe.merges import RecoveredMerges
    ranks = {bytes([i]): i for i in range(256)} | {b"aa": 256, b"a" * 20_000: 257}
    t = time.perf_counter(); RecoveredMerges({r: b for b, r in ranks.items()}, ranks).parents(257)
    out["library_recover_s"] = time.perf_counter() - t
out["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps(out))
"""


def run(repo: Path, kind: str, path: Path, timeout: float) -> dict:
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    t = time.perf_counter()
    try:
        done = subprocess.run([sys.executable, "-c", CHILD, kind, str(path)], cwd=repo, env=env, capture_output=True,
                              text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"load": f"still running after {timeout:g} s", "wall_s": timeout}
    wall = time.perf_counter() - t
    if done.returncode != 0:
        return {"load": f"exit {done.returncode}: {done.stderr.strip().splitlines()[-1:]}", "wall_s": wall}
    return {**json.loads(done.stdout.strip().splitlines()[-1]), "wall_s": wall}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repo", type=Path, default=ROOT, help="the checkout whose library loads the files")
    ap.add_argument("--only", default="", help="comma-separated attacks: " + ", ".join(ATTACKS))
    ap.add_argument("--timeout", type=float, default=900)
    args = ap.parse_args()
    chosen = [k for k in ATTACKS if not args.only or k in args.only.split(",")]
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        for kind in chosen:
            name, make = ATTACKS[kind]
            path = Path(tmp) / name
            path.write_bytes(make())
            r = run(args.repo.resolve(), kind, path, args.timeout)
            r["file_bytes"] = path.stat().st_size
            results[kind] = r
            print(f"{kind}: {r}", file=sys.stderr)
    print(f"\nrepo: {args.repo}\n")
    print("| attack | file | outcome | load s | other | peak MB |")
    print("|---|---:|---|---:|---|---:|")
    for kind, r in results.items():
        other = ", ".join(f"{k} {v:.3f}" if isinstance(v, float) else f"{k} {v}" for k, v in r.items()
                          if k not in ("load", "load_s", "peak_mb", "file_bytes", "wall_s"))
        print(f"| {kind} | {r['file_bytes']:,} B | {r['load'][:90]} | {r.get('load_s', r['wall_s']):.2f} | {other} | "
              f"{r.get('peak_mb', float('nan')):,.0f} |")
    print(json.dumps({"repo": str(args.repo), "results": results}))


if __name__ == "__main__":
    main()
