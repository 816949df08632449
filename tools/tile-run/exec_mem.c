/* exec_mem.c: ld/ldu/st (scalar and .v2/.v4, every state space, cache
 * hints ignored), prefetch (no-op), and cp.async: the copy runs when it is
 * issued, which the ISA allows (the destination may not be read before
 * the wait), so commit_group/wait_group have nothing left to do. */
#include "exec.h"

int exec_mem(Thread *t, const Insn *in)
{
	uint64_t *R = t->R;
	int nb = type_bytes[in->ty];
	int n = in->vec ? in->vec : 1;
	switch (in->op) {
	case OP_LD: case OP_LDU: {
		uint64_t a = R[in->s[0]] + (uint64_t)in->off;
		uint32_t total = (uint32_t)(nb * n);
		uint8_t *p = mem_at(t, in, in->space, a, total, ACC_READ);
		if (!p)
			return ST_FAULT;
		for (int k = 0; k < n; k++) {
			uint64_t v = 0;
			memcpy(&v, p + k * nb, (size_t)(nb > 8 ? 8 : nb));
			R[in->d[k]] = norm(v, in->ty);
		}
		R[1] = 0;
		return ST_NEXT;
	}
	case OP_ST: {
		uint64_t a = R[in->s[0]] + (uint64_t)in->off;
		uint32_t total = (uint32_t)(nb * n);
		uint8_t *p = mem_at(t, in, in->space, a, total, ACC_WRITE);
		if (!p)
			return ST_FAULT;
		uint8_t buf[64];
		for (int k = 0; k < n; k++) {
			uint64_t v = R[in->s[1 + k]];
			memcpy(buf + k * nb, &v, (size_t)(nb > 8 ? 8 : nb));
		}
		if (t->run->check == CHECK_RACECHECK && t->run->shared_hit &&
		    !race_write(t, in, t->run->shared_cta, t->run->shared_off, buf, total))
			return ST_FAULT;
		memcpy(p, buf, total);
		return ST_NEXT;
	}
	case OP_PREFETCH: case OP_PREFETCHU:
		return ST_NEXT;
	case OP_CP:
		if (in->mode == CP_ASYNC) {
			uint64_t dst = R[in->s[0]] + (uint64_t)(int64_t)in->target;
			uint64_t src = R[in->s[1]] + (uint64_t)in->off;
			uint32_t size = (uint32_t)R[in->s[2]];
			uint32_t srcsize = (in->flags & F_ZFILL) ? (uint32_t)R[in->s[3]] : size;
			if (size != 4 && size != 8 && size != 16) {
				fault(t, in, "cp.async: bad copy size %u", size);
				return ST_FAULT;
			}
			if (srcsize > size)
				srcsize = size;
			uint8_t *d = mem_at(t, in, SP_SHARED, dst, size, ACC_WRITE);
			if (!d)
				return ST_FAULT;
			uint32_t doff = t->run->shared_off;
			Cta *dcta = t->run->shared_cta;
			uint8_t tmp[16] = { 0 };
			if (srcsize) {
				uint8_t *s = mem_at(t, in, SP_GLOBAL, src, srcsize == size ? size : 1, ACC_READ);
				if (!s)
					return ST_FAULT;
				if (srcsize != size && srcsize > 1 && !mem_at(t, in, SP_GLOBAL, src + srcsize - 1, 1, ACC_READ))
					return ST_FAULT;
				memcpy(tmp, s, srcsize);
			}
			if (t->run->check == CHECK_RACECHECK && !race_write(t, in, dcta, doff, tmp, size))
				return ST_FAULT;
			memcpy(d, tmp, size);
		}
		return ST_NEXT;
	}
	fault(t, in, "internal: memory op %d", in->op);
	return ST_FAULT;
}
