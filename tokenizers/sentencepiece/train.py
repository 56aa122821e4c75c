"""Train SentencePiece models (BPE, unigram, char, word) from a text, safely.

    >>> from tokenizers.sentencepiece.train import train, LLAMA2_OPTIONS
    >>> tok = train(text, **{**LLAMA2_OPTIONS, "vocab_size": 400})
    >>> tok.encode_pieces("hello 안녕")      # a SentencePieceTokenizer, like every backend

SentencePiece's trainer is native code whose CHECK failures abort the process it runs in, so it runs
in a child process (tokenizers/sentencepiece/worker.py) started by the one runner, tokenizers.jobs:
in one of the server's slots, with a timeout and a cap on its memory. Its
log is read while it runs, for progress (the phase, merges done, EM rounds), and when it fails the
trainer's own words are turned into a message that says what to change (SentencePieceTrainingError).
The options are SentencePiece's own, with its names and meanings; OPTIONS describes the ones the lab
shows, with the library's defaults.
"""

from __future__ import annotations

import difflib
import json
import math
import re
import signal
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from tokenizers import jobs
from tokenizers.bpe.model import TrainingError
from tokenizers.sentencepiece.model import SentencePieceTokenizer
from tokenizers.core.text import clean_text

WORKER = Path(__file__).with_name("worker.py")
DEFAULT_TIMEOUT = 120.0    # seconds
DEFAULT_MEMORY_MB = 2048   # address-space cap of the child (its threads' stacks count too)

# Meta's published trainer settings for Llama 2's tokenizer (they are stored in its tokenizer.model,
# and the same in Mistral 7B's). Change only vocab_size and the text to reproduce the recipe.
# Left out: input/model_prefix (the files) and num_threads (80 on their machine; no effect on a BPE model).
LLAMA2_OPTIONS: dict = {
    "model_type": "bpe",
    "vocab_size": 32000,
    "normalization_rule_name": "identity",
    "remove_extra_whitespaces": False,
    "add_dummy_prefix": True,
    "character_coverage": 0.99995,
    "byte_fallback": True,
    "split_digits": True,
    "split_by_unicode_script": True,
    "split_by_whitespace": True,
    "split_by_number": True,
    "max_sentencepiece_length": 16,
    "allow_whitespace_only_pieces": True,
    "unk_id": 0,
    "bos_id": 1,
    "eos_id": 2,
    "pad_id": -1,
    "max_sentence_length": 4192,
    "input_sentence_size": 200_000_000,
    "seed_sentencepiece_size": 1_000_000,
    "shuffle_input_sentence": True,
}

# The layout of T5's vocabulary (pad 0, eos 1, unk 2, no bos) on a unigram model with the default
# NFKC-based normalization.
T5_OPTIONS: dict = {
    "model_type": "unigram",
    "vocab_size": 32000,
    "normalization_rule_name": "nmt_nfkc",
    "pad_id": 0,
    "eos_id": 1,
    "unk_id": 2,
    "bos_id": -1,
}

PRESETS: dict[str, dict] = {"Llama 2": LLAMA2_OPTIONS, "Library defaults": {}, "T5-style unigram": T5_OPTIONS}
MODEL_TYPES = ("bpe", "unigram", "char", "word")
NORMALIZATIONS = ("identity", "nmt_nfkc", "nfkc", "nmt_nfkc_cf", "nfkc_cf")


@dataclass(frozen=True)
class Option:
    name: str
    default: object   # SentencePiece's own default (a test holds these to the trainer's)
    help: str
    choices: tuple = ()


