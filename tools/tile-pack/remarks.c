/* remarks.c: per-kernel resource facts from `ptxas -v`, written as remarks.
 *
 * ptxas -v prints, per entry function:
 *   ptxas info    : Compiling entry function 'k' for 'sm_90a'
 *   ptxas info    : Function properties for k
 *       64 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
 *   ptxas info    : Used 9 registers, used 1 barriers, 1024 bytes smem, 376 bytes cmem[0]
 * Device functions get "Function properties" lines too; only entries count.
 * The YAML is LLVM's optimization-remark format (what NVIDIA tileiras writes
 * for --remark-format=yaml), one !Analysis document per kernel. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pack.h"
#include "xalloc.h"

static const char info[] = "ptxas info    : ";

static KernelUsage *find(KernelUsage *k, int n, const char *name, size_t len)
{
	for (int i = 0; i < n; i++)
		if (strlen(k[i].name) == len && memcmp(k[i].name, name, len) == 0)
			return &k[i];
	return NULL;
}

/* "N bytes what" / "Used N registers" items of a comma-separated list */
static void usage_items(KernelUsage *k, const char *s, const char *eol)
{
	while (s < eol) {
		const char *e = memchr(s, ',', (size_t)(eol - s));
		if (!e)
			e = eol;
		char item[128];
		size_t n = (size_t)(e - s);
		if (n >= sizeof item)
			n = sizeof item - 1;
		memcpy(item, s, n);
		item[n] = 0;
		long v;
		char what[96];
		const char *p = item;
		while (*p == ' ')
			p++;
		if (strncmp(p, "Used ", 5) == 0 || strncmp(p, "used ", 5) == 0)
			p += 5;
		if (sscanf(p, "%ld %95[^\n]", &v, what) == 2) {
			if (strcmp(what, "registers") == 0)
				k->registers = v;
			else if (strcmp(what, "barriers") == 0)
				k->barriers = v;
			else if (strcmp(what, "bytes smem") == 0)
				k->smem = v;
			else if (strcmp(what, "bytes cmem[0]") == 0)
				k->cmem0 = v;
			else if (strcmp(what, "bytes stack frame") == 0)
				k->stack = v;
			else if (strcmp(what, "bytes spill stores") == 0)
				k->spill_stores = v;
			else if (strcmp(what, "bytes spill loads") == 0)
				k->spill_loads = v;
		}
		s = e + 1;
	}
}

int parse_ptxas_usage(const char *log, KernelUsage **out)
{
	KernelUsage *k = NULL;
	int n = 0;
	KernelUsage *cur = NULL, *props = NULL;
	for (const char *s = log; s && *s;) {
		const char *eol = strchr(s, '\n');
		if (!eol)
			eol = s + strlen(s);
		size_t il = sizeof info - 1;
		if ((size_t)(eol - s) > il && memcmp(s, info, il) == 0) {
			const char *p = s + il;
			static const char ce[] = "Compiling entry function '", fp[] = "Function properties for ";
			if (strncmp(p, ce, sizeof ce - 1) == 0) {
				p += sizeof ce - 1;
				const char *q = memchr(p, '\'', (size_t)(eol - p));
				if (q) {
					k = xrealloc(k, sizeof *k * (size_t)(n + 1));
					cur = &k[n++];
					*cur = (KernelUsage){ .name = xstrndup(p, (size_t)(q - p)), .registers = -1,
							      .barriers = -1, .stack = -1, .spill_stores = -1,
							      .spill_loads = -1, .smem = 0, .cmem0 = -1 };
					const char *a = strstr(q, "for '");
					if (a && a < eol) {
						a += 5;
						const char *b = memchr(a, '\'', (size_t)(eol - a));
						if (b && (size_t)(b - a) < sizeof cur->arch)
							memcpy(cur->arch, a, (size_t)(b - a));
					}
					props = NULL;
				}
			} else if (strncmp(p, fp, sizeof fp - 1) == 0) {
				p += sizeof fp - 1;
				props = find(k, n, p, (size_t)(eol - p));
			} else if (strncmp(p, "Used ", 5) == 0 && cur) {
				usage_items(cur, p, eol);
			}
		} else if (strncmp(s, "    ", 4) == 0 && props) {
			usage_items(props, s, eol);
			props = NULL;
		}
		s = *eol ? eol + 1 : eol;
	}
	*out = k;
	return n;
}

