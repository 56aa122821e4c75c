"""Hugging Face `tokenizer.json` files, read by this project's own code (`tokenizer_json`), and the
models only those files use (`models`: BPE over characters, WordPiece vocabularies), and
`models.PipelineTokenizer`, which runs the stages around those models or around a byte-level
`BPETokenizer` (DeepSeek V3's and Claude's files, Qwen's NFC)."""
