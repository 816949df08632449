/* interp.c: the instruction loop. Runs one thread until it waits at a
 * collective, exits, faults, has run QUANTUM instructions and takes a
 * branch, or reads a clock (so spin-waits on other threads or on time
 * make progress). One switch per
 * instruction; the commonest integer operations are done inline, the rest
 * by the family functions (exec_*.c). */
#include <math.h>
#include "exec.h"

#define QUANTUM 20000

int func_return(Thread *t);

/* t waits at a warp collective: its warp resolves it now if every lane
 * has arrived (ST_JUMP: t runs on), else t stays blocked */
static int warp_blocked(Thread *t)
{
	warp_check_thread(t->cta, t);
	return t->run->status ? ST_FAULT : t->state == TS_RUN ? ST_JUMP : ST_BLOCK;
}

int run_thread(Thread *t)
{
	Run *r = t->run;
	const Insn *code = t->code;
	uint64_t *R = t->R;
	int pc = t->pc;
	uint64_t n = 0;
	int st;
	for (;;) {
		const Insn *in = &code[pc];
		n++;
		if (in->guard >= 0 && (int)(R[in->guard] & 1) == in->gneg) {
			pc++;
			continue;
		}
		switch (in->op) {
		case OP_BRA:
			if (in->target <= pc && n > QUANTUM) {
				t->pc = in->target;
				st = ST_YIELD;
				goto out;
			}
			pc = in->target;
			continue;
		case OP_MOV:
			if (in->mode == 0) {
				R[in->d[0]] = in->ty == TY_PRED ? R[in->s[0]] & 1 : norm(R[in->s[0]], in->ty);
				pc++;
				continue;
			}
			break;
		case OP_ADD:
			if (in->ty == TY_S64 || in->ty == TY_U64 || in->ty == TY_B64) {
				R[in->d[0]] = R[in->s[0]] + R[in->s[1]];
				pc++;
				continue;
			}
			if ((in->ty == TY_S32 || in->ty == TY_U32) && !(in->flags & (F_SAT | F_CC))) {
				R[in->d[0]] = norm(R[in->s[0]] + R[in->s[1]], in->ty);
				pc++;
				continue;
			}
			if (in->ty == TY_F32 && !in->flags && !in->ty2 && (in->rnd == RND_RN || in->rnd == RND_DEFAULT)) {
				R[in->d[0]] = f2u(u2f((uint32_t)R[in->s[0]]) + u2f((uint32_t)R[in->s[1]]));
				pc++;
				continue;
			}
			break;
		case OP_SHL:
			if (in->ty == TY_B64 && R[in->s[1]] < 64) {
				R[in->d[0]] = R[in->s[0]] << R[in->s[1]];
				pc++;
				continue;
			}
			if (in->ty == TY_B32 && (uint32_t)R[in->s[1]] < 32) {
				R[in->d[0]] = (uint32_t)(R[in->s[0]] << (uint32_t)R[in->s[1]]);
				pc++;
				continue;
			}
			break;
		case OP_AND: case OP_XOR:
			if (in->ty == TY_B32 || in->ty == TY_B64) {
				uint64_t a = R[in->s[0]], b = R[in->s[1]];
				uint64_t v = in->op == OP_AND ? a & b : a ^ b;
				R[in->d[0]] = in->ty == TY_B32 ? (uint32_t)v : v;
				pc++;
				continue;
			}
			break;
		case OP_SELP:
			R[in->d[0]] = (R[in->s[2]] & 1) ? R[in->s[0]] : R[in->s[1]];
			pc++;
			continue;
		case OP_SETP:
			if (!in->boolop && in->nd == 1 && (in->ty == TY_S32 || in->ty == TY_U32 || in->ty == TY_S64 ||
							      in->ty == TY_U64 || in->ty == TY_B32 || in->ty == TY_B64)) {
				uint64_t a = R[in->s[0]], b = R[in->s[1]];
				bool w = in->ty == TY_S64 || in->ty == TY_U64 || in->ty == TY_B64;
				bool sg = in->ty == TY_S32 || in->ty == TY_S64;
				int64_t sa = w ? (int64_t)a : (int64_t)(int32_t)(uint32_t)a;
				int64_t sb = w ? (int64_t)b : (int64_t)(int32_t)(uint32_t)b;
				uint64_t ua = w ? a : (uint32_t)a, ub = w ? b : (uint32_t)b;
				int cr = -1;
				switch (in->cmp) {
				case CMP_EQ: cr = ua == ub; break;
				case CMP_NE: cr = ua != ub; break;
				case CMP_LT: cr = sg ? sa < sb : ua < ub; break;
				case CMP_LE: cr = sg ? sa <= sb : ua <= ub; break;
				case CMP_GT: cr = sg ? sa > sb : ua > ub; break;
				case CMP_GE: cr = sg ? sa >= sb : ua >= ub; break;
				}
				if (cr >= 0) {
					R[in->d[0]] = (uint64_t)cr;
					pc++;
					continue;
				}
			}
			break;
		case OP_FMA: case OP_MUL: case OP_SUB:
			if (in->ty == TY_F32 && !in->flags && !in->ty2 && (in->rnd == RND_RN || in->rnd == RND_DEFAULT)) {
				float a = u2f((uint32_t)R[in->s[0]]), b = u2f((uint32_t)R[in->s[1]]);
				float v = in->op == OP_FMA ? fmaf(a, b, u2f((uint32_t)R[in->s[2]])) : in->op == OP_MUL ? a * b : a - b;
				R[in->d[0]] = f2u(v);
				pc++;
				continue;
			}
			break;
		case OP_OR:
			if (in->ty == TY_PRED) {
				R[in->d[0]] = (R[in->s[0]] | R[in->s[1]]) & 1;
				pc++;
				continue;
			}
			break;
		case OP_TRAP:
			t->pc = pc;
			fault_as(t, in, FK_TRAP, 0, NULL, in->mode == TRAP_FELL_OFF ? "ran past the end of the function (no ret or exit)" : "trap");
			st = ST_FAULT;
			goto out;
		}
		t->pc = pc;
		switch (in->op) {
		case OP_ADD: case OP_SUB: case OP_MUL: case OP_MAD: case OP_FMA: case OP_DIV: case OP_REM: case OP_ABS:
		case OP_NEG: case OP_MIN: case OP_MAX: case OP_ADDC: case OP_SUBC: case OP_MADC: case OP_COPYSIGN:
		case OP_TESTP:
			st = exec_arith(t, in);
			break;
		case OP_SQRT: case OP_RSQRT: case OP_RCP: case OP_EX2: case OP_LG2: case OP_SIN: case OP_COS: case OP_TANH:
			st = exec_math(t, in);
			break;
		case OP_AND: case OP_OR: case OP_XOR: case OP_NOT: case OP_CNOT: case OP_SHL: case OP_SHR: case OP_SHF:
		case OP_LOP3: case OP_PRMT: case OP_BFE: case OP_BFI: case OP_BREV: case OP_POPC: case OP_CLZ:
		case OP_BFIND:
			st = exec_bits(t, in);
			break;
		case OP_SETP: case OP_SET: case OP_SELP: case OP_SLCT:
			st = exec_cmp(t, in);
			break;
		case OP_MOV: case OP_CVTA: case OP_ISSPACEP:
			st = exec_move(t, in);
			break;
		case OP_MOV_CLOCK:
			/* a thread reading the clock is usually waiting for time to
			 * pass: let the others run (as they would on a GPU meanwhile) */
			st = exec_move(t, in);
			t->pc = pc + 1;
			st = ST_YIELD;
			goto out;
		case OP_CVT:
			st = exec_cvt(t, in);
			break;
		case OP_LD: case OP_LDU: case OP_ST: case OP_PREFETCH: case OP_PREFETCHU: case OP_CP:
			st = exec_mem(t, in);
			break;
		case OP_ATOM: case OP_RED:
			st = exec_atom(t, in);
			break;
		case OP_CALL_VPRINTF: case OP_CALL_MALLOC: case OP_CALL_FREE: case OP_CALL_ASSERT: case OP_CALL_FUNC:
			st = exec_ctrl(t, in);
			break;
		case OP_SHFL: case OP_VOTE: case OP_REDUX: case OP_MATCH: case OP_ACTIVEMASK: case OP_ELECT:
		case OP_LDMATRIX: case OP_STMATRIX: case OP_MMA: case OP_SETMAXNREG:
		warp_collective:
			st = exec_warp(t, in);
			if (st == ST_BLOCK)
				st = warp_blocked(t);
			break;
		case OP_BAR: case OP_BARRIER:
			st = exec_sync(t, in);
			if (st == ST_BLOCK && in->mode == BAR_WARP_SYNC)
				st = warp_blocked(t);
			break;
		case OP_MAPA: case OP_GETCTARANK:
			st = exec_cluster(t, in);
			break;
		case OP_RET: case OP_EXIT:
			st = in->op == OP_EXIT ? ST_EXIT : func_return(t);
			break;
		case OP_FENCE: case OP_MEMBAR: case OP_GRIDDEPCONTROL: case OP_PMEVENT:
		case OP_NANOSLEEP: case OP_BRKPT:
			st = ST_NEXT;
			break;
		case OP_MBARRIER: case OP_ASYNC:
			st = exec_async(t, in);
			break;
		case OP_TCGEN05:   /* alloc, dealloc, relinquish: warp collectives (exec_warp.c) */
			if (in->mode == T5_ALLOC || in->mode == T5_DEALLOC || in->mode == T5_RELINQUISH)
				goto warp_collective;
			st = exec_tcgen05(t, in);
			break;
		case OP_WGMMA:     /* A in registers: a warp collective (exec_warp.c) */
			if (in->mode == WG_MMA && (in->boolop & AF_A_REGS))
				goto warp_collective;
			st = exec_wgmma(t, in);
			break;
		default:
			fault(t, in, "instruction not implemented by tile-run");
			st = ST_FAULT;
			break;
		}
		if (st == ST_NEXT) {
			pc++;
			continue;
		}
		if (st == ST_JUMP) {
			code = t->code;
			R = t->R;
			pc = t->pc;
			continue;
		}
		goto out;
	}
out:
	r->ninsn += n;
	return st;
}