OPTIONS: dict[str, Option] = {o.name: o for o in [
    Option("model_type", "unigram", "The algorithm: bpe merges frequent pairs; unigram prunes a large set of "
           "candidates by likelihood; char and word are baselines.", MODEL_TYPES),
    Option("vocab_size", 8000, "Pieces in the vocabulary, control and byte pieces included."),
    Option("character_coverage", 0.9995, "Share of the text's characters that get a piece of their own (0.98–1); "
           "the rarest others become <unk>, or bytes with byte_fallback."),
    Option("byte_fallback", False, "Spell a character that has no piece as its UTF-8 bytes (<0xNN> pieces, 256 "
           "of them) instead of <unk>."),
    Option("split_digits", False, "Give every digit its own piece: 2024 is 2 0 2 4."),
    Option("split_by_unicode_script", True, "No piece mixes scripts (Latin, Hangul, Han, …)."),
    Option("split_by_whitespace", True, "No piece crosses a space: ▁ only starts a piece."),
    Option("split_by_number", True, "No piece joins digits with other characters."),
    Option("add_dummy_prefix", True, "Put a ▁ before the text, so its first word is spelled as after a space."),
    Option("remove_extra_whitespaces", True, "Drop spaces at the ends and squeeze runs of spaces into one."),
    Option("normalization_rule_name", "nmt_nfkc", "Unicode normalization first: identity keeps the text; nfkc folds "
           "compatibility forms (ｆｕｌｌ → full); nmt_ also cleans control characters; _cf also lower-cases.",
           NORMALIZATIONS),
    Option("max_sentencepiece_length", 16, "The longest piece, in characters."),
    Option("allow_whitespace_only_pieces", False, "Allow pieces made only of spaces (▁▁▁▁), as code indentation "
           "wants."),
    Option("treat_whitespace_as_suffix", False, "Put ▁ at the end of pieces instead of the start."),
    Option("max_sentence_length", 4192, "Lines longer than this many bytes are skipped in training."),
    Option("shuffle_input_sentence", True, "With input_sentence_size, sample the lines at random instead of "
           "taking the first ones."),
    Option("input_sentence_size", 0, "Train on at most this many lines (0: all)."),
    Option("seed_sentencepiece_size", 1_000_000, "Unigram: how many candidate pieces EM starts from."),
    Option("unk_id", 0, "Id of the unknown piece (required)."),
    Option("bos_id", 1, "Id of the beginning-of-sentence piece (-1: none)."),
    Option("eos_id", 2, "Id of the end-of-sentence piece (-1: none)."),
    Option("pad_id", -1, "Id of the padding piece (-1: none)."),
    Option("unk_piece", "<unk>", "Spelling of the unknown piece."),
    Option("bos_piece", "<s>", "Spelling of the beginning-of-sentence piece."),
    Option("eos_piece", "</s>", "Spelling of the end-of-sentence piece."),
    Option("pad_piece", "<pad>", "Spelling of the padding piece."),
    Option("user_defined_symbols", "", "Strings always kept whole as one piece, even inside text (comma-separated)."),
    Option("control_symbols", "", "Pieces reserved for the model, like <mask>; never produced from text "
           "(comma-separated)."),
]}

# the lowest value each whole-number option takes (an id's -1 is "none"; these cannot be negative)
INT_LOWEST = {"vocab_size": 1, "input_sentence_size": 0, "seed_sentencepiece_size": 1}
INT_HIGHEST = 2_000_000_000
FLOAT_RANGE = (0.0, 2.0)   # character_coverage (and any other fraction) as the Lab's form bounds it

# options a caller cannot pass: train() owns the files
_OWNED = {"input", "model_prefix", "model_writer", "sentence_iterator", "sentence_reader", "input_format"}
_ID_OPTIONS = ("unk", "bos", "eos", "pad")


@dataclass(frozen=True)
class Progress:
    elapsed: float            # seconds since the child was started
    phase: str                # in words, e.g. "Merging pairs"
    detail: str = ""          # e.g. "1,200 of 3,652 merges"
    fraction: float | None = None  # of the current phase, when the log tells
    pid: int = 0              # the child process


@dataclass
class SentencePieceReport:
    options: dict
    model_type: str
    requested_vocab_size: int
    vocab_size: int
    seconds: float                      # wall time, child start-up included
    trainer_seconds: float | None       # SentencePieceTrainer.train alone, timed in the child
    text_chars: int
    text_bytes: int
    sentences: int | None = None        # lines the trainer loaded
    skipped_too_long: int = 0           # lines longer than max_sentence_length, left out
    alphabet_size: int | None = None    # characters with a piece of their own
    character_coverage: float | None = None
    peak_memory_mb: float | None = None
    phases: list[tuple[float, str]] = field(default_factory=list)  # (elapsed, phase) as they began
    log: str = ""

    @property
    def overhead_seconds(self) -> float | None:
        """The child process's cost: start-up, import, writing and reading files."""
        return None if self.trainer_seconds is None else self.seconds - self.trainer_seconds


