/* npy.h: NumPy .npy arrays (npy.c). */
#ifndef TILE_RUN_NPY_H
#define TILE_RUN_NPY_H
#include <stdbool.h>
#include <stdint.h>

typedef struct Npy {
	char descr[16];         /* as in the file, e.g. "<f4" */
	char kind;              /* b i u f */
	uint32_t itemsize;
	int ndim;
	uint64_t shape[8];
	uint64_t count, bytes;
	uint8_t *data;
} Npy;

bool npy_read(const char *path, Npy *out);      /* false after a message */
bool npy_write(const char *path, const Npy *a);
#endif
