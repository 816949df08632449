/* ptxas_vcache.c: remember what `ptxas --version` said, so a compile does
 * not start every installed ptxas just to ask (2 probes cost ~15 ms of a
 * ~90 ms compile; docs/benchmarks.md "Compile time").
 *
 * The key is the file itself: device, inode, size, mtime and ctime (ns) of
 * the path given, so a replaced, rewritten or re-chmodded ptxas is asked
 * again. Two levels:
 *   - in this process (libtileiras compiles many kernels): a small table
 *     under a mutex;
 *   - on disk, for the CLI's one-compile processes: one line per ptxas in
 *     $TILEIRAS_CACHE_DIR, else $XDG_CACHE_HOME/tileiras, else
 *     $HOME/.cache/tileiras, file "ptxas-versions", replaced whole by
 *     rename (safe when compiles run in parallel: a lost update only means
 *     one more probe).
 * TILEIRAS_NO_CACHE=1 turns both off. Nothing here can fail a
 * compile: any error just means "not cached". */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "pack.h"
#include "knobs.h"
#include "toolkit.h"

#define MEM_SLOTS 16
#define DISK_MAX 64 * 1024

typedef struct Key {
	unsigned long long dev, ino, size, mtime_s, mtime_ns, ctime_s, ctime_ns;
} Key;

typedef struct Slot {
	bool used;
	Key key;
	PtxasVersion v;
} Slot;

static pthread_mutex_t mem_lock = PTHREAD_MUTEX_INITIALIZER;
static Slot mem[MEM_SLOTS];
static int mem_next;

static bool disabled(void)
{
	return knobs()->TILEIRAS_NO_CACHE;
}

static bool key_of(const char *path, Key *k)
{
	struct stat st;
	if (stat(path, &st) != 0)
		return false;
	*k = (Key){ (unsigned long long)st.st_dev, (unsigned long long)st.st_ino, (unsigned long long)st.st_size,
		    (unsigned long long)st.st_mtim.tv_sec, (unsigned long long)st.st_mtim.tv_nsec,
		    (unsigned long long)st.st_ctim.tv_sec, (unsigned long long)st.st_ctim.tv_nsec };
	return true;
}

static bool same(const Key *a, const Key *b)
{
	return memcmp(a, b, sizeof *a) == 0;
}

/* the cache file's path in *out; false when there is no place for it */
static bool disk_path(StrBuf *out)
{
	const char *d = knobs()->TILEIRAS_CACHE_DIR;
	if (d && *d) {
		sb_puts(out, d);
	} else if ((d = toolkit_env(TK_XDG_CACHE_HOME)) && *d == '/') {
		sb_printf(out, "%s/tileiras", d);
	} else if ((d = toolkit_env(TK_HOME)) && *d == '/') {
		sb_printf(out, "%s/.cache/tileiras", d);
	} else {
		return false;
	}
	sb_puts(out, "/ptxas-versions");
	return true;
}

/* one line: the key's 7 numbers, known major minor patch, then the path */
static bool parse_line(const char *line, Key *k, PtxasVersion *v, const char **path)
{
	int known, n = 0;
	if (sscanf(line, "%llu %llu %llu %llu %llu %llu %llu %d %d %d %d %n", &k->dev, &k->ino, &k->size,
		   &k->mtime_s, &k->mtime_ns, &k->ctime_s, &k->ctime_ns, &known, &v->major, &v->minor,
		   &v->patch, &n) < 11 || n == 0)
		return false;
	v->known = known != 0;
	*path = line + n;
	return true;
}

static char *read_disk(const char *file)
{
	FILE *f = fopen(file, "r");
	if (!f)
		return NULL;
	char *buf = malloc(DISK_MAX + 1);
	size_t n = buf ? fread(buf, 1, DISK_MAX, f) : 0;
	fclose(f);
	if (!buf)
		return NULL;
	buf[n] = 0;
	return buf;
}

