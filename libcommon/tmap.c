/* tmap.c: the 128-byte TMA tensor map of a 2-D to 5-D f16/bf16/f32 tile copy, encoded
 * as NVIDIA's tileiras 13.5 host callback encodes it (read from the
 * callbacks it builds, docs/abi.md §5.3.1; the words were checked by
 * calling those callbacks on parameter blocks, tests/unit/tmap.c), and the
 * tensor-map notes of tile-ptx's PTX (tmap.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tmap.h"
#include "target.h"
#include "xalloc.h"

int tmap_elem_bytes(TmapElem e)
{
	return e == TMAP_F32 || e == TMAP_TF32 ? 4 : e == TMAP_F64 ? 8 : e == TMAP_U8 ? 1 : 2;
}

static const char *const elem_names[TMAP_NELEMS] = { "f16", "bf16", "f32", "tf32", "f64", "u8" };

const char *tmap_elem_name(TmapElem e)
{
	return elem_names[e];
}

static int swizzle_code(int bytes)
{
	return bytes == 128 ? 3 : bytes == 64 ? 2 : bytes == 32 ? 1 : 0;
}

/* Bits 7-10 are the element type, numbered as PTX's tensormap.replace
 * .elemtype (0 u8, 6 f16, 7 f32, 9 f64, 10 bf16); bits 4-6 the rank - 1 (0x12 for its
 * matmul maps, 0x32 for its attention's rank-4 ones); bits 1 and 18 are
 * set in every map NVIDIA's callbacks wrote. tf32 is f32 (7) with bit 16, which
 * NVIDIA's callback sets only for the operands of an f32 -> tf32 ftof with
 * rounding nearest_even, whose cvt its kernel then leaves out (with
 * rounding zero or nearest_away the same kernel's maps are plain f32 and it
 * converts in shared memory: docs/abi.md §5.3.1). */
uint32_t tmap_flags(TmapElem e, int swizzle, int rank)
{
	static const uint32_t type[TMAP_NELEMS] = { 6u << 7, 10u << 7, 7u << 7, 7u << 7 | 1u << 16, 9u << 7, 0 };
	return type[e] | 0x02u | (uint32_t)(rank - 1) << 4 | 0x40000u | (uint32_t)swizzle_code(swizzle) << 13;
}

