#ifndef MAPBOOK_CNETLINK_H
#define MAPBOOK_CNETLINK_H

/* A netlink socket that receives the kernel's route and link changes (IPv4 and IPv6).
   Returns the descriptor, or -1 with errno set. */
int mb_route_events_open(void);

#endif
