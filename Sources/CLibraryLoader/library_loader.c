#include "library_loader.h"
#include <dlfcn.h>
#include <stddef.h>

void *mb_library_symbol(void **handle, const char *soname, const char *name) {
    void *library = __atomic_load_n(handle, __ATOMIC_ACQUIRE);
    if (library == NULL) {
        library = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
        if (library == NULL) return NULL;
        __atomic_store_n(handle, library, __ATOMIC_RELEASE);
    }
    return dlsym(library, name);
}
