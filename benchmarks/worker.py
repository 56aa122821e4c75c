"""One measurement in a fresh process; run.py starts this as `python -I worker.py TASK ...`.

Prints one JSON line (the last line of stdout) with what it measured. `-I` (isolated mode) keeps
the current directory and the script's directory off sys.path, and run.py starts it in a scratch
directory, so `import tokenizers` finds Hugging Face's package, never this repository's. Only the
tasks that measure this project put the repository on sys.path, and then explicitly.

Tasks:
  train IMPL CORPUS VOCAB [--threads N] [--dump FILE]
        IMPL: ours_fast (the C core: fails when it is not built) | ours_python | ours_reference |
              hf_bytelevel | hf_gpt4split | sentencepiece | rustbpe
  save-model CORPUS VOCAB OUT_PREFIX          train ours (fast) and save a minbpe .model
  encode SIDE VOCAB TEXT [--model FILE]       SIDE: ours | ours_python | tiktoken; VOCAB: own | cl100k_base
  native                                      whether the project's C core loads, and its library
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import os
import resource
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

# tiktoken's cl100k_base split (as in tokenizers/core/patterns.py GPT4_PATTERN); ours and rustbpe use it.
GPT4 = r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
# Oniguruma (Hugging Face's regex engine) reads `{1,3}+` as "({1,3}) repeated", not possessive;
# possessiveness changes nothing there, so it is dropped (the splits are checked identical).
GPT4_ONIG = GPT4.replace(r"\p{N}{1,3}+", r"\p{N}{1,3}")

BLOCK = 65536  # rustbpe and Hugging Face get the text as ~64 KB blocks (see blocks())


def use_repo() -> None:
    if str(REPO) not in sys.path:
        sys.path.insert(0, str(REPO))


NATIVE_HINT = ("build it from the repository root with `.venv/bin/python -m tokenizers.bpe.native.build` "
               "(or `benchmarks/.venv/bin/python -m tokenizers.bpe.native.build`; run.sh does this)")


def native_info() -> dict:
    """Whether the project's C core (tokenizers/bpe/native) loads in this interpreter, and which file."""
    use_repo()
    from tokenizers.bpe import native

    return {"available": native.available(), "disabled": native.disabled(),
            "library": str(native.library_path()), "exists": native.library_path().exists()}


def require_native(what: str) -> None:
    """Fail with a clear message when the C core is not loaded (ours_fast and side `ours` measure it)."""
    info = native_info()
    if not info["available"]:
        if info["disabled"]:
            raise SystemExit(f"{what} measures the C core, which is disabled by TOKEN_LENS_NATIVE="
                             f"{os.environ.get('TOKEN_LENS_NATIVE', '')}: unset it")
        raise SystemExit(f"{what} measures the C core, which is not built for these sources and this regex "
                         f"version ({info['library']} is missing): {NATIVE_HINT}")


def _status_kb(field: str) -> float | None:
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return float(line.split()[1])
    except OSError:
        pass
    return None


def peak_rss_mb() -> float:
    """Peak resident set size of this process, MB. /proc/self/status VmHWM is the high-water mark
    of this process's own address space (new at exec). getrusage's ru_maxrss is not used when VmHWM
    is there: on Linux it carries the parent's RSS across fork+exec, so a small child reports the
    parent's size."""
    kb = _status_kb("VmHWM")
    return (kb if kb is not None else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss) / 1024


def rss_mb() -> float:
    kb = _status_kb("VmRSS")
    return kb / 1024 if kb is not None else peak_rss_mb()


def blocks(text: str, size: int = BLOCK) -> list[str]:
    """~size-character blocks, each cut after a newline that is followed by a letter: there the
    GPT-4 split has a chunk boundary anyway, so the blocks split into exactly the chunks of the
    whole text (and rustbpe learns the same merges as from one string)."""
    out, i, n = [], 0, len(text)
    while i < n:
        j = text.find("\n", i + size)
        while j >= 0 and not (j + 1 < n and text[j + 1].isalpha()):
            j = text.find("\n", j + 1)
        j = n if j < 0 else j + 1
        out.append(text[i:j])
        i = j
    return out


def read(path: str) -> str:
    with open(path, encoding="utf-8", newline="") as f:
        return f.read()


