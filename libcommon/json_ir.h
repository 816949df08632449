/* json_ir.h: the JSON form of the IR, the documented contract between stages
 * (docs/ir.md). */
#ifndef TILE_JSON_IR_H
#define TILE_JSON_IR_H
#include <stddef.h>
#include "ir.h"

#define IR_FORMAT "tile-ir"
#define IR_VERSION 1

/* Parse and check a whole document. `stages` is a NULL-terminated list of
 * the stages the caller accepts (NULL: any). On error: one diagnostic with
 * the JSON pointer of the bad node, and NULL. */
Module *json_ir_read(const char *buf, size_t len, const char *const *stages);

/* Canonical bytes (malloc'd, ends with a newline). Renumbers values. */
char *json_ir_write(Module *m, size_t *len);

#endif
