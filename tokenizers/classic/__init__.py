"""The algorithms a course teaches beside byte-level BPE: character-level, classic word-level BPE with
</w> (Sennrich et al.), WordPiece (BERT), the pair-merge trainer they share, and `algorithms`, which
trains all five on one text side by side."""
