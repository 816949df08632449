/* verify_cuda_tile.c: the cuda_tile verifier (verify.h).
 *
 * Driven by one row per op (`rules[]`, indexed by OpCode, built from the
 * `rule` column of libcommon/dialect_cuda_tile.def): the operand
 * groups, whether the op carries operand_segment_sizes, the result count,
 * the region count, the attributes it takes, and a type-rule family with its
 * element classes and flags. The generic part (this file) checks counts,
 * attributes, types and regions for every op from its row; the family
 * checkers (verify_families.c) check the types an op family relates; both
 * report through verify_util.c.
 * Rules: ../shared/docs/ops.md (authoritative), bytecode.md §5-§8. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "verify_impl.h"
#include "xalloc.h"

/* ------------------------------------------------------------ enum subsets
 * The spellings of each kind, their bytecode values and first versions are
 * in libcommon/enums.def; these are the subsets some ops accept, in the
 * order the "expected one of" messages list them. */
static const char *const E_OVF_NEGI[] = { "none", "nsw", "nw", NULL };
static const char *const E_RND_IEEE[] = { "nearest_even", "zero", "negative_inf", "positive_inf",
					  "nearest_away", NULL };
static const char *const E_RND_DIVF[] = { "nearest_even", "zero", "negative_inf", "positive_inf",
					  "nearest_away", "approx", "full", NULL };
static const char *const E_RND_SQRT[] = { "nearest_even", "zero", "negative_inf", "positive_inf",
					  "nearest_away", "approx", NULL };
static const char *const E_RND_FULL[] = { "full", "approx", NULL };
static const char *const E_RND_DIVI[] = { "zero", "negative_inf", "positive_inf", NULL };
static const char *const E_RND_FTOI[] = { "nearest_int_to_zero", NULL };
static const char *const E_RND_ITOF[] = { "nearest_even", NULL };
static const char *const E_MODE_RED[] = { "and", "or", "xor", "add", "addf", "max", "min", "umax",
					  "umin", NULL };
static const char *const E_SCOPE_RED[] = { "tl_blk", "device", NULL };
static const char *const E_MOS_LOAD[] = { "weak", "relaxed", "acquire", NULL };
static const char *const E_MOS_STORE[] = { "weak", "relaxed", "release", NULL };
static const char *const E_MOS_ATOMIC[] = { "relaxed", "acquire", "release", "acq_rel", NULL };
static const char *const E_MOS_RED[] = { "relaxed", NULL };

/* ------------------------------------------------------------ the op table */
#define B(k) (1u << SC_##k)
#define EC_INT (B(I1) | B(I8) | B(I16) | B(I32) | B(I64))
#define EC_BF (B(F16) | B(BF16) | B(F32) | B(F64))
#define EC_FT (EC_BF | B(TF32) | B(F8E4M3FN) | B(F8E5M2) | B(F8E8M0FNU) | B(F4E2M1FN) | B(F8E5M3FNU))
#define EC_NUM (EC_INT | EC_FT)

/* attribute rows */
#define ENUM_(n, kind, allow, req, since, dflt) { n, AK_ENUM, req, since, allow, dflt, EK_##kind }
#define A_RM(allow) ENUM_("rounding_mode", ROUNDING, allow, REQ, 0, NULL)
#define A_FTZ { "flush_to_zero", AK_UNIT, OPT, 0, NULL, NULL }
#define A_OVF ENUM_("overflow", OVERFLOW, NULL, REQ, 0, NULL)
#define A_SIGN ENUM_("signedness", SIGNEDNESS, NULL, REQ, 0, NULL)
#define A_MOS(allow) ENUM_("memory_ordering_semantics", ORDERING, allow, REQ, 0, NULL)
#define A_SCOPE ENUM_("memory_scope", SCOPE, NULL, REQ, 0, NULL)
#define A_SCOPE_OPT ENUM_("memory_scope", SCOPE, NULL, OPT, 0, NULL)
#define A_HINTS { "optimization_hints", AK_HINTS, OPT, 0, NULL, NULL }
#define A_INBOUNDS { "inbounds", AK_BOOLS, OPT, 1304, NULL, NULL }
#define A_INT(n) { n, AK_INT, REQ, 0, NULL, NULL }
#define A_STR(n) { n, AK_STR, REQ, 0, NULL, NULL }
#define A_UNIT(n, since) { n, AK_UNIT, OPT, since, NULL, NULL }
#define A_IDENT { "identities", AK_ARRAY, REQ, 0, NULL, NULL }
#define A_BELOW(n, kind) { n, kind, BELOW, 0, NULL, NULL }   /* set by the lower stages only */

/* the `rule` column of dialect_cuda_tile.def: operand groups, segmented?,
 * results min..max (-1 = any), regions, element class of the operands, of
 * the result, flags, attributes (the op's type-rule family is its `family`
 * column) */
