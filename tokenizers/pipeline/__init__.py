"""The stages around a model, as Hugging Face's tokenizers has them: normalizers (text -> text, with
offsets), pre-tokenizers (text -> chunks), added tokens (strings matched before anything else), and
`components`, which reads each from its tokenizer.json form within `Limits`. Models of every family
use them; none of them imports a model."""
