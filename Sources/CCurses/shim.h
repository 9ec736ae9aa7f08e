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
#include <langinfo.h>
#include <string.h>
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
/* Mouse buttons (macros built from NCURSES_MOUSE_MASK). */
static const mmask_t MB_BUTTON1_PRESSED = BUTTON1_PRESSED;
static const mmask_t MB_BUTTON4_PRESSED = BUTTON4_PRESSED;
static const mmask_t MB_BUTTON5_PRESSED = BUTTON5_PRESSED;
static const mmask_t MB_BUTTON1_RELEASED = BUTTON1_RELEASED;

/* Whether the current LC_CTYPE encodes UTF-8 (braille and box drawing need it). */
static inline int mb_locale_is_utf8(void) {
    const char *codeset = nl_langinfo(CODESET);
    return codeset != NULL && (strcmp(codeset, "UTF-8") == 0 || strcmp(codeset, "utf8") == 0);
}

#endif
