#!/usr/bin/env bats
# The tileiras driver: NVIDIA's options, messages and exit codes; the stage
# pipeline; our additions (--emit, --stop-after, --save-temps, -v, stage
# substitution). Stages that are not written yet are replaced through
# TILEIRAS_<STAGE> so the composition is tested now.
load helpers
bats_require_minimum_version 1.5.0

setup() {
	setup_scratch
	cd "$SCRATCH"
	V="$CORPUS/13.4/vector_add.tileirbc"
	P="$ROOT/tests/pack"
	J="$ROOT/tests/ir/vecadd.cuda_tile.json"
	unset TILEIRAS_TILE_READ TILEIRAS_TILE_LOWER TILEIRAS_TILE_SCHED TILEIRAS_TILE_PTX TILEIRAS_TILE_PACK
}
teardown() { teardown_scratch; }

# Stand-ins for the front of the pipeline: tile-read prints a fixed JSON IR,
# tile-lower and tile-sched pass it on, tile-ptx prints a fixed PTX.
fake_front() {
	export TILEIRAS_TILE_READ="cat '$J'"
	export TILEIRAS_TILE_LOWER=cat TILEIRAS_TILE_SCHED=cat
	export TILEIRAS_TILE_PTX="cat >/dev/null; cat '${1:-$P/sm80_vecadd.ptx}'"
}
elf_machine() { od -An -tu2 -j18 -N2 "$1" | tr -d ' '; }
require_stage() { [ -x "$BIN/$1" ] || skip "$1 is not built yet"; }

# --- NVIDIA's command line ----------------------------------------------------

@test "--help and -h: exit 0, NVIDIA's options and ours, on stdout" {
	run --separate-stderr tileiras --help
	assert_success
	[ -z "$stderr" ]
	assert_output --partial "USAGE: tileiras [options] <tile bytecode file>"
	for o in --gpu-name --arch --opt-level -O --output-file --lineinfo --device-debug --sanitize=memcheck \
		--host-arch --host-os --remark-format --remarks= --remarks-output-file --list-versions --preview= "  -l <path>" --apply-controls --print-options --print-all-options \
		--emit= --stop-after --save-temps "  -v" TILEIRAS_TILE_LOWER CUDA_ROOT PTX_KNOBS_PATH; do
		assert_output --partial -- "$o"
	done
	run tileiras -h
	assert_success
	assert_output --partial "USAGE: tileiras"
}

@test "--version exits 0 and writes no file, whatever else is given" {
	run tileiras --version "$V" --gpu-name=sm_90 -o out.cubin
	assert_success
	assert_output --partial "tileiras"
	assert_output --partial "0.1.0"
	assert_file_not_exists out.cubin
}

@test "--version names the build and the ptxas, so caches keyed on it (cuTile's) see a new compiler" {
	run tileiras --version
	assert_success
	# the build: what scripts/build-id says of this tree (make wrote it in);
	# its first 12 digits hash the sources, the -g<commit> after it is for people
	local id
	id=$("$ROOT/scripts/build-id")
	[[ $id =~ ^[0-9a-f]{12}(-g[0-9a-f]+(-modified)?)?$ ]]
	[[ ${lines[2]} =~ ^"version 0.1.0, build ${id:0:12}"(-g[0-9a-f]+(-modified)?)?$ ]]
	# the ptxas the cubins come from
	assert_line --index 3 "ptxas: $(tile-pack --which-ptxas 2>/dev/null || echo none found)"
}

@test "build-id: a hash of the compiler's sources, not of git; any change to them changes it" {
	mkdir -p t/scripts
	cp -r "$ROOT/libcommon" "$ROOT/tools" "$ROOT/libtileiras" "$ROOT/Makefile" t/
	cp "$ROOT/scripts/tileiras" "$ROOT/scripts/build-id" t/scripts/
	run t/scripts/build-id
	assert_success
	[[ $output =~ ^[0-9a-f]{12}$ ]]   # no git here: the hash alone
	local a=$output
	[ "$(t/scripts/build-id)" = "$a" ]
	# the same sources in git give the same hash
	[ "$("$ROOT/scripts/build-id" | cut -c1-12)" = "$a" ] || [ -n "$(git -C "$ROOT" status --porcelain --untracked-files=all -- libcommon tools libtileiras scripts/tileiras Makefile)" ]
	echo "/* x */" >>t/tools/tile-ptx/module.c
	[ "$(t/scripts/build-id)" != "$a" ]
	sed -i '$d' t/tools/tile-ptx/module.c
	[ "$(t/scripts/build-id)" = "$a" ]
	sed -i 's/^VERSION=.*/VERSION=9/' t/scripts/tileiras
	[ "$(t/scripts/build-id)" != "$a" ]
	# another LLVM builds other code
	cp "$ROOT/scripts/tileiras" t/scripts/
	[ "$(LLVM_CONFIG=false t/scripts/build-id)" != "$a" ]
}

@test "--list-versions prints the bytecode versions read" {
	run tileiras --list-versions
	assert_success
	assert_output "$(printf '13.1\n13.2\n13.3\n13.4\n13.5')"
	# the versions tile-read reads (libcommon/versions.def)
	assert_output "$(sed -n 's/^VERSION([0-9]*, "\(.*\)")$/\1/p' "$ROOT/libcommon/versions.def")"
}

@test "no input: exit 1, 'error: no input file provided', help on stdout" {
	run --separate-stderr tileiras --gpu-name=sm_90
	assert_failure 1
	assert_equal "$(printf '%s' "$stderr" | head -1)" "error: no input file provided"
	assert_output --partial "USAGE: tileiras"
}

@test "unreadable input: exit 1 with NVIDIA's message" {
	run tileiras nonexist.tileirbc --gpu-name=sm_90
	assert_failure 1
	assert_output "error: unable to read input file 'nonexist.tileirbc': No such file or directory"
	run tileiras "$SCRATCH" --gpu-name=sm_90
	assert_failure 1
	assert_output "error: unable to read input file '$SCRATCH': Is a directory"
	run tileiras - --gpu-name=sm_90 <"$V"
	assert_failure 1
	assert_output "error: unable to read input file '-': No such file or directory"
	if [ "$(id -u)" != 0 ]; then
		cp "$V" noread.tileirbc
		chmod 000 noread.tileirbc
		run tileiras noread.tileirbc --gpu-name=sm_90
		assert_failure 1
		assert_output "error: unable to read input file 'noread.tileirbc': Permission denied"
	fi
}

