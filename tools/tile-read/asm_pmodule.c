/* asm_pmodule.c: the dialect's text as a module (asm_parse.h): what is at
 * the top (entries and globals as tileirdisasm prints them, or inside
 * cuda_tile.module @name { } and MLIR's builtin module { }), regions and
 * their blocks, block arguments; and whether an input is this text at
 * all. */
#include <stdlib.h>
#include <string.h>
#include "asm_parse.h"
#include "opinfo.h"
#include "xalloc.h"

static Region *region(Parser *P, int nargs, const Type *const *types, const char *const *names,
		  const size_t *name_lens, const char *const *name_at, int implicit)
{
	if (P->failed)
		return NULL;
	ps_ws(P);
	const char *at = P->p;
	if (P->depth >= PS_MAX_DEPTH)
		return ps_fail(P, at, "regions nested more than %d deep", PS_MAX_DEPTH), NULL;
	if (!ps_expect(P, "{"))
		return NULL;
	P->depth++;
	Region *r = arena_alloc(P->m->arena, sizeof *r);
	Block *b = region_add_block(P->m, r, nargs, types);
	size_t mark = ps_names_mark(P->names);
	for (int i = 0; names && i < nargs && !P->failed; i++)
		ps_define(P, name_at[i], names[i], name_lens[i], &b->args[i], 1);
	while (!P->failed && !ps_at(P, "}")) {
		if (P->p >= P->end) {
			ps_fail(P, at, "unterminated region: no '}' for this '{'");
			break;
		}
		ps_op(P, b);
	}
	const char *close = P->p;
	if (!P->failed && ps_expect(P, "}")) {
		if (implicit >= 0 && (!b->last || !op_has(b->last->info, OPT_TERM)))
			block_append(b, op_new(P->m, &op_table[implicit], 0, NULL, 0, NULL, 0, ps_loc_at(P, close)));
		if (!b->last)
			ps_fail(P, close, "empty block: a region ends with a terminator");
		else if (!op_has(b->last->info, OPT_TERM))
			ps_fail(P, close, "a region ends with '%s', not a terminator", b->last->info->name);
	}
	ps_names_pop(P->names, mark);
	P->depth--;
	return P->failed ? NULL : r;
}

static Region *arg_region(Parser *P, POp *o, const Attr **arg_attrs, int *nargs_out)
{
	enum { MAX_ARGS = 256 };
	const Type *types[MAX_ARGS];
	const char *names[MAX_ARGS], *ats[MAX_ARGS];
	size_t lens[MAX_ARGS];
	const Attr *dicts[MAX_ARGS];
	int n = 0;
	bool any = false;
	if (!ps_expect(P, "("))
		return NULL;
	if (!ps_at(P, ")"))
		do {
			if (n == MAX_ARGS)
				return ps_fail(P, P->p, "more than %d arguments", MAX_ARGS), NULL;
			ps_ws(P);
			ats[n] = P->p;
			if (!ps_expect(P, "%"))
				return NULL;
			names[n] = P->p;
			lens[n] = ps_ident_len(P);
			while (P->p + lens[n] < P->end && (P->p[lens[n]] == '-' || (P->p[lens[n]] >= '0' && P->p[lens[n]] <= '9')))
				lens[n]++;
			if (!lens[n])
				return ps_fail(P, ats[n], "expected an argument name"), NULL;
			names[n] = P->p;
			P->p += lens[n];
			if (!ps_expect(P, ":") || !(types[n] = ps_type(P)))
				return NULL;
			dicts[n] = attr_dict(P->m, 0, NULL);
			if (ps_at(P, "{")) {
				if (!arg_attrs)
					return ps_fail(P, P->p, "argument attributes are not taken here"), NULL;
				if (!(dicts[n] = ps_dict(P, 0)))
					return NULL;
				any = true;
			}
			if (ps_at_loc(P) && !ps_loc(P))
				return NULL;
			n++;
		} while (ps_eat(P, ","));
	if (!ps_expect(P, ")"))
		return NULL;
	if (ps_eat_kw(P, "optimization_hints")) {
		const Attr *h = ps_expect(P, "=") ? ps_hints(P) : NULL;
		if (!h)
			return NULL;
		pop_set_attr(P, o, "optimization_hints", h);
	}
	if (arg_attrs)
		*arg_attrs = any ? attr_array(P->m, n, dicts) : NULL;
	*nargs_out = n;
	return region(P, n, types, names, lens, ats, -1);
}

static void top_level(Parser *P, Block *body, int depth)
{
	while (!P->failed) {
		ps_ws(P);
		if (P->p >= P->end || ps_at(P, "}"))
			return;
		if (*P->p == '#') {
			ps_skip_alias_def(P);
			continue;
		}
		bool builtin = ps_at_kw(P, "module"), ours = ps_at_kw(P, "cuda_tile.module");
		if (builtin || ours) {
			const char *at = P->p;
			if (depth >= 2) {
				ps_fail(P, at, "modules nested more than 2 deep");
				return;
			}
			P->p += ps_ident_len(P);
			if (ps_eat(P, "@")) {
				const char *name;
				if (ps_at(P, "\"") ? !ps_string(P, &name) : !(name = ps_ident(P, "a module name")))
					return;
				if (ours)
					P->m->name = name;
			}
			if (ps_eat_kw(P, "attributes") && !ps_dict(P, 0))
				return;
			if (!ps_expect(P, "{"))
				return;
			top_level(P, body, depth + 1);
			if (!ps_expect(P, "}"))
				return;
			if (ps_at_loc(P))
				ps_loc(P);
			continue;
		}
		const char *at = P->p;
		Op *op = ps_op(P, body);
		if (op && op->info->code != CT_entry && op->info->code != CT_global)
			ps_fail(P, at, "'%s' cannot be at the top level; only entry and global can", op->info->name);
	}
}

Module *asm_parse_module(const char *text, size_t len, const char *file, int version)
{
	char *src = xmalloc(len + 1);
	memcpy(src, text, len);
	src[len] = 0;
	Parser P = { .src = src, .p = src, .end = src + len, .file = file, .version = version, .region = region,
		     .arg_region = arg_region };
	P.m = module_new("cuda_tile");
	module_set_attr(P.m, "bytecode_version", attr_string(P.m, bytecode_version_name(version)));
	P.names = ps_names_new();
	ps_aliases_scan(&P);
	top_level(&P, &P.m->body, 0);
	if (!P.failed && P.p < P.end)
		ps_fail(&P, P.p, "unexpected %s at the top level", ps_token_text(&P));
	ps_names_free(P.names);
	ps_aliases_free(P.aliases);
	free(src);
	if (P.failed) {
		module_free(P.m);
		return NULL;
	}
	return P.m;
}

static bool starts(const char *p, const char *e, const char *s)
{
	size_t n = strlen(s);
	return (size_t)(e - p) >= n && memcmp(p, s, n) == 0;
}

bool asm_is_text(const char *name, const uint8_t *buf, size_t len)
{
	size_t nl = name ? strlen(name) : 0;
	if (nl >= 5 && strcmp(name + nl - 5, ".mlir") == 0)
		return true;
	const char *p = (const char *)buf, *e = p + len;
	for (;;) {
		while (p < e && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
			p++;
		if (starts(p, e, "//")) {
			while (p < e && *p != '\n')
				p++;
			continue;
		}
		break;
	}
	return starts(p, e, "cuda_tile.module") || starts(p, e, "module") || starts(p, e, "#") ||
	       starts(p, e, "entry ") || starts(p, e, "global ") || starts(p, e, "cuda_tile.entry") ||
	       starts(p, e, "cuda_tile.global");
}
