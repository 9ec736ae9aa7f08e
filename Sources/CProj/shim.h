#ifndef MAPBOOK_CPROJ_SHIM_H
#define MAPBOOK_CPROJ_SHIM_H
#include <proj.h>
#endif