@test "any file name: '--' before names, './' for a leading '-', '-' is the file named '-'" {
	fake_front
	cp "$V" ./-x.tileirbc
	run --separate-stderr tileiras --gpu-name=sm_80 --emit=json -o a.json -- -x.tileirbc
	assert_success
	cmp a.json "$J"
	run --separate-stderr tileiras ./-x.tileirbc --gpu-name=sm_80 --emit=json -o b.json
	assert_success
	# without '--' it is an option, as NVIDIA's
	run tileiras -x.tileirbc --gpu-name=sm_80
	assert_failure 1
	assert_output --partial "Unknown command line argument '-x.tileirbc'"
	# '-' names a file (NVIDIA: "No such file" without one), never stdin
	cp "$V" ./-
	run --separate-stderr tileiras - --gpu-name=sm_80 --emit=json -o c.json </dev/null
	assert_success
	cmp c.json "$J"
}

@test "real stages: a name starting with '-' reaches every tool as a path, messages name it" {
	require_stage tile-read
	cp "$ROOT/tests/diag/f8.tileirbc" ./-bad.tileirbc
	cp "$V" ./-v.tileirbc
	run --separate-stderr tileiras --gpu-name=sm_80 --emit=json -o v.json -- -v.tileirbc
	assert_success
	grep -q '"stage": "cuda_tile"' v.json
	run --separate-stderr tileiras --gpu-name=sm_80 --emit=json --stop-after=tile-lower -- -bad.tileirbc
	assert_failure 5
	[[ "$stderr" == "/src/bad.py:7:3: error: 'cuda_tile.ftof' op: 8-bit floats are not supported on sm_80"* ]]
	run --separate-stderr tileiras --gpu-name=sm_80 --emit=json --stop-after=tile-lower -v -- -bad.tileirbc
	[[ "$stderr" == *"tile-read --input-name=-bad.tileirbc ./-bad.tileirbc"* ]]
	[[ "$stderr" == *"tile-lower --gpu-name=sm_80 --opt-level=3 --input-name=-bad.tileirbc"* ]]
}

@test "FIFOs, pipes and process substitutions are read once and compile (no hang)" {
	for s in tile-read tile-lower tile-sched tile-ptx tile-pack; do require_stage $s; done
	require_ptxas
	run tileiras "$V" --gpu-name=sm_90 -o file.cubin
	assert_success
	mkfifo in.fifo
	(cat "$V" >in.fifo &)
	run timeout 120 tileiras in.fifo --gpu-name=sm_90 -o fifo.cubin
	assert_success
	cmp file.cubin fifo.cubin
	run timeout 120 bash -c 'cat "$1" | tileiras /dev/stdin --gpu-name=sm_90 -o pipe.cubin' _ "$V"
	assert_success
	cmp file.cubin pipe.cubin
	run timeout 120 bash -c 'tileiras <(cat "$1") --gpu-name=sm_90 -o subst.cubin' _ "$V"
	assert_success
	cmp file.cubin subst.cubin
	# a corrupt pipe: tile-read's message, with the byte offset
	run --separate-stderr timeout 120 bash -c 'head -c 40 "$1" | tileiras /dev/stdin --gpu-name=sm_90 -o bad.cubin' _ "$V"
	assert_failure 3
	[[ "$stderr" == "error: "*" (offset 0x"*")"$'\n'"error: input does not correspond to Tile IR bytecode" ]]
	assert_file_not_exists bad.cubin
}

@test "'Not a directory' where that is the cause: input, output, --save-temps" {
	fake_front
	: >afile
	run tileiras afile/k.tileirbc --gpu-name=sm_80
	assert_failure 1
	assert_output "error: unable to read input file 'afile/k.tileirbc': Not a directory"
	run tileiras "$V" --gpu-name=sm_80 --emit=json -o afile/out.json
	assert_failure 2
	assert_output "error: cannot write output file 'afile/out.json': Not a directory"
	run tileiras "$V" --gpu-name=sm_80 --save-temps=afile
	assert_failure 2
	assert_output "error: --save-temps: cannot write to directory 'afile': Not a directory"
	run tileiras "$V" --gpu-name=sm_80 --save-temps=afile/sub
	assert_failure 2
	assert_output "error: --save-temps: cannot write to directory 'afile/sub': Not a directory"
}

@test "two inputs: exit 1" {
	run tileiras "$V" "$V" --gpu-name=sm_90
	assert_failure 1
	assert_line --index 0 "tileiras: Too many positional arguments specified!"
	assert_line --index 1 "Can specify at most 1 positional arguments: See: tileiras --help"
}

@test "driver messages of the rarer cases (tests/diag/messages): no GPU for JSON IR, nothing to do, no temporary directory" {
	export TILEIRAS_TILE_READ="cat '$J'"
	run tileiras "$J"
	assert_failure 2
	assert_output "error: GPU architecture sm_0 is not supported by this version of tileiras: give --gpu-name."
	run tileiras "$J" --gpu-name=sm_90 --emit=json --stop-after=tile-read
	assert_failure 2
	assert_output --partial "error: nothing to do: the input (json"
	assert_output --partial ") is already past tile-read, which --emit=json stops after"
	run bash -c 'cat "$1" | TMPDIR="$2" tileiras /dev/stdin --gpu-name=sm_90' _ "$V" "$SCRATCH/none"
	assert_failure 5
	assert_line --index 0 "Failed to create temporary file: cannot create a directory in $SCRATCH/none"
	assert_line --index 1 "error: failed to compile Tile IR program"
}

@test "unknown option: exit 1, with NVIDIA's 'Did you mean' (LLVM's nearest option name)" {
	run tileiras "$V" --frobnicate
	assert_failure 1
	assert_output "$(printf '%s\n' "tileiras: Unknown command line argument '--frobnicate'.  Try: 'tileiras --help'" \
		"tileiras: Did you mean '--gpu-name'?")"
	# the suggestions NVIDIA's 13.5 makes (docs/nvidia-tileiras-cli.md), value kept
	local a want
	while IFS='|' read -r a want; do
		run --separate-stderr tileiras "$V" "$a"
		assert_failure 1
		assert_equal "${stderr##*$'\n'}" "tileiras: Did you mean '$want'?"
	done <<-'EOF'
	-x|-l
	--z|-l
	--foo|-o
	--gpu-nam|--gpu-name
	--gpuname=sm_90|--gpu-name=sm_90
	--gpuname=|--gpu-name
	--remark=all|--remarks=all
	--remarks-pased=all|--remarks-passed=all
	--sanitise=memcheck|--sanitize=memcheck
	--arhc=sm_90|--arch=sm_90
	--remarks-output=f|--remarks-output-file=f
	--Help|--help
	--versio|--version
	--print-option|--print-options
	--emitt=ptx|--emit=ptx
	EOF
	# a word that starts with a one-letter option is first a group of them (LLVM)
	run tileiras "$V" --lineinf
	assert_failure 1
	assert_output "$(printf '%s\n' "tileiras: for the -l option: may not occur within a group!" \
		"tileiras: Unknown command line argument '--lineinf'.  Try: 'tileiras --help'" "tileiras: Did you mean '-l'?")"
	run tileiras "$V" --optlevel=2
	assert_line --index 0 "tileiras: for the -o option: may not occur within a group!"
	assert_line --index 2 "tileiras: Did you mean '-o'?"
	run tileiras "$V" --host_os=linux
	assert_success
	assert_line --index 0 --partial "OVERVIEW: tileiras"
}

