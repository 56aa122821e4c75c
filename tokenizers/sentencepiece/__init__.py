"""SentencePiece: pretrained and uploaded models (`model`), training in a child process (`train`,
`worker`), and the unigram lattice with its Viterbi path in plain Python (`lattice`)."""
