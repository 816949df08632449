/* verify_families.c: the type rules of each op family (verify_impl.h).
 * Called after the generic checks passed: operand groups, result and region
 * counts, and attribute kinds are right, so a checker may index operands by
 * group and read its attributes without re-checking them.
 * Rules: ../shared/docs/ops.md §1-§3. */
#include <stdio.h>
#include <string.h>
#include "verify_impl.h"
#include "irutil.h"

#define B(k) (1u << SC_##k)
#define EC_INT (B(I1) | B(I8) | B(I16) | B(I32) | B(I64))
#define EC_BF (B(F16) | B(BF16) | B(F32) | B(F64))
#define EC_FT (EC_BF | B(TF32) | B(F8E4M3FN) | B(F8E5M2) | B(F8E8M0FNU) | B(F4E2M1FN) | B(F8E5M3FNU))
#define EC_NUM (EC_INT | EC_FT)

/* operand i of group k */
#define OPND(k, i) (op->operands[g->start[k] + (i)])
#define OT(k, i) (OPND(k, i)->type)
#define RT(i) (op->results[i]->type)

static bool is_tile(const Type *t) { return t->kind == TY_TILE; }
static bool is_scalar_tile(const Type *t) { return t->kind == TY_TILE && t->rank == 0; }
static bool is_token(const Type *t) { return t->kind == TY_TOKEN; }
static bool in_class(const Type *t, unsigned ec) { return t->kind == TY_TILE && (ec_of(t->elem) & ec); }
static bool is_elem(const Type *t, ScalarKind k)
{
	return t->kind == TY_TILE && t->elem->kind == TY_SCALAR && t->elem->scalar == k;
}
static bool elem_is(const Type *e, ScalarKind k) { return e->kind == TY_SCALAR && e->scalar == k; }
static int elem_bits(const Type *e) { return e->kind == TY_PTR ? 64 : scalar_bits(e->scalar); }
static bool is_any_view(const Type *t) { return type_is_view(t); }


/* "operand #1 must be a tile of i1, i8, ... or i64, got tile<4xf32>" */
static bool need_class(V *v, const Op *op, const char *what, const Type *t, unsigned ec)
{
	if (in_class(t, ec))
		return true;
	char buf[256];
	verr(v, op, "%s must be a tile of %s, got %s", what, ec_name(ec, buf, sizeof buf), t->str);
	return false;
}

static bool need_scalar_int(V *v, const Op *op, const char *what, const Type *t)
{
	if (is_scalar_tile(t) && in_class(t, EC_INT))
		return true;
	verr(v, op, "%s must be a scalar integer (a rank-0 tile of an integer type), got %s", what, t->str);
	return false;
}

static bool need_token(V *v, const Op *op, const char *what, const Type *t)
{
	if (is_token(t))
		return true;
	verr(v, op, "%s must be a token, got %s", what, t->str);
	return false;
}

static bool need_type(V *v, const Op *op, const char *what, const Type *t, const Type *want)
{
	if (t == want)
		return true;
	verr(v, op, "%s must have type %s, got %s", what, want->str, t->str);
	return false;
}

static bool need_same_shape(V *v, const Op *op, const char *what, const Type *t, const Type *ref)
{
	if (t->kind == TY_TILE && type_same_shape(t, ref))
		return true;
	verr(v, op, "%s (%s) must have the same shape as %s", what, t->str, ref->str);
	return false;
}

/* flush_to_zero and f32-only rounding modes */
static void check_float_modes(V *v, const Op *op, const OpRule *r, const Type *elem)
{
	bool f32 = elem_is(elem, SC_F32);
	if (op_attr_flag(op, "flush_to_zero") && !f32)
		verr(v, op, "flush_to_zero is only supported for f32, got %s", elem->str);
	const char *rm = op_attr_str(op, "rounding_mode", NULL);
	int rmv = op_attr_enum(op, "rounding_mode", EK_ROUNDING);
	if (!f32 && ((rmv == ROUNDING_approx && (r->flags & F_APPROX_F32)) ||
		     (rmv == ROUNDING_full && (r->flags & F_FULL_F32))))
		verr(v, op, "rounding_mode '%s' is only supported for f32, got %s", rm, elem->str);
}

/* ------------------------------------------------------------ elementwise */

static void fam_same(V *v, const Op *op, const OpRule *r, const Groups *g)
{
	const Type *t = RT(0);
	for (int i = 0; i < op->noperands; i++)
		if (op->operands[i]->type != t) {
			verr(v, op, "requires all operands and results to have the same type, got %s and %s",
			     op->operands[i]->type->str, t->str);
			return;
		}
	if (!need_class(v, op, "result", t, r->ec))
		return;
	check_float_modes(v, op, r, t->elem);
	if ((r->flags & F_DIVI) && op_attr_enum(op, "rounding", EK_ROUNDING) == ROUNDING_negative_inf &&
	    op_attr_enum(op, "signedness", EK_SIGNEDNESS) == SIGNEDNESS_unsigned)
		verr(v, op, "rounding 'negative_inf' is not supported for unsigned division");
}

static void fam_cmp(V *v, const Op *op, const OpRule *r, const Groups *g)
{
	const Type *a = op->operands[0]->type, *b = op->operands[1]->type;
	if (a != b) {
		verr(v, op, "requires both operands to have the same type, got %s and %s", a->str, b->str);
		return;
	}
	if (!need_class(v, op, "operand #0", a, r->ec))
		return;
	if (!is_elem(RT(0), SC_I1) || !type_same_shape(RT(0), a))
		verr(v, op, "result must be a tile of i1 with the operands' shape, got %s for operands %s",
		     RT(0)->str, a->str);
}

static void fam_select(V *v, const Op *op, const OpRule *r, const Groups *g)
{
	const Type *c = op->operands[0]->type, *t = RT(0);
	if (!is_elem(c, SC_I1)) {
		verr(v, op, "condition must be a tile of i1, got %s", c->str);
		return;
	}
	if (op->operands[1]->type != t || op->operands[2]->type != t) {
		verr(v, op, "requires both values and the result to have the same type, got %s, %s and %s",
		     op->operands[1]->type->str, op->operands[2]->type->str, t->str);
		return;
	}
	if (!need_class(v, op, "result", t, (EC_NUM | EC_PTR) & ~B(F4E2M1FN)))
		return;
	need_same_shape(v, op, "condition", c, t);
}