@test "options that need a value: exit 1 without one" {
	run tileiras "$V" --gpu-name=sm_90 -o
	assert_failure 1
	assert_output "tileiras: for the -o option: requires a value!"
	run tileiras "$V" --gpu-name
	assert_failure 1
	assert_output "tileiras: for the --gpu-name option: requires a value!"
}

@test "--gpu-name outside the table (and a/f spellings): exit 1" {
	for g in sm_99 sm_90a sm_100a compute_90 foo sm_107a sm_101; do
		run tileiras "$V" --gpu-name=$g
		assert_failure 1
		assert_output "tileiras: for the --gpu-name option: Cannot find option named '$g'!"
	done
}

@test "every target in libcommon/targets.def is accepted, and only those" {
	def=$(sed -n 's/^TARGET(\([a-z0-9_]*\),.*/\1/p' "$ROOT/libcommon/targets.def" | tr '\n' ' ')
	ours=$(sed -n 's/^TARGETS="\(.*\)"$/\1/p' "$ROOT/scripts/tileiras")
	assert_equal "$ours" "${def% }"
	tma=$(sed -n 's/^TARGET(\([a-z0-9_]*\),.*TF_TMA.*/\1/p' "$ROOT/libcommon/targets.def" | tr '\n' ' ')
	assert_equal "$(sed -n 's/^TMA_TARGETS="\(.*\)"$/\1/p' "$ROOT/scripts/tileiras")" "${tma% }"
	# the installed driver's lines are written from the table at build time
	assert_equal "$(sed -n 's/^TARGETS="\(.*\)"$/\1/p' "$BIN/tileiras-stages")" "${def% }"
	assert_equal "$(sed -n 's/^TMA_TARGETS="\(.*\)"$/\1/p' "$BIN/tileiras-stages")" "${tma% }"
	export TILEIRAS_TILE_READ="cat '$J'"
	for g in $def; do
		run tileiras "$V" --gpu-name=$g --emit=json -o -
		assert_success
	done
	run tileiras "$V" --arch sm_121 --emit=json -o -
	assert_success
	run tileiras "$V" --gpu-name sm_75 --emit=json -o -
	assert_success
}

@test "no --gpu-name for bytecode: exit 2, NVIDIA's message with the file's version" {
	run tileiras "$V"
	assert_failure 2
	assert_output "error: GPU architecture sm_0 is not supported by this version of tileiras. You may need a newer toolchain that supports this architecture (bytecode in file is version 13.4)."
	run tileiras "$CORPUS/13.1/vector_add.tileirbc" -o x.cubin
	assert_failure 2
	assert_output --partial "(bytecode in file is version 13.1)."
	assert_file_not_exists x.cubin
}

@test "optimization level: -O0..-O3 and --opt-level N; out of range exit 2; malformed exit 1" {
	export TILEIRAS_TILE_READ="cat '$J'"
	for o in -O0 -O1 -O2 -O3 --opt-level=0 "--opt-level 2"; do
		run tileiras "$V" --gpu-name=sm_90 --emit=json -o - $o
		assert_success
	done
	for o in -O4 -O9; do
		run tileiras "$V" --gpu-name=sm_90 $o
		assert_failure 2
		assert_output "error: invalid optimization level: ${o#-O}"
	done
	run tileiras "$V" --gpu-name=sm_90 --opt-level=-1
	assert_output "error: invalid optimization level: -1"
	run tileiras "$V" --gpu-name=sm_90 -Ofoo
	assert_failure 1
	assert_output "tileiras: for the --opt-level option: 'foo' value invalid for integer argument!"
	run tileiras "$V" --gpu-name=sm_90 -O=2
	assert_failure 1
	assert_output "tileiras: for the --opt-level option: '=2' value invalid for integer argument!"
	run tileiras "$V" --gpu-name=sm_90 -O 2
	assert_failure 1
	assert_output "tileiras: for the -O option: requires a value!"
}

@test "--opt-level is read as NVIDIA's (LLVM's int): radix prefixes, and a number past 32 bits is refused, exit 1" {
	local v
	for v in 99999999999999999999 2147483648 -2147483649 4294967299 0x80000000 020000000000 +3 08 0O7 0x 0b ' 3' 3x -; do
		run tileiras "$V" --gpu-name=sm_90 "--opt-level=$v"
		assert_failure 1
		assert_output "tileiras: for the --opt-level option: '$v' value invalid for integer argument!"
	done
	run tileiras "$V" --gpu-name=sm_90 -O99999999999999999999
	assert_output "tileiras: for the --opt-level option: '99999999999999999999' value invalid for integer argument!"
	# in range: NVIDIA's exit 2 with the value read
	while IFS='|' read -r v want; do
		run tileiras "$V" --gpu-name=sm_90 "--opt-level=$v"
		assert_failure 2
		assert_output "error: invalid optimization level: $want"
	done <<-'EOF'
	2147483647|2147483647
	-2147483648|-2147483648
	010|8
	0o7|7
	0xA|10
	-0x3|-3
	0x7fffffff|2147483647
	017777777777|2147483647
	EOF
	export TILEIRAS_TILE_READ="cat '$J'"
	for v in 0x3 0B11 00 -0 0003; do
		run tileiras "$V" --gpu-name=sm_90 "--opt-level=$v" --emit=json -o -
		assert_success
	done
}

@test "-g and --device-debug need -O0: exit 2" {
	for g in -g --device-debug; do
		run tileiras "$V" --gpu-name=sm_90 $g
		assert_failure 2
		assert_output "error: optimized debugging is currently not supported, change the optimization level to 0 or disable full debug info"
		run tileiras "$V" --gpu-name=sm_90 $g -O1
		assert_failure 2
	done
	export TILEIRAS_TILE_READ="cat '$J'"
	run tileiras "$V" --gpu-name=sm_90 -g -O0 --emit=json -o -
	assert_success
	run tileiras "$V" --gpu-name=sm_90 --device-debug=false --emit=json -o -
	assert_success
}

@test "checks run in NVIDIA's order: command line, input, bytecode, option values" {
	run tileiras nonexist -O5 --gpu-name=sm_90
	assert_failure 1
	printf 'garbage' >garbage.bin
	run tileiras garbage.bin -O5
	assert_failure 3
	run tileiras "$V" -O5 -g
	assert_failure 2
	assert_output --partial "sm_0"
	run tileiras "$V" -O5 -g --gpu-name=sm_90
	assert_output "error: invalid optimization level: 5"
	run tileiras nonexist --frobnicate
	assert_failure 1
	assert_output --partial "Unknown command line argument"
}

