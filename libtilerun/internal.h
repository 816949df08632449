/* internal.h: libtilerun's inside, shared by its files and the tile-run
 * command (cli.c), which reaches the engine's Module and a few launch
 * options the public API (tilerun.h) has no use for. Not installed.
 *
 *   call.c     a call's messages: diag's sink pointed at a buffer, the
 *              first line becoming TilerunError.message
 *   module.c   tilerunModuleLoad, the entries and their parameter blocks
 *   shape.c    a launch's kernel, grid, block and cluster checked
 *   launch.c   tilerunLaunch: registered buffers, copies, the run, faults
 *   bytecode.c tilerunModuleLoadBytecode through libtileiras
 *   cli.c      the tile-run command (run_main); run_main.c its main() */
#ifndef TILERUN_INTERNAL_H
#define TILERUN_INTERNAL_H
#include <stdbool.h>
#include "tilerun.h"
#include "exec.h"
#include "tmap.h"

struct TilerunModule {
	Module *m;
	char *text;             /* the PTX, NUL-terminated (the command's --nv-host reads it) */
	size_t len;
	TmapNote *notes;        /* tile-ptx's tensor-map notes (libcommon tmap.h) */
	int nnotes;
	char *name;
};

/* A library call's messages. call_begin: diag (thread-local) to c->log
 * as "tile-run: error: ..." lines, or left where it is (direct: the command,
 * whose messages go to stderr as they come). call_end: diag put back, err
 * (if any) filled from rc: TILERUN_KIND_ERROR and the log's first message
 * for an error, zeros for success; returns rc. */
typedef struct Call {
	StrBuf log;
	StrBuf *saved_sink;
	const char *saved_tool;
	bool saved_user, direct;
	int saved_errors;
} Call;
void call_begin(Call *c, bool direct);
int call_end(Call *c, int rc, TilerunError *err);
/* an error said at once (a NULL argument, before call_begin): rc */
int call_error(TilerunError *err, int rc, const char *msg);

/* load as tilerunModuleLoad, messages through diag as they come; RUN_OK or RUN_INPUT */
int tilerun_load(TilerunModule **out, const char *ptx, size_t len, const char *name);

/* a launch's kernel and shape, checked (docs/tile-run.md): the entry
 * (l->entry or the only one), block (l->block or .reqntid/.maxntid/128),
 * grid (with .blocksareclusters: l->grid counts clusters), cluster */
typedef struct Shape {
	int fidx;
	uint32_t grid[3], block[3], cluster[3];
	bool explicit_cluster;
} Shape;
/* RUN_OK, or after a message RUN_INPUT / RUN_USAGE; cli: the command's
 * exit codes (an empty grid or a wrong block is 1, the library says 2) */
int tilerun_shape(const TilerunModule *tm, const TilerunLaunch *l, bool cli, Shape *s);

/* what the command launches with beyond TilerunLaunch */
typedef struct LaunchExt {
	bool cli;               /* messages direct (stderr), the command's exit codes, asserts to stderr */
	bool seeded;            /* l->seed is a seed even when 0 (--seed 0) */
	const uint64_t *devs;   /* each buffer's device address (NULL: its base) */
} LaunchExt;
int tilerun_launch(const TilerunModule *tm, const TilerunLaunch *l, const LaunchExt *x, TilerunError *err);

#endif
