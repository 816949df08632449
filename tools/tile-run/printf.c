/* printf.c: device vprintf(format, args). The argument buffer holds each
 * argument at its natural alignment: 4-byte ints (8 with l/ll), 8-byte
 * doubles (floats are promoted), 8-byte pointers for %s/%p. Output goes to
 * the launch's stream (Run.out: stdout for the command) through the host's
 * printf with the same conversion, as the device runtime prints it. */
#include <stdio.h>
#include <string.h>
#include "exec.h"

static bool arg_bytes(Thread *t, const Insn *in, uint64_t *cursor, uint32_t size, uint64_t *out)
{
	uint64_t a = (*cursor + size - 1) / size * size;
	uint8_t *p = mem_at(t, in, SP_GENERIC, a, size, ACC_READ);
	if (!p)
		return false;
	*out = 0;
	memcpy(out, p, size);
	*cursor = a + size;
	return true;
}

int device_printf(Thread *t, const Insn *in, uint64_t fmt, uint64_t args)
{
	char f[4096];
	size_t n = 0;
	for (;;) {
		uint8_t *p = mem_at(t, in, SP_GENERIC, fmt + n, 1, ACC_READ);
		if (!p)
			return -1;
		if (n + 1 >= sizeof f) {
			fault(t, in, "vprintf: format string too long");
			return -1;
		}
		f[n] = (char)*p;
		if (!*p)
			break;
		n++;
	}
	uint64_t cur = args;
	int total = 0;
	FILE *out = t->run->out;
	for (size_t i = 0; i < n; i++) {
		if (f[i] != '%') {
			fputc(f[i], out);
			total++;
			continue;
		}
		if (f[i + 1] == '%') {
			fputc('%', out);
			total++;
			i++;
			continue;
		}
		char spec[64];
		size_t s = 0;
		spec[s++] = '%';
		size_t j = i + 1;
		while (j < n && strchr("-+ #0", f[j]) && s < 40)
			spec[s++] = f[j++];
		while (j < n && ((f[j] >= '0' && f[j] <= '9') || f[j] == '.') && s < 40)
			spec[s++] = f[j++];
		int longs = 0;
		while (j < n && strchr("hlLzjt", f[j])) {
			if (f[j] == 'l' || f[j] == 'z' || f[j] == 'j' || f[j] == 't' || f[j] == 'L')
				longs++;
			j++;
		}
		if (j >= n) {
			fputs(spec, out);
			break;
		}
		char conv = f[j];
		uint64_t v;
		switch (conv) {
		case 'd': case 'i': case 'u': case 'x': case 'X': case 'o': case 'c':
			if (!arg_bytes(t, in, &cur, longs ? 8 : 4, &v))
				return -1;
			spec[s++] = 'l';
			spec[s++] = 'l';
			spec[s++] = conv;
			spec[s] = 0;
			if (conv == 'c')
				total += fprintf(out, "%c", (int)(uint8_t)v);
			else if (conv == 'd' || conv == 'i')
				total += fprintf(out, spec, longs ? (long long)v : (long long)(int32_t)(uint32_t)v);
			else
				total += fprintf(out, spec, longs ? (unsigned long long)v : (unsigned long long)(uint32_t)v);
			break;
		case 'f': case 'F': case 'e': case 'E': case 'g': case 'G': case 'a': case 'A':
			if (!arg_bytes(t, in, &cur, 8, &v))
				return -1;
			spec[s++] = conv;
			spec[s] = 0;
			total += fprintf(out, spec, u2d(v));
			break;
		case 's': {
			if (!arg_bytes(t, in, &cur, 8, &v))
				return -1;
			char str[1024];
			size_t k = 0;
			for (; k + 1 < sizeof str; k++) {
				uint8_t *p = mem_at(t, in, SP_GENERIC, v + k, 1, ACC_READ);
				if (!p)
					return -1;
				str[k] = (char)*p;
				if (!*p)
					break;
			}
			str[k] = 0;
			spec[s++] = 's';
			spec[s] = 0;
			total += fprintf(out, spec, str);
			break;
		}
		case 'p':
			if (!arg_bytes(t, in, &cur, 8, &v))
				return -1;
			total += fprintf(out, "0x%llx", (unsigned long long)v);
			break;
		default:
			spec[s++] = conv;
			spec[s] = 0;
			fputs(spec, out);
			break;
		}
		i = j;
	}
	return total;
}
