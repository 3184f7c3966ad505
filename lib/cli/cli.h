/* cli: what every stripe tool shares on the command line: exit codes, size
 * arguments, --version, shell-quoted --export lines. */
#ifndef STRIPE_CLI_H
#define STRIPE_CLI_H

#include <stdint.h>
#include <stdio.h>

enum exit_code {
	EXIT_OK = 0,         /* success */
	EXIT_PROBLEM = 1,    /* ran, and found a problem (mismatches, degraded array) */
	EXIT_ERROR = 2,      /* usage or runtime error */
};

/* "4096", "64K", "1M", "2G", "1T" (powers of 1024).  Returns -1 on junk. */
int cli_parse_size(const char *s, uint64_t *out);

/* --raid0-layout's value as array_options takes it: "original" or "1" is
 * 1, "alternate" or "2" is 2; -1 for anything else. */
int cli_raid0_layout(const char *s);

void cli_version(const char *tool);

/* Prints KEY=value with value quoted for the shell (single quotes). */
void cli_export(FILE *f, const char *key, const char *value);
void cli_export_u64(FILE *f, const char *key, unsigned long long v);

/* Flushes stdout and turns a failed write (full disk, closed pipe) into
 * exit status 2 with a message, as util-linux's close_stdout does. */
void cli_close_stdout(void);

#endif