#define SAME(ops, ec, fl, ...) { ops, 0, 1, 1, 0, ec, 0, fl, { __VA_ARGS__ } }
#define SAMEI(ops, ...) SAME(ops, EC_INT, 0, __VA_ARGS__)
#define SAMEF(ops, ...) SAME(ops, EC_BF, 0, __VA_ARGS__)
#define CONV(ec, ec2, fl, ...) { "1", 0, 1, 1, 0, ec, ec2, fl, { __VA_ARGS__ } }
#define ROW(ops, seg, rmin, rmax, nreg, ...) { ops, seg, rmin, rmax, nreg, 0, 0, 0, { __VA_ARGS__ } }
#define IMPURE(ops, seg, rmin, rmax, ...) { ops, seg, rmin, rmax, 0, 0, 0, F_IMPURE, { __VA_ARGS__ } }

const OpRule rules[OPCODE_COUNT] = {
#define OP(name, opcode, since, traits, lower, family, emit, rule, layout) [CT_##name] = rule,
#include "dialect_cuda_tile.def"
#undef OP
};

/* ------------------------------------------------------------ types */

static bool is_pow2(int64_t x) { return x > 0 && (x & (x - 1)) == 0; }

/* The slot of t in the set of checked types (open addressing on the
 * pointer); *found tells whether it was there. */
static size_t type_slot(V *v, const Type *t, bool *found)
{
	if (v->seen_n * 2 >= v->seen_cap) {
		size_t cap = v->seen_cap ? v->seen_cap * 2 : 256;
		const Type **s = xcalloc(cap, sizeof *s);
		bool *ok = xcalloc(cap, sizeof *ok);
		for (size_t i = 0; i < v->seen_cap; i++)
			if (v->seen[i]) {
				size_t j = ((uintptr_t)v->seen[i] >> 4) & (cap - 1);
				while (s[j])
					j = (j + 1) & (cap - 1);
				s[j] = v->seen[i];
				ok[j] = v->seen_ok[i];
			}
		free(v->seen);
		free(v->seen_ok);
		v->seen = s;
		v->seen_ok = ok;
		v->seen_cap = cap;
	}
	size_t j = ((uintptr_t)t >> 4) & (v->seen_cap - 1);
	for (; v->seen[j]; j = (j + 1) & (v->seen_cap - 1))
		if (v->seen[j] == t) {
			*found = true;
			return j;
		}
	*found = false;
	return j;
}

static bool check_type_once(V *v, const Op *op, const Type *t);

static bool check_elem(V *v, const Op *op, const Type *outer, const Type *e)
{
	if (e->kind == TY_PTR) {
		if (!check_type(v, op, e))
			return false;
		return true;
	}
	if (e->kind != TY_SCALAR) {
		verr(v, op, "type %s: element must be a scalar or pointer type", outer->str);
		return false;
	}
	return check_type(v, op, e);
}

/* the shape rules of a tile (also a view's tile): dims powers of two, the cap,
 * an even dimension for f4E2M1FN */
static bool check_tile_shape(V *v, const Op *op, const Type *t, int rank, const int64_t *shape,
			     const Type *elem)
{
	int64_t total = 1;
	bool even = false;
	for (int i = 0; i < rank; i++) {
		if (!is_pow2(shape[i])) {
			verr(v, op, "type %s: tile dimensions must be positive powers of two, got %lld",
			     t->str, (long long)shape[i]);
			return false;
		}
		if (shape[i] % 2 == 0)
			even = true;
		if (total > TILE_MAX_ELEMS / shape[i]) {
			verr(v, op, "type %s: a tile may have at most %d elements", t->str,
			     TILE_MAX_ELEMS);
			return false;
		}
		total *= shape[i];
	}
	if (total > TILE_MAX_ELEMS) {
		verr(v, op, "type %s: a tile may have at most %d elements", t->str, TILE_MAX_ELEMS);
		return false;
	}
	if (elem && elem->kind == TY_SCALAR && elem->scalar == SC_F4E2M1FN && !even) {
		verr(v, op, "type %s: a tile of f4E2M1FN needs an even dimension", t->str);
		return false;
	}
	/* f4 elements have no address of their own (NVIDIA's reader says the same) */
	if (elem && elem->kind == TY_PTR && elem->elem->kind == TY_SCALAR &&
	    elem->elem->scalar == SC_F4E2M1FN && rank > 0) {
		verr(v, op, "type %s: tiles of ptr<f4E2M1FN> must have rank 0; use an f4 tile view for "
		     "memory accesses", t->str);
		return false;
	}
	return true;
}

static const char *const pad_float_only[] = { "neg_zero", "nan", "pos_inf", "neg_inf" };

