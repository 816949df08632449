/* enums.c: the tables of versions.def and enums.def (enums.h). */
#include <stdio.h>
#include <string.h>
#include "enums.h"

/* ------------------------------------------------------------ versions */
static const struct { int num; const char *name; } versions[] = {
#define VERSION(num, spelling) { num, spelling },
#include "versions.def"
#undef VERSION
};
#define NVERSIONS ((int)(sizeof versions / sizeof versions[0]))

/* built with a leading ", " that the functions skip */
static const char list[] = ""
#define VERSION(num, spelling) ", " spelling
#include "versions.def"
#undef VERSION
	;
static const char list_quoted[] = ""
#define VERSION(num, spelling) ", \"" spelling "\""
#include "versions.def"
#undef VERSION
	;

int bytecode_latest(void) { return versions[NVERSIONS - 1].num; }
const char *bytecode_version_list(void) { return list + 2; }
const char *bytecode_version_list_quoted(void) { return list_quoted + 2; }

bool bytecode_version_known(int version)
{
	return strcmp(bytecode_version_name(version), "?") != 0;
}

const char *bytecode_version_name(int version)
{
	for (int i = 0; i < NVERSIONS; i++)
		if (versions[i].num == version)
			return versions[i].name;
	return "?";
}

int bytecode_version_parse(const char *s)
{
	for (int i = 0; i < NVERSIONS; i++)
		if (strcmp(versions[i].name, s) == 0)
			return versions[i].num;
	return -1;
}

/* ------------------------------------------------------------ enum attributes */
static const char *const kind_what[EK_COUNT] = {
#define ENUM(kind, what) [EK_##kind] = what,
#define VAL(kind, spelling, value, since)
#include "enums.def"
#undef ENUM
#undef VAL
};

const EnumVal enum_values[] = {
#define ENUM(kind, what)
#define VAL(kind, spelling, value, since) { EK_##kind, value, #spelling, since },
#include "enums.def"
#undef ENUM
#undef VAL
};
const int enum_value_count = (int)(sizeof enum_values / sizeof enum_values[0]);

const char *enum_kind_what(EnumKind k)
{
	return (unsigned)k < EK_COUNT ? kind_what[k] : "?";
}

const char *enum_spelling(EnumKind k, uint64_t v, int version)
{
	for (int i = 0; i < enum_value_count; i++) {
		const EnumVal *e = &enum_values[i];
		if (e->kind == k && (uint64_t)e->value == v)
			return version && e->since > version ? NULL : e->spelling;
	}
	return NULL;
}

const EnumVal *enum_lookup(EnumKind k, const char *spelling)
{
	for (int i = 0; i < enum_value_count; i++)
		if (enum_values[i].kind == k && strcmp(enum_values[i].spelling, spelling) == 0)
			return &enum_values[i];
	return NULL;
}

const char *enum_list(EnumKind k, char *buf, size_t n)
{
	size_t len = 0;
	buf[0] = 0;
	for (int i = 0; i < enum_value_count && len < n; i++) {
		if (enum_values[i].kind != k)
			continue;
		int w = snprintf(buf + len, n - len, "%s%s", len ? ", " : "", enum_values[i].spelling);
		if (w < 0)
			break;
		len += (size_t)w;
	}
	return buf;
}

const char *enums_check(char *buf, size_t n)
{
	for (int k = 0; k < EK_COUNT; k++) {
		int next = 0;
		for (int i = 0; i < enum_value_count; i++) {
			const EnumVal *e = &enum_values[i];
			if (e->kind != (EnumKind)k)
				continue;
			if (e->value != next++) {
				snprintf(buf, n, "enums.def: %s '%s' has value %d, expected %d (values are "
					 "dense and in order)", kind_what[k], e->spelling, e->value, next - 1);
				return buf;
			}
			if (!bytecode_version_known(e->since)) {
				snprintf(buf, n, "enums.def: %s '%s': %d is not a bytecode version",
					 kind_what[k], e->spelling, e->since);
				return buf;
			}
			if (enum_lookup((EnumKind)k, e->spelling) != e) {
				snprintf(buf, n, "enums.def: %s '%s' is listed twice", kind_what[k], e->spelling);
				return buf;
			}
		}
		if (!next) {
			snprintf(buf, n, "enums.def: %s has no values", kind_what[k]);
			return buf;
		}
	}
	for (int i = 1; i < NVERSIONS; i++)
		if (versions[i].num <= versions[i - 1].num) {
			snprintf(buf, n, "versions.def: %s is not newer than %s", versions[i].name,
				 versions[i - 1].name);
			return buf;
		}
	return NULL;
}
