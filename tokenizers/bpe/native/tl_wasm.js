// Token Lens's C core in a JavaScript host (a browser page or Node): the WebAssembly module built by
// `python -m tokenizers.bpe.native.build --wasm` and a vocabulary blob made by
// tokenizers/bpe/native/blob.py (whose `parse` is the reference for `readBlob` here). The ids are the
// library's: the same C (pretok.c, bpe.c) with the same arrays BPETokenizer._c_encoder passes it, or
// for a SentencePiece BPE blob (header.algorithm "sentencepiece_bpe", mistral_sp) the same arrays
// SentencePieceTokenizer.native_encoder passes bpe.c's tl_sp_new.
// No imports, no network: the caller fetches the bytes (and may cache them by the blob's sha256).
//
//   const core = await TokenLensWasm.load(wasmBytes);
//   const vocab = core.vocab(blobBytes);      // reads the blob, builds the C encoder once
//   const ids = vocab.encode("some text");    // Int32Array; a lone surrogate counts as U+FFFD
//   vocab.free();
"use strict";

const TokenLensWasm = (() => {
  const MAGIC = "TLVOCAB\0";
  const FORMAT = 1;
  const PREFIX = 48;

  function readBlob(bytes) {
    const u8 = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
    if (String.fromCharCode(...u8.subarray(0, 8)) !== MAGIC) throw new Error("not a Token Lens vocabulary blob");
    const dv = new DataView(u8.buffer, u8.byteOffset, u8.byteLength);
    const version = dv.getUint32(8, true), hlen = dv.getUint32(12, true);
    if (version !== FORMAT) throw new Error(`blob format ${version}, this reader knows ${FORMAT}`);
    const body = u8.subarray(PREFIX);
    const header = JSON.parse(new TextDecoder().decode(body.subarray(0, hlen)));
    let pos = hlen + ((4 - (hlen % 4)) % 4);
    const take = (Ctor, n) => {  // a little-endian copy, aligned for the typed array
      const out = new Ctor(n);
      new Uint8Array(out.buffer).set(body.subarray(pos, pos + n * Ctor.BYTES_PER_ELEMENT));
      pos += n * Ctor.BYTES_PER_ELEMENT;
      return out;
    };
    const byteIds = take(Int32Array, 256);
    const pa = take(Int32Array, header.npairs), pb = take(Int32Array, header.npairs);
    const pnew = take(Int32Array, header.npairs);
    const lengths = take({1: Uint8Array, 2: Uint16Array, 4: Uint32Array}[header.len_bytes], header.ntok);
    pos += (4 - (pos % 4)) % 4;
    let ids;
    if (header.sequential_ids) {
      ids = new Int32Array(header.ntok);
      for (let k = 0; k < header.ntok; k++) ids[k] = header.first_id + k;
    } else {
      ids = take(Int32Array, header.ntok);
    }
    const scores = header.scores ? take(Float32Array, header.ntok) : null;  // SentencePiece only
    const tokBytes = body.subarray(pos);
    let total = 0;
    for (let k = 0; k < header.ntok; k++) total += lengths[k];
    if (total !== tokBytes.length) throw new Error("blob is truncated or has trailing bytes");
    return {header, byteIds, pa, pb, pnew, lengths, ids, tokBytes, scores};
  }

  // sha256 of the blob's body against the one in its prefix: true or false; null where the page cannot
  // tell (crypto.subtle exists only in secure contexts: https, localhost)
  async function verifyBlob(bytes) {
    const u8 = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
    if (typeof crypto === "undefined" || !crypto.subtle) return null;
    const got = new Uint8Array(await crypto.subtle.digest("SHA-256", u8.subarray(PREFIX)));
    const want = u8.subarray(16, 48);
    return got.every((b, i) => b === want[i]);
  }

  class Core {
    constructor(instance) {
      this.x = instance.exports;
      if (this.x._initialize) this.x._initialize();  // a WASI reactor's constructors (malloc's state)
      this.enc = new TextEncoder();
    }

    static async load(wasmBytes) {
      const {instance} = await WebAssembly.instantiate(wasmBytes, {});
      return new Core(instance);
    }

    u8() { return new Uint8Array(this.x.memory.buffer); }  // anew after each call: memory may grow

    alloc(n) {
      const p = this.x.tl_alloc(n);
      if (!p) throw new Error("wasm: out of memory");
      return p;
    }

    put(typed) {  // a copy of a typed array in the module's memory; its address
      const p = this.alloc(typed.byteLength);
      this.u8().set(new Uint8Array(typed.buffer, typed.byteOffset, typed.byteLength), p);
      return p;
    }

    vocab(blobBytes) { return new Vocab(this, readBlob(blobBytes)); }
  }

  class Vocab {
    constructor(core, b) {
      this.core = core;
      this.header = b.header;
      this.mode = b.header.mode;
      const x = core.x, n = b.header.ntok;
      const starts = new BigInt64Array(n + 1);  // tl_encoder_new takes int64 offsets
      let s = 0;
      for (let k = 0; k < n; k++) { starts[k] = BigInt(s); s += b.lengths[k]; }
      starts[n] = BigInt(s);
      // a SentencePiece BPE model: its own C encoder (tl_sp_*), no pre-tokenizer
      this.sp = b.header.algorithm === "sentencepiece_bpe";
      if (!this.sp && b.header.algorithm !== undefined) throw new Error(`unknown algorithm ${b.header.algorithm}`);
      const arrays = this.sp ? [b.byteIds, b.tokBytes, starts, b.ids, b.scores]
                             : [b.byteIds, b.pa, b.pb, b.pnew, b.tokBytes, starts, b.ids];
      const ptrs = arrays.map(a => core.put(a));
      try {
        if (this.sp) {
          this.h = x.tl_sp_new(b.header.sp_flags, b.header.unk_id, ptrs[0], ptrs[1], ptrs[2], ptrs[3], ptrs[4],
                               BigInt(n));
        } else {
          this.h = x.tl_encoder_new(b.header.by_ranks, b.header.shortcut, ptrs[0], ptrs[1], ptrs[2], ptrs[3],
                                    BigInt(b.header.npairs), ptrs[4], ptrs[5], ptrs[6], BigInt(n));
        }
      } finally {
        ptrs.forEach(p => x.tl_dealloc(p));  // the encoder keeps its own copies
      }
      if (!this.h) throw new Error("wasm: out of memory building the encoder");
      this.cap = 0; this.buf = 0; this.out = 0;
    }

    scratch(n) {  // one text buffer and one id buffer, grown as texts grow
      if (n <= this.cap) return;
      const x = this.core.x;
      if (this.cap) { x.tl_dealloc(this.buf); x.tl_dealloc(this.out); }
      this.cap = Math.max(n, 2 * this.cap, 4096);
      this.buf = this.core.alloc(this.cap);
      // ids: at most one per byte; SentencePiece's at most one per byte of its normalized text (3n + 3)
      this.out = this.core.alloc(4 * (this.sp ? 3 * this.cap + 3 : this.cap));
    }

    // UTF-8 bytes -> Int32Array of ids; `atStart` false: the bytes are a part of a text that does not start
    // it, which a SentencePiece model encodes without its dummy prefix (bpe.c tl_sp_encode_part)
    encodeBytes(data, atStart = true) {
      this.scratch(data.length);
      this.core.u8().set(data, this.buf);
      const x = this.core.x, n = BigInt(data.length);
      const k = Number(this.sp ? x.tl_sp_encode_part(this.h, this.buf, n, this.out, atStart ? 1 : 0)
                               : x.tl_encode(this.h, this.mode, this.buf, n, this.out));
      if (k < 0) throw new Error("wasm: encoding failed");
      return new Int32Array(this.core.x.memory.buffer, this.out, k).slice();
    }

    encode(text, atStart = true) { return this.encodeBytes(this.core.enc.encode(text), atStart); }

    free() {
      const x = this.core.x;
      if (this.cap) { x.tl_dealloc(this.buf); x.tl_dealloc(this.out); this.cap = 0; }
      if (this.h) { (this.sp ? x.tl_sp_free : x.tl_encoder_free)(this.h); this.h = 0; }
    }
  }

  return {load: Core.load, readBlob, verifyBlob, FORMAT};
})();

if (typeof module !== "undefined" && module.exports) module.exports = TokenLensWasm;
