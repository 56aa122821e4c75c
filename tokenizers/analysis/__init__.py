"""What is read off tokenizers rather than built into them: languages and parallel texts (token
premium), the vocabulary audit (with the one token classifier, `token_kind`), the diff of two
vocabularies, the one vocabulary search, a text's characters, code points and grapheme clusters, and
deterministic sample texts. Uses only the public Tokenizer API."""
