"""The child process that runs SentencePiece's trainer (started by sentencepiece.train.train through
the one runner, tokenizers.jobs.run_program, which sets its memory cap and its own deadline).

Run as a script, `python -I sentencepiece/worker.py JOB_DIR`, so that it imports nothing of this
repository. SentencePiece's native CHECK failures abort the process they run in: here that is this
child, never the app. The runner keeps stderr (where the trainer logs) and hands it to the trainer's
`watch` while training runs. JOB_DIR holds job.json ({"options": {...}}) and corpus.txt; the model
lands in JOB_DIR/model.model (with done.json: the trainer's own time and peak memory), or a failure in
JOB_DIR/error.json. The trainer runs inside JOB_DIR with relative file names, so the model it writes
names "corpus.txt" and "model", not the server's paths.

`python -I sentencepiece/worker.py --check < model` loads a model someone uploaded and encodes a
probe text with it, so that a file crafted to crash the native loader crashes this child instead.
"""

import json
import os
import resource
import sys
import time


def peak_memory_kb() -> int:
    """This process's peak resident memory. VmHWM belongs to the program now running; ru_maxrss would
    also count the parent's memory at the fork, which Linux carries across exec."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def main(job_dir: str) -> int:
    with open(os.path.join(job_dir, "job.json"), encoding="utf-8") as f:
        job = json.load(f)
    try:
        import sentencepiece as spm

        # in the job's folder, with names relative to it: the trainer stores `input` and `model_prefix` in the
        # model (its trainer_spec) and prints them in its log, and neither should tell anyone the server's
        # temporary paths
        os.chdir(job_dir)
        start = time.perf_counter()
        spm.SentencePieceTrainer.train(input="corpus.txt", model_prefix="model", **job["options"])
        seconds = time.perf_counter() - start
        peak_kb = peak_memory_kb()
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