static void fam_conv(V *v, const Op *op, const OpRule *r, const Groups *g)
{
	const Type *s = op->operands[0]->type, *d = RT(0);
	if (!need_class(v, op, "source", s, r->ec) || !need_class(v, op, "result", d, r->ec2))
		return;
	if (!type_same_shape(s, d)) {
		verr(v, op, "source %s and result %s must have the same shape", s->str, d->str);
		return;
	}
	int sb = elem_bits(s->elem), db = elem_bits(d->elem);
	if ((r->flags & W_WIDER) && db <= sb)
		verr(v, op, "result element type %s must be wider than the source's %s", d->elem->str,
		     s->elem->str);
	if ((r->flags & W_NARROWER) && db >= sb)
		verr(v, op, "result element type %s must be narrower than the source's %s", d->elem->str,
		     s->elem->str);
	if ((r->flags & W_SAMEWIDTH) && db != sb)
		verr(v, op, "source element %s and result element %s must have the same bit width",
		     s->elem->str, d->elem->str);
	if ((r->flags & W_DIFFTYPE) && s->elem == d->elem)
		verr(v, op, "source and result have the same element type %s (not a conversion)",
		     s->elem->str);
	const char *rm = op_attr_str(op, "rounding_mode", NULL);
	int rmv = op_attr_enum(op, "rounding_mode", EK_ROUNDING);
	if (r->flags & F_FTOF) {
		if (elem_is(d->elem, SC_F8E8M0FNU)) {
			if (rmv != ROUNDING_zero && rmv != ROUNDING_positive_inf)
				verr(v, op, "conversion to f8E8M0FNU needs rounding_mode zero or positive_inf, "
				     "got '%s'", rm);
		} else if (rmv != ROUNDING_nearest_even && rmv != ROUNDING_nearest_away &&
			   !(v->ver >= 1304 && (rmv == ROUNDING_zero || rmv == ROUNDING_negative_inf ||
						rmv == ROUNDING_positive_inf))) {
			/* 13.4 (cuTile 1.7, NVIDIA 13.5) adds the directed roundings */
			verr(v, op, "rounding_mode must be nearest_even%s, got '%s'",
			     v->ver >= 1304 ? ", zero, negative_inf, positive_inf or nearest_away" : "", rm);
		}
	}
	if ((r->flags & F_ITOF) && elem_is(d->elem, SC_F8E8M0FNU))
		verr(v, op, "cannot convert an integer to f8E8M0FNU");
}

static void fam_offset(V *v, const Op *op, const OpRule *r, const Groups *g)
{
	const Type *p = op->operands[0]->type, *o = op->operands[1]->type;
	if (!need_class(v, op, "pointer operand", p, EC_PTR) ||
	    !need_class(v, op, "offset operand", o, EC_INT & ~B(I1)))
		return;
	if (need_same_shape(v, op, "offset operand", o, p))
		need_type(v, op, "result", RT(0), p);
}

static void fam_fpowi(V *v, const Op *op, const OpRule *r, const Groups *g)
{
	const Type *s = op->operands[0]->type, *e = op->operands[1]->type;
	if (!need_class(v, op, "source", s, EC_BF) ||
	    !need_class(v, op, "exponent", e, EC_INT & ~B(I1)))
		return;
	if (need_same_shape(v, op, "exponent", e, s))
		need_type(v, op, "result", RT(0), s);
}

static void fam_pack(V *v, const Op *op, const OpRule *r, const Groups *g)
{
	const Type *s = op->operands[0]->type, *d = RT(0);
	bool pack = op->info->code == CT_pack;
	const Type *bytes = pack ? d : s, *other = pack ? s : d;
	if (!is_elem(bytes, SC_I8) || bytes->rank != 1) {
		verr(v, op, "%s must be a rank-1 tile of i8, got %s", pack ? "result" : "source", bytes->str);
		return;
	}
	if (!need_class(v, op, pack ? "source" : "result", other, EC_NUM | B(I4)))
		return;
	if (other->rank != 1) {
		verr(v, op, "%s must be a rank-1 tile, got %s", pack ? "source" : "result", other->str);
		return;
	}
	int ob = elem_bits(other->elem);
	if (ob == 8) {
		verr(v, op, "source and result element widths must differ, got %s and %s", s->str, d->str);
		return;
	}
	int64_t obits = other->shape[0] * ob, bbits = bytes->shape[0] * 8;
	if (obits % 8 != 0 || obits != bbits)
		verr(v, op, "source %s and result %s must have the same size in bytes", s->str, d->str);
}

/* ------------------------------------------------------------ shape ops */

static void fam_constant(V *v, const Op *op, const OpRule *r, const Groups *g)
{
	const Attr *a = op_attr(op, "value");
	if (!need_class(v, op, "result", RT(0), EC_NUM))
		return;
	if (a->type != RT(0))
		verr(v, op, "value has type %s, but the result has type %s", a->type->str, RT(0)->str);
}

static void fam_iota(V *v, const Op *op, const OpRule *r, const Groups *g)
{
	const Type *t = RT(0);
	if (!need_class(v, op, "result", t, EC_INT))
		return;
	if (t->rank != 1) {
		verr(v, op, "result must be a rank-1 tile, got %s", t->str);
		return;
	}
	int bits = elem_bits(t->elem);
	if (bits < 63 && t->shape[0] > ((int64_t)1 << bits))
		verr(v, op, "%lld elements do not fit the range of %s", (long long)t->shape[0], t->elem->str);
}

static bool need_tiles_same_elem(V *v, const Op *op, const Type *s, const Type *d)
{
	if (!is_tile(s) || !is_tile(d)) {
		verr(v, op, "source and result must be tiles, got %s and %s", s->str, d->str);
		return false;
	}
	if (s->elem != d->elem) {
		verr(v, op, "source %s and result %s must have the same element type", s->str, d->str);
		return false;
	}
	return true;
}

static void fam_broadcast(V *v, const Op *op, const OpRule *r, const Groups *g)
{
	const Type *s = op->operands[0]->type, *d = RT(0);
	if (!need_tiles_same_elem(v, op, s, d))
		return;
	if (s->rank != d->rank) {
		verr(v, op, "source %s and result %s must have the same rank (reshape first)", s->str, d->str);
		return;
	}
	for (int i = 0; i < s->rank; i++)
		if (s->shape[i] != d->shape[i] && s->shape[i] != 1) {
			verr(v, op, "cannot broadcast %s to %s: dimension %d is %lld, not 1 or %lld", s->str,
			     d->str, i, (long long)s->shape[i], (long long)d->shape[i]);
			return;
		}
}

static void fam_reshape(V *v, const Op *op, const OpRule *r, const Groups *g)
{
	const Type *s = op->operands[0]->type, *d = RT(0);
	if (need_tiles_same_elem(v, op, s, d) && type_num_elements(s) != type_num_elements(d))
		verr(v, op, "source %s and result %s must have the same number of elements", s->str, d->str);
}

static void fam_permute(V *v, const Op *op, const OpRule *r, const Groups *g)
{
	const Type *s = op->operands[0]->type, *d = RT(0);
	const Attr *p = op_attr(op, "permutation");
	int n = p->kind == AT_INTS ? p->u.ints.n : 0;
	if (!need_tiles_same_elem(v, op, s, d))
		return;
	if (s->rank < 2) {
		verr(v, op, "source must have rank 2 or more, got %s", s->str);
		return;
	}
	if (n != s->rank || d->rank != s->rank) {
		verr(v, op, "permutation must have one entry per dimension (%d), got %d; result %s", s->rank,
		     n, d->str);
		return;
	}
	unsigned long long used = 0;
	for (int i = 0; i < n; i++) {
		int64_t k = p->u.ints.v[i];
		if (k < 0 || k >= n || (used >> k & 1)) {
			verr(v, op, "permutation must be a permutation of 0..%d", n - 1);
			return;
		}
		used |= 1ull << k;
		if (d->shape[i] != s->shape[k]) {
			verr(v, op, "result dimension %d must be source dimension %lld (%lld), got %lld", i,
			     (long long)k, (long long)s->shape[k], (long long)d->shape[i]);
			return;
		}
	}
}

