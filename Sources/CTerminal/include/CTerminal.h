#ifndef MAPBOOK_CTERMINAL_H
#define MAPBOOK_CTERMINAL_H

/* The terminal's size from the kernel: ioctl is variadic, which Swift cannot call. Returns 0 on
   success. Kept apart from curses so the command line can ask without linking ncurses. */
int mb_terminal_size(int fd, int *rows, int *columns);

#endif
