"""A page's settings between the session, the link and the next visit.

Each page that has a link declares it here as data: every setting's query parameter, its session-state
key (the widget's key), its type (a 0/1 flag, a choice from a list, registry names, model names, a text
the link carries up to 2,000 characters, ASCII digits) and when the link omits it. `read(page)` puts a link's
values into session state before the page draws its widgets, ignoring what does not parse;
`write(page)` puts session state back into the link after the widgets, so the address bar always
reproduces the view.

Keeping a page's settings while a visitor is elsewhere (another page, another tab, another mode) is
Streamlit's own `persist_state="session"` on each widget: Streamlit then keeps the widget's value when a
run does not draw it, instead of deleting it, and gives it back when the widget is drawn again.
`KEEP` is that argument; tests/test_page_state.py holds every keyed input widget of app_pages/ to it.
Tabs have no such option, so `tabs()` below keeps the open tab in a session key of its own.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any, Callable

import streamlit as st

from app_pages.kit.settings import (ALGORITHMS_VOCAB, BUILTIN_SIZES, COUNTS_REFERENCE, DIFF_SHOWS, FONT_SIZES, KEYS,
                                    LAB_SPLITS, LAB_TIES, LAB_VOCAB, MODES, SENTENCEPIECE_VOCAB, SOURCES, VIEW_ALIASES,
                                    VIEWS)

KEEP = "session"            # persist_state=KEEP: the widget keeps its value while it is not drawn
TEXT_LIMIT = 2000           # longer texts are not put in a link
LAB_NAMES = ("lab_bpe",)    # what the labs add for a visit (tokenizers a link cannot carry)


# -- kinds: how one parameter's text becomes a value, and back -------------------------------------------
class Invalid(Exception):
    """A parameter's value that this kind does not accept: the setting keeps what it had."""


@dataclass(frozen=True)
class Flag:
    """`1` is on, anything else off (`0` is what the page writes)."""

    def parse(self, raw: str) -> bool:
        return raw == "1"

    def format(self, value) -> str:
        return "1" if value else "0"


@dataclass(frozen=True)
class Choice:
    """One of `options` (or an old name for one, in `aliases`); `values` maps a parameter's text to the
    widget's value when the two differ (mode=chat is the radio's "Chat")."""
    options: tuple = ()
    aliases: dict = field(default_factory=dict)
    values: dict = field(default_factory=dict)

    def parse(self, raw: str):
        raw = self.aliases.get(raw, raw)
        value = self.values.get(raw, raw)
        if value not in self.options:
            raise Invalid(raw)
        return value

    def format(self, value) -> str:
        back = {v: k for k, v in self.values.items()}
        return str(back.get(value, value))


@dataclass(frozen=True)
class Names:
    """Comma-separated tokenizer names, matched without regard to case, each once. With `single`, one
    name that must exist. What matches nothing is reported by `read` (see Read.unknown / Read.lab)."""
    single: bool = False

    def parse(self, raw: str):
        from app_pages.kit.shared import all_tokenizer_names

        if self.single:
            if raw not in all_tokenizer_names():
                raise Invalid(raw)
            return raw
        by_lower = {n.lower(): n for n in all_tokenizer_names()}
        asked = [n.strip() for n in raw.split(",") if n.strip()]
        return list(dict.fromkeys(by_lower[n.lower()] for n in asked if n.lower() in by_lower))

    @staticmethod
    def missing(raw: str) -> list[str]:
        from app_pages.kit.shared import all_tokenizer_names

        known = {n.lower() for n in all_tokenizer_names()}
        return [n for n in (n.strip() for n in raw.split(",")) if n and n.lower() not in known]

    def format(self, value) -> str:
        return value if self.single else ",".join(value)


@dataclass(frozen=True)
class Models:
    """Comma-separated model names ("gpt-4o", "Qwen/Qwen2.5-7B-Instruct"), each read as the registry name
    of the tokenizer the model uses (tokenizers.name_for_model), each once. A model it cannot map is
    reported by `read` (Read.models: the library's message, which says why or lists close matches)."""

    def parse(self, raw: str):
        from tokenizers import name_for_model

        found = []
        for model in (m.strip() for m in raw.split(",")):
            try:
                found.append(name_for_model(model))
            except KeyError:
                continue
        if not found:
            raise Invalid(raw)
        return list(dict.fromkeys(found))

    @staticmethod
    def missing(raw: str) -> list[str]:
        """The message for each model of `raw` that maps to no tokenizer."""
        from tokenizers import name_for_model

        out = []
        for model in (m.strip() for m in raw.split(",")):
            try:
                name_for_model(model)
            except KeyError as e:
                out.append(str(e))
        return out

    def format(self, value) -> str:
        return ",".join(value)


