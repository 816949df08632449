/* tool.c: the filter skeleton (see tool.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "tool.h"
#include "diag.h"
#include "json_ir.h"
#include "knobs.h"
#include "print.h"
#include "target.h"
#include "xalloc.h"

uint8_t *read_whole_file(const char *path, size_t *len)
{
	bool is_stdin = !path || strcmp(path, "-") == 0;
	FILE *f = is_stdin ? stdin : fopen(path, "rb");
	if (!f) {
		diag_plain("cannot open '%s': %s", path, strerror(errno));
		return NULL;
	}
	if (!is_stdin) {
		struct stat st;
		if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
			diag_plain("cannot read '%s': it is a directory", path);
			fclose(f);
			return NULL;
		}
	}
	size_t cap = 65536, n = 0;
	uint8_t *buf = xmalloc(cap + 1);
	for (;;) {
		if (n == cap) {
			cap *= 2;
			uint8_t *p = xrealloc(buf, cap + 1);
			buf = p;
		}
		size_t got = fread(buf + n, 1, cap - n, f);
		n += got;
		if (got == 0)
			break;
	}
	bool err = ferror(f);
	if (!is_stdin)
		fclose(f);
	if (err) {
		diag_plain("cannot read '%s': %s", is_stdin ? "<stdin>" : path, strerror(errno));
		free(buf);
		return NULL;
	}
	buf[n] = 0;   /* so JSON/text readers may treat it as a string */
	*len = n;
	return buf;
}

