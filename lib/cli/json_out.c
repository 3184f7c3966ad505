/* json_out: a --json document on stdout, or written beside FILE and renamed
 * over it, so a reader (a cron mail, a monitor) sees last run's report or
 * this run's, whole, never a mix; and a failed run says so in it. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/json_out.h"

/* The tool's last line on stderr.  stderr is one per process, and so is
 * this: the tools say their errors in many places (open_array among them),
 * and the document of a failed run must carry the same words. */
static struct said {
	bool kept;                   /* stderr passes through said_write */
	char line[512];              /* the line being said */
	size_t len;
	char last[512];              /* the last whole line */
} said;

static ssize_t said_write(void *cookie, const char *buf, size_t len)
{
	size_t i, done = 0;

	(void)cookie;
	while (done < len) {
		ssize_t n = write(STDERR_FILENO, buf + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		done += (size_t)n;
	}
	for (i = 0; i < len; i++) {
		if (buf[i] == '\r') {
			said.len = 0;        /* a progress bar redrawn: no message */
		} else if (buf[i] == '\n') {
			said.line[said.len] = 0;
			if (said.len)        /* a bar's closing newline is no message */
				memcpy(said.last, said.line, said.len + 1);
			said.len = 0;
		} else if (said.len + 1 < sizeof(said.line)) {
			said.line[said.len++] = buf[i];
		}
	}
	return (ssize_t)len;
}

/* stderr through said_write; left as it is if that cannot be made. */
static void keep_said(void)
{
	static const cookie_io_functions_t io = { .write = said_write };
	FILE *f;

	if (said.kept || !(f = fopencookie(NULL, "w", io)))
		return;
	setvbuf(f, NULL, _IONBF, 0);
	stderr = f;
	said.kept = true;
}

int json_out_option(struct json_out *o, const char *tool, const char *arg)
{
	o->tool = tool;
	o->on = true;
	o->on_stdout = !arg;
	o->path = arg;
	if (arg && !*arg) {
		fprintf(stderr, "%s: --json=: no file name; --json alone writes standard output\n", tool);
		return -1;
	}
	keep_said();
	return 0;
}

/* A new file beside path, readable as a file the tool had created
 * would be (0666 less the umask; mkstemp makes 0600). */
static FILE *open_beside(struct json_out *o)
{
	const char *slash = strrchr(o->path, '/');
	int dirlen = slash ? (int)(slash - o->path) + 1 : 0;
	mode_t mask = umask(0);
	FILE *f = NULL;
	int fd;

	umask(mask);
	if (asprintf(&o->tmp, "%.*s.%s.XXXXXX", dirlen, o->path, o->path + dirlen) < 0) {
		o->tmp = NULL;
		return NULL;
	}
	fd = mkstemp(o->tmp);
	if (fd < 0 || fchmod(fd, 0666 & ~mask) < 0 || !(f = fdopen(fd, "w"))) {
		int err = errno;

		if (fd >= 0) {
			close(fd);
			unlink(o->tmp);
		}
		errno = err;
	}
	return f;
}

int json_out_begin(struct json_out *o, int format)
{
	if (!o->on)
		return 0;
	o->f = stdout;
	if (o->path && !(o->f = open_beside(o))) {
		fprintf(stderr, "%s: %s: cannot write the report beside it: %s\n", o->tool, o->path, strerror(errno));
		free(o->tmp);
		o->tmp = NULL;
		o->on = false;
		return -1;
	}
	json_begin_format(&o->j, o->f, o->tool, format);
	o->begun = true;
	return 0;
}

/* The message of a failed run: msg, or what the tool said last, without
 * the "TOOL: " every line starts with (the document names the tool). */
static const char *error_text(const struct json_out *o, const char *msg)
{
	size_t n = strlen(o->tool);

	if (!msg)
		msg = said.last[0] ? said.last : "failed (no message)";
	if (strncmp(msg, o->tool, n) == 0 && strncmp(msg + n, ": ", 2) == 0)
		msg += n + 2;
	return msg;
}

/* Puts the finished temp file in place of path. */
static int replace(struct json_out *o)
{
	int rc = 0;

	if (fflush(o->f) != 0 || ferror(o->f) || fsync(fileno(o->f)) < 0)
		rc = -1;
	if (fclose(o->f) != 0)
		rc = -1;
	if (rc == 0 && rename(o->tmp, o->path) < 0)
		rc = -1;
	if (rc < 0) {
		fprintf(stderr, "%s: %s: the report was not written: %s\n", o->tool, o->path, strerror(errno));
		unlink(o->tmp);
	}
	free(o->tmp);
	o->tmp = NULL;
	return rc;
}

int json_out_end(struct json_out *o, int format, const char *verdict, const char *msg)
{
	bool failed = strcmp(verdict, "error") == 0 || strcmp(verdict, "unserved") == 0;

	if (!o->on)
		return 0;
	if (!o->begun && json_out_begin(o, format) < 0)
		return -1;
	while (o->j.depth > 1)
		json_close(&o->j);
	json_str(&o->j, "verdict", verdict);
	if (failed)
		json_str(&o->j, "error", error_text(o, msg));
	json_end(&o->j);
	o->begun = false;
	o->on = false;
	return o->path ? replace(o) : 0;
}