@dataclass(frozen=True)
class Int:
    """A whole number written in ASCII digits (with a leading "-" when `lo` is negative), between `lo` and
    `hi` when they are given (a number input's bounds: Streamlit refuses a value outside them); else the
    page bounds it where it uses it."""
    lo: int | None = None
    hi: int | None = None

    def parse(self, raw: str) -> int:
        digits = raw[1:] if raw.startswith("-") and self.lo is not None and self.lo < 0 else raw
        if not (digits.isascii() and digits.isdigit()):
            raise Invalid(raw)
        value = int(raw[:41])
        if (self.lo is not None and value < self.lo) or (self.hi is not None and value > self.hi):
            raise Invalid(raw)
        return value

    def format(self, value) -> str:
        return str(value)


@dataclass(frozen=True)
class Float:
    """A finite number in Python's own spelling ("0.9995", "1e-05"), between `lo` and `hi`."""
    lo: float
    hi: float

    def parse(self, raw: str) -> float:
        try:
            value = float(raw) if raw.isascii() and len(raw) <= 40 else None
        except ValueError:
            value = None
        if value is None or not self.lo <= value <= self.hi:  # NaN fails both comparisons
            raise Invalid(raw)
        return value

    def format(self, value) -> str:
        return repr(float(value))


@dataclass(frozen=True)
class Raw:
    """Any string, as it is (a name the page checks against what it shows)."""

    def parse(self, raw: str) -> str:
        return raw

    def format(self, value) -> str:
        return str(value)


@dataclass(frozen=True)
class Text:
    """Any text; the link carries it only up to `limit` characters (a longer one is left out)."""
    limit: int = TEXT_LIMIT

    def parse(self, raw: str) -> str:
        return raw

    def format(self, value) -> str | None:
        return value if len(value) <= self.limit else None


@dataclass(frozen=True)
class DigitText:
    """ASCII digits only (str.isdigit() is true for "²", which int() refuses), at most `max_len`."""
    max_len: int = 40

    def parse(self, raw: str) -> str:
        if not (raw.isascii() and raw.isdigit()):
            raise Invalid(raw)
        return raw[:self.max_len]

    def format(self, value) -> str:
        return str(value)


# -- settings and links --------------------------------------------------------------------------------
@dataclass(frozen=True)
class Setting:
    """One query parameter. `key` is the session-state key it sets (a function of session state when
    it depends on another setting); `also` are keys set with it. `write` says when the link carries
    it: "always", "changed" (only when it is not `default`), "page" (only when the page gives its value
    to `write`), or a predicate on session state."""
    param: str
    key: str | Callable[[Any], str]
    kind: Any
    default: Any = None
    write: str | Callable[[Any], bool] = "always"
    also: dict = field(default_factory=dict)

    def state_key(self, state) -> str:
        return self.key(state) if callable(self.key) else self.key


@dataclass(frozen=True)
class Link:
    """A page's link. `read_when`: "visit" reads it once per visit (the first run of the page);
    "changed" reads it whenever it differs from what the page last wrote and holds `needs` (a link into
    the page from another one, such as Compare's "Open in Inside a token"). A "visit" link with `needs`
    is also read again when such a link into the page is followed later in the visit (Quirks' "Open on
    Compare", in the same tab)."""
    settings: tuple[Setting, ...]   # read in this order: a later one that sets a key an earlier one set
                                    # through `also` is skipped (Inside's id=… wins over token=…)
    read_when: str = "visit"
    needs: str | None = None
    bound: tuple[str, ...] = ()     # parameters the page's own widgets keep (bind="query-params"): left as they are


@dataclass
class Read:
    """What `read` found: the values it set, names it did not know (a link to tokenizers this server
    does not have, or one trained in a lab of another visit), and whether a text held U+FFFD (the
    browser's stand-in for bytes that were not UTF-8)."""
    values: dict = field(default_factory=dict)
    unknown: list = field(default_factory=list)
    lab: list = field(default_factory=list)
    models: list = field(default_factory=list)   # why each model name of the link maps to no tokenizer
    refused: dict = field(default_factory=dict)  # parameter -> its value, where the value did not parse
    replacement_char: bool = False


# Compare's choices (the page draws them; the link names them)


