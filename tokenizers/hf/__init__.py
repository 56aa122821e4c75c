"""Hugging Face `tokenizer.json` files, read by this project's own code (`tokenizer_json`), and the
models only those files use (`models`: BPE over characters, WordPiece vocabularies, the pipeline
tokenizer that runs the stages around them)."""