static void fam_cat(V *v, const Op *op, const OpRule *r, const Groups *g)
{
	const Type *a = op->operands[0]->type, *b = op->operands[1]->type, *d = RT(0);
	int64_t dim = op_attr(op, "dim")->u.i;
	if (!need_tiles_same_elem(v, op, a, d) || !need_tiles_same_elem(v, op, b, d))
		return;
	if (a->rank != d->rank || b->rank != d->rank) {
		verr(v, op, "operands %s, %s and result %s must have the same rank", a->str, b->str, d->str);
		return;
	}
	if (dim < 0 || dim >= d->rank) {
		verr(v, op, "dim %lld is out of range for rank %d", (long long)dim, d->rank);
		return;
	}
	for (int i = 0; i < d->rank; i++) {
		int64_t want = i == dim ? a->shape[i] + b->shape[i] : a->shape[i];
		if (d->shape[i] != want || (i != dim && b->shape[i] != a->shape[i])) {
			verr(v, op, "cannot concatenate %s and %s along dim %lld into %s", a->str, b->str,
			     (long long)dim, d->str);
			return;
		}
	}
}

static bool check_block_indices(V *v, const Op *op, const Groups *g, int grp, int rank)
{
	if (g->len[grp] != rank) {
		verr(v, op, "expects %d indices (one per dimension), got %d", rank, g->len[grp]);
		return false;
	}
	for (int i = 0; i < rank; i++)
		if (!is_scalar_tile(OT(grp, i)) || !is_elem(OT(grp, i), SC_I32)) {
			verr(v, op, "index #%d must be tile<i32>, got %s", i, OT(grp, i)->str);
			return false;
		}
	return true;
}

/* big (source of extract, destination of insert) holds blocks of small */
static bool check_blocks(V *v, const Op *op, const Type *big, const Type *small)
{
	if (!need_tiles_same_elem(v, op, big, small))
		return false;
	if (big->rank != small->rank) {
		verr(v, op, "%s and %s must have the same rank", big->str, small->str);
		return false;
	}
	for (int i = 0; i < big->rank; i++)
		if (big->shape[i] % small->shape[i] != 0) {
			verr(v, op, "dimension %d of %s is not a multiple of that of %s", i, big->str, small->str);
			return false;
		}
	return true;
}

static void fam_extract(V *v, const Op *op, const OpRule *r, const Groups *g)
{
	if (check_blocks(v, op, OT(0, 0), RT(0)))
		check_block_indices(v, op, g, 1, RT(0)->rank);
}

static void fam_insert(V *v, const Op *op, const OpRule *r, const Groups *g)
{
	if (need_type(v, op, "result", RT(0), OT(1, 0)) && check_blocks(v, op, OT(1, 0), OT(0, 0)))
		check_block_indices(v, op, g, 2, RT(0)->rank);
}

/* ------------------------------------------------------------ misc */

static void fam_blockid(V *v, const Op *op, const OpRule *r, const Groups *g)
{
	for (int i = 0; i < 3; i++)
		if (!is_scalar_tile(RT(i)) || !is_elem(RT(i), SC_I32)) {
			verr(v, op, "result #%d must be tile<i32>, got %s", i, RT(i)->str);
			return;
		}
}

static void fam_get_global(V *v, const Op *op, const OpRule *r, const Groups *g)
{
	const char *name = op_attr_str(op, "name", NULL);
	const Op *gl = find_symbol(v, name);
	if (!gl || gl->info->code != CT_global) {
		verr(v, op, "'%s' does not name a cuda_tile.global", name);
		return;
	}
	const Type *t = RT(0);
	const Attr *val = op_attr(gl, "value");
	if (!is_scalar_tile(t) || t->elem->kind != TY_PTR) {
		verr(v, op, "result must be a scalar pointer tile<ptr<T>>, got %s", t->str);
		return;
	}
	if (val && val->kind == AT_DENSE && val->type->kind == TY_TILE && t->elem->elem != val->type->elem)
		verr(v, op, "result %s must point to the global's element type %s", t->str,
		     val->type->elem->str);
}

static int64_t smin(int bits) { return bits >= 64 ? INT64_MIN : -((int64_t)1 << (bits - 1)); }
static int64_t smax(int bits) { return bits >= 64 ? INT64_MAX : ((int64_t)1 << (bits - 1)) - 1; }

static void fam_assume(V *v, const Op *op, const OpRule *r, const Groups *g)
{
	const Type *t = op->operands[0]->type;
	const Attr *p = op_attr(op, "predicate");
	if (!need_type(v, op, "result", RT(0), t))
		return;
	switch (p->kind) {
	case AT_DIV_BY: {
		int64_t d = p->u.div_by.divisor;
		if (d <= 0 || (d & (d - 1)) || d > ((int64_t)1 << 62)) {
			verr(v, op, "div_by divisor must be a power of two no larger than 2^62, got %lld",
			     (long long)d);
			return;
		}
		if (t->kind == TY_TENSOR_VIEW) {
			if (p->u.div_by.has_every)
				verr(v, op, "div_by on a tensor_view cannot have 'every'/'along'");
			return;
		}
		if (!in_class(t, EC_INT | EC_PTR)) {
			verr(v, op, "div_by applies to a tensor_view or a tile of integers or pointers, got %s",
			     t->str);
			return;
		}
		if (p->u.div_by.has_every) {
			int64_t e = p->u.div_by.every, a = p->u.div_by.along;
			if (t->rank == 0)
				verr(v, op, "div_by with 'every'/'along' needs a tile of rank 1 or more, got %s",
				     t->str);
			else if (a < 0 || a >= t->rank)
				verr(v, op, "div_by 'along' %lld is out of range for %s", (long long)a, t->str);
			else if (e < 0 || e > t->shape[a])
				verr(v, op, "div_by 'every' %lld must be within [0, %lld]", (long long)e,
				     (long long)t->shape[a]);
		}
		return;
	}
	case AT_SAME_ELEMENTS:
		if (!in_class(t, EC_INT | EC_PTR)) {
			verr(v, op, "same_elements applies to a tile of integers or pointers, got %s", t->str);
			return;
		}
		if (p->u.ints.n != t->rank) {
			verr(v, op, "same_elements needs one value per dimension (%d), got %d", t->rank,
			     p->u.ints.n);
			return;
		}
		for (int i = 0; i < t->rank; i++)
			if (p->u.ints.v[i] < 0 || p->u.ints.v[i] > t->shape[i]) {
				verr(v, op, "same_elements value %lld for dimension %d must be within [0, %lld]",
				     (long long)p->u.ints.v[i], i, (long long)t->shape[i]);
				return;
			}
		return;
	case AT_BOUNDED: {
		if (!in_class(t, EC_INT)) {
			verr(v, op, "bounded applies to a tile of integers, got %s", t->str);
			return;
		}
		int bits = elem_bits(t->elem);
		int64_t lo = smin(bits), hi = smax(bits);
		bool hl = p->u.bounded.has_lb, hu = p->u.bounded.has_ub;
		int64_t lb = p->u.bounded.lb, ub = p->u.bounded.ub;
		if ((hl && (lb < lo || lb > hi)) || (hu && (ub < lo || ub > hi)))
			verr(v, op, "bounded bounds must be within the signed range of %s [%lld, %lld]",
			     t->elem->str, (long long)lo, (long long)hi);
		else if (hl && hu && lb > ub)
			verr(v, op, "bounded lower bound %lld is greater than the upper bound %lld",
			     (long long)lb, (long long)ub);
		return;
	}
	default:
		return;
	}
}