class SentencePieceTrainingError(TrainingError):
    """Training failed; str() says what happened and what to change. `reason` is one of: option,
    ids, empty, too_long, vocab_too_large, vocab_too_small, range, coverage, timeout, memory, killed,
    crash, busy, other. `limit` carries the number the fix needs (the largest or smallest vocab_size)."""

    def __init__(self, reason: str, message: str, fix: str = "", *, limit: int | None = None, log: str = "",
                 count: int | None = None):
        super().__init__(f"{message} {fix}".strip())
        self.reason, self.message, self.fix, self.limit, self.log, self.count = reason, message, fix, limit, log, count


# -- the trainer's log --------------------------------------------------------------------------------
# absl style "I0000 00:00:17954.80 12995 trainer_interface.cc:149] msg", or the older
# "trainer_interface.cc(407) LOG(INFO) msg": either way, the message is what follows
_LOG_LINE = re.compile(r"^(?:[IWEF]\d{4} \S+(?:\s+\d+)? \S+:\d+\]|\S+\.cc\(\d+\) LOG\(\w+\)) ?(.*)$")
# the absl prefix's third field is the logging thread's id (the child's PID): left out of what is kept
_ABSL_THREAD = re.compile(r"^([IWEF]\d{4} \S+)\s+\d+ (?=\S+:\d+\])", re.M)


def scrub_log(text: str, job_dir: str | Path = "") -> str:
    """The trainer's words without what only the server should know: the child's PID (absl's thread
    column) and the job's temporary folder (shown as "."), so that the log a page shows and a
    training error carry neither."""
    text = _ABSL_THREAD.sub(r"\1 ", text)
    for d in {str(job_dir), str(Path(job_dir).resolve())} if job_dir else ():
        text = text.replace(d + "/", "").replace(d, ".")
    return text


def log_messages(log: str) -> list[str]:
    """The messages of the trainer's log lines (the trainer-spec dump and other continuation lines dropped)."""
    return [m.group(1) for m in map(_LOG_LINE.match, log.splitlines()) if m]


def _int(pattern: str, log: str) -> int | None:
    m = re.findall(pattern, log)
    return int(m[-1]) if m else None


def _float(pattern: str, log: str) -> float | None:
    m = re.findall(pattern, log)
    return float(m[-1]) if m else None


class _LogState:
    """What the log has said so far: the phase and the numbers progress needs."""

    PHASES = [  # (pattern in a message, phase)
        ("Starts training", "Starting the trainer"),
        ("Loading corpus", "Loading the text"),
        ("Normalizing sentences", "Normalizing the text"),
        ("Alphabet size=", "Counting characters"),
        ("seed sentencepieces", "Finding candidate pieces"),
        ("Tokenizing input sentences", "Splitting lines into words"),
        ("Merged: ", "Merging pairs"),
        ("EM sub_iter=", "EM: estimating piece probabilities and pruning"),
        ("Saving model", "Saving the model"),
    ]

    def __init__(self, vocab_size: int):
        self.vocab_size = vocab_size
        self.phase, self.detail, self.fraction = "Starting the training process", "", None
        self.meta = 0
        self.alphabet = 0
        self.seeds = 0

    def feed(self, msg: str) -> bool:
        """Read one message; True when the phase or its detail changed."""
        before = (self.phase, self.detail)
        for needle, phase in self.PHASES:
            if needle in msg and phase != self.phase:
                self.phase, self.detail, self.fraction = phase, "", None
        if msg.startswith("Adding meta_piece"):
            self.meta += 1
        elif m := re.match(r"Loaded all (\d+) sentences|Sampled (\d+) sentences", msg):
            self.detail = f"{int(m.group(1) or m.group(2)):,} lines"
        elif m := re.match(r"Alphabet size=(\d+)", msg):
            self.alphabet = int(m.group(1))
            self.detail = f"{self.alphabet:,} characters"
        elif m := re.match(r"Initialized (\d+) seed", msg):
            self.seeds = int(m.group(1))
            self.detail = f"{self.seeds:,} candidates"
        elif m := re.match(r"Merged: freq=\d+ merges=(\d+)", msg):
            target = max(1, self.vocab_size - self.meta - self.alphabet)
            done = int(m.group(1))
            self.fraction = min(1.0, done / target)
            self.detail = f"{done:,} of about {target:,} merges"
        elif m := re.match(r"EM sub_iter=(\d+) size=(\d+)", msg):
            size = int(m.group(2))
            # pieces shrink from the seeds towards the vocabulary size: progress on a log scale
            if self.seeds > self.vocab_size:
                self.fraction = min(1.0, max(0.0, math.log(self.seeds / size) / math.log(self.seeds / self.vocab_size)))
            self.detail = f"{size:,} pieces"
        return (self.phase, self.detail) != before