static bool check_view(V *v, const Op *op, const Type *t)
{
	const Type *tv = t->view;
	if (!check_type(v, op, tv))
		return false;
	if (t->rank != tv->rank) {
		verr(v, op, "type %s: the view's tile rank (%d) must equal the tensor_view rank (%d)",
		     t->str, t->rank, tv->rank);
		return false;
	}
	if (!check_tile_shape(v, op, t, t->rank, t->shape, tv->elem))
		return false;
	if (t->dim_map) {
		unsigned long long used = 0;
		for (int i = 0; i < t->rank; i++) {
			int64_t d = t->dim_map[i];
			if (d < 0 || d >= t->rank || (used >> d & 1)) {
				verr(v, op, "type %s: dim_map must be a permutation of 0..%d", t->str,
				     t->rank - 1);
				return false;
			}
			used |= 1ull << d;
		}
	}
	if (t->padding > PAD_ZERO && !scalar_is_float(tv->elem->scalar)) {
		verr(v, op, "type %s: padding_value %s needs a float element type", t->str,
		     pad_float_only[t->padding - 1]);
		return false;
	}
	if (t->kind == TY_STRIDED_VIEW) {
		for (int i = 0; i < t->rank; i++)
			if (t->strides[i] <= 0 || t->strides[i] >= INT32_MAX) {
				verr(v, op, "type %s: traversal_strides must be positive 32-bit integers",
				     t->str);
				return false;
			}
	}
	return true;
}

/* Checks a type once (interned types are compared by pointer): version
 * gating and the type verifiers of ops.md §1. */
bool check_type(V *v, const Op *op, const Type *t)
{
	if (!t)
		return false;
	bool found;
	size_t j = type_slot(v, t, &found);
	if (found)
		return v->seen_ok[j];   /* checked (and reported) at its first use */
	bool ok = check_type_once(v, op, t);
	j = type_slot(v, t, &found);   /* the table may have grown meanwhile */
	v->seen[j] = t;
	v->seen_ok[j] = ok;
	v->seen_n++;
	return ok;
}

static bool check_type_once(V *v, const Op *op, const Type *t)
{
	switch (t->kind) {
	case TY_SCALAR: {
		int since = t->scalar == SC_F8E8M0FNU ? 1302
			  : t->scalar == SC_F4E2M1FN || t->scalar == SC_I4 ? 1303
			  : t->scalar == SC_F8E5M3FNU ? 1304 : 0;
		char what[64];
		snprintf(what, sizeof what, "type '%s'", t->str);
		return gate(v, op, since, what);
	}
	case TY_PTR:
		if (t->elem->kind != TY_SCALAR || t->elem->scalar == SC_I4) {
			verr(v, op, "type %s: a pointer's element must be a number type (i1..i64 or a float)",
			     t->str);
			return false;
		}
		return check_type(v, op, t->elem);
	case TY_TILE:
		if (!check_elem(v, op, t, t->elem))
			return false;
		return check_tile_shape(v, op, t, t->rank, t->shape, t->elem);
	case TY_TENSOR_VIEW:
		if (t->elem->kind != TY_SCALAR || t->elem->scalar == SC_I4) {
			verr(v, op, "type %s: a tensor_view's element must be a number type", t->str);
			return false;
		}
		if (!check_type(v, op, t->elem))
			return false;
		for (int i = 0; i < t->rank; i++)
			if ((t->shape[i] != DYN_DIM && t->shape[i] <= 0) ||
			    (t->strides[i] != DYN_DIM && t->strides[i] <= 0)) {
				verr(v, op, "type %s: static sizes and strides must be positive", t->str);
				return false;
			}
		return true;
	case TY_PARTITION_VIEW:
		return check_view(v, op, t);
	case TY_STRIDED_VIEW:
		return gate(v, op, 1303, "type strided_view") && check_view(v, op, t);
	case TY_GATHER_SCATTER_VIEW:
		return gate(v, op, 1303, "type gather_scatter_view") && check_view(v, op, t);
	case TY_TOKEN:
		return true;
	case TY_FUNC: {
		bool ok = true;
		for (int i = 0; i < t->nin; i++)
			ok &= check_type(v, op, t->ins[i]);
		for (int i = 0; i < t->nout; i++)
			ok &= check_type(v, op, t->outs[i]);
		return ok;
	}
	}
	return true;
}

/* A value's type: tile, token, tensor_view or a view (never a bare element,
 * pointer or function type). */
static bool check_value_type(V *v, const Op *op, const Type *t, const char *what, int i)
{
	if (t->kind == TY_SCALAR || t->kind == TY_PTR || t->kind == TY_FUNC) {
		verr(v, op, "%s #%d has type %s, which is not a value type (values are tiles, tokens, "
		     "tensor_views and views; a scalar is tile<%s>)", what, i, t->str,
		     t->kind == TY_FUNC ? "..." : t->str);
		return false;
	}
	return check_type(v, op, t);
}

/* ------------------------------------------------------------ attributes */

static bool int_fits(int64_t x, int bits)
{
	if (bits >= 64)
		return true;
	return x >= -((int64_t)1 << (bits - 1)) && x <= (int64_t)(((uint64_t)1 << bits) - 1);
}