@test "enumerated options: bad values exit 1" {
	run tileiras "$V" --gpu-name=sm_90 --host-arch=arm64ec
	assert_failure 1
	assert_output "tileiras: for the --host-arch option: Cannot find option named 'arm64ec'!"
	run tileiras "$V" --gpu-name=sm_90 --host-os=mac
	assert_output "tileiras: for the --host-os option: Cannot find option named 'mac'!"
	run tileiras "$V" --gpu-name=sm_90 --sanitize=foo
	assert_output "tileiras: for the --sanitize option: Cannot find option named 'foo'!"
	run tileiras "$V" --gpu-name=sm_90 --remarks=bogus
	assert_failure 1
	run tileiras "$V" --gpu-name=sm_90 --remark-format=html
	assert_failure 1
	run tileiras "$V" --gpu-name=sm_90 --lineinfo=maybe
	assert_failure 1
	run tileiras "$V" --gpu-name=sm_90 --emit=asm
	assert_failure 1
}

@test "--preview: comma lists of NVIDIA's features (simt), each checked; repeatable" {
	export TILEIRAS_TILE_READ="cat '$J'"
	for p in simt simt,simt; do
		run tileiras "$V" --gpu-name=sm_90 --preview=$p --emit=json -o -
		assert_success
	done
	run tileiras "$V" --gpu-name=sm_90 --preview simt --preview=simt --emit=json -o -
	assert_success
	for p in bogus simt,bogus SIMT ''; do
		run tileiras "$V" --gpu-name=sm_90 --preview=$p
		assert_failure 1
		assert_output "tileiras: for the --preview option: unknown preview feature '${p##*,}'; supported features: simt"
	done
}

@test "-l: NVIDIA's exit 5 messages (needs simt; cannot open; not an object); after the remark file" {
	export TILEIRAS_TILE_READ="cat '$J'"
	run tileiras "$V" --gpu-name=sm_90 -l lib.a
	assert_failure 5
	assert_output "error: libraries require the 'simt' preview feature"
	run tileiras "$V" --gpu-name=sm_90 --preview=simt -l lib.a
	assert_failure 5
	assert_output "error: failed to open tile library: No such file or directory"
	run tileiras "$V" --gpu-name=sm_90 --preview=simt -l "$SCRATCH"
	assert_failure 5
	assert_output "error: failed to open tile library: Is a directory"
	echo garbage >g.bin
	run tileiras "$V" --gpu-name=sm_90 --preview=simt -l g.bin
	assert_failure 5
	assert_output "error: failed to open tile library: The file was not recognized as a valid object file"
	printf '\177ELF' >obj.o
	run tileiras "$V" --gpu-name=sm_90 --preview=simt -l=obj.o -o k.cubin
	assert_failure 5
	assert_output "error: tile library 'obj.o': linking tile libraries is not supported by this tileiras"
	assert_file_not_exists k.cubin
	# order: option values (2), then the remark file (3), then libraries (5)
	run tileiras "$V" --gpu-name=sm_90 -O7 -l lib.a
	assert_failure 2
	run tileiras "$V" --gpu-name=sm_90 -l lib.a --remarks=all --remark-format=yaml --remarks-output-file=nodir/r.yaml
	assert_failure 3
	run tileiras nonexist -l lib.a
	assert_failure 1
}

@test "--apply-controls: exit 2, NVIDIA's 'not supported on this platform', after the option values" {
	export TILEIRAS_TILE_READ="cat '$J'"
	echo x >c.acf
	run tileiras "$V" --gpu-name=sm_90 --apply-controls=c.acf
	assert_failure 2
	assert_output "error: --apply-controls is not supported on this platform"
	run tileiras "$V" --gpu-name=sm_90 --apply-controls c.acf -l x --remarks=all --remark-format=yaml --remarks-output-file=nodir/r.yaml
	assert_failure 2
	assert_output "error: --apply-controls is not supported on this platform"
	run tileiras "$V" --gpu-name=sm_90 -O7 --apply-controls=c.acf
	assert_failure 2
	assert_output "error: invalid optimization level: 7"
	run tileiras nonexist --apply-controls=c.acf
	assert_failure 1
}

@test "--print-options and --print-all-options: accepted booleans that print nothing, as NVIDIA's" {
	export TILEIRAS_TILE_READ="cat '$J'"
	for o in --print-options --print-all-options --print-options=false; do
		run --separate-stderr tileiras "$V" --gpu-name=sm_90 $o --emit=json -o out.json
		assert_success
		[ -z "$output" ] && [ -z "$stderr" ]
	done
	run tileiras "$V" --gpu-name=sm_90 --print-options=foo
	assert_failure 1
	assert_output "tileiras: for the --print-options option: 'foo' is invalid value for boolean argument! Try 0 or 1"
	run --separate-stderr tileiras --print-all-options
	assert_failure 1
	assert_equal "$(printf '%s' "$stderr" | head -1)" "error: no input file provided"
}

@test "sm_107 (Rubin): compiled as NVIDIA's 13.5 accepts it: LLVM writes sm_100's PTX, retargeted to .target sm_107 / PTX ISA 9.4" {
	run tileiras "$V" --gpu-name=sm_107 --emit=ptx -o "$SCRATCH/v.ptx"
	assert_success
	run grep -E '^\.(version|target)' "$SCRATCH/v.ptx"
	assert_output $'.version 9.4\n.target sm_107'
	# a matmul (TMA and mma.sync on the sm_100 family) too
	run tileiras "$ROOT/tests/mma/launch/matmul.matmul.ln6.5si_mkgq.tileirbc" --gpu-name=sm_107 --emit=ptx -o "$SCRATCH/m.ptx"
	assert_success
	run grep -cE '^\.target sm_107a?$' "$SCRATCH/m.ptx"
	assert_output 1
	run tileiras "$V" --gpu-name=sm_107a
	assert_failure 1
	assert_output "tileiras: for the --gpu-name option: Cannot find option named 'sm_107a'!"
}

@test "sm_107 with a ptxas older than 13.4: one message saying what is needed, exit 5 (not ptxas's 'sm_107a is not defined')" {
	printf '#!/bin/sh\necho "Cuda compilation tools, release 13.0, V13.0.88"; exit 0\n' >"$SCRATCH/ptxas"
	chmod +x "$SCRATCH/ptxas"
	run env TILEIRAS_NO_CACHE=1 TILEIRAS_PTXAS="$SCRATCH/ptxas" tileiras "$V" --gpu-name=sm_107 -o "$SCRATCH/v.cubin"
	assert_failure 5
	assert_line --index 0 "error: sm_107 takes PTX ISA 9.4, which ptxas $SCRATCH/ptxas (release 13.0) cannot assemble: ptxas 13.4 or newer is needed (make venv installs one from pip, nvidia-cuda-nvcc; or set TILEIRAS_PTXAS)"
	[ ! -e "$SCRATCH/v.cubin" ]
}

