/* server_readonly: nbdkit's -r found in its command line, with nbdkit's
 * own option table, so that an option's argument is never taken for -r. */
#include <fcntl.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "server_readonly.h"

#define CMDLINE_MAX (256u << 10)
#define ARGS_MAX 4096

/* nbdkit 1.32's options (nbdkit --short-options, --long-options): only
 * which take an argument matters here, and which one is -r. */
static const char short_opts[] = "46D:e:fg:i:nop:P:rst:u:U:vV";
static const struct option long_opts[] = {
	{ "ipv4-only", no_argument, NULL, '4' }, { "ipv6-only", no_argument, NULL, '6' },
	{ "debug", required_argument, NULL, 'D' }, { "dump-config", no_argument, NULL, 1 },
	{ "dump-plugin", no_argument, NULL, 1 }, { "exit-with-parent", no_argument, NULL, 1 },
	{ "export", required_argument, NULL, 'e' }, { "export-name", required_argument, NULL, 'e' },
	{ "exportname", required_argument, NULL, 'e' }, { "filter", required_argument, NULL, 1 },
	{ "foreground", no_argument, NULL, 'f' }, { "no-fork", no_argument, NULL, 'f' },
	{ "group", required_argument, NULL, 'g' }, { "help", no_argument, NULL, 1 },
	{ "ip-addr", required_argument, NULL, 'i' }, { "ipaddr", required_argument, NULL, 'i' },
	{ "log", required_argument, NULL, 1 }, { "mask-handshake", required_argument, NULL, 1 },
	{ "new-style", no_argument, NULL, 'n' }, { "newstyle", no_argument, NULL, 'n' },
	{ "no-sr", no_argument, NULL, 1 }, { "old-style", no_argument, NULL, 'o' },
	{ "oldstyle", no_argument, NULL, 'o' }, { "pid-file", required_argument, NULL, 'P' },
	{ "pidfile", required_argument, NULL, 'P' }, { "port", required_argument, NULL, 'p' },
	{ "read-only", no_argument, NULL, 'r' }, { "readonly", no_argument, NULL, 'r' },
	{ "run", required_argument, NULL, 1 }, { "selinux-label", required_argument, NULL, 1 },
	{ "single", no_argument, NULL, 's' }, { "stdin", no_argument, NULL, 's' },
	{ "swap", no_argument, NULL, 1 }, { "threads", required_argument, NULL, 't' },
	{ "tls", required_argument, NULL, 1 }, { "tls-certificates", required_argument, NULL, 1 },
	{ "tls-psk", required_argument, NULL, 1 }, { "tls-verify-peer", no_argument, NULL, 1 },
	{ "unix", required_argument, NULL, 'U' }, { "user", required_argument, NULL, 'u' },
	{ "verbose", no_argument, NULL, 'v' }, { "version", no_argument, NULL, 'V' },
	{ "vsock", no_argument, NULL, 1 }, { NULL, 0, NULL, 0 },
};

bool server_readonly(void)
{
	static char buf[CMDLINE_MAX];
	char *argv[ARGS_MAX + 1];
	bool ro = false;
	ssize_t n, got = 0;
	int fd, argc = 0, c, i;

	if ((fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC)) < 0)
		return false;
	while (got < (ssize_t)sizeof(buf) - 1 && (n = read(fd, buf + got, sizeof(buf) - 1 - (size_t)got)) > 0)
		got += n;
	close(fd);
	buf[got] = '\0';
	for (i = 0; i < got && argc < ARGS_MAX; i += (int)strlen(buf + i) + 1)
		argv[argc++] = buf + i;
	argv[argc] = NULL;
	/* nbdkit is done with getopt: its state is ours to reset */
	opterr = 0;
	optind = 0;
	while ((c = getopt_long(argc, argv, short_opts, long_opts, NULL)) != -1)
		if (c == 'r')
			ro = true;
	optind = 0;
	return ro;
}