# -- failures -----------------------------------------------------------------------------------------
def _as_int(value, default: int) -> int:
    """An option's value as an int, or the default when it is missing or not a number (the trainer
    then says what is wrong with it)."""
    try:
        return int(value) if value is not None else int(default)
    except (TypeError, ValueError):
        return int(default)


def _id_conflicts(options: dict) -> str:
    """Which of unk/bos/eos/pad ids or pieces clash (same id, same piece, or id past vocab_size)."""
    ids = {k: _as_int(options.get(f"{k}_id"), OPTIONS[f"{k}_id"].default) for k in _ID_OPTIONS}
    pieces = {k: str(options.get(f"{k}_piece", OPTIONS[f"{k}_piece"].default)) for k in _ID_OPTIONS}
    vocab = _as_int(options.get("vocab_size"), OPTIONS["vocab_size"].default)
    out = []
    if ids["unk"] < 0:
        out.append(f"unk_id is {ids['unk']}, but the unknown piece must have an id")
    seen: dict[int, str] = {}
    for k, i in ids.items():
        if i < 0:
            continue
        if i in seen:
            out.append(f"{seen[i]}_id and {k}_id are both {i}")
        seen.setdefault(i, k)
        if i >= vocab:
            out.append(f"{k}_id {i} is not below vocab_size {vocab:,}")
    used = [k for k in _ID_OPTIONS if ids[k] >= 0]
    for x, a in enumerate(used):
        for b in used[x + 1:]:
            if pieces[a] == pieces[b]:
                out.append(f"{a}_piece and {b}_piece are both {pieces[a]!r}")
    return "; ".join(out)