@test "sm_107 cubin from pip's ptxas 13.5: ELF for sm_107, as NVIDIA's" {
	p="$ROOT/.venv/lib/python3.11/site-packages/nvidia/cu13/bin"
	[ -x "$p/ptxas" ] && [ -x "$p/cuobjdump" ] || skip "no pip ptxas/cuobjdump in .venv: run 'make venv'"
	run env TILEIRAS_PTXAS="$p/ptxas" tileiras "$V" --gpu-name=sm_107 -o "$SCRATCH/v.cubin"
	assert_success
	run "$p/cuobjdump" -elf "$SCRATCH/v.cubin"
	assert_output --partial "sm=107"
}

@test "real stages: --sanitize=memcheck compiles (exit 0, as NVIDIA's) and ptxas instruments it" {
	for s in tile-read tile-lower tile-sched tile-ptx tile-pack; do require_stage $s; done
	require_ptxas
	run --separate-stderr tileiras "$V" --gpu-name=sm_90 -o plain.cubin
	assert_success
	run --separate-stderr tileiras "$V" --gpu-name=sm_90 --sanitize=memcheck -o mc.cubin -v
	assert_success
	[[ "$stderr" == *"-sanitize=memcheck"* ]]
	# instrumented: the memcheck cubin is larger (NVIDIA's: 17 KB -> 74 KB; ours with
	# ptxas 13.5: 8 KB -> 66 KB, with 13.0 and sm_90a: 8.6 KB -> 13 KB, 33 CALLs either
	# way; the plain cubin records ptxas's -v since tile-pack's occupancy check asks for
	# it: 8728 bytes, so the ratio is 1.48 there)
	[ "$(stat -c %s mc.cubin)" -gt $((13 * $(stat -c %s plain.cubin) / 10)) ]
}

@test "input that is not Tile IR bytecode: exit 3" {
	: >empty.bin
	printf 'garbage' >garbage.bin
	head -c 4 "$V" >short.bin
	for f in empty.bin garbage.bin short.bin; do
		run tileiras $f --gpu-name=sm_90 -o out.cubin
		assert_failure 3
		assert_line --index 1 "error: input does not correspond to Tile IR bytecode"
	done
	# the reason first (NVIDIA's says only the second line)
	run tileiras empty.bin --gpu-name=sm_90
	assert_line --index 0 "error: the file is empty (a Tile IR bytecode file starts with 7f 'TileIR' 00)"
	run tileiras garbage.bin --gpu-name=sm_90
	assert_line --index 0 "error: invalid magic number: byte 0 is 0x67, expected 0x7f (not a Tile IR bytecode file)"
	run tileiras short.bin --gpu-name=sm_90
	assert_line --index 0 "error: unexpected end of file in the magic number (a Tile IR bytecode file starts with 7f 'TileIR' 00) (offset 0x4)"
	assert_file_not_exists out.cubin
}

# --- composition ---------------------------------------------------------------

@test "a stage that is not built: exit 5, named, with how to stop before it" {
	mkdir bin
	cp "$BIN/tileiras" "$BIN/tileiras-stages" bin/
	run bin/tileiras "$V" --gpu-name=sm_90
	assert_failure 5
	assert_output "error: stage tile-read is not built (no $SCRATCH/bin/tile-read)"
	export TILEIRAS_TILE_READ="cat '$J'"
	run bin/tileiras "$V" --gpu-name=sm_90
	assert_failure 5
	assert_line --index 0 "error: stage tile-lower is not built (no $SCRATCH/bin/tile-lower)"
	assert_line --index 1 "tileiras: stop before it with --emit=json, or replace it: TILEIRAS_TILE_LOWER=\"command\""
	assert_file_not_exists elf.o
	export TILEIRAS_TILE_LOWER=cat TILEIRAS_TILE_SCHED=cat TILEIRAS_TILE_PTX="cat '$P/sm80_vecadd.ptx'"
	run bin/tileiras "$V" --gpu-name=sm_90
	assert_failure 5
	assert_output --partial "stage tile-pack is not built"
	assert_output --partial "stop before it with --emit=ptx"
}

@test "--emit=json stops after tile-read; --emit=text asks it for text" {
	export TILEIRAS_TILE_READ="cat '$J'"
	run tileiras "$V" --gpu-name=sm_90 --emit=json -o -
	assert_success
	assert_output "$(cat "$J")"
	export TILEIRAS_TILE_READ='echo "tile-read args: $*"'
	run tileiras "$V" --gpu-name=sm_90 --emit=text -o -
	assert_output "tile-read args: --emit=text"
	run tileiras "$V" --gpu-name=sm_90 --emit=json -o -
	assert_output "tile-read args: "
}

@test "--stop-after picks the IR stage for --emit=json|text" {
	fake_front
	export TILEIRAS_TILE_SCHED='echo "sched: $*"'
	run tileiras "$V" --gpu-name=sm_90 -O2 --emit=text --stop-after=tile-sched -o -
	assert_success
	assert_output "sched: --gpu-name=sm_90 --opt-level=2 --emit=text"
	run tileiras "$V" --gpu-name=sm_90 --emit=cubin --stop-after=tile-lower
	assert_failure 2
	assert_output "error: --stop-after needs --emit=json or --emit=text"
}

@test "each stage gets its arguments; substitutes see them as \$@" {
	export TILEIRAS_TILE_READ="cat '$J'"
	export TILEIRAS_TILE_LOWER='echo "LOWER: $*" >&2; cat'
	export TILEIRAS_TILE_SCHED='echo "SCHED: $*" >&2; cat'
	export TILEIRAS_TILE_PTX="echo \"PTX: \$*\" >&2; cat >/dev/null; cat '$P/sm80_vecadd.ptx'"
	export TILEIRAS_TILE_PACK='echo "PACK: $*" >&2; cat >/dev/null; echo CUBIN'
	run --separate-stderr tileiras "$V" --gpu-name=sm_100 -O0 -g --lineinfo --sanitize=memcheck \
		--host-arch=aarch64 --host-os=windows -o -
	assert_success
	assert_output CUBIN
	run printf '%s\n' "$stderr"
	assert_line "LOWER: --gpu-name=sm_100 --opt-level=0"
	assert_line "SCHED: --gpu-name=sm_100 --opt-level=0"
	assert_line "PTX: --gpu-name=sm_100 --opt-level=0 --lineinfo --device-debug --emit=ptx"
	assert_line "PACK: --gpu-name=sm_100 --opt-level=0 --lineinfo --device-debug --sanitize=memcheck --host-arch=aarch64 --host-os=windows --emit=cubin"
}

