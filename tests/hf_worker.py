"""Run Hugging Face's own `tokenizers` library (a test-only dependency) for the parity tests. Started
by tests/hf_reference.py as `python -I tests/hf_worker.py` from a directory outside the repository,
so that this project's package `tokenizers` does not shadow Hugging Face's.

One JSON request per line on stdin, one JSON answer per line on stdout:
  {"op": "encode", "path": tokenizer.json, "texts": [...], "as_text": bool} -> {"ids": [[...], ...]}
  {"op": "build", "dir": folder, "specs": {name: spec}} -> {"paths": {name: path}}  (see build())
"""

import json
import sys


def build(folder: str, specs: dict) -> dict:
    """Train small tokenizers, one per spec, with the components named, and save tokenizer.json."""
    from tokenizers import AddedToken, Regex, Tokenizer, models, normalizers, pre_tokenizers, trainers

    corpus = open(f"{folder}/corpus.txt", encoding="utf-8").read().splitlines()
    paths = {}
    for name, spec in specs.items():
        m = spec["model"]
        if m["type"] == "WordPiece":
            model = models.WordPiece(unk_token="[UNK]", max_input_chars_per_word=m.get("max_chars", 100))
            trainer = trainers.WordPieceTrainer(show_progress=False, vocab_size=spec.get("vocab", 600), special_tokens=["[UNK]", "[CLS]", "[SEP]"])
        else:
            kw = {k: m[k] for k in ("unk_token", "byte_fallback", "continuing_subword_prefix", "end_of_word_suffix",
                                     "ignore_merges", "fuse_unk") if k in m}
            model = models.BPE(**kw)
            tk = {}
            if "continuing_subword_prefix" in m:
                tk["continuing_subword_prefix"] = m["continuing_subword_prefix"]
            if "end_of_word_suffix" in m:
                tk["end_of_word_suffix"] = m["end_of_word_suffix"]
            if m.get("byte_level"):
                tk["initial_alphabet"] = pre_tokenizers.ByteLevel.alphabet()
            if spec.get("limit_alphabet"):
                tk["limit_alphabet"] = spec["limit_alphabet"]
            trainer = trainers.BpeTrainer(show_progress=False, vocab_size=spec.get("vocab", 600), special_tokens=spec.get("specials", []),
                                          **tk)
        tok = Tokenizer(model)
        if spec.get("normalizer"):
            tok.normalizer = eval(spec["normalizer"], {"normalizers": normalizers, "Regex": Regex})
        if spec.get("pre_tokenizer"):
            tok.pre_tokenizer = eval(spec["pre_tokenizer"], {"pre_tokenizers": pre_tokenizers, "Regex": Regex})
        tok.train_from_iterator(corpus, trainer)
        if spec.get("added"):
            tok.add_tokens([AddedToken(**a) for a in spec["added"]])
        if spec.get("added_special"):
            tok.add_special_tokens([AddedToken(**a) for a in spec["added_special"]])
        path = f"{folder}/{name}.json"
        tok.save(path)
        paths[name] = path
    return {"paths": paths}


def main() -> None:
    import os

    from tokenizers import Tokenizer

    # answers go to the real stdout; anything the library prints (training progress) to stderr
    answers = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)
    loaded = {}
    for line in sys.stdin:
        req = json.loads(line)
        if req["op"] == "build":
            out = build(req["dir"], req["specs"])
        else:
            tok = loaded.get(req["path"])
            if tok is None:
                tok = loaded[req["path"]] = Tokenizer.from_file(req["path"])
            tok.encode_special_tokens = bool(req.get("as_text"))  # special-token strings as plain text
            out = {"ids": [tok.encode(t, add_special_tokens=False).ids for t in req["texts"]]}
        out["module"] = sys.modules["tokenizers"].__file__
        answers.write(json.dumps(out) + "\n")
        answers.flush()


if __name__ == "__main__":
    main()
