"""Explanations shown on the pages: what each alternative of the GPT-2 and GPT-4 split patterns does."""

PATTERN_PARTS = {
    "GPT-2": [
        ("'(?:[sdmt]|ll|ve|re)", "English contractions after an apostrophe: 's 'd 'm 't 'll 've 're (lower case "
                                "only, and only the straight ' (U+0027), not the curly ’ (U+2019) that word processors type)"),
        (" ?\\p{L}+", "a run of letters, with at most one space in front: ' hello'"),
        (" ?\\p{N}+", "a run of digits of any length, with at most one space in front: ' 2024'"),
        (" ?[^\\s\\p{L}\\p{N}]+", "a run of punctuation and symbols, with at most one space in front: ' !!!'"),
        ("\\s+(?!\\S)", "a run of whitespace, except its last character if a word follows: so '   x' gives '  ' + ' x'"),
        ("\\s+", "any other run of whitespace (at the end of the text)"),
    ],
    "GPT-4": [
        ("'(?i:[sdmt]|ll|ve|re)", "contractions, now in any case: 'S 'LL 'Re (still only the straight ', not the curly ’ U+2019)"),
        ("[^\\r\\n\\p{L}\\p{N}]?+\\p{L}++", "a run of letters with at most one non-letter, non-digit, non-newline "
                                           "character in front: ' hello', '(hello', '_init'"),
        ("\\p{N}{1,3}+", "numbers in groups of at most three digits: '1234567' → '123' '456' '7'"),
        (" ?[^\\s\\p{L}\\p{N}]++[\\r\\n]*+", "punctuation and symbols with at most one space in front, "
                                             "keeping the newlines right after them: ':\\n'"),
        ("\\s++$", "whitespace at the very end of the text"),
        ("\\s*[\\r\\n]", "whitespace up to and including a newline: '  \\n'"),
        ("\\s+(?!\\S)", "a run of whitespace, except the last space before a word (which joins the word)"),
        ("\\s", "any single remaining whitespace character"),
    ],
}

# The Languages page's corpus metrics (tokenizers.analysis.metrics): (column, label, two lines, source)
METRIC_NOTES = [
    ("tokens", "Tokens",
     "What the texts cost: every language's text encoded on its own, special-token strings as text.", ""),
    ("fertility", "Fertility",
     "Tokens per word, words being what `str.split()` gives: 1.0 is a token per word. Chinese, Japanese and Thai "
     "put no spaces between words, so compare tokenizers within such a language, not languages.", "Rust et al. 2021, *How Good is Your Tokenizer?* (ACL)"),
    ("continued_words", "Continued words",
     "Share of words cut into two or more tokens. A token touches a word when they share a character; a leading "
     "space (GPT-2's ' word') is not part of the word.", "Rust et al. 2021 (proportion of continued words)"),
    ("bytes_per_token", "Bytes per token",
     "UTF-8 bytes one token carries on average: the compression. Higher means fewer tokens for the same text.",
     "Gallé 2019, *Investigating the Effectiveness of BPE: The Power of Shorter Sequences* (EMNLP)"),
    ("chars_per_token", "Characters per token",
     "The same in characters (code points), which does not favour scripts written with fewer bytes.",
     "Gallé 2019"),
    ("fallback_rate", "Byte-fallback or unknown rate",
     "Share of tokens that are byte pieces (<0xNN>) or the unknown token: text the vocabulary had no piece for. "
     "Byte-level BPE never needs them, so 0.", "Kudo & Richardson 2018, *SentencePiece* (byte fallback)"),
    ("renyi_efficiency", "Rényi efficiency (α = 2.5)",
     "How evenly the corpus uses the vocabulary: the Rényi entropy of the token frequencies over log of the "
     "vocabulary size. It grows with the corpus, so compare tokenizers on the same texts only.",
     "Zouhar et al. 2023, *Tokenization and the Noiseless Channel* (ACL), as tokenization-scorer computes it"),
    ("premium", "Token premium",
     "A language's tokens ÷ the reference language's tokens under the same tokenizer, on text that says the same "
     "thing: 2.0 is twice the price.", "Petrov et al. 2023, *Language Model Tokenizers Introduce Unfairness "
     "Between Languages* (NeurIPS)"),
]
