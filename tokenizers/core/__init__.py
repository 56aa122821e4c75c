"""The core every backend shares: `Token`, `TokenList` and `Tokenizer` (tiktoken's Encoding API plus
the capabilities a model declares), the errors, text hygiene (lone surrogates, byte <-> character
maps), ids + lengths -> spans that tile the text, the split patterns, and the built-in corpus.
Imports nothing else of the library."""
