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

/* term.h is left out (its capability macros are names like `lines`); this is all that is needed of it. */
extern char *tigetstr(const char *);

/* Whether ncurses itself asks the terminal for SGR (1006) mouse reports and decodes them: the
   terminal's XM capability names 1006 (xterm's does, tmux's and screen's do not). */
static inline int mb_ncurses_decodes_sgr_mouse(void) {
    const char *xm = tigetstr("XM");
    return xm != NULL && xm != (const char *)-1 && strstr(xm, "1006") != NULL;
}

/* The key code given to the start of an SGR mouse report when mapbook decodes it itself. */
static const int MB_KEY_SGR_MOUSE = KEY_MAX + 1;

/* Whether the current LC_CTYPE encodes UTF-8 (braille and box drawing need it). */
static inline int mb_locale_is_utf8(void) {
    const char *codeset = nl_langinfo(CODESET);
    return codeset != NULL && (strcmp(codeset, "UTF-8") == 0 || strcmp(codeset, "utf8") == 0);
}

#endif