def _compare() -> Link:
    k = KEYS["compare"]
    mode = Choice(MODES, values={"chat": "Chat"})
    return Link((
        Setting("tokenizers", f"{k}tokenizers", Names()),
        # model=gpt-4o: the tokenizers those models use, added to tokenizers= by the page (a link into the
        # page: what it writes back is tokenizers=)
        Setting("model", f"{k}model_link", Models(), write="page"),
        Setting("special", f"{k}special", Flag(), False),
        Setting("ws", f"{k}ws", Flag(), False),
        Setting("alt", f"{k}alt", Flag(), False),
        Setting("view", f"{k}view", Choice(tuple(VIEWS), VIEW_ALIASES), VIEWS[0]),
        Setting("diff", f"{k}diff", Flag(), False, write="changed"),
        Setting("ref", f"{k}ref", Raw(), "", write=lambda s: s.get(f"{k}diff", False)),
        Setting("present", f"{k}present", Flag(), False, write="changed"),
        Setting("font", f"{k}font", Choice(tuple(FONT_SIZES)), "M", write="changed"),
        Setting("ab", f"{k}ab", Flag(), False, write="changed"),
        Setting("vs", f"{k}vs", Names(single=True), COUNTS_REFERENCE, write="changed"),  # the counts' ratios
        Setting("text", f"{k}text", Text()),
        Setting("text_b", f"{k}text_b", Text(), write=lambda s: s.get(f"{k}ab", False)),
        Setting("mode", f"{k}mode", mode, MODES[0], write="changed"),
    ), needs="tokenizers")  # Quirks' "Open on Compare" is a link into the page during the visit


def _compare_chat() -> Link:
    """Compare in chat mode: the link says so and nothing else (the conversation is too long for one)."""
    return Link((Setting("mode", f"{KEYS['compare']}mode", Choice(MODES, values={"chat": "Chat"}), MODES[0],
                         write="changed"),))


def _inside() -> Link:
    k = KEYS["inside"]
    return Link((
        Setting("tokenizer", f"{k}tok", Names(single=True)),
        Setting("text", f"{k}text", Text()),
        Setting("id", f"{k}id", DigitText(40), also={f"{k}by_id": True}, write="page"),
        Setting("token", lambda s: f"{k}pick_{s.get(f'{k}tok', 'cl100k_base')}", Int(),
                also={f"{k}by_id": False}, write="page"),
    ), read_when="changed", needs="tokenizer")


def _vocab_diff() -> Link:
    from tokenizers.analysis.vocab_audit import KINDS

    k = KEYS["vocab_diff"]
    return Link((
        Setting("a", f"{k}a", Names(single=True)),
        Setting("b", f"{k}b", Names(single=True)),
        Setting("show", f"{k}show", Choice(DIFF_SHOWS), DIFF_SHOWS[0], write="changed"),
        Setting("kind", f"{k}kind", Choice(("all kinds", *KINDS)), "all kinds", write="changed"),
        Setting("q", f"{k}q", Text(200), "", write="changed"),
    ), read_when="changed", needs="a")


# -- the labs and the other pages: their forms, so a reload or a shared link opens the same form ---------------


def _training_text(k: str, first: str) -> tuple[Setting, ...]:
    """The labs' training text (app_pages/kit/training_text.py): where it comes from, and the pasted text or the
    built-in corpus's size (an uploaded file cannot be in a link)."""
    source = Choice(SOURCES, values={"builtin": SOURCES[0], "paste": SOURCES[1], "upload": SOURCES[2]})
    return (
        Setting("source", f"{k}source", source, first, write="changed"),
        Setting("text", f"{k}text", Text(), write=lambda s: s.get(f"{k}source", first) == SOURCES[1]),
        Setting("size", f"{k}builtin_size", Choice(tuple(BUILTIN_SIZES), values={str(n): n for n in BUILTIN_SIZES}),
                write=lambda s: s.get(f"{k}source", first) == SOURCES[0]),
    )


def _bpe_lab() -> Link:
    k = KEYS["bpe_lab"]
    split = Choice(LAB_SPLITS, values=dict(zip(("gpt4", "gpt2", "none", "custom"), LAB_SPLITS)))
    return Link((
        *_training_text(k, "Paste"),
        Setting("vocab", f"{k}vocab", Int(LAB_VOCAB.lo, LAB_VOCAB.hi), LAB_VOCAB.default, write="changed"),
        Setting("split", f"{k}split", split, LAB_SPLITS[0], write="changed"),
        Setting("regex", f"{k}regex", Text(500), write=lambda s: s.get(f"{k}split") == LAB_SPLITS[3]),
        Setting("specials", f"{k}specials", Text(500), "<|endoftext|>", write="changed"),
        Setting("ties", f"{k}ties", Choice(LAB_TIES, values=dict(zip(("smallest", "first"), LAB_TIES))), LAB_TIES[0],
                write="changed"),
    ))


