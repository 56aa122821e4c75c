"""`python -m tokenizers.report`: the CLI on the parallel texts, its figures equal to corpus_metrics on
the same texts (exactly, Rényi efficiency too) however the corpus is cut into batches and wherever the
batches run (this process, worker processes, a Dask LocalCluster); .jsonl, folders, whole files,
grouping by language; and hostile files: each skipped whole with a message naming it, nothing else lost."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from pandas.testing import assert_frame_equal

from conftest import ROOT
from tokenizers.analysis.metrics import COLUMNS, corpus_metrics, metrics_frame
from tokenizers.analysis.parallel import LANGUAGES
from tokenizers.report import (EXIT_FAILED, EXIT_OK, EXIT_SKIPPED, EXIT_USAGE, SkipFile, UsageError, documents,
                               find_files, main, run)

TOKS = ["gpt2", "cl100k_base", "mistral_sp"]  # a byte-level BPE, another, and SentencePiece with byte fallback
SOME = ["eng", "fra", "kor", "hin", "ara", "zho"]


def write_parallel(folder: Path, codes=tuple(LANGUAGES)) -> dict[str, list[str]]:
    """One file per language, one sentence per line (with a blank line, which is no document)."""
    folder.mkdir(parents=True, exist_ok=True)
    for code in codes:
        lines = list(LANGUAGES[code].sentences)
        (folder / f"{code}.txt").write_text("\n".join(lines[:2] + [""] + lines[2:]) + "\n", encoding="utf-8")
    return {code: list(LANGUAGES[code].sentences) for code in codes}


def cli(*args: str, cwd=ROOT) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    res = subprocess.run([sys.executable, "-m", "tokenizers.report", *args], cwd=cwd, capture_output=True, env=env,
                         timeout=600)
    res.stdout, res.stderr = res.stdout.decode(), res.stderr.decode()  # as written: \r stays \r
    return res


def read_csv(text_or_path) -> pd.DataFrame:
    src = io.StringIO(text_or_path) if isinstance(text_or_path, str) else text_or_path
    return pd.read_csv(src, keep_default_na=False, na_values=[""], dtype={"group": str})


def rows(df: pd.DataFrame, scope: str, group: str = "") -> pd.DataFrame:
    part = df[(df["scope"] == scope) & (df["group"].fillna("") == group)].set_index("tokenizer")
    part.index = pd.Index(list(part.index), name="tokenizer", dtype="object")
    return part


def same(part: pd.DataFrame, expected: pd.DataFrame) -> None:
    """The metrics columns of a report block equal to corpus_metrics, exactly."""
    assert_frame_equal(part[list(COLUMNS)], expected[list(COLUMNS)], check_exact=True)


# -- the command on the parallel texts ------------------------------------------------------------------

def test_cli_on_the_parallel_texts_equals_corpus_metrics(tmp_path):
    texts = write_parallel(tmp_path / "corpus")
    out = tmp_path / "report.csv"
    res = cli(str(tmp_path / "corpus"), "--tokenizers", ",".join(TOKS), "--group", "language", "--reference", "eng",
              "--out", str(out), "--workers", "2")
    assert res.returncode == EXIT_OK, res.stderr
    assert f"wrote {out}: 26 file(s), 130 documents" in res.stderr
    df = read_csv(out)
    assert list(df.columns) == ["scope", "group", "tokenizer", "documents", *COLUMNS, "premium"]
    assert sorted(set(df[df["scope"] == "language"]["group"])) == sorted(LANGUAGES)
    eng = corpus_metrics(texts["eng"], TOKS)
    for code in SOME:
        expected = corpus_metrics(texts[code], TOKS)
        part = rows(df, "language", code)
        same(part, expected)
        assert list(part["documents"]) == [5, 5, 5]
        assert list(part["premium"]) == [expected.loc[t, "tokens"] / eng.loc[t, "tokens"] for t in TOKS]
    # the files are read in sorted order: the overall rows are one pass over them in that order
    everything = [s for code in sorted(texts) for s in texts[code]]
    same(rows(df, "overall"), corpus_metrics(everything, TOKS))
    assert rows(df, "overall")["premium"].isna().all()


def test_cli_writes_csv_to_stdout_and_per_file_by_default(tmp_path):
    texts = write_parallel(tmp_path / "c", ["eng", "kor"])
    res = cli(str(tmp_path / "c" / "kor.txt"), str(tmp_path / "c" / "eng.txt"), "--tokenizers", "gpt2",
              "--workers", "1")
    assert res.returncode == EXIT_OK, res.stderr
    df = read_csv(res.stdout)
    assert list(df["scope"]) == ["file", "file", "overall"]
    assert list(df["group"].fillna("")) == [str(tmp_path / "c" / "kor.txt"), str(tmp_path / "c" / "eng.txt"), ""]
    same(rows(df, "file", str(tmp_path / "c" / "kor.txt")), corpus_metrics(texts["kor"], ["gpt2"]))
    same(rows(df, "overall"), corpus_metrics(texts["kor"] + texts["eng"], ["gpt2"]))


def test_progress_bar_on_stderr(tmp_path):
    write_parallel(tmp_path / "c", ["eng", "fra"])
    res = cli(str(tmp_path / "c"), "--tokenizers", "gpt2", "--workers", "1", "--progress", "--batch-mb", "0.0001")
    assert res.returncode == EXIT_OK, res.stderr
    kb = sum(p.stat().st_size for p in (tmp_path / "c").iterdir()) / 1e3
    assert "\r[" in res.stderr and f"] {kb:.1f}/{kb:.1f} KB 100% " in res.stderr and " MB/s" in res.stderr
    quiet = cli(str(tmp_path / "c"), "--tokenizers", "gpt2", "--workers", "1")
    assert "\r" not in quiet.stderr  # not a terminal: no bar unless asked


# -- equal to corpus_metrics however the work is cut and wherever it runs ------------------------------

@pytest.mark.parametrize("workers, batch_bytes", [(1, 1), (1, 300), (2, 250), (2, 10**9)])
def test_equal_to_corpus_metrics_across_batches_and_workers(tmp_path, workers, batch_bytes):
    texts = write_parallel(tmp_path, SOME)
    report = run([tmp_path], TOKS, group_by="language", workers=workers, batch_bytes=batch_bytes)
    everything = [s for code in sorted(texts) for s in texts[code]]
    assert_frame_equal(metrics_frame(report.overall), corpus_metrics(everything, TOKS), check_exact=True)
    for code in SOME:
        assert_frame_equal(metrics_frame(report.groups[code]), corpus_metrics(texts[code], TOKS), check_exact=True)
    assert report.documents == 5 * len(SOME) and not report.skipped
    assert report.bytes_read == sum(p.stat().st_size for p in tmp_path.iterdir())


def test_dask_local_cluster_equals_the_single_process_result(tmp_path):
    pytest.importorskip("distributed")
    texts = write_parallel(tmp_path, SOME)
    (tmp_path / "bad.txt").write_bytes("caf\xe9\n".encode("latin-1"))
    one = run([tmp_path], TOKS, group_by="language", workers=1, batch_bytes=200)
    dask = run([tmp_path], TOKS, group_by="language", workers=2, dask="local", batch_bytes=200)
    assert_frame_equal(dask.frame(), one.frame(), check_exact=True)
    everything = [s for code in sorted(texts) for s in texts[code]]
    assert_frame_equal(metrics_frame(dask.overall), corpus_metrics(everything, TOKS), check_exact=True)
    assert dask.skipped == one.skipped and len(one.skipped) == 1


@pytest.mark.slow  # a second cluster: ~3 s on an idle machine, many more under load
def test_dask_scheduler_by_address(tmp_path):
    distributed = pytest.importorskip("distributed")
    texts = write_parallel(tmp_path, ["eng", "hin"])
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, dashboard_address=None) as cluster:
        assert cluster.scheduler_address.startswith("tcp://127.0.0.1:")
        report = run([tmp_path], ["o200k_base"], dask=cluster.scheduler_address, batch_bytes=100)
    assert_frame_equal(metrics_frame(report.overall), corpus_metrics(texts["eng"] + texts["hin"], ["o200k_base"]),
                       check_exact=True)


def test_dask_missing_is_a_usage_error(tmp_path, monkeypatch):
    write_parallel(tmp_path, ["eng"])
    monkeypatch.setitem(sys.modules, "distributed", None)  # as if not installed
    with pytest.raises(UsageError, match=r"--dask needs Dask's distributed scheduler, which the app does not install: "
                                         r"pip install 'dask\[distributed\]==2026.8.0'"):
        run([tmp_path], ["gpt2"], dask="local")


# -- how documents are read -------------------------------------------------------------------------------

def test_jsonl_field_and_folders(tmp_path):
    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "a" / ".hidden").mkdir()
    records = [{"text": "The sun rises.", "id": 1}, {"text": "해는 아침에 뜹니다.", "id": 2}, {"text": "", "id": 3},
               {"text": "a lone \ud83d surrogate and <|endoftext|>", "id": 4}]
    (tmp_path / "a" / "b" / "kor.jsonl").write_text(
        "\n".join(json.dumps(r) for r in records) + "\n\n", encoding="utf-8")
    (tmp_path / "a" / "eng.txt").write_text("one line\r\nand another\r\n", encoding="utf-8")
    (tmp_path / "a" / ".hidden" / "x.txt").write_text("never read\n", encoding="utf-8")
    (tmp_path / "a" / ".notes.txt").write_text("never read\n", encoding="utf-8")
    os.mkfifo(tmp_path / "a" / "pipe")  # not a regular file: reading it would block
    # a folder's own files, then its subfolders', each name once
    assert find_files([tmp_path / "a", tmp_path / "a" / "eng.txt"]) == [tmp_path / "a" / "eng.txt",
                                                                          tmp_path / "a" / "b" / "kor.jsonl"]
    report = run([tmp_path / "a"], ["gpt2"], group_by="language", workers=1)
    assert list(report.groups) == ["eng", "kor"]
    kor = ["The sun rises.", "해는 아침에 뜹니다.", "a lone \ud83d surrogate and <|endoftext|>"]  # the last as text
    assert_frame_equal(metrics_frame(report.groups["kor"]), corpus_metrics(kor, ["gpt2"]), check_exact=True)
    assert_frame_equal(metrics_frame(report.groups["eng"]), corpus_metrics(["one line", "and another"], ["gpt2"]),
                       check_exact=True)
    other = tmp_path / "body.jsonl"
    other.write_text(json.dumps({"body": "x y"}) + "\n", encoding="utf-8")
    assert [t for t, _ in documents(other, text_field="body")] == ["x y"]
    with pytest.raises(SkipFile, match=r"body.jsonl: line 1 has no field 'text' \(choose it with --field\)"):
        list(documents(other))


def test_unit_file_keeps_each_file_whole(tmp_path):
    (tmp_path / "a.md").write_text("\ufeff# Title\n\nA paragraph\nover two lines.\n", encoding="utf-8")
    (tmp_path / "b.md").write_text("  \n", encoding="utf-8")
    report = run([tmp_path], ["gpt2", "cl100k_base"], unit="file", workers=1)
    assert_frame_equal(metrics_frame(report.overall),
                       corpus_metrics(["# Title\n\nA paragraph\nover two lines.\n"], ["gpt2", "cl100k_base"]),
                       check_exact=True)
    assert report.notes == [f"{tmp_path / 'b.md'}: no documents (the file is empty or blank)"]
    frame = report.frame()
    assert list(frame["scope"]) == ["file", "file", "overall", "overall"]  # the blank file has no rows
    assert list(frame["group"]) == [str(tmp_path / "a.md")] * 2 + ["", ""]
    assert list(frame["documents"]) == [1, 1, 1, 1]
    alone = run([tmp_path], ["gpt2", "cl100k_base"], unit="file", group_by="none", workers=1).frame()
    assert_frame_equal(alone, frame[frame["scope"] == "overall"].reset_index(drop=True), check_exact=True)


# -- hostile input --------------------------------------------------------------------------------------

def hostile_corpus(folder: Path) -> dict[str, list[str]]:
    texts = write_parallel(folder, ["eng", "kor"])
    (folder / "binary.dat").write_bytes(bytes(range(256)) * 64)
    (folder / "latin1.txt").write_bytes(b"\xef\xbb\xbf" + "bonjour\nle café est chaud\n".encode("latin-1"))
    (folder / "empty.txt").write_bytes(b"")
    # valid for its first 300 KB (many batches have gone out by then), then a byte that is not UTF-8
    (folder / "late.txt").write_bytes(b"fine text here\n" * 20_000 + b"caf\xe9\n")
    return texts


def test_hostile_files_are_skipped_whole_and_named(tmp_path):
    texts = hostile_corpus(tmp_path / "c")
    out = tmp_path / "r.csv"
    res = cli(str(tmp_path / "c"), "--tokenizers", "gpt2,mistral_sp", "--out", str(out), "--workers", "2",
              "--batch-mb", "0.01")
    assert res.returncode == EXIT_SKIPPED, res.stderr
    err = res.stderr
    assert f"warning: {tmp_path / 'c' / 'binary.dat'} looks like a binary file" in err
    assert (f"warning: {tmp_path / 'c' / 'latin1.txt'} is not UTF-8: byte 0xe9 at line 2, byte offset 17 does not "
            "decode (convert it first, e.g. `iconv -f latin1 -t utf-8`); skipped, nothing of it is counted") in err
    assert f"warning: {tmp_path / 'c' / 'late.txt'} is not UTF-8: byte 0xe9 at line 20,001, byte offset 300,003" in err
    assert f"note: {tmp_path / 'c' / 'empty.txt'}: no documents" in err
    assert f"wrote {out}: 6 file(s), 10 documents," in err and "; 3 file(s) skipped" in err
    df = read_csv(out)
    assert sorted(set(df[df["scope"] == "file"]["group"])) == [str(tmp_path / "c" / "eng.txt"),
                                                               str(tmp_path / "c" / "kor.txt")]
    same(rows(df, "overall"), corpus_metrics(texts["eng"] + texts["kor"], ["gpt2", "mistral_sp"]))


def test_a_5_mb_line_is_one_document(tmp_path):
    line = ("The sun rises in the morning. 해는 아침에 뜹니다. " * 120_000)[:5_000_000]
    (tmp_path / "big.txt").write_text("short line\n" + line + "\n", encoding="utf-8")
    report = run([tmp_path], ["cl100k_base"], workers=1, batch_bytes=1_000_000)
    assert report.documents == 2
    assert_frame_equal(metrics_frame(report.overall), corpus_metrics(["short line", line], ["cl100k_base"]),
                       check_exact=True)
    # over the bound on one document, the file is skipped, saying so
    small = run([tmp_path], ["gpt2"], workers=1, max_document_bytes=1_000_000)
    assert small.documents == 0
    assert small.skipped == [f"{tmp_path / 'big.txt'}: line 2 is over 1 MB, the bound on one document; skipped, "
                             "nothing of it is counted"]


def test_empty_corpus_and_bad_arguments(tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "a.txt").write_text("\n\n", encoding="utf-8")
    res = cli(str(tmp_path / "empty"), "--tokenizers", "gpt2", "--out", str(tmp_path / "r.csv"))
    assert res.returncode == EXIT_FAILED
    assert "error: no documents in 1 file(s); nothing written" in res.stderr
    assert not (tmp_path / "r.csv").exists()

    def main_says(*args: str) -> tuple[int, str]:  # the command in this process: quicker than a subprocess
        code = main(list(args))
        return code, capsys.readouterr().err

    assert main_says(str(tmp_path / "empty"), "--tokenizers", "gpt2") == (
        EXIT_FAILED, f"note: {tmp_path / 'empty' / 'a.txt'}: no documents (the file is empty or blank)\n"
                     "error: no documents in 1 file(s); nothing written\n")
    (tmp_path / "nothing" / "sub").mkdir(parents=True)
    assert main_says(str(tmp_path / "nothing"), "--tokenizers", "gpt2") == (  # a folder holding only an empty folder
        EXIT_FAILED, "error: no documents in 0 file(s); nothing written\n")
    assert main_says(str(tmp_path / "nowhere"), "--tokenizers", "gpt2") == (
        EXIT_USAGE, f"error: {tmp_path / 'nowhere'}: no such file or folder.\n")
    code, err = main_says(str(tmp_path / "empty"), "--tokenizers", "gpt2,nope")
    assert code == EXIT_USAGE and err.startswith("error: 'nope' is neither a tokenizer name (custom_bpe, gpt2, ")
    code, err = main_says(str(tmp_path / "empty"), "--tokenizers", "gpt2", "--reference", "eng", "--group", "language")
    assert code == EXIT_USAGE and "reference language 'eng' is not among the files' languages (a)" in err
    assert main_says(str(tmp_path / "empty"), "--tokenizers", "gpt2", "--workers", "0")[0] == EXIT_USAGE
    with pytest.raises(SystemExit) as exit_:
        main([str(tmp_path / "empty"), "--tokenizers", "gpt2", "--unit", "page"])
    assert exit_.value.code == EXIT_USAGE
    with pytest.raises(UsageError, match="needs --group language"):
        run([tmp_path], ["gpt2"], reference="eng")


def test_a_tokenizer_file_by_path(tmp_path):
    from tokenizers import get_tokenizer, load_user_file

    gpt2 = get_tokenizer("gpt2")
    ranks = b"".join(__import__("base64").b64encode(gpt2.decode_single_token_bytes(i)) + b" %d\n" % i
                     for i in range(gpt2.n_vocab) if i != gpt2.eot_token)
    (tmp_path / "mine.tiktoken").write_bytes(ranks)
    texts = write_parallel(tmp_path / "c", ["eng"])
    report = run([tmp_path / "c"], ["gpt2", str(tmp_path / "mine.tiktoken")], workers=2, batch_bytes=100,
                 pattern="GPT-2 (r50k_base)")
    # GPT-2's ranks with GPT-2's split: the same tokens as gpt2
    mine = load_user_file("mine.tiktoken", (tmp_path / "mine.tiktoken").read_bytes(), pattern=gpt2.pattern)
    expected = corpus_metrics(texts["eng"], ["gpt2", mine])
    assert_frame_equal(metrics_frame(report.overall), expected, check_exact=True)
    assert expected.loc["mine.tiktoken", "tokens"] == expected.loc["gpt2", "tokens"]
    # without --pattern, the upload form's default split (GPT-4's), as on the Compare page
    default = run([tmp_path / "c"], [str(tmp_path / "mine.tiktoken")], workers=1)
    gpt4_split = load_user_file("mine.tiktoken", (tmp_path / "mine.tiktoken").read_bytes(),
                                pattern=get_tokenizer("cl100k_base").pattern)
    assert_frame_equal(metrics_frame(default.overall), corpus_metrics(texts["eng"], [gpt4_split]), check_exact=True)


@pytest.mark.parametrize("data", [bytes(range(256)) * 8, b"text\x00" * 100, "caf\xe9 au lait\n".encode("latin-1"),
                                  "plain text\twith tabs\r\n and \x1b[1m escape\n".encode(), b"a\x01b\x02c" + b"x" * 50,
                                  "안녕하세요 👋\n".encode() * 50])
def test_one_binary_rule_for_uploads_and_the_report(data):
    """The report and the upload reader give one verdict, in the same words, on the same bytes: both
    apply tokenizers.core.text.binary_reason (the upload reader adds what to do)."""
    from service.uploads import UploadError, decode_upload
    from tokenizers.core.text import binary_reason

    reason = binary_reason("f.bin", data[:65536])
    try:
        decode_upload("f.bin", data)
    except UploadError as e:
        assert reason is not None and str(e).startswith(reason + ". Upload a text file")
    else:
        assert reason is None


def test_renyi_efficiency_does_not_depend_on_the_order_of_the_counter():
    """Counts summed from batches list their ids in another order than one pass; the efficiency must
    be the same to the last bit (it was not while the probabilities were summed in Counter order)."""
    import random
    from collections import Counter

    from tokenizers.analysis.metrics import renyi_efficiency

    rng = random.Random(1)
    # a few frequent ids and many rare ones
    pairs = [(i, rng.randint(1, 10)) for i in range(5000)] + [(5000 + i, 10**6) for i in range(3)]
    values = set()
    for _ in range(20):
        rng.shuffle(pairs)
        values.add(renyi_efficiency(Counter(dict(pairs)), 100_000))
    assert len(values) == 1


def test_where_a_file_stops_being_utf8(tmp_path):
    """The offset counts the file's bytes, a byte order mark included."""
    f = tmp_path / "a.txt"
    f.write_bytes(b"\xef\xbb\xbfcaf\xe9\n")
    with pytest.raises(SkipFile, match=r"a.txt is not UTF-8: byte 0xe9 at line 1, byte offset 6 does not decode"):
        list(documents(f))
    with pytest.raises(SkipFile, match=r"a.txt is not UTF-8: byte 0xe9 at byte offset 6 does not decode"):
        list(documents(f, unit="file"))
    f.write_bytes(b"\xef\xbb\xbfcaf\xc3\xa9\r\n\r\n  \nthe end")
    assert list(documents(f)) == [("café", 10), (None, 2), (None, 3), ("the end", 7)]
    assert list(documents(f, unit="file")) == [("café\r\n\r\n  \nthe end", 22)]


def test_a_file_that_cannot_be_opened_is_skipped(tmp_path, monkeypatch):
    texts = write_parallel(tmp_path, ["eng", "fra"])
    real_open = open

    def failing_open(path, *args, **kwargs):
        if str(path).endswith("fra.txt"):
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr("builtins.open", failing_open)
    report = run([tmp_path], ["gpt2"], workers=1)
    assert report.skipped == [f"{tmp_path / 'fra.txt'}: cannot be read: Permission denied; skipped, nothing of it "
                              "is counted"]
    assert_frame_equal(metrics_frame(report.overall), corpus_metrics(texts["eng"], ["gpt2"]), check_exact=True)
