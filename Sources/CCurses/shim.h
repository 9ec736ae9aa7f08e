#ifndef MAPBOOK_CCURSES_SHIM_H
#define MAPBOOK_CCURSES_SHIM_H
/* SwiftPM drops pkg-config's -D flags: without these the wide-character API is invisible. */
#ifndef NCURSES_WIDECHAR
#define NCURSES_WIDECHAR 1
#endif
#ifndef _XOPEN_SOURCE_EXTENDED
#define _XOPEN_SOURCE_EXTENDED 1
#endif
#include <locale.h>
#include <ncursesw/curses.h>

/* Attribute macros do not import into Swift. */
static const attr_t MB_A_NORMAL = A_NORMAL;
static const attr_t MB_A_BOLD = A_BOLD;
static const attr_t MB_A_DIM = A_DIM;
static const attr_t MB_A_REVERSE = A_REVERSE;
static const attr_t MB_A_UNDERLINE = A_UNDERLINE;
static const mmask_t MB_ALL_MOUSE_EVENTS = ALL_MOUSE_EVENTS;
static const mmask_t MB_REPORT_MOUSE_POSITION = REPORT_MOUSE_POSITION;
static inline attr_t mb_color_pair(short n) { return COLOR_PAIR(n); }

#endif
