#!/usr/bin/env bats
# tile-pack: PTX -> ptxas -> cubin / fatbin / host object, on the hand-written
# PTX fixtures in tests/pack/.
load helpers

setup() {
	setup_scratch
	require_ptxas
	P="$ROOT/tests/pack"
}
teardown() { teardown_scratch; }

# e_machine of an ELF file (190 = EM_CUDA)
elf_machine() { od -An -tu2 -j18 -N2 "$1" | tr -d ' '; }
# first four bytes as hex
magic() { od -An -tx1 -N4 "$1" | tr -d ' \n'; }
require_fatbinary() {
	command -v fatbinary >/dev/null 2>&1 || [ -x "${CUDA_HOME:-/usr/local/cuda}/bin/fatbinary" ] ||
		[ -x /usr/local/cuda/bin/fatbinary ] || skip "fatbinary not installed"
}
# cuobjdump from PATH, the toolkit or the project venv; empty when absent
cuobjdump_path() {
	command -v cuobjdump 2>/dev/null && return
	local c
	for c in "${CUDA_HOME:-/usr/local/cuda}/bin/cuobjdump" "$ROOT"/.venv/lib/python3*/site-packages/nvidia/cu*/bin/cuobjdump; do
		[ -x "$c" ] && { echo "$c"; return; }
	done
	return 0
}
# kinds of the images in a fatbin (1 = PTX, 2 = ELF/SASS), one per line
fatbin_kinds() {
	local f=$1 size off=16 hdr len
	size=$(( $(od -An -tu8 -j8 -N8 "$f") + 16 ))
	while [ "$off" -lt "$size" ]; do
		od -An -tu2 -j"$off" -N2 "$f" | tr -d ' '
		hdr=$(od -An -tu4 -j$((off + 4)) -N4 "$f" | tr -d ' ')
		len=$(od -An -tu8 -j$((off + 8)) -N8 "$f" | tr -d ' ')
		off=$((off + hdr + len))
	done
}

@test "tile-pack: --help and --version" {
	run tile-pack --help
	assert_success
	assert_output --partial "--gpu-name=SM"
	assert_output --partial "obj = host relocatable object"
	run tile-pack --version
	assert_success
	assert_output --partial "tile-pack"
}

@test "sm_80 PTX assembles to a cubin: ELF machine EM_CUDA (190)" {
	run tile-pack --gpu-name=sm_80 "$P/sm80_vecadd.ptx" -o "$SCRATCH/k.cubin"
	assert_success
	assert_output ""
	[ "$(magic "$SCRATCH/k.cubin")" = 7f454c46 ]
	[ "$(elf_machine "$SCRATCH/k.cubin")" = 190 ]
	run readelf -h "$SCRATCH/k.cubin"
	assert_output --partial "NVIDIA CUDA architecture"
	run readelf -sW "$SCRATCH/k.cubin"
	assert_output --regexp "FUNC +GLOBAL .* vecadd"
}

@test "sm_90a PTX assembles for --gpu-name=sm_90 as sm_90a" {
	run tile-pack -v --gpu-name=sm_90 "$P/sm90a_cluster.ptx" -o "$SCRATCH/k.cubin"
	assert_success
	assert_output --regexp "ptxas -arch sm_90a "
	[ "$(elf_machine "$SCRATCH/k.cubin")" = 190 ]
}

@test "sm_100a PTX (tcgen05) assembles for --gpu-name=sm_100" {
	run tile-pack -v --gpu-name=sm_100 "$P/sm100a_tmem.ptx" -o "$SCRATCH/k.cubin"
	assert_success
	assert_output --regexp "ptxas -arch sm_100a "
	[ "$(elf_machine "$SCRATCH/k.cubin")" = 190 ]
}

@test "sm_120 PTX assembles to a cubin" {
	run tile-pack --gpu-name=sm_120 "$P/sm120_half.ptx" -o "$SCRATCH/k.cubin"
	assert_success
	[ "$(elf_machine "$SCRATCH/k.cubin")" = 190 ]
}

@test "without --gpu-name the PTX .target is the ptxas -arch" {
	run tile-pack -v "$P/sm90a_cluster.ptx" -o "$SCRATCH/k.cubin"
	assert_success
	assert_output --regexp "-arch sm_90a "
	run tile-pack -v "$P/sm80_vecadd.ptx" -o "$SCRATCH/k.cubin"
	assert_output --regexp "-arch sm_80 "
}

@test "sm_80 PTX assembles for a newer GPU (-arch is the --gpu-name)" {
	run tile-pack -v --gpu-name=sm_86 "$P/sm80_vecadd.ptx" -o "$SCRATCH/k.cubin"
	assert_success
	assert_output --regexp "-arch sm_86 "
}

@test "arch-specific PTX for another GPU: ptxas's verdict is passed through" {
	run tile-pack --gpu-name=sm_120 "$P/sm90a_cluster.ptx" -o "$SCRATCH/k.cubin"
	assert_failure 1
	assert_output --partial "ptxas"
	assert_output --partial "tile-pack: error: ptxas exited with status"
	assert_file_not_exists "$SCRATCH/k.cubin"
}

@test "reads PTX on stdin and writes the cubin on stdout" {
	tile-pack --gpu-name=sm_80 <"$P/sm80_vecadd.ptx" >"$SCRATCH/k.cubin"
	[ "$(elf_machine "$SCRATCH/k.cubin")" = 190 ]
}

@test "ptxas errors are passed through verbatim, with exit 1 and no output" {
	echo old >"$SCRATCH/k.cubin"
	run tile-pack "$P/bad_operand.ptx" -o "$SCRATCH/k.cubin"
	assert_failure 1
	assert_line --index 0 "ptxas $P/bad_operand.ptx, line 14; error   : Arguments mismatch for instruction 'add'"
	assert_line --index 1 "ptxas $P/bad_operand.ptx, line 14; error   : Unknown symbol '%f9'"
	assert_line --index 2 "ptxas fatal   : Ptx assembly aborted due to errors"
	assert_line --index 3 "tile-pack: error: ptxas exited with status 255"
	[ "$(cat "$SCRATCH/k.cubin")" = old ]
}

