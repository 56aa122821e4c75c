"""Token Lens benchmarks: our BPE trainer and encoder against Hugging Face tokenizers, sentencepiece,
rustbpe and tiktoken, on corpora built from this machine at run time (no download).

    bash benchmarks/run.sh              # full run (about 5 minutes on 2 cores)
    bash benchmarks/run.sh --quick      # smoke run: the 185 KB sample only, one repetition

Every measurement runs in a fresh subprocess (benchmarks/worker.py, Python's isolated mode, in a
scratch directory, so Hugging Face's `tokenizers` is never shadowed by this repository's package).
Times are medians over --reps runs. Progress goes to stderr; the report goes to stdout and ends with
one JSON line holding every figure. See benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from importlib import metadata
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
import corpora  # noqa: E402  (benchmarks/corpora.py: standard library only)

TRAINERS = ["ours_fast", "ours_python", "ours_reference", "hf_bytelevel", "hf_gpt4split", "sentencepiece", "rustbpe"]
PEERS = ["hf_bytelevel", "hf_gpt4split", "sentencepiece", "rustbpe"]
OURS = ["ours_fast", "ours_python"]  # our two trainers measured across the matrix
SETUP = {
    "ours_fast": "tokenizers.bpe.BPETokenizer('gpt4').train(text, V, trainer='fast'); whole text as one "
                 "string; GPT-4 (cl100k) split; C core via ctypes, 1 thread (the worker asserts "
                 "tokenizers.bpe.native.available(): 'fast' would fall back to Python otherwise)",
    "ours_python": "same, trainer='python' (bpe.fast.train_fast: the same algorithm and merges); pure "
                   "Python, 1 thread",
    "ours_reference": "same, trainer='reference' (recounts every pair at every merge); pure Python; only at "
                      "the reference point",
    "hf_bytelevel": "HF tokenizers: models.BPE() + pre_tokenizers.ByteLevel(add_prefix_space=False) (its "
                    "GPT-2 regex), BpeTrainer(vocab_size=V, min_frequency=0, initial_alphabet=ByteLevel.alphabet()),"
                    " train_from_iterator over ~64 KB blocks (cut after a newline followed by a letter, where the GPT-4 "
                    "split has a boundary anyway); Rust, rayon threads",
    "hf_gpt4split": "as hf_bytelevel but pre-tokenizer Sequence[Split(GPT-4 regex, 'isolated'), "
                    "ByteLevel(use_regex=False)]: the same split as ours",
    "sentencepiece": "SentencePieceTrainer.train(input=<corpus file>, model_type='bpe', vocab_size=V, "
                     "byte_fallback=True, character_coverage=0.9995, normalization_rule_name='identity', "
                     "remove_extra_whitespaces=False, split_digits=True, allow_whitespace_only_pieces=True, "
                     "num_threads=T); one sentence per line; V counts 3 meta + 256 byte pieces; C++",
    "rustbpe": "rustbpe.Tokenizer().train_from_iterator(the same ~64 KB blocks, vocab_size=V, pattern=GPT-4 "
               "split (same as ours; the blocks split into exactly the chunks of the whole text)); Rust, rayon threads",
    "encode": "encode_ordinary(text) on every side (no special-token scan). 'own' = our model trained on the "
              "prose corpus at the largest vocab, on the tiktoken side exported with bpe_files.to_tiktoken_encoding; "
              "'cl100k_base' = BPETokenizer.from_tiktoken vs tiktoken.get_encoding. Side 'ours' = "
              "tok.encode_ordinary, which runs in the C core (no chunk cache; minbpe's merge rule for 'own', "
              "tiktoken's rank rule for cl100k_base): 'first' = pass 1 in a "
              "fresh process (includes building the C encoder), then tok._reset_caches() (the encoder is "
              "rebuilt outside the timing, as tiktoken's load is) and two more passes 'cold' and 'warm', alike. "
              "Side 'ours_python' = tok.encode_ordinary_python: 'first' = pass 1 in a fresh process, "
              "'cold' = after tok._reset_caches() (empty chunk cache), 'warm' = with the cache filled. "
              "tiktoken: three identical passes (it keeps no cache). Ids of every side are checked equal "
              "to tiktoken's.",
    "memory": "peak RSS of the child (VmHWM from /proc/self/status at the end: the whole process, "
              "interpreter + corpus text + training; 'before' = VmRSS once the text is read) training on "
              "the 10 MB corpus; the goal is judged on ours_fast (C core), ours_python is given for information",
}


def log(*a) -> None:
    print(*a, file=sys.stderr, flush=True)


def parse_size(s: str) -> int:
    s = s.strip().upper()
    for suf, mul in (("MB", 1_000_000), ("KB", 1_000), ("M", 1_000_000), ("K", 1_000), ("B", 1)):
        if s.endswith(suf):
            return int(float(s[: -len(suf)]) * mul)
    return int(s)


def fmt_bytes(n: int) -> str:
    return f"{n / 1e6:.2f} MB" if n >= 1e6 else f"{n / 1e3:.0f} KB"


class Runner:
    def __init__(self, python: str, work: Path, threads: int, timeout: float):
        self.python, self.work, self.threads, self.timeout = python, work, threads, timeout
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
        self.env.update(RAYON_NUM_THREADS=str(threads), TOKENIZERS_PARALLELISM="true",
                        OMP_NUM_THREADS=str(threads))
        self.scratch = work / "scratch"
        self.scratch.mkdir(parents=True, exist_ok=True)

    def __call__(self, *args) -> dict:
        cmd = [self.python, "-I", str(HERE / "worker.py"), *map(str, args)]
        t0 = time.perf_counter()
        try:
            p = subprocess.run(cmd, cwd=self.scratch, env=self.env, capture_output=True, text=True,
                               timeout=self.timeout)
        except subprocess.TimeoutExpired:
            return {"error": f"timed out after {self.timeout:.0f} s", "process_seconds": self.timeout}
        wall = time.perf_counter() - t0
        lines = p.stdout.strip().splitlines()
        if p.returncode != 0 or not lines:
            tail = (p.stderr or p.stdout).strip().splitlines()[-3:]
            return {"error": f"exit {p.returncode}: " + " | ".join(tail), "process_seconds": wall}
        res = json.loads(lines[-1])
        res["process_seconds"] = wall
        return res


def library_fingerprint() -> str:
    """sha256 over tokenizers/**/*.py (the measured library), to tell runs of different code apart."""
    import hashlib

    h = hashlib.sha256()
    for f in sorted((REPO / "tokenizers").rglob("*.py")):
        h.update(str(f.relative_to(REPO)).encode() + b"\0" + f.read_bytes())
    return h.hexdigest()[:16]


def native_fingerprint() -> str:
    """sha256 over the C core's sources, tokenizers/bpe/native/*.{c,h,py} (the built library's file name
    carries its own digest, which also covers regex's version: see `native` in the JSON)."""
    import hashlib

    h = hashlib.sha256()
    for f in sorted((REPO / "tokenizers" / "bpe" / "native").glob("*")):
        if f.suffix in (".c", ".h", ".py"):
            h.update(f.name.encode() + b"\0" + f.read_bytes())
    return h.hexdigest()[:16]


