"""What the app lets slip (issue 24, item 9): CSV cells a spreadsheet would run, the address the app
listens on, and what the README says of Streamlit's own endpoints. (The SentencePiece model's paths
and PID: tests/test_sentencepiece_train.py.)"""

from __future__ import annotations

import ast
import csv
import io
import tomllib

import pandas as pd
import pytest

from conftest import ROOT
from tokenizers import get_tokenizer
from ui import export

FORMULAS = ["=HYPERLINK(\"http://x\",\"y\")", "+1+2", "-2+3", "@SUM(A1)", "\tx", "\rx"]


def cells(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text)))


def runnable(cell: str) -> bool:
    """What a spreadsheet reads as a formula (OWASP, CSV injection); a number such as -3 is a number."""
    try:
        float(cell)
        return False
    except ValueError:
        return cell.startswith(("=", "+", "-", "@", "\t", "\r"))


# -- the one helper ------------------------------------------------------------------------------------
@pytest.mark.parametrize("value", FORMULAS)
def test_a_formula_cell_gets_an_apostrophe(value):
    assert export.csv_cell(value) == "'" + value


@pytest.mark.parametrize("value", [-5, 3.5, -0.25, 0, True, None, "plain", "", "a=b", "'=already"])
def test_numbers_and_plain_strings_stay_as_they_are(value):
    assert export.csv_cell(value) == value if value is not None else export.csv_cell(value) is None


def test_csv_text_changes_only_formula_strings_in_any_column():
    out = export.csv_text(["=h", "n"], [[1, True, "-x", "=y", 1.0, None, "z"], [-1, -2.5, 0, 3, 4, 5, 6]],
                          [["@a"], [7]])
    assert cells(out) == [["'=h", "n"], ["1", "-1"], ["True", "-2.5"], ["'-x", "0"], ["'=y", "3"], ["1.0", "4"],
                          ["", "5"], ["z", "6"], ["'@a", "7"]]


# -- every CSV the app offers --------------------------------------------------------------------------
def test_compare_token_csv_runs_no_formula():
    """Compare's "Download tokens (CSV)": tokens such as '=', '+', '-', '@' were cells a spreadsheet ran,
    and so was a tokenizer name (an uploaded file's, which may start with '-' or '+')."""
    text = "=1+2 @x\t-y =HYPERLINK(1)"
    toks = get_tokenizer("gpt2").tokenize(text, disallowed_special=())
    out = export.export_csv({"-evil.tiktoken": toks, "gpt2": toks})
    rows = cells(out)
    assert rows[0] == ["tokenizer", *export.COLUMNS]
    body = rows[1:]
    assert len(body) == 2 * len(toks)
    assert not [c for row in rows for c in row if runnable(c)]
    assert body[0][0] == "'-evil.tiktoken" and body[len(toks)][0] == "gpt2"
    col = export.COLUMNS.index("token") + 1
    assert [r[col] for r in body[:4]] == ["'=", "1", "'+", "2"]
    # numbers stay numbers: ids and offsets are written as they were
    assert [int(r[export.COLUMNS.index("id") + 1]) for r in body[:len(toks)]] == list(toks.ids)


def test_languages_table_csv_runs_no_formula():
    """The Languages page's "Download the table (CSV)" (languages, code, your corpus): index labels, column
    names and string cells go through the helper; the figures stay numbers."""
    df = pd.DataFrame({"name": ["=cmd|' /C calc'!A0", "English"], "-x": [12, -3], "premium": [1.5, -0.25]},
                      index=pd.Index(["@lang", "eng"], name="language"))
    rows = cells(export.frame_csv(df))
    assert rows == [["language", "name", "'-x", "premium"],
                    ["'@lang", "'=cmd|' /C calc'!A0", "12", "1.5"],
                    ["eng", "English", "-3", "-0.25"]]


def test_languages_page_writes_its_csv_through_the_helper():
    """The page's own frame (flat(token_premium(...)) joined to the languages' names and scripts) comes out
    the same as pandas writes it when no cell is a formula: the helper changes nothing else."""
    from tokenizers.analysis.languages import flat, token_premium
    from tokenizers.analysis.parallel import LANGUAGES, language_texts

    toks = {n: get_tokenizer(n) for n in ["gpt2"]}
    about = pd.DataFrame({"name": {c: lang.name for c, lang in LANGUAGES.items()},
                          "script": {c: lang.script for c, lang in LANGUAGES.items()}}).rename_axis("language")
    out = about.join(flat(token_premium(language_texts(), toks, "eng")).round(3))
    assert export.frame_csv(out) == out.to_csv()