@test "ptxas errors on stdin input name <stdin>, not a temporary file" {
	run tile-pack <"$P/bad_operand.ptx"
	assert_failure 1
	assert_output --partial "ptxas <stdin>, line 14; error   : Unknown symbol '%f9'"
	refute_output --partial "/tmp"
}

@test "ptxas missing: a clear error naming where we looked" {
	run env CUDA_ROOT="$SCRATCH/no-cuda" PATH="$BIN" tile-pack "$P/sm80_vecadd.ptx" -o "$SCRATCH/k.cubin"
	assert_failure 1
	assert_output --partial "tile-pack: error: ptxas not found (looked in $SCRATCH/no-cuda/bin (CUDA_ROOT), PATH, pip's nvidia/cu13/bin)"
	assert_file_not_exists "$SCRATCH/k.cubin"
}

@test "CUDA root: CUDA_ROOT before CUDA_HOME before CUDA_PATH" {
	for v in a b c; do
		mkdir -p "$SCRATCH/$v/bin"
		# newer than any real one, so "the newest" is this one
		printf '#!/bin/sh\n[ "$1" = --version ] && { echo "Cuda compilation tools, release 99.0, V99.0.0"; exit 0; }\necho "fake ptxas %s" >&2\nexit 3\n' "$v" >"$SCRATCH/$v/bin/ptxas"
		chmod +x "$SCRATCH/$v/bin/ptxas"
	done
	run env CUDA_ROOT="$SCRATCH/a" CUDA_HOME="$SCRATCH/b" CUDA_PATH="$SCRATCH/c" tile-pack "$P/sm80_vecadd.ptx"
	assert_failure 1
	assert_line --index 0 "fake ptxas a"
	run env -u CUDA_ROOT CUDA_HOME="$SCRATCH/b" CUDA_PATH="$SCRATCH/c" tile-pack "$P/sm80_vecadd.ptx"
	assert_line --index 0 "fake ptxas b"
	run env -u CUDA_ROOT -u CUDA_HOME CUDA_PATH="$SCRATCH/c" tile-pack "$P/sm80_vecadd.ptx"
	assert_line --index 0 "fake ptxas c"
	assert_line --index 1 "tile-pack: error: ptxas exited with status 3"
}

@test "--ptxas names the assembler; one that cannot run is a clear error" {
	run tile-pack --ptxas="$SCRATCH/nope" "$P/sm80_vecadd.ptx"
	assert_failure 1
	assert_output --partial "tile-pack: error: cannot run ptxas '$SCRATCH/nope'"
}

@test "a ptxas killed by a signal is reported as such" {
	printf '#!/bin/sh\nkill -SEGV $$\n' >"$SCRATCH/ptxas"
	chmod +x "$SCRATCH/ptxas"
	run tile-pack --ptxas="$SCRATCH/ptxas" "$P/sm80_vecadd.ptx"
	assert_failure 1
	assert_output --partial "tile-pack: error: ptxas was killed by signal 11"
}

@test "options reach ptxas: -O, --lineinfo, -g, --sanitize=memcheck" {
	run tile-pack -v -O1 --lineinfo "$P/lineinfo.ptx" -o "$SCRATCH/k.cubin"
	assert_success
	# --enable-extended-smem=true always, as NVIDIA's tileiras passes it (docs/abi.md section 2)
	assert_output --regexp "ptxas -arch sm_80 --opt-level 1 --enable-extended-smem=true -lineinfo "
	run readelf -S "$SCRATCH/k.cubin"
	assert_output --partial "debug_line"
	run tile-pack -v -g --opt-level=0 "$P/lineinfo.ptx" -o "$SCRATCH/k.cubin"
	assert_success
	assert_output --regexp "--opt-level 0 --enable-extended-smem=true -g "
	run tile-pack -v --sanitize=memcheck --gpu-name=sm_100 "$P/sm100a_tmem.ptx" -o "$SCRATCH/k.cubin"
	assert_success
	assert_output --regexp "-sanitize=memcheck -g-tmem-access-check "
	run tile-pack -v --sanitize=memcheck "$P/sm80_vecadd.ptx" -o "$SCRATCH/k.cubin"
	assert_success
	assert_output --regexp "-sanitize=memcheck "
	refute_output --partial "tmem"
}

@test "--ptxas-arg passes arguments to ptxas" {
	run tile-pack -v --ptxas-arg=--maxrregcount=32 --ptxas-arg -warn-spills "$P/sm80_vecadd.ptx" -o "$SCRATCH/k.cubin"
	assert_success
	assert_output --regexp "--maxrregcount=32 -warn-spills "
}

@test "knobs file: forwarded only when MLIR_ENABLE_EVO and PTX_KNOBS_PATH are both set" {
	printf '[knobs]\n' >"$SCRATCH/knobs"
	run env MLIR_ENABLE_EVO=1 PTX_KNOBS_PATH="$SCRATCH/knobs" tile-pack -v "$P/sm80_vecadd.ptx" -o "$SCRATCH/k.cubin"
	assert_output --partial "--knobs-file=$SCRATCH/knobs "
	run env -u MLIR_ENABLE_EVO PTX_KNOBS_PATH="$SCRATCH/knobs" tile-pack -v "$P/sm80_vecadd.ptx" -o "$SCRATCH/k.cubin"
	assert_success
	refute_output --partial "knobs"
	run env -u PTX_KNOBS_PATH MLIR_ENABLE_EVO=1 tile-pack -v "$P/sm80_vecadd.ptx" -o "$SCRATCH/k.cubin"
	refute_output --partial "knobs"
}

