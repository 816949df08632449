# nvcapture.bash: running NVIDIA's TMA kernels on tile-run (tests/tma.bats,
# tests/fmha.bats): a copy of NVIDIA's tileiras that keeps the PTX and host
# object it hands ptxas, and tests/tma/callback.c linked with that object to
# print the tensor maps NVIDIA's host callback builds, as tile-run "tmap:"
# arguments. Needs helpers.bash loaded first (NVBIN, require_nvidia, SCRATCH, BIN).

# nvidia_tools: NVIDIA's tileiras (skip without .venv) and a C compiler (skip
# without) for the harness, and nvidia_capture's copy in $SCRATCH/tw
nvidia_tools() {
	require_nvidia
	command -v "${CC:-cc}" >/dev/null || skip "no C compiler"
	nvidia_capture "$SCRATCH/tw"
}

# nvidia_capture DIR: a private copy of NVIDIA's tileiras in DIR/bin whose ptxas keeps
# the host object and the PTX it is given as $SCRATCH/nv.o and $SCRATCH/nv.ptx
nvidia_capture() {
	local R
	R=$(dirname "$NVBIN")
	mkdir -p "$1/bin"
	cp "$NVBIN/tileiras" "$1/bin/"
	ln -s "$R/lib" "$1/lib"
	ln -s "$R/nvvm" "$1/nvvm"
	printf '#!/bin/bash\nfor a in "$@"; do case "$a" in --nv-host=*) cp "${a#--nv-host=}" %s/nv.o;; *.ptx) cp "$a" %s/nv.ptx;; esac; done\nexec %s "$@"\n' \
		"$SCRATCH" "$SCRATCH" "$NVBIN/ptxas" >"$1/bin/ptxas"
	chmod +x "$1/bin/ptxas"
}

entry_of() { sed -n 's/^\.visible \.entry \([A-Za-z0-9_]*\)(.*/\1/p' "$1" | head -1; }

# harness OBJ OUT: tests/tma/callback.c linked with a host object and libcommon.a
# (sanitized too when $BIN is an ASan build's: make check-asan)
harness() {
	"${CC:-cc}" -std=c11 -no-pie -I"$ROOT/libcommon" "$ROOT/tests/tma/callback.c" "$1" "$BIN/../lib/libcommon.a" \
		-o "$2" 2>/dev/null ||
		"${CC:-cc}" -std=c11 -no-pie -fsanitize=address,undefined -I"$ROOT/libcommon" "$ROOT/tests/tma/callback.c" "$1" \
			"$BIN/../lib/libcommon.a" -o "$2"
}
