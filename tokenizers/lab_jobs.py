"""The labs' training, as functions that `tokenizers.jobs.run` runs in a child process (so a page can
stop them, and other visitors never wait on them). Each takes plain values and a `progress` keyword,
and returns picklable results."""

from __future__ import annotations

import time
from collections.abc import Callable


SMALL_TEXT_CHARS = 2_000   # a BPE training this small (the classic example: 11 characters, 3 merges) takes
SMALL_MERGES = 500         # well under a second: a small job (tokenizers.jobs: its own lane, never behind long ones)


def bpe_is_small(text: str, vocab_size: int) -> bool:
    """True for a BPE Lab training small enough to run as a small job."""
    return len(text) <= SMALL_TEXT_CHARS and int(vocab_size) - 256 <= SMALL_MERGES


def train_bpe(text: str, vocab_size: int, pattern: str | None, specials: list[str], *, name: str = "lab_bpe",
              ties: str = "smallest", progress: Callable | None = None):
    """The BPE Lab's model: (BPETokenizer, TrainReport). Special tokens get the ids right after the
    learned vocabulary, in the order given; `ties` as BPETokenizer.train takes it. `progress(done,
    total)` as merges are learned."""
    from tokenizers.bpe.model import BPETokenizer

    tok = BPETokenizer(None, name=name)
    report = tok.train(text, int(vocab_size), pattern=pattern, progress=progress, ties=ties)
    if specials:
        base = max(tok.vocab) + 1
        tok.register_special_tokens({s: base + k for k, s in enumerate(dict.fromkeys(specials))})
    tok.title = f"Lab BPE ({tok.vocab_size:,} tokens)"
    return tok, report


def train_algorithms(train_text: str, held_out: str, vocab_size: int, *, progress: Callable | None = None) -> dict:
    """The Algorithms page's five models trained on `train_text`, with their held-out length curves:
    {"models", "errors", "seconds", "curves"}. `progress(fraction, detail)` as it goes."""
    from tokenizers.classic.algorithms import ALGORITHMS, NAMES, curve_sizes, length_curve, train
    from tokenizers.bpe.model import TrainingError

    start = time.perf_counter()
    models, errors, seconds, curves = {}, {}, {}, {}
    phases = 2 * len(NAMES)

    def say(fraction: float, detail: str) -> None:
        if progress is not None:
            progress(min(1.0, fraction), f"{detail} · {time.perf_counter() - start:.1f} s")

    for k, name in enumerate(NAMES):
        title = ALGORITHMS[name].title

        def report(fraction: float, detail: str, k=k, title=title) -> None:
            say((k + fraction) / phases, f"Training {title} · {detail}")

        report(0.0, "starting")
        t0 = time.perf_counter()
        try:
            models[name] = train(name, train_text, int(vocab_size), progress=report)
            seconds[name] = time.perf_counter() - t0
        except TrainingError as e:
            errors[name] = str(e)
    sizes = curve_sizes(int(vocab_size))
    for k, (name, tok) in enumerate(models.items()):
        title = ALGORITHMS[name].title

        def step(done: int, total: int, k=k, title=title) -> None:
            say((len(NAMES) + (k + done / total) * len(NAMES) / len(models)) / phases,
                f"Held-out length of {title} at {done} of {total} vocab sizes")

        curves[name] = length_curve(tok, train_text, held_out, sizes, progress=step)
    return {"models": models, "errors": errors, "seconds": seconds, "curves": curves}