@test "bad options: exit 2 with the reason" {
	run tile-pack --gpu-name=sm_99 "$P/sm80_vecadd.ptx"
	assert_failure 2
	assert_output --partial "unsupported GPU 'sm_99' (supported: sm_75, "
	run tile-pack -O4 "$P/sm80_vecadd.ptx"
	assert_failure 2
	assert_output --partial "invalid optimization level '4'"
	run tile-pack --sanitize=thread "$P/sm80_vecadd.ptx"
	assert_failure 2
	run tile-pack --host-arch=riscv64 "$P/sm80_vecadd.ptx"
	assert_failure 2
	run tile-pack --emit=ptx "$P/sm80_vecadd.ptx"
	assert_failure 2
}

@test "-g needs -O0" {
	run tile-pack -g "$P/sm80_vecadd.ptx"
	assert_failure 1
	assert_output --partial "--device-debug needs --opt-level=0"
}

@test "input that is not PTX is refused before ptxas" {
	run tile-pack "$CORPUS/13.4/vector_add.tileirbc"
	assert_failure 1
	assert_output --partial "not PTX text"
	run tile-pack </dev/null
	assert_failure 1
	assert_output --partial "empty input"
	printf 'hello\n' >"$SCRATCH/x.ptx"
	run tile-pack "$SCRATCH/x.ptx"
	assert_failure 1
	assert_output --partial "no .target directive"
}

@test "fatbin: NVIDIA's container with the SASS and the PTX image" {
	require_fatbinary
	run tile-pack --emit=fatbin --gpu-name=sm_90 "$P/sm90a_cluster.ptx" -o "$SCRATCH/k.fatbin"
	assert_success
	[ "$(magic "$SCRATCH/k.fatbin")" = 50ed55ba ]
	run fatbin_kinds "$SCRATCH/k.fatbin"
	assert_output "$(printf '2\n1')"
	CUOBJDUMP=$(cuobjdump_path)
	if [ -n "$CUOBJDUMP" ]; then
		run "$CUOBJDUMP" -lelf -lptx "$SCRATCH/k.fatbin"
		assert_output --partial "sm_90a.cubin"
		assert_output --partial "sm_90a.ptx"
	fi
}

@test "host object: x86-64 ELF relocatable with the fatbin in .nv_fatbin" {
	require_fatbinary
	run tile-pack --emit=obj "$P/sm80_vecadd.ptx" -o "$SCRATCH/k.o"
	assert_success
	run readelf -hSsW "$SCRATCH/k.o"
	assert_output --partial "REL (Relocatable file)"
	assert_output --partial "Advanced Micro Devices X86-64"
	assert_output --regexp "\.nv_fatbin +PROGBITS"
	assert_line --regexp "OBJECT +GLOBAL +DEFAULT +[0-9]+ tileiras_fatbin$"
	assert_line --regexp " 8 OBJECT +GLOBAL +DEFAULT +[0-9]+ tileiras_fatbin_size$"
	objcopy -O binary --only-section=.nv_fatbin "$SCRATCH/k.o" "$SCRATCH/section"
	tile-pack --emit=fatbin "$P/sm80_vecadd.ptx" -o "$SCRATCH/k.fatbin"
	cmp "$SCRATCH/section" "$SCRATCH/k.fatbin"
	CUOBJDUMP=$(cuobjdump_path)
	if [ -n "$CUOBJDUMP" ]; then
		run "$CUOBJDUMP" -lelf -lptx "$SCRATCH/k.o"
		assert_success
		assert_output --partial "sm_80.cubin"
		assert_output --partial "sm_80.ptx"
	fi
}

@test "host object: a C program links it and sees the fatbin and its size" {
	require_fatbinary
	command -v cc >/dev/null || skip "no C compiler"
	tile-pack --emit=obj "$P/sm80_vecadd.ptx" -o "$SCRATCH/k.o"
	cat >"$SCRATCH/main.c" <<-'EOF'
		#include <stdio.h>
		extern const unsigned char tileiras_fatbin[];
		extern const unsigned long long tileiras_fatbin_size;
		int main(void)
		{
			printf("%02x%02x%02x%02x %llu %d\n", tileiras_fatbin[0], tileiras_fatbin[1],
			       tileiras_fatbin[2], tileiras_fatbin[3], tileiras_fatbin_size,
			       (int)((unsigned long)tileiras_fatbin % 8));
			return 0;
		}
	EOF
	cc -o "$SCRATCH/main" "$SCRATCH/main.c" "$SCRATCH/k.o"
	run "$SCRATCH/main"
	assert_success
	tile-pack --emit=fatbin "$P/sm80_vecadd.ptx" -o "$SCRATCH/k.fatbin"
	assert_output "50ed55ba $(stat -c %s "$SCRATCH/k.fatbin") 0"
}

@test "host object: --host-arch=aarch64, --host-os=windows, --symbol" {
	require_fatbinary
	run tile-pack --emit=obj --host-arch=aarch64 "$P/sm80_vecadd.ptx" -o "$SCRATCH/a.o"
	assert_success
	[ "$(elf_machine "$SCRATCH/a.o")" = 183 ]
	run tile-pack --emit=obj --host-os=windows "$P/sm80_vecadd.ptx" -o "$SCRATCH/w.obj"
	assert_success
	[ "$(od -An -tx1 -N2 "$SCRATCH/w.obj" | tr -d ' ')" = 6486 ]
	grep -q nv_fatbin "$SCRATCH/w.obj"
	run tile-pack --emit=obj --symbol=vecadd_image "$P/sm80_vecadd.ptx" -o "$SCRATCH/s.o"
	run readelf -sW "$SCRATCH/s.o"
	assert_line --regexp " vecadd_image$"
	assert_line --regexp " vecadd_image_size$"
}