static void fam_assert(V *v, const Op *op, const OpRule *r, const Groups *g)
{
	const Type *c = op->operands[0]->type;
	if (!is_elem(c, SC_I1))
		verr(v, op, "condition must be a tile of i1, got %s", c->str);
}

/* printf-style format: the number of conversions, -1 if one is unterminated */
static int count_conversions(const char *s)
{
	int n = 0;
	for (; *s; s++) {
		if (*s != '%')
			continue;
		if (s[1] == '%') {
			s++;
			continue;
		}
		s++;
		while (*s && strchr("-+ #0", *s))
			s++;
		while (*s >= '0' && *s <= '9')
			s++;
		if (*s == '.')
			for (s++; *s >= '0' && *s <= '9'; s++)
				;
		while (*s && strchr("hlLqjzt", *s))
			s++;
		if (!*s || !strchr("diouxXeEfFgGaAcsp", *s))
			return -1;
		n++;
	}
	return n;
}

static void fam_print(V *v, const Op *op, const OpRule *r, const Groups *g)
{
	const char *fmt = op_attr_str(op, "str", NULL);
	for (int i = 0; i < g->len[0]; i++)
		if (!is_tile(OT(0, i))) {
			verr(v, op, "argument #%d must be a tile, got %s", i, OT(0, i)->str);
			return;
		}
	if (g->len[1] && (!gate(v, op, 1302, "a token operand of print_tko") ||
			  !need_token(v, op, "token operand", OT(1, 0))))
		return;
	if (!need_token(v, op, "result", RT(0)))
		return;
	int n = count_conversions(fmt);
	if (n < 0)
		verr(v, op, "format string has an unterminated or unknown %% conversion");
	else if (n != g->len[0])
		verr(v, op, "format string has %d conversion%s but the op has %d argument%s", n,
		     n == 1 ? "" : "s", g->len[0], g->len[0] == 1 ? "" : "s");
}

static void fam_tokens(V *v, const Op *op, const OpRule *r, const Groups *g)
{
	char what[32];
	if (op->info->code == CT_join_tokens && op->noperands < 2) {
		verr(v, op, "joins at least 2 tokens, got %d", op->noperands);
		return;
	}
	for (int i = 0; i < op->noperands; i++) {
		snprintf(what, sizeof what, "operand #%d", i);
		if (!need_token(v, op, what, op->operands[i]->type))
			return;
	}
	need_token(v, op, "result", RT(0));
}

/* ------------------------------------------------------------ views */

static void fam_make_tv(V *v, const Op *op, const OpRule *r, const Groups *g)
{
	const Type *tv = RT(0), *base = OT(0, 0);
	if (tv->kind != TY_TENSOR_VIEW) {
		verr(v, op, "result must be a tensor_view, got %s", tv->str);
		return;
	}
	if (!is_scalar_tile(base) || base->elem->kind != TY_PTR) {
		verr(v, op, "base must be a scalar pointer tile<ptr<T>>, got %s", base->str);
		return;
	}
	if (base->elem->elem != tv->elem) {
		verr(v, op, "base %s must point to the tensor_view's element type %s", base->str,
		     tv->elem->str);
		return;
	}
	if (base->elem->ptr_attr != tv->ptr_attr) {
		verr(v, op, "base %s and the tensor_view %s must have the same pointer attribute", base->str,
		     tv->str);
		return;
	}
	int dyn_shape = 0, dyn_strides = 0;
	for (int i = 0; i < tv->rank; i++) {
		dyn_shape += tv->shape[i] == DYN_DIM;
		dyn_strides += tv->strides[i] == DYN_DIM;
	}
	if (g->len[1] != dyn_shape || g->len[2] != dyn_strides) {
		verr(v, op, "%s has %d dynamic sizes and %d dynamic strides, but the op gives %d and %d",
		     tv->str, dyn_shape, dyn_strides, g->len[1], g->len[2]);
		return;
	}
	const Type *common = NULL;
	for (int k = 1; k <= 2; k++)
		for (int i = 0; i < g->len[k]; i++) {
			const Type *t = OT(k, i);
			if (!need_scalar_int(v, op, k == 1 ? "a dynamic size" : "a dynamic stride", t))
				return;
			if (common && t != common) {
				verr(v, op, "dynamic sizes and strides must all have one type, got %s and %s",
				     common->str, t->str);
				return;
			}
			common = t;
		}
}

static void fam_make_view(V *v, const Op *op, const OpRule *r, const Groups *g)
{
	static const struct { enum OpCode code; TypeKind kind; const char *name; } k[] = {
		{ CT_make_partition_view, TY_PARTITION_VIEW, "partition_view" },
		{ CT_make_strided_view, TY_STRIDED_VIEW, "strided_view" },
		{ CT_make_gather_scatter_view, TY_GATHER_SCATTER_VIEW, "gather_scatter_view" },
	};
	const Type *t = RT(0);
	for (size_t i = 0; i < 3; i++)
		if (k[i].code == op->info->code && t->kind != k[i].kind) {
			verr(v, op, "result must be a %s, got %s", k[i].name, t->str);
			return;
		}
	need_type(v, op, "operand", op->operands[0]->type, t->view);
}

static void fam_get_shape(V *v, const Op *op, const OpRule *r, const Groups *g)
{
	const Type *s = op->operands[0]->type;
	bool tensor = op->info->code == CT_get_tensor_shape;
	if (tensor ? s->kind != TY_TENSOR_VIEW : !is_any_view(s)) {
		verr(v, op, "operand must be a %s, got %s",
		     tensor ? "tensor_view" : "partition_view, strided_view or gather_scatter_view", s->str);
		return;
	}
	if (op->nresults != s->rank) {
		verr(v, op, "expects %d results (one per dimension of %s), got %d", s->rank, s->str,
		     op->nresults);
		return;
	}
	char what[32];
	for (int i = 0; i < op->nresults; i++) {
		snprintf(what, sizeof what, "result #%d", i);
		if (!need_scalar_int(v, op, what, RT(i)))
			return;
	}
}

/* weak: no scope; relaxed/acquire/release/acq_rel: a scope */
static void check_memory_model(V *v, const Op *op)
{
	const char *mos = op_attr_str(op, "memory_ordering_semantics", NULL);
	bool weak = op_attr_enum(op, "memory_ordering_semantics", EK_ORDERING) == ORDERING_weak;
	bool scope = op_attr(op, "memory_scope") != NULL;
	if (weak && scope)
		verr(v, op, "memory_scope is not allowed with weak ordering");
	else if (mos && !weak && !scope)
		verr(v, op, "memory_ordering_semantics '%s' requires a memory_scope", mos);
}

static void check_optional_token(V *v, const Op *op, const Groups *g, int grp, int res)
{
	if (g->len[grp])
		need_token(v, op, "token operand", OT(grp, 0));
	need_token(v, op, res ? "result #1" : "result", RT(res));
}

static void fam_load_ptr(V *v, const Op *op, const OpRule *r, const Groups *g)
{
	const Type *p = OT(0, 0), *t = RT(0);
	check_memory_model(v, op);
	check_optional_token(v, op, g, 3, 1);
	if (!need_class(v, op, "source", p, EC_PTR) || !need_class(v, op, "result #0", t, EC_NUM))
		return;
	if (!type_same_shape(p, t) || p->elem->elem != t->elem) {
		verr(v, op, "result %s must have the shape of %s and its pointee type", t->str, p->str);
		return;
	}
	if (g->len[1] && !is_elem(OT(1, 0), SC_I1))
		verr(v, op, "mask must be a tile of i1, got %s", OT(1, 0)->str);
	else if (g->len[1])
		need_same_shape(v, op, "mask", OT(1, 0), p);
	if (g->len[2])
		need_type(v, op, "padding value", OT(2, 0), t);
}

