/* print.h: MLIR-like text form of the IR, for people (not read back). */
#ifndef TILE_PRINT_H
#define TILE_PRINT_H
#include "ir.h"
#include "strbuf.h"
void print_module(StrBuf *b, Module *m);
void print_attr(StrBuf *b, const Attr *a);
#endif
