"""Byte-level BPE in the minbpe tradition: the model (`model.BPETokenizer`, data: merges, vocab,
special tokens, pattern), the one encoding rule (`rule.bpe_merge`) and its fast copies, the trainers
(`reference`: obvious; `fast`: incremental; `native/`: the same in C), merges recovered from ranks
(`merges`), and the model's files (`files`: the formats, and saving and loading a model)."""

from tokenizers.bpe.model import (TRAINERS, BPETokenizer, EncodeStep, MergeRecord, TrainingError, TrainReport,
                                  apply_merges, resolve_pattern)

__all__ = ["TRAINERS", "BPETokenizer", "EncodeStep", "MergeRecord", "TrainReport", "TrainingError",
           "apply_merges", "resolve_pattern"]
