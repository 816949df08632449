/* call.c: a libtilerun call's messages (internal.h). The engine says
 * everything through libcommon's diag (diag_plain: "tile-run: error: MSG");
 * during a library call that goes to a buffer of the call's, whose first
 * line (less the "tile-run: error: ") is the caller's TilerunError.message.
 * diag's state is per thread, so calls in several threads do not mix. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE     /* memmem */
#endif
#include <stdio.h>
#include <string.h>
#include "internal.h"

void call_begin(Call *c, bool direct)
{
	memset(c, 0, sizeof *c);
	c->direct = direct;
	c->saved_sink = diag_sink;
	c->saved_tool = diag_tool;
	c->saved_user = diag_user;
	c->saved_errors = diag_errors;
	diag_tool = "tile-run";
	if (!direct) {
		diag_sink = &c->log;
		diag_user = false;
	}
}

/* the first line of the log, after its "error: " */
static void first_message(const StrBuf *log, char *out, size_t cap)
{
	const char *s = log->s ? log->s : "";
	const char *nl = strchr(s, '\n');
	size_t n = nl ? (size_t)(nl - s) : strlen(s);
	const char *e = memmem(s, n, "error: ", 7);
	if (e) {
		n -= (size_t)(e + 7 - s);
		s = e + 7;
	}
	if (n >= cap)
		n = cap - 1;
	memcpy(out, s, n);
	out[n] = 0;
}

int call_end(Call *c, int rc, TilerunError *err)
{
	if (!c->direct) {
		diag_sink = c->saved_sink;
		diag_user = c->saved_user;
	}
	diag_tool = c->saved_tool;
	diag_errors = c->saved_errors;
	if (err && rc != TILERUN_FAULT) {
		memset(err, 0, sizeof *err);
		err->buffer = -1;
		if (rc != TILERUN_SUCCESS) {
			err->kind = TILERUN_KIND_ERROR;
			first_message(&c->log, err->message, sizeof err->message);
			if (!err->message[0])
				snprintf(err->message, sizeof err->message, "error %d", rc);
		}
	}
	sb_free(&c->log);
	return rc;
}

int call_error(TilerunError *err, int rc, const char *msg)
{
	if (err) {
		memset(err, 0, sizeof *err);
		err->buffer = -1;
		err->kind = TILERUN_KIND_ERROR;
		snprintf(err->message, sizeof err->message, "%s", msg);
	}
	return rc;
}