bool ptxas_vcache_get(const char *ptxas, PtxasVersion *v)
{
	Key k;
	if (disabled() || !key_of(ptxas, &k))
		return false;
	bool hit = false;
	pthread_mutex_lock(&mem_lock);
	for (int i = 0; i < MEM_SLOTS && !hit; i++)
		if (mem[i].used && same(&mem[i].key, &k)) {
			*v = mem[i].v;
			hit = true;
		}
	pthread_mutex_unlock(&mem_lock);
	if (hit)
		return true;
	StrBuf file = { 0 };
	char *text = disk_path(&file) ? read_disk(file.s) : NULL;
	sb_free(&file);
	for (char *line = text; line && *line && !hit;) {
		char *nl = strchr(line, '\n');
		if (nl)
			*nl = 0;
		Key lk;
		PtxasVersion lv;
		const char *lpath;
		if (parse_line(line, &lk, &lv, &lpath) && same(&lk, &k) && strcmp(lpath, ptxas) == 0) {
			*v = lv;
			hit = true;
		}
		line = nl ? nl + 1 : NULL;
	}
	free(text);
	return hit;
}

static void remember_in_memory(const Key *k, const PtxasVersion *v)
{
	pthread_mutex_lock(&mem_lock);
	mem[mem_next] = (Slot){ true, *k, *v };
	mem_next = (mem_next + 1) % MEM_SLOTS;
	pthread_mutex_unlock(&mem_lock);
}

/* Rewrite the file with this entry first and the other paths' entries after
 * it (an old entry of the same path goes), through a temporary file in the
 * same directory renamed over it. */
static void remember_on_disk(const char *ptxas, const Key *k, const PtxasVersion *v)
{
	if (strchr(ptxas, '\n'))
		return;
	StrBuf file = { 0 }, body = { 0 }, tmp = { 0 };
	if (!disk_path(&file))
		goto out;
	char *slash = strrchr(file.s, '/');
	*slash = 0;
	/* the directory (and ~/.cache) may not exist yet */
	char *p = file.s + 1;
	while ((p = strchr(p, '/'))) {
		*p = 0;
		if (mkdir(file.s, 0700) != 0 && errno != EEXIST)
			goto out;
		*p++ = '/';
	}
	if (mkdir(file.s, 0700) != 0 && errno != EEXIST)
		goto out;
	*slash = '/';
	sb_printf(&body, "%llu %llu %llu %llu %llu %llu %llu %d %d %d %d %s\n", k->dev, k->ino, k->size,
		  k->mtime_s, k->mtime_ns, k->ctime_s, k->ctime_ns, v->known ? 1 : 0, v->major, v->minor,
		  v->patch, ptxas);
	char *text = read_disk(file.s);
	int kept = 0;
	for (char *line = text; line && *line && kept < 63;) {
		char *nl = strchr(line, '\n');
		if (nl)
			*nl = 0;
		Key lk;
		PtxasVersion lv;
		const char *lpath;
		if (parse_line(line, &lk, &lv, &lpath) && strcmp(lpath, ptxas) != 0) {
			sb_printf(&body, "%s\n", line);
			kept++;
		}
		line = nl ? nl + 1 : NULL;
	}
	free(text);
	sb_printf(&tmp, "%s.XXXXXX", file.s);
	int fd = mkstemp(tmp.s);
	if (fd < 0)
		goto out;
	bool ok = write(fd, body.s, body.len) == (ssize_t)body.len;
	ok = close(fd) == 0 && ok;
	if (!ok || rename(tmp.s, file.s) != 0)
		unlink(tmp.s);
out:
	sb_free(&file);
	sb_free(&body);
	sb_free(&tmp);
}

void ptxas_vcache_put(const char *ptxas, const PtxasVersion *v)
{
	Key k;
	if (disabled() || !key_of(ptxas, &k))
		return;
	remember_in_memory(&k, v);
	remember_on_disk(ptxas, &k, v);
}
