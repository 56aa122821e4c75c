// Tokenizing in the browser while typing (issue 22): the fast twin of tokenizers.core.html.span_model for
// byte-level BPE vocabularies and SentencePiece BPE models (mistral_sp), fed by the C core compiled to
// WebAssembly (tokenizers/bpe/native/tl_wasm.js).
// app_pages/kit/widgets.py puts this file in front of token_spans.js (one component); tests/test_live_spans.py
// holds buildModel equal to span_model (the slow, obviously-correct reference) on the tricky texts.
//
// A keystroke encodes only the lines it touched (editTokens, tokenizers/core/edits.py's rule: the tokens before
// and after them are kept from the last text) for vocabularies whose encoding is line-local (a line-local
// pre-tokenizer; a SentencePiece model whose pieces hold no line break, with byte fallback), and models
// only from those tokens on: the rows of kept segments are kept with them, colours, tooltips and names are
// found through stamps on the rows. The whole text encoded (liveModel's `whole`) is the reference;
// tests/test_live_edits.py holds the two equal, ids and model.
//
// What it draws is what the server draws for the same text and options: the same segments (tokens that
// share a character grouped), classes (colour by id through assignColors, tl-same, tl-group, tl-special),
// tooltips, accessible names and line breaks; for SentencePiece also the ▁ marks ("sp" parts), the pieces in
// the tooltips and the byte-fallback pieces (tl-fallback); the red edges of "Mark boundaries that differ" and a
// pinned token as the server gives them (its compact payload: app_pages/compare.py), for the text it ran on.

const LIVE = (globalThis.__tlLive = globalThis.__tlLive || {
  core: null,       // Promise of TokenLensWasm's core (one per visit)
  vocabs: new Map(),  // vocabulary URL -> Promise of {vocab, table}
  names: null,      // Promise of the character names table
  text: new Map(),  // live box key -> its newest text
  server: new Map(),  // live box key -> the text the server last drew (live_text.js's data.value)
  columns: new Map(),  // element -> {source, head, ready, deferred} (live_text.js asks whether every column is in
                       // the browser, and reports the heads of those it draws)
  failed: "",       // the page's one line on why the browser cannot tokenize here ("" while it can)
});

export const PALETTE_SIZE = 10;
// the C pre-tokenizer's modes (tokenizers/bpe/native/lib.py MODES: GPT-2, GPT-4, o200k, Llama 3, Qwen, Tekken,
// DeepSeek V3), whose patterns are all tokenizers/core/edits.py's LINE_LOCAL_PATTERNS (a SentencePiece model:
// spTable says when it is local)
const LINE_LOCAL_MODES = new Set([1, 2, 3, 4, 5, 6, 7]);
const MARKS = { " ": "·", "\n": "↵", "\t": "→", "\r": "␍" };
const SPOKEN = { " ": ["space", "spaces"], "\n": ["newline", "newlines"], "\t": ["tab", "tabs"],
  "\r": ["carriage return", "carriage returns"] };
const NOT_PRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]/u;  // str.isprintable's False
const MARK_FIRST = /^\p{M}/u;

// -- loading: the module, a vocabulary, the names table, each once per visit ---------------------------------
function loadScript(url) {
  return new Promise((resolve, reject) => {
    const s = document.createElement("script");
    s.src = url;
    s.onload = resolve;
    s.onerror = () => reject(new Error("could not load " + url));
    document.head.append(s);
  });
}

async function bytesOf(url) {
  const r = await fetch(url);
  if (!r.ok) throw new Error(`${url}: HTTP ${r.status}`);
  return new Uint8Array(await r.arrayBuffer());
}

export function whyNot() {
  if (typeof WebAssembly !== "object" || typeof WebAssembly.instantiate !== "function")
    return "this browser has no WebAssembly";
  if (typeof TextEncoder !== "function" || typeof BigInt64Array !== "function")
    return "this browser lacks TextEncoder or 64-bit typed arrays";
  return "";
}

export function loadVocab(assets) {
  if (!LIVE.core) {
    LIVE.core = (async () => {
      if (typeof TokenLensWasm === "undefined") await loadScript(assets.host);
      return TokenLensWasm.load(await bytesOf(assets.wasm));
    })();
  }
  if (!LIVE.names) LIVE.names = bytesOf(assets.names).then(b => JSON.parse(new TextDecoder().decode(b)));
  let got = LIVE.vocabs.get(assets.vocab);
  if (!got) {
    got = (async () => {
      const [core, data] = await Promise.all([LIVE.core, bytesOf(assets.vocab)]);  // the host script first
      if ((await TokenLensWasm.verifyBlob(data)) === false) throw new Error("the vocabulary file is damaged");
      return { vocab: core.vocab(data), table: tokenTable(TokenLensWasm.readBlob(data)), names: await LIVE.names };
    })();
    LIVE.vocabs.set(assets.vocab, got);
  }
  return got;
}

