/* toolkit.h: where things are on this machine, from the environment: the
 * CUDA toolkit, programs on PATH, pip's packages, the user's cache and
 * temporary directories, the host C compiler, and the malloc tunables the
 * programs we run inherit. These are not switches (knobs.h): they change
 * where a program or file is found, never what the compiler writes.
 *
 * With knobs.c, the one file that reads the environment (tests/knobs.bats).
 * Each is read when it is asked for, not once: libtileiras's ptxas pick
 * keys its memo on them (ptxas_pick.c), since a client may change them
 * between compiles. libc only: the tileiras launcher links it alone. */
#ifndef TILE_TOOLKIT_H
#define TILE_TOOLKIT_H

typedef enum ToolkitVar {
	TK_CUDA_ROOT,        /* the CUDA toolkit: ptxas, fatbinary, libdevice (tile-pack, tile-ptx) */
	TK_CUDA_HOME,        /* the same, when CUDA_ROOT is unset (tile-pack) */
	TK_CUDA_PATH,        /* the same, when neither is set (tile-pack) */
	TK_PATH,             /* ptxas, fatbinary, python (tile-pack); the launcher's own path */
	TK_VIRTUAL_ENV,      /* pip's ptxas (nvidia/cu13/bin) in the active venv (tile-pack) */
	TK_HOME,             /* pip's ~/.local; ~/.cache/tileiras (tile-pack) */
	TK_XDG_CACHE_HOME,   /* $XDG_CACHE_HOME/tileiras (tile-pack) */
	TK_TMPDIR,           /* temporary files (tile-pack, tile-run's --nv-host) */
	TK_CC,               /* the host C compiler that links --nv-host objects (tile-run) */
	TK_GLIBC_TUNABLES,   /* the user's malloc tunables, kept and extended for ptxas and tileiras-inproc */
	TK_NVARS
} ToolkitVar;

/* toolkit.c */
const char *toolkit_env(ToolkitVar v);                  /* its value now, NULL when unset */
/* The CUDA toolkit's root: the first of CUDA_ROOT, CUDA_HOME, CUDA_PATH
 * set and not empty (*var its name), else /usr/local/cuda (*var NULL). */
const char *toolkit_cuda_root(const char **var);
#endif