def _algorithms() -> Link:
    k = KEYS["algorithms"]
    return Link((
        *_training_text(k, "Built-in corpus"),
        Setting("vocab", f"{k}vocab", Int(ALGORITHMS_VOCAB.lo, ALGORITHMS_VOCAB.hi), ALGORITHMS_VOCAB.default,
                write="changed"),
        Setting("segment", f"{k}segment", Text()),
        Setting("ws", f"{k}ws", Flag(), False, write="changed"),
    ))


def _sentencepiece_lab() -> Link:
    """The form: the preset, then each of SentencePiece's options that differs from the preset's value
    (by its own name: byte_fallback=1, character_coverage=0.98), so a link trains the same model."""
    from tokenizers.sentencepiece.train import MODEL_TYPES, OPTIONS, PRESETS

    k = KEYS["sentencepiece_lab"]
    return Link((
        *_training_text(k, "Built-in corpus"),
        Setting("preset", f"{k}preset", Choice(tuple(PRESETS)), "Llama 2", write="changed"),
        Setting("model_type", f"{k}opt_model_type", Choice(tuple(MODEL_TYPES))),
        Setting("vocab", f"{k}opt_vocab_size", Int(SENTENCEPIECE_VOCAB.lo, SENTENCEPIECE_VOCAB.hi),
                SENTENCEPIECE_VOCAB.default, write="changed"),
        *(Setting(name, f"{k}opt_{name}", _option_kind(opt), write=functools.partial(_differs_from_preset, name))
          for name, opt in OPTIONS.items() if name not in ("model_type", "vocab_size")),
        Setting("split_long", f"{k}split_long", Flag(), False, write="changed"),
    ))


def _option_kind(opt):
    """How one of SentencePiece's options is spelled in the link (the Lab's form bounds each the same)."""
    from tokenizers.sentencepiece.train import FLOAT_RANGE, INT_HIGHEST, INT_LOWEST

    if opt.choices:
        return Choice(tuple(opt.choices))
    if isinstance(opt.default, bool):
        return Flag()
    if isinstance(opt.default, int):
        return Int(INT_LOWEST.get(opt.name, -1), INT_HIGHEST)
    if isinstance(opt.default, float):
        return Float(*FLOAT_RANGE)
    return Text(200)


def _differs_from_preset(name: str, state) -> bool:
    from tokenizers.sentencepiece.train import OPTIONS, PRESETS

    k = KEYS["sentencepiece_lab"]
    preset = PRESETS.get(state.get(f"{k}preset", "Llama 2"), {})
    key = f"{k}opt_{name}"
    return key in state and state[key] != preset.get(name, OPTIONS[name].default)


def _quirks() -> Link:
    """The gallery's tokenizers, whitespace marks and the card it shows (card=case: the card's key; the
    first card is left out), the open tab being the tabs' own parameter."""
    from ui.quirks import CARDS

    k = KEYS["quirks"]
    return Link((
        Setting("tokenizers", f"{k}tokenizers", Names()),
        Setting("ws", f"{k}ws", Flag(), False, write="changed"),
        Setting("card", f"{k}card", Choice(tuple(c.key for c in CARDS)), CARDS[0].key, write="changed"),
    ), bound=(f"{k}tab",))


def _languages() -> Link:
    """The tokenizers and both references (the measure and the open tab are their widgets' own parameters)."""
    k = KEYS["languages"]
    return Link((
        Setting("tokenizers", f"{k}tokenizers", Names()),
        Setting("ref", f"{k}ref", Raw(), "eng", write="changed"),
        Setting("code_ref", f"{k}code_ref", Raw(), "python", write="changed"),
    ), bound=(f"{k}view", f"{k}tab"))


LINKS: dict[str, Callable[[], Link]] = {"compare": _compare, "compare_chat": _compare_chat, "inside": _inside,
                                        "vocab_diff": _vocab_diff, "bpe_lab": _bpe_lab, "algorithms": _algorithms,
                                        "sentencepiece_lab": _sentencepiece_lab, "quirks": _quirks,
                                        "languages": _languages}


def link(page: str) -> Link:
    return LINKS[page]()