@test "--emit=ptx and --emit=llvm stop after tile-ptx" {
	fake_front
	export TILEIRAS_TILE_PTX='cat >/dev/null; echo "ptx: $*"'
	run tileiras "$V" --gpu-name=sm_90 --emit=ptx -o -
	assert_output "ptx: --gpu-name=sm_90 --opt-level=3 --emit=ptx"
	run tileiras "$V" --gpu-name=sm_90 --emit=llvm -o -
	assert_output "ptx: --gpu-name=sm_90 --opt-level=3 --emit=llvm"
}

@test "bytecode to cubin through every stage (front stages substituted): elf.o is a cubin" {
	require_ptxas
	fake_front
	run tileiras "$V" --gpu-name=sm_80
	assert_success
	assert_output ""
	[ "$(elf_machine elf.o)" = 190 ]
	run tileiras "$V" --gpu-name=sm_80 -o k.cubin --lineinfo -O2
	assert_success
	[ "$(elf_machine k.cubin)" = 190 ]
	tileiras "$V" --gpu-name=sm_80 -o - >stdout.cubin
	[ "$(elf_machine stdout.cubin)" = 190 ]
}

@test "--emit=fatbin and --emit=obj" {
	require_ptxas
	command -v fatbinary >/dev/null || [ -x /usr/local/cuda/bin/fatbinary ] || skip "no fatbinary"
	fake_front
	run tileiras "$V" --gpu-name=sm_80 --emit=fatbin -o k.fatbin
	assert_success
	[ "$(od -An -tx1 -N4 k.fatbin | tr -d ' ')" = 50ed55ba ]
	run tileiras "$V" --gpu-name=sm_80 --emit=obj -o k.o
	assert_success
	run readelf -S k.o
	assert_output --partial ".nv_fatbin"
}

