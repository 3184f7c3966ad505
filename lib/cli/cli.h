/* cli: what every stripe tool shares on the command line: exit codes, size
 * arguments, --version, shell-quoted --export lines. */
#ifndef STRIPE_CLI_H
#define STRIPE_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct array;

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

/* Before a tool opens members for writing: refuses (message on stderr,
 * -1) a member that is mounted or held by md, LVM or another writer.
 * Signatures are not judged: the members are the array's own. */
int cli_refuse_busy(const char *tool, char *const *paths, int n);

/* After assembly: names on stderr every member given that belongs to no
 * array (no superblock) or to another one, and returns -1 if there is
 * one; members with skip[i] set (skip may be NULL) are not judged.  With
 * say_left_out, also tells why each other member was left out. */
int cli_refuse_strangers(const char *tool, const struct array *a, const bool *skip, bool say_left_out);

#endif
