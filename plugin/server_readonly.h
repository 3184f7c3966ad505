/* server_readonly: whether nbdkit was started read-only (its -r), asked
 * before any client connects, when the plugin opens the members. */
#ifndef STRIPE_PLUGIN_SERVER_READONLY_H
#define STRIPE_PLUGIN_SERVER_READONLY_H

#include <stdbool.h>

/* nbdkit's own command line (/proc/self/cmdline) parsed as nbdkit 1.32
 * parses it: true when -r, --readonly or --read-only is among its options.
 * nbdkit tells a plugin only later, in .preconnect and .open, but the
 * members must be opened (and a writer's hold taken, or not) at start. */
bool server_readonly(void);

#endif
