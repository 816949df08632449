/* asm_pop.c: one op of the dialect's text (asm_parse.h): its result names,
 * its name (with or without the cuda_tile. prefix; an unknown one with a
 * "did you mean"), the rest by its row of asm_ops.def (asm_pformat.c or
 * asm_pcustom.c), then what the text leaves implicit, as the bytecode
 * reader would have it: the result types the format does not print, the
 * attributes the wire always carries at their defaults (the layout,
 * wire_layout.h), operand_segment_sizes, and its location (loc(...), or
 * its place in the .mlir). */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include "asm_parse.h"
#include "opinfo.h"
#include "wire_layout.h"
#include "xalloc.h"

/* ------------------------------------------------------------ the op's name */

static int edit_distance(const char *a, size_t na, const char *b)
{
	size_t nb = strlen(b);
	if (na > 40 || nb > 40)
		return 99;
	int d[41][41];
	for (size_t i = 0; i <= na; i++)
		d[i][0] = (int)i;
	for (size_t j = 0; j <= nb; j++)
		d[0][j] = (int)j;
	for (size_t i = 1; i <= na; i++)
		for (size_t j = 1; j <= nb; j++) {
			int c = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
			if (d[i - 1][j] + 1 < c)
				c = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < c)
				c = d[i][j - 1] + 1;
			d[i][j] = c;
		}
	return d[na][nb];
}

static const AsmRow *find_row(Parser *P, const char *at, const char *w, size_t n, const OpInfo **info)
{
	const char *best = NULL;
	int bestd = 99;
	for (int c = 0; c < OPCODE_COUNT; c++) {
		const AsmRow *r = asm_row_code(c);
		if (!r)
			continue;
		const char *full = op_table[c].name + strlen("cuda_tile.");
		if ((strlen(r->mnemonic) == n && memcmp(r->mnemonic, w, n) == 0) ||
		    (strlen(full) == n && memcmp(full, w, n) == 0)) {
			*info = &op_table[c];
			return r;
		}
		int d = edit_distance(w, n, r->mnemonic);
		if (d < bestd) {
			bestd = d;
			best = r->mnemonic;
		}
	}
	if (best && bestd <= 2 + (int)n / 4)
		ps_fail(P, at, "unknown op '%.*s' (did you mean '%s'?)", (int)(n > 60 ? 60 : n), w, best);
	else
		ps_fail(P, at, "unknown op '%.*s'", (int)(n > 60 ? 60 : n), w);
	return NULL;
}

/* ------------------------------------------------------------ after the text */

/* results fixed by the layout (-1: as many as the text gives) */
static int layout_results(const Field *f)
{
	int n = 0;
	for (; f && f->kind != F_END; f++) {
		if (f->kind == F_RES)
			n += f->n;
		else if (f->kind == F_NRES) {
			if (f->n < 0)
				return -1;
			n += f->n;
		} else if (f->kind == F_NRES_TOKEN)
			n += 1;
	}
	return n;
}

static bool infer_result_types(Parser *P, POp *o)
{
	for (int i = 0; i < o->nres; i++) {
		if (o->rtypes[i])
			continue;
		char w[64];
		if (asm_word_at(o->row->results, i, w, sizeof w, NULL) && strcmp(w, "result_token") == 0) {
			o->rtypes[i] = type_token(P->m);
			continue;
		}
		if (i > 0 && o->rtypes[0]) {
			o->rtypes[i] = o->rtypes[0];
			continue;
		}
		int g = pop_group(o, "acc");
		if (g < 0)
			g = pop_group(o, "dest");
		if (g < 0)
			g = 0;
		if (g < o->ngroups && o->ngrp[g] > 0)
			o->rtypes[i] = o->grp[g][0]->type;
		else
			return ps_fail(P, o->at, "cannot tell the type of result %d of '%s'", i, o->info->name);
	}
	return true;
}

static const struct { const char *attr, *value; } wire_defaults[] = {
	{ "overflow", "none" }, { "rounding", "zero" }, { "reduction", "add" },
};

/* the attributes the bytecode always carries, at their defaults when the
 * text leaves them out */