static void put64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get64(const uint8_t *p)
{
	uint64_t v = 0;
	for (int i = 0; i < 8; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Words (NVIDIA's, docs/abi.md §5.3.1): 0x00 the base; 0x08 the flags,
 * bit 21 when the tensor spans 128 KiB or more (eb * (dim 0 + the sum of
 * stride i * (dim i - 1)), in 64 bits: checked on its rank-2 and rank-4
 * callbacks); the 32-bit strides of dims 1.. in 16-byte units from 0x0c;
 * dims - 1 in 32-bit words from 0x20; boxes - 1 in bytes from 0x37. */
void tmap_encode(uint8_t out[TMAP_BYTES], const TmapArgs *a)
{
	uint64_t eb = (uint64_t)tmap_elem_bytes(a->elem);
	memset(out, 0, TMAP_BYTES);
	put64(out + 0x00, a->base & 0x01FFFFFFFFFFFFF0ull);
	uint64_t span = a->dims[0];
	for (int i = 1; i < a->rank; i++)
		span += (uint64_t)a->strides[i] * ((uint64_t)a->dims[i] - 1);
	put32(out + 0x08, tmap_flags(a->elem, a->swizzle, a->rank) | (uint32_t)(eb * span >= 0x20000) << 21);
	for (int i = 1; i < a->rank; i++)
		put32(out + 0x0c + 4 * (i - 1), (uint32_t)(((uint64_t)a->strides[i] * eb) >> 4));
	for (int i = 0; i < a->rank; i++) {
		put32(out + 0x20 + 4 * i, a->dims[i] - 1);
		out[0x37 + i] = (uint8_t)(a->box[i] - 1);
	}
}

bool tmap_decode(const uint8_t *in, TmapArgs *a)
{
	/* bit 21: the 128 KiB bit; bits 18-19: the L2 promotion, a cache hint
	 * (NVIDIA's sm_100 maps use 256 bytes where ours say 64) */
	uint32_t flags = get32(in + 0x08) & ~(1u << 21 | 3u << 18);
	int rank = (int)(flags >> 4 & 7) + 1;
	if (rank < 1 || rank > TMAP_MAX_RANK)      /* 1-D: NVIDIA's row copies (TileGym's RMSNorm) */
		return false;
	/* nothing past the rank's words, nor in 0x30-0x36 and 0x40-0x7f */
	for (int i = 0x0c + 4 * (rank - 1); i < 0x20; i++)
		if (in[i])
			return false;
	for (int i = 0x20 + 4 * rank; i < 0x37; i++)
		if (in[i])
			return false;
	for (int i = 0x37 + rank; i < TMAP_BYTES; i++)
		if (in[i])
			return false;
	const int swz[] = { 0, 32, 64, 128 };     /* NVIDIA's f32 matmul maps have none */
	bool found = false;
	for (int i = 0; i < TMAP_NELEMS && !found; i++)
		for (int j = 0; j < 4 && !found; j++)
			if (flags == (tmap_flags((TmapElem)i, swz[j], rank) & ~(3u << 18))) {
				a->elem = (TmapElem)i;
				a->swizzle = swz[j];
				found = true;
			}
	if (!found)
		return false;
	uint64_t eb = (uint64_t)tmap_elem_bytes(a->elem);
	a->rank = rank;
	a->base = get64(in);
	a->strides[0] = 1;
	for (int i = 1; i < rank; i++)
		a->strides[i] = (uint32_t)(((uint64_t)get32(in + 0x0c + 4 * (i - 1)) << 4) / eb);
	for (int i = 0; i < rank; i++) {
		a->dims[i] = get32(in + 0x20 + 4 * i) + 1;
		a->box[i] = (uint32_t)in[0x37 + i] + 1;
	}
	for (int i = rank; i < TMAP_MAX_RANK; i++)
		a->dims[i] = a->strides[i] = a->box[i] = 0;
	return true;
}

void tmap_args_of_note(const TmapNote *n, uint64_t (*read)(const void *ctx, int param, int bytes), const void *ctx,
		       TmapArgs *a)
{
	memset(a, 0, sizeof *a);
	a->elem = n->elem;
	a->rank = n->rank;
	a->swizzle = n->swizzle;
	a->base = read(ctx, n->base, 8);
	for (int j = 0; j < n->rank; j++) {
		const TmapVal *d = &n->dims[j], *s = &n->strides[j];
		a->dims[j] = (uint32_t)(d->param >= 0 ? read(ctx, d->param, 4) : d->value);
		a->strides[j] = (uint32_t)(s->param >= 0 ? read(ctx, s->param, 4) : s->value);
		a->box[j] = n->box[j];
	}
}

/* ------------------------------------------------------------ notes */

static void val_print(StrBuf *sb, const TmapVal *v)
{
	if (v->param >= 0)
		sb_printf(sb, "p%d", v->param);
	else
		sb_printf(sb, "%llu", (unsigned long long)v->value);
}

void tmap_note_print(StrBuf *sb, const TmapNote *n)
{
	sb_printf(sb, "%s%s %d %s base=p%d dims=", TMAP_NOTE, n->entry, n->hidden, tmap_elem_name(n->elem), n->base);
	for (int i = 0; i < n->rank; i++) {
		sb_puts(sb, i ? "," : "");
		val_print(sb, &n->dims[i]);
	}
	sb_puts(sb, " stride=");
	for (int i = 1; i < n->rank; i++) {
		sb_puts(sb, i > 1 ? "," : "");
		val_print(sb, &n->strides[i]);
	}
	sb_puts(sb, " box=");
	for (int i = 0; i < n->rank; i++)
		sb_printf(sb, "%s%u", i ? "," : "", n->box[i]);
	sb_printf(sb, " swizzle=%d\n", n->swizzle);
}

/* p<index> or a decimal constant, then `end` (or, for a list, ',': *more) */
static const char *val_parse(const char *s, TmapVal *v, char end, bool *more)
{
	char *e;
	if (*s == 'p') {
		long x = strtol(s + 1, &e, 10);
		if (e == s + 1 || x < 0 || x > 4095)
			return NULL;
		v->param = (int)x;
		v->value = 0;
	} else {
		unsigned long long x = strtoull(s, &e, 10);
		if (e == s || *s == '-' || x > 0xFFFFFFFFull)
			return NULL;
		v->param = -1;
		v->value = x;
	}
	if (more) {
		*more = *e == ',';
		if (*more)
			return e + 1;
	}
	return *e == end || (end == ' ' && (*e == '\n' || !*e)) ? e + (*e == end) : NULL;
}

/* a list of 1..max values separated by ',', then ' '; *n the count */
static const char *list_parse(const char *s, TmapVal *v, int max, int *n)
{
	bool more = true;
	for (*n = 0; s && more; (*n)++) {
		if (*n == max)
			return NULL;
		s = val_parse(s, &v[*n], ' ', &more);
	}
	return s;
}

static const char *key(const char *s, const char *k)
{
	size_t n = strlen(k);
	return strncmp(s, k, n) == 0 ? s + n : NULL;
}

bool tmap_note_parse(const char *line, TmapNote *n, const char **why)
{
	memset(n, 0, sizeof *n);
	const char *s = line, *sp = strchr(s, ' ');
	*why = "expected ENTRY HIDDEN ELEM base=pN dims=D0,D1[,..] stride=S1[,..] box=B0,B1[,..] swizzle=W";
	if (!sp || sp == s || (size_t)(sp - s) >= sizeof n->entry)
		return false;
	memcpy(n->entry, s, (size_t)(sp - s));
	char *e;
	long h = strtol(sp + 1, &e, 10);
	if (e == sp + 1 || *e != ' ' || h < 0 || h > 4095)
		return false;
	n->hidden = (int)h;
	s = e + 1;
	int el = 0;
	while (el < TMAP_NELEMS && !(key(s, elem_names[el]) && s[strlen(elem_names[el])] == ' '))
		el++;
	if (el == TMAP_NELEMS) {
		*why = "the element type must be f16, bf16, f32, tf32, f64 or u8";
		return false;
	}
	n->elem = (TmapElem)el;
	s += strlen(elem_names[el]) + 1;
	TmapVal base, box[TMAP_MAX_RANK], swz;
	int nd = 0, ns = 0, nb = 0;
	if (!(s = key(s, "base=")) || !(s = val_parse(s, &base, ' ', NULL)) || base.param < 0 ||
	    !(s = key(s, "dims=")) || !(s = list_parse(s, n->dims, TMAP_MAX_RANK, &nd)) ||
	    !(s = key(s, "stride=")) || !(s = list_parse(s, n->strides + 1, TMAP_MAX_RANK - 1, &ns)) ||
	    !(s = key(s, "box=")) || !(s = list_parse(s, box, TMAP_MAX_RANK, &nb)) ||
	    !(s = key(s, "swizzle=")) || !(s = val_parse(s, &swz, ' ', NULL)))
		return false;
	if (nd < 2 || ns != nd - 1 || nb != nd) {
		*why = "2 to 5 dims, one stride fewer, as many box sizes";
		return false;
	}
	n->rank = nd;
	n->strides[0] = (TmapVal){ -1, 1 };
	for (int i = 0; i < nd; i++)
		if (box[i].param >= 0 || box[i].value < 1 || box[i].value > 256) {
			*why = "each box size must be a constant 1..256";
			return false;
		}
	if (swz.param >= 0 || (swz.value != 64 && swz.value != 128) ||
	    box[0].value * (uint64_t)tmap_elem_bytes(n->elem) != swz.value) {
		*why = "the swizzle must be 64 or 128 bytes, the box's inner row exactly that";
		return false;
	}
	bool self = n->hidden == base.param;
	for (int i = 0; i < nd; i++)
		self |= n->hidden == n->dims[i].param || n->hidden == n->strides[i].param;
	if (self) {
		*why = "the map's own parameter cannot be one it is built from";
		return false;
	}
	n->base = base.param;
	for (int i = 0; i < nd; i++)
		n->box[i] = (uint32_t)box[i].value;
	n->swizzle = (int)swz.value;
	return true;
}

bool tmap_notes_of(const char *ptx, size_t len, TmapNote **out, int *n, int *bad_line, const char **why)
{
	*out = NULL;
	*n = 0;
	int cap = 0, line = 1;
	size_t k = strlen(TMAP_NOTE);
	for (size_t i = 0; i < len; line++) {
		const char *nl = memchr(ptx + i, '\n', len - i);
		size_t end = nl ? (size_t)(nl - ptx) : len;
		if (end - i > k && memcmp(ptx + i, TMAP_NOTE, k) == 0) {
			char buf[1024];
			size_t m = end - i - k;
			if (m >= sizeof buf) {
				*bad_line = line;
				*why = "the line is too long";
				free(*out);
				*out = NULL;
				*n = 0;
				return false;
			}
			memcpy(buf, ptx + i + k, m);
			buf[m] = '\0';
			if (*n == cap) {
				cap = cap ? 2 * cap : 4;
				*out = xrealloc(*out, (size_t)cap * sizeof **out);
			}
			if (!tmap_note_parse(buf, &(*out)[*n], why)) {
				*bad_line = line;
				free(*out);
				*out = NULL;
				*n = 0;
				return false;
			}
			(*n)++;
		}
		i = end + 1;
	}
	return true;
}

/* ------------------------------------------------------------ parameter layout */

int tmap_cbank_base(int sm)
{
	const Target *t = target_by_sm(sm);
	return t ? t->param_cbank : 0;
}

static int type_bytes(const char *t, size_t n)
{
	static const struct { const char *name; int bytes; } types[] = {
		{ ".u8", 1 }, { ".s8", 1 }, { ".b8", 1 }, { ".u16", 2 }, { ".s16", 2 }, { ".b16", 2 }, { ".f16", 2 },
		{ ".u32", 4 }, { ".s32", 4 }, { ".b32", 4 }, { ".f32", 4 }, { ".u64", 8 }, { ".s64", 8 }, { ".b64", 8 },
		{ ".f64", 8 },
	};
	for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
		if (strlen(types[i].name) == n && memcmp(types[i].name, t, n) == 0)
			return types[i].bytes;
	return 0;
}

/* one declaration ".param ..." (up to the comma) -> size and alignment */
static bool param_decl(const char *s, const char *end, TmapParam *p)
{
	const char *tok[16];
	size_t tlen[16];
	int nt = 0;
	while (s < end && nt < 16) {
		while (s < end && (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r'))
			s++;
		if (s >= end)
			break;
		tok[nt] = s;
		while (s < end && *s != ' ' && *s != '\t' && *s != '\n' && *s != '\r')
			s++;
		tlen[nt] = (size_t)(s - tok[nt]);
		nt++;
	}
	int i = 0;
	p->hidden = i < nt && tlen[i] == 7 && memcmp(tok[i], ".hidden", 7) == 0;
	i += p->hidden;
	if (i >= nt || tlen[i] != 6 || memcmp(tok[i], ".param", 6) != 0)
		return false;
	i++;
	if (i < nt && tlen[i] == 6 && memcmp(tok[i], ".align", 6) == 0) {
		/* .align A .bN name[COUNT] */
		if (i + 3 > nt)
			return false;
		int a = atoi(tok[i + 1]), w = type_bytes(tok[i + 2], tlen[i + 2]);
		const char *br = memchr(tok[i + 3], '[', tlen[i + 3]);
		int count = br ? atoi(br + 1) : 1;
		if (a < 1 || a > 256 || (a & (a - 1)) || !w || count < 1 || count > 4096)
			return false;
		p->align = a;
		p->size = w * count;
		return true;
	}
	int w = i < nt ? type_bytes(tok[i], tlen[i]) : 0;
	if (!w)
		return false;
	p->size = p->align = w;
	return true;
}

int tmap_param_layout(const char *ptx, size_t len, const char *entry, int cbank_base, TmapParam *out, int cap)
{
	size_t el = strlen(entry);
	const char *end = ptx + len, *s = ptx;
	for (;;) {
		const char *e = NULL;
		for (const char *q = s; q + 7 <= end; q++)
			if (memcmp(q, ".entry", 6) == 0 && (q[6] == ' ' || q[6] == '\t')) {
				e = q;
				break;
			}
		if (!e)
			return -1;
		const char *q = e + 6;
		while (q < end && (*q == ' ' || *q == '\t'))
			q++;
		s = q;
		if ((size_t)(end - q) > el && memcmp(q, entry, el) == 0 && (q[el] == '(' || q[el] == ' ' || q[el] == '\n'))
			break;
	}
	const char *open = memchr(s, '(', (size_t)(end - s));
	const char *close = open ? memchr(open, ')', (size_t)(end - open)) : NULL;
	if (!close)
		return -1;
	int n = 0, abs = cbank_base;
	for (const char *d = open + 1; d < close;) {
		const char *comma = memchr(d, ',', (size_t)(close - d));
		const char *de = comma ? comma : close;
		const char *t = d;
		while (t < de && (*t == ' ' || *t == '\t' || *t == '\n' || *t == '\r'))
			t++;
		if (t < de) {
			TmapParam p;
			if (!param_decl(t, de, &p))
				return -1;
			abs = (abs + p.align - 1) & ~(p.align - 1);
			p.offset = abs - cbank_base;
			abs += p.size;
			if (n < cap)
				out[n] = p;
			n++;
		}
		d = de + 1;
	}
	return n;
}
