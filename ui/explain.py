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