def dump_vocab(path: str | None, token_bytes: list[bytes]) -> None:
    """Token bytes in id order (base64), so run.py can compare merges across trainers."""
    if path:
        Path(path).write_text(json.dumps([base64.b64encode(b).decode() for b in token_bytes]))


# -- training ---------------------------------------------------------------------------------------
def train(impl: str, corpus: str, vocab: int, threads: int, dump: str | None) -> dict:
    text = read(corpus)
    out: dict = {"impl": impl, "vocab": vocab, "text_bytes": len(text.encode("utf-8"))}
    rss_before = rss_mb()
    if impl in ("ours_fast", "ours_python", "ours_reference"):
        use_repo()
        from tokenizers.bpe import native
        from tokenizers.bpe import BPETokenizer

        if impl == "ours_fast":  # trainer="fast" is the C core when it is loaded: make sure it is
            require_native("ours_fast")
        out["native"] = native.available()
        tok = BPETokenizer("gpt4")
        assert tok.pattern == GPT4, "the project's GPT-4 pattern changed; update worker.GPT4"
        t0 = time.perf_counter()
        report = tok.train(text, vocab, trainer=impl.split("_")[1])
        out["seconds"] = time.perf_counter() - t0
        out["vocab_out"] = report.vocab_size
        out["chunks"], out["unique_chunks"] = report.chunks, report.unique_chunks
        dump_vocab(dump, [tok.vocab[i] for i in sorted(tok.vocab)])
    elif impl in ("hf_bytelevel", "hf_gpt4split"):
        import tokenizers as hf

        assert "site-packages" in hf.__file__, f"wrong `tokenizers` imported: {hf.__file__}"
        from tokenizers import Regex, Tokenizer, models, pre_tokenizers, trainers

        parts = blocks(text)
        t0 = time.perf_counter()
        tk = Tokenizer(models.BPE())
        if impl == "hf_bytelevel":
            tk.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
        else:
            tk.pre_tokenizer = pre_tokenizers.Sequence([
                pre_tokenizers.Split(Regex(GPT4_ONIG), behavior="isolated"),
                pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)])
        trainer = trainers.BpeTrainer(vocab_size=vocab, min_frequency=0, show_progress=False,
                                      initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), special_tokens=[])
        tk.train_from_iterator(parts, trainer=trainer)
        out["seconds"] = time.perf_counter() - t0
        out["vocab_out"] = tk.get_vocab_size()
        out["hf_version"] = hf.__version__
    elif impl == "sentencepiece":
        import tempfile

        import sentencepiece as spm

        with tempfile.TemporaryDirectory() as d:
            t0 = time.perf_counter()
            spm.SentencePieceTrainer.train(
                input=corpus, model_prefix=os.path.join(d, "m"), model_type="bpe", vocab_size=vocab,
                byte_fallback=True, character_coverage=0.9995, normalization_rule_name="identity",
                remove_extra_whitespaces=False, split_digits=True, allow_whitespace_only_pieces=True,
                max_sentence_length=1 << 16, input_sentence_size=0, num_threads=threads, minloglevel=2)
            out["seconds"] = time.perf_counter() - t0
            sp = spm.SentencePieceProcessor(model_file=os.path.join(d, "m.model"))
            out["vocab_out"] = sp.get_piece_size()
        out["sp_version"] = spm.__version__
    elif impl == "rustbpe":
        import rustbpe

        parts = blocks(text)
        t0 = time.perf_counter()
        tk = rustbpe.Tokenizer()
        tk.train_from_iterator(parts, vocab_size=vocab, pattern=GPT4)
        out["seconds"] = time.perf_counter() - t0
        out["vocab_out"] = tk.vocab_size
        ranks = sorted(tk.get_mergeable_ranks(), key=lambda kv: kv[1])
        dump_vocab(dump, [bytes(b) for b, _ in ranks])
    else:
        raise SystemExit(f"unknown impl {impl}")
    out["rss_before_mb"] = rss_before
    out["peak_rss_mb"] = peak_rss_mb()
    return out


def save_model(corpus: str, vocab: int, prefix: str) -> dict:
    use_repo()
    from tokenizers.bpe import files as bpe_files
    from tokenizers.bpe import BPETokenizer

    from tokenizers.bpe import native

    tok = BPETokenizer("gpt4", name="bench_bpe")
    t0 = time.perf_counter()
    tok.train(read(corpus), vocab)  # trainer="fast": C when built, else Python (same merges)
    seconds = time.perf_counter() - t0
    model, _ = bpe_files.save(tok, prefix)
    return {"model": str(model), "seconds": seconds, "vocab_out": tok.vocab_size,
            "trainer": "native" if native.available() else "python"}