/* Structural checks of any attribute value, recursively: dictionary keys,
 * typed values fit their types, dense data size, version of the types. */
static void check_attr_value(V *v, const Op *op, const char *name, const Attr *a, int depth)
{
	if (!a || depth > 64)
		return;
	switch (a->kind) {
	case AT_DICT:
		for (int i = 0; i < a->u.dict.n; i++) {
			const char *k = a->u.dict.v[i].name;
			if (!k || !k[0])
				verr(v, op, "attribute '%s': invalid empty attribute name for DictionaryAttr "
				     "element %d", name, i);
			else if (i > 0 && a->u.dict.v[i - 1].name && strcmp(a->u.dict.v[i - 1].name, k) == 0)
				verr(v, op, "attribute '%s': duplicate key '%s'", name, k);
			check_attr_value(v, op, name, a->u.dict.v[i].attr, depth + 1);
		}
		break;
	case AT_ARRAY:
		for (int i = 0; i < a->u.array.n; i++)
			check_attr_value(v, op, name, a->u.array.v[i], depth + 1);
		break;
	case AT_INT:
		if (a->type) {
			if (a->type->kind != TY_SCALAR || scalar_is_float(a->type->scalar)) {
				verr(v, op, "attribute '%s': an integer's type must be an integer type, got %s",
				     name, a->type->str);
			} else if (check_type(v, op, a->type) && !int_fits(a->u.i, scalar_bits(a->type->scalar))) {
				verr(v, op, "attribute '%s': %lld does not fit in %s", name,
				     (long long)a->u.i, a->type->str);
			}
		}
		break;
	case AT_FLOAT:
		if (check_type(v, op, a->type) && scalar_bits(a->type->scalar) < 64 &&
		    a->u.bits >> scalar_bits(a->type->scalar)) {
			verr(v, op, "attribute '%s': bit pattern 0x%llx is wider than %s", name,
			     (unsigned long long)a->u.bits, a->type->str);
		}
		break;
	case AT_TYPE:
		check_type(v, op, a->type);
		break;
	case AT_DENSE: {
		const Type *t = a->type;
		if (t->kind != TY_TILE || t->elem->kind != TY_SCALAR) {
			verr(v, op, "attribute '%s': dense elements need a tile type of integers or floats, "
			     "got %s", name, t->str);
			break;
		}
		if (!check_type(v, op, t))
			break;
		ScalarKind k = t->elem->scalar;
		size_t esz = (size_t)(scalar_bits(k) + 7) / 8;
		size_t want = a->u.dense.splat ? esz : esz * (size_t)type_num_elements(t);
		if (a->u.dense.n != want) {
			verr(v, op, "attribute '%s': dense data for %s%s must be %zu byte%s, got %zu", name,
			     t->str, a->u.dense.splat ? " (splat)" : "", want, want == 1 ? "" : "s",
			     a->u.dense.n);
			break;
		}
		if (k == SC_I1)
			for (size_t i = 0; i < a->u.dense.n; i++)
				if (a->u.dense.bytes[i] > 1) {
					verr(v, op, "attribute '%s': i1 elements are stored as bytes 00 or 01",
					     name);
					break;
				}
		break;
	}
	case AT_SAME_ELEMENTS:
		for (int i = 0; i < a->u.ints.n; i++)
			if (a->u.ints.v[i] == INT64_MIN || a->u.ints.v[i] == INT64_MAX) {
				verr(v, op, "attribute '%s': array contains unsupported value %lld", name,
				     (long long)a->u.ints.v[i]);
				break;
			}
		break;
	default:
		break;
	}
}

static const char *kind_name(int ak)
{
	switch (ak) {
	case AK_ENUM: return "an enum value (a string)";
	case AK_INT: return "an integer";
	case AK_BOOL: case AK_UNIT: return "a boolean";
	case AK_STR: return "a string";
	case AK_TYPE: return "a type ({\"type\": T})";
	case AK_I32S: return "an array of integers";
	case AK_ARRAY: return "an array of typed attributes";
	case AK_DENSE: return "dense elements ({\"dense\": ..., \"type\": T})";
	case AK_PRED: return "an assume predicate (div_by, same_elements or bounded)";
	case AK_HINTS: return "a dictionary of per-architecture dictionaries";
	case AK_BOOLS: return "an array of booleans";
	case AK_PLAN: return "an MMA plan (a dictionary)";
	}
	return "?";
}

static bool list_has(const char *const *l, const char *s)
{
	for (; *l; l++)
		if (strcmp(*l, s) == 0)
			return true;
	return false;
}

static const char *list_str(const char *const *l, char *buf, size_t n)
{
	size_t len = 0;
	buf[0] = 0;
	for (int i = 0; l[i] && len < n; i++) {
		int w = snprintf(buf + len, n - len, "%s%s", i ? ", " : "", l[i]);
		if (w < 0)
			break;
		len += (size_t)w;
	}
	return buf;
}

