/* diag.c: the bottom of libcommon (diag.h): each thread's diagnostic
 * state (the tool and input names, the error count, the sink: libcommon's
 * only writable globals) and ice(). Uses stdio alone, so the allocator
 * (xalloc.c), which reports out of memory through ice(), StrBuf over it,
 * and the messages built in StrBufs (diag_msg.c) over that, all sit on
 * this file and it calls none of them. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include "diag.h"

_Thread_local const char *diag_tool = "tile";
_Thread_local const char *diag_input;
_Thread_local int diag_errors;
_Thread_local bool diag_user;
_Thread_local StrBuf *diag_sink;

void ice(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "%s: internal error: ", diag_tool);
	vfprintf(stderr, fmt, ap);
	fputs("\n(this is a bug in the compiler, not in your kernel; please report it)\n", stderr);
	va_end(ap);
	abort();
}