def _written_key(page: str) -> str:
    return f"tl_link_{page}"


def read(page: str) -> Read | None:
    """The link's values into session state (before the page draws its widgets), when this page reads
    its link on this run (see Link.read_when). Values that do not parse are ignored: the setting keeps
    what it had. Returns what was read, or None when the link was not read."""
    spec = link(page)
    q = st.query_params.to_dict()
    done = _written_key(page)
    followed = spec.needs in q and q != st.session_state.get(done)  # a link into the page, not its own
    if spec.read_when == "visit":
        if st.session_state.get(done + "_read") and not (spec.needs and followed):
            return None
        st.session_state[done + "_read"] = True
    elif not followed:
        return None
    out = Read()
    taken: set[str] = set()   # keys set through `also` by an earlier parameter (id=… wins over token=…)
    for s in spec.settings:
        if s.param not in q:
            continue
        raw = q[s.param]
        if isinstance(s.kind, Names) and not s.kind.single:
            missing = Names.missing(raw)
            out.unknown += [n for n in missing if n.lower() not in LAB_NAMES]
            out.lab += [n for n in missing if n.lower() in LAB_NAMES]
        if isinstance(s.kind, Models):
            out.models += Models.missing(raw)
        try:
            value = s.kind.parse(raw)
        except Invalid:
            out.refused[s.param] = raw
            continue
        if s.also and taken & set(s.also):
            continue
        st.session_state[s.state_key(st.session_state)] = value
        st.session_state.update(s.also)
        taken |= set(s.also)
        out.values[s.param] = value
        if isinstance(s.kind, Text) and "\ufffd" in value:
            out.replacement_char = True
    return out


def params(page: str, **computed) -> dict[str, str]:
    """The link of session state as it is now. `computed` gives a parameter's value where the page
    computed it (Inside's checked token id); None leaves it out."""
    spec = link(page)
    state = st.session_state
    out: dict[str, str] = {}
    for s in spec.settings:
        if s.param in computed:  # the page's own value for it, or None: left out
            value = computed[s.param]
        elif s.write == "page":
            continue
        else:
            value = state.get(s.state_key(state), s.default)
            if (s.write == "changed" and value == s.default) or (callable(s.write) and not s.write(state)):
                continue
        if value is None:
            continue
        text = s.kind.format(value)
        if text is not None:
            out[s.param] = text
    return out


def write(page: str, **computed) -> dict[str, str]:
    """Session state into the link (after the page's widgets), and remembered as what this page wrote
    (a link that differs from it is one the visitor followed)."""
    out = params(page, **computed)
    bound = link(page).bound
    q = st.query_params
    now = q.to_dict()
    # The browser adds a history entry for each change Streamlit sends it: set one by one, a link into
    # Compare took six presses of Back to leave. So the link is replaced in one step (one message), or,
    # when a widget's bound parameter is there (which only its widget may set, and is left as it is),
    # the parameters to drop are dropped and the changed ones set in one update.
    stale = [p for p in now if p not in out and p not in bound]
    changed = {p: text for p, text in out.items() if now.get(p) != text}
    if not any(p in now for p in bound):
        if stale or changed:
            q.from_dict(out)
    else:
        for param in stale:
            del q[param]
        if changed:
            q.update(changed)
    st.session_state[_written_key(page)] = out
    return out


def query(page: str, values: dict) -> dict[str, str]:
    """The query parameters that open `page` with these setting values (by parameter); a text too long
    for a link is left out."""
    spec = {s.param: s for s in link(page).settings}
    out = {}
    for param, value in values.items():
        text = spec[param].kind.format(value)
        if text is not None:
            out[param] = text
    return out


def url(page: str, values: dict) -> str | None:
    """A relative link that opens `page` with these setting values, or None when a text is too long for
    a link."""
    from urllib.parse import quote, urlencode

    q = query(page, values)
    return "./?" + urlencode(q, quote_via=quote) if len(q) == len(values) else None


# -- tabs ------------------------------------------------------------------------------------------------
def tabs(labels: list[str], key: str, **kwargs):
    """st.tabs that opens on the tab the visitor last had open, after runs that did not draw it (another
    page): Streamlit's tabs have no persist_state, so the open tab is also kept under `{key}__open`."""
    kept = f"{key}__open"
    if key not in st.session_state and st.session_state.get(kept) in labels:
        st.session_state[key] = st.session_state[kept]
    out = st.tabs(labels, key=key, **kwargs)
    st.session_state[kept] = st.session_state.get(key)
    return out