static void fam_store_ptr(V *v, const Op *op, const OpRule *r, const Groups *g)
{
	const Type *p = OT(0, 0), *t = OT(1, 0);
	check_memory_model(v, op);
	check_optional_token(v, op, g, 3, 0);
	if (!need_class(v, op, "destination", p, EC_PTR) || !need_class(v, op, "value", t, EC_NUM))
		return;
	if (!type_same_shape(p, t) || p->elem->elem != t->elem) {
		verr(v, op, "value %s must have the shape of %s and its pointee type", t->str, p->str);
		return;
	}
	if (g->len[2] && !is_elem(OT(2, 0), SC_I1))
		verr(v, op, "mask must be a tile of i1, got %s", OT(2, 0)->str);
	else if (g->len[2])
		need_same_shape(v, op, "mask", OT(2, 0), p);
}

/* view operand, its indices, the tile type it loads/stores */
static bool check_view_access(V *v, const Op *op, const Type *view, const Groups *g, int grp,
			      const Type *tile, const char *tile_what)
{
	if (!is_any_view(view)) {
		verr(v, op, "view must be a partition_view, strided_view or gather_scatter_view, got %s",
		     view->str);
		return false;
	}
	if (g->len[grp] != view->rank) {
		verr(v, op, "expects %d indices (the index rank of %s), got %d", view->rank, view->str,
		     g->len[grp]);
		return false;
	}
	const Type *common = NULL;
	for (int i = 0; i < view->rank; i++) {
		const Type *t = OT(grp, i);
		if (view->kind == TY_GATHER_SCATTER_VIEW && i == view->sparse_dim) {
			if (!in_class(t, EC_INT) || t->rank != 1 || t->shape[0] != view->shape[i]) {
				verr(v, op, "index #%d (the sparse dimension) must be a rank-1 integer tile of "
				     "%lld elements, got %s", i, (long long)view->shape[i], t->str);
				return false;
			}
			continue;
		}
		char what[32];
		snprintf(what, sizeof what, "index #%d", i);
		if (!need_scalar_int(v, op, what, t))
			return false;
		if (view->kind != TY_STRIDED_VIEW && common && common != t) {
			verr(v, op, "indices must all have one type, got %s and %s", common->str, t->str);
			return false;
		}
		common = t;
	}
	if (tile->kind != TY_TILE || tile->elem != view->elem || tile->rank != view->rank ||
	    memcmp(tile->shape, view->shape, sizeof *tile->shape * (size_t)view->rank) != 0) {
		char want[256];
		snprintf(want, sizeof want, "tile<");
		for (int i = 0; i < view->rank; i++)
			snprintf(want + strlen(want), sizeof want - strlen(want), "%lldx",
				 (long long)view->shape[i]);
		snprintf(want + strlen(want), sizeof want - strlen(want), "%s>", view->elem->str);
		verr(v, op, "%s must have the view's tile type %s, got %s", tile_what, want, tile->str);
		return false;
	}
	const Attr *ib = op_attr(op, "inbounds");
	int nib = !ib ? 0 : ib->kind == AT_ARRAY ? ib->u.array.n : ib->u.ints.n;
	if (nib && nib != view->rank) {
		verr(v, op, "inbounds must have one entry per index (%d), got %d", view->rank, nib);
		return false;
	}
	return true;
}

static void fam_load_view(V *v, const Op *op, const OpRule *r, const Groups *g)
{
	check_memory_model(v, op);
	check_optional_token(v, op, g, 2, 1);
	check_view_access(v, op, OT(0, 0), g, 1, RT(0), "result #0");
}

static void fam_store_view(V *v, const Op *op, const OpRule *r, const Groups *g)
{
	check_memory_model(v, op);
	check_optional_token(v, op, g, 3, 0);
	check_view_access(v, op, OT(1, 0), g, 2, OT(0, 0), "the stored tile");
}

/* atomic mode vs element type */
static bool check_atomic_mode(V *v, const Op *op, const char *mode, const Type *e)
{
	bool isf = e->kind == TY_SCALAR && scalar_is_float(e->scalar);
	int bits = elem_bits(e);
	bool ok;
	const char *need;
	const EnumVal *mv = mode ? enum_lookup(EK_RMW_MODE, mode) : NULL;
	if (mv && mv->value == RMW_MODE_addf) {
		ok = (ec_of(e) & EC_BF) != 0;
		need = "f16, bf16, f32 or f64";
	} else if (mv && mv->value == RMW_MODE_xchg) {
		ok = e->kind == TY_SCALAR && (bits == 32 || bits == 64);
		need = "a 32- or 64-bit integer or float";
	} else {
		ok = !isf && e->kind == TY_SCALAR && (bits == 32 || bits == 64);
		need = "i32 or i64";
	}
	if (!ok)
		verr(v, op, "mode '%s' needs %s elements, got %s", mode, need, e->str);
	return ok;
}

static void fam_atomic(V *v, const Op *op, const OpRule *r, const Groups *g)
{
	bool cas = op->info->code == CT_atomic_cas_tko;
	int nval = cas ? 2 : 1, gmask = 1 + nval, gtok = gmask + 1;
	const Type *p = OT(0, 0), *t = RT(0);
	check_optional_token(v, op, g, gtok, 1);
	if (!need_class(v, op, "pointers", p, EC_PTR))
		return;
	for (int k = 1; k <= nval; k++)
		if (!need_type(v, op, cas ? (k == 1 ? "cmp" : "val") : "arg", OT(k, 0), t))
			return;
	if (!is_tile(t) || !type_same_shape(p, t) || p->elem->elem != t->elem) {
		verr(v, op, "result %s must have the shape of %s and its pointee type", t->str, p->str);
		return;
	}
	if (g->len[gmask] && !is_elem(OT(gmask, 0), SC_I1))
		verr(v, op, "mask must be a tile of i1, got %s", OT(gmask, 0)->str);
	else if (g->len[gmask])
		need_same_shape(v, op, "mask", OT(gmask, 0), p);
	if (cas) {
		int bits = elem_bits(t->elem);
		if (t->elem->kind != TY_SCALAR || (bits != 32 && bits != 64))
			verr(v, op, "compare-and-swap needs 32- or 64-bit integer or float elements, got %s",
			     t->elem->str);
	} else {
		check_atomic_mode(v, op, op_attr_str(op, "mode", NULL), t->elem);
	}
}

static void fam_atomic_red(V *v, const Op *op, const OpRule *r, const Groups *g)
{
	const Type *view = OT(0, 0), *t = OT(2, 0);
	check_optional_token(v, op, g, 3, 0);
	if (view->kind != TY_PARTITION_VIEW && view->kind != TY_STRIDED_VIEW) {
		verr(v, op, "view must be a partition_view or strided_view, got %s", view->str);
		return;
	}
	if (view->padding != PAD_NONE) {
		verr(v, op, "view %s must not have a padding_value", view->str);
		return;
	}
	if (check_view_access(v, op, view, g, 1, t, "value"))
		check_atomic_mode(v, op, op_attr_str(op, "mode", NULL), t->elem);
}