def explain_failure(error: str, log: str, options: dict, *, returncode: int | None = None, timed_out: bool = False,
                    timeout: float = DEFAULT_TIMEOUT, memory_mb: int = DEFAULT_MEMORY_MB) -> SentencePieceTrainingError:
    """The trainer's error message and log -> a SentencePieceTrainingError whose message says what
    happened and how to fix it. Pure: tests feed it logs."""
    text = f"{error}\n{log}"
    tail = "\n".join(log.splitlines()[-30:])
    vocab = _as_int(options.get("vocab_size"), OPTIONS["vocab_size"].default)

    def fail(reason, message, fix="", **kw):
        return SentencePieceTrainingError(reason, message, fix, log=tail, **kw)

    if timed_out:
        return fail("timeout", f"Training took longer than {timeout:g} s and was stopped.",
                    "Train on less text, set input_sentence_size to sample fewer lines, or choose a smaller "
                    "vocab_size.")
    # an allocation past the address-space cap: a Python MemoryError, a C++ bad_alloc, a shared library
    # that cannot be mapped, or a thread whose stack cannot be (std::thread then ends in terminate)
    if re.search(r"MemoryError|bad_alloc|Cannot allocate memory|failed to map segment|Resource temporarily "
                 r"unavailable|terminate called without an active exception", text):
        return fail("memory", f"Training needed more memory than its cap ({memory_mb:,} MB of address space, "
                    "thread stacks included) and was stopped.",
                    "Train on less text, set input_sentence_size to sample fewer lines, or raise the cap.")
    if m := re.search(r"unknown field name \"(\w+)\"", text):
        close = difflib.get_close_matches(m.group(1), list(OPTIONS) + sorted(_all_option_names()), n=2)
        return fail("option", f"SentencePiece has no option {m.group(1)!r}.",
                    f"Did you mean {' or '.join(close)}?" if close else "Check the name against the trainer's options.")
    if m := re.search(r"unknown enumeration value of \"([^\"]*)\" as kModelType", text):
        return fail("option", f"model_type {m.group(1)!r} is not a model type.",
                    f"Choose one of {', '.join(MODEL_TYPES)}.")
    if m := re.search(r"cannot parse \"([^\"]*)\" as (\w+)", text):
        return fail("option", f"{m.group(1)!r} is not a valid {m.group(2)} for an option.", "Give a number there.")
    if m := re.search(r"No precompiled charsmap is found: (\S+)", text):
        return fail("option", f"normalization_rule_name {m.group(1)!r} is not a normalization.",
                    f"Choose one of {', '.join(NORMALIZATIONS)}.")
    if m := re.search(r"Vocabulary size too high \((\d+)\)\. Please set it to a value <= (\d+)", text):
        top = int(m.group(2))
        return fail("vocab_too_large", f"vocab_size {int(m.group(1)):,} is more than this text supports: the trainer "
                    f"can make at most {top:,} pieces from it.",
                    f"Set vocab_size to {top:,} or less, or train on more text.", limit=top)
    if m := re.search(r"Vocabulary size is smaller than required_chars\. (\d+) vs (\d+)", text):
        need = int(m.group(2))
        chars = _int(r"Alphabet size=(\d+)", log)
        meta = need - chars if chars is not None else None
        parts = (f" ({chars:,} characters, plus {meta:,} control and byte pieces)" if chars is not None else "")
        fix = f"Set vocab_size to at least {need:,}"
        if meta is not None and meta >= 256:
            fix += ", or turn byte_fallback off (it adds 256 byte pieces)"
        return fail("vocab_too_small", f"vocab_size {int(m.group(1)):,} is too small: the model needs {need:,} "
                    f"pieces before it learns anything{parts}.",
                    fix + ", or lower character_coverage so that rare characters get no piece.", limit=need)
    if re.search(r"(char|word)_model_trainer\.cc.*\(vocab_size\) >= \(0\)", text):
        meta = len(re.findall(r"Adding meta_piece", log))
        return fail("vocab_too_small", f"vocab_size {vocab:,} is too small: the control and byte pieces alone "
                    f"take {meta:,} ids.", f"Set vocab_size above {meta:,}, or turn byte_fallback off.", limit=meta + 1)
    if m := re.search(r"\[trainer_spec\.(\w+)\(\) >= (\S+) && trainer_spec\.\w+\(\) <= ([^\]\s]+)\]", text):
        name, lo, hi = m.groups()
        reason = "coverage" if name == "character_coverage" else "range"
        got = options.get(name, "its value")
        return fail(reason, f"{name} must be between {lo} and {hi}; it is {got}.",
                    f"Set {name} to a value from {lo} to {hi}.")
    if m := re.search(r"\[trainer_spec\.input_sentence_size\(\) <= 0 \|\| "
                      r"trainer_spec\.input_sentence_size\(\) > (\d+)\]", text):
        return fail("range", f"input_sentence_size must be 0 (all lines) or more than {m.group(1)}.",
                    f"Set it to 0 or a number above {m.group(1)}.")
    if m := re.search(r"\[!trainer_spec\.(\w+)\(\)\.empty\(\)\]", text):
        return fail("option", f"{m.group(1)} must not be empty.", f"Give {m.group(1)} a spelling.")
    if "[!sentences_.empty()]" in text:
        skipped = _int(r"Skipped (\d+) too long sentences", log)
        if skipped:
            limit = options.get("max_sentence_length", OPTIONS["max_sentence_length"].default)
            which = "the one line was" if skipped == 1 else f"all {skipped:,} lines were"
            return fail("too_long", f"Every line of the text is longer than max_sentence_length ({limit:,} bytes): "
                        f"{which} skipped, and nothing was left to train on.",
                        "Split the long lines into shorter ones, or raise max_sentence_length.", count=skipped)
        return fail("empty", "The text is empty: there is no line to train on.", "Paste, upload or choose some text.")
    if "[(all_chars_count) > (0)]" in text:
        return fail("empty", "The text holds only whitespace: there are no characters to learn pieces from.",
                    "Paste, upload or choose some text.")
    if re.search(r"insert_id|must be defined|is already defined|must not be defined with", text):
        conflicts = _id_conflicts(options)
        m = re.search(r"(\S+) is already defined|(\S+) must not be defined with", text)
        if m and not conflicts:
            conflicts = f"{m.group(1) or m.group(2)} is defined twice (a user-defined or control symbol repeats " \
                        "a piece that already exists)"
        return fail("ids", f"The special pieces conflict: {conflicts or 'two of them share an id or a spelling'}.",
                    "Give unk, bos, eos and pad different ids below vocab_size (-1 leaves bos, eos or pad out; "
                    "unk must have one) and different spellings, and list each symbol once.")
    if m := re.search(r"^F\d{4} .*?\] (.*)$|Check failed: (.*)$", log, re.M):
        return fail("crash", f"SentencePiece stopped on an internal check: {(m.group(1) or m.group(2)).strip()}.",
                    "Change the option it names (or train on different text); the app itself is unaffected.")
    if returncode is not None and returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = f"signal {-returncode}"
        return fail("killed", f"The training process was stopped by {name} before it finished.",
                    "Nothing else was affected; train again.")
    first = error.strip().splitlines()[0] if error.strip() else (tail.splitlines()[-1] if tail else "no message")
    return fail("other", f"SentencePiece could not train: {first}", "The trainer's log below says more.")


