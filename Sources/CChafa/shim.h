#ifndef MAPBOOK_CCHAFA_SHIM_H
#define MAPBOOK_CCHAFA_SHIM_H
/* libchafa (Debian's libchafa-dev): pictures as terminal symbols with their colours. */
#include <chafa.h>
#endif
