/* harness.c: what tileiras_cpu (python/tileiras_cpu/_driver.py) calls
 * through ctypes beside the driver API: fakecudaInit (open libtilerun),
 * fakecudaSetCheck (memcheck, racecheck or none for the next launches),
 * fakecudaTakeFault (the last launch's fault or load error, with the
 * kernel's source place) and fakecudaTakeOutput (its device printf text, or
 * its failed asserts' lines, which a GPU's driver prints to stderr).
 * fakecudaRegister / fakecudaClear are memory.c's. The fault and the
 * output belong to the thread that launched (launches are synchronous). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fakecuda.h"

static int check_mode = TILERUN_CHECK_MEMCHECK;
static _Thread_local TilerunError fault;
static _Thread_local char fault_entry[256];
static _Thread_local int has_fault;
static _Thread_local char *output[2];     /* FAKECUDA_STDOUT, FAKECUDA_STDERR */
static _Thread_local size_t output_len[2];

int fakecudaInit(const char *libtilerun, char *why, size_t whylen)
{
	return fakecuda_tilerun_open(libtilerun, why, whylen);
}

void fakecudaSetCheck(int mode)
{
	check_mode = mode;
}

int fakecuda_check_mode(void)
{
	return check_mode;
}

void fakecuda_record_fault(const TilerunError *err, const char *entry)
{
	fault = *err;
	snprintf(fault_entry, sizeof fault_entry, "%s", entry ? entry : "");
	has_fault = 1;
}

/* Copies the last fault out and forgets it: 0 when there was none. */
int fakecudaTakeFault(TilerunError *out, char *entry, size_t entrylen)
{
	if (!has_fault)
		return 0;
	*out = fault;
	snprintf(entry, entrylen, "%s", fault_entry);
	has_fault = 0;
	return 1;
}

void fakecuda_record_output(int channel, const char *text, size_t len)
{
	char *grown;
	if (!len || !(grown = realloc(output[channel], output_len[channel] + len)))
		return;
	memcpy(grown + output_len[channel], text, len);
	output[channel] = grown;
	output_len[channel] += len;
}

/* What the launches wrote to a channel since the last call: FAKECUDA_STDOUT
 * the device printf text, FAKECUDA_STDERR failed asserts' lines (malloc'd;
 * fakecudaFree it). */
char *fakecudaTakeOutput(int channel, size_t *len)
{
	if (channel != FAKECUDA_STDOUT && channel != FAKECUDA_STDERR) {
		*len = 0;
		return NULL;
	}
	char *text = output[channel];
	*len = output_len[channel];
	output[channel] = NULL;
	output_len[channel] = 0;
	return text;
}

void fakecudaFree(void *p)
{
	free(p);
}

void fakecuda_trace(const char *fmt, ...)
{
	static int on = -1;
	va_list ap;
	if (on < 0) {
		const char *v = getenv("TILEIRAS_CPU_TRACE");
		on = v && *v && strcmp(v, "0");
	}
	if (!on)
		return;
	va_start(ap, fmt);
	fputs("fakecuda: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}
