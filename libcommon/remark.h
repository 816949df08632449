/* remark.h: optimization remarks in the two forms NVIDIA's tileiras writes
 * (docs/driver.md "Remarks"): LLVM's remark YAML (--remark-format=yaml, one
 * `--- !Kind` document per remark) and the command-line form (stdout).
 * A stage that makes remarks appends them to a StrBuf and writes that to
 * its --remarks-output-file; the driver concatenates the stages' files. */
#ifndef REMARK_H
#define REMARK_H
#include <stdbool.h>
#include "strbuf.h"

typedef struct Loc Loc;

typedef struct RemarkOut {
	StrBuf *b;
	bool yaml;
	const char *func, *pass;   /* command-line form: the last headers written */
	unsigned kinds;            /* REMARK_* bits to write; 0 = all */
	bool skip;                 /* the current remark's kind is not wanted */
} RemarkOut;

enum { REMARK_PASSED = 1, REMARK_MISSED = 2, REMARK_FAILURE = 4, REMARK_ANALYSIS = 8 };
/* "passed,missed,failed,analysis" (any subset) -> REMARK_* bits; -1 if bad */
int remark_kinds_parse(const char *list);

/* kind: "Passed", "Missed", "Failure" or "Analysis"; loc may be NULL or
 * have no file; func may be NULL. remark is the one-line message. */
void remark_begin(RemarkOut *o, const char *kind, const char *pass, const char *name,
		  const Loc *loc, const char *func, const char *remark);
/* One `- Key: value` argument (command-line: `= note: Key = value`;
 * a key named Reason becomes `= reason: value`). */
void remark_arg(RemarkOut *o, const char *key, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void remark_end(RemarkOut *o);

#endif
