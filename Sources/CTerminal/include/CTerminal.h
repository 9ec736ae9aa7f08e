#ifndef MAPBOOK_CTERMINAL_H
#define MAPBOOK_CTERMINAL_H

/* The terminal's size from the kernel: ioctl is variadic, which Swift cannot call. Returns 0 on
   success. Kept apart from curses so the command line can ask without linking ncurses. */
int mb_terminal_size(int fd, int *rows, int *columns);

/* The window's size in cells and in pixels, as the terminal filled them in (pixels are 0 where it
   does not). Returns 0 on success. */
int mb_terminal_pixels(int fd, int *rows, int *columns, int *width, int *height);

#endif
