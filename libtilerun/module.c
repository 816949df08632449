/* module.c: a module's load and what the caller learns of it (tilerun.h):
 * tilerunModuleLoad (PTX text through tile-run's lexer and parser, and
 * tile-ptx's tensor-map notes), the kernels (.entry) and their parameter
 * blocks as the driver lays them out. A module is read-only once loaded:
 * any number of launches may use it at once. */
#include <stdlib.h>
#include <string.h>
#include "internal.h"

int tilerun_load(TilerunModule **out, const char *ptx, size_t len, const char *name)
{
	if (!name)
		name = "<ptx>";
	if (memchr(ptx, 0, len)) {
		diag_plain("%s: not PTX text (NUL bytes)", name);
		return RUN_INPUT;
	}
	char *text = xmalloc(len + 1);
	memcpy(text, ptx, len);
	text[len] = 0;
	Module *m = ptx_parse(name, text, len);
	TmapNote *notes = NULL;
	int nnotes = 0, bad;
	const char *why;
	if (m && !tmap_notes_of(text, len, &notes, &nnotes, &bad, &why)) {
		diag_plain("%s:%d: malformed tensor-map note: %s", name, bad, why);
		ptx_module_free(m);
		m = NULL;
	}
	if (!m) {
		free(text);
		return RUN_INPUT;
	}
	TilerunModule *tm = xcalloc(1, sizeof *tm);
	tm->m = m;
	tm->text = text;
	tm->len = len;
	tm->notes = notes;
	tm->nnotes = nnotes;
	tm->name = xstrdup(name);
	*out = tm;
	return RUN_OK;
}

int tilerunModuleLoad(TilerunModule **out, const char *ptx, size_t len, const char *name, TilerunError *err)
{
	if (!out || (!ptx && len))
		return call_error(err, TILERUN_ERROR_USAGE, "tilerunModuleLoad: NULL module pointer or PTX text");
	*out = NULL;
	Call c;
	call_begin(&c, false);
	int rc = tilerun_load(out, ptx ? ptx : "", len, name);
	return call_end(&c, rc, err);
}

/* the index-th defined .entry, or NULL */
static const Func *entry_at(const TilerunModule *m, int index)
{
	for (int k = 0; m && k < m->m->nfuncs; k++) {
		const Func *f = &m->m->funcs[k];
		if (f->entry && f->defined && index-- == 0)
			return f;
	}
	return NULL;
}

const char *tilerunModuleEntry(const TilerunModule *m, int index)
{
	const Func *f = index >= 0 ? entry_at(m, index) : NULL;
	return f ? f->name : NULL;
}

/* the kernel named entry (NULL: the only one), or NULL */
static const Func *entry_named(const TilerunModule *m, const char *entry)
{
	if (!m)
		return NULL;
	if (!entry)
		return entry_at(m, 1) ? NULL : entry_at(m, 0);
	const Func *f;
	for (int k = 0; (f = entry_at(m, k)); k++)
		if (strcmp(f->name, entry) == 0)
			return f;
	return NULL;
}

int tilerunEntryParams(const TilerunModule *m, const char *entry, size_t *sizes, size_t *offsets, int cap)
{
	const Func *f = entry_named(m, entry);
	if (!f)
		return -1;
	for (int k = 0; k < f->nparams && k < cap; k++) {
		if (sizes)
			sizes[k] = f->params[k].size;
		if (offsets)
			offsets[k] = f->params[k].offset;
	}
	return f->nparams;
}

size_t tilerunEntryParamSize(const TilerunModule *m, const char *entry)
{
	const Func *f = entry_named(m, entry);
	size_t end = 0;
	for (int k = 0; f && k < f->nparams; k++)
		if ((size_t)f->params[k].offset + f->params[k].size > end)
			end = (size_t)f->params[k].offset + f->params[k].size;
	return end;
}

void tilerunModuleRelease(TilerunModule *m)
{
	if (!m)
		return;
	ptx_module_free(m->m);
	free(m->text);
	free(m->notes);
	free(m->name);
	free(m);
}