# -- encoding ---------------------------------------------------------------------------------------
def encode(side: str, vocab: str, text_path: str, model: str | None) -> dict:
    use_repo()  # both sides need the project: the tiktoken side builds its Encoding from our export
    text = read(text_path)
    nbytes = len(text.encode("utf-8"))
    out: dict = {"side": side, "vocab": vocab, "text_bytes": nbytes}
    t0 = time.perf_counter()
    if vocab == "own":
        from tokenizers.bpe import files as bpe_files

        tok = bpe_files.load(model)
        if side == "tiktoken":
            enc = bpe_files.to_tiktoken_encoding(tok)
    else:
        if side in ("ours", "ours_python"):
            from tokenizers.bpe import BPETokenizer

            tok = BPETokenizer.from_tiktoken(vocab)
        else:
            from tokenizers.vocabularies.tiktoken_files import get_encoding

            enc = get_encoding(vocab)
    out["load_seconds"] = time.perf_counter() - t0

    def timed(fn):
        t = time.perf_counter()
        ids = fn(text)
        return time.perf_counter() - t, ids

    if side in ("ours", "ours_python"):
        # side ours: encode_ordinary, which runs in the C core (no chunk cache then): minbpe's merge
        # rule for our own model, tiktoken's rank rule for cl100k_base (its split is the GPT-4
        # pattern the C pre-tokenizer knows). side ours_python: encode_ordinary_python.
        # first: a fresh process (this includes building the C encoder from the merges, or for
        # cl100k recovering merges lazily); cold: after tok._reset_caches() (empty chunk cache;
        # it also drops the C encoder, which is rebuilt outside the timing: set-up, like tiktoken's
        # Encoding in load_seconds); warm: again (with the chunk cache filled; C caches nothing).
        if side == "ours":
            require_native(f"side `ours` ({vocab})")
        fn = tok.encode_ordinary if side == "ours" else tok.encode_ordinary_python
        first, ids = timed(fn)
        native = side == "ours" and tok._native_encoder() is not None
        if side == "ours":
            assert native, f"encode_ordinary did not take the C path ({vocab})"
        tok._reset_caches()
        if native:
            t = time.perf_counter()
            tok._native_encoder()
            out["encoder_build_seconds"] = time.perf_counter() - t
        cold, ids2 = timed(fn)
        warm, ids3 = timed(fn)
        assert ids == ids2 == ids3
        out["path"] = "native" if native else "python"
        out["cache_entries"] = len(tok._chunk_cache)  # 0 on the C path: it does not fill it
    else:
        # tiktoken keeps no cache between calls: three identical passes, reported the same way
        first, ids = timed(enc.encode_ordinary)
        cold, _ = timed(enc.encode_ordinary)
        warm, _ = timed(enc.encode_ordinary)
    out.update(first_seconds=first, cold_seconds=cold, warm_seconds=warm, tokens=len(ids),
               ids_sha=hashlib.sha256(json.dumps(ids).encode()).hexdigest()[:16], peak_rss_mb=peak_rss_mb())
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="task", required=True)
    t = sub.add_parser("train")
    t.add_argument("impl")
    t.add_argument("corpus")
    t.add_argument("vocab", type=int)
    t.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    t.add_argument("--dump")
    sub.add_parser("native")
    s = sub.add_parser("save-model")
    s.add_argument("corpus")
    s.add_argument("vocab", type=int)
    s.add_argument("prefix")
    e = sub.add_parser("encode")
    e.add_argument("side", choices=["ours", "ours_python", "tiktoken"])
    e.add_argument("vocab")
    e.add_argument("text")
    e.add_argument("--model")
    a = ap.parse_args()
    if a.task == "train":
        res = train(a.impl, a.corpus, a.vocab, a.threads, a.dump)
    elif a.task == "native":
        res = native_info()
    elif a.task == "save-model":
        res = save_model(a.corpus, a.vocab, a.prefix)
    else:
        res = encode(a.side, a.vocab, a.text, a.model)
    sys.stdout.flush()
    print(json.dumps(res), flush=True)


if __name__ == "__main__":
    main()