@test "remarks: per-kernel resources from ptxas -v as LLVM remark YAML" {
	run tile-pack --language=ptx --remarks-output-file="$SCRATCH/r.yaml" "$P/resources.ptx" -o "$SCRATCH/k.cubin"
	assert_success
	assert_output ""
	run cat "$SCRATCH/r.yaml"
	assert_line "--- !Analysis"
	assert_line "Function:        'stage'"
	assert_line "Function:        'noop'"
	assert_line "  - Target:          sm_80"
	assert_line "  - SharedMemory:    1024"
	assert_line "  - Barriers:        1"
	assert_line --regexp "^  - Registers: +[0-9]+$"
	assert_line --regexp "^  - SpillStores: +0$"
	[ "$(grep -c '^\.\.\.$' "$SCRATCH/r.yaml")" = 2 ]
	if command -v python3 >/dev/null && python3 -c 'import yaml' 2>/dev/null; then
		python3 -c 'import sys, yaml
class L(yaml.SafeLoader): pass
L.add_multi_constructor("!", lambda l, s, n: l.construct_mapping(n))
docs = list(yaml.load_all(open(sys.argv[1]), Loader=L))
assert [d["Function"] for d in docs] == ["noop", "stage"] or [d["Function"] for d in docs] == ["stage", "noop"]' "$SCRATCH/r.yaml"
	fi
}

@test "remarks: command-line format" {
	run tile-pack --remarks-output-file="$SCRATCH/r.txt" --remark-format=command-line "$P/resources.ptx" -o "$SCRATCH/k.cubin"
	assert_success
	run cat "$SCRATCH/r.txt"
	assert_line "in function: stage:"
	assert_line "       = note: SharedMemory = 1024"
}

@test "remarks: a user's own -v output is kept on stderr" {
	run tile-pack --ptxas-arg=-v --remarks-output-file="$SCRATCH/r.yaml" "$P/resources.ptx" -o "$SCRATCH/k.cubin"
	assert_success
	assert_output --partial "ptxas info    : Compiling entry function 'stage'"
	grep -q "Function:        'stage'" "$SCRATCH/r.yaml"
}

# --- which ptxas; TILEIR-language cubins (docs/abi.md §5) ----------------------

# fake_ptxas DIR VERSION: DIR/ptxas answers --version with VERSION ("13.5"),
# keeps the PTX it was given in DIR/got.ptx and its arguments in DIR/args,
# and writes a dummy cubin; with REJECT_LANGUAGE=1 it fails on '.language'.
fake_ptxas() {
	mkdir -p "$1"
	{
		printf '#!/bin/bash\n'
		printf 'if [ "$1" = --version ]; then echo "Cuda compilation tools, release %s, V%s.0"; exit 0; fi\n' "$2" "$2"
		printf 'd=%q\n' "$1"
		cat <<'SH'
echo "$*" >"$d/args"
out="" prev=""
for a in "$@"; do case $a in *.ptx) cp "$a" "$d/got.ptx" ;; esac; [ "$prev" = -o ] && out=$a; prev=$a; done
if [ "${REJECT_LANGUAGE:-0}" = 1 ] && grep -q '\.language' "$d/got.ptx"; then
	echo "ptxas got.ptx, line 9; error   : Unknown directive '.language'" >&2
	exit 255
fi
printf '\177ELF-fake' >"$out"
SH
	} >"$1/ptxas"
	chmod +x "$1/ptxas"
}

# picked WANT ENV...: tile-pack -v on the vecadd PTX, under env ENV..., succeeds
# and says WANT (which ptxas it ran)
picked() {
	local want=$1
	shift
	run env "$@" tile-pack -v "$P/sm80_vecadd.ptx" -o "$SCRATCH/k.cubin"
	assert_success
	assert_output --partial "$want"
}

@test "ptxas: the newest of the toolkit's, PATH's and pip's (VIRTUAL_ENV, python3's venv) is run" {
	fake_ptxas "$SCRATCH/tk/bin" 13.0
	fake_ptxas "$SCRATCH/onpath" 13.2
	fake_ptxas "$SCRATCH/venv/lib/python3.11/site-packages/nvidia/cu13/bin" 13.5
	picked "tile-pack: ptxas $SCRATCH/onpath/ptxas (release 13.2.0), TILEIR module" -u VIRTUAL_ENV CUDA_ROOT="$SCRATCH/tk" PATH="$SCRATCH/onpath:$PATH"
	picked "ptxas $SCRATCH/venv/lib/python3.11/site-packages/nvidia/cu13/bin/ptxas (release 13.5.0)" CUDA_ROOT="$SCRATCH/tk" PATH="$SCRATCH/onpath:$PATH" VIRTUAL_ENV="$SCRATCH/venv"
	# a venv's python3 first on PATH finds its pip packages without VIRTUAL_ENV
	mkdir -p "$SCRATCH/venv/bin"
	ln -s "$(command -v python3 || echo /usr/bin/python3)" "$SCRATCH/venv/bin/python3"
	picked "(release 13.5.0), TILEIR module" -u VIRTUAL_ENV CUDA_ROOT="$SCRATCH/tk" PATH="$SCRATCH/venv/bin:$PATH"
	# TILEIRAS_PTXAS (and --ptxas) win over the newest
	picked "ptxas $SCRATCH/tk/bin/ptxas (release 13.0.0), plain PTX module" CUDA_ROOT="$SCRATCH/tk" VIRTUAL_ENV="$SCRATCH/venv" TILEIRAS_PTXAS="$SCRATCH/tk/bin/ptxas"
}