// id -> that token's bytes, and the merge rank rule of BPETokenizer.merge_rank (every token of more than one
// byte was made by a merge: id minus the first such id)
export function tokenTable(b) {
  const { header, lengths, ids, tokBytes } = b;
  if (header.algorithm === "sentencepiece_bpe") return spTable(b);
  const n = header.ntok, offsets = new Uint32Array(n + 1);
  let firstMerge = Infinity;
  for (let k = 0; k < n; k++) {
    offsets[k + 1] = offsets[k] + lengths[k];
    if (lengths[k] > 1 && ids[k] < firstMerge) firstMerge = ids[k];
  }
  let index = null;
  if (!header.sequential_ids) {
    index = new Map();
    for (let k = 0; k < n; k++) index.set(ids[k], k);
  }
  const enc = new TextEncoder();
  const special = firstSpelling(Object.entries(header.special_tokens), enc);
  // a pipeline's (blob.py _serialize_pipeline): its other added tokens, always matched, and its normalizer
  const added = header.added || [];
  const addedBytes = firstSpelling(added, enc);
  const literal = (id) => special.get(id) || addedBytes.get(id);
  return {
    specials: header.special_tokens,
    special,
    parses: true,  // the special tokens' strings are parsed from the text when the page says so
    finders: addedFinders(header.special_tokens, added),
    normalizer: header.normalizer || "",
    // an edit is encoded again only between line cuts (editTokens): the C pre-tokenizer's mode is one of the
    // line-local patterns (tokenizers/core/edits.py says why), no added token holds a newline, and, when they
    // are parsed, no special token does (one would cross a cut)
    lineLocal: LINE_LOCAL_MODES.has(header.mode) && !added.some(([s]) => s.includes("\n")),
    specialNewline: Object.keys(header.special_tokens).some(s => s.includes("\n")),
    sp: null,
    piece: () => "",
    fallback: () => false,
    bytes(id) {
      const got = literal(id);
      if (got) return got;
      const k = index ? index.get(id) : id - header.first_id;
      return tokBytes.subarray(offsets[k], offsets[k + 1]);
    },
    size(id) {  // bytes(id).length, without making the view
      const got = literal(id);
      if (got) return got.length;
      return lengths[index ? index.get(id) : id - header.first_id];
    },
    // (an added token was made by no merge: PipelineTokenizer.merge_rank)
    rank(id, nbytes) { return !literal(id) && nbytes > 1 ? id - (firstMerge === Infinity ? 256 : firstMerge) : null; },
  };
}

// id -> the UTF-8 bytes of its first spelling in [string, id] pairs (o200k_harmony spells id 200018 two ways: the
// library decodes it as the first, BPETokenizer.token_bytes)
function firstSpelling(pairs, enc) {
  const out = new Map();
  for (const [s, id] of pairs) if (!out.has(id)) out.set(id, enc.encode(s));
  return out;
}

