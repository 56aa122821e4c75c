"""The child process that runs SentencePiece's trainer (started by sentencepiece_train.train).

Run as a script, `python -I sentencepiece_worker.py JOB_DIR`, so that it imports nothing of this
repository. SentencePiece's native CHECK failures abort the process they run in: here that is this
child, never the app. The parent sends stderr (where the trainer logs) to a file it reads while
training runs. JOB_DIR holds job.json ({"options": {...}, "memory_bytes": n}) and corpus.txt; the
model lands in JOB_DIR/model.model (with done.json: the trainer's own time and peak memory), or a
failure in JOB_DIR/error.json.

`python -I sentencepiece_worker.py --check < model` loads a model someone uploaded and encodes a
probe text with it, so that a file crafted to crash the native loader crashes this child instead.
"""

import json
import os
import resource
import sys
import time


def main(job_dir: str) -> int:
    with open(os.path.join(job_dir, "job.json"), encoding="utf-8") as f:
        job = json.load(f)
    cap = job.get("memory_bytes")
    if cap:  # a cap on the address space: an allocation past it fails instead of swapping the machine
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    try:
        import sentencepiece as spm

        start = time.perf_counter()
        spm.SentencePieceTrainer.train(input=os.path.join(job_dir, "corpus.txt"),
                                       model_prefix=os.path.join(job_dir, "model"), **job["options"])
        seconds = time.perf_counter() - start
        peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        with open(os.path.join(job_dir, "done.json"), "w", encoding="utf-8") as f:
            json.dump({"train_seconds": seconds, "peak_rss_kb": peak_kb}, f)
    except BaseException as e:  # every failure is reported to the parent, whatever its type
        with open(os.path.join(job_dir, "error.json"), "w", encoding="utf-8") as f:
            json.dump({"type": type(e).__name__, "message": str(e)}, f)
        return 2
    return 0


PROBE = "Probe: hello world, 안녕하세요 👋🏽 naïve café 1234 <s> \t  x\n"


def check(data: bytes) -> int:
    """Exit 0 when the model loads and encodes; 2 with the loader's message on stderr when not."""
    import sentencepiece as spm

    sp = spm.SentencePieceProcessor()
    try:
        sp.LoadFromSerializedProto(data)
        for i in range(sp.GetPieceSize()):
            sp.IdToPiece(i)
        sp.Decode(sp.EncodeAsIds(PROBE))
        sp.Encode(PROBE, return_type="proto")
    except Exception as e:
        print(f"{type(e).__name__}: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    if sys.argv[1] == "--check":
        sys.exit(check(sys.stdin.buffer.read()))
    sys.exit(main(sys.argv[1]))
