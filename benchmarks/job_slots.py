"""Fair use of the job runner's slots (issue 24, item 8): how long a tiny job (the BPE Lab's classic
example) waits while two long jobs of two visitors run, and how many slots one visitor's two long jobs
hold at once.

    .venv/bin/python benchmarks/job_slots.py                      # ~1.5 minutes
    .venv/bin/python benchmarks/job_slots.py --root /work/main    # another checkout (e.g. main)
    .venv/bin/python benchmarks/job_slots.py --long 45

The long jobs are tokenizers.jobs._self_test children that run for --long seconds (a slot is a slot,
whatever runs in it: the issue's were two Algorithms trainings of 45 s each). The tiny job is
bpe.model.train_bpe("aaabdaaabac", 259), asked for as the BPE Lab asks (its 60 s time limit, declared
small where the runner knows small jobs). Its wait is from asking to its child running; "total" to its
result. Ends with one JSON line.
"""

from __future__ import annotations

import argparse
import inspect
import json
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--root", type=Path, default=ROOT)
    ap.add_argument("--long", type=float, default=45.0, help="seconds each long job runs (at most 120)")
    args = ap.parse_args()
    args.long = min(args.long, 120.0)
    sys.path.insert(0, str(args.root.resolve()))
    from tokenizers import jobs
    from tokenizers.bpe.model import bpe_is_small, train_bpe

    fair = "owner" in inspect.signature(jobs.run).parameters  # this checkout's runner knows owners and small jobs

    def who(owner, small=False) -> dict:
        if not fair:
            return {}
        return {"owner": owner, "small": small} if small else {"owner": owner}

    def long_job(owner, started: list, stop: threading.Event):
        def report(state):
            if not state.waiting and not started:
                started.append(time.monotonic())
            if stop.is_set():
                raise KeyboardInterrupt
        try:
            jobs.run(jobs._self_test, seconds=args.long, timeout=args.long + 30, report=report, **who(owner))
        except (KeyboardInterrupt, jobs.JobError):
            pass

    def tiny() -> dict:
        t0 = time.monotonic()
        ran = []

        def report(state):
            if not state.waiting and not ran:
                ran.append(time.monotonic())
        small = fair and bpe_is_small("aaabdaaabac", 259)
        timeout = min(60.0, jobs.SMALL_TIMEOUT) if small else 60.0
        try:
            tok, _ = jobs.run(train_bpe, "aaabdaaabac", 259, None, [], timeout=timeout, report=report,
                              **who("visitor c", small))
            outcome = f"trained: {len(tok.history)} merges"
        except jobs.JobError as e:
            outcome = f"{e.reason}: {e}"
        end = time.monotonic()
        return {"wait_s": round((ran[0] if ran else end) - t0, 2), "total_s": round(end - t0, 2), "outcome": outcome}

    out = {"root": str(args.root), "runner_knows_owners": fair, "long_s": args.long}
    # 1. two visitors' long jobs, then the classic example
    stop = threading.Event()
    starts: list[list] = [[], []]
    threads = [threading.Thread(target=long_job, args=(f"visitor {v}", starts[k], stop)) for k, v in enumerate("ab")]
    for t in threads:
        t.start()
    while not all(starts):
        time.sleep(0.05)
    out["tiny_job_with_two_long_jobs_running"] = tiny()
    stop.set()
    for t in threads:
        t.join()
    # 2. one visitor's two long jobs (two tabs): slots held at once, and another visitor's long job's wait
    stop = threading.Event()
    starts = [[], [], []]
    threads = [threading.Thread(target=long_job, args=(o, starts[k], stop))
               for k, o in enumerate(["two tabs", "two tabs"])]
    for t in threads:
        t.start()
    time.sleep(2.0)
    held = sum(1 for s in starts[:2] if s)
    t0 = time.monotonic()
    other = threading.Thread(target=long_job, args=("another visitor", starts[2], stop))
    other.start()
    while not starts[2] and time.monotonic() - t0 < args.long + 60:
        time.sleep(0.05)
    out["one_visitors_two_long_jobs"] = {"slots_held_at_once": held,
                                         "another_visitors_job_waited_s": round(time.monotonic() - t0, 2)}
    stop.set()
    for t in threads + [other]:
        t.join()
    print(json.dumps(out))


if __name__ == "__main__":
    main()
