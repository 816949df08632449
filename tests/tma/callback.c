/* callback.c: calls a .nv.host object's ON_ARGUMENTS_CHANGE for one entry
 * on parameter blocks and checks the tensor maps it writes against
 * libcommon's tmap_encode (tests/tma.bats builds it with the object under
 * test: ours from tile-pack --emit=nv-host, or NVIDIA's).
 *
 *   callback PTX ENTRY SM ROUNDS
 *   callback --print-maps PTX ENTRY SM
 *
 * PTX (tile-sched --tma) gives the entry's tensor-map notes and parameter
 * list. Each round fills the user parameters with other values (base
 * addresses 16-byte aligned, 32-bit shapes and strides from 1 to about
 * 2^17, so both sides of the 128 KiB bit), calls the callback and
 * compares each noted map's 128 bytes; the user parameters must be left
 * as they were. Prints "ok N maps x R rounds", or each difference and
 * exits 1. --print-maps instead calls the callback once and prints, for
 * each hidden 128-byte parameter, the tile-run argument that describes the
 * map it wrote (tmap:N,B0xB1[,swizzle=S][,tf32]: N the pointer parameter
 * whose value is its base, the box and swizzle read from the words, tf32
 * when flag bit 16 says the copy rounds f32 to tf32; any element type): how NVIDIA's PTX runs on tile-run with the maps NVIDIA's callback
 * builds (PTX then: the one NVIDIA's tileiras handed ptxas). */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tmap.h"

extern const uint64_t __CUDA_TILEIR_CALLBACKS[9];
typedef int (*OnArgs)(void *, void *, void *, uint8_t *);

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *b = malloc((size_t)n + 1);
	*len = fread(b, 1, (size_t)n, f);
	b[*len] = 0;
	fclose(f);
	return b;
}

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static int print_maps(const TmapParam *lay, int np, OnArgs cb)
{
	size_t bytes = (size_t)(lay[np - 1].offset + lay[np - 1].size);
	uint8_t *block = calloc(bytes + 512, 1);
	for (int k = 0; k < np; k++) {
		if (lay[k].hidden)
			continue;
		/* 32-bit values (shapes, strides) distinct, so a map's dims name their array dims */
		uint64_t v = lay[k].size == 8 ? 0x7f0000000000ull + ((uint64_t)k << 20) : 256 + 16u * (unsigned)k;
		memcpy(block + lay[k].offset, &v, (size_t)lay[k].size);
	}
	if (cb(NULL, NULL, NULL, block) != 0) {
		free(block);
		return 1;
	}
	for (int k = 0; k < np; k++) {
		if (!lay[k].hidden || lay[k].size != TMAP_BYTES)
			continue;
		const uint8_t *m = block + lay[k].offset;
		uint64_t base, w1;
		memcpy(&base, m, 8);
		memcpy(&w1, m + 8, 8);
		int owner = -1;
		for (int j = 0; j < np; j++) {
			uint64_t v = 0;
			if (!lay[j].hidden && lay[j].size == 8)
				memcpy(&v, block + lay[j].offset, 8);
			if (v && (v & 0x01FFFFFFFFFFFFF0ull) == base)
				owner = j;
		}
		int sw = (int)(w1 >> 13) & 3;
		/* rank - 1 in flag bits 4-6; boxes - 1 in bytes 0x37, 0x38, 0x39..;
		 * dims - 1 in the 32-bit words from 0x20 (innermost first) */
		int rank = (int)((w1 >> 4) & 7) + 1;
		if (rank > 5 || owner < 0 || owner + rank >= np) {
			printf("tmap:? (rank %d, owner %d)\n", rank, owner);
			continue;
		}
		printf("tmap:%d,%u", owner, m[0x37] + 1u);
		for (int j = 1; j < rank; j++)
			printf("x%u", m[0x37 + j] + 1u);
		if (sw)
			printf(",swizzle=%d", 16 << sw);
		if (w1 & 0x10000)
			printf(",tf32");
		/* which array dim each map dim is: its size against the owner's shape
		 * parameters (owner+1 .. owner+rank, outermost first) */
		int perm[5];
		bool moved = false;
		for (int j = 0; j < rank; j++) {
			uint32_t d;
			memcpy(&d, m + 0x20 + 4 * j, 4);
			perm[j] = -1;
			for (int s = 0; s < rank; s++) {
				uint32_t v = 0;
				memcpy(&v, block + lay[owner + 1 + s].offset, 4);
				if (v == d + 1)
					perm[j] = rank - 1 - s;
			}
			moved |= perm[j] != j;
		}
		for (int j = 0; j < rank; j++)
			moved &= perm[j] >= 0;      /* a dim no shape parameter gives: leave the order */
		if (moved) {
			printf(",dims=");
			for (int j = 0; j < rank; j++)
				printf(j ? ".%d" : "%d", perm[j]);
		}
		printf("\n");
	}
	free(block);
	return 0;
}

