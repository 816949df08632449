/* verify.h: the cuda_tile verifier.
 *
 * verify_cuda_tile() checks what a kernel must satisfy before lowering
 * (../shared/docs/ops.md, bytecode.md §8, docs/ir.md §4): per op the operand
 * count or operand_segment_sizes, the result count, the attributes (name,
 * kind, enum spelling, version), the regions and their terminators, the
 * types of the op family (elementwise, compare, conversion, shape, view,
 * memory, token, MMA, reduce/scan), the type rules (tile dims powers of two,
 * the element cap, view rules), entry rules, and version gating of ops,
 * types and attributes against the module attribute `bytecode_version`.
 *
 * Every problem is reported with diag_error() at the op's source location,
 * else at its bytecode offset, else at its JSON pointer
 * ("/module/ops/0/regions/0/0/ops/3"). Messages start with the op name:
 *   'cuda_tile.addi' op requires all operands and results to have one type, ...
 * Returns the number of errors (0: the module is valid). Linear in the IR;
 * it never modifies the module. */
#ifndef TILE_VERIFY_H
#define TILE_VERIFY_H
#include <stddef.h>
#include "ir.h"

#define TILE_MAX_ELEMS 16777216  /* elements in one tile (every stage's type rule) */

int verify_cuda_tile(Module *m);

/* The same per-op rules on the cuda_tile ops kept below cuda_tile (stages
 * nv_tileaa, nv_tileas, scheduled: op_kept_below()), and the block shape and
 * terminator rules of every block; nv_tileaa / nv_tileas ops are left to
 * stage_check (stagecheck.h), which calls this. Returns the error count. */
int verify_kept_ops(Module *m);

/* Checks the verifier's tables against the op and enum tables (a rules[]
 * row for exactly the cuda_tile ops, a checker for each family, enum
 * subsets and defaults that are spellings of their kind) after
 * opinfo_check() and enums_check(). NULL, or the first problem in buf.
 * Run by the C unit tests (tests/unit/libcommon_test.c). */
const char *verify_check_tables(char *buf, size_t n);

/* The i-th attribute (from 0) a cuda_tile op's rule takes at stage
 * cuda_tile (not those only the lower stages put on it), NULL past the
 * last: for tile-read's check that an op's wire layout and its verifier
 * rule name the same attributes (ops_check_layouts). */
const char *verify_rule_attr(int opcode, int i);
/* A cuda_tile op's operand groups, one char each ('1' one, '?' optional,
 * '*' variadic), NULL for other opcodes: for tile-read's check that its
 * assembly rows name the same groups (asm_check_rows). */
const char *verify_rule_operands(int opcode);

#endif
