/* tmpdir.c: the directories ptxas's files live in while a compile runs.
 *
 * Each compile makes DIR/tile-pack.<pid>.XXXXXX and removes it when done,
 * where DIR is $TMPDIR (else /tmp) /tileiras-<uid>, a directory of this
 * user's alone (created 0700; one that is not a directory owned by us with
 * no access for others is not used: then straight under $TMPDIR). A compile
 * that is killed cannot clean up (a front end's timeout sends SIGKILL; ^C
 * during an autotuning run), so each new directory is made after a sweep of
 * DIR: a tile-pack.<pid>.* whose process is gone and that nothing touched
 * for an hour is removed (an hour: a process in another pid namespace that
 * shares /tmp looks gone, and no compile of ours runs that long without
 * writing to its directory). The sweep reads only DIR, a few entries. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "pack.h"
#include "diag.h"
#include "strbuf.h"
#include "toolkit.h"

enum { STALE_SECONDS = 3600 };

/* DIR for base: base/tileiras-<uid> when it is (or now is) ours alone, else base */
static char *our_dir(const char *base)
{
	StrBuf p = {0};
	sb_printf(&p, "%s/tileiras-%u", base, (unsigned)getuid());
	struct stat st;
	if ((mkdir(p.s, 0700) == 0 || errno == EEXIST) && lstat(p.s, &st) == 0 && S_ISDIR(st.st_mode) &&
	    st.st_uid == getuid() && (st.st_mode & 077) == 0)
		return p.s;
	sb_free(&p);
	return NULL;
}

static void remove_files_and_dir(const char *dir)
{
	DIR *d = opendir(dir);
	if (d) {
		struct dirent *e;
		StrBuf p = {0};
		while ((e = readdir(d))) {
			if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
				continue;
			p.len = 0;
			sb_printf(&p, "%s/%s", dir, e->d_name);
			unlink(p.s);
		}
		sb_free(&p);
		closedir(d);
	}
	rmdir(dir);
}

/* remove what killed compiles left in dir (see the top) */
static void sweep(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	time_t now = time(NULL);
	struct dirent *e;
	StrBuf p = {0};
	while ((e = readdir(d))) {
		char *end;
		if (strncmp(e->d_name, "tile-pack.", 10) != 0)
			continue;
		long pid = strtol(e->d_name + 10, &end, 10);
		if (end == e->d_name + 10 || *end != '.' || pid <= 0 || (pid_t)pid == getpid())
			continue;
		if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		p.len = 0;
		sb_printf(&p, "%s/%s", dir, e->d_name);
		struct stat st;
		if (lstat(p.s, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == getuid() &&
		    now - st.st_mtime > STALE_SECONDS)
			remove_files_and_dir(p.s);
	}
	sb_free(&p);
	closedir(d);
}

char *tmpdir_make(void)
{
	const char *t = toolkit_env(TK_TMPDIR);
	const char *base = t && *t ? t : "/tmp";
	char *ours = our_dir(base);
	if (ours)
		sweep(ours);
	const char *parent = ours ? ours : base;
	StrBuf p = {0};
	sb_printf(&p, "%s/tile-pack.%ld.XXXXXX", parent, (long)getpid());
	if (!mkdtemp(p.s)) {
		diag_plain("cannot create a temporary directory under %s: %s", parent, strerror(errno));
		sb_free(&p);   /* p.s NULL */
	}
	free(ours);
	return p.s;
}

void tmpdir_remove(char *dir)
{
	if (!dir)
		return;
	remove_files_and_dir(dir);
	free(dir);
}