static bool is_default(const AttrRule *ar, const Attr *a)
{
	switch (ar->kind) {
	case AK_UNIT: case AK_BOOL:
		return a->kind == AT_BOOL && !a->u.i;
	case AK_ENUM:
		return ar->dflt && a->kind == AT_STRING && strcmp(a->u.s, ar->dflt) == 0;
	case AK_BOOLS:
		if (a->kind == AT_ARRAY) {
			for (int i = 0; i < a->u.array.n; i++)
				if (a->u.array.v[i]->kind != AT_BOOL || a->u.array.v[i]->u.i)
					return false;
			return true;
		}
		if (a->kind == AT_INTS) {
			for (int i = 0; i < a->u.ints.n; i++)
				if (a->u.ints.v[i])
					return false;
			return true;
		}
		return false;
	}
	return false;
}

/* Does `a` have the kind the row asks for? Reports if not. */
static bool check_attr_kind(V *v, const Op *op, const AttrRule *ar, const Attr *a)
{
	bool ok;
	switch (ar->kind) {
	case AK_ENUM: case AK_STR: ok = a->kind == AT_STRING; break;
	case AK_INT: ok = a->kind == AT_INT; break;
	case AK_BOOL: case AK_UNIT: ok = a->kind == AT_BOOL; break;
	case AK_TYPE: ok = a->kind == AT_TYPE; break;
	case AK_I32S: ok = a->kind == AT_INTS || (a->kind == AT_ARRAY && a->u.array.n == 0); break;
	case AK_ARRAY: ok = a->kind == AT_ARRAY; break;
	case AK_DENSE: ok = a->kind == AT_DENSE; break;
	case AK_PRED: ok = a->kind == AT_DIV_BY || a->kind == AT_SAME_ELEMENTS || a->kind == AT_BOUNDED; break;
	case AK_HINTS: case AK_PLAN: ok = a->kind == AT_DICT; break;
	case AK_BOOLS:
		ok = a->kind == AT_INTS || a->kind == AT_ARRAY;
		for (int i = 0; ok && a->kind == AT_ARRAY && i < a->u.array.n; i++)
			ok = a->u.array.v[i]->kind == AT_BOOL;
		for (int i = 0; ok && a->kind == AT_INTS && i < a->u.ints.n; i++)
			ok = a->u.ints.v[i] == 0 || a->u.ints.v[i] == 1;
		break;
	default: ok = false;
	}
	if (!ok) {
		verr(v, op, "attribute '%s' must be %s", ar->name, kind_name(ar->kind));
		return false;
	}
	switch (ar->kind) {
	case AK_ENUM: {
		char buf[256];
		const EnumVal *e = enum_lookup(ar->ek, a->u.s);
		if (!e) {
			verr(v, op, "attribute '%s' has unknown value '%s' (expected one of: %s)", ar->name,
			     a->u.s, enum_list(ar->ek, buf, sizeof buf));
			return false;
		}
		char what[96];
		snprintf(what, sizeof what, "%s '%s'", ar->name, a->u.s);
		if (!gate(v, op, e->since, what))
			return false;
		if (ar->allow && !list_has(ar->allow, a->u.s)) {
			verr(v, op, "%s '%s' is not supported by this op (expected one of: %s)", ar->name,
			     a->u.s, list_str(ar->allow, buf, sizeof buf));
			return false;
		}
		return true;
	}
	case AK_I32S:
		for (int i = 0; a->kind == AT_INTS && i < a->u.ints.n; i++) {
			int64_t x = a->u.ints.v[i];
			if (x <= INT32_MIN || x >= INT32_MAX) {
				verr(v, op, "attribute '%s': array contains unsupported value %lld", ar->name,
				     (long long)x);
				return false;
			}
		}
		return true;
	case AK_HINTS:
		for (int i = 0; i < a->u.dict.n; i++)
			if (a->u.dict.v[i].attr->kind != AT_DICT) {
				verr(v, op, "optimization_hints: the value for '%s' must be a dictionary",
				     a->u.dict.v[i].name);
				return false;
			}
		return true;
	case AK_ARRAY:
		return true;
	}
	return true;
}

