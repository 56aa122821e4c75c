"""The worked example of the "Let's build the GPT Tokenizer" lecture (Karpathy, 2024): its notebook
trains byte-level BPE with no split on a 533-character text (616 UTF-8 bytes), the opening of Nathan
Reed's "A Programmer's Introduction to Unicode", quoted there, to a vocabulary of 276, and prints the
20 merges. minbpe (its library) breaks a tie between equal counts by the pair met first in the text.

`minbpe_merges` is that loop written out plainly, an independent check of the vector below and of the
library's three trainers; it shares no code with tokenizers/."""

FLAGS = "\u200c".join("🇺🇳🇮🇨🇴🇩🇪")  # the regional indicators are kept apart by zero-width non-joiners
LECTURE_TEXT = (
    "Ｕｎｉｃｏｄｅ! 🅤🅝🅘🅒🅞🅓🅔‽ " + FLAGS + "! 😄 The very name strikes fear and awe into the hearts of "
    "programmers worldwide. We all know we ought to “support Unicode” in our software (whatever that "
    "means—like using wchar_t for all the strings, right?). But Unicode can be abstruse, and diving into the "
    "thousand-page Unicode Standard plus its dozens of supplementary annexes, reports, and notes can be more "
    "than a little intimidating. I don’t blame programmers for still finding the whole thing mysterious, even "
    "30 years after Unicode’s inception.")
LECTURE_VOCAB = 276

# (pair, count when merged); merge k makes id 256 + k. After all 20, the 616 bytes are 451 tokens.
LECTURE_MERGES = [
    ((101, 32), 20), ((240, 159), 15), ((226, 128), 12), ((105, 110), 12), ((115, 32), 10),
    ((97, 110), 10), ((116, 104), 8), ((257, 133), 7), ((257, 135), 7), ((97, 114), 7),
    ((239, 189), 6), ((258, 140), 6), ((267, 264), 6), ((101, 114), 6), ((111, 114), 6),
    ((116, 32), 6), ((259, 103), 6), ((115, 116), 5), ((261, 100), 5), ((32, 262), 5),
]
LECTURE_TOKENS_AFTER = 451


def minbpe_merges(text: str, vocab_size: int) -> tuple[list[tuple[tuple[int, int], int]], int]:
    """minbpe's BasicTokenizer.train, written out: [(pair, count)] and the token count at the end."""
    ids = list(text.encode("utf-8"))
    out = []
    for idx in range(256, vocab_size):
        stats: dict = {}
        for pair in zip(ids, ids[1:]):
            stats[pair] = stats.get(pair, 0) + 1
        if not stats:
            break
        pair = max(stats, key=stats.get)  # equal counts: the first in the dict, the first seen
        out.append((pair, stats[pair]))
        merged, i = [], 0
        while i < len(ids):
            if i + 1 < len(ids) and (ids[i], ids[i + 1]) == pair:
                merged.append(idx)
                i += 2
            else:
                merged.append(ids[i])
                i += 1
        ids = merged
    return out, len(ids)
