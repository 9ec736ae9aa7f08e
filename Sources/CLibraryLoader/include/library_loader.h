#ifndef MAPBOOK_LIBRARY_LOADER_H
#define MAPBOOK_LIBRARY_LOADER_H

/* Libraries that only some runs need (libcurl, libcrypto, libsecret) are loaded when first used,
   not when mapbook starts: each library and the ones it brings cost every start, `--version` and
   the offline first frame included (docs/benchmarks.md, start-up). Their shims call this.

   The function `name` of the library `soname`, which is opened on the first call and kept in
   `*handle`; NULL when the library cannot be loaded or has no such function. Two threads opening
   it at once is harmless: dlopen hands back the same library. */
void *mb_library_symbol(void **handle, const char *soname, const char *name);

/* In a shim's wrapper: `found`, the function `name` (of pointer type `type`) from the shim's own
   lookup `symbol`, looked up on the first call and kept. */
#define MB_LIBRARY_LOOKUP(symbol, type, name) \
    static type function; \
    type found = __atomic_load_n(&function, __ATOMIC_ACQUIRE); \
    if (found == NULL) { found = (type)symbol(#name); __atomic_store_n(&function, found, __ATOMIC_RELEASE); }

#endif
