"""What is read off tokenizers rather than built into them: languages and parallel texts (token
premium), corpus metrics (fertility, continued words, Rényi efficiency), the vocabulary audit and
the one vocabulary search, a text's characters, code points and grapheme clusters, and
deterministic sample texts. Uses only the public Tokenizer API."""
