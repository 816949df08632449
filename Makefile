# Build: every stage is a library (build/lib/libSTAGE.a) plus a thin main
# (build/bin/STAGE). libcommon is shared by all. See docs/architecture.md.

.SUFFIXES:

CC       = gcc
BUILD    ?= build
LLVM_CONFIG ?= llvm-config-22
WERROR   ?= -Werror
CFLAGS   = -O2 -g
CFLAGS_ALL = -std=c11 -Wall -Wextra -Wno-unused-parameter -Wshadow $(WERROR) \
             -Ilibcommon $(CFLAGS) $(EXTRA_CFLAGS)
LDLIBS_COMMON = -ljansson -lm

TOOLS = tile-ir tile-read tile-lower tile-sched tile-ptx tile-pack tile-run
# tools that link LLVM
LLVM_TOOLS = tile-ptx tile-pack

COMMON_SRC = $(wildcard libcommon/*.c)
COMMON_OBJ = $(COMMON_SRC:%.c=$(BUILD)/obj/%.o)
COMMON_HDR = $(wildcard libcommon/*.h libcommon/*.def)

BINS = $(foreach t,$(TOOLS),$(if $(wildcard tools/$(t)/main.c),$(BUILD)/bin/$(t))) $(BUILD)/bin/tile-run

# C test programs, built here and run by the Bats files from $(BUILD)/tests
# (rules below, after the tools)
UNIT_TESTS = $(addprefix $(BUILD)/tests/,unit-libcommon unit-layout unit-layout-map unit-verify read-truncate)

all: deps-check $(BINS) $(UNIT_TESTS) $(if $(wildcard scripts/tileiras),$(BUILD)/bin/tileiras $(BUILD)/bin/tileiras-stages) \
     $(BUILD)/lib/libtileiras.a $(BUILD)/lib/libtileiras.so $(BUILD)/bin/tileiras-inproc $(BUILD)/tests/api-test $(BUILD)/tests/api-test-so \
     $(BUILD)/lib/libtilerun.a $(BUILD)/lib/libtilerun.so $(BUILD)/tests/tilerun-test

deps-check:
	@command -v $(LLVM_CONFIG) >/dev/null 2>&1 || { echo "error: $(LLVM_CONFIG) not found: install the Debian package llvm-22-dev (or run scripts/install-deps as root)" >&2; exit 1; }
	@test -f /usr/include/jansson.h || { echo "error: jansson.h not found: install the Debian package libjansson-dev (or run scripts/install-deps as root)" >&2; exit 1; }

deps:
	scripts/install-deps

$(BUILD)/obj/%.o: %.c $(COMMON_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(if $(filter $(addprefix tools/,$(LLVM_TOOLS)),$(patsubst %/,%,$(dir $<))),$$($(LLVM_CONFIG) --cflags | sed 's/-std=[^ ]*//')) -I$(dir $<) -MMD -MP -c $< -o $@

$(BUILD)/lib/libcommon.a: $(COMMON_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

# tile-pack makes host objects for either architecture (--host-arch): its link
# asks for both backends, which a static LLVM link (scripts/gpu-bundle) would
# otherwise leave out for the one tools/tile-pack/hostobj.c references weakly
HOST_BACKENDS = $(foreach a,X86 AArch64,$(foreach p,TargetInfo Target TargetMC AsmPrinter,-Wl,--undefined=LLVMInitialize$(a)$(p)))
define tool_rules
$(1)_SRC = $$(filter-out tools/$(1)/main.c,$$(wildcard tools/$(1)/*.c))
$(1)_OBJ = $$($(1)_SRC:%.c=$(BUILD)/obj/%.o)
$(BUILD)/lib/lib$(1).a: $$($(1)_OBJ)
	@mkdir -p $$(dir $$@)
	rm -f $$@ && ar rcs $$@ $$^
endef
define tool_bin_rule
$(BUILD)/bin/$(1): $(BUILD)/obj/tools/$(1)/main.o $(BUILD)/lib/lib$(1).a $(BUILD)/lib/libcommon.a
	@mkdir -p $$(dir $$@)
	$$(CC) $$(CFLAGS_ALL) $$(LDFLAGS) -o $$@ $$^ $(LDLIBS_COMMON) $(if $(filter $(1),tile-pack),$(HOST_BACKENDS)) $(if $(filter $(1),$(LLVM_TOOLS)),$$$$($(LLVM_CONFIG) --ldflags --libs nvptx x86 aarch64 bitwriter bitreader linker ipo passes target mc) $$$$($(LLVM_CONFIG) --system-libs))
endef
$(foreach t,$(TOOLS),$(eval $(call tool_rules,$(t))))
$(foreach t,$(TOOLS),$(if $(wildcard tools/$(t)/main.c),$(eval $(call tool_bin_rule,$(t)))))

# C test programs: each links the libraries it tests (same flags as the tools,
# so check-asan builds them sanitized too).
#   unit-libcommon   tests/unit/libcommon_test.c      (unit.bats)
#   unit-layout      tests/pipeline/layout_test.c     (pipeline.bats)
#   unit-layout-map  tests/reduce/layout_map_test.c   (reduce.bats)
#   unit-verify      tests/verify/unit.c              (verify.bats)
#   read-truncate    tests/read/truncate_test.c       (read.bats: every prefix of the corpus)
$(BUILD)/tests/unit-libcommon: $(BUILD)/obj/tests/unit/libcommon_test.o $(BUILD)/lib/libcommon.a
$(BUILD)/tests/unit-layout: $(BUILD)/obj/tests/pipeline/layout_test.o $(BUILD)/lib/libcommon.a
$(BUILD)/tests/unit-layout-map: $(BUILD)/obj/tests/reduce/layout_map_test.o $(BUILD)/lib/libcommon.a
$(BUILD)/tests/unit-verify: $(BUILD)/obj/tests/verify/unit.o $(BUILD)/lib/libcommon.a
$(BUILD)/tests/read-truncate: $(BUILD)/obj/tests/read/truncate_test.o $(BUILD)/lib/libtile-read.a $(BUILD)/lib/libcommon.a
$(BUILD)/obj/tests/read/truncate_test.o: CFLAGS_ALL += -Itools/tile-read
$(UNIT_TESTS):
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(LDFLAGS) -o $@ $^ $(LDLIBS_COMMON)

# libtileiras (docs/libtileiras.md): the in-process C API, the stage
# libraries chained in memory. libtileiras.a holds every object it needs
# (libcommon's and the five stages' too: `ar q`, since libcommon and
# tile-read both have a types.o); libtileiras.so is built from -fPIC copies
# in $(BUILD)/pic and exports only the tileiras* calls.
LIB_STAGES = tile-read tile-lower tile-sched tile-ptx tile-pack
LIBTILEIRAS_SRC = libtileiras/program.c libtileiras/compile.c libtileiras/version.c
LIBTILEIRAS_ALL_SRC = $(LIBTILEIRAS_SRC) $(foreach t,$(LIB_STAGES),$($(t)_SRC)) $(COMMON_SRC)
LLVM_LINK = $$($(LLVM_CONFIG) --ldflags --libs nvptx x86 aarch64 bitwriter bitreader linker ipo passes target mc) $$($(LLVM_CONFIG) --system-libs)
$(BUILD)/obj/libtileiras/%.o $(BUILD)/pic/libtileiras/%.o: CFLAGS_ALL += -Ilibtileiras $(addprefix -Itools/,$(LIB_STAGES)) -I$(shell $(LLVM_CONFIG) --includedir 2>/dev/null)
$(BUILD)/pic/%.o: %.c $(COMMON_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -fPIC $(if $(filter $(addprefix tools/,$(LLVM_TOOLS)),$(patsubst %/,%,$(dir $<))),$$($(LLVM_CONFIG) --cflags | sed 's/-std=[^ ]*//')) -I$(dir $<) -MMD -MP -c $< -o $@
# NVIDIA's PTX compiler library (pip's nvidia-nvptxcompiler, `make venv`),
# when present: libtileiras.so assembles in process (libtileiras/ptxc.c,
# tools/tile-pack/assemble.c), ~8-10 ms less a compile for a client that
# keeps the library loaded. Not in tileiras-inproc: for one compile per
# process it saved ~10% of the time for ~50% more peak memory (0.66x
# NVIDIA's, the issue's bound is 0.5x; docs/libtileiras.md). Optional:
# without it (CI, a bare clone) libtileiras.so runs ptxas.
# NVPTXC_LIB= (empty) builds without it.
NVPTXC_LIB ?= $(firstword $(wildcard .venv/lib/python3*/site-packages/nvidia/cu*/lib/libnvptxcompiler_static.a))
NVPTXC_PIC = $(if $(NVPTXC_LIB),$(BUILD)/pic/libtileiras/ptxc.o)
$(BUILD)/pic/libtileiras/ptxc.o: libtileiras/ptxc.c tools/tile-pack/pack.h $(NVPTXC_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -fPIC -Ilibtileiras $(addprefix -Itools/,$(LIB_STAGES)) \
		-I$(dir $(NVPTXC_LIB))../include -c $< -o $@
$(BUILD)/lib/libtileiras.a: $(LIBTILEIRAS_ALL_SRC:%.c=$(BUILD)/obj/%.o)
	@mkdir -p $(dir $@)
	rm -f $@ && ar qc $@ $^ && ranlib $@
$(BUILD)/lib/libtileiras.so: $(LIBTILEIRAS_ALL_SRC:%.c=$(BUILD)/pic/%.o) $(NVPTXC_PIC) libtileiras/exports.map
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(LDFLAGS) -shared -Wl,-soname,libtileiras.so -Wl,--version-script=libtileiras/exports.map \
		-o $@ $(filter %.o,$^) $(NVPTXC_LIB) $(LDLIBS_COMMON) $(LLVM_LINK) $(if $(NVPTXC_LIB),-lstdc++ -ldl -lrt) -lpthread
# tileiras-inproc is what scripts/tileiras runs for every bytecode -> cubin
# compile (its fast path), so it links LLVM statically where llvm-config has
# the static libraries: no libLLVM.so to map and relocate at each start,
# ~20 ms and ~20 MB less per compile (docs/benchmarks.md "Compile time").
# INPROC_STATIC=0 links it like the tools.
INPROC_STATIC ?= 1
ZSTD_LIB = $(or $(firstword $(wildcard /usr/lib/*/libzstd.so /lib/*/libzstd.so /usr/lib/*/libzstd.so.1 /lib/*/libzstd.so.1)),-lzstd)
# libstdc++ statically too where its archive is installed: LLVM's ~5,300
# vtable and typeinfo pointers into libstdc++.so are then resolved at link
# time, not looked up by the loader at every start (~200 page faults and
# 1-1.5 ms fewer per compile; docs/benchmarks.md, session 15)
STATIC_CXX = $(if $(filter /%,$(shell $(CC) -print-file-name=libstdc++.a)),-Wl$(comma)-Bstatic -lstdc++ -Wl$(comma)-Bdynamic,-lstdc++)
comma := ,
LLVM_STATIC_LINK = $$($(LLVM_CONFIG) --ldflags) $$($(LLVM_CONFIG) --link-static --libs nvptx x86 aarch64 bitwriter bitreader linker ipo passes target mc) \
	-lrt -ldl -lm -lz $(ZSTD_LIB) $(STATIC_CXX)
INPROC_LLVM = $(if $(and $(filter 1,$(INPROC_STATIC)),$(shell $(LLVM_CONFIG) --link-static --libs nvptx >/dev/null 2>&1 && echo y)),$(LLVM_STATIC_LINK),$(LLVM_LINK))
# -no-pie: no relative relocations for the loader to apply to LLVM's ~76,000
# pointers at each start (~120 page faults fewer; 1-3% of a small compile).
$(BUILD)/bin/tileiras-inproc: $(BUILD)/obj/libtileiras/inproc_main.o $(BUILD)/lib/libtileiras.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(LDFLAGS) -no-pie -o $@ $^ $(LDLIBS_COMMON) $(INPROC_LLVM) -lpthread
# tests/lib/api_test.c (libtileiras.bats): links the static library; calloc
# wrapped so the test can make the handle's allocation fail (code 1)
$(BUILD)/obj/tests/lib/%.o: CFLAGS_ALL += -Ilibtileiras
$(BUILD)/tests/api-test: $(BUILD)/obj/tests/lib/api_test.o $(BUILD)/lib/libtileiras.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(LDFLAGS) -Wl,--wrap=calloc -o $@ $^ $(LDLIBS_COMMON) $(LLVM_LINK) -lpthread

# api-test-so: the same program against libtileiras.so (no calloc wrapping)
$(BUILD)/obj/tests/lib/api_test_so.o: tests/lib/api_test.c libtileiras/tileiras.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -DAPI_TEST_SHARED -MMD -MP -c $< -o $@
$(BUILD)/tests/api-test-so: $(BUILD)/obj/tests/lib/api_test_so.o $(BUILD)/lib/libtileiras.so
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(LDFLAGS) -o $@ $< -L$(BUILD)/lib -ltileiras -Wl,-rpath,'$$ORIGIN/../lib' -lpthread

# libtilerun (docs/tile-run.md "The library"): tile-run as a library, its
# engine tools/tile-run's objects under libtilerun/'s API (all but cli.c and
# run_main.c, the command's). libtilerun.a holds the engine and the API; a
# program links libcommon.a (or libtileiras.a, which holds it) after it. Its
# bytecode call (bytecode.o) needs libtileiras.a and LLVM, and is left out
# by a program that does not call it (the tile-run command). libtilerun.so
# takes of libcommon only what it calls (a PIC archive). It links
# libtileiras.so (rpath $$ORIGIN) rather than its objects: a process using
# both (cuTile on the CPU compiles and runs) maps one compiler and one LLVM,
# and a program using only PTX loads LLVM lazily with the compiler; it
# exports only the tilerun* calls (libtilerun/exports.map).
LIBTILERUN_SRC = libtilerun/call.c libtilerun/module.c libtilerun/shape.c libtilerun/launch.c libtilerun/bytecode.c
LIBTILERUN_ALL_SRC = $(LIBTILERUN_SRC) $(tile-run_SRC)
$(BUILD)/obj/libtilerun/%.o $(BUILD)/pic/libtilerun/%.o: CFLAGS_ALL += -Ilibtilerun -Itools/tile-run -Ilibtileiras
$(BUILD)/lib/libtilerun.a: $(LIBTILERUN_ALL_SRC:%.c=$(BUILD)/obj/%.o)
	@mkdir -p $(dir $@)
	rm -f $@ && ar qc $@ $^ && ranlib $@
$(BUILD)/pic/libcommon.a: $(COMMON_SRC:%.c=$(BUILD)/pic/%.o)
	rm -f $@ && ar rcs $@ $^
$(BUILD)/lib/libtilerun.so: $(LIBTILERUN_ALL_SRC:%.c=$(BUILD)/pic/%.o) $(BUILD)/pic/libcommon.a libtilerun/exports.map \
		$(BUILD)/lib/libtileiras.so
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(LDFLAGS) -shared -Wl,-soname,libtilerun.so -Wl,--version-script=libtilerun/exports.map \
		-o $@ $(filter %.o %.a,$^) -L$(BUILD)/lib -ltileiras -Wl,-rpath,'$$ORIGIN' $(LDLIBS_COMMON) -lpthread
# the tile-run command: its main and options (libtilerun/cli.c) over libtilerun.a
$(BUILD)/bin/tile-run: $(BUILD)/obj/libtilerun/run_main.o $(BUILD)/obj/libtilerun/cli.o $(BUILD)/lib/libtilerun.a \
		$(BUILD)/lib/libcommon.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(LDFLAGS) -o $@ $^ $(LDLIBS_COMMON)
# tests/lib/tilerun_test.c (librun.bats) against libtilerun.so
$(BUILD)/obj/tests/lib/tilerun_test.o: CFLAGS_ALL += -Ilibtilerun
$(BUILD)/tests/tilerun-test: $(BUILD)/obj/tests/lib/tilerun_test.o $(BUILD)/lib/libtilerun.so
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(LDFLAGS) -o $@ $< -L$(BUILD)/lib -ltilerun -Wl,-rpath,'$$ORIGIN/../lib' -lpthread

# tileiras_cpu's CPU driver (python/tileiras_cpu/fakecuda, docs/cutile-cpu.md):
# a shared library with the soname libcuda.so.1 that cuTile Python loads in
# place of NVIDIA's; it opens libtilerun at run time (no link to it).
FAKECUDA_SRC = $(wildcard python/tileiras_cpu/fakecuda/*.c)
$(BUILD)/pic/python/%.o: python/%.c python/tileiras_cpu/fakecuda/fakecuda.h libtilerun/tilerun.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -fPIC -Ilibtilerun -c $< -o $@
$(BUILD)/lib/tileiras_cpu/libcuda.so.1: $(FAKECUDA_SRC:python/%.c=$(BUILD)/pic/python/%.o)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(LDFLAGS) -shared -Wl,-soname,libcuda.so.1 -o $@ $^ -ldl -lpthread
all: $(BUILD)/lib/tileiras_cpu/libcuda.so.1

# the build's identity (scripts/build-id: a hash of the compiler's sources),
# rewritten only when it changes; the installed script's --version shows it
$(BUILD)/build-id: FORCE
	@mkdir -p $(dir $@)
	@scripts/build-id >$@.tmp && { cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@; }
FORCE:
# libtileiras's tileirasGetVersion (libtileiras/version.c) carries the same id
$(BUILD)/gen/build_id.h: $(BUILD)/build-id
	@mkdir -p $(dir $@)
	printf '#define TILEIRAS_VERSION "%s"\n#define TILEIRAS_BUILD_ID "%s"\n' \
		"$$(sed -n 's/^VERSION=//p' scripts/tileiras)" "$$(cat $<)" >$@
$(BUILD)/obj/libtileiras/version.o $(BUILD)/pic/libtileiras/version.o: $(BUILD)/gen/build_id.h
$(BUILD)/obj/libtileiras/version.o $(BUILD)/pic/libtileiras/version.o: CFLAGS_ALL += -I$(BUILD)/gen
# `tileiras` is a small C program (libtileiras/launch_main.c, libc only): it
# execs tileiras-inproc for cuTile's compile line, else tileiras-stages, the
# driver script scripts/tileiras (its build id written in). Of libcommon it
# links only the environment's two readers (knobs.c, toolkit.c: libc only).
$(BUILD)/bin/tileiras: $(BUILD)/obj/libtileiras/launch_main.o $(BUILD)/obj/libcommon/knobs.o $(BUILD)/obj/libcommon/toolkit.o
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(LDFLAGS) -o $@ $^
# the driver's target lists are libcommon/targets.def's (all; those with TF_TMA)
DEF_TARGETS = $(shell sed -n 's/^TARGET.\([a-z0-9_]*\),.*/\1/p' libcommon/targets.def)
DEF_TMA_TARGETS = $(shell sed -n 's/^TARGET.\([a-z0-9_]*\),.*TF_TMA.*/\1/p' libcommon/targets.def)
$(BUILD)/bin/tileiras-stages: scripts/tileiras scripts/tileirdisasm $(BUILD)/build-id libcommon/targets.def
	@mkdir -p $(dir $@)
	sed -e "s/^BUILD_ID=source$$/BUILD_ID=$$(cat $(BUILD)/build-id)/" -e 's/^TARGETS=.*/TARGETS="$(DEF_TARGETS)"/' \
	    -e 's/^TMA_TARGETS=.*/TMA_TARGETS="$(DEF_TMA_TARGETS)"/' scripts/tileiras >$@ && chmod +x $@
	cp scripts/tileirdisasm $(dir $@)tileirdisasm && chmod +x $(dir $@)tileirdisasm

# The one test command (README, .ci/run): installs what is missing, builds, runs every suite.
# Every suite; first NVIDIA's wheels into .venv (pinned, VENV_PKGS), which the
# comparisons with NVIDIA's compiler need: where PyPI cannot be reached those
# tests skip, each saying why, and the rest run.
test: deps
	$(MAKE) -s venv || echo "make test: NVIDIA's wheels could not be installed into .venv (no network?): the comparisons with NVIDIA's compiler will skip" >&2
	$(MAKE) all
	BIN=$(abspath $(BUILD)/bin) scripts/run-tests

# The main job (README): install what is missing, build, compile the example kernel.
example: deps
	$(MAKE) all
	scripts/example $(GPU)

# The suite with ASan/UBSan, then FUZZ_SECONDS of structured fuzzing of the
# stages (scripts/fuzz-stages) and of tile-run (scripts/fuzz-run,
# docs/robustness.md); fails if any finds a fault.
FUZZ_SECONDS ?= 60
check-asan:
	$(MAKE) BUILD=build-asan EXTRA_CFLAGS="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined" LDFLAGS="-fsanitize=address,undefined" all
	st=0; ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
		BIN=$(abspath build-asan/bin) scripts/run-tests || st=1; \
	scripts/fuzz-stages --bin build-asan/bin $(FUZZ_SECONDS) || st=1; \
	scripts/fuzz-run --bin build-asan/bin $(FUZZ_SECONDS) || st=1; \
	scripts/fuzz-read --mlir $(FUZZ_SECONDS) --bin build-asan/bin || st=1; \
	exit $$st

# libtileiras's threads under ThreadSanitizer (docs/libtileiras.md): api-test
# built with -fsanitize=thread compiles corpus kernels in 4 threads at once.
TSAN_KERNELS = $(addprefix tests/corpus/13.4/,vector_add.tileirbc softmax.tileirbc layer_norm.tileirbc reduce_sum.tileirbc matmul.tileirbc)
check-tsan-lib:
	$(MAKE) BUILD=build-tsan EXTRA_CFLAGS="-fsanitize=thread -fno-omit-frame-pointer" LDFLAGS="-fsanitize=thread" build-tsan/tests/api-test
	PATH=/usr/local/cuda/bin:$$PATH TSAN_OPTIONS=halt_on_error=1 build-tsan/tests/api-test threads 4 sm_90 $(TSAN_KERNELS)

# NVIDIA's tools from their pip wheels in .venv (~550 MB the first time, needs
# the network; `make test` runs it), for the tests that compare with NVIDIA's
# tileiras, and cuTile Python with ml_dtypes for tileiras_cpu, which a .pth
# file puts on .venv's path (docs/cutile-cpu.md). Pinned: the comparisons are
# with this release.
NV_VERSION = 13.5.37
VENV_PKGS = nvidia-cuda-tileiras==$(NV_VERSION) nvidia-cuda-cuobjdump==$(NV_VERSION) nvidia-cuda-nvdisasm==$(NV_VERSION) \
            nvidia-cuda-nvcc==$(NV_VERSION) nvidia-nvptxcompiler==$(NV_VERSION) cuda-tile==1.7.0 numpy==2.4.6 ml_dtypes==0.5.4
venv:
	test -x .venv/bin/python || python3 -m venv .venv
	.venv/bin/python -m pip install -q --disable-pip-version-check $(VENV_PKGS)
	.venv/bin/python -c 'import site, sys; open(site.getsitepackages()[0] + "/tileiras_cpu.pth", "w").write(sys.argv[1] + "\n")' $(abspath python)

clean:
	rm -rf build build-asan build-tsan

# What scripts/cutile-suite-cpu needs beside .venv's cuda-tile: torch (PyPI's
# build; its CUDA libraries come along, ~4 GB, only torch's CPU side is used),
# pytest and pytest-timeout. Not part of `make test`.
SUITE_PKGS = torch==2.15.0 pytest==9.2.0 pytest-timeout==2.4.0 pytest-benchmark==5.3.1 pytest-env==1.2.0
venv-suite: venv
	.venv/bin/python -m pip install -q --disable-pip-version-check $(SUITE_PKGS)

.PHONY: all deps deps-check test example check-asan check-tsan-lib venv venv-suite clean
-include $(shell find $(BUILD)/obj $(BUILD)/pic -name '*.d' 2>/dev/null)