def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true",
                    help="smoke run: the 185 KB sample only, vocabs 512 and 2048, 1 repetition")
    ap.add_argument("--sizes", help="corpora to train on, comma-separated, each optionally =SIZE: "
                    "e.g. 'sample,prose=2MB,code' (default sample,prose,code = 185 KB, 4.5 MB, 4 MB)")
    ap.add_argument("--vocabs", help="comma-separated vocab sizes (default 512,2048,8192)")
    ap.add_argument("--reps", type=int, help="runs per configuration; the median is reported (default 3)")
    ap.add_argument("--trainers", help=f"subset of {','.join(t for t in TRAINERS if t != 'ours_reference')}")
    ap.add_argument("--reference-at", default="sample:512",
                    help="CORPUS:VOCAB where our reference trainer runs ('none' to skip; default sample:512)")
    ap.add_argument("--mem-size", default="10MB", help="corpus size of the peak-memory run (default 10MB)")
    ap.add_argument("--no-encode", action="store_true")
    ap.add_argument("--no-memory", action="store_true")
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 1,
                    help="threads for the peers that use them (RAYON_NUM_THREADS, sentencepiece num_threads)")
    ap.add_argument("--timeout", type=float, default=1800, help="seconds per subprocess")
    ap.add_argument("--python", default=sys.executable, help="interpreter for the workers")
    ap.add_argument("--work", default=str(HERE / ".work"), help="scratch folder (corpora, models)")
    args = ap.parse_args()

    t_start = time.perf_counter()
    lib_before = library_fingerprint()
    native_before = native_fingerprint()
    load_before = os.getloadavg()
    sizes = dict(corpora.SIZES)
    sizes["mem10"] = parse_size(args.mem_size)
    if args.sizes:
        train_corpora = []
        for item in args.sizes.split(","):
            name, _, sz = item.partition("=")
            name = name.strip()
            if name not in ("sample", "prose", "code"):
                ap.error(f"--sizes: unknown corpus {name!r} (sample, prose, code)")
            if sz:
                sizes[name] = parse_size(sz)
            train_corpora.append(name)
    else:
        train_corpora = ["sample"] if args.quick else ["sample", "prose", "code"]
    vocabs = [int(v) for v in args.vocabs.split(",")] if args.vocabs else ([512, 2048] if args.quick else [512, 2048, 8192])
    reps = args.reps or (1 if args.quick else 3)
    trainers = args.trainers.split(",") if args.trainers else [t for t in TRAINERS if t != "ours_reference"]
    for t in trainers:
        if t not in TRAINERS:
            ap.error(f"--trainers: unknown {t!r}")
    ref_at = None
    if args.reference_at != "none":
        rc, _, rv = args.reference_at.partition(":")
        ref_at = (rc, int(rv))
    vmax = max(vocabs)
    work = Path(args.work)
    run = Runner(args.python, work, args.threads, args.timeout)

    # -- the C core: ours_fast and encoding side `ours` measure it, so it must load in the workers ----
    native = run("native")
    if "error" in native:
        log(f"cannot ask the workers about the C core: {native['error']}")
        return 2
    native.pop("process_seconds", None)
    if not native["available"] and ("ours_fast" in trainers or not args.no_encode):
        if native["disabled"]:
            fix = "it is disabled by TOKEN_LENS_NATIVE: unset it"
        else:
            fix = (f"it is not built for these sources and this regex version ({native['library']} is missing). "
                   f"Build it from the repository root with `.venv/bin/python -m tokenizers.bpe.native.build` (or "
                   f"`{args.python} -m tokenizers.bpe.native.build`; run.sh does this)")
        log(f"ERROR: ours_fast and encoding side 'ours' measure the C core, but {fix}; or leave them out "
            f"with --trainers (without ours_fast) and --no-encode.")
        return 2
    log(f"C core: {'loaded' if native['available'] else 'not loaded'} ({native['library']})")

    # -- corpora ---------------------------------------------------------------------------------
    enc_texts = [c for c in ("prose", "code") if c in train_corpora] or [train_corpora[-1]]
    need = set(train_corpora) | set(enc_texts) | ({ref_at[0]} if ref_at else set())
    model_corpus = "prose" if "prose" in need else train_corpora[-1]
    need.add(model_corpus)
    mem_corpus = None if args.no_memory else ("mem10" if not args.quick else "sample")
    if mem_corpus:
        need.add(mem_corpus)
    log(f"building corpora {sorted(need)} in {work / 'corpora'} ...")
    t0 = time.perf_counter()
    cinfo = corpora.write_all(work / "corpora", names=[n for n in ("sample", "prose", "code", "mem10") if n in need],
                              sizes=sizes)
    log(f"  done in {time.perf_counter() - t0:.1f} s: " +
        ", ".join(f"{n} {fmt_bytes(i['bytes'])}" for n, i in cinfo.items()))
    path = {n: i["path"] for n, i in cinfo.items()}
    corpora._memo.clear()  # keep this process small while it starts the measurements

    # -- training --------------------------------------------------------------------------------
    configs = [(c, v, t) for c in train_corpora for v in vocabs for t in trainers]
    if ref_at and ref_at[0] in path:
        configs.append((ref_at[0], ref_at[1], "ours_reference"))
    runs: dict[tuple, list[dict]] = {c: [] for c in configs}
    dumps = work / "dumps"
    dumps.mkdir(parents=True, exist_ok=True)
    for rep in range(reps):
        for corpus, vocab, impl in configs:
            extra = []
            if rep == 0 and impl in ("ours_fast", "ours_python", "rustbpe"):
                extra = ["--dump", dumps / f"{impl}_{corpus}_{vocab}.json"]
            r = run("train", impl, path[corpus], vocab, "--threads", args.threads, *extra)
            runs[(corpus, vocab, impl)].append(r)
            log(f"[train {rep + 1}/{reps}] {impl:15s} {corpus:6s} vocab {vocab:5d}: " +
                (f"{r['seconds']:.3f} s, peak {r['peak_rss_mb']:.0f} MB" if "seconds" in r else f"ERROR {r['error']}"))

    train_rows = []
    for (corpus, vocab, impl), rs in runs.items():
        ok = [r for r in rs if "seconds" in r]
        train_rows.append({
            "corpus": corpus, "bytes": cinfo[corpus]["bytes"], "vocab": vocab, "impl": impl,
            "median_s": med([r["seconds"] for r in ok]), "runs_s": [round(r["seconds"], 4) for r in ok],
            "peak_rss_mb": max((r["peak_rss_mb"] for r in ok), default=None),
            "vocab_out": ok[0].get("vocab_out") if ok else None,
            "errors": [r["error"] for r in rs if "error" in r]})
    T = {(r["corpus"], r["vocab"], r["impl"]): r for r in train_rows}

    # merges agreement, ours vs rustbpe (same split, same tie rule: should be identical); the dumps
    # of this run only (rep 1 wrote them), so a stale file from an earlier run is never compared
    agreements: dict[str, dict] = {}
    for ours in OURS:
        agreement = {}
        for corpus in train_corpora:
            for vocab in vocabs:
                if not all(T.get((corpus, vocab, t), {}).get("median_s") for t in (ours, "rustbpe")):
                    continue
                a, b = dumps / f"{ours}_{corpus}_{vocab}.json", dumps / f"rustbpe_{corpus}_{vocab}.json"
                if a.exists() and b.exists():
                    x, y = json.loads(a.read_text()), json.loads(b.read_text())
                    first_diff = next((i for i, (p, q) in enumerate(zip(x, y)) if p != q), min(len(x), len(y)))
                    agreement[f"{corpus}/{vocab}"] = {"tokens": len(x), "same_prefix": first_diff,
                                                      "same_set": len(set(x) & set(y))}
        if agreement:
            agreements[ours] = agreement
    agreement = agreements.get("ours_fast", {})

    # -- encoding --------------------------------------------------------------------------------
    enc_rows = []
    model_info = None
    if not args.no_encode:
        log(f"[encode] training our model on {model_corpus} at vocab {vmax} ...")
        model_info = run("save-model", path[model_corpus], vmax, work / "own")
        if "error" in model_info:
            log("   ERROR", model_info["error"])
        enc_cfg = [(text, vocab, side) for text in enc_texts for vocab in ("own", "cl100k_base")
                   for side in ("ours", "ours_python", "tiktoken")
                   if not (vocab == "own" and "error" in model_info)]
        eruns: dict[tuple, list[dict]] = {c: [] for c in enc_cfg}
        for rep in range(reps):
            for text, vocab, side in enc_cfg:
                extra = ["--model", model_info["model"]] if vocab == "own" else []
                r = run("encode", side, vocab, path[text], *extra)
                eruns[(text, vocab, side)].append(r)
                msg = f"[encode {rep + 1}/{reps}] {side:11s} {vocab:11s} {text:6s}: "
                if "error" in r:
                    log(msg + "ERROR " + r["error"])
                else:
                    mb = r["text_bytes"] / 1e6
                    log(msg + f"first {mb / r['first_seconds']:.2f}  cold {mb / r['cold_seconds']:.2f}  "
                        f"warm {mb / r['warm_seconds']:.2f} MB/s")
        for (text, vocab, side), rs in eruns.items():
            ok = [r for r in rs if "first_seconds" in r]
            nb = cinfo[text]["bytes"]
            row = {"text": text, "bytes": nb, "vocab": vocab, "side": side,
                   "errors": [r["error"] for r in rs if "error" in r]}
            for k in ("first", "cold", "warm"):
                s = med([r[f"{k}_seconds"] for r in ok])
                row[f"{k}_mbps"] = nb / 1e6 / s if s else None
            row["load_s"] = med([r["load_seconds"] for r in ok])
            row["tokens"] = ok[0]["tokens"] if ok else None
            row["ids_sha"] = ok[0]["ids_sha"] if ok else None
            row["peak_rss_mb"] = max((r["peak_rss_mb"] for r in ok), default=None)
            row["path"] = ("rust" if side == "tiktoken" else ok[0].get("path")) if ok else None
            row["encoder_build_s"] = med([r.get("encoder_build_seconds") for r in ok])
            enc_rows.append(row)
    E = {(r["text"], r["vocab"], r["side"]): r for r in enc_rows}

    # -- memory ----------------------------------------------------------------------------------
    mem_rows = []
    if mem_corpus:
        for impl in [t for t in trainers if t != "ours_reference"]:
            log(f"[memory] {impl} on {mem_corpus} ({fmt_bytes(cinfo[mem_corpus]['bytes'])}) vocab {vmax} ...")
            r = run("train", impl, path[mem_corpus], vmax, "--threads", args.threads)
            if "error" in r:
                log("   ERROR", r["error"])
            else:
                log(f"   peak {r['peak_rss_mb']:.0f} MB, {r['seconds']:.2f} s")
            mem_rows.append({"impl": impl, "corpus": mem_corpus, "bytes": cinfo[mem_corpus]["bytes"], "vocab": vmax,
                             "peak_rss_mb": r.get("peak_rss_mb"), "rss_before_mb": r.get("rss_before_mb"),
                             "seconds": r.get("seconds"), "error": r.get("error")})
    M = {r["impl"]: r for r in mem_rows}

    # -- goals -----------------------------------------------------------------------------------
    goals = []

    def goal(name, where, measured, op, target, exact):
        if measured is None:
            verdict = "n/a"
        else:
            verdict = "PASS" if (measured <= target if op == "<=" else measured >= target) else "MISS"
        if verdict != "n/a" and not exact:
            verdict += "?"  # not at the goal's own size: indicative only
        goals.append({"goal": name, "where": where, "measured": measured, "op": op, "target": target,
                      "verdict": verdict, "at_goal_size": exact})

    def ratio(a, b):
        return a / b if a is not None and b else None

    info = []  # informational figures, judged against nothing (e.g. the pure-Python twins)

    def note(name, where, measured, compare=None):
        if measured is None:  # a side that was not measured (not in --trainers, or it failed)
            return
        info.append({"info": name, "where": where, "measured": measured, "compare": compare})

    big = [c for c in ("prose", "code") if c in train_corpora] or [train_corpora[-1]]
    for c in big:
        exact = c in ("prose", "code") and 3_900_000 <= cinfo[c]["bytes"] <= 5_100_000 and vmax == 8192
        ours = T.get((c, vmax, "ours_fast"), {}).get("median_s")
        py = T.get((c, vmax, "ours_python"), {}).get("median_s")
        where = f"{c} {fmt_bytes(cinfo[c]['bytes'])}, vocab {vmax}"
        for peer, tgt in (("hf_bytelevel", 0.5), ("sentencepiece", 1.5)):
            peer_s = T.get((c, vmax, peer), {}).get("median_s")
            goal(f"train time ours/{peer}", where, ratio(ours, peer_s), "<=", tgt, exact)
        for peer, tgt in (("hf_bytelevel", 0.5), ("sentencepiece", 1.5)):
            if "ours_python" in trainers:
                note(f"train time ours_python/{peer}", where,
                     ratio(py, T.get((c, vmax, peer), {}).get("median_s")), f"goal for ours_fast: <= {tgt}")
        if "ours_python" in trainers and "ours_fast" in trainers:
            note("train speed-up ours_python/ours_fast", where, ratio(py, ours))
    if ref_at and (ref_at[0], ref_at[1], "ours_reference") in T:
        c, v = ref_at
        ref = T[(c, v, "ours_reference")]["median_s"]
        fast = T.get((c, v, "ours_fast"), {}).get("median_s")
        if fast is None:  # reference point outside the matrix: no fast run there
            fast = None
        goal("speed-up fast vs reference", f"{c} {fmt_bytes(cinfo[c]['bytes'])}, vocab {v}",
             ratio(ref, fast), ">=", 100, c == "sample" and abs(cinfo[c]["bytes"] - 185_000) < 5_000 and v == 512)
        if (c, v, "ours_python") in T:
            note("speed-up python vs reference", f"{c} {fmt_bytes(cinfo[c]['bytes'])}, vocab {v}",
                 ratio(ref, T[(c, v, "ours_python")]["median_s"]), "goal for fast: >= 100")
    for text in enc_texts:
        for vocab, tgt in (("own", 0.5), ("cl100k_base", 0.4)):
            o, t = E.get((text, vocab, "ours")), E.get((text, vocab, "tiktoken"))
            if not o or not t:
                continue
            for k in ("cold", "warm"):
                goal(f"encode ours/tiktoken ({vocab}, {k})", f"{text} {fmt_bytes(cinfo[text]['bytes'])}",
                     ratio(o[f"{k}_mbps"], t[f"{k}_mbps"]), ">=", tgt, text in ("prose", "code"))
            op = E.get((text, vocab, "ours_python"))
            if op:
                for k in ("cold", "warm"):
                    note(f"encode ours_python/tiktoken ({vocab}, {k})", f"{text} {fmt_bytes(cinfo[text]['bytes'])}",
                         ratio(op[f"{k}_mbps"], t[f"{k}_mbps"]), f"goal for ours: >= {tgt}")
    if "ours_fast" in M:
        m = M["ours_fast"]
        goal("peak RSS training (MB)", f"{m['corpus']} {fmt_bytes(m['bytes'])}, vocab {vmax}", m["peak_rss_mb"], "<=",
             300, m["corpus"] == "mem10" and abs(m["bytes"] - 10_000_000) < 500_000)
    if "ours_python" in M:
        m = M["ours_python"]
        note("peak RSS training ours_python (MB)", f"{m['corpus']} {fmt_bytes(m['bytes'])}, vocab {vmax}",
             m["peak_rss_mb"], "goal for ours_fast: <= 300")

    # -- report ----------------------------------------------------------------------------------
    total = time.perf_counter() - t_start
    out = []
    p = out.append
    p("=" * 100)
    p(f"Token Lens benchmarks  (python {platform.python_version()}, {os.cpu_count()} cores, peers' threads "
      f"{args.threads}, median of {reps} run(s), each in a fresh subprocess)")
    load_after = os.getloadavg()
    p(f"Load average (1/5/15 min) at start {'/'.join(f'{x:.2f}' for x in load_before)}, at end "
      f"{'/'.join(f'{x:.2f}' for x in load_after)}: anything else running on the machine skews the figures.")
    p("=" * 100)
    p("Corpora (built at run time, no download):")
    for n, i in cinfo.items():
        src = ", ".join(f"{k} {fmt_bytes(v)}" for k, v in i["sources"].items())
        p(f"  {n:7s} {fmt_bytes(i['bytes']):>9s}  sha256 {i['sha256']}  <- {src}")
    p("Setups:")
    for k, v in SETUP.items():
        if k in trainers or k in ("encode", "memory") or (k == "ours_reference" and ref_at):
            p(f"  {k}: {v}")
    versions = {}
    for pkg in ("tokenizers", "sentencepiece", "rustbpe", "tiktoken", "regex"):
        try:
            versions[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            versions[pkg] = None
    p("  versions: " + ", ".join(f"{k} {v}" for k, v in versions.items()))
    lib_after = library_fingerprint()
    native_after = native_fingerprint()
    native_end = run("native")
    native_end.pop("process_seconds", None)
    p(f"  library tokenizers/*.py sha256 {lib_before}" + (
        "" if lib_after == lib_before else f" -> {lib_after}  (WARNING: the library changed during the run)"))
    p(f"  C core tokenizers/bpe/native sources sha256 {native_before}" + (
        "" if native_after == native_before else f" -> {native_after}  (WARNING: changed during the run)")
      + f"; library {'loaded' if native['available'] else 'NOT loaded'}: {native['library']}"
      + ("" if native_end.get("library") == native["library"] and native_end.get("available") == native["available"]
         else f" (at the end: {'loaded' if native_end.get('available') else 'NOT loaded'}: "
              f"{native_end.get('library', native_end.get('error'))}; WARNING: rebuilt during the run)"))

    p("")
    p("Training wall time, seconds (median; range over runs in brackets when > 1 run)")
    cols = [t for t in TRAINERS if t in trainers or (t == "ours_reference" and ref_at)]
    stopped = []
    table = []  # (corpus, vocab, cells)
    for c in train_corpora + ([ref_at[0]] if ref_at and ref_at[0] not in train_corpora and ref_at[0] in cinfo else []):
        for v in sorted(set(vocabs) | ({ref_at[1]} if ref_at and ref_at[0] == c else set())):
            cells = []
            for t in cols:
                r = T.get((c, v, t))
                if not r:
                    cells.append("")
                elif r["median_s"] is None:
                    cells.append("ERROR")
                else:
                    s = f"{r['median_s']:.3f}"
                    if r["vocab_out"] is not None and r["vocab_out"] != v:
                        s = "*" + s
                        stopped.append(f"{t} {c}/{v}: vocab {r['vocab_out']}")
                    if len(r["runs_s"]) > 1:
                        lo, hi = min(r["runs_s"]), max(r["runs_s"])
                        d = 3 if hi < 1 else 2  # milliseconds show (the C core trains in 0.01-0.3 s)
                        s += f" [{lo:.{d}f}-{hi:.{d}f}]"
                    cells.append(s)
            if any(cells):
                table.append((c, v, cells))
    W = max([16] + [len(x) for _, _, cells in table for x in cells])
    head = f"{'corpus':7s} {'size':>9s} {'vocab':>5s} | " + " ".join(f"{c:>{W}s}" for c in cols)
    p(head)
    p("-" * len(head))
    for c, v, cells in table:
        p(f"{c:7s} {fmt_bytes(cinfo[c]['bytes']):>9s} {v:5d} | " + " ".join(f"{x:>{W}s}" for x in cells))
    if stopped:
        p("  * ended with another vocab size than asked (no pair left to merge, or the trainer's own rule): "
          + "; ".join(stopped))
    p("")
    p("Peak RSS of the training process, MB (max over runs)")
    p(head)
    p("-" * len(head))
    for c in train_corpora:
        for v in vocabs:
            cells = [f"{T[(c, v, t)]['peak_rss_mb']:>{W}.0f}" if T.get((c, v, t)) and T[(c, v, t)]["peak_rss_mb"]
                     else f"{'':>{W}s}" for t in cols]
            p(f"{c:7s} {fmt_bytes(cinfo[c]['bytes']):>9s} {v:5d} | " + " ".join(cells))
    peers = [t for t in PEERS if t in trainers]
    for ours in [o for o in OURS if o in trainers]:
        others = peers + (["ours_fast"] if ours == "ours_python" and "ours_fast" in trainers else [])
        if not others:
            continue
        p("")
        p(f"Ratios: {ours} time / other time (lower is better for {ours})"
          + ("  [information: the goals are judged on ours_fast]" if ours == "ours_python" else ""))
        short = ours.split("_")[1]  # fast / python
        head2 = f"{'corpus':7s} {'vocab':>5s} | " + " ".join(f"{short + '/' + t:>22s}" for t in others)
        p(head2)
        p("-" * len(head2))
        for c in train_corpora:
            for v in vocabs:
                o = T.get((c, v, ours), {}).get("median_s")
                cells = []
                for t in others:
                    q = ratio(o, T.get((c, v, t), {}).get("median_s"))
                    cells.append(f"{q:>21.2f}x" if q is not None else f"{'-':>22s}")
                p(f"{c:7s} {v:5d} | " + " ".join(cells))
    for ours, agr in agreements.items():
        p("")
        p(f"Merges, {ours} vs rustbpe (same split): tokens in the same order before the first "
          "difference / tokens in common")
        p("  " + "; ".join(f"{k}: {a['same_prefix']}/{a['tokens']}, {a['same_set']} common"
                           for k, a in agr.items()))

    if enc_rows:
        p("")
        p(f"Encoding throughput, MB/s (median; 'own' = our model trained on {model_corpus} at vocab {vmax})")
        head3 = (f"{'text':6s} {'size':>9s} {'vocab':12s} {'side':11s} {'path':6s} | {'first':>7s} {'cold':>7s}"
                 f" {'warm':>7s} | {'tokens':>9s} {'load s':>7s} {'RSS MB':>7s} ids")
        p(head3)
        p("-" * len(head3))
        for r in enc_rows:
            tt = E.get((r["text"], r["vocab"], "tiktoken"))
            same = "" if r["side"] == "tiktoken" else (
                "== tiktoken" if tt and tt["ids_sha"] == r["ids_sha"] else "DIFFER from tiktoken")

            def f(x):
                return f"{x:7.2f}" if x is not None else f"{'ERR':>7s}"
            path_ = "Rust" if r["side"] == "tiktoken" else {"native": "C", "python": "Python"}.get(r["path"], "?")
            p(f"{r['text']:6s} {fmt_bytes(r['bytes']):>9s} {r['vocab']:12s} {r['side']:11s} {path_:6s} | "
              f"{f(r['first_mbps'])} "
              f"{f(r['cold_mbps'])} {f(r['warm_mbps'])} | {r['tokens'] or 0:9d} {r['load_s'] or 0:7.2f} "
              f"{r['peak_rss_mb'] or 0:7.0f} {same}")
        p("  ratios ours/tiktoken: " + "; ".join(
            f"{t}/{v} first {ratio(E[(t, v, 'ours')]['first_mbps'], E[(t, v, 'tiktoken')]['first_mbps']) or 0:.2f}"
            f" cold {ratio(E[(t, v, 'ours')]['cold_mbps'], E[(t, v, 'tiktoken')]['cold_mbps']) or 0:.2f}"
            f" warm {ratio(E[(t, v, 'ours')]['warm_mbps'], E[(t, v, 'tiktoken')]['warm_mbps']) or 0:.2f}"
            for t in enc_texts for v in ("own", "cl100k_base") if (t, v, "ours") in E and (t, v, "tiktoken") in E))
        py_ratios = [f"{t}/{v} " + " ".join(
            f"{k} {ratio(E[(t, v, 'ours_python')][k + '_mbps'], E[(t, v, 'tiktoken')][k + '_mbps']) or 0:.2f}"
            for k in ("first", "cold", "warm"))
            for t in enc_texts for v in ("own", "cl100k_base")
            if (t, v, "ours_python") in E and (t, v, "tiktoken") in E]
        if py_ratios:
            p("  ratios ours_python/tiktoken: " + "; ".join(py_ratios))
        builds = [f"{r['text']}/{r['vocab']} {1000 * r['encoder_build_s']:.0f} ms" for r in enc_rows
                  if r.get("encoder_build_s")]
        if builds:
            p("  C encoder build (in 'first', outside 'cold'/'warm'): " + ", ".join(builds))

    if mem_rows:
        p("")
        p(f"Training on {mem_corpus} ({fmt_bytes(cinfo[mem_corpus]['bytes'])}) at vocab {vmax}, one run each: "
          f"peak RSS MB (RSS before training) / seconds")
        p("  " + "; ".join(f"{r['impl']} {r['peak_rss_mb']:.0f} ({r['rss_before_mb']:.0f}) / {r['seconds']:.2f} s"
                           if r["peak_rss_mb"] else f"{r['impl']} ERROR" for r in mem_rows))

    p("")
    p("Goals ('?' = not at the goal's own corpus size or vocab, so indicative only)")
    for g in goals:
        m = g["measured"]
        ms = "-" if m is None else (f"{m:.0f}" if "RSS" in g["goal"] else f"{m:.3f}")
        p(f"  {g['verdict']:5s} {g['goal']:40s} {g['where']:28s} measured {ms:>9s}  target {g['op']} {g['target']}")
    if info:
        p("")
        p("Information (not goals: the pure-Python twins, and the C core against them)")
        for g in info:
            m = g["measured"]
            ms = "-" if m is None else (f"{m:.0f}" if "RSS" in g["info"] else f"{m:.3f}")
            p(f"  info  {g['info']:40s} {g['where']:28s} measured {ms:>9s}"
              + (f"  ({g['compare']})" if g["compare"] else ""))
    errors = [(r["corpus"], r["vocab"], r["impl"], e) for r in train_rows for e in r["errors"]]
    errors += [(r["text"], r["vocab"], r["side"], e) for r in enc_rows for e in r["errors"]]
    if errors:
        p("")
        p("Errors:")
        for e in errors:
            p(f"  {e}")
    p("")
    p(f"Total wall time of this run: {total:.0f} s")
    summary = {
        "schema": 1, "total_seconds": round(total, 1), "reps": reps, "threads": args.threads,
        "machine": {"python": platform.python_version(), "cores": os.cpu_count(), "platform": platform.platform(),
                    "loadavg_start": load_before, "loadavg_end": load_after},
        "versions": versions, "library_sha256": lib_before, "library_changed_during_run": lib_after != lib_before,
        "native_sources_sha256": native_before, "native_changed_during_run": native_after != native_before,
        "native": native, "native_end": native_end,
        "corpora": {n: {k: i[k] for k in ("bytes", "sha256", "sources")} for n, i in cinfo.items()},
        "train": train_rows, "merge_agreement_ours_vs_rustbpe": agreement, "encode": enc_rows,
        "encode_model": model_info, "memory": mem_rows, "goals": goals,
        "merge_agreement_vs_rustbpe": agreements, "info": info}
    report = "\n".join(out)
    line = json.dumps(summary, separators=(",", ":"))
    print(report)
    print(line, flush=True)
    (work / "last_report.txt").write_text(report + "\n" + line + "\n")
    (work / time.strftime("report-%Y%m%d-%H%M%S.txt")).write_text(report + "\n" + line + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
