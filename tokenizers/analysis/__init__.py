"""What is read off tokenizers rather than built into them: languages and parallel texts (token
premium), corpus metrics (fertility, continued words, Rényi efficiency), the vocabulary audit (with
the one token classifier, `token_kind`), the diff of two vocabularies, where a prompt ends (token
healing), the one vocabulary search, a text's characters, code points and grapheme clusters, and
deterministic sample texts. Uses only the public Tokenizer API."""
