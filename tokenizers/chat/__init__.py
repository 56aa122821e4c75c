"""Chat formats: how a conversation becomes the one text a model reads, per vendor, and what the
format costs in tokens (`formats`)."""

from tokenizers.chat.formats import (FORMAT_OF, FORMATS, ROLES, ChatFormat, ChatResult, Message, MessageCount, Part,
                                     chat_tokenizer, format_for, tokenize_chat)

__all__ = ["FORMAT_OF", "FORMATS", "ROLES", "ChatFormat", "ChatResult", "Message", "MessageCount", "Part",
           "chat_tokenizer", "format_for", "tokenize_chat"]
