"""Preset texts for the Compare page, written for this project."""

EXAMPLES: dict[str, str] = {
    "English prose": (
        "The lighthouse keeper counted the ships each evening. Some nights there were dozens; "
        "on others, only the ferry crossed, its lamps swinging like slow pendulums. He wrote the "
        "numbers in a ledger that nobody read, because the habit mattered more than the record."
    ),
    "Python, deeply indented": (
        "class Inventory:\n"
        "    def restock(self, items):\n"
        "        for name, qty in items.items():\n"
        "            if qty > 0:\n"
        "                if name in self.stock:\n"
        "                    self.stock[name] += qty\n"
        "                else:\n"
        "                    self.stock[name] = qty\n"
        "        return self.stock\n"
    ),
    "Numbers and arithmetic": (
        "12 + 345 = 357\n1234567 * 89 = 109876463\n3.14159 / 2 = 1.570795\n"
        "In 2024, 1,000,000 tokens cost $0.50; 2^10 = 1024 and 0x1F = 31."
    ),
    "Languages and scripts": (
        "English: Hello, how are you?\nKorean: 안녕하세요, 잘 지내세요?\nJapanese: こんにちは、お元気ですか？\n"
        "Chinese: 你好，你好吗？\nRussian: Привет, как дела?\nArabic: مرحبا، كيف حالك؟\n"
        "Hindi: नमस्ते, आप कैसे हैं?\nGreek: Γειά σου, τι κάνεις;"
    ),
    "Emoji, joiners and flags": (
        "Family: 👨‍👩‍👧‍👦  Couple: 👩‍❤️‍👨  Skin tones: 👍🏻 👍🏿  Flags: 🇰🇷 🇯🇵 🇺🇦 🏳️‍🌈\n"
        "Keycap: 1️⃣  Combining: e\u0301 (e + U+0301) vs é (U+00E9)"
    ),
    "Data as JSON": (
        '{\n  "name": "Ada",\n  "languages": ["en", "fr"],\n  "active": true,\n'
        '  "scores": {"math": 97, "poetry": 88}\n}'
    ),
    "Same data as YAML": (
        "name: Ada\nlanguages:\n  - en\n  - fr\nactive: true\nscores:\n  math: 97\n  poetry: 88\n"
    ),
    "A lecture: a sentence, sums, eggs, FizzBuzz": (
        "Tokens are how a model reads this sentence.\n127 + 677 = 804\n1275 + 6773 = 8048\n"
        "Egg. I have an egg. EGG\n"
        "for i in range(1, 101):\n    if i % 15 == 0:\n        print(\"FizzBuzz\")\n"
        "    elif i % 3 == 0:\n        print(\"Fizz\")\n    elif i % 5 == 0:\n        print(\"Buzz\")\n"
        "    else:\n        print(i)\n"
    ),
    "Special-token strings": (
        "Document one ends here.<|endoftext|>Document two starts. "
        "A fill-in-the-middle prompt: <|fim_prefix|>def add(a, b):<|fim_suffix|><|fim_middle|> "
        "and a SentencePiece marker <s> written as text."
    ),
}
