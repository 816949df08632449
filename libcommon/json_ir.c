/* json_ir.c: the one JSON reader and writer of the IR (docs/ir.md).
 * jansson is used here and nowhere else.
 * Reader: strict. Unknown or duplicate keys, wrong JSON types, unknown ops,
 * undefined or redefined values, a wrong format/version/stage: each is one
 * error naming the JSON pointer of the bad node. Returns NULL after reporting.
 * Writer: canonical. Values renumbered in order, attributes sorted, keys in
 * a fixed order, so the same IR always gives the same bytes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include "json_ir.h"
#include "opinfo.h"
#include "diag.h"
#include "strbuf.h"
#include "xalloc.h"
#include "layout.h"

/* ================================================================ reader */

typedef struct R {
	Module *m;
	StrBuf path;              /* JSON pointer of the node being read */
	Value **vals;             /* id -> value; NULL = not visible */
	int nvals;                /* capacity of vals */
	int *defined;             /* stack of ids defined in open scopes */
	int ndefined, capdefined;
	struct { const char *s; const Layout *lay; } *lays;   /* layouts parsed so far */
	int nlays, caplays;
	bool failed;
} R;

#define MAX_VALUE_ID (1 << 24)

static bool rfail(R *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool rfail(R *r, const char *fmt, ...)
{
	if (r->failed)
		return false;
	r->failed = true;
	char where[1200];
	snprintf(where, sizeof where, "at %s", r->path.len ? sb_cstr(&r->path) : "/");
	va_list ap;
	va_start(ap, fmt);
	diag_verror(where, "error", fmt, ap);
	va_end(ap);
	return false;
}

/* push "/key" (escaped per RFC 6901) or "/index"; returns old length for pop */
static size_t push_key(R *r, const char *key)
{
	size_t old = r->path.len;
	sb_putc(&r->path, '/');
	for (const char *p = key; *p; p++) {
		if (*p == '~')
			sb_puts(&r->path, "~0");
		else if (*p == '/')
			sb_puts(&r->path, "~1");
		else
			sb_putc(&r->path, *p);
	}
	return old;
}

static size_t push_index(R *r, size_t i)
{
	size_t old = r->path.len;
	sb_printf(&r->path, "/%zu", i);
	return old;
}

static void pop(R *r, size_t old)
{
	r->path.len = old;
	if (r->path.s)
		r->path.s[old] = 0;
}

static const char *jtype_name(const json_t *j)
{
	switch (json_typeof(j)) {
	case JSON_OBJECT: return "an object";
	case JSON_ARRAY: return "an array";
	case JSON_STRING: return "a string";
	case JSON_INTEGER: return "an integer";
	case JSON_REAL: return "a real number";
	case JSON_TRUE: case JSON_FALSE: return "a boolean";
	default: return "null";
	}
}

/* Every key of obj must be in the NULL-terminated list `allowed`. */
static bool check_keys(R *r, const json_t *obj, const char *const *allowed)
{
	const char *key;
	json_t *v;
	json_object_foreach((json_t *)obj, key, v) {
		bool ok = false;
		for (const char *const *a = allowed; *a; a++)
			if (strcmp(*a, key) == 0)
				ok = true;
		if (!ok) {
			size_t old = push_key(r, key);
			rfail(r, "unknown key '%s'", key);
			pop(r, old);
			return false;
		}
	}
	return true;
}

static const json_t *need(R *r, const json_t *obj, const char *key, json_type type)
{
	const json_t *v = json_object_get(obj, key);
	if (!v) {
		rfail(r, "missing key '%s'", key);
		return NULL;
	}
	bool ok = json_typeof(v) == type ||
		  (type == JSON_TRUE && json_typeof(v) == JSON_FALSE);
	if (!ok) {
		size_t old = push_key(r, key);
		static const char *const names[] = { "an object", "an array", "a string", "an integer",
					       "a real number", "a boolean", "a boolean", "null" };
		rfail(r, "expected %s, got %s", names[type], jtype_name(v));
		pop(r, old);
		return NULL;
	}
	return v;
}

static const json_t *opt(R *r, const json_t *obj, const char *key, json_type type)
{
	if (!json_object_get(obj, key))
		return NULL;
	return need(r, obj, key, type);
}

static const Type *read_type(R *r, const json_t *j)
{
	if (!json_is_string(j)) {
		rfail(r, "expected a type string, got %s", jtype_name(j));
		return NULL;
	}
	const char *err = NULL;
	const Type *t = type_parse(r->m, json_string_value(j), &err);
	if (!t)
		rfail(r, "bad type '%s': %s", json_string_value(j), err);
	return t;
}

static const Type *read_type_key(R *r, const json_t *obj, const char *key)
{
	const json_t *j = need(r, obj, key, JSON_STRING);
	if (!j)
		return NULL;
	size_t old = push_key(r, key);
	const Type *t = read_type(r, j);
	pop(r, old);
	return t;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9') return c - '0';
	if (c >= 'a' && c <= 'f') return c - 'a' + 10;
	return -1;   /* canonical hex is lower case */
}

static const Attr *read_attr(R *r, const json_t *j, int depth);

static bool read_i64(R *r, const json_t *j, int64_t *out)
{
	if (!json_is_integer(j))
		return rfail(r, "expected an integer, got %s", jtype_name(j));
	*out = (int64_t)json_integer_value(j);
	return true;
}

static const Attr *read_tagged(R *r, const json_t *j, int depth)
{
	Module *m = r->m;
	if (json_object_get(j, "int")) {
		static const char *const k[] = { "int", "type", NULL };
		int64_t v;
		if (!check_keys(r, j, k))
			return NULL;
		size_t old = push_key(r, "int");
		bool ok = read_i64(r, json_object_get(j, "int"), &v);
		pop(r, old);
		if (!ok)
			return NULL;
		const Type *t = NULL;
		if (json_object_get(j, "type") && !(t = read_type_key(r, j, "type")))
			return NULL;
		if (t && t->kind != TY_SCALAR) {
			rfail(r, "an integer attribute's type must be an element type");
			return NULL;
		}
		return attr_int(m, v, t);
	}
	if (json_object_get(j, "float")) {
		static const char *const k[] = { "float", "type", NULL };
		if (!check_keys(r, j, k))
			return NULL;
		const json_t *f = need(r, j, "float", JSON_STRING);
		const Type *t = f ? read_type_key(r, j, "type") : NULL;
		if (!t)
			return NULL;
		const char *s = json_string_value(f);
		uint64_t bits = 0;
		size_t n = strlen(s);
		bool ok = n > 2 && n <= 18 && s[0] == '0' && s[1] == 'x';
		for (size_t i = 2; ok && i < n; i++) {
			int h = hexval((unsigned char)s[i]);
			ok = h >= 0;
			bits = bits << 4 | (uint64_t)(h < 0 ? 0 : h);
		}
		if (!ok || t->kind != TY_SCALAR || !scalar_is_float(t->scalar)) {
			size_t old = push_key(r, "float");
			rfail(r, "expected the bit pattern as \"0x<lower-case hex>\" of a float type");
			pop(r, old);
			return NULL;
		}
		return attr_float(m, bits, t);
	}
	if (json_object_get(j, "dense")) {
		static const char *const k[] = { "dense", "type", "splat", NULL };
		if (!check_keys(r, j, k))
			return NULL;
		const json_t *d = need(r, j, "dense", JSON_STRING);
		const Type *t = d ? read_type_key(r, j, "type") : NULL;
		if (!t)
			return NULL;
		const json_t *sp = opt(r, j, "splat", JSON_TRUE);
		if (r->failed)
			return NULL;
		const char *s = json_string_value(d);
		size_t n = strlen(s);
		if (n % 2) {
			rfail(r, "dense data must be an even number of hex digits");
			return NULL;
		}
		uint8_t *bytes = xmalloc(n / 2 + 1);
		for (size_t i = 0; i < n / 2; i++) {
			int hi = hexval((unsigned char)s[2 * i]), lo = hexval((unsigned char)s[2 * i + 1]);
			if (hi < 0 || lo < 0) {
				free(bytes);
				rfail(r, "dense data must be lower-case hex digits");
				return NULL;
			}
			bytes[i] = (uint8_t)(hi << 4 | lo);
		}
		const Attr *a = attr_dense(m, t, n / 2, bytes, sp && json_is_true(sp));
		free(bytes);
		return a;
	}
	if (json_object_get(j, "dict")) {
		static const char *const k[] = { "dict", NULL };
		if (!check_keys(r, j, k))
			return NULL;
		const json_t *d = need(r, j, "dict", JSON_OBJECT);
		if (!d)
			return NULL;
		size_t n = json_object_size(d);
		NamedAttr *v = xcalloc(n + 1, sizeof *v);
		size_t i = 0;
		const char *key;
		json_t *val;
		size_t old = push_key(r, "dict");
		json_object_foreach((json_t *)d, key, val) {
			size_t o2 = push_key(r, key);
			if (!key[0]) {
				rfail(r, "empty dictionary key");
				break;
			}
			v[i].name = key;
			v[i].attr = read_attr(r, val, depth + 1);
			pop(r, o2);
			if (!v[i++].attr)
				break;
		}
		pop(r, old);
		const Attr *a = r->failed ? NULL : attr_dict(m, (int)n, v);
		free(v);
		return a;
	}
	if (json_object_get(j, "div_by")) {
		static const char *const k[] = { "div_by", "every", "along", NULL };
		if (!check_keys(r, j, k))
			return NULL;
		int64_t d, e = 0, a = 0;
		const json_t *je = json_object_get(j, "every"), *ja = json_object_get(j, "along");
		if (!read_i64(r, json_object_get(j, "div_by"), &d))
			return NULL;
		if (!je != !ja) {
			rfail(r, "div_by needs both 'every' and 'along', or neither");
			return NULL;
		}
		if (je && (!read_i64(r, je, &e) || !read_i64(r, ja, &a)))
			return NULL;
		return attr_div_by(m, d, je != NULL, e, a);
	}
	if (json_object_get(j, "same_elements")) {
		static const char *const k[] = { "same_elements", NULL };
		if (!check_keys(r, j, k))
			return NULL;
		const json_t *arr = need(r, j, "same_elements", JSON_ARRAY);
		if (!arr)
			return NULL;
		size_t n = json_array_size(arr);
		int64_t *v = xcalloc(n + 1, sizeof *v);
		for (size_t i = 0; i < n; i++)
			if (!read_i64(r, json_array_get(arr, i), &v[i])) {
				free(v);
				return NULL;
			}
		const Attr *a = attr_same_elements(m, (int)n, v);
		free(v);
		return a;
	}
	if (json_object_get(j, "bounded")) {
		static const char *const k[] = { "bounded", NULL };
		if (!check_keys(r, j, k))
			return NULL;
		const json_t *arr = need(r, j, "bounded", JSON_ARRAY);
		if (!arr)
			return NULL;
		if (json_array_size(arr) != 2) {
			rfail(r, "bounded is [lower, upper], each an integer or null");
			return NULL;
		}
		int64_t b[2] = { 0, 0 };
		bool has[2];
		for (int i = 0; i < 2; i++) {
			const json_t *e = json_array_get(arr, (size_t)i);
			has[i] = !json_is_null(e);
			if (has[i] && !read_i64(r, e, &b[i]))
				return NULL;
		}
		return attr_bounded(m, has[0], b[0], has[1], b[1]);
	}
	if (json_object_get(j, "type")) {
		static const char *const k[] = { "type", NULL };
		if (!check_keys(r, j, k))
			return NULL;
		const Type *t = read_type_key(r, j, "type");
		return t ? attr_type(m, t) : NULL;
	}
	rfail(r, "an attribute object must have one of the keys int, float, dense, dict, "
		 "div_by, same_elements, bounded, type");
	return NULL;
}

static const Attr *read_attr(R *r, const json_t *j, int depth)
{
	Module *m = r->m;
	if (depth > 64) {
		rfail(r, "attribute nested too deeply");
		return NULL;
	}
	switch (json_typeof(j)) {
	case JSON_INTEGER: return attr_int(m, (int64_t)json_integer_value(j), NULL);
	case JSON_TRUE: return attr_bool(m, true);
	case JSON_FALSE: return attr_bool(m, false);
	case JSON_STRING: return attr_string(m, json_string_value(j));
	case JSON_OBJECT: return read_tagged(r, j, depth);
	case JSON_ARRAY: {
		size_t n = json_array_size(j);
		bool all_int = n > 0;
		for (size_t i = 0; i < n; i++)
			if (!json_is_integer(json_array_get(j, i)))
				all_int = false;
		if (all_int) {
			int64_t *v = xcalloc(n, sizeof *v);
			for (size_t i = 0; i < n; i++)
				v[i] = (int64_t)json_integer_value(json_array_get(j, i));
			const Attr *a = attr_ints(m, (int)n, v);
			free(v);
			return a;
		}
		const Attr **v = xcalloc(n + 1, sizeof *v);
		for (size_t i = 0; i < n; i++) {
			size_t old = push_index(r, i);
			v[i] = read_attr(r, json_array_get(j, i), depth + 1);
			pop(r, old);
			if (!v[i]) {
				free(v);
				return NULL;
			}
		}
		const Attr *a = attr_array(m, (int)n, v);
		free(v);
		return a;
	}
	default:
		rfail(r, "expected an attribute, got %s", jtype_name(j));
		return NULL;
	}
}

static const Attr *read_attr_dict(R *r, const json_t *obj)
{
	size_t n = json_object_size(obj);
	NamedAttr *v = xcalloc(n + 1, sizeof *v);
	size_t i = 0;
	const char *key;
	json_t *val;
	json_object_foreach((json_t *)obj, key, val) {
		size_t old = push_key(r, key);
		if (!key[0])
			rfail(r, "empty attribute name");
		else
			v[i].name = key, v[i].attr = read_attr(r, val, 0);
		pop(r, old);
		if (r->failed)
			break;
		i++;
	}
	const Attr *a = r->failed ? NULL : attr_dict(r->m, (int)n, v);
	free(v);
	return a;
}

static const Loc *read_loc(R *r, const json_t *j, int depth)
{
	static const char *const k[] = { "file", "line", "col", "func", "func_flags", "caller", NULL };
	if (!json_is_object(j)) {
		rfail(r, "expected a location object, got %s", jtype_name(j));
		return NULL;
	}
	if (depth > LOC_MAX_CALLERS) {
		rfail(r, "call-site chain deeper than %d calls", LOC_MAX_CALLERS);
		return NULL;
	}
	if (!check_keys(r, j, k))
		return NULL;
	const json_t *file = need(r, j, "file", JSON_STRING);
	const json_t *line = file ? need(r, j, "line", JSON_INTEGER) : NULL;
	const json_t *col = line ? need(r, j, "col", JSON_INTEGER) : NULL;
	const json_t *func = col ? opt(r, j, "func", JSON_STRING) : NULL;
	const json_t *ff = col ? opt(r, j, "func_flags", JSON_INTEGER) : NULL;
	if (r->failed)
		return NULL;
	if (ff && (!func || json_integer_value(ff) != 1)) {
		rfail(r, "func_flags needs a func and must be 1 (declaration)");
		return NULL;
	}
	json_int_t l = json_integer_value(line), c = json_integer_value(col);
	if (l < 0 || l > 0xFFFFFFFF || c < 0 || c > 0xFFFFFFFF) {
		rfail(r, "line and col must be in [0, 2^32)");
		return NULL;
	}
	const Loc *caller = NULL;
	const json_t *cj = json_object_get(j, "caller");
	if (cj) {
		size_t old = push_key(r, "caller");
		caller = read_loc(r, cj, depth + 1);
		pop(r, old);
		if (!caller)
			return NULL;
	}
	const Loc *lo = loc_new(r->m, json_string_value(file), (unsigned)l, (unsigned)c,
				func ? json_string_value(func) : NULL, caller);
	return ff ? loc_with_func_flags(r->m, lo, (unsigned)json_integer_value(ff)) : lo;
}

/* "%N" -> N, or -1 */
static int parse_value_name(const char *s)
{
	if (s[0] != '%' || !s[1])
		return -1;
	long v = 0;
	for (const char *p = s + 1; *p; p++) {
		if (*p < '0' || *p > '9' || (p == s + 1 && *p == '0' && p[1]))
			return -1;
		v = v * 10 + (*p - '0');
		if (v >= MAX_VALUE_ID)
			return -1;
	}
	return (int)v;
}

static bool define_value(R *r, const json_t *idj, Value *v)
{
	int id = json_is_string(idj) ? parse_value_name(json_string_value(idj)) : -1;
	if (id < 0)
		return rfail(r, "a value name is \"%%N\" with N a decimal number below %d", MAX_VALUE_ID);
	if (id >= r->nvals) {
		int n = r->nvals ? r->nvals : 256;
		while (n <= id)
			n *= 2;
		Value **p = xrealloc(r->vals, sizeof *p * (size_t)n);
		memset(p + r->nvals, 0, sizeof *p * (size_t)(n - r->nvals));
		r->vals = p;
		r->nvals = n;
	}
	if (r->vals[id])
		return rfail(r, "value %%%d is defined twice", id);
	r->vals[id] = v;
	if (r->ndefined == r->capdefined) {
		r->capdefined = r->capdefined ? r->capdefined * 2 : 256;
		r->defined = xrealloc(r->defined, sizeof *r->defined * (size_t)r->capdefined);
	}
	r->defined[r->ndefined++] = id;
	return true;
}

/* Leave a scope: values defined since `mark` stop being visible. */
static void close_scope(R *r, int mark)
{
	while (r->ndefined > mark)
		r->vals[r->defined[--r->ndefined]] = NULL;
}

/* results / block args: [{"id": "%N", "type": T, "layout": attr?}] -> types, then defined */
static bool read_value_defs(R *r, const json_t *arr, int *n, const Type ***types)
{
	*n = (int)json_array_size(arr);
	*types = xcalloc((size_t)*n + 1, sizeof **types);
	for (int i = 0; i < *n; i++) {
		static const char *const k[] = { "id", "type", "layout", NULL };
		size_t old = push_index(r, (size_t)i);
		const json_t *d = json_array_get(arr, (size_t)i);
		if (!json_is_object(d))
			rfail(r, "expected an object {\"id\", \"type\"}, got %s", jtype_name(d));
		else if (check_keys(r, d, k) && need(r, d, "id", JSON_STRING))
			(*types)[i] = read_type_key(r, d, "type");
		pop(r, old);
		if (r->failed)
			return false;
	}
	return true;
}

/* A value's layout attribute parsed, once per spelling (values with the same
 * layout share it); NULL when it is not a string or does not parse (the
 * stage checker says why, stagecheck.c). */
static const Layout *parsed_layout(R *r, const Attr *a)
{
	if (a->kind != AT_STRING)
		return NULL;
	for (int i = 0; i < r->nlays; i++)
		if (strcmp(r->lays[i].s, a->u.s) == 0)
			return r->lays[i].lay;
	Layout l, *p = NULL;
	if (layout_parse(a->u.s, &l, NULL)) {
		p = arena_alloc(r->m->arena, sizeof *p);
		*p = l;
	}
	if (r->nlays == r->caplays) {
		r->caplays = r->caplays ? 2 * r->caplays : 16;
		r->lays = xrealloc(r->lays, sizeof *r->lays * (size_t)r->caplays);
	}
	r->lays[r->nlays].s = a->u.s;
	r->lays[r->nlays++].lay = p;
	return p;
}

static bool bind_value_defs(R *r, const json_t *arr, Value **vals)
{
	for (size_t i = 0; i < json_array_size(arr); i++) {
		const json_t *d = json_array_get(arr, i);
		size_t old = push_index(r, i);
		bool ok = true;
		const json_t *lay = json_object_get(d, "layout");
		if (lay) {
			size_t o2 = push_key(r, "layout");
			vals[i]->layout = read_attr(r, lay, 0);
			pop(r, o2);
			ok = vals[i]->layout != NULL;
			if (ok)
				vals[i]->lay = parsed_layout(r, vals[i]->layout);
		}
		if (ok) {
			size_t o2 = push_key(r, "id");
			ok = define_value(r, json_object_get(d, "id"), vals[i]);
			pop(r, o2);
		}
		pop(r, old);
		if (!ok)
			return false;
	}
	return true;
}

static Op *read_op(R *r, const json_t *j, int depth);

static bool read_block(R *r, Region *reg, const json_t *j, int depth)
{
	static const char *const k[] = { "args", "ops", NULL };
	if (!json_is_object(j))
		return rfail(r, "expected a block object, got %s", jtype_name(j));
	if (!check_keys(r, j, k))
		return false;
	const json_t *args = opt(r, j, "args", JSON_ARRAY);
	const json_t *ops = need(r, j, "ops", JSON_ARRAY);
	if (r->failed)
		return false;
	int nargs = 0;
	const Type **types = NULL;
	int mark = r->ndefined;
	bool ok = true;
	if (args) {
		size_t old = push_key(r, "args");
		ok = read_value_defs(r, args, &nargs, &types);
		pop(r, old);
	}
	Block *b = ok ? region_add_block(r->m, reg, nargs, types) : NULL;
	free(types);
	if (ok && args) {
		size_t old = push_key(r, "args");
		ok = bind_value_defs(r, args, b->args);
		pop(r, old);
	}
	size_t old = push_key(r, "ops");
	for (size_t i = 0; ok && i < json_array_size(ops); i++) {
		size_t o2 = push_index(r, i);
		Op *op = read_op(r, json_array_get(ops, i), depth + 1);
		pop(r, o2);
		if (!op)
			ok = false;
		else
			block_append(b, op);
	}
	pop(r, old);
	close_scope(r, mark);
	return ok;
}

static Op *read_op(R *r, const json_t *j, int depth)
{
	static const char *const k[] = { "op", "results", "operands", "attrs", "regions", "loc", NULL };
	Module *m = r->m;
	if (depth > 256) {
		rfail(r, "regions nested too deeply");
		return NULL;
	}
	if (!json_is_object(j)) {
		rfail(r, "expected an op object, got %s", jtype_name(j));
		return NULL;
	}
	if (!check_keys(r, j, k))
		return NULL;
	const json_t *name = need(r, j, "op", JSON_STRING);
	if (!name)
		return NULL;
	const OpInfo *info = opinfo_by_name(json_string_value(name));
	if (!info) {
		size_t old = push_key(r, "op");
		rfail(r, "unknown op '%s'", json_string_value(name));
		pop(r, old);
		return NULL;
	}
	const json_t *results = opt(r, j, "results", JSON_ARRAY);
	const json_t *operands = opt(r, j, "operands", JSON_ARRAY);
	const json_t *attrs = opt(r, j, "attrs", JSON_OBJECT);
	const json_t *regions = opt(r, j, "regions", JSON_ARRAY);
	if (r->failed)
		return NULL;

	/* operands refer to values visible here */
	int nops = operands ? (int)json_array_size(operands) : 0;
	Value **ops = xcalloc((size_t)nops + 1, sizeof *ops);
	for (int i = 0; i < nops; i++) {
		size_t old = push_key(r, "operands");
		size_t o2 = push_index(r, (size_t)i);
		const json_t *o = json_array_get(operands, (size_t)i);
		int id = json_is_string(o) ? parse_value_name(json_string_value(o)) : -1;
		if (id < 0)
			rfail(r, "an operand is a value name \"%%N\"");
		else if (id >= r->nvals || !r->vals[id])
			rfail(r, "value %%%d is not defined here", id);
		else
			ops[i] = r->vals[id];
		pop(r, o2);
		pop(r, old);
		if (r->failed) {
			free(ops);
			return NULL;
		}
	}

	int nres = 0;
	const Type **rtypes = NULL;
	if (results) {
		size_t old = push_key(r, "results");
		bool ok = read_value_defs(r, results, &nres, &rtypes);
		pop(r, old);
		if (!ok) {
			free(ops);
			free(rtypes);
			return NULL;
		}
	}
	int nregions = regions ? (int)json_array_size(regions) : 0;
	const Loc *loc = NULL;
	if (json_object_get(j, "loc")) {
		size_t old = push_key(r, "loc");
		loc = read_loc(r, json_object_get(j, "loc"), 0);
		pop(r, old);
		if (!loc) {
			free(ops);
			free(rtypes);
			return NULL;
		}
	}
	Op *op = op_new(m, info, nops, ops, nres, rtypes, nregions, loc);
	free(ops);
	free(rtypes);

	if (attrs) {
		size_t old = push_key(r, "attrs");
		const Attr *d = read_attr_dict(r, attrs);
		pop(r, old);
		if (!d)
			return NULL;
		op->nattrs = d->u.dict.n;
		op->attrs = (NamedAttr *)d->u.dict.v;
	}

	/* Regions see the values defined before the op, not its results: the
	 * results become visible after the op (dominance). */
	size_t old = push_key(r, "regions");
	for (int i = 0; i < nregions; i++) {
		size_t o2 = push_index(r, (size_t)i);
		const json_t *reg = json_array_get(regions, (size_t)i);
		if (!json_is_array(reg))
			rfail(r, "a region is an array of blocks, got %s", jtype_name(reg));
		for (size_t b = 0; !r->failed && b < json_array_size(reg); b++) {
			size_t o3 = push_index(r, b);
			read_block(r, &op->regions[i], json_array_get(reg, b), depth);
			pop(r, o3);
		}
		pop(r, o2);
		if (r->failed)
			break;
	}
	pop(r, old);
	if (r->failed)
		return NULL;
	if (results) {
		size_t o2 = push_key(r, "results");
		bool ok = bind_value_defs(r, results, op->results);
		pop(r, o2);
		if (!ok)
			return NULL;
	}
	return op;
}

Module *json_ir_read(const char *buf, size_t len, const char *const *stages)
{
	json_error_t err;
	json_t *root = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &err);
	if (!root) {
		char where[64];
		snprintf(where, sizeof where, "line %d column %d", err.line, err.column);
		diag_error_where(where, "malformed JSON: %s", err.text);
		return NULL;
	}
	R r = {0};
	Module *m = NULL;
	static const char *const top_keys[] = { "format", "version", "stage", "module", NULL };
	static const char *const mod_keys[] = { "name", "attrs", "ops", NULL };
	const json_t *fmt, *ver, *stage, *mod, *name, *attrs, *ops;
	if (!json_is_object(root)) {
		rfail(&r, "expected the IR object, got %s", jtype_name(root));
		goto out;
	}
	if (!check_keys(&r, root, top_keys) ||
	    !(fmt = need(&r, root, "format", JSON_STRING)) ||
	    !(ver = need(&r, root, "version", JSON_INTEGER)) ||
	    !(stage = need(&r, root, "stage", JSON_STRING)) ||
	    !(mod = need(&r, root, "module", JSON_OBJECT)))
		goto out;
	if (strcmp(json_string_value(fmt), IR_FORMAT) != 0) {
		push_key(&r, "format");
		rfail(&r, "not a tile IR file: format is '%s', expected '%s'",
		      json_string_value(fmt), IR_FORMAT);
		goto out;
	}
	if (json_integer_value(ver) != IR_VERSION) {
		push_key(&r, "version");
		rfail(&r, "IR version %lld is not supported (this tool reads version %d)",
		      (long long)json_integer_value(ver), IR_VERSION);
		goto out;
	}
	if (stages) {
		bool ok = false;
		StrBuf want = {0};
		for (const char *const *s = stages; *s; s++) {
			ok |= strcmp(*s, json_string_value(stage)) == 0;
			sb_printf(&want, "%s'%s'", s == stages ? "" : " or ", *s);
		}
		if (!ok) {
			push_key(&r, "stage");
			rfail(&r, "this tool takes IR at stage %s, got '%s'", sb_cstr(&want),
			      json_string_value(stage));
			sb_free(&want);
			goto out;
		}
		sb_free(&want);
	}
	m = module_new(json_string_value(stage));
	r.m = m;
	push_key(&r, "module");
	if (!check_keys(&r, mod, mod_keys) ||
	    !(name = need(&r, mod, "name", JSON_STRING)) ||
	    !(ops = need(&r, mod, "ops", JSON_ARRAY)))
		goto out;
	m->name = arena_strdup(m->arena, json_string_value(name));
	if ((attrs = opt(&r, mod, "attrs", JSON_OBJECT))) {
		size_t old = push_key(&r, "attrs");
		const Attr *d = read_attr_dict(&r, attrs);
		pop(&r, old);
		if (!d)
			goto out;
		m->attrs = d;
	} else if (r.failed)
		goto out;
	size_t old = push_key(&r, "ops");
	for (size_t i = 0; i < json_array_size(ops); i++) {
		size_t o2 = push_index(&r, i);
		Op *op = read_op(&r, json_array_get(ops, i), 0);
		close_scope(&r, 0);   /* top-level ops are isolated from each other */
		pop(&r, o2);
		if (!op)
			goto out;
		block_append(&m->body, op);
	}
	pop(&r, old);
out:
	json_decref(root);
	free(r.vals);
	free(r.defined);
	free(r.lays);
	sb_free(&r.path);
	if (r.failed) {
		module_free(m);
		return NULL;
	}
	return m;
}