static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	while (len) {
		ssize_t n = write(fd, p, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int write_output_atomic(const char *path, const void *buf, size_t len)
{
	if (!path || strcmp(path, "-") == 0) {
		if (write_all(1, buf, len) < 0) {
			diag_plain("cannot write the output: %s", strerror(errno));
			return -1;
		}
		return 0;
	}
	/* Anything but a plain regular file (a device, a FIFO, a symbolic link
	 * such as /dev/stdout) is written in place, through the link: renaming
	 * over it would replace the device or the link itself. */
	struct stat st, lst;
	if (lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode)) {
		/* a link to a regular file (not a /proc or /dev stream): replace
		 * the file it points to, atomically, and keep the link */
		char target[4096];
		ssize_t tn = readlink(path, target, sizeof target - 1);
		char *real = realpath(path, NULL);
		bool stream = tn <= 0 || strncmp(path, "/dev/", 5) == 0 ||
			      (tn >= 6 && strncmp(target, "/proc/", 6) == 0);
		if (real && !stream && stat(real, &st) == 0 && S_ISREG(st.st_mode)) {
			int rc = write_output_atomic(real, buf, len);
			free(real);
			return rc;
		}
		free(real);
	}
	if (lstat(path, &lst) == 0 && (!S_ISREG(lst.st_mode) ||
				       (stat(path, &st) == 0 && !S_ISREG(st.st_mode)))) {
		if (stat(path, &st) != 0) {
			diag_plain("cannot write '%s': %s", path, strerror(errno));
			return -1;
		}
		if (S_ISDIR(st.st_mode)) {
			diag_plain("cannot write '%s': it is a directory", path);
			return -1;
		}
		int fd = open(path, O_WRONLY | O_TRUNC);
		if (fd < 0 || write_all(fd, buf, len) < 0 || close(fd) < 0) {
			diag_plain("cannot write '%s': %s", path, strerror(errno));
			return -1;
		}
		return 0;
	}
	size_t n = strlen(path);
	char *tmp = xmalloc(n + 16);
	snprintf(tmp, n + 16, "%s.tmp.XXXXXX", path);
	int fd = mkstemp(tmp);
	if (fd < 0) {
		diag_plain("cannot write '%s': %s", path, strerror(errno));
		free(tmp);
		return -1;
	}
	/* mkstemp makes 0600 files; give the output the usual umask-derived mode */
	mode_t um = umask(0);
	umask(um);
	fchmod(fd, 0666 & ~um);
	if (write_all(fd, buf, len) < 0 || close(fd) < 0) {
		diag_plain("cannot write '%s': %s", path, strerror(errno));
		unlink(tmp);
		free(tmp);
		return -1;
	}
	if (rename(tmp, path) < 0) {
		diag_plain("cannot write '%s': %s", path, strerror(errno));
		unlink(tmp);
		free(tmp);
		return -1;
	}
	free(tmp);
	return 0;
}

int tool_target_option(const char *name, const char *value, bool *takes_value,
		       const char **gpu, int *opt)
{
	bool is_gpu = strcmp(name, "--gpu-name") == 0 || strcmp(name, "--arch") == 0;
	bool is_opt = strcmp(name, "--opt-level") == 0 || strcmp(name, "-O") == 0;
	if (!is_gpu && !is_opt && strncmp(name, "-O", 2) == 0 && name[2] && !value) {
		value = name + 2;           /* -O3 */
		is_opt = true;
	}
	if (!is_gpu && !is_opt)
		return 0;
	if (!value) {
		*takes_value = true;
		return 0;
	}
	if (is_gpu) {
		if (!target_by_name(value)) {
			diag_plain("unsupported GPU '%s' (supported: %s)", value, target_list());
			return -1;
		}
		*gpu = value;
		return 1;
	}
	if (!(value[0] >= '0' && value[0] <= '3' && !value[1])) {
		diag_plain("invalid optimization level '%s' (0 to 3)", value);
		return -1;
	}
	*opt = value[0] - '0';
	return 1;
}

const Target *tool_pick_target(Module *m, const char *gpu)
{
	const char *name = gpu;
	const Attr *a = module_attr(m, "target");
	const char *have = a && a->kind == AT_STRING ? a->u.s : NULL;
	/* lowered IR was lowered for its target: a stage flag cannot change it */
	if (gpu && have && strcmp(m->stage, "cuda_tile") != 0 && strcmp(gpu, have) != 0) {
		const Target *h = target_by_name(have), *g = target_by_name(gpu);
		if (!h || !g || h != g) {
			diag_plain("--gpu-name %s disagrees with the target the module was lowered for, %s "
				   "(the target is chosen where cuda_tile is lowered: give --gpu-name %s there)", gpu, have, gpu);
			return NULL;
		}
	}
	if (!name && have)
		name = have;
	if (!name) {
		diag_plain("no GPU to compile for: give --gpu-name (%s); the module names no target", target_list());
		return NULL;
	}
	const Target *t = target_by_name(name);
	if (!t) {
		diag_plain("unsupported GPU '%s' in the module's target attribute (supported: %s)",
			   name, target_list());
		return NULL;
	}
	module_set_attr(m, "target", attr_string(m, t->name));
	return t;
}

static void usage(const Tool *t, FILE *f)
{
	fprintf(f, "usage: %s [options] [INPUT|-] [-o OUTPUT]\n%s\n\n", t->name, t->summary);
	fprintf(f, "options:\n");
	fprintf(f, "  -o FILE            write the output to FILE (default: standard output);\n"
		   "                     written only on success, never partially\n");
	fprintf(f, "  --emit=FORMAT      output format: ");
	for (const char *const *e = t->emits; *e; e++)
		fprintf(f, "%s%s", e == t->emits ? "" : ", ", *e);
	fprintf(f, " (default %s)\n", t->default_emit);
	fprintf(f, "  --input-name=NAME  name the input NAME in messages (for a pipe: the\n"
		   "                     file the pipeline started from)\n");
	if (t->options_help)
		fputs(t->options_help, f);
	fprintf(f, "  -h, --help         show this help\n"
		   "  --version          show the version\n\n"
		   "exit status: 0 success, 1 bad input or I/O error, 2 bad usage,\n"
		   "134 internal error (a compiler bug)\n");
}

static int usage_error(const Tool *t, const char *fmt, const char *arg)
{
	fprintf(stderr, "%s: error: ", t->name);
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n(run '%s --help' for usage)\n", t->name);
	return EXIT_USAGE;
}

static int tool_run(int argc, char **argv, const Tool *t)
{
	ToolRun r = { .emit = t->default_emit };
	const char *input = NULL, *input_name = NULL;
	diag_tool = t->name;
	diag_user = knobs()->TILEIRAS_USER_DIAG;
	bool no_more_options = false;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (no_more_options || a[0] != '-' || strcmp(a, "-") == 0) {
			if (input)
				return usage_error(t, "more than one input file ('%s')", a);
			input = a;
			continue;
		}
		if (strcmp(a, "--") == 0) {
			no_more_options = true;
			continue;
		}
		if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			usage(t, stdout);
			return EXIT_OK;
		}
		if (strcmp(a, "--version") == 0) {
			printf("%s (open tileiras) %s\n", t->name, TOOL_VERSION);
			return EXIT_OK;
		}
		if (strcmp(a, "-o") == 0 || strncmp(a, "--output=", 9) == 0) {
			if (a[1] == 'o' && i + 1 >= argc)
				return usage_error(t, "option '%s' needs a file name", a);
			r.output_name = a[1] == 'o' ? argv[++i] : a + 9;
			continue;
		}
		if (strncmp(a, "--input-name=", 13) == 0) {
			input_name = a + 13;
			continue;
		}
		if (strncmp(a, "--emit=", 7) == 0) {
			bool ok = false;
			for (const char *const *e = t->emits; *e; e++)
				ok |= strcmp(*e, a + 7) == 0;
			if (!ok)
				return usage_error(t, "unknown output format in '%s'", a);
			r.emit = a + 7;
			continue;
		}
		/* the tool's own options: --name=value, --name value, -x value */
		char name[128];
		const char *eq = strchr(a, '=');
		const char *value = NULL;
		if (eq && a[1] == '-') {
			size_t n = (size_t)(eq - a);
			if (n >= sizeof name)
				return usage_error(t, "unknown option '%s'", a);
			memcpy(name, a, n);
			name[n] = 0;
			value = eq + 1;
		} else {
			snprintf(name, sizeof name, "%s", a);
		}
		bool takes_value = false;
		int used = t->option ? t->option(&r, name, value, &takes_value) : 0;
		if (used == 0 && takes_value && !value) {
			if (i + 1 >= argc)
				return usage_error(t, "option '%s' needs a value", name);
			used = t->option(&r, name, argv[++i], &takes_value);
		}
		if (used == 0)
			return usage_error(t, "unknown option '%s'", a);
		if (used < 0)
			return EXIT_USAGE;
	}
	if (!input)
		input = "-";
	diag_input = input_name ? input_name : strcmp(input, "-") == 0 ? "<stdin>" : input;
	r.input_name = input;
	uint8_t *buf = read_whole_file(input, &r.input_len);
	if (!buf)
		return EXIT_INPUT;
	r.input = buf;
	int rc = EXIT_OK;
	if (t->in_stages) {
		r.in = json_ir_read((const char *)buf, r.input_len, t->in_stages);
		if (!r.in) {
			free(buf);
			return EXIT_INPUT;
		}
	}
	rc = t->run(&r);
	if (rc == EXIT_OK) {
		if (r.out_is_bytes) {
			if (write_output_atomic(r.output_name, r.bytes.s ? r.bytes.s : "", r.bytes.len) < 0)
				rc = EXIT_INPUT;
		} else if (r.out) {
			size_t len;
			char *text;
			StrBuf sb = {0};
			if (strcmp(r.emit, "text") == 0) {
				print_module(&sb, r.out);
				text = sb.s;
				len = sb.len;
			} else {
				text = json_ir_write(r.out, &len);
			}
			if (write_output_atomic(r.output_name, text, len) < 0)
				rc = EXIT_INPUT;
			free(text);
		} else {
			ice("%s produced no output", t->name);
		}
	} else if (diag_errors == 0) {
		ice("%s failed without saying why", t->name);
	}
	if (r.out && r.out != r.in)
		module_free(r.out);
	module_free(r.in);
	sb_free(&r.bytes);
	free(buf);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		diag_plain("cannot write the output");
		return EXIT_INPUT;
	}
	return rc;
}

int tool_main(int argc, char **argv, const Tool *t)
{
	Knobs k;                   /* the switches, read once for every pass of the run */
	knobs_read(&k);
	const Knobs *was = knobs_use(&k);
	int rc = tool_run(argc, argv, t);
	knobs_use(was);
	return rc;
}