def _all_option_names() -> set[str]:
    try:
        from sentencepiece import sentencepiece_model_pb2 as pb
    except ImportError:
        return set()
    return {f.name for f in pb.TrainerSpec.DESCRIPTOR.fields} | {f.name for f in pb.NormalizerSpec.DESCRIPTOR.fields}


# -- the text ----------------------------------------------------------------------------------------
def split_long_lines(text: str, max_bytes: int) -> tuple[str, int]:
    """Cut lines longer than `max_bytes` UTF-8 bytes (SentencePiece skips them in training) into
    lines that fit: after the last space before the limit where there is one, else at a character
    boundary. Returns (the new text, how many lines were cut)."""
    if max_bytes < 1:
        raise ValueError("max_bytes must be at least 1")
    out, cut = [], 0
    for line in text.split("\n"):
        if len(line.encode("utf-8")) <= max_bytes:
            out.append(line)
            continue
        cut += 1
        while len(line.encode("utf-8")) > max_bytes:
            # the longest prefix that fits, by characters (4 bytes at most each)
            n = len(line.encode("utf-8")[:max_bytes].decode("utf-8", errors="ignore"))
            space = line.rfind(" ", 1, n + 1)  # a space right after the prefix is a fine place too
            k = space if space > 0 else max(1, n)
            out.append(line[:k])
            line = line[k:].lstrip(" ") if space > 0 else line[k:]
        out.append(line)
    return "\n".join(out), cut


