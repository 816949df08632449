/* knobs.c: the switches read from the environment (knobs.h). */
#include <stdlib.h>
#include <string.h>
#include "knobs.h"

static const Knobs defaults = {
#define KNOB(name, type, def, read_by, doc) .name = def,
#include "knobs.def"
#undef KNOB
};

static _Thread_local const Knobs *current;

static bool read_bool(const char *v, bool def)
{
	return v ? *v && strcmp(v, "0") != 0 : def;
}

static int read_int(const char *v, int def)
{
	return v ? atoi(v) : def;
}

static const char *read_string(const char *v, const char *def)
{
	return v ? v : def;
}

void knobs_read(Knobs *k)
{
#define KNOB(name, type, def, read_by, doc) k->name = read_##type(getenv(#name), def);
#include "knobs.def"
#undef KNOB
}

const Knobs *knobs_use(const Knobs *k)
{
	const Knobs *was = current;
	current = k;
	return was;
}

const Knobs *knobs(void)
{
	return current ? current : &defaults;
}