/* operand_segment_sizes -> operand groups (see Groups in verify_impl.h) */
static bool check_operands(V *v, const Op *op, const OpRule *r, Groups *g)
{
	int ng = (int)strlen(r->operands);
	int nsingle = 0, nopt = 0, nvar = 0;
	for (int i = 0; i < ng; i++) {
		char c = r->operands[i];
		nsingle += c == '1';
		nopt += c == '?';
		nvar += c == '*';
	}
	g->n = ng;
	const Attr *seg = op_attr(op, "operand_segment_sizes");
	if (seg || r->segmented) {
		if (!seg) {
			verr(v, op, "requires attribute 'operand_segment_sizes' (one count per operand "
			     "group: %d)", ng);
			return false;
		}
		if (nopt + nvar == 0) {
			verr(v, op, "has no optional or variadic operands: attribute 'operand_segment_sizes' "
			     "is not allowed");
			return false;
		}
		if (seg->kind != AT_INTS) {
			verr(v, op, "attribute 'operand_segment_sizes' must be an array of integers");
			return false;
		}
		for (int i = 0; i < seg->u.ints.n; i++)
			if (seg->u.ints.v[i] <= INT32_MIN || seg->u.ints.v[i] >= INT32_MAX) {
				verr(v, op, "attribute 'operand_segment_sizes': array contains unsupported "
				     "value %lld", (long long)seg->u.ints.v[i]);
				return false;
			}
		if (seg->u.ints.n != ng) {
			verr(v, op, "attribute 'operand_segment_sizes' must have %d entries (one per "
			     "operand group), got %d", ng, seg->u.ints.n);
			return false;
		}
		int64_t sum = 0;
		for (int i = 0; i < ng; i++) {
			int64_t k = seg->u.ints.v[i];
			char c = r->operands[i];
			if (k < 0 || (c == '1' && k != 1) || (c == '?' && k > 1)) {
				verr(v, op, "operand_segment_sizes[%d] is %lld, but operand group %d %s", i,
				     (long long)k, i,
				     c == '1' ? "is exactly one operand" : c == '?' ? "is optional (0 or 1)"
									: "cannot be negative");
				return false;
			}
			g->start[i] = (int)sum;
			g->len[i] = (int)k;
			sum += k;
		}
		if (sum != op->noperands) {
			verr(v, op, "operand_segment_sizes add up to %lld, but the op has %d operands",
			     (long long)sum, op->noperands);
			return false;
		}
		return true;
	}
	/* not segmented: at most one optional/variadic group, it takes the rest */
	int extra = op->noperands - nsingle;
	bool bad = extra < 0 || (nvar == 0 && extra > nopt);
	if (bad) {
		if (nvar)
			verr(v, op, "expects at least %d operands, got %d", nsingle, op->noperands);
		else if (nopt)
			verr(v, op, "expects %d to %d operands, got %d", nsingle, nsingle + nopt,
			     op->noperands);
		else
			verr(v, op, "expects %d operand%s, got %d", nsingle, nsingle == 1 ? "" : "s",
			     op->noperands);
		return false;
	}
	int at = 0;
	for (int i = 0; i < ng; i++) {
		int k = r->operands[i] == '1' ? 1 : extra;
		g->start[i] = at;
		g->len[i] = k;
		at += k;
	}
	return true;
}

static bool check_attrs(V *v, const Op *op, const OpRule *r)
{
	bool ok = true;
	for (int i = 0; i < op->nattrs; i++) {
		const NamedAttr *na = &op->attrs[i];
		if (strcmp(na->name, "operand_segment_sizes") == 0)
			continue;   /* check_operands */
		const AttrRule *ar = NULL;
		for (int j = 0; !ar && j < MAX_ATTRS && r->attrs[j].name; j++)
			if (strcmp(r->attrs[j].name, na->name) == 0 && (r->attrs[j].req != BELOW || v->below))
				ar = &r->attrs[j];
		if (!ar) {
			char buf[512];
			size_t len = 0;
			buf[0] = 0;
			for (int j = 0; j < MAX_ATTRS && r->attrs[j].name && len < sizeof buf; j++) {
				if (r->attrs[j].req == BELOW)
					continue;   /* never listed, as below cuda_tile they are known */
				int w = snprintf(buf + len, sizeof buf - len, "%s%s", len ? ", " : "",
						 r->attrs[j].name);
				if (w > 0)
					len += (size_t)w;
			}
			verr(v, op, "has unknown attribute '%s' (it takes: %s)", na->name,
			     buf[0] ? buf : "none");
			ok = false;
			continue;
		}
		check_attr_value(v, op, na->name, na->attr, 0);
		if (!check_attr_kind(v, op, ar, na->attr)) {
			ok = false;
			continue;
		}
		if (ar->since > v->ver && !is_default(ar, na->attr)) {
			char what[96];
			snprintf(what, sizeof what, "attribute '%s'", ar->name);
			gate(v, op, ar->since, what);
		}
	}
	for (int j = 0; j < MAX_ATTRS && r->attrs[j].name; j++) {
		const AttrRule *ar = &r->attrs[j];
		if (ar->req == REQ && !(ar->since > v->ver) && !op_attr(op, ar->name)) {
			verr(v, op, "requires attribute '%s'", ar->name);
			ok = false;
		}
	}
	return ok;
}

/* ------------------------------------------------------------ walk */

static void verify_op(V *v, Op *op);