typedef struct Block {
	const uint8_t *bytes;
	const TmapParam *lay;
} Block;

/* parameter `param` of a parameter block laid out as lay */
static uint64_t block_read(const void *ctx, int param, int bytes)
{
	const Block *b = ctx;
	uint64_t x = 0;
	memcpy(&x, b->bytes + b->lay[param].offset, (size_t)bytes);
	return x;
}

int main(int argc, char **argv)
{
	bool print = argc > 1 && strcmp(argv[1], "--print-maps") == 0;
	if (print) {
		argv++;
		argc--;
		argv[4] = "1";
		argc = 5;
	}
	if (argc != 5) {
		fprintf(stderr, "usage: callback PTX ENTRY SM ROUNDS\n");
		return 2;
	}
	size_t len;
	char *ptx = slurp(argv[1], &len);
	const char *entry = argv[2];
	int sm = atoi(argv[3]), rounds = atoi(argv[4]);
	TmapNote *notes;
	int nn, bad;
	const char *why;
	if (!ptx || !tmap_notes_of(ptx, len, &notes, &nn, &bad, &why)) {
		fprintf(stderr, "callback: cannot read the notes of %s\n", argv[1]);
		return 2;
	}
	TmapParam lay[256];
	int np = tmap_param_layout(ptx, len, entry, tmap_cbank_base(sm), lay, 256);
	if (np < 1 || np > 256) {
		fprintf(stderr, "callback: no parameter list for %s\n", entry);
		return 2;
	}
	/* the entry's record: word 0 its name, word 5 its callback */
	const uint64_t *recs = (const uint64_t *)__CUDA_TILEIR_CALLBACKS[5];
	OnArgs cb = NULL;
	for (uint64_t i = 0; i < __CUDA_TILEIR_CALLBACKS[6]; i++)
		if (strcmp((const char *)recs[8 * i], entry) == 0)
			cb = (OnArgs)recs[8 * i + 5];
	if (!cb) {
		fprintf(stderr, "callback: the object has no entry %s\n", entry);
		return 2;
	}
	if (print) {
		int rc = print_maps(lay, np, cb);
		free(ptx);
		free(notes);
		return rc;
	}
	size_t bytes = (size_t)(lay[np - 1].offset + lay[np - 1].size);
	uint8_t *block = calloc(bytes + 512, 1), *want = calloc(bytes + 512, 1);
	int maps = 0, fails = 0;
	for (int r = 0; r < rounds; r++) {
		memset(block, 0, bytes + 512);
		for (int k = 0; k < np; k++) {
			if (lay[k].hidden)
				continue;
			uint64_t v = lay[k].size == 8 ? 0x7f0000000000ull + ((next() % 0x100000) << 4)
				   : 1 + next() % (r % 2 ? 0x20000 : 0x1000);
			memcpy(block + lay[k].offset, &v, (size_t)lay[k].size);
		}
		memcpy(want, block, bytes + 512);
		maps = 0;
		for (int i = 0; i < nn; i++) {
			const TmapNote *t = &notes[i];
			if (strcmp(t->entry, entry) != 0)
				continue;
			TmapArgs a;
			Block pb = { block, lay };
			tmap_args_of_note(t, block_read, &pb, &a);
			tmap_encode(want + lay[t->hidden].offset, &a);
			maps++;
		}
		if (cb(NULL, NULL, NULL, block) != 0) {
			printf("round %d: the callback returned nonzero\n", r);
			fails++;
		}
		/* the noted maps and the user parameters; other hidden bytes are the callback's own */
		for (int k = 0; k < np; k++) {
			bool noted = false;
			for (int i = 0; i < nn; i++)
				noted |= strcmp(notes[i].entry, entry) == 0 && notes[i].hidden == k;
			if (lay[k].hidden && !noted)
				continue;
			int n = lay[k].hidden ? 64 : lay[k].size;   /* NVIDIA's leave 0x40-0x7f to the driver */
			if (memcmp(block + lay[k].offset, want + lay[k].offset, (size_t)n) != 0) {
				printf("round %d: parameter %d differs:", r, k);
				for (int b = 0; b < n; b += 8) {
					uint64_t g, w;
					memcpy(&g, block + lay[k].offset + b, 8);
					memcpy(&w, want + lay[k].offset + b, 8);
					if (g != w)
						printf(" [0x%x] %llx, want %llx", b, (unsigned long long)g, (unsigned long long)w);
				}
				printf("\n");
				fails++;
			}
		}
	}
	free(block);
	free(want);
	free(notes);
	free(ptx);
	if (fails)
		return 1;
	printf("ok %d maps x %d rounds\n", maps, rounds);
	return 0;
}