static void fill_defaults(Parser *P, POp *o)
{
	const Field *f = ops_layout((int)o->info->code);
	for (; f && f->kind != F_END; f++) {
		if (f->kind != F_ENUM || f->mask || pop_attr(o, f->name))
			continue;
		const char *v = NULL;
		if (f->since && P->version < f->since)
			v = enum_spelling(f->en, (uint64_t)f->dflt, 0);
		for (size_t i = 0; !v && i < sizeof wire_defaults / sizeof wire_defaults[0]; i++)
			if (strcmp(wire_defaults[i].attr, f->name) == 0)
				v = wire_defaults[i].value;
		if (!v && strcmp(f->name, "rounding_mode") == 0 && o->row->format) {
			const char *c = strstr(o->row->format, "RoundingMode>");
			if (c) {
				const char *s = c;
				while (s > o->row->format && s[-1] != '<')
					s--;
				char d[64];
				size_t n = (size_t)(c - s) + strlen("RoundingMode");
				if (n < sizeof d) {
					memcpy(d, s, n);
					d[n] = 0;
					v = asm_rounding_default(d);
				}
			}
		}
		if (v)
			pop_set_attr(P, o, f->name, attr_string(P->m, v));
		else
			ps_fail(P, o->at, "'%s' needs its '%s'", o->info->name, f->name);
	}
	if (o->info->code == CT_global) {
		if (!pop_attr(o, "alignment"))
			pop_set_attr(P, o, "alignment", attr_int(P->m, 0, NULL));
		if (P->version >= 1303 && !pop_attr(o, "symbol_visibility"))
			pop_set_attr(P, o, "symbol_visibility", attr_string(P->m, "public"));
	}
}

static bool segmented(const POp *o)
{
	const Field *f = ops_layout((int)o->info->code);
	for (; f && f->kind != F_END; f++)
		if (f->kind == F_OPT || f->kind == F_VAR)
			return true;
	return false;
}

typedef struct Def { const char *name, *at; size_t len; int n; } Def;

static int result_defs(Parser *P, Def *defs, int max)
{
	int nd = 0;
	if (!ps_at_value(P))
		return 0;
	do {
		ps_ws(P);
		const char *at = P->p;
		P->p++;
		const char *s = P->p;
		while (P->p < P->end && (isalnum((unsigned char)*P->p) || *P->p == '_' || *P->p == '$' ||
					 *P->p == '.' || *P->p == '-'))
			P->p++;
		if (P->p == s)
			return ps_fail(P, at, "expected a result name after '%%'"), -1;
		int n = 1;
		size_t len = (size_t)(P->p - s);
		if (P->p < P->end && *P->p == ':') {
			P->p++;
			int64_t k;
			if (!ps_int(P, &k))
				return -1;
			if (k < 1 || k > 256)
				return ps_fail(P, at, "result count %lld is not in 1..256", (long long)k), -1;
			n = (int)k;
		}
		if (nd == max)
			return ps_fail(P, at, "more than %d result names", max), -1;
		defs[nd++] = (Def){ s, at, len, n };
	} while (ps_eat(P, ",") && ps_at_value(P));
	return ps_expect(P, "=") ? nd : -1;
}

static void move_regions(Op *op, POp *o)
{
	for (int i = 0; i < op->nregions; i++) {
		if (!o->regions[i])
			continue;
		op->regions[i] = *o->regions[i];
		op->regions[i].parent = op;
		FOR_EACH_BLOCK(b, &op->regions[i])
			b->parent = &op->regions[i];
	}
}

