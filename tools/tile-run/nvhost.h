/* nvhost.h: a cubin's host object's callbacks, run as the driver runs them
 * (nvhost.c; tile-run --nv-host). */
#ifndef TILE_RUN_NVHOST_H
#define TILE_RUN_NVHOST_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "run.h"

/* Link host object obj, run entry f's ON_ARGUMENTS_CHANGE on the parameter
 * block kparams (tile-run's layout, f->params offsets; the user parameters
 * set) as the driver would on target sm, and copy the hidden parameters it
 * wrote back into kparams. ptx (len bytes) is the module's text, for
 * ptxas's parameter layout. false after a message. */
bool nvhost_fill(const char *obj, const char *ptx, size_t len, const Func *f, int sm, uint8_t *kparams);

#endif