// The finders of a vocabulary's literal tokens, as tokenizers/pipeline/added_tokens.py allowed_matcher makes them:
// in the text as typed, the special tokens (when the page parses them) and the other added tokens not marked
// normalized; then, between those, the added tokens marked normalized (the text is its normalized form here:
// liveModel draws only texts the normalizer leaves as they are). Each finds the leftmost match, the longest there
// (a regular expression of the strings, longest first), as tokenizers/core/literals.py does.
function addedFinders(specials, added) {
  const make = (pairs) => {
    if (!pairs.length) return null;
    const ids = new Map(pairs);
    const source = [...ids.keys()].filter(s => s).sort((a, b) => b.length - a.length)
      .map(s => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|");
    return source ? { re: new RegExp(source, "gu"), ids } : null;
  };
  const raw = added.filter(([, , normalized]) => !normalized).map(([s, id]) => [s, id]);
  return {
    raw: [make(raw), make([...Object.entries(specials), ...raw])],  // [not parsing specials, parsing them]
    normalized: make(added.filter(([, , normalized]) => normalized).map(([s, id]) => [s, id])),
  };
}

// A SentencePiece BPE model's table (blob.py's "sentencepiece_bpe"): each id's piece as the vocabulary spells it
// (SentencePieceTokenizer.piece_of), its bytes (token_bytes: a byte piece's one byte, else the piece with ▁ as a
// space), which ids are byte-fallback pieces; no merge ranks (merge_rank is None), and control pieces (<s>) are
// never parsed from text (parseable_specials is empty)
export function spTable(b) {
  const { header, lengths, ids, tokBytes, byteIds } = b;
  const dec = new TextDecoder("utf-8", { ignoreBOM: true }), enc = new TextEncoder();  // a piece may be U+FEFF
  const pieces = new Map(), byteOf = new Map(), cache = new Map();
  let at = 0;
  for (let k = 0; k < header.ntok; k++) {
    pieces.set(ids[k], dec.decode(tokBytes.subarray(at, at + lengths[k])));
    at += lengths[k];
  }
  const spelled = header.byte_pieces || [];
  for (let x = 0; x < 256; x++) {
    if (spelled[x]) { byteOf.set(byteIds[x], x); pieces.set(byteIds[x], spelled[x]); }
  }
  const special = new Map(Object.entries(header.special_tokens).map(([s, id]) => [id, enc.encode(s)]));
  for (const [s, id] of Object.entries(header.special_tokens)) pieces.set(id, s);
  return {
    specials: header.special_tokens,
    special,
    parses: false,
    // an edit is encoded again only between line cuts (editTokens) when no piece holds a line break and the
    // model has byte fallback: then a line break is never merged (its byte piece stands alone), the merges on
    // either side of it are independent, and the text's ids are its parts' ids, each encoded without the dummy
    // prefix but the first (tl_sp_encode_part; tests/test_native_sentencepiece.py proves it for the C core and
    // sentencepiece's own). Without byte fallback a run of unknown characters is one <unk>, across a break.
    // (A model whose normalizer removes extra whitespace, which is not local, never gets a blob: native_refusal.)
    lineLocal: (header.sp_flags & 4) !== 0 && !Array.from(pieces.values()).some(p => p.includes("\n")),
    specialNewline: false,
    sp: { dummy: (header.sp_flags & 1) !== 0, byteOf },
    piece: (id) => pieces.get(id) || "",
    fallback: (id) => byteOf.has(id),
    bytes(id) {
      let got = cache.get(id);
      if (got === undefined) {
        got = special.has(id) ? special.get(id) : byteOf.has(id) ? Uint8Array.of(byteOf.get(id))
          : enc.encode((pieces.get(id) || "").replaceAll("\u2581", " "));
        cache.set(id, got);
      }
      return got;
    },
    rank: () => null,
  };
}

// How many input bytes each SentencePiece token covers (Tokenizer.tokenize's spans for mistral_sp: the piece
// lengths of span_lengths, or SentencePiece's own offsets with _exact_spans' fix-up when the text holds a
// literal ▁). The model's normalizer only turns spaces into ▁ and adds the dummy prefix, so each character of
// a piece stands for one input character: itself, or for a ▁ a space or a literal ▁ (whichever the text has
// there); the first piece's leading ▁ is the dummy prefix, which stands for nothing; a byte piece is one byte.
// `atStart`: the text starts the whole text, where the dummy prefix is (a part of it after a line cut has none).
function spLengths(text, ids, table, off, atStart) {
  const n = ids.length, lens = new Int32Array(n), byteOf = table.sp.byteOf;
  let b = 0;
  for (let k = 0; k < n; k++) {
    const id = ids[k];
    let len = 0;
    if (byteOf.has(id)) len = 1;
    else {
      let skip = k === 0 && table.sp.dummy && atStart;
      for (const ch of table.piece(id)) {
        if (ch === "\u2581") {
          if (skip) { skip = false; continue; }
          const j = off.u16[b + len];  // the input character this ▁ stands for
          len += j >= 0 && text.charCodeAt(j) === 0x2581 ? 3 : 1;
        } else {
          const cp = ch.codePointAt(0);
          len += cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
        }
        skip = false;
      }
    }
    lens[k] = len;
    b += len;
  }
  return lens;
}

// ids of a text: its literal tokens found (table.finders: the special-token strings when `parse`, a pipeline's
// added tokens always), the rest through the C core; `atStart` false: the text is a part of a longer one that does
// not start it (a SentencePiece model puts its dummy prefix only in front of the whole text, and never parses its
// control pieces: spTable has no finders)
export function encodeText(vocab, table, text, parse, atStart = true) {
  const f = table.finders;
  if (!f) return Array.from(vocab.encode(text, atStart));
  const out = [];
  const plain = (s) => { if (s) for (const id of vocab.encode(s)) out.push(id); };
  const between = (s) => found(f.normalized, s, (id) => out.push(id), plain);
  found(f.raw[parse ? 1 : 0], text, (id) => out.push(id), between);
  return out;
}

// `text` cut by a finder: each match's id given to `token`, each stretch between matches to `rest`
function found(finder, text, token, rest) {
  if (!finder) { rest(text); return; }
  const re = finder.re;
  re.lastIndex = 0;
  let at = 0, m;
  while ((m = re.exec(text)) !== null) {
    rest(text.slice(at, m.index));
    token(finder.ids.get(m[0]));
    at = m.index + m[0].length;
  }
  rest(text.slice(at));
}

// Whether the browser draws `text` exactly as the server would for a vocabulary with a normalizer (Qwen's NFC,
// Claude's NFKC): only when the normalizer leaves it as it is, so that the tokens tile the text as typed (the
// server's span_lengths path). String.normalize follows this browser's Unicode, which may be newer than the
// server's Python: a text it leaves as it is, with no character this browser has unassigned, Python leaves too
// (Unicode's normalization stability: what a newer version leaves normalized, an older one does; a character
// an older browser lacks is refused here). Any other text is drawn by the server (the column defers).
const UNASSIGNED = /\p{Cn}/u;
export function normalizedAlready(table, text) {
  const form = table.normalizer;
  if (!form) return true;
  if (!/[^\x00-\x7f]/.test(text)) return true;  // ASCII: every form leaves it as it is
  return !UNASSIGNED.test(text) && text.normalize(form) === text;
}

// -- a text's tokens, and an edit encoded again only where it changed (issue 22) ------------------------------
// The tokens of a text: {text, n, ids, b, u, c, inside} with, for each token k and at k = n for the text's
// end, b[k] its first byte, u[k] the UTF-16 index of the first character that starts at or after that byte,
// c[k] how many code points start before it, and inside[k] 1 when the token starts inside a character (a
// byte-level token holding part of one). All are non-decreasing, so each can be bisected.
const utf8Size = (cp) => cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;

// rows: per whitespace option, the segment rows (buildModel) of the last model, by their first token
function newTokens(text, n) {
  return { text, n, kept: 0, rows: [[], []], ids: new Int32Array(n), b: new Int32Array(n + 1), u: new Int32Array(n + 1),
           c: new Int32Array(n + 1), inside: new Uint8Array(n + 1) };
}

// the starts of tokens whose byte lengths are `lens`, tiling text[u0:u1) from byte b0 and code point c0,
// written into t's arrays from index `at` (one walk over those characters); the end's entry too (at + lens.length)
function placeTokens(t, at, text, u0, u1, b0, c0, lens) {
  let i = u0, bAt = b0, cAt = c0, tb = b0;  // the character at UTF-16 index i starts at byte bAt, code point cAt
  for (let k = 0; k <= lens.length; k++) {
    while (bAt < tb && i < u1) {
      const cp = text.codePointAt(i);
      bAt += utf8Size(cp);
      i += cp > 0xffff ? 2 : 1;
      cAt++;
    }
    t.b[at + k] = tb;
    t.u[at + k] = i;
    t.c[at + k] = cAt;
    t.inside[at + k] = bAt !== tb ? 1 : 0;
    if (k < lens.length) tb += lens[k];
  }
}

// The reference: the whole text's tokens placed (`ids` and `lens`, each token's bytes: textTokens' encode)
function wholeTokens(text, [ids, lens]) {
  const t = newTokens(text, ids.length);
  t.ids.set(ids);
  placeTokens(t, 0, text, 0, text.length, 0, 0, lens);
  return t;
}

// tokenizers/core/edits.py's rule, on UTF-16 indices. A space is what Python's str.isspace or JavaScript's
// \s calls one (either: a cut the other would not make is not made, and a cut not made costs time only)
const SPACE = /[\s\x1c-\x1f\x85]/;
const MAX_CANDIDATES = 256;  // edits.py's: newlines looked at for a cut on each side

function isLineCut(text, c) {
  return c >= 2 && c < text.length && text.charCodeAt(c - 1) === 10 && !SPACE.test(text[c - 2])
    && !SPACE.test(text[c]);
}

// (UTF-16 units a and b start with in common, units they end with in common, not overlapping the first)
export function commonAffixes(a, b) {
  const n = Math.min(a.length, b.length);
  let p = 0;
  while (p < n && a.charCodeAt(p) === b.charCodeAt(p)) p++;
  let s = 0;
  while (s < n - p && a.charCodeAt(a.length - 1 - s) === b.charCodeAt(b.length - 1 - s)) s++;
  return [p, s];
}

// edits.left_cut: the last line cut c with text[:c + 1] inside text[:before] (0 when none is found)
export function leftCut(text, before) {
  let end = before - 1;
  for (let k = 0; k < MAX_CANDIDATES; k++) {
    const i = end > 0 ? text.lastIndexOf("\n", end - 1) : -1;
    if (i < 0) return 0;
    if (isLineCut(text, i + 1)) return i + 1;
    end = i;
  }
  return 0;
}

// edits.right_cut: the first line cut c with text[c - 2:] inside text[after:] (text.length when none is found)
export function rightCut(text, after) {
  let start = after + 1;
  for (let k = 0; k < MAX_CANDIDATES; k++) {
    const i = text.indexOf("\n", start);
    if (i < 0) return text.length;
    if (isLineCut(text, i + 1)) return i + 1;
    start = i + 1;
  }
  return text.length;
}

// edits._token_at: the first token starting at UTF-16 index `at` on a character's first byte, with no empty
// token there; null when no token boundary is there
function tokenAt(t, at) {
  let lo = 0, hi = t.n;
  while (lo < hi) { const m = (lo + hi) >> 1; if (t.u[m] < at) lo = m + 1; else hi = m; }
  if (lo >= t.n || t.u[lo] !== at || t.inside[lo] || t.b[lo + 1] === t.b[lo]) return null;
  return lo;
}

// edits.retokenize: the tokens of `text` from those of `prev` (an earlier text, encoded with the same options)
// outside the lines the edit touched; `encode(stretch, atStart)` encodes the stretch between the cuts: [ids, each
// one's bytes]. null when nothing can be kept (no cut on either side, no token boundary at a cut): then the
// caller encodes the whole text
export function editTokens(prev, text, encode) {
  const old = prev.text;
  if (old === text) return prev;
  const [p, s] = commonAffixes(old, text);
  const a = leftCut(text, p), c = rightCut(text, text.length - s);
  if (a === 0 && c === text.length) return null;
  const cOld = c - text.length + old.length;
  const i = tokenAt(prev, a), j = cOld < old.length ? tokenAt(prev, cOld) : prev.n;
  if (i === null || j === null || i > j) return null;
  const [mid, lens] = encode(text.slice(a, c), a === 0), m = mid.length, tail = prev.n - j;
  const t = newTokens(text, i + m + tail);
  t.kept = i + tail;  // tokens not encoded again (for the tests and benchmarks)
  t.ids.set(prev.ids.subarray(0, i));
  t.ids.set(mid, i);
  t.ids.set(prev.ids.subarray(j, prev.n), i + m);
  for (const x of ["b", "u", "c", "inside"]) t[x].set(prev[x].subarray(0, i));
  placeTokens(t, i, text, a, c, prev.b[i], prev.c[i], lens);  // its last entry is the tail's first
  const db = t.b[i + m] - prev.b[j], du = c - cOld, dc = t.c[i + m] - prev.c[j];
  for (let k = 0; k <= tail; k++) {  // the tokens after the stretch: their starts shifted
    t.b[i + m + k] = prev.b[j + k] + db;
    t.u[i + m + k] = prev.u[j + k] + du;
    t.c[i + m + k] = prev.c[j + k] + dc;
  }
  t.inside.set(prev.inside.subarray(j, prev.n + 1), i + m);
  // the rows of the segments kept (no segment crosses a cut: a cut is on a character's first byte)
  t.rows = prev.rows.map(r => spliceRows(r, t.n, i, j, tail));
  return t;
}

// -- Python's spellings: bytes and str repr, hexbytes -----------------------------------------------------------
const hex2 = (x) => x.toString(16).padStart(2, "0");
export const hexbytes = (b) => Array.from(b, x => hex2(x).toUpperCase()).join(" ");

export function bytesRepr(b) {
  const hasQ = b.includes(39), hasDQ = b.includes(34);
  const q = hasQ && !hasDQ ? '"' : "'";
  let s = "b" + q;
  for (const x of b) {
    if (x === 92) s += "\\\\";
    else if (x === q.charCodeAt(0)) s += "\\" + q;
    else if (x === 9) s += "\\t";
    else if (x === 10) s += "\\n";
    else if (x === 13) s += "\\r";
    else if (x < 32 || x >= 127) s += "\\x" + hex2(x);
    else s += String.fromCharCode(x);
  }
  return s + q;
}

export function strRepr(t) {
  const q = t.includes("'") && !t.includes('"') ? '"' : "'";
  let s = q;
  for (const ch of t) {
    const cp = ch.codePointAt(0);
    if (ch === "\\") s += "\\\\";
    else if (ch === q) s += "\\" + q;
    else if (ch === "\t") s += "\\t";
    else if (ch === "\n") s += "\\n";
    else if (ch === "\r") s += "\\r";
    else if (ch !== " " && NOT_PRINTABLE.test(ch)) {
      s += cp < 0x100 ? "\\x" + hex2(cp) : cp < 0x10000 ? "\\u" + cp.toString(16).padStart(4, "0")
        : "\\U" + cp.toString(16).padStart(8, "0");
    } else s += ch;
  }
  return s + q;
}

// -- span_model's pieces ----------------------------------------------------------------------------------------
// tokenizers.core.html._preferred and assign_colors
const preferred = (id) => (Math.imul(id, 2654435761 | 0) >>> 0) % PALETTE_SIZE;

// `keys`: one object per distinct key (the same object for every segment with the same ids: buildModel's `ref`),
// on which each call keeps the key's colour, stamped with the call's generation (in place of a map of the
// call's own). Returns [colour, whether it is the previous segment's] as two arrays
let generation = 0;

export function assignColors(keys, firstIds) {
  const gen = ++generation, n = keys.length, color = new Uint8Array(n), same = new Uint8Array(n);
  const colorOf = (key) => key.gen === gen ? key.color : -1;
  let prev = -1;
  for (let k = 0; k < n; k++) {
    let c = colorOf(keys[k]);
    if (c < 0) {
      const next = k + 1 < n ? colorOf(keys[k + 1]) : -1;  // the avoided: the previous colour and the next's
      c = preferred(firstIds[k]);
      for (let step = 0; step < PALETTE_SIZE; step++) {
        const x = (c + step) % PALETTE_SIZE;
        if (x !== prev && x !== next) { c = x; break; }
      }
      keys[k].gen = gen;
      keys[k].color = c;
    }
    color[k] = c;
    same[k] = c === prev ? 1 : 0;
    prev = c;
  }
  return [color, same];
}

function visibleParts(s, whitespace) {
  if (!whitespace) return s ? [["", s]] : [];
  const out = [];
  let run = "";
  for (const ch of s) {
    const mark = MARKS[ch];
    if (mark === undefined) { run += ch; continue; }
    if (run) { out.push(["", run]); run = ""; }
    out.push(["ws", mark]);
    if (ch === "\n") run += "\n";
  }
  if (run) out.push(["", run]);
  return out;
}

export function spoken(s, names) {
  const chars = Array.from(s);
  const named = (ch) => SPOKEN[ch] ? SPOKEN[ch][0] : names[ch];
  if (!s.includes(" ") && !chars.some(ch => NOT_PRINTABLE.test(ch))) return s || "empty";
  const words = [];
  let run = "", k = 0;
  while (k < chars.length) {
    const ch = chars[k], name = named(ch);
    if (name === undefined) { run += ch; k++; continue; }
    if (run) { words.push(run); run = ""; }
    let n = 1;
    while (k + n < chars.length && chars[k + n] === ch) n++;
    words.push(n === 1 ? name : `${n} ${SPOKEN[ch] ? SPOKEN[ch][1] : name + "s"}`);
    k += n;
  }
  if (run) words.push(run);
  return words.join(" ") || "empty";
}

// tokenizers.core.html.token_tooltip (the unknown token aside: these vocabularies never give one)
function tokenTooltip(id, bytes, rank, special, piece, fallback) {
  const lines = [`id ${id}`, `bytes ${hexbytes(bytes) || "(none)"}`, `repr ${bytesRepr(bytes)}`];
  if (piece) lines.push(`piece ${piece}`);
  if (rank !== null) lines.push(`merge rank ${rank}`);
  if (special) lines.push("special token");
  if (fallback) lines.push("byte-fallback piece (no piece for this character)");
  return lines.join("\n");
}

const utf8 = (b, fatal) => { try { return new TextDecoder("utf-8", { fatal, ignoreBOM: true }).decode(b); } catch { return null; } };

// tokenizers.core.html.word_markers: (prefix, suffix) a piece's spelling adds around its own characters
function wordMarkers(piece, bytes) {
  if (!piece) return null;
  const surface = utf8(bytes, true);
  if (surface === null || piece === surface) return null;
  if (piece.startsWith(surface)) return ["", piece.slice(surface.length)];
  if (piece.endsWith(surface)) return [piece.slice(0, piece.length - surface.length), ""];
  return null;
}

// tokenizers.core.html._body_parts (and _marked_parts): the visible text of a segment of `shown` (its line
// breaks aside), whose first token has this piece and these bytes
function bodyParts(piece, bytes, shown, whitespace) {
  const markers = wordMarkers(piece, bytes);
  if (markers !== null) {
    let surface = utf8(bytes, true);
    let at = surface ? shown.indexOf(surface) : 0;
    if (at < 0) { at = 0; surface = shown; }
    const out = visibleParts(shown.slice(0, at), whitespace);
    if (markers[0]) out.push(["wm", markers[0]]);
    if (surface && MARK_FIRST.test(surface)) out.push(["mark", "◌"]);
    out.push(...visibleParts(surface, whitespace));
    if (markers[1]) out.push(["wm", markers[1]]);
    return out.concat(visibleParts(shown.slice(at + surface.length), whitespace));
  }
  if (piece && piece === utf8(bytes, false)) piece = "";
  const marks = piece ? piece.length - piece.replace(/^\u2581+/, "").length : 0;
  const out = [];
  if (marks) {
    const spaces = shown.length - shown.replace(/^ +/, "").length;
    out.push(["sp", "▁".repeat(marks)]);
    shown = shown.slice(Math.min(marks, spaces));
  }
  if (shown && MARK_FIRST.test(shown)) out.push(["mark", "◌"]);
  return out.concat(visibleParts(shown, whitespace));
}

// where each UTF-8 byte offset of `text` falls in its JavaScript string (-1 inside a character): SentencePiece's
// token lengths (spLengths) need it
export function offsets(text) {
  const nbytes = new TextEncoder().encode(text).length;
  const u16 = new Int32Array(nbytes + 1).fill(-1);
  let b = 0, i = 0;
  for (const ch of text) {
    u16[b] = i;
    b += utf8Size(ch.codePointAt(0));
    i += ch.length;
  }
  u16[b] = i;
  return { u16, nbytes };
}

// the byte where code point `cp` starts (cp up to the text's code points: its end)
function byteOfCp(t, cp) {
  let lo = 0, hi = t.n + 1;  // the last entry starting at most cp code points in, on a character's start
  while (lo < hi) { const m = (lo + hi) >> 1; if (t.c[m] <= cp) lo = m + 1; else hi = m; }
  let k = lo - 1;
  while (k > 0 && t.inside[k]) k--;
  let b = t.b[k], i = t.u[k];
  for (let q = t.c[k]; q < cp; q++) {
    const x = t.text.codePointAt(i);
    b += utf8Size(x);
    i += x > 0xffff ? 2 : 1;
  }
  return b;
}

// ui.paging.char_window on the tokens' byte starts: [lo, hi) token indices covering code points [c0, c1)
function charWindow(t, c0, c1) {
  const n = t.n, starts = t.b, b0 = byteOfCp(t, c0), b1 = byteOfCp(t, c1);
  const bisect = (x, right) => {
    let lo = 0, hi = n;
    while (lo < hi) { const m = (lo + hi) >> 1; if (right ? starts[m] <= x : starts[m] < x) lo = m + 1; else hi = m; }
    return lo;
  };
  let lo = c0 === 0 ? 0 : Math.max(0, bisect(b0, true) - 1);
  while (lo > 0 && t.inside[lo]) lo--;
  let hi = bisect(b1, false);
  while (hi < n && t.inside[hi]) hi++;
  return [lo, Math.max(lo, hi)];
}

// The spans model of span_model(text, tokens[window], whitespace, alternating, marks, flip_tips, owner, start,
// pinned, font_size, label) for a byte-level BPE vocabulary (`marks`: the byte offsets of the red "differ" edges,
// an array; `pinned`: the pinned token's index in the whole text, or null); with `win` = [chars per page, page] the server's page of the text
// (app_pages/compare.py window_of), else the whole text. Returns {model, count}.
// A box wider than LONG_CELLS monospace cells may break, with a mark at each break (tokenizers.core.html:
// is_long, breakable). Cells are told exactly here only for NARROW characters: below U+0300, Latin, Greek
// and Cyrillic but their marks and fullwidth forms, general punctuation, the whitespace marks and
// SentencePiece's ▁ (none is East Asian wide or combining: one cell each, and each its own grapheme
// cluster but CR LF); a line of up to LONG_CELLS / 2 code points is narrower whatever it holds. A longer
// line of other characters needs Python's East Asian widths and combining classes, so isLong says null
// (undecided) and the column waits for the server's run (tests/test_live_spans.py mirrors this class).
const LONG_CELLS = 16, MAX_BREAKS = 4096, BREAK_STEP = 16;
const UNBROKEN = new Set(["ids", "wm", "nl"]);
const ASCII = /^[\x00-\x7f]*$/;
const NARROW = /^(?:(?![\p{M}\uff00-\uffef])[\x00-\u02ff\p{Script=Latin}\p{Script=Greek}\p{Script=Cyrillic}\u2010-\u2027\u2192\u21b5\u240d\u2581])*$/u;
const cpLength = (t) => { let n = 0; for (const _ of t) n++; return n; };

export function isLong(parts) {
  let total = 0;
  for (const [, t] of parts) total += cpLength(t);
  if (total <= Math.floor(LONG_CELLS / 2)) return false;
  let undecided = false;
  for (const line of parts.map(p => p[1]).join("").split("\n")) {
    if (NARROW.test(line)) {
      if (line.length > LONG_CELLS) return true;
    } else if (cpLength(line) > LONG_CELLS / 2) undecided = true;
  }
  return undecided ? null : false;
}

// breakable for the parts isLong could measure (every character NARROW: one cluster each, but CR LF)
export function breakable(parts) {
  let total = 0;
  for (const [, t] of parts) total += t.length;
  const step = Math.min(BREAK_STEP, Math.max(1, Math.ceil(total / MAX_BREAKS)));
  const out = [];
  let prev = "", since = 0;
  const add = (c, t) => {
    if (out.length && out[out.length - 1][0] === c) out[out.length - 1] = [c, out[out.length - 1][1] + t];
    else out.push([c, t]);
  };
  for (const [c, t] of parts) {
    if (t && ASCII.test(t) && ASCII.test(prev) && prev !== "\r" && prev !== "\n" && !t.includes("\r")
        && !t.includes("\n") && !UNBROKEN.has(c) && c !== "mark") {
      let at = 0;
      while (at < t.length) {
        if (since >= step) {
          if (prev) out.push(["brk", ""]);
          since = 0;
        }
        const piece = t.slice(at, at + step - since);
        add(c, piece);
        since += piece.length;
        at += piece.length;
        prev = piece[piece.length - 1];
      }
      continue;
    }
    const units = UNBROKEN.has(c) || c === "mark" ? [t] : (t.match(/\r\n|[\s\S]/gu) || []);
    for (const u of units) {
      if (!prev || !(prev === "\r" && u.startsWith("\n"))) {  // u starts a cluster
        if (since >= step) {
          if (prev && prev !== "\n" && u !== "\n" && c !== "ids") out.push(["brk", ""]);
          since = 0;
        }
        since += 1;
      }
      add(c, u);
      prev = u;
    }
  }
  return out;
}

// One segment's row but its colour and position (buildModel): its kinds of box, accessible name, tooltip, parts
// and line breaks, from its ids and the text it shows
function segmentRow(segIdsTyped, shown, table, names, whitespace) {
  const segIds = Array.from(segIdsTyped), group = segIds.length, grouped = group > 1;
  const specialAny = segIds.some(id => table.special.has(id));
  const fallbackAny = segIds.some(id => table.fallback(id));
  const kinds = ["tl-tok"];
  if (grouped) kinds.push("tl-group");
  if (specialAny) kinds.push("tl-special");
  if (fallbackAny) kinds.push("tl-fallback");
  const core = shown.replace(/[\r\n]+$/, ""), breaks = shown.slice(core.length);
  const which = grouped ? `${group} tokens, ids ${segIds.join(" ")}` : `id ${segIds[0]}`;
  const label = [spoken(shown, names), ...(specialAny ? ["special token"] : []),
    ...(fallbackAny ? ["byte fallback"] : []), which].join(", ");
  const piece = table.piece(segIds[0]);
  let body = core || piece ? bodyParts(piece, table.bytes(segIds[0]), core, whitespace) : [];
  if (breaks) {
    if (whitespace) body.push(...visibleParts(breaks, true).filter(p => p[1] !== "\n"));
    else if (!body.length) body = [["nl", "↵".repeat(breaks.split("\n").length - 1) || "␍"]];
  }
  let tip;
  if (grouped) {
    body.push(["ids", `[${group}]`]);
    tip = [`${group} tokens share ${strRepr(shown)}:`,
      ...segIds.map(id => `id ${id}: bytes ${hexbytes(table.bytes(id))}`)].join("\n");
  } else {
    const id = segIds[0], bytes = table.bytes(id);
    tip = tokenTooltip(id, bytes, table.rank(id, bytes.length), table.special.has(id), table.piece(id),
      table.fallback(id));
  }
  const long = isLong(body);
  if (long) body = breakable(body);
  return { kinds: kinds.join(" "), label, tip, body, breaks, long, oneLine: !core.includes("\n"), ids: segIds.join(" ") };
}

export function buildModel(t, table, names, o) {
  const text = t.text, ids = t.ids, n = t.n, starts = t.b;
  let lo = 0, hi = n;
  const ncp = t.c[n];
  if (o.win && ncp) {
    const [per, page] = o.win, pages = Math.floor((ncp - 1) / per) + 1, k = Math.min(page, pages - 1);
    [lo, hi] = charWindow(t, k * per, Math.min(ncp, (k + 1) * per));
  }
  // the window's segments (tokens that share a character) and their rows but colour and position: the row of
  // the last model for a segment among the tokens an edit kept (t.rows, by first token), else the one `o.memo`
  // holds for the same ids and text (token_spans.js keeps one per vocabulary and whitespace option, across
  // keystrokes: their tooltips, names and parts are what they were), else built (segmentRow)
  const memo = o.memo || new Map(), refs = o.refs || new Map(), at = t.rows[o.whitespace ? 1 : 0];
  const firsts = [], ms = [];
  for (let a = lo; a < hi;) {
    let m = at[a];
    if (m === undefined) {
      let b = a + 1;
      while (b < hi && t.inside[b]) b++;
      const shown = text.slice(t.u[a], t.u[b]);
      const idKey = b - a === 1 ? String(ids[a]) : Array.from(ids.subarray(a, b)).join(",");
      const key = idKey + "\u0000" + shown;
      m = memo.get(key);
      if (!m) {
        m = segmentRow(ids.slice(a, b), shown, table, names, o.whitespace);
        let ref = refs.get(idKey);
        if (!ref) refs.set(idKey, ref = { gen: 0, color: 0, tipGen: 0, tip: 0 });
        Object.assign(m, { ref, n: b - a, cls: [], labelGen: 0, label_ix: 0 });
        memo.set(key, m);
      }
      at[a] = m;
    }
    firsts.push(a);
    ms.push(m);
    a += m.n;
  }
  const [colors, sames] = o.alternating ? [null, null] : assignColors(ms.map(m => m.ref), firsts.map(a => ids[a]));
  const marks = o.marks && o.marks.length ? new Set(o.marks) : null;  // byte offsets (span_model's marks)
  // the tooltips (one per id, in order of first use) and names (one per segment's ids and text): which a
  // segment's is, kept on its row (`m`) and ids (`m.ref`), stamped with this model's generation
  const gen = ++generation, tips = [], labels = [], labelOf = [], rows = [];
  let undecided = false;  // a box whose width only Python tells (isLong): the server draws this column
  let pos = lo;
  for (let k = 0; k < ms.length; k++) {
    const a = firsts[k], m = ms[k], group = m.n, grouped = group > 1;
    let diff = false;
    if (marks) for (let j = a; j < a + group; j++) if (marks.has(starts[j])) { diff = true; break; }
    const pin = o.pinned != null && pos <= o.pinned && o.pinned < pos + group;
    const c = o.alternating ? k % 2 : colors[k], same = !o.alternating && sames[k] === 1;
    const plain = !diff && !pin, slot = (o.alternating ? 20 : 0) + 2 * c + (same ? 1 : 0);
    let cls = plain ? m.cls[slot] : undefined;
    if (cls === undefined) {  // span_model's order: kinds, tl-diff, tl-pin, colour, tl-same, tl-long
      cls = m.kinds + (diff ? " tl-diff" : "") + (pin ? " tl-pin" : "") + (o.alternating ? ` tl-a${c}` : ` tl-c${c}`);
      if (same) cls += " tl-same";
      if (m.long && m.oneLine) cls += " tl-long";  // one line: it moves to a line of its own first
      if (plain) m.cls[slot] = cls;
    }
    if (m.long === null) undecided = true;
    if (m.labelGen !== gen) {
      m.labelGen = gen;
      m.label_ix = labels.length;
      labels.push(m.label);
    }
    labelOf.push(m.label_ix);
    let tip;
    if (grouped) {
      tip = tips.length;
      tips.push(m.tip);
    } else {
      const ref = m.ref;
      if (ref.tipGen !== gen) {
        ref.tipGen = gen;
        ref.tip = tips.length;
        tips.push(m.tip);
      }
      tip = ref.tip;
    }
    rows.push([cls, tip, m.ids, pos, m.body, m.breaks]);
    pos += group;
  }
  const model = undecided ? null : { owner: o.owner || "", flip: !!o.flip, font: o.font || "",
    label: o.label || "Tokens", tips, segs: rows, labels, label_of: labelOf };
  return { model, count: n, chars: ncp, bytes: t.b[n] };
}

// A column whose spans the server left to this browser (a compact payload) that cannot be drawn here after
// all: the live box reports again without it, and the server's next run draws it (live_text.js)
export function askServer(source) {
  window.dispatchEvent(new CustomEvent("tl-live-report", { detail: { key: source } }));
}

// After a whole encode (no line cut around the edit, or a vocabulary that is not line-local): the rows of the
// segments at the start and at the end whose tokens are the last text's, on the same characters (found by
// comparing the two encodes: nothing is assumed of the encoder), so that buildModel looks up only the others
function keepRows(prev, t) {
  const n = t.n, m = prev.n, [p, s] = commonAffixes(prev.text, t.text);
  let i = 0;
  while (i < n && i < m && t.ids[i] === prev.ids[i] && t.b[i + 1] === prev.b[i + 1] && t.u[i + 1] <= p) i++;
  while (i > 0 && t.inside[i]) i--;  // on a segment's start: the segments before it are whole
  const db = t.b[n] - prev.b[m];
  let j = 0;
  while (j < n - i && j < m - i && t.ids[n - 1 - j] === prev.ids[m - 1 - j]
         && t.b[n - 1 - j] === prev.b[m - 1 - j] + db && t.text.length - t.u[n - 1 - j] <= s) j++;
  while (j > 0 && t.inside[n - j]) j--;
  t.rows = prev.rows.map(r => spliceRows(r, n, i, m - j, j));
}

// rows for n tokens: the first `head` of `r`, and `tail` of them from r[from] on at the end (a row array holds
// only as far as the last model's window: the others are empty)
function spliceRows(r, n, head, from, tail) {
  const out = new Array(n);
  for (let k = 0; k < head && k < r.length; k++) out[k] = r[k];
  for (let k = 0; k < tail && from + k < r.length; k++) out[n - tail + k] = r[from + k];
  return out;
}

// The tokens of a column's text: from the same vocabulary's tokens of the text before (editTokens) when its
// encoding is line-local (table.lineLocal), else (or with `whole`, the reference) the whole text encoded
export function textTokens(v, text, parse, whole = false) {
  const table = v.table;
  const encode = (s, atStart) => {  // a stretch of the text: [its ids, each one's bytes]
    const ids = encodeText(v.vocab, table, s, parse, atStart);
    if (table.sp) return [ids, spLengths(s, ids, table, offsets(s), atStart)];
    const lens = new Int32Array(ids.length);
    for (let k = 0; k < ids.length; k++) lens[k] = table.size(ids[k]);
    return [ids, lens];
  };
  const last = v.last || (v.last = [null, null]), prev = last[parse ? 1 : 0];
  let t = null;
  if (!whole && prev && table.lineLocal && !(parse && table.specialNewline)) t = editTokens(prev, text, encode);
  if (!t) {
    t = wholeTokens(text, encode(text, true));
    if (!whole && prev) keepRows(prev, t);
  }
  last[parse ? 1 : 0] = t;
  return t;
}

// The column of a live box's text (lone surrogates as U+FFFD, as the server's clean_text): its ids in `ids`; each
// vocabulary keeps its segments' rows (buildModel's memo) and its last text's tokens (textTokens) from one
// keystroke to the next. `d` holds the model's owner, flip, font and label, and for the text the server last ran
// on its marks and pinned token (app_pages/compare.py compact_spans: only the server knows them). `whole`: the
// whole text encoded (the reference the tests hold the edit path equal to)
export function liveModel(v, text, live, d, whole = false) {
  const clean = text.toWellFormed ? text.toWellFormed() : text;
  if (!normalizedAlready(v.table, clean)) return { model: null, count: 0, chars: 0, bytes: 0, ids: [] };
  const t = textTokens(v, clean, !!(live.parse && v.table.parses), whole);
  let memos = v.memos || (v.memos = [new Map(), new Map()]);
  if (memos[0].size + memos[1].size > 200000) {  // bounded: a visit that types a lot of different text starts afresh
    memos = v.memos = [new Map(), new Map()];
    v.refs = null;  // (with the rows the tokens keep: a row is its memo's, one per key, and so is its `ref`)
    for (const x of v.last) if (x) x.rows = [[], []];
  }
  const built = buildModel(t, v.table, v.names, { whitespace: live.whitespace, alternating: live.alternating,
    win: live.win, owner: d.owner, flip: d.flip, font: d.font, label: d.label, marks: d.marks, pinned: d.pinned,
    memo: memos[live.whitespace ? 1 : 0], refs: v.refs || (v.refs = new Map()) });
  built.ids = t.ids;
  return built;
}
