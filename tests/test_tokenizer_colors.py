"""One color per tokenizer on every page (ui.figures.color_of): GPT-2 is the same color in Compare's
counts chart and in every chart of the Languages page."""

import json

from conftest import app_test, open_page, rerun
from tokenizers import REGISTRY
from ui.figures import TOKENIZER_COLORS, color_of


def bars(at) -> list[dict]:
    """Every bar trace of every plotly chart on the page: {name or x label: color}."""
    out = []
    for chart in at.get("plotly_chart"):
        for trace in json.loads(chart.proto.spec)["data"]:
            if trace.get("type") == "bar":
                out.append(trace)
    return out


def test_every_registry_tokenizer_has_its_own_color_and_a_visitors_own_is_stable():
    colors = [color_of(n) for n in REGISTRY]
    assert len(set(colors)) == len(colors) == len(TOKENIZER_COLORS)
    assert color_of("gpt2") == "#CC6677"
    assert color_of("lab_bpe") == color_of("lab_bpe") and color_of("lab_bpe") not in colors


def test_gpt2_has_one_color_on_compare_and_on_languages():
    # GPT-2 second on Compare, first-but-one on Languages' default: by position the colors differed
    compare = app_test(query={"tokenizers": "cl100k_base,gpt2", "text": "hello world"})
    assert not compare.exception
    [chart] = bars(compare)
    assert chart["marker"]["color"] == [color_of("cl100k_base"), color_of("gpt2")]
    langs = open_page("languages", "Languages & code", timeout=180)
    seen = {}
    for trace in bars(langs):
        seen.setdefault(trace["name"], set()).add(trace["marker"].get("color"))
    assert seen["GPT-2"] == {color_of("gpt2")} and seen["cl100k_base (GPT-4)"] == {color_of("cl100k_base")}
    rerun(langs, languages_view="Corpus metrics")
    panels = {}
    for trace in bars(langs):
        panels.setdefault(trace["name"], set()).add(trace["marker"].get("color"))
    assert panels["GPT-2"] == {color_of("gpt2")} and panels["Custom BPE"] == {color_of("custom_bpe")}
