#ifndef MAPBOOK_CSTB_SHIM_H
#define MAPBOOK_CSTB_SHIM_H
/* Debian's libstb-dev ships stb_image compiled into libstb; only the declarations are needed. */
#include <stb_image.h>
#endif