/* ================================================================ writer */

static json_t *write_attr(const Attr *a);

static json_t *hex_string(const uint8_t *b, size_t n)
{
	char *s = xmalloc(2 * n + 1);
	for (size_t i = 0; i < n; i++)
		snprintf(s + 2 * i, 3, "%02x", b[i]);
	s[2 * n] = 0;
	json_t *j = json_string(s);
	free(s);
	return j;
}

static json_t *write_dict_body(const Attr *d)
{
	json_t *o = json_object();
	for (int i = 0; i < d->u.dict.n; i++)
		json_object_set_new(o, d->u.dict.v[i].name, write_attr(d->u.dict.v[i].attr));
	return o;
}

static json_t *write_attr(const Attr *a)
{
	json_t *o;
	switch (a->kind) {
	case AT_INT:
		if (!a->type)
			return json_integer(a->u.i);
		return json_pack("{sIss}", "int", (json_int_t)a->u.i, "type", a->type->str);
	case AT_FLOAT: {
		char buf[24];
		snprintf(buf, sizeof buf, "0x%llx", (unsigned long long)a->u.bits);
		return json_pack("{ssss}", "float", buf, "type", a->type->str);
	}
	case AT_BOOL: return json_boolean(a->u.i);
	case AT_STRING: return json_string(a->u.s);
	case AT_TYPE: return json_pack("{ss}", "type", a->type->str);
	case AT_INTS:
		o = json_array();
		for (int i = 0; i < a->u.ints.n; i++)
			json_array_append_new(o, json_integer(a->u.ints.v[i]));
		return o;
	case AT_ARRAY:
		o = json_array();
		for (int i = 0; i < a->u.array.n; i++)
			json_array_append_new(o, write_attr(a->u.array.v[i]));
		return o;
	case AT_DICT:
		return json_pack("{so}", "dict", write_dict_body(a));
	case AT_DENSE:
		o = json_pack("{soss}", "dense", hex_string(a->u.dense.bytes, a->u.dense.n),
			      "type", a->type->str);
		if (a->u.dense.splat)
			json_object_set_new(o, "splat", json_true());
		return o;
	case AT_DIV_BY:
		o = json_pack("{sI}", "div_by", (json_int_t)a->u.div_by.divisor);
		if (a->u.div_by.has_every) {
			json_object_set_new(o, "every", json_integer(a->u.div_by.every));
			json_object_set_new(o, "along", json_integer(a->u.div_by.along));
		}
		return o;
	case AT_SAME_ELEMENTS:
		o = json_array();
		for (int i = 0; i < a->u.ints.n; i++)
			json_array_append_new(o, json_integer(a->u.ints.v[i]));
		return json_pack("{so}", "same_elements", o);
	case AT_BOUNDED:
		return json_pack("{s[oo]}", "bounded",
				 a->u.bounded.has_lb ? json_integer(a->u.bounded.lb) : json_null(),
				 a->u.bounded.has_ub ? json_integer(a->u.bounded.ub) : json_null());
	}
	ice("write_attr: bad attribute kind %d", a->kind);
}

