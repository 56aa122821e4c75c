"""The core every backend shares: `Token`, `TokenList` and `Tokenizer` (tiktoken's Encoding API plus
the capabilities a model declares), the errors, text hygiene (lone surrogates, byte <-> character
maps), ids + lengths -> spans that tile the text, the split patterns, the built-in corpus, and token spans as
HTML (html.py: the app's renderer, a TokenList's `_repr_html_`, `tokenizers.show`). Imports nothing else
of the library."""