@test "--which-ptxas: the ptxas tile-pack would run and its version, or where it looked (exit 1)" {
	fake_ptxas "$SCRATCH/tk/bin" 13.0
	fake_ptxas "$SCRATCH/venv/lib/python3.11/site-packages/nvidia/cu13/bin" 13.5
	export TILEIRAS_CACHE_DIR="$SCRATCH/cache"
	local e=(env CUDA_ROOT="$SCRATCH/tk" PATH=/usr/bin:/bin VIRTUAL_ENV="$SCRATCH/venv" HOME="$SCRATCH")
	run "${e[@]}" "$BIN/tile-pack" --which-ptxas
	assert_success
	assert_output "$SCRATCH/venv/lib/python3.11/site-packages/nvidia/cu13/bin/ptxas (release 13.5.0)"
	# the one a compile runs (-v names it the same way)
	run "${e[@]}" "$BIN/tile-pack" -v "$P/sm80_vecadd.ptx" -o "$SCRATCH/k.cubin"
	assert_output --partial "tile-pack: ptxas $SCRATCH/venv/lib/python3.11/site-packages/nvidia/cu13/bin/ptxas (release 13.5.0)"
	run "${e[@]}" "$BIN/tile-pack" --which-ptxas --ptxas="$SCRATCH/tk/bin/ptxas"
	assert_output "$SCRATCH/tk/bin/ptxas (release 13.0.0)"
	# none anywhere: the message naming where it looked, exit 1, nothing on stdout
	run env -u VIRTUAL_ENV CUDA_ROOT="$SCRATCH/none" PATH=/nonexistent HOME="$SCRATCH" "$BIN/tile-pack" --which-ptxas
	[ "$status" -eq 1 ]
	[ "${#lines[@]}" -eq 1 ]
	assert_output --partial "tile-pack: error: ptxas not found (looked in $SCRATCH/none/bin (CUDA_ROOT), PATH, pip's nvidia/cu13/bin)"
	run tile-pack --which-ptxas extra.ptx
	[ "$status" -eq 2 ]
	assert_output --partial "--which-ptxas takes only --ptxas, not 'extra.ptx'"
}

@test "temporary directories: \$TMPDIR/tileiras-<uid>/tile-pack.<pid>.*, removed after; a killed compile's swept an hour later" {
	fake_ptxas "$SCRATCH/fk" 13.5
	export TILEIRAS_PTXAS="$SCRATCH/fk/ptxas" TILEIRAS_CACHE_DIR="$SCRATCH/cache" TMPDIR="$SCRATCH/t"
	mkdir "$TMPDIR"
	local ours="$TMPDIR/tileiras-$(id -u)" dead
	dead=$(sh -c 'echo $$')   # a process that has ended
	# left by killed compiles: an hour old and gone, recent and gone, an hour old and alive
	mkdir -p "$ours/tile-pack.$dead.old" "$ours/tile-pack.$dead.new" "$ours/tile-pack.$$.alive" "$ours/other"
	touch "$ours/tile-pack.$dead.old/in.ptx" "$ours/tile-pack.$$.alive/in.ptx"
	touch -d '2 hours ago' "$ours/tile-pack.$dead.old" "$ours/tile-pack.$$.alive" "$ours/other"
	chmod 700 "$ours"
	run tile-pack "$P/sm80_vecadd.ptx" -o "$SCRATCH/k.cubin"
	assert_success
	# its own directory: there while ptxas ran, gone now
	local d
	d=$(dirname -- "$(grep -o '[^ ]*/in\.ptx' "$SCRATCH/fk/args")")
	[[ $d == "$ours/tile-pack."[0-9]*.* ]]
	[ ! -e "$d" ]
	[ ! -e "$ours/tile-pack.$dead.old" ]
	[ -d "$ours/tile-pack.$dead.new" ]
	[ -d "$ours/tile-pack.$$.alive" ]
	[ -d "$ours/other" ]
	# a tileiras-<uid> others may enter is not used: straight under TMPDIR
	chmod 755 "$ours"
	run tile-pack "$P/sm80_vecadd.ptx" -o "$SCRATCH/k.cubin"
	assert_success
	d=$(dirname -- "$(grep -o '[^ ]*/in\.ptx' "$SCRATCH/fk/args")")
	[ "$(dirname "$d")" = "$TMPDIR" ]
	[ -d "$ours/tile-pack.$$.alive" ]
}

@test "ptxas --version is asked once per ptxas file (the version cache), again when the file changes" {
	fake_ptxas "$SCRATCH/vc" 13.5
	# the fake counts the times it is asked its version
	sed -i "2i [ \"\$1\" = --version ] && echo asked >>$SCRATCH/vc/asked" "$SCRATCH/vc/ptxas"
	export TILEIRAS_CACHE_DIR="$SCRATCH/cache" TILEIRAS_PTXAS="$SCRATCH/vc/ptxas"
	for i in 1 2 3; do
		run tile-pack -v "$P/sm80_vecadd.ptx" -o "$SCRATCH/k.cubin"
		assert_success
		assert_output --partial "(release 13.5.0), TILEIR module"
	done
	[ "$(wc -l <"$SCRATCH/vc/asked")" -eq 1 ]
	grep -q " 1 13 5 0 $SCRATCH/vc/ptxas\$" "$SCRATCH/cache/ptxas-versions"
	# a new release installed over it: asked again, and the new version is what counts
	sed -i 's/release 13.5, V13.5.0/release 13.6, V13.6.0/' "$SCRATCH/vc/ptxas"
	run tile-pack -v "$P/sm80_vecadd.ptx" -o "$SCRATCH/k.cubin"
	assert_output --partial "(release 13.6.0), TILEIR module"
	[ "$(wc -l <"$SCRATCH/vc/asked")" -eq 2 ]
	[ "$(grep -c "$SCRATCH/vc/ptxas" "$SCRATCH/cache/ptxas-versions")" -eq 1 ]
	# TILEIRAS_NO_CACHE: asked every time
	TILEIRAS_NO_CACHE=1 tile-pack "$P/sm80_vecadd.ptx" -o "$SCRATCH/k.cubin"
	TILEIRAS_NO_CACHE=1 tile-pack "$P/sm80_vecadd.ptx" -o "$SCRATCH/k.cubin"
	[ "$(wc -l <"$SCRATCH/vc/asked")" -eq 4 ]
	# a cache that cannot be written is not an error
	printf x >"$SCRATCH/file"
	TILEIRAS_CACHE_DIR="$SCRATCH/file/sub" tile-pack "$P/sm80_vecadd.ptx" -o "$SCRATCH/k.cubin"
	[ "$(wc -l <"$SCRATCH/vc/asked")" -eq 5 ]
}

