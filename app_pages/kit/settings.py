"""Each page's widget-key prefix, and the choices and bounds that its form and its link (links.py) share,
written once: the page draws its widgets from these, links.py spells them in a URL, and neither retypes
the other's."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Range:
    """A whole number a form offers and a link may carry: lo..hi, `default` when absent or out of bounds."""

    lo: int
    hi: int
    default: int

    def words(self) -> str:
        """"256–8,192", as a label says it."""
        return f"{self.lo:,}–{self.hi:,}"


# widget-key prefixes (a page's keys are PREFIX + name; links.py names the same keys)
KEYS = {"compare": "compare_", "inside": "inside_", "vocab_diff": "vdiff_", "bpe_lab": "lab_", "algorithms": "alg_",
        "sentencepiece_lab": "sp_", "quirks": "quirks_", "languages": "languages_"}

# the labs' training text (app_pages/kit/training_text.py): where it comes from, the built-in corpus's sizes
SOURCES = ("Built-in corpus", "Paste", "Upload a file")
BUILTIN_SIZES = [20_000, 100_000, 250_000]

# Compare
VIEWS = ["Spans", "Text with boundaries", "IDs", "Table"]
VIEW_ALIASES = {"Boundaries": "Text with boundaries"}  # an older link's name for a view
FONT_SIZES = {"S": "0.85rem", "M": "0.95rem", "L": "1.25rem", "XL": "1.6rem"}
MODES = ("Paste", "Chat")
COUNTS_REFERENCE = "cl100k_base"  # the counts' ratios are to it unless the visitor picks another

# Vocabulary diff
DIFF_SHOWS = ("added", "dropped", "shared", "all")

# the BPE Lab
LAB_VOCAB = Range(256, 8192, 276)  # 276: the lecture's 20 merges over the 256 bytes
LAB_SPLITS = ("GPT-4 pattern", "GPT-2 pattern", "No split (the plain algorithm)", "Custom regex")
LAB_TIES = ("Smallest pair (Hugging Face, rustbpe)", "Met first in the text (minbpe, the lecture)")

# Algorithms: one vocabulary size for all five
ALGORITHMS_VOCAB = Range(2, 8192, 1000)

# the SentencePiece Lab (its other options' bounds are the library's: sentencepiece.train INT_LOWEST, ...)
SENTENCEPIECE_VOCAB = Range(1, 200_000, 1000)