/* 13.5's multimem ops: a partition view of a multicast tensor_view (NVIDIA's
 * message when it is not), then the view access of a load or a store */
static void fam_multimem(V *v, const Op *op, const OpRule *r, const Groups *g)
{
	bool load = op->info->code == CT_multimem_load_reduce_view_tko;
	const Type *view = OT(0, 0);
	check_optional_token(v, op, g, load ? 2 : 3, load ? 1 : 0);
	if (view->kind != TY_PARTITION_VIEW) {
		verr(v, op, "view must be a partition_view, got %s", view->str);
		return;
	}
	if (view->view->ptr_attr != PTR_ATTR_MULTICAST) {
		verr(v, op, "expected a multicast pointer, but got %s",
		     view->view->ptr_attr == PTR_ATTR_UNICAST ? "unicast" : "none");
		return;
	}
	if (!check_view_access(v, op, view, g, load ? 1 : 2, load ? RT(0) : OT(1, 0),
			       load ? "result #0" : "the stored tile"))
		return;
	const char *red = op_attr_str(op, "reduction", NULL);
	const Type *e = view->elem;
	bool isf = e->kind == TY_SCALAR && scalar_is_float(e->scalar);
	int bits = elem_bits(e);
	const EnumVal *rv = red ? enum_lookup(EK_MULTIMEM_RED, red) : NULL;
	if (rv && isf && rv->value != MULTIMEM_RED_add && rv->value != MULTIMEM_RED_min &&
	    rv->value != MULTIMEM_RED_max)
		verr(v, op, "and/or/xor/umin/umax reductions require integer element types");   /* NVIDIA's words */
	else if (rv && !isf && bits != 32 && bits != 64)
		verr(v, op, "reduction '%s' needs 32- or 64-bit integers or floats, got %s", red, e->str);
	else if (!rv && bits != 16 && bits != 32 && bits != 64)
		verr(v, op, "a multimem store needs 16-, 32- or 64-bit elements, got %s", e->str);
}

static void fam_alloca(V *v, const Op *op, const OpRule *r, const Groups *g)
{
	const Type *t = RT(0);
	int64_t n = op_attr(op, "num_elem")->u.i, al = op_attr(op, "alignment")->u.i;
	if (!is_scalar_tile(t) || t->elem->kind != TY_PTR) {
		verr(v, op, "result must be a scalar pointer tile<ptr<T>>, got %s", t->str);
		return;
	}
	int64_t size = (elem_bits(t->elem->elem) + 7) / 8;
	if (n <= 0)
		verr(v, op, "num_elem must be positive, got %lld", (long long)n);
	if (al <= 0 || (al & (al - 1)) || al < size)
		verr(v, op, "alignment must be a power of two of at least %lld (the size of %s), got %lld",
		     (long long)size, t->elem->elem->str, (long long)al);
}

/* ------------------------------------------------------------ MMA */

/* [M,K] x [K,N] + [M,N], or with a shared leading batch dimension */
static bool check_mma_shapes(V *v, const Op *op, const Type *a, const Type *b, const Type *c)
{
	if (!is_tile(a) || !is_tile(b) || !is_tile(c)) {
		verr(v, op, "operands must be tiles, got %s, %s and %s", a->str, b->str, c->str);
		return false;
	}
	int r = a->rank;
	bool ok = (r == 2 || r == 3) && b->rank == r && c->rank == r;
	int o = r - 2;
	if (ok && r == 3)
		ok = a->shape[0] == b->shape[0] && a->shape[0] == c->shape[0];
	if (ok)
		ok = a->shape[o + 1] == b->shape[o] && c->shape[o] == a->shape[o] &&
		     c->shape[o + 1] == b->shape[o + 1];
	if (!ok)
		verr(v, op, "shapes %s x %s + %s do not form [M,K] x [K,N] + [M,N] (optionally batched)",
		     a->str, b->str, c->str);
	return ok;
}

static void fam_mmaf(V *v, const Op *op, const OpRule *r, const Groups *g)
{
	const Type *a = op->operands[0]->type, *b = op->operands[1]->type, *c = op->operands[2]->type;
	if (!need_type(v, op, "result", RT(0), c) || !check_mma_shapes(v, op, a, b, c))
		return;
	if (a->elem != b->elem) {
		verr(v, op, "lhs and rhs must have one element type, got %s and %s", a->elem->str,
		     b->elem->str);
		return;
	}
	static const struct { ScalarKind in; unsigned acc; } ok[] = {
		{ SC_F8E4M3FN, B(F16) | B(F32) }, { SC_F8E5M2, B(F16) | B(F32) },
		{ SC_F16, B(F16) | B(F32) }, { SC_BF16, B(F32) }, { SC_TF32, B(F32) },
		{ SC_F32, B(F32) }, { SC_F64, B(F64) },
	};
	for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
		if (elem_is(a->elem, ok[i].in)) {
			if (!(ec_of(c->elem) & ok[i].acc)) {
				char buf[64];
				verr(v, op, "%s inputs need a %s accumulator, got %s", a->elem->str,
				     ec_name(ok[i].acc, buf, sizeof buf), c->elem->str);
			}
			return;
		}
	verr(v, op, "unsupported input element type %s (f8E4M3FN, f8E5M2, f16, bf16, tf32, f32 or f64)",
	     a->elem->str);
}

static void fam_mmai(V *v, const Op *op, const OpRule *r, const Groups *g)
{
	const Type *a = op->operands[0]->type, *b = op->operands[1]->type, *c = op->operands[2]->type;
	if (!need_type(v, op, "result", RT(0), c) || !check_mma_shapes(v, op, a, b, c))
		return;
	if (!is_elem(a, SC_I8) || !is_elem(b, SC_I8) || !is_elem(c, SC_I32))
		verr(v, op, "needs i8 x i8 inputs and an i32 accumulator, got %s, %s and %s", a->elem->str,
		     b->elem->str, c->elem->str);
}

static void fam_mmaf_scaled(V *v, const Op *op, const OpRule *r, const Groups *g)
{
	const Type *a = op->operands[0]->type, *b = op->operands[1]->type, *c = op->operands[2]->type;
	const Type *sa = op->operands[3]->type, *sb = op->operands[4]->type;
	if (!need_type(v, op, "result", RT(0), c) || !check_mma_shapes(v, op, a, b, c))
		return;
	unsigned ins = B(F8E4M3FN) | B(F8E5M2) | B(F4E2M1FN), scales = B(F8E4M3FN) | B(F8E8M0FNU);
	if (a->elem != b->elem || !(ec_of(a->elem) & ins)) {
		verr(v, op, "lhs and rhs must have one element type among f8E4M3FN, f8E5M2 and f4E2M1FN, "
		     "got %s and %s", a->elem->str, b->elem->str);
		return;
	}
	if (!is_elem(c, SC_F32)) {
		verr(v, op, "accumulator must be f32, got %s", c->str);
		return;
	}
	if (!is_tile(sa) || !is_tile(sb) || sa->elem != sb->elem || !(ec_of(sa->elem) & scales)) {
		verr(v, op, "scales must be tiles of one element type, f8E4M3FN or f8E8M0FNU, got %s and %s",
		     sa->str, sb->str);
		return;
	}
	int o = a->rank - 2;
	if (sa->rank != a->rank || sb->rank != b->rank || sa->shape[o] != a->shape[o] ||
	    sb->shape[o + 1] != b->shape[o + 1] || sa->shape[o + 1] != sb->shape[o] ||
	    a->shape[o + 1] % sa->shape[o + 1] != 0) {
		verr(v, op, "scale shapes %s and %s do not match lhs %s and rhs %s", sa->str, sb->str,
		     a->str, b->str);
		return;
	}
	int64_t block = a->shape[o + 1] / sa->shape[o + 1];
	bool f4 = elem_is(a->elem, SC_F4E2M1FN), e4m3 = elem_is(sa->elem, SC_F8E4M3FN);
	bool ok = f4 ? (e4m3 ? block == 16 : block == 16 || block == 32) : (!e4m3 && block == 32);
	if (!ok)
		verr(v, op, "scale block size %lld is not supported for %s inputs with %s scales",
		     (long long)block, a->elem->str, sa->elem->str);
}