def test_vocabulary_diff_csv_runs_no_formula():
    """The Vocabulary diff page's "Download these tokens (CSV)": tokens such as '=' or '-' were cells a
    spreadsheet ran; a negative rank shift stays a number."""
    from tokenizers import vocab_diff
    from ui.export import vocab_diff_csv
    from ui.tables import diff_selection

    d = vocab_diff("gpt2", "cl100k_base")
    chosen = [(s, t) for s, t in diff_selection(d, "shared") if t[:1] in (b"=", b"+", b"-", b"@")][:200]
    assert len(chosen) > 20
    rows = cells(vocab_diff_csv(d, chosen))
    assert len(rows) == 1 + len(chosen) and not [c for row in rows for c in row if runnable(c)]
    assert {r[0][:2] for r in rows[1:]} <= {"'=", "'+", "'-", "'@"}
    shifts = [r[-1] for r in rows[1:]]
    assert any(s.startswith("-") for s in shifts) and all(s.lstrip("-").isdigit() for s in shifts)


def test_every_csv_goes_through_the_one_helper():
    """No page or ui module writes CSV any other way (DataFrame.to_csv, csv.writer): ui/export.py is the
    one place, and ui/quirks.py's CSV is a fixed example text shown on a card, never a download."""
    offenders = []
    for path in [*ROOT.glob("app_pages/**/*.py"), *ROOT.glob("ui/*.py")]:
        if path.name in ("export.py", "quirks.py"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and node.attr in ("to_csv", "writer", "DictWriter"):
                offenders.append(f"{path.name}:{node.lineno} .{node.attr}")
    assert not offenders


def test_the_parallel_texts_tsv_has_no_formula_cell():
    """The Languages page's TSV download is the built-in parallel text (the upload format, read back as it
    is written, so not prefixed): none of its cells may start like a formula."""
    from tokenizers.analysis.parallel import as_tsv

    rows = list(csv.reader(io.StringIO(as_tsv()), delimiter="\t"))
    assert len(rows) > 1 and not [c for row in rows for c in row if runnable(c)]


def config() -> dict:
    return tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text(encoding="utf-8"))


def test_tables_offer_no_unneutralised_csv():
    """Every st.dataframe's toolbar offered "Download as CSV", which Streamlit writes in the browser without
    neutralising formulas (its static DataFrame bundle only quotes cells): turned off."""
    assert config()["client"]["disableDataExport"] is True


# -- where the app listens, and what the README says ---------------------------------------------------
def readme_section(title: str, file: str = "README.md") -> str:
    return (ROOT / file).read_text(encoding="utf-8").split(f"## {title}\n", 1)[1].split("\n## ", 1)[0]


def test_the_app_listens_on_this_machine_only_unless_told():
    """The quickstart listened on every interface (Streamlit's default): localhost by default, and the
    README gives the command that serves a class on every interface, on purpose, saying why."""
    assert config()["server"]["address"] == "localhost"
    serving = readme_section("Serving a class")
    assert "--server.address 0.0.0.0" in serving and 'server.address = "localhost"' in serving
    assert "localhost" in readme_section("Quickstart")


def test_readme_says_what_streamlit_itself_answers():
    """/_stcore/metrics cannot be turned off in Streamlit 1.67 (no option; the route is added to every
    server), and the message-size error carries a documentation link whatever showErrorLinks says: both
    documented where serving is: in short in the README, in full in docs/serving.md."""
    import streamlit
    from streamlit.runtime.runtime_util import MessageSizeError
    from streamlit.web.server.starlette import starlette_app

    assert "/_stcore/metrics" in readme_section("Serving a class") and "return 404" in readme_section("Serving a class")
    serving = readme_section("Where the app listens", "docs/serving.md")
    assert "--server.address 0.0.0.0" in serving and 'server.address = "localhost"' in serving
    assert "/_stcore/metrics" in serving and "return 404" in serving
    assert "MessageSizeError" in serving and "showErrorLinks" in serving
    # the facts the README states, held against the installed Streamlit (a newer one may change them)
    assert streamlit.__version__.startswith("1.67")
    assert "create_metrics_routes(runtime, base_url)" in open(starlette_app.__file__, encoding="utf-8").read()
    assert not [k for k in streamlit.config.get_config_options() if "metric" in k.lower() and "enable" in k.lower()]
    assert "docs.streamlit.io" in str(MessageSizeError(b"x" * 10))