void free_usage(KernelUsage *k, int n)
{
	for (int i = 0; i < n; i++)
		free(k[i].name);
	free(k);
}

static void yaml_str(StrBuf *b, const char *s)
{
	sb_putc(b, '\'');
	for (; *s; s++) {
		if (*s == '\'')
			sb_putc(b, '\'');
		sb_putc(b, *s);
	}
	sb_putc(b, '\'');
}

static const struct { const char *key, *note; size_t off; } fields[] = {
	{ "Registers", "registers per thread", offsetof(KernelUsage, registers) },
	{ "Barriers", "named barriers", offsetof(KernelUsage, barriers) },
	{ "StackFrame", "bytes of stack frame", offsetof(KernelUsage, stack) },
	{ "SpillStores", "bytes of spill stores", offsetof(KernelUsage, spill_stores) },
	{ "SpillLoads", "bytes of spill loads", offsetof(KernelUsage, spill_loads) },
	{ "SharedMemory", "bytes of static shared memory", offsetof(KernelUsage, smem) },
	{ "ConstantMemory", "bytes of parameter constant bank (cmem[0])", offsetof(KernelUsage, cmem0) },
};

void write_remarks(StrBuf *b, const KernelUsage *k, int n, const char *format, const char *ptx, size_t ptx_len)
{
	bool yaml = !format || strcmp(format, "yaml") == 0;
	for (int i = 0; i < n; i++) {
		if (yaml) {
			sb_puts(b, "--- !Analysis\nPass:            ptxas\nName:            KernelResources\n"
				   "Function:        ");
			yaml_str(b, k[i].name);
			sb_puts(b, "\nArgs:\n  - Remark:          'Kernel resource usage reported by ptxas'\n");
			sb_printf(b, "  - Target:          %s\n", k[i].arch[0] ? k[i].arch : "unknown");
		} else {
			sb_printf(b, "in function: %s:\n\n  category: Resources\n"
				     "    remark[analysis]: Kernel resource usage reported by ptxas\n"
				     "       |\n       = name: KernelResources\n       = note: Target = %s\n",
				  k[i].name, k[i].arch[0] ? k[i].arch : "unknown");
		}
		for (size_t f = 0; f < sizeof fields / sizeof fields[0]; f++) {
			long v = *(const long *)((const char *)&k[i] + fields[f].off);
			if (v < 0)
				continue;
			if (yaml)
				sb_printf(b, "  - %s:%*s%ld\n", fields[f].key, (int)(16 - strlen(fields[f].key)), "", v);
			else
				sb_printf(b, "       = note: %s = %ld\n", fields[f].key, v);
		}
		Occupancy oc;
		if (ptx && kernel_occupancy(&k[i], ptx_cta_threads(ptx, ptx_len, k[i].name), &oc) == 0) {
			if (yaml)
				sb_printf(b, "  - CTAThreads:      %ld\n  - CTAsPerSM:       %ld\n"
					     "  - Occupancy:       '%d%%'\n  - OccupancyLimit:  '%s'\n",
					  oc.threads, oc.ctas_per_sm, oc.percent, oc.limiter);
			else
				sb_printf(b, "       = note: CTAThreads = %ld\n       = note: CTAsPerSM = %ld\n"
					     "       = note: Occupancy = %d%%\n       = note: OccupancyLimit = %s\n",
					  oc.threads, oc.ctas_per_sm, oc.percent, oc.limiter);
		}
		sb_puts(b, yaml ? "...\n" : "\n\n");
	}
}

void write_language_remark(StrBuf *b, const char *why, const char *format)
{
	if (!format || strcmp(format, "yaml") == 0) {
		sb_puts(b, "--- !Missed\nPass:            tile-pack\nName:            TileIRLanguage\n"
			   "Args:\n  - Remark:          ");
		yaml_str(b, why);
		sb_puts(b, "\n...\n");
	} else {
		sb_printf(b, "category: Launch\n    remark[missed]: %s\n       |\n       = name: TileIRLanguage\n\n\n",
			  why);
	}
}
