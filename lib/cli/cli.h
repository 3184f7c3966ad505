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

/* A size in an option mdadm also has (--chunk, --size, --data-offset, the
 * bitmap chunk): a bare number is KiB, as mdadm reads it, so an mdadm line
 * carries over; a suffix as in cli_parse_size.  -1 on junk or overflow. */
int cli_parse_kib(const char *s, uint64_t *out);

/* A benchmark's size, which must carry its unit (bonnie++ reads a bare -s
 * as MiB, fio every bare size as bytes); 0 needs none.  0, or -1 on junk, or
 * CLI_SIZE_BARE for a bare number (cli_size_error words the hint). */
enum { CLI_SIZE_BARE = -2 };
int cli_parse_size_unit(const char *s, uint64_t *out);

/* "TOOL: OPT: 'ARG' is not a size ..." for what cli_parse_size_unit
 * returned, with the hint a bare number needs; always -1. */
int cli_size_error(const char *tool, const char *opt, const char *arg, int rc);

/* --raid0-layout's value as array_options takes it: "original" or "1" is
 * 1, "alternate" or "2" is 2; -1 for anything else. */
int cli_raid0_layout(const char *s);

void cli_version(const char *tool);

/* getopt_long names the program as argv[0] in its messages, a path when a
 * tool runs from the tree: the tool's name instead, as every message has. */
void cli_getopt_name(char **argv, const char *tool);

/* A usage error: "TOOL: WHY" (unless fmt is NULL: getopt_long said it),
 * then "Try 'TOOL --help'." on stderr; the help itself goes to stdout on
 * --help only.  Returns EXIT_ERROR. */
int cli_usage_error(const char *tool, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Prints KEY=value with value quoted for the shell (single quotes). */
void cli_export(FILE *f, const char *key, const char *value);
void cli_export_u64(FILE *f, const char *key, unsigned long long v);

/* Flushes stdout and turns a failed write (full disk, closed pipe) into
 * exit status 2 with a message, as util-linux's close_stdout does. */
void cli_close_stdout(void);

#endif