@test "TILEIR: '.language 7' in every entry header, .version raised to 9.2, the launch metadata global, line numbers kept" {
	fake_ptxas "$SCRATCH/new" 13.5
	got="$SCRATCH/new/got.ptx"
	run env TILEIRAS_PTXAS="$SCRATCH/new/ptxas" tile-pack "$P/sm80_vecadd.ptx" -o "$SCRATCH/k.cubin"
	assert_success
	[ "$(grep -c '^\.language 7 {$' "$got")" -eq "$(grep -c '\.entry' "$P/sm80_vecadd.ptx")" ]
	grep -q '^\.version 9\.2$' "$got"
	# NVIDIA's launch metadata global, at the end: the input's lines keep their numbers
	n=$(wc -l <"$P/sm80_vecadd.ptx")
	[ "$(tail -n +$((n + 1)) "$got")" = "$(printf '\n.visible .global .align 8 .b8 ___NV_TILE_LAUNCH_META_DATA___[64];')" ]
	# nothing else changes
	diff <(head -n "$n" "$got" | sed -e 's/^\.language 7 {$/{/' -e 's/^\.version .*//') <(sed -e 's/^\.version .*//' "$P/sm80_vecadd.ptx")
	# every fixture: one marker per entry
	for f in "$P"/*.ptx; do
		[ "$f" = "$P/bad_operand.ptx" ] && continue
		run env TILEIRAS_PTXAS="$SCRATCH/new/ptxas" tile-pack "$f" -o "$SCRATCH/k.cubin"
		assert_success
		[ "$(grep -c '\.language 7' "$got")" -eq "$(grep -c '\.entry' "$f")" ] || fail "$f: $(grep -n language "$got")"
	done
	# PTX that has them keeps them (NVIDIA's own PTX passes unchanged), a newer .version stays
	printf '.version 9.5\n.target sm_90\n.address_size 64\n.visible .global .align 8 .b8 ___NV_TILE_LAUNCH_META_DATA___[64];\n.visible .entry k()\n.reqntid 32\n.language 7\n{\n\tret;\n}\n' >"$SCRATCH/has.ptx"
	run env TILEIRAS_PTXAS="$SCRATCH/new/ptxas" tile-pack "$SCRATCH/has.ptx" -o "$SCRATCH/k.cubin"
	assert_success
	cmp "$got" "$SCRATCH/has.ptx"
}

@test "TILEIR: an old ptxas gives a plain-PTX cubin and a remark saying why; --language=tileir refuses" {
	fake_ptxas "$SCRATCH/old" 13.0
	run env TILEIRAS_PTXAS="$SCRATCH/old/ptxas" tile-pack --remarks-output-file="$SCRATCH/r.yaml" "$P/sm80_vecadd.ptx" -o "$SCRATCH/k.cubin"
	assert_success
	assert_output ""
	cmp "$SCRATCH/old/got.ptx" "$P/sm80_vecadd.ptx"
	run cat "$SCRATCH/r.yaml"
	assert_line "--- !Missed"
	assert_line "Name:            TileIRLanguage"
	assert_output --partial "(release 13.0) cannot assemble ''.language 7'' (PTX ISA 9.2, ptxas 13.2 or newer): the cubin''s language is PTX, not TILEIR"
	run env TILEIRAS_PTXAS="$SCRATCH/old/ptxas" tile-pack --language=tileir "$P/sm80_vecadd.ptx" -o "$SCRATCH/k2.cubin"
	assert_failure 1
	assert_output --partial "tile-pack: error: --language=tileir: ptxas $SCRATCH/old/ptxas (release 13.0) cannot assemble '.language 7'"
	assert_file_not_exists "$SCRATCH/k2.cubin"
	# --language=ptx: never, even with a new ptxas
	fake_ptxas "$SCRATCH/new" 13.5
	run env TILEIRAS_PTXAS="$SCRATCH/new/ptxas" tile-pack --language=ptx "$P/sm80_vecadd.ptx" -o "$SCRATCH/k.cubin"
	assert_success
	cmp "$SCRATCH/new/got.ptx" "$P/sm80_vecadd.ptx"
	run tile-pack --language=cobol "$P/sm80_vecadd.ptx"
	assert_failure 2
}

@test "TILEIR: a ptxas that rejects '.language' after all: assembled again as plain PTX, with a remark" {
	fake_ptxas "$SCRATCH/liar" 13.5
	run env REJECT_LANGUAGE=1 TILEIRAS_PTXAS="$SCRATCH/liar/ptxas" tile-pack --remarks-output-file="$SCRATCH/r.yaml" "$P/sm80_vecadd.ptx" -o "$SCRATCH/k.cubin"
	assert_success
	assert_output ""
	cmp "$SCRATCH/liar/got.ptx" "$P/sm80_vecadd.ptx"
	grep -q "rejected ''.language 7'' (ptxas got.ptx, line 9; error   : Unknown directive ''.language'')" "$SCRATCH/r.yaml"
}

@test "the ptxas -arch is the 'a' variant from sm_90 on, as NVIDIA's (same ELF flags)" {
	for g in sm_90 sm_100 sm_120; do
		run tile-pack -v --gpu-name=$g "$P/sm80_vecadd.ptx" -o "$SCRATCH/k.cubin"
		assert_success
		assert_output --regexp "ptxas -arch ${g}a "
	done
	run tile-pack -v --gpu-name=sm_89 "$P/sm80_vecadd.ptx" -o "$SCRATCH/k.cubin"
	assert_output --regexp "ptxas -arch sm_89 "
}

@test "launch-relevant cubin attributes equal NVIDIA's for every corpus kernel (sm_90, sm_100; with pip's ptxas)" {
	require_nvidia
	[ -x "$NVBIN/ptxas" ] || skip "no pip ptxas (nvidia-cuda-nvcc) in .venv"
	local venv="$ROOT/.venv" n=0 skipped="" out
	for g in sm_90 sm_100; do
		for f in "$CORPUS"/13.4/*.tileirbc; do
			m=$(basename "$f" .tileirbc)
			env -u CUDA_HOME -u CUDA_PATH -u CUDA_ROOT "$NVBIN/tileiras" --gpu-name $g "$f" -o "$SCRATCH/nv.cubin" ||
				fail "NVIDIA's tileiras rejected $m for $g"
			if ! VIRTUAL_ENV="$venv" tileiras --gpu-name $g "$f" -o "$SCRATCH/ours.cubin" 2>"$SCRATCH/err"; then
				grep -q "is not supported" "$SCRATCH/err" || fail "ours rejected $m for $g: $(cat "$SCRATCH/err")"
				skipped+=" $m/$g"
				continue
			fi
			if ! out=$(python3 "$ROOT/tests/gpu/cubin.py" --launch-diff "$SCRATCH/nv.cubin" "$SCRATCH/ours.cubin"); then
				# Known (issue 15): for MMA kernels NVIDIA picks 8 warps on sm_100 where we keep 4;
				# only the CTA size may differ there. And (issue 16) our matmul, versioned on
				# alignment, copies by TMA into a ring over 48 KiB where NVIDIA's loads through
				# registers (its own TMA kernels take up to 225 KiB: docs/abi.md §5.1) — only
				# where ours has tensor maps. Every other launch attribute must agree.
				local known=' reqntid: '
				grep -q '^info .* hidden_param_bytes=0/[1-9]' <<<"$out" && known="$known| smem_over_48k: "
				if [ "$m" = matmul ] && ! grep '^DIFF' <<<"$out" | grep -Evq "$known"; then
					echo "# known: $m $g: $(grep '^DIFF' <<<"$out" | head -1)" >&3
				else
					fail "$m $g: $(grep '^DIFF' <<<"$out")"
				fi
			fi
			n=$((n + $(grep -c '^info' <<<"$out" || true)))
		done
	done
	echo "# $n entries equal; not compiled by ours (MMA):$skipped" >&3
	[ "$n" -ge 60 ]
}

@test "tests/gpu/cubin.py reads EIATTR_KPARAM_INFO_V2 (NVIDIA's TMA kernel: hidden tensor-map parameters)" {
	require_nvidia
	env -u CUDA_HOME -u CUDA_PATH "$NVBIN/tileiras" --gpu-name sm_90 "$P/tma_matmul.tileirbc" -o "$SCRATCH/t.cubin"
	"$NVBIN/cuobjdump" -elf "$SCRATCH/t.cubin" >"$SCRATCH/elf.txt"
	grep -q EIATTR_KPARAM_INFO_V2 "$SCRATCH/elf.txt" || skip "NVIDIA's tileiras no longer uses TMA here"
	want=$(sed -n 's/.*Ordinal : \(0x[0-9a-f]*\).*Offset  : \(0x[0-9a-f]*\).*Size    : \(0x[0-9a-f]*\).*/\1 \2 \3/p' "$SCRATCH/elf.txt" |
		while read -r o f s; do printf '%d %d %d\n' "$o" "$f" "$s"; done | sort -n)
	cbank=$(sed -n '/EIATTR_CBANK_PARAM_SIZE/{n;n;s/.*Value:[[:space:]]*\(0x[0-9a-f]*\).*/\1/p}' "$SCRATCH/elf.txt" | head -1)
	run python3 -c 'import sys; sys.path.insert(0, sys.argv[1]); import cubin