/* ------------------------------------------------------------ control flow */

static bool no_views(V *v, const Op *op, const char *what, Value **vals, int n)
{
	for (int i = 0; i < n; i++)
		if (vals[i]->type->kind == TY_TENSOR_VIEW || is_any_view(vals[i]->type)) {
			verr(v, op, "%s #%d cannot be a tensor_view or view, got %s", what, i, vals[i]->type->str);
			return false;
		}
	return true;
}

/* block args must have the types of vals */
static bool args_match(V *v, const Op *op, const Block *b, int first, Value **vals, int n,
		       const char *what)
{
	if (b->nargs != first + n) {
		verr(v, op, "body block must have %d arguments, got %d", first + n, b->nargs);
		return false;
	}
	for (int i = 0; i < n; i++)
		if (b->args[first + i]->type != vals[i]->type) {
			verr(v, op, "body block argument #%d has type %s, but %s #%d has type %s", first + i,
			     b->args[first + i]->type->str, what, i, vals[i]->type->str);
			return false;
		}
	return true;
}

static void fam_if(V *v, const Op *op, const OpRule *r, const Groups *g)
{
	const Type *c = op->operands[0]->type;
	if (!is_scalar_tile(c) || !is_elem(c, SC_I1))
		verr(v, op, "condition must be tile<i1>, got %s", c->str);
	no_views(v, op, "result", op->results, op->nresults);
	for (int i = 0; i < 2; i++)
		FOR_EACH_BLOCK(b, &op->regions[i])
			if (b->nargs)
				verr(v, op, "region #%d block must have no arguments", i);
	if (op->nresults && !op->regions[1].first)
		verr(v, op, "has results, so it needs an else region");
}

static void fam_for(V *v, const Op *op, const OpRule *r, const Groups *g)
{
	const Type *lb = OT(0, 0);
	const Block *b = op->regions[0].first;
	if (!need_scalar_int(v, op, "lower bound", lb))
		return;
	if (OT(1, 0) != lb || OT(2, 0) != lb) {
		verr(v, op, "lower bound, upper bound and step must have one type, got %s, %s and %s",
		     lb->str, OT(1, 0)->str, OT(2, 0)->str);
		return;
	}
	Value **init = &OPND(3, 0);
	int n = g->len[3];
	if (!no_views(v, op, "loop-carried value", init, n))
		return;
	if (op->nresults != n) {
		verr(v, op, "expects %d results (one per loop-carried value), got %d", n, op->nresults);
		return;
	}
	for (int i = 0; i < n; i++)
		if (RT(i) != init[i]->type) {
			verr(v, op, "result #%d has type %s, but its initial value has type %s", i, RT(i)->str,
			     init[i]->type->str);
			return;
		}
	if (b->nargs < 1 || b->args[0]->type != lb) {
		verr(v, op, "body block argument #0 (the induction variable) must have type %s", lb->str);
		return;
	}
	args_match(v, op, b, 1, init, n, "initial value");
}

static void fam_loop(V *v, const Op *op, const OpRule *r, const Groups *g)
{
	if (no_views(v, op, "loop-carried value", op->operands, op->noperands) &&
	    no_views(v, op, "result", op->results, op->nresults))
		args_match(v, op, op->regions[0].first, 0, op->operands, op->noperands, "initial value");
}

static bool same_float_family(const Type *a, const Type *b)
{
	return a == b || ((elem_is(a, SC_F16) || elem_is(a, SC_BF16)) &&
			  (elem_is(b, SC_F16) || elem_is(b, SC_BF16)));
}

static void fam_reduce_scan(V *v, const Op *op, const OpRule *r, const Groups *g)
{
	bool reduce = op->info->code == CT_reduce;
	int n = op->noperands;
	int64_t dim = op_attr(op, "dim")->u.i;
	const Attr *ids = op_attr(op, "identities");
	if (n < 1) {
		verr(v, op, "needs at least one operand");
		return;
	}
	const Type *t0 = op->operands[0]->type;
	if (op->nresults != n) {
		verr(v, op, "expects %d results (one per operand), got %d", n, op->nresults);
		return;
	}
	for (int i = 0; i < n; i++) {
		const Type *t = op->operands[i]->type;
		if (!is_tile(t) || !type_same_shape(t, t0)) {
			verr(v, op, "operands must be tiles of one shape, got %s and %s", t0->str, t->str);
			return;
		}
	}
	if (dim < 0 || dim >= t0->rank) {
		verr(v, op, "dim %lld is out of range for %s", (long long)dim, t0->str);
		return;
	}
	for (int i = 0; i < n; i++) {
		const Type *t = op->operands[i]->type, *rt = RT(i);
		bool ok = is_tile(rt) && rt->elem == t->elem;
		if (ok && !reduce)
			ok = rt == t;
		if (ok && reduce) {
			ok = rt->rank == t->rank - 1;
			for (int d = 0, k = 0; ok && d < t->rank; d++)
				if (d != dim)
					ok = rt->shape[k++] == t->shape[d];
		}
		if (!ok) {
			verr(v, op, "result #%d has type %s, expected %s of %s%s", i, rt->str,
			     reduce ? "the operand shape without dim" : "the type", t->str,
			     reduce ? " and its element type" : "");
			return;
		}
	}
	if (ids->u.array.n != n) {
		verr(v, op, "identities must have one entry per operand (%d), got %d", n, ids->u.array.n);
		return;
	}
	for (int i = 0; i < n; i++) {
		const Attr *id = ids->u.array.v[i];
		const Type *e = op->operands[i]->type->elem;
		if ((id->kind != AT_INT && id->kind != AT_FLOAT) || !id->type ||
		    !same_float_family(id->type, e)) {
			verr(v, op, "identity #%d must be a typed %s value", i, e->str);
			return;
		}
	}
	const Block *b = op->regions[0].first;
	if (b->nargs != 2 * n) {
		verr(v, op, "body block must have %d arguments (a pair per operand), got %d", 2 * n, b->nargs);
		return;
	}
	for (int i = 0; i < 2 * n; i++) {
		const Type *t = b->args[i]->type, *e = op->operands[i / 2]->type->elem;
		if (!is_scalar_tile(t) || t->elem != e) {
			verr(v, op, "body block argument #%d must be tile<%s>, got %s", i, e->str, t->str);
			return;
		}
	}
}