@test "PTX input goes straight to tile-pack: sm_80, sm_90, sm_100, sm_120" {
	require_ptxas
	for f in sm80_vecadd:sm_80 sm90a_cluster:sm_90 sm100a_tmem:sm_100 sm120_half:sm_120; do
		run tileiras "$P/${f%%:*}.ptx" --gpu-name=${f#*:} -o "${f%%:*}.cubin"
		assert_success
		[ "$(elf_machine "${f%%:*}.cubin")" = 190 ]
	done
	run tileiras -v "$P/sm90a_cluster.ptx"
	assert_success
	assert_output --partial "+ $BIN/tile-pack --gpu-name=sm_90 "
	assert_output --partial "-arch sm_90a"
}

@test "JSON IR input starts at the stage after the one that wrote it" {
	export TILEIRAS_TILE_LOWER='cat >/dev/null; echo lowered'
	run tileiras "$J" --gpu-name=sm_90 --emit=json --stop-after=tile-lower -o -
	assert_success
	assert_output lowered
	run tileiras "$J" --gpu-name=sm_90 --emit=json -o -
	assert_failure 2
	assert_output --partial "nothing to do"
	run tileiras "$J" --emit=json --stop-after=tile-lower -o -
	assert_failure 2
	assert_output --partial "sm_0"
}

@test "a failing stage: named, its message passed through, exit 5, no output" {
	fake_front
	export TILEIRAS_TILE_LOWER='echo "lower: k.json: error: boom" >&2; exit 1'
	echo old >out.cubin
	run --separate-stderr tileiras "$V" --gpu-name=sm_90 -o out.cubin
	assert_failure 5
	[ -z "$output" ]
	assert_equal "$stderr" "$(printf '%s\n' 'lower: k.json: error: boom' 'error: failed to compile Tile IR program')"
	[ "$(cat out.cubin)" = old ]
	# -v names the stage (bookkeeping for those who asked to see the stages)
	run --separate-stderr tileiras "$V" --gpu-name=sm_90 -o out.cubin -v
	assert_failure 5
	[[ "$stderr" == *$'lower: k.json: error: boom\ntileiras: stage tile-lower failed (exit status 1)\nerror: failed to compile Tile IR program' ]]
	run tileiras "$V" --gpu-name=sm_90
	assert_failure 5
	assert_file_not_exists elf.o
	ls -A >files
	[ "$(cat files)" = "$(printf 'files\nout.cubin')" ]
}

@test "stage warnings are passed on when everything succeeds" {
	fake_front
	export TILEIRAS_TILE_LOWER='echo "lower: warning: slow" >&2; cat'
	run --separate-stderr tileiras "$V" --gpu-name=sm_90 --emit=json --stop-after=tile-lower -o out.json
	assert_success
	assert_equal "$stderr" "lower: warning: slow"
}

@test "tile-read failing: exit 3, like NVIDIA's bytecode errors" {
	export TILEIRAS_TILE_READ='echo "tile-read: x: offset 0x8: error: unsupported version" >&2; exit 1'
	run tileiras "$V" --gpu-name=sm_90 --emit=json
	assert_failure 3
	assert_line --index 0 "tile-read: x: offset 0x8: error: unsupported version"
	assert_line --index 1 "error: input does not correspond to Tile IR bytecode"
	refute_output --partial "stage tile-read"
	export TILEIRAS_TILE_READ='exit 134'
	run tileiras "$V" --gpu-name=sm_90 --emit=json
	assert_failure 5
}

@test "a stage killed by a signal is reported as such" {
	fake_front
	export TILEIRAS_TILE_SCHED='kill -SEGV $$'
	run tileiras "$V" --gpu-name=sm_90
	assert_failure 5
	assert_line --index 0 "error: the compiler crashed (killed by signal 11 (SEGV)): this is a bug in the compiler, not in your kernel; please report it (-v names the part that crashed)"
	assert_line --index 1 "error: failed to compile Tile IR program"
	run tileiras "$V" --gpu-name=sm_90 -v
	assert_failure 5
	assert_output --partial "tileiras: stage tile-sched was killed by signal 11 (SEGV)"
}

@test "the root cause is named, not an upstream stage that got SIGPIPE" {
	fake_front
	export TILEIRAS_TILE_READ='yes tile-ir | head -c 20000000'
	export TILEIRAS_TILE_LOWER='echo "lower: error: no" >&2; exit 1'
	run tileiras "$V" --gpu-name=sm_90 -v
	assert_failure 5
	assert_output --partial "tileiras: stage tile-lower failed (exit status 1)"
	refute_output --partial "stage tile-read "
}

@test "ptxas errors reach the user through the driver; exit 5, no output" {
	require_ptxas
	fake_front "$P/bad_operand.ptx"
	run tileiras "$V" --gpu-name=sm_80 -o k.cubin
	assert_failure 5
	assert_output --partial "error   : Unknown symbol '%f9'"
	assert_output --partial "error: ptxas exited with status 255"
	refute_output --partial "tile-pack"
	refute_output --partial "stage"
	assert_file_not_exists k.cubin
}

@test "ptxas missing: a clear error, exit 5" {
	if PATH=/usr/bin:/bin command -v ptxas >/dev/null; then skip "ptxas is in /usr/bin or /bin"; fi
	run env CUDA_ROOT="$SCRATCH/no-cuda" PATH="$BIN:/usr/bin:/bin" tileiras "$P/sm80_vecadd.ptx" -o k.cubin
	assert_failure 5
	assert_output --partial "error: ptxas not found (looked in $SCRATCH/no-cuda/bin (CUDA_ROOT), PATH, pip's nvidia/cu13/bin)"
	assert_output --partial "error: failed to compile Tile IR program"
	assert_file_not_exists k.cubin
}

@test "--save-temps keeps every intermediate; default directory is ." {
	require_ptxas
	fake_front
	run tileiras "$V" --gpu-name=sm_80 --save-temps=temps -o k.cubin
	assert_success
	cmp temps/vector_add.tile-read.json "$J"
	cmp temps/vector_add.tile-lower.json "$J"
	cmp temps/vector_add.tile-sched.json "$J"
	cmp temps/vector_add.tile-ptx.ptx "$P/sm80_vecadd.ptx"
	[ "$(elf_machine k.cubin)" = 190 ]
	run tileiras "$V" --gpu-name=sm_80 --save-temps --emit=ptx -o k.ptx
	assert_success
	assert_file_exists vector_add.tile-read.json
	assert_file_exists vector_add.tile-sched.json
	assert_file_not_exists vector_add.tile-ptx.ptx
	cmp k.ptx "$P/sm80_vecadd.ptx"
}

@test "--save-temps after a failure: the files of the stages before it, no empty ones" {
	fake_front
	export TILEIRAS_TILE_SCHED='exit 1'
	run tileiras "$V" --gpu-name=sm_80 --save-temps=t -o k.cubin
	assert_failure 5
	cmp t/vector_add.tile-read.json "$J"
	cmp t/vector_add.tile-lower.json "$J"
	assert_file_not_exists t/vector_add.tile-sched.json
	assert_file_not_exists t/vector_add.tile-ptx.ptx
	[ -z "$(find t -empty)" ]
}

@test "--save-temps into a directory that cannot be made: exit 2" {
	fake_front
	: >afile
	run tileiras "$V" --gpu-name=sm_80 --save-temps=afile/sub
	assert_failure 2
	assert_output --partial "--save-temps"
}

@test "-v prints each stage's command line" {
	fake_front
	run --separate-stderr tileiras -v "$V" --gpu-name=sm_90 --emit=json --stop-after=tile-sched -o out.json
	assert_success
	run printf '%s\n' "$stderr"
	assert_line --index 0 --regexp "^\+ sh -c .* tile-read$"
	assert_line --index 1 "+ sh -c cat tile-lower --gpu-name=sm_90 --opt-level=3"
	assert_line --index 2 "+ sh -c cat tile-sched --gpu-name=sm_90 --opt-level=3"
}

@test "output: -o - is stdout; missing directory exit 2; links and devices are written through" {
	export TILEIRAS_TILE_READ="cat '$J'"
	run tileiras "$V" --gpu-name=sm_90 --emit=json -o nodir/out.json
	assert_failure 2
	assert_output "error: cannot write output file 'nodir/out.json': No such file or directory"
	run tileiras "$V" --gpu-name=sm_90 --emit=json -o "$SCRATCH"
	assert_failure 2
	run tileiras "$V" --gpu-name=sm_90 --emit=json -o ''
	assert_failure 2
	: >target.json
	ln -s target.json link.json
	run tileiras "$V" --gpu-name=sm_90 --emit=json -o link.json
	assert_success
	[ -L link.json ]
	cmp target.json "$J"
	mkfifo fifo
	cat fifo >fromfifo &
	run tileiras "$V" --gpu-name=sm_90 --emit=json -o fifo
	wait
	assert_success
	[ -p fifo ]
	cmp fromfifo "$J"
}

@test "output files get the usual mode, not a temporary file's" {
	export TILEIRAS_TILE_READ="cat '$J'"
	umask 022
	tileiras "$V" --gpu-name=sm_90 --emit=json -o out.json
	[ "$(stat -c %a out.json)" = 644 ]
	ls -A >files
	[ "$(cat files)" = "$(printf 'files\nout.json')" ]
}

# --- remarks -------------------------------------------------------------------

@test "remarks: YAML file of per-kernel resources" {
	require_ptxas
	run tileiras "$P/resources.ptx" --remark-format=yaml --remarks=all --remarks-output-file=r.yaml -o k.cubin
	assert_success
	assert_output ""
	grep -q "^Function: *'stage'" r.yaml
	grep -q "^  - SharedMemory: *1024" r.yaml
	run tileiras "$P/resources.ptx" --remark-format=yaml --remarks=memory -o k.cubin
	assert_success
	grep -q "KernelResources" tileir_remarks.yaml
}

@test "remarks: command-line format goes to stdout; none without --remarks" {
	require_ptxas
	run --separate-stderr tileiras "$P/resources.ptx" --remarks=all -o k.cubin
	assert_success
	assert_line "in function: stage:"
	rm -f tileir_remarks.yaml
	run tileiras "$P/resources.ptx" --remark-format=yaml -o k.cubin
	assert_success
	assert_output ""
	assert_file_not_exists tileir_remarks.yaml
	run tileiras "$P/resources.ptx" --remarks=tensorcore -o k.cubin
	assert_output ""
}

@test "remarks: an unopenable remark file is exit 3, after the option checks, before compiling" {
	run tileiras "$V" --gpu-name=sm_90 --remark-format=yaml --remarks=all --remarks-output-file=nodir/r.yaml
	assert_failure 3
	assert_line --index 0 "Error opening remark output file 'nodir/r.yaml': No such file or directory"
	assert_line --index 1 "error: failed to enable optimization remarks"
	run tileiras "$V" --remark-format=yaml --remarks=all --remarks-output-file=nodir/r.yaml
	assert_failure 2
	assert_output --partial "sm_0"
}

@test "remarks: no remark file is left behind by a failed compile" {
	fake_front
	export TILEIRAS_TILE_LOWER='exit 1'
	run tileiras "$V" --gpu-name=sm_90 --remark-format=yaml --remarks=all --remarks-output-file=r.yaml
	assert_failure 5
	assert_file_not_exists r.yaml
}

# --- with the real stages, as they become available ------------------------------

@test "tile-read: --emit=json and --emit=text of real bytecode" {
	require_stage tile-read
	run tileiras "$V" --gpu-name=sm_90 --emit=json -o -
	assert_success
	assert_output --partial '"format": "tile-ir"'
	run tileiras "$V" --gpu-name=sm_90 --emit=text -o -
	assert_success
	assert_output --partial "cuda_tile.entry"
}

@test "tile-read: a corrupt file is exit 3 with tile-read's message" {
	require_stage tile-read
	run tileiras "$NV_CORPUS/invalid/invalid_section_id.tileirbc" --gpu-name=sm_90 --emit=json
	assert_failure 3
	assert_line --index 0 "error: unknown section ID: 127 (offset 0xc)"
	assert_line --index 1 "error: input does not correspond to Tile IR bytecode"
}

@test "real stages: vector_add bytecode to a cubin for sm_80, sm_90, sm_100, sm_120, temps kept" {
	for s in tile-read tile-lower tile-sched tile-ptx tile-pack; do require_stage $s; done
	require_ptxas
	for g in sm_80 sm_90 sm_100 sm_120; do
		run tileiras "$V" --gpu-name $g -o va_$g.cubin --save-temps=t_$g
		assert_success
		[ "$(elf_machine va_$g.cubin)" = 190 ]
		run readelf -sW va_$g.cubin
		assert_output --partial "vector_add_Kt1_A1f32_1l0_A1f32_1l0_A1f32_1l0_I128"
		for f in tile-read.json tile-lower.json tile-sched.json tile-ptx.ptx; do
			assert_file_exists t_$g/vector_add.$f
		done
		grep -q '"stage": "scheduled"' t_$g/vector_add.tile-sched.json
	done
}

@test "real stages: --lineinfo (cuTile always passes it or -g) assembles at -O3" {
	for s in tile-read tile-lower tile-sched tile-ptx tile-pack; do require_stage $s; done
	require_ptxas
	tileiras "$V" --gpu-name sm_90 --lineinfo --emit=ptx -o va.ptx
	# line tables only: no ", debug" on .target (ptxas takes that only at -O0)
	run grep -c '^\.target .*, debug' va.ptx
	assert_output 0
	grep -q '^[[:space:]]*\.file[[:space:]].*vector_add\.py"' va.ptx
	grep -q '^[[:space:]]*\.loc[[:space:]]*1 [1-9]' va.ptx
	for g in sm_80 sm_90 sm_100 sm_120; do
		run tileiras "$V" --gpu-name $g -O3 --lineinfo -o va_$g.cubin
		assert_success
		run readelf -S va_$g.cubin
		assert_output --partial "debug_line"
	done
}

@test "real stages: -g -O0 gives full debug info ('.target ..., debug') and assembles" {
	for s in tile-read tile-lower tile-sched tile-ptx tile-pack; do require_stage $s; done
	require_ptxas
	tileiras "$V" --gpu-name sm_90 -g -O0 --emit=ptx -o va.ptx
	grep -q '^\.target sm_90, debug' va.ptx
	run tileiras "$V" --gpu-name sm_90 -g -O0 -o va.cubin
	assert_success
}

@test "cuTile's version probe: an empty module compiles for sm_120" {
	for s in tile-read tile-lower tile-sched tile-ptx tile-pack; do require_stage $s; done
	require_ptxas
	for v in 13.1 13.2 13.3 13.4; do
		run tileiras "$CORPUS/$v/empty.tileirbc" -o probe.cubin --gpu-name sm_120
		assert_success
		[ "$(elf_machine probe.cubin)" = 190 ]
	done
}

# --- tileirdisasm (NVIDIA's interface; our text) -------------------------------

@test "tileirdisasm: installed beside tileiras; NVIDIA's options and exit codes" {
	[ -x "$BIN/tileirdisasm" ] || fail "make did not install tileirdisasm beside tileiras"
	cmp "$BIN/tileirdisasm" "$ROOT/scripts/tileirdisasm"
	run --separate-stderr tileirdisasm --help
	assert_success
	assert_output --partial "USAGE: tileirdisasm [options] <tile bytecode file>"
	for o in "  -g " --preview= --print-debug-info --version; do assert_output --partial -- "$o"; done
	run --separate-stderr tileirdisasm
	assert_failure 2
	assert_equal "$stderr" "error: no input file provided"
	run tileirdisasm nonexist.tileirbc
	assert_failure 2
	assert_output "error: unable to read input file 'nonexist.tileirbc': No such file or directory"
	: >afile
	run tileirdisasm afile/x
	assert_failure 2
	assert_output "error: unable to read input file 'afile/x': Not a directory"
	echo garbage >g.bin
	run --separate-stderr tileirdisasm g.bin
	assert_failure 3
	assert_equal "$(printf '%s\n' "$stderr" | tail -1)" "error: input does not correspond to Tile IR bytecode"
	run tileirdisasm "$V" "$V"
	assert_failure 1
	assert_line --index 0 "tileirdisasm: Too many positional arguments specified!"
	run tileirdisasm -o x "$V"
	assert_failure 1
	assert_output "tileirdisasm: Unknown command line argument '-o'.  Try: 'tileirdisasm --help'"
	run tileirdisasm --preview=bogus "$V"
	assert_failure 1
	assert_output "tileirdisasm: for the --preview option: unknown preview feature 'bogus'; supported features: simt"
}

@test "tileirdisasm: the dialect's assembly syntax (tile-read --emit=asm); locations only with -g; any file name" {
	require_stage tile-read
	run --separate-stderr tileirdisasm "$V" --preview=simt
	assert_success
	assert_equal "$output" "$(tile-read --emit=asm "$V")"
	assert_output --partial "entry @vector_add"
	refute_output --partial "cuda_tile."
	refute_output --partial 'loc('
	run --separate-stderr tileirdisasm -g "$V"
	assert_success
	assert_equal "$output" "$(tile-read --emit=asm-debug "$V")"
	assert_output --partial 'loc("tests/kernels/vector_add.py":'
	cp "$V" ./-k.tileirbc
	run --separate-stderr tileirdisasm -- -k.tileirbc
	assert_success
	assert_output --partial "entry @vector_add"
}

@test "tileirdisasm: cuTile's own _bytecode_to_mlir_text (CUDA_TILE_DUMP_TILEIR) runs ours beside our tileiras" {
	require_stage tile-read
	"$ROOT/.venv/bin/python" -c 'import cuda.tile._compile' 2>/dev/null || skip "no .venv with cuda-tile: run 'make venv' (creates .venv with NVIDIA's pip wheels, ~550 MB, needs the network)"
	run "$ROOT/.venv/bin/python" - "$BIN" "$V" <<'PY'
import sys, types
import cuda.tile._compile as c
# as when our tileiras is the one cuTile found (PATH, no pip tileiras)
c._find_compiler_bin = lambda: types.SimpleNamespace(path=sys.argv[1] + "/tileiras")
c._find_tileirdisasm_bin.cache_clear()
print(c._find_tileirdisasm_bin())
print(c._bytecode_to_mlir_text(open(sys.argv[2], "rb").read()))
PY
	assert_success
	assert_line --index 0 "$BIN/tileirdisasm"
	assert_output --partial "entry @vector_add"
}