static void verify_block(V *v, Op *owner, Block *b)
{
	for (int i = 0; i < b->nargs; i++)
		check_value_type(v, owner, b->args[i]->type, "block argument", i);
	if (!b->first) {
		verr(v, owner, "has an empty block: every block ends with a terminator");
		return;
	}
	for (Op *op = b->first; op; op = op->next) {
		bool term = op_has(op->info, OPT_TERM);
		if (term && op->next)
			verr(v, op, "is a terminator and must be the last op of its block");
		else if (!term && !op->next)
			verr(v, op, "ends a block but is not a terminator (yield, continue, break or return)");
		verify_op(v, op);
	}
}

static void verify_op(V *v, Op *op)
{
	const OpInfo *info = op->info;
	if (info->dialect != DIALECT_CUDA_TILE && v->below) {
		/* an nv_tileaa / nv_tileas op: its rules are stage_check's */
		for (int i = 0; i < op->nregions; i++)
			FOR_EACH_BLOCK(b, &op->regions[i])
				verify_block(v, op, b);
		return;
	}
	if (info->dialect != DIALECT_CUDA_TILE) {
		verr(v, op, "belongs to dialect '%s'; cuda_tile IR holds cuda_tile ops only",
		     dialect_name(info->dialect));
		return;
	}
	const OpRule *r = &rules[info->code];
	bool top = op->parent == &v->m->body;
	if (op_has(info, OPT_STRUCT) != top && info->code != CT_module) {
		if (top)
			verr(v, op, "cannot be at the top level of a module (only cuda_tile.entry and "
			     "cuda_tile.global can)");
		else
			verr(v, op, "can only be at the top level of a module");
		return;
	}
	if (v->pure_owner && (!op_has(info, OPT_PURE) || (r->flags & F_IMPURE)) &&
	    !op_has(info, OPT_TERM))
		verr(v, op, "is not pure and cannot be in the body of '%s'", v->pure_owner->info->name);
	gate(v, op, info->since, NULL);

	bool ok = true;
	for (int i = 0; i < op->nresults; i++)
		ok &= check_value_type(v, op, op->results[i]->type, "result", i);
	Groups g = { 0 };
	ok &= check_operands(v, op, r, &g);
	if (op->nresults < r->rmin || (r->rmax >= 0 && op->nresults > r->rmax)) {
		if (r->rmax < 0)
			verr(v, op, "expects at least %d result%s, got %d", r->rmin, r->rmin == 1 ? "" : "s",
			     op->nresults);
		else if (r->rmin == r->rmax)
			verr(v, op, "expects %d result%s, got %d", r->rmin, r->rmin == 1 ? "" : "s",
			     op->nresults);
		else
			verr(v, op, "expects %d to %d results, got %d", r->rmin, r->rmax, op->nresults);
		ok = false;
	}
	ok &= check_attrs(v, op, r);
	if (op->nregions != r->nregions) {
		verr(v, op, "expects %d region%s, got %d", r->nregions, r->nregions == 1 ? "" : "s",
		     op->nregions);
		ok = false;
	} else {
		for (int i = 0; i < op->nregions; i++) {
			int nb = op->regions[i].nblocks;
			bool may_be_empty = info->code == CT_if && i == 1;   /* the else region */
			if (nb > 1 || (nb == 0 && !may_be_empty)) {
				verr(v, op, "region #%d must have %s one block, got %d", i,
				     may_be_empty ? "at most" : "exactly", nb);
				ok = false;
			}
		}
	}
	/* operands of types that cannot be values have been reported at their
	 * definitions; the family checks rely on counts and attributes */
	if (ok && fam_check[info->family])
		fam_check[info->family](v, op, r, &g);

	const Op *saved = v->pure_owner;
	if (info->code == CT_reduce || info->code == CT_scan)
		v->pure_owner = op;
	for (int i = 0; i < op->nregions; i++)
		FOR_EACH_BLOCK(b, &op->regions[i])
			verify_block(v, op, b);
	v->pure_owner = saved;
}

/* by name, then by position (ties: the later definition is the redefinition) */
static int cmp_sym(const void *x, const void *y)
{
	const Op *a = *(const Op *const *)x, *b = *(const Op *const *)y;
	int c = strcmp(sym_of(a), sym_of(b));
	if (c)
		return c;
	for (const Op *p = a->next; p; p = p->next)
		if (p == b)
			return -1;
	return 1;
}

/* Every cuda_tile op has a row (its `rule` column in dialect_cuda_tile.def:
 * a row without one does not compile; this catches an empty one); cheap
 * enough to run on every call. */
static void check_table(void)
{
	for (int i = 0; i < OPCODE_COUNT; i++)
		if (op_table[i].dialect == DIALECT_CUDA_TILE && !rules[i].operands)
			ice("verify: no rule for '%s' (its rule column, dialect_cuda_tile.def)", op_table[i].name);
}

#define BAD(...) do { snprintf(buf, n, __VA_ARGS__); return buf; } while (0)

