/* print.h: MLIR-like text form of the IR, for people (not read back). */
#ifndef TILE_PRINT_H
#define TILE_PRINT_H
#include "ir.h"
#include "strbuf.h"
void print_module(StrBuf *b, Module *m);
void print_attr(StrBuf *b, const Attr *a);
/* an assume predicate (div_by<..>, same_elements<[..]>, bounded<..>): both
 * text forms (print_attr's, tile-read's dialect syntax) spell them alike */
void print_assumption(StrBuf *b, const Attr *a);
#endif