(e,) = cubin.load(sys.argv[2]).entries.values()
for p in e.params: print(*p)
print("bytes", e.param_bytes, e.cbank_param_bytes, e.hidden_param_bytes)' "$ROOT/tests/gpu" "$SCRATCH/t.cubin"
	assert_success
	[ "$(grep -c . <<<"$want")" -eq 15 ]
	assert_equal "$(grep -v '^bytes' <<<"$output")" "$want"
	# a launcher packs the 15 user parameters (72 bytes); the driver adds 3 x 128-byte tensor maps
	assert_line "bytes 72 $((cbank)) $((cbank - 72))"
	[ $((cbank)) -gt 72 ]
}

# nv_host_shape CUBIN: the embedded .nv.host object's ELF machine, its symbols
# (name, type, binding, size) and the sizes of its data sections
nv_host_shape() {
	python3 - "$ROOT/tests/gpu" "$1" "$SCRATCH/h.o" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
import cubin
c = cubin.load(sys.argv[2])
assert c.has_nv_host, "no .nv.host"
open(sys.argv[3], "wb").write(c.nv_host)
PY
	readelf -hW "$SCRATCH/h.o" | grep -E 'Machine|Type:'
	readelf -sW "$SCRATCH/h.o" | awk '$8 ~ /^__CUDA/ {print $8, $4, $5, ($4 == "OBJECT" ? $3 : "-")}' | sort
	readelf -SW "$SCRATCH/h.o" | sed 's/^ *\[ *[0-9]*\] //' | awk '$1 ~ /data|bss|rodata/ {print $1, $5}' |
		sed 's/^\.l/./' | sort
}

