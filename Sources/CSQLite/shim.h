#ifndef MAPBOOK_CSQLITE_SHIM_H
#define MAPBOOK_CSQLITE_SHIM_H
#include <sqlite3.h>
#endif
