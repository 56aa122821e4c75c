/* Token Lens native core, WebAssembly build only: the two functions a JavaScript host needs besides
   the C API of tl_native.h, to place its arguments (the vocabulary's arrays, the text) in the
   module's memory and to take them back. build.py compiles this with pretok.c and bpe.c for
   --target=wasm32-wasi (python -m tokenizers.bpe.native.build --wasm); the ctypes build leaves it out. */
#include <stdlib.h>
#include "tl_native.h"

void *tl_alloc(size_t size);
void tl_dealloc(void *p);

void *tl_alloc(size_t size) { return malloc(size ? size : 1); }
void tl_dealloc(void *p) { free(p); }
