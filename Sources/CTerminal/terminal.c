#include "CTerminal.h"
#include <sys/ioctl.h>

int mb_terminal_size(int fd, int *rows, int *columns) {
    struct winsize ws;
    if (ioctl(fd, TIOCGWINSZ, &ws) != 0 || ws.ws_row == 0 || ws.ws_col == 0) return -1;
    *rows = ws.ws_row;
    *columns = ws.ws_col;
    return 0;
}

int mb_terminal_pixels(int fd, int *rows, int *columns, int *width, int *height) {
    struct winsize ws;
    if (ioctl(fd, TIOCGWINSZ, &ws) != 0) return -1;
    *rows = ws.ws_row;
    *columns = ws.ws_col;
    *width = ws.ws_xpixel;
    *height = ws.ws_ypixel;
    return 0;
}