# -- training ----------------------------------------------------------------------------------------
def train(text: str, *, timeout: float = DEFAULT_TIMEOUT, memory_mb: int = DEFAULT_MEMORY_MB,
          progress: Callable[[Progress], None] | None = None, name: str = "sp_lab", title: str | None = None,
          owner=None, **options) -> SentencePieceTokenizer:
    """Train a SentencePiece model on `text` (each line is a sentence) with SentencePiece's own
    options (model_type="bpe", vocab_size=4000, byte_fallback=True, ...: see OPTIONS, LLAMA2_OPTIONS)
    and return it as a SentencePieceTokenizer, with `.report` (a SentencePieceReport).

    The trainer runs in a child process started by the one runner (tokenizers.jobs.run_program, in
    one of the server's slots: the others wait, up to `timeout`), stopped after `timeout` seconds and
    capped at `memory_mb` of address space. `progress(Progress)` is called as the trainer's log moves
    on (and every jobs.POLL seconds, for the clock); whatever it raises stops the child. Any failure
    raises SentencePieceTrainingError, whose message says what to change. `owner`: the visitor asking
    (tokenizers.jobs: one slot at a time per owner)."""
    owned = sorted(_OWNED & set(options))
    if owned:
        raise SentencePieceTrainingError("option", f"train() writes the text and the model files itself; "
                                         f"do not pass {', '.join(owned)}.", "Pass the text as the first argument.")
    text, _ = clean_text(text)
    options = dict(options)
    vocab_size = _as_int(options.get("vocab_size"), OPTIONS["vocab_size"].default)
    with tempfile.TemporaryDirectory(prefix="token-lens-spm-") as job:
        job_dir = Path(job)
        with open(job_dir / "corpus.txt", "w", encoding="utf-8", newline="") as f:
            f.write(text)
        (job_dir / "job.json").write_text(json.dumps({"options": options}), encoding="utf-8")
        state, phases = _LogState(vocab_size), []
        pending = b""

        def watch(out: bytes, err: bytes, running: float) -> None:  # the trainer's log, as it grows
            nonlocal pending
            *lines, pending = (pending + err).split(b"\n")
            for line in lines:
                m = _LOG_LINE.match(line.decode("utf-8", errors="replace"))
                if m and state.feed(m.group(1)) and (not phases or phases[-1][1] != state.phase):
                    phases.append((running, state.phase))

        def report(s: jobs.JobState) -> None:
            if s.waiting:
                progress(Progress(s.elapsed, "Waiting for your other training to finish" if s.own_queue
                                  else "Waiting for another training to finish",
                                  "one at a time per visitor" if s.own_queue else f"{jobs.MAX_CONCURRENT} at a time"))
            else:
                progress(Progress(s.running, state.phase, state.detail, state.fraction, s.pid))

        try:
            done = jobs.run_program([sys.executable, "-I", str(WORKER), str(job_dir)], timeout=timeout,
                                    memory_mb=memory_mb, report=report if progress is not None else None, watch=watch,
                                    owner=owner)
        except jobs.JobError as e:
            if e.reason == "busy":
                raise SentencePieceTrainingError("busy", str(e), "Try again in a moment.") from None
            if e.reason == "timeout":
                raise explain_failure("", "", options, timed_out=True, timeout=timeout, memory_mb=memory_mb) from None
            raise
        log = scrub_log(done.stderr.decode("utf-8", errors="replace"), job_dir)
        error = ""
        if (job_dir / "error.json").exists():
            error = scrub_log(json.loads((job_dir / "error.json").read_text(encoding="utf-8")).get("message", ""),
                              job_dir)
        model = job_dir / "model.model"
        if done.returncode != 0 or not model.exists():
            raise explain_failure(error, log, options, returncode=done.returncode, timeout=timeout,
                                  memory_mb=memory_mb)
        data = model.read_bytes()
        finished = json.loads((job_dir / "done.json").read_text(encoding="utf-8"))
    tok = SentencePieceTokenizer(model_proto=data, name=name, title=title or name)
    tok.report = SentencePieceReport(
        options=options, model_type=tok.model_type, requested_vocab_size=vocab_size, vocab_size=tok.vocab_size,
        seconds=done.seconds, trainer_seconds=finished.get("train_seconds"), text_chars=len(text),
        text_bytes=len(text.encode("utf-8")), sentences=_int(r"Loaded all (\d+) sentences", log)
        or _int(r"Sampled (\d+) sentences", log), skipped_too_long=_int(r"Skipped (\d+) too long sentences", log) or 0,
        alphabet_size=_int(r"Alphabet size=(\d+)", log),
        character_coverage=_float(r"Final character coverage=([\d.e+-]+)", log),
        peak_memory_mb=finished["peak_rss_kb"] / 1024 if finished.get("peak_rss_kb") else None, phases=phases, log=log)
    return tok


def load_model(data: bytes, *, name: str = "sp_upload", title: str | None = None,
               timeout: float = 20.0) -> SentencePieceTokenizer:
    """A .model file someone uploaded -> SentencePieceTokenizer, or ModelFormatError saying why not.
    The bytes are first loaded (and a probe text encoded) in a child process (through the one runner,
    tokenizers.jobs), so that a file crafted to crash SentencePiece's native loader ends the child,
    not the app."""
    from tokenizers.sentencepiece.model import ModelFormatError

    if not data:
        raise ModelFormatError("The file is empty. A SentencePiece model is the binary .model file written by "
                               "spm_train or SentencePieceTrainer.train.")
    try:
        done = jobs.run_program([sys.executable, "-I", str(WORKER), "--check"], input=bytes(data), timeout=timeout)
    except jobs.JobError as e:
        if e.reason == "timeout":
            raise ModelFormatError(f"Loading the file took longer than {timeout:g} s; it is not a usable "
                                   "model.") from None
        raise ModelFormatError(f"The file could not be checked now: {e}") from None
    if done.returncode != 0:
        said = done.stderr.decode("utf-8", errors="replace").strip().splitlines()
        why = said[-1] if said and done.returncode > 0 else f"the loader crashed (exit status {done.returncode})"
        if "ParseFromArray" in why:
            why = "its bytes do not parse as SentencePiece's model format"
        why = re.sub(r"^\w+: \w+: src/\S+ ", "", why)  # "RuntimeError: INTERNAL: src/x.cc(12) " -> the words
        raise ModelFormatError(f"This is not a SentencePiece model ({why}). A SentencePiece model is the binary "
                               ".model file written by spm_train or SentencePieceTrainer.train.")
    return SentencePieceTokenizer(model_proto=data, name=name, title=title or name)