static bool operands_match(V *v, const Op *op, Value **want, int n, const char *what,
			   const Op *target)
{
	if (op->noperands != n) {
		verr(v, op, "expects %d operand%s (the %s of the enclosing '%s'), got %d", n,
		     n == 1 ? "" : "s", what, target->info->name, op->noperands);
		return false;
	}
	for (int i = 0; i < n; i++)
		if (op->operands[i]->type != want[i]->type) {
			verr(v, op, "operand #%d has type %s, but the enclosing '%s' expects %s", i,
			     op->operands[i]->type->str, target->info->name, want[i]->type->str);
			return false;
		}
	return true;
}

static void fam_term(V *v, const Op *op, const OpRule *r, const Groups *g)
{
	const Op *p = op_parent_op(op);
	enum OpCode code = op->info->code;
	if (!p)
		return;   /* top level: reported by the structure check */
	if (code == CT_yield) {
		enum OpCode pc = p->info->code;
		if (pc == CT_if) {
			operands_match(v, op, p->results, p->nresults, "results", p);
		} else if (pc == CT_reduce || pc == CT_scan) {
			if (op->noperands != p->noperands) {
				verr(v, op, "expects %d operands (one per operand of the enclosing '%s'), got %d",
				     p->noperands, p->info->name, op->noperands);
				return;
			}
			for (int i = 0; i < op->noperands; i++) {
				const Type *t = op->operands[i]->type, *e = p->operands[i]->type;
				if (!is_scalar_tile(t) || !is_tile(e) || t->elem != e->elem) {
					verr(v, op, "operand #%d must be a rank-0 tile of the element type of %s, "
					     "got %s", i, e->str, t->str);
					return;
				}
			}
		} else {
			verr(v, op, "must be inside cuda_tile.if, cuda_tile.reduce or cuda_tile.scan, not '%s'",
			     p->info->name);
		}
		return;
	}
	/* continue, break, return: through any number of ifs */
	while (p && p->info->code == CT_if)
		p = op_parent_op(p);
	enum OpCode pc = p ? p->info->code : CT_module;
	if (code == CT_continue) {
		if (pc == CT_for)
			operands_match(v, op, p->results, p->nresults, "loop-carried values", p);
		else if (pc == CT_loop)
			operands_match(v, op, p->regions[0].first->args, p->regions[0].first->nargs,
				       "loop-carried values", p);
		else
			verr(v, op, "must be inside cuda_tile.for or cuda_tile.loop (through cuda_tile.if only)");
	} else if (code == CT_break) {
		if (pc == CT_loop)
			operands_match(v, op, p->results, p->nresults, "results", p);
		else
			verr(v, op, "must be inside cuda_tile.loop (through cuda_tile.if only)");
	} else if (code == CT_return) {
		if (pc != CT_entry)
			verr(v, op, "must be inside cuda_tile.entry (through cuda_tile.if only)");
		else if (op->noperands)
			verr(v, op, "an entry returns nothing, but return has %d operand%s", op->noperands,
			     op->noperands == 1 ? "" : "s");
	}
}

/* ------------------------------------------------------------ structure */

static void fam_entry(V *v, const Op *op, const OpRule *r, const Groups *g)
{
	const Type *ft = op_attr(op, "function_type")->type;
	const char *name = op_attr_str(op, "sym_name", NULL);
	const Block *b = op->regions[0].first;
	if (!name[0])
		verr(v, op, "sym_name must not be empty");
	if (op->loc && op->loc->caller)
		verr(v, op, "an entry's location cannot be a call site (it has a caller)");
	if (ft->kind != TY_FUNC) {
		verr(v, op, "function_type must be a function type, got %s", ft->str);
		return;
	}
	if (ft->nout)
		verr(v, op, "an entry has no results, but its function_type is %s", ft->str);
	if (b->nargs != ft->nin) {
		verr(v, op, "function_type %s has %d parameters, but the body block has %d arguments",
		     ft->str, ft->nin, b->nargs);
		return;
	}
	for (int i = 0; i < ft->nin; i++) {
		const Type *t = b->args[i]->type;
		if (t != ft->ins[i]) {
			verr(v, op, "body block argument #%d has type %s, but function_type says %s", i,
			     t->str, ft->ins[i]->str);
			return;
		}
		if (t->kind == TY_TILE && t->rank != 0) {
			verr(v, op, "parameter #%d has type %s: entry parameters are scalars (rank-0 tiles)",
			     i, t->str);
			return;
		}
		if (t->kind == TY_TOKEN) {
			verr(v, op, "parameter #%d cannot be a token", i);
			return;
		}
	}
}

static void fam_global(V *v, const Op *op, const OpRule *r, const Groups *g)
{
	const Attr *val = op_attr(op, "value");
	if (!op_attr_str(op, "sym_name", NULL)[0])
		verr(v, op, "sym_name must not be empty");
	if (op->loc && op->loc->file)
		verr(v, op, "a global has no source location");
	if (val->type->kind != TY_TILE || val->type->rank != 1)
		verr(v, op, "value must be a rank-1 tile, got %s", val->type->str);
	if (op_attr(op, "alignment")->u.i < 0)
		verr(v, op, "alignment must not be negative");
}

static void fam_module(V *v, const Op *op, const OpRule *r, const Groups *g)
{
	verr(v, op, "cannot appear in the IR: the module is the document's \"module\" object");
}

const FamCheck fam_check[FAM_COUNT] = {
	[FAM_SAME] = fam_same, [FAM_CMP] = fam_cmp, [FAM_SELECT] = fam_select,
	[FAM_CONV] = fam_conv, [FAM_OFFSET] = fam_offset, [FAM_FPOWI] = fam_fpowi,
	[FAM_PACK] = fam_pack, [FAM_CONSTANT] = fam_constant, [FAM_IOTA] = fam_iota,
	[FAM_BROADCAST] = fam_broadcast, [FAM_RESHAPE] = fam_reshape, [FAM_PERMUTE] = fam_permute,
	[FAM_CAT] = fam_cat, [FAM_EXTRACT] = fam_extract, [FAM_INSERT] = fam_insert,
	[FAM_BLOCKID] = fam_blockid, [FAM_GET_GLOBAL] = fam_get_global, [FAM_ASSUME] = fam_assume,
	[FAM_ASSERT] = fam_assert, [FAM_PRINT] = fam_print, [FAM_TOKENS] = fam_tokens,
	[FAM_MAKE_TV] = fam_make_tv, [FAM_MAKE_VIEW] = fam_make_view, [FAM_GET_SHAPE] = fam_get_shape,
	[FAM_LOAD_PTR] = fam_load_ptr, [FAM_STORE_PTR] = fam_store_ptr,
	[FAM_LOAD_VIEW] = fam_load_view, [FAM_STORE_VIEW] = fam_store_view,
	[FAM_ATOMIC] = fam_atomic, [FAM_ATOMIC_RED] = fam_atomic_red, [FAM_MULTIMEM] = fam_multimem,
	[FAM_ALLOCA] = fam_alloca,
	[FAM_MMAF] = fam_mmaf, [FAM_MMAI] = fam_mmai, [FAM_MMAF_SCALED] = fam_mmaf_scaled,
	[FAM_IF] = fam_if, [FAM_FOR] = fam_for, [FAM_LOOP] = fam_loop,
	[FAM_REDUCE] = fam_reduce_scan, [FAM_SCAN] = fam_reduce_scan, [FAM_TERM] = fam_term,
	[FAM_ENTRY] = fam_entry, [FAM_GLOBAL] = fam_global, [FAM_MODULE] = fam_module,
};