const char *verify_check_tables(char *buf, size_t n)
{
	const char *e = opinfo_check(buf, n);
	if (!e)
		e = enums_check(buf, n);
	if (e)
		return e;
	for (int i = 0; i < OPCODE_COUNT; i++) {
		const OpInfo *o = &op_table[i];
		const OpRule *r = &rules[i];
		if ((o->dialect == DIALECT_CUDA_TILE) != (r->operands != NULL))
			BAD("rules[]: '%s' %s", o->name, r->operands ? "is not a cuda_tile op" : "has no row");
		if (o->dialect == DIALECT_CUDA_TILE && !fam_check[o->family])
			BAD("'%s': family %d has no checker (verify_families.c)", o->name, (int)o->family);
		for (const AttrRule *ar = r->attrs; ar < r->attrs + MAX_ATTRS && ar->name; ar++) {
			if (ar->since && !bytecode_version_known(ar->since))
				BAD("rules[]: '%s' attribute '%s': %d is not a bytecode version", o->name,
				    ar->name, ar->since);
			if (ar->kind != AK_ENUM)
				continue;
			for (const char *const *s = ar->allow; s && *s; s++)
				if (!enum_lookup(ar->ek, *s))
					BAD("rules[]: '%s' attribute '%s': '%s' is not a %s", o->name, ar->name,
					    *s, enum_kind_what(ar->ek));
			if (ar->dflt && !enum_lookup(ar->ek, ar->dflt))
				BAD("rules[]: '%s' attribute '%s': default '%s' is not a %s", o->name,
				    ar->name, ar->dflt, enum_kind_what(ar->ek));
		}
	}
	return NULL;
}

const char *verify_rule_attr(int opcode, int i)
{
	if (opcode < 0 || opcode >= OPCODE_COUNT)
		return NULL;
	const OpRule *r = &rules[opcode];
	for (int j = 0; j < MAX_ATTRS && r->attrs[j].name; j++)
		if (r->attrs[j].req != BELOW && i-- == 0)
			return r->attrs[j].name;
	return NULL;
}

const char *verify_rule_operands(int opcode)
{
	if (opcode < 0 || opcode >= OPCODE_COUNT || op_table[opcode].dialect != DIALECT_CUDA_TILE)
		return NULL;
	return rules[opcode].operands;
}

static int parse_version(const Attr *a)
{
	if (!a || a->kind != AT_STRING)
		return -1;
	return bytecode_version_parse(a->u.s);
}

static int verify_module(Module *m, bool below);

int verify_cuda_tile(Module *m)
{
	if (!m->stage || strcmp(m->stage, "cuda_tile") != 0) {
		diag_plain("the cuda_tile verifier takes IR at stage 'cuda_tile', got '%s'",
			   m->stage ? m->stage : "?");
		return 1;
	}
	return verify_module(m, false);
}

int verify_kept_ops(Module *m)
{
	return verify_module(m, true);
}

static int verify_module(Module *m, bool below)
{
	V v = { .m = m, .ver = bytecode_latest(), .below = below };   /* no bytecode_version: every feature */
	check_table();
	const Attr *bv = module_attr(m, "bytecode_version");
	if (bv) {
		v.ver = parse_version(bv);
		if (v.ver < 0) {
			diag_error_at_path("/module/attrs/bytecode_version",
					   "module attribute 'bytecode_version' must be one of %s",
					   bytecode_version_list_quoted());
			return 1;
		}
	}
	const Attr *prod = module_attr(m, "producer");
	if (prod && prod->kind != AT_STRING) {
		diag_error_at_path("/module/attrs/producer", "module attribute 'producer' must be a string");
		v.errors++;
	} else if (prod && v.ver < 1303) {
		diag_error_at_path("/module/attrs/producer",
				   "module attribute 'producer' requires bytecode version 13.3+, but "
				   "the module is bytecode version %s", bytecode_version_name(v.ver));
		v.errors++;
	}
	/* symbols: unique names; sorted for get_global */
	int ntop = 0;
	FOR_EACH_OP(op, &m->body)
		ntop++;
	v.syms = xcalloc((size_t)ntop + 1, sizeof *v.syms);
	FOR_EACH_OP(op, &m->body) {
		const Attr *n = op_attr(op, "sym_name");
		if (n && n->kind == AT_STRING)
			v.syms[v.nsyms++] = op;
	}
	qsort(v.syms, (size_t)v.nsyms, sizeof *v.syms, cmp_sym);
	for (int i = 1; i < v.nsyms; i++)
		if (strcmp(sym_of(v.syms[i - 1]), sym_of(v.syms[i])) == 0)
			verr(&v, v.syms[i], "redefines symbol '%s'", sym_of(v.syms[i]));
	FOR_EACH_OP(op, &m->body)
		verify_op(&v, op);
	free(v.syms);
	free(v.seen);
	free(v.seen_ok);
	return v.errors;
}