Op *ps_op(Parser *P, Block *b)
{
	if (P->failed)
		return NULL;
	ps_ws(P);
	POp *o = xcalloc(1, sizeof *o);
	o->at = P->p;
	Def defs[64];
	int nd = result_defs(P, defs, 64), total = 0;
	Op *op = NULL;
	if (nd < 0)
		goto out;
	for (int i = 0; i < nd; i++)
		total += defs[i].n;
	ps_ws(P);
	const char *nat = P->p;
	if (ps_at(P, "\"")) {
		ps_fail(P, nat, "MLIR's generic op form (\"cuda_tile.op\"(...)) is not read; write the op as "
			"tileirdisasm prints it");
		goto out;
	}
	size_t n = ps_ident_len(P);
	if (!n) {
		ps_fail(P, nat, "expected an op, found %s", ps_token_text(P));
		goto out;
	}
	const char *w = P->p;
	P->p += n;
	if (n > 10 && memcmp(w, "cuda_tile.", 10) == 0) {
		w += 10;
		n -= 10;
	}
	if (!(o->row = find_row(P, nat, w, n, &o->info)))
		goto out;
	const Field *lay = ops_layout((int)o->info->code);
	if (o->info->since > P->version) {
		ps_fail(P, nat, "'%s' requires bytecode version %s+, not %s", o->info->name,
			bytecode_version_name(o->info->since), bytecode_version_name(P->version));
		goto out;
	}
	char gw[64];
	while (asm_word_at(o->row->operands, o->ngroups, gw, sizeof gw, NULL))
		o->ngroups++;
	o->nres = lay ? layout_results(lay) : 0;
	o->nregions = o->info->code == CT_entry;
	for (const Field *f = lay; f && f->kind != F_END; f++)
		if (f->kind == F_REGIONS)
			o->nregions = f->n;
	if (o->nres >= 0 && total && total != o->nres) {
		ps_fail(P, o->at, "'%s' has %d result%s, not %d", o->info->name, o->nres, o->nres == 1 ? "" : "s",
			total);
		goto out;
	}
	if (o->nres < 0 && total)
		o->nres = total;
	bool ok = o->row->custom ? 0 : pformat_op(P, o);
	if (o->row->custom) {
#define X(nm) if (o->row->custom == asm_custom_##nm) ok = pcustom_##nm(P, o);
		ASM_CUSTOM_FNS(X)
#undef X
	}
	if (!ok || P->failed)
		goto out;
	if (o->nres < 0)
		o->nres = 0;
	if (total && total != o->nres) {
		ps_fail(P, o->at, "'%s' has %d results, not %d", o->info->name, o->nres, total);
		goto out;
	}
	for (int g = 0; g < o->ngroups; g++) {
		char k;
		asm_word_at(o->row->operands, g, gw, sizeof gw, &k);
		if (!o->grp_set[g] && !k) {
			ps_fail(P, o->at, "'%s' needs its operand '%s'", o->info->name, gw);
			goto out;
		}
	}
	if (!infer_result_types(P, o))
		goto out;
	fill_defaults(P, o);
	const Loc *loc = ps_at_kw(P, "loc") ? ps_loc(P) : ps_loc_at(P, o->at);
	if (o->info->code == CT_global)
		loc = P->m->unknown_loc;     /* the bytecode gives globals none (the verifier's rule) */
	if (P->failed)
		goto out;
	Value *opnds[1024];
	int nopnds = 0;
	int64_t seg[8];
	for (int g = 0; g < o->ngroups; g++) {
		seg[g] = o->ngrp[g];
		for (int i = 0; i < o->ngrp[g]; i++) {
			if (nopnds == 1024) {
				ps_fail(P, o->at, "more than 1024 operands");
				goto out;
			}
			opnds[nopnds++] = o->grp[g][i];
		}
	}
	op = op_new(P->m, o->info, nopnds, opnds, o->nres, o->rtypes, o->nregions, loc);
	for (int i = 0; i < o->nattrs; i++)
		op_set_attr(P->m, op, o->attrs[i].name, o->attrs[i].attr);
	if (segmented(o))
		op_set_attr(P->m, op, "operand_segment_sizes", attr_ints(P->m, o->ngroups, seg));
	move_regions(op, o);
	block_append(b, op);
	for (int i = 0, k = 0; i < nd && !P->failed; k += defs[i].n, i++)
		ps_define(P, defs[i].at, defs[i].name, defs[i].len, op->results + k, defs[i].n);
out:
	for (int g = 0; g < 8; g++)
		free(o->grp[g]);
	free(o);
	return P->failed ? NULL : op;
}