@test "TILEIR .nv.host: the launch-callback object has NVIDIA's symbols and table sizes (x86_64, aarch64)" {
	require_nvidia
	[ -x "$NVBIN/ptxas" ] || skip "no pip ptxas (nvidia-cuda-nvcc) in .venv"
	for h in x86_64 aarch64; do
		env -u CUDA_HOME -u CUDA_PATH "$NVBIN/tileiras" --gpu-name sm_90 --host-arch=$h "$CORPUS/13.4/vector_add.tileirbc" -o "$SCRATCH/nv.cubin"
		VIRTUAL_ENV="$ROOT/.venv" tileiras --gpu-name sm_90 --host-arch=$h "$CORPUS/13.4/vector_add.tileirbc" -o "$SCRATCH/ours.cubin"
		nv=$(nv_host_shape "$SCRATCH/nv.cubin")
		ours=$(nv_host_shape "$SCRATCH/ours.cubin")
		grep -q '__CUDA_TILEIR_ON_PRE_LOAD FUNC GLOBAL' <<<"$nv" && grep -q '^.data.rel.ro 0000c8$' <<<"$nv"
		assert_equal "$ours" "$nv"
	done
	# --nv-host=none leaves it out
	run env TILEIRAS_PTXAS="$NVBIN/ptxas" tile-pack --nv-host=none --gpu-name=sm_90 "$P/sm80_vecadd.ptx" -o "$SCRATCH/k.cubin"
	assert_success
	! grep -q '\.nv\.host' <(readelf -SW "$SCRATCH/k.cubin" 2>/dev/null)
}

# kernel_regs YAML: the Registers notes of a command-line remark file, one a line
kernel_regs() { grep -o 'Registers = [0-9]*' "$1" | grep -o '[0-9]*'; }
# ptx_of BYTECODE: our PTX for sm_90
ptx_of() { tile-read "$1" | tile-lower --gpu-name=sm_90 | tile-sched | tile-ptx --gpu-name=sm_90; }

@test "occupancy: an entry whose registers alone hold its warps down is assembled again under a CTA budget, without spills (issue 17)" {
	# loop_break: ptxas takes 48 registers under .minnctapersm 1 (40 warps an
	# SM); the same PTX fits 16 CTAs (<= 32 registers) with no spill
	ptx_of "$CORPUS/13.4/loop_break.tileirbc" >"$SCRATCH/lb.ptx"
	TILE_PACK_NO_OCCUPANCY=1 tile-pack --gpu-name=sm_90 --remarks-output-file="$SCRATCH/r0" \
		--remark-format=command-line "$SCRATCH/lb.ptx" -o "$SCRATCH/lb0.cubin"
	tile-pack -v --gpu-name=sm_90 --remarks-output-file="$SCRATCH/r1" --remark-format=command-line \
		"$SCRATCH/lb.ptx" -o "$SCRATCH/lb1.cubin" 2>"$SCRATCH/log"
	for r in $(kernel_regs "$SCRATCH/r0"); do [ "$r" -gt 32 ] || fail "untuned: $r registers (the test needs more than 32)"; done
	for r in $(kernel_regs "$SCRATCH/r1"); do [ "$r" -le 32 ] || fail "tuned: $r registers"; done
	! grep -E 'SpillStores = [1-9]|SpillLoads = [1-9]|StackFrame = [1-9]' "$SCRATCH/r1" || fail "spills"
	grep -q 'CTAsPerSM = 16' "$SCRATCH/r1"
	# the second ptxas run assembles a copy with the budget in each entry
	[ "$(grep -c 'ptxas -arch' "$SCRATCH/log")" = 2 ]
	grep -q 'tuned.ptx' "$SCRATCH/log"
	# rms_norm_fwd: the most CTAs would leave 32 of its 72 registers (not
	# tried); 8 CTAs (64 registers) fit
	ptx_of "$ROOT/tests/tilegym/rms_norm_fwd.tileirbc" >"$SCRATCH/rms.ptx"
	tile-pack --gpu-name=sm_90 --remarks-output-file="$SCRATCH/r2" --remark-format=command-line \
		"$SCRATCH/rms.ptx" -o "$SCRATCH/rms.cubin"
	for r in $(kernel_regs "$SCRATCH/r2"); do [ "$r" -le 64 ] || fail "rms_norm_fwd: $r registers"; done
	! grep -E 'SpillStores = [1-9]|SpillLoads = [1-9]' "$SCRATCH/r2" || fail "rms_norm_fwd spills"
}

@test "occupancy: MMA kernels, kernels at full occupancy, -O0 and user ptxas arguments are assembled once, as they are" {
	for k in "$CORPUS/13.4/matmul.tileirbc" "$CORPUS/13.4/vector_add.tileirbc"; do
		ptx_of "$k" >"$SCRATCH/k.ptx"
		tile-pack -v --gpu-name=sm_90 "$SCRATCH/k.ptx" -o "$SCRATCH/a.cubin" 2>"$SCRATCH/log"
		[ "$(grep -c 'ptxas -arch' "$SCRATCH/log")" = 1 ] || fail "$(basename "$k"): $(grep -c 'ptxas -arch' "$SCRATCH/log") ptxas runs"
		# (the cubin records ptxas's options: -v, which the check needs, in both)
		TILE_PACK_NO_OCCUPANCY=1 tile-pack --gpu-name=sm_90 --remarks-output-file="$SCRATCH/r" \
			"$SCRATCH/k.ptx" -o "$SCRATCH/b.cubin"
		cmp "$SCRATCH/a.cubin" "$SCRATCH/b.cubin"
	done
	ptx_of "$CORPUS/13.4/loop_break.tileirbc" >"$SCRATCH/lb.ptx"
	tile-pack -v -O0 --gpu-name=sm_90 "$SCRATCH/lb.ptx" -o "$SCRATCH/c.cubin" 2>"$SCRATCH/log"
	[ "$(grep -c 'ptxas -arch' "$SCRATCH/log")" = 1 ]
	tile-pack -v --ptxas-arg=-lineinfo --gpu-name=sm_90 "$SCRATCH/lb.ptx" -o "$SCRATCH/c.cubin" 2>"$SCRATCH/log"
	[ "$(grep -c 'ptxas -arch' "$SCRATCH/log")" = 1 ]
}