static json_t *write_loc(const Loc *l)
{
	json_t *o = json_pack("{sssIsI}", "file", l->file, "line", (json_int_t)l->line,
			      "col", (json_int_t)l->col);
	if (l->func)
		json_object_set_new(o, "func", json_string(l->func));
	if (l->func && l->func_flags)
		json_object_set_new(o, "func_flags", json_integer((json_int_t)l->func_flags));
	if (l->caller && l->caller->file)
		json_object_set_new(o, "caller", write_loc(l->caller));
	return o;
}

static json_t *value_name(const Value *v)
{
	char buf[24];
	snprintf(buf, sizeof buf, "%%%d", v->id);
	return json_string(buf);
}

static json_t *write_value_defs(Value **v, int n)
{
	json_t *a = json_array();
	for (int i = 0; i < n; i++) {
		json_t *d = json_pack("{soss}", "id", value_name(v[i]), "type", v[i]->type->str);
		if (v[i]->layout)
			json_object_set_new(d, "layout", write_attr(v[i]->layout));
		json_array_append_new(a, d);
	}
	return a;
}

static json_t *write_op(const Op *op)
{
	json_t *o = json_object();
	json_object_set_new(o, "op", json_string(op->info->name));
	if (op->nresults)
		json_object_set_new(o, "results", write_value_defs(op->results, op->nresults));
	if (op->noperands) {
		json_t *a = json_array();
		for (int i = 0; i < op->noperands; i++)
			json_array_append_new(a, value_name(op->operands[i]));
		json_object_set_new(o, "operands", a);
	}
	if (op->nattrs) {
		json_t *a = json_object();
		for (int i = 0; i < op->nattrs; i++)
			json_object_set_new(a, op->attrs[i].name, write_attr(op->attrs[i].attr));
		json_object_set_new(o, "attrs", a);
	}
	if (op->nregions) {
		json_t *regs = json_array();
		for (int i = 0; i < op->nregions; i++) {
			json_t *blocks = json_array();
			FOR_EACH_BLOCK(b, &op->regions[i]) {
				json_t *bj = json_object();
				if (b->nargs)
					json_object_set_new(bj, "args", write_value_defs(b->args, b->nargs));
				json_t *ops = json_array();
				FOR_EACH_OP(inner, b)
					json_array_append_new(ops, write_op(inner));
				json_object_set_new(bj, "ops", ops);
				json_array_append_new(blocks, bj);
			}
			json_array_append_new(regs, blocks);
		}
		json_object_set_new(o, "regions", regs);
	}
	if (op->loc && op->loc->file)
		json_object_set_new(o, "loc", write_loc(op->loc));
	return o;
}

char *json_ir_write(Module *m, size_t *len)
{
	ir_number_values(m);
	json_t *ops = json_array();
	FOR_EACH_OP(op, &m->body)
		json_array_append_new(ops, write_op(op));
	json_t *mod = json_pack("{ss}", "name", m->name);
	if (m->attrs && m->attrs->u.dict.n)
		json_object_set_new(mod, "attrs", write_dict_body(m->attrs));
	json_object_set_new(mod, "ops", ops);
	json_t *root = json_pack("{sssissso}", "format", IR_FORMAT, "version", IR_VERSION,
				 "stage", m->stage, "module", mod);
	char *s = json_dumps(root, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
	json_decref(root);
	if (!s)
		ice("json_dumps failed");
	size_t n = strlen(s);
	char *out = xrealloc(s, n + 2);
	out[n] = '\n';
	out[n + 1] = 0;
	*len = n + 1;
	return out;
}
