/* fatbin.c: wrap a cubin and its PTX into a fatbin with the toolkit's
 * fatbinary (the container format is NVIDIA's; we do not write it ourselves):
 *   fatbinary --64 --create=F --image3=kind=elf,sm=90a,file=C --image3=kind=ptx,sm=90a,file=P
 * The SASS image runs on the GPU it was assembled for; the PTX image lets the
 * driver JIT for newer GPUs. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pack.h"
#include "diag.h"
#include "proc.h"

int pack_fatbin(const PackOptions *o, const PtxInput *in, const StrBuf *cubin, const char *arch,
		StrBuf *fatbin)
{
	char *tool = pack_find_tool(o->fatbinary, "fatbinary");
	if (!tool)
		return -1;
	char *dir = tmpdir_make();
	if (!dir) {
		free(tool);
		return -1;
	}
	int rc = -1;
	const char *sm = strncmp(arch, "sm_", 3) == 0 ? arch + 3 : arch;
	StrBuf c = {0}, p = {0}, f = {0}, ie = {0}, ip = {0}, cr = {0};
	sb_printf(&c, "%s/k.cubin", dir);
	sb_printf(&p, "%s/k.ptx", dir);
	sb_printf(&f, "%s/k.fatbin", dir);
	sb_printf(&ie, "--image3=kind=elf,sm=%s,file=%s", sm, c.s);
	sb_printf(&ip, "--image3=kind=ptx,sm=%s,file=%s", sm, p.s);
	sb_printf(&cr, "--create=%s", f.s);
	if (write_file(c.s, cubin->s, cubin->len) < 0 || write_file(p.s, in->text, in->len) < 0)
		goto out;
	const char *argv[8];
	int n = 0;
	argv[n++] = tool;
	argv[n++] = "--64";
	if (o->device_debug)
		argv[n++] = "-g";
	argv[n++] = cr.s;
	argv[n++] = ie.s;
	argv[n++] = ip.s;
	argv[n] = NULL;
	if (o->verbose)
		print_command(argv);
	ProcResult pr;
	int prc = proc_run((char *const *)argv, NULL, 0, 0, &pr);
	if (pr.end == PROC_NOT_STARTED) {
		diag_plain("cannot run fatbinary '%s': %s", tool, strerror(pr.code));
	} else {
		fputs(sb_cstr(&pr.out), stderr);
		fputs(sb_cstr(&pr.err), stderr);
		if (prc != 0) {
			diag_plain("fatbinary %s", proc_describe(&pr));
		} else {
			FILE *fp = fopen(f.s, "rb");
			if (!fp) {
				diag_plain("fatbinary wrote no '%s'", f.s);
			} else {
				char buf[65536];
				size_t k;
				while ((k = fread(buf, 1, sizeof buf, fp)) > 0)
					sb_putn(fatbin, buf, k);
				fclose(fp);
				rc = 0;
			}
		}
	}
	proc_result_free(&pr);
out:
	sb_free(&c);
	sb_free(&p);
	sb_free(&f);
	sb_free(&ie);
	sb_free(&ip);
	sb_free(&cr);
	tmpdir_remove(dir);
	free(tool);
	return rc;
}
