/* version.c: what compiler this is, for a client's cache of compiled kernels.
 *
 * The text `tileiras --version` ends with (its lines 3 and 4): the version
 * and build (scripts/build-id: a hash of the compiler's sources and LLVM's
 * version, which make writes into build_id.h) and the ptxas a compile would
 * run now (its path and release: the cubins depend on it). A client that
 * keeps cubins across runs keys them on this text with the bytecode and the
 * options, as cuTile Python does with `tileiras --version`. */
#include <stdio.h>
#include <stdlib.h>
#include "tileiras.h"
#include "diag.h"
#include "knobs.h"
#include "pack.h"
#include "build_id.h"

const char *tileirasGetVersion(void)
{
	static _Thread_local char text[4096 + 128];
	/* the pick's "ptxas not found" message is not this call's to print */
	DiagQuiet q;
	diag_quiet_begin(&q);
	Knobs k;                   /* TILEIRAS_PTXAS, for the pick */
	knobs_read(&k);
	const Knobs *was = knobs_use(&k);
	char *ptxas = pack_ptxas_identity(NULL);
	knobs_use(was);
	diag_quiet_end(&q);
	snprintf(text, sizeof text, "version %s, build %s\nptxas: %s", TILEIRAS_VERSION, TILEIRAS_BUILD_ID,
		 ptxas ? ptxas : "none found");
	free(ptxas);
	return text;
}
