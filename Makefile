# scibench — see README.md. `make help` lists the targets.
SHELL := /bin/bash

CC        := $(if $(filter default,$(origin CC)),gcc,$(CC))
# SANITIZE=1: AddressSanitizer + UBSan, CUDA off, in build-san/ (tests/README.md). At -O1
# gcc's truncation analysis flags the bounded snprintf copies that -O3 lets through.
SANITIZE  ?= 0
ifeq ($(SANITIZE),1)
BUILD     ?= build-san
CUDA      := 0
CFLAGS    ?= -O1 -march=$(ARCH) -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all \
             -Wno-format-truncation
endif
BUILD     ?= build
# x86-64-v3 = AVX2 + FMA; `make AVX512=1` builds for x86-64-v4 (AVX-512).
ARCH      ?= $(if $(filter 1,$(AVX512)),x86-64-v4,x86-64-v3)
CUDA_HOME ?= $(or $(patsubst %/bin/nvcc,%,$(shell command -v nvcc 2>/dev/null)),/usr/local/cuda)
NVCC      ?= $(CUDA_HOME)/bin/nvcc
CUDA      ?= $(if $(wildcard $(NVCC)),1,0)
CUDA_ARCH ?= 90

# ISO C11 (not gnu11) also means -ffp-contract=off: the CPU rounds exactly as written,
# which the kernels' bit-reproducibility across backends relies on.
CFLAGS   ?= -O3 -march=$(ARCH) -g
CFLAGS   += -std=c11 -D_POSIX_C_SOURCE=200809L -fopenmp -ffp-contract=off -fno-math-errno -fno-trapping-math -Wall -Wextra -Werror -MMD -MP \
            -Icore -Iharness -Iruntime/cuda -Iruntime/openmp_simd -Ikernels -I$(BUILD)/gen
NVFLAGS  ?= -O3 -lineinfo
NVFLAGS  += -std=c++17 -gencode arch=compute_$(CUDA_ARCH),code=[sm_$(CUDA_ARCH),compute_$(CUDA_ARCH)] \
            -Werror all-warnings -Xcompiler -Wall,-Wextra,-Werror -MMD -MP \
            -Icore -Iharness -Iruntime/cuda -Iruntime/openmp_simd -Ikernels -I$(BUILD)/gen
# LAPACKE + OpenBLAS linked statically (with libgfortran): the GPU machine has no Debian libraries;
# NLopt (dfratom_scf job=bsopt) has no static build in Debian: carry libnlopt0 to the device.
# PAPI (CPU counters for --profile) static too, with its libpfm4.
# OpenBLAS's OpenMP build: its pthread build serialises small solves called from many threads at
# once (dfratom_scf's candidates; kernels/dfratom_scf/NOTES.md), and its serial build is not safe
# to call so. OPENBLAS_DIR= (empty) links whichever libopenblas.a the linker finds.
OPENBLAS_DIR ?= $(patsubst %/libopenblas.a,%,$(firstword $(wildcard /usr/lib/*/openblas-openmp/libopenblas.a)))
LDLIBS   := -ljansson -lfftw3 $(if $(OPENBLAS_DIR),-L$(OPENBLAS_DIR)) -Wl,-Bstatic -llapacke -lopenblas -lgfortran -lquadmath -lpapi -lpfm -Wl,-Bdynamic -lnlopt -lpthread -lm
ifeq ($(CUDA),1)
CFLAGS   += -DSB_HAVE_CUDA=1
LDLIBS   += -L$(CUDA_HOME)/lib64 -lcufft -lcusolver -lcublas -Wl,-rpath,$(CUDA_HOME)/lib64 -lcudart_static -ldl -lrt -lpthread -lstdc++
endif

# NCCL (GPU-to-GPU halos and reductions under MPI): its header where it is installed, found
# without a flag: NCCL_HOME, the CUDA toolkit, or the nvidia-nccl-cu13 wheel of python3. The
# library is loaded at run time (runtime/cuda/sb_cuda_comm.cu), so that the binary also runs
# where it is missing, host-staged; the directory found here is its first guess after NCCL_HOME.
NCCL_WHEEL := $(shell python3 -c 'import nvidia.nccl as m; print(list(m.__path__)[0])' 2>/dev/null)
NCCL_ROOT ?= $(patsubst %/include/nccl.h,%,$(firstword $(wildcard $(NCCL_HOME)/include/nccl.h \
               $(CUDA_HOME)/include/nccl.h $(NCCL_WHEEL)/include/nccl.h)))
NCCL_LIBDIR := $(patsubst %/libnccl.so.2,%,$(firstword $(wildcard $(NCCL_ROOT)/lib/libnccl.so.2 $(NCCL_ROOT)/lib64/libnccl.so.2)))
$(BUILD)/obj/runtime/cuda/sb_cuda_comm.o: NVFLAGS += $(if $(NCCL_ROOT),-DSB_HAVE_NCCL=1 -I$(NCCL_ROOT)/include \
                                              -DSB_NCCL_LIBDIR='"$(NCCL_LIBDIR)"')

# MPI=1: core/mpi.c is built with MPI (its object named apart) and everything links with
# mpicc; every other object is the same as without MPI, so switching rebuilds one file.
MPI      ?= 0
MPICC    ?= mpicc
LINK     := $(if $(filter 1,$(MPI)),$(MPICC),$(CC))
MPI_OBJ  := $(BUILD)/obj/core/mpi$(if $(filter 1,$(MPI)),-mpi).o

C_SRC    := $(filter-out core/mpi.c,$(wildcard core/*.c harness/*.c runtime/openmp_simd/*.c kernels/*/*.c))
CU_SRC   := $(if $(filter 1,$(CUDA)),$(wildcard runtime/cuda/*.cu kernels/*/*.cu))
C_SRC    += $(if $(filter 1,$(CUDA)),,runtime/cuda/cuda_stub.c)
OBJ      := $(C_SRC:%.c=$(BUILD)/obj/%.o) $(CU_SRC:%.cu=$(BUILD)/obj/%.o) $(MPI_OBJ)
# eri_brush's generated class code in translation units by range of L = la+lb+lc+ld and path
# (hgp: HGP and the family code; md; jeng: the CUDA J engine's kernels of that L; the CPU's J
# engine is jengine.c), largest first, so that make -j starts them first
# (kernels/eri_brush/gen/eri_gen.py, unit_list). MD, which path=auto never picks (README,
# "Path choice"), has units of its own, compiled for less (below).
ERI_UNITS := 8jeng 8hgp 7hgp+jeng 6hgp+jeng 8md 0-7md 3-5hgp+jeng 0-2hgp+jeng
ERI_UNIT_NAMES := $(subst +,_,$(ERI_UNITS))
ERI_UNIT_SRC := $(if $(filter 1,$(CUDA)),$(ERI_UNIT_NAMES:%=$(BUILD)/gen/eri_brush/eri_cuda_L%.cu)) \
                $(patsubst %,$(BUILD)/gen/eri_brush/eri_cpu_L%.c,$(filter-out %_jeng,$(filter-out %jeng,$(ERI_UNIT_NAMES))) \
                  $(filter %_jeng,$(ERI_UNIT_NAMES)))
OBJ      := $(patsubst $(BUILD)/gen/%,$(BUILD)/obj/gen/%.o,$(basename $(ERI_UNIT_SRC))) $(OBJ)
MAIN_OBJ := $(BUILD)/obj/harness/main.o
LIB      := $(BUILD)/libscibench.a

# tests/<core|harness|runtime|kernels/<k>>/: test_<subject>[_<part>].c (CPU) and gpu_<subject>.c;
# their binaries side by side in $(BUILD)/tests/, by file name
TEST_SRC := $(sort $(wildcard tests/*/test_*.c tests/kernels/*/test_*.c))
GPU_SRC  := $(sort $(wildcard tests/*/gpu_*.c tests/kernels/*/gpu_*.c))
TESTS    := $(patsubst %.c,$(BUILD)/tests/%,$(notdir $(TEST_SRC)))
GPUTESTS := $(patsubst %.c,$(BUILD)/tests/%,$(notdir $(GPU_SRC)))

.PHONY: vecreport all tests run validate test test-gpu clean help info FORCE
all: $(BUILD)/scibench

$(BUILD)/scibench: $(MAIN_OBJ) $(LIB)
	$(LINK) $(CFLAGS) -o $@ $^ $(LDLIBS)

# The archive is remade when the MPI choice flips (its member list changes).
$(LIB): $(filter-out $(MAIN_OBJ),$(OBJ)) $(BUILD)/.mpi-$(MPI)
	@rm -f $@
	ar rcs $@ $(filter %.o,$^)
$(BUILD)/.mpi-$(MPI):
	@mkdir -p $(@D) && rm -f $(BUILD)/.mpi-* && touch $@


# Objects depend on a stamp named by a hash of the flags: changing CUDA=, AVX512= or
# CFLAGS rebuilds everything instead of linking stale objects.
FLAGS_STAMP := $(BUILD)/.flags-$(shell printf '%s' '$(CC) $(CFLAGS) $(NVCC) $(NVFLAGS) $(CUDA)' | md5sum | cut -c1-12)
$(FLAGS_STAMP):
	@mkdir -p $(@D) && rm -f $(BUILD)/.flags-* && touch $@

$(BUILD)/obj/%.o: %.c $(FLAGS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -c $< -o $@

$(BUILD)/obj/%.o: %.cu $(FLAGS_STAMP)
	@mkdir -p $(@D)
	$(NVCC) $(NVFLAGS) -c $< -o $@

$(BUILD)/obj/core/mpi-mpi.o: core/mpi.c $(FLAGS_STAMP)
	@mkdir -p $(@D)
	$(MPICC) $(CFLAGS) -DSB_MPI=1 -c $< -o $@

# eri_brush: the per-class straight-line code is generated at build time (never edited by hand),
# a header per class, and the backends' class code in the translation units of ERI_UNITS, so
# that make -j compiles them side by side.
PYTHON   ?= python3
ERI_GEN  := $(BUILD)/gen/eri_brush/eri_gen_code.h $(BUILD)/gen/eri_brush/eri_gen_vec.h \
            $(BUILD)/gen/eri_brush/eri_gen_info.h $(BUILD)/gen/eri_brush/eri_gen_fam.h \
            $(BUILD)/gen/eri_brush/eri_gen_famv.h $(ERI_UNIT_SRC)
# The generator rewrites only the files that change (an object rebuilds only for its own
# headers), so its run is marked by a stamp (named by the units), and the files follow it.
ERI_STAMP := $(BUILD)/gen/eri_brush/.generated-$(subst $() ,.,$(ERI_UNIT_NAMES))
$(ERI_STAMP): kernels/eri_brush/gen/eri_gen.py $(wildcard kernels/eri_brush/gen/*.py)
	@mkdir -p $(@D)
	$(PYTHON) kernels/eri_brush/gen/eri_gen.py --lmax 2 --units "$(ERI_UNITS)" --out $(@D)
	@rm -f $(@D)/.generated* && touch $@
$(ERI_GEN): $(ERI_STAMP) ;
# Variable tracking (the debug info's variable locations) took a fifth of the compile time of
# the generated straight-line code and of the J engine's unrolled instances; it changes no code.
$(BUILD)/obj/gen/eri_brush/%.o $(BUILD)/obj/kernels/eri_brush/jengine.o: CFLAGS += -fno-var-tracking
# MD is the cross-check path (path=md), compiled for less: at -O3 its (dd|dd) function alone
# spent 6.5 CPU-min in gcc (register allocation over thousands of live values; 70 s and 1.4 GB
# at -O1, 2 s at -O0) and its CUDA kernel 159 s in ptxas (51 s at -O1). The other MD classes
# at -O1 compile in 45 s; water/cc-pVDZ with path=md then runs in 3.8 ms instead of 2.8 (8.6
# with every class at -O0). With -ffp-contract=off the CPU's results are the same bits at any
# level.
# (SANITIZE=1 compiles every class unit at -O0, below.)
ifneq ($(SANITIZE),1)
$(BUILD)/obj/gen/eri_brush/eri_cpu_%md.o: CFLAGS += -O1
$(BUILD)/obj/gen/eri_brush/eri_cpu_L8md.o: CFLAGS += -O0
endif
$(BUILD)/obj/gen/eri_brush/eri_cuda_%md.o: NVFLAGS += -Xptxas -O1
$(BUILD)/obj/gen/%.o: $(BUILD)/gen/%.c $(FLAGS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -c $< -o $@
$(BUILD)/obj/gen/%.o: $(BUILD)/gen/%.cu $(FLAGS_STAMP)
	@mkdir -p $(@D)
	$(NVCC) $(NVFLAGS) -c $< -o $@
# order-only: generated before they compile; which header each one includes its .d file tells
# (the generator rewrites only changed files, so an object rebuilds only for its own headers)
$(filter $(BUILD)/obj/kernels/eri_brush/% $(BUILD)/obj/gen/eri_brush/%,$(OBJ)): | $(ERI_GEN)
$(BUILD)/obj/tests/test_eri_brush%.o $(BUILD)/obj/tests/gpu_eri_brush%.o: | $(ERI_GEN)

# dfratom_scf: PySCF's Dirac-Hartree-Fock energies (tools/dfr_pyscf.py's committed output) as a C table.
DFR_DHF  := $(BUILD)/gen/dfratom_scf/pyscf_dhf.h
$(DFR_DHF): kernels/dfratom_scf/data/pyscf_dhf.tsv
	@mkdir -p $(@D)
	awk -F'\t' '!/^#/ && NF >= 10 {printf "{\"%s\", %s, %s, %s, %s, %s, {%s, %s, %s}, %s},\n", $$1, $$2, $$3, $$4, $$5, $$6, $$7, $$8, $$9, $$10}' $< > $@
# Any basis (job=bsize's, with gamma, delta and ranges): tools/dfr_pyscf.py --basis FILE.json rows.
DFR_DHFR := $(BUILD)/gen/dfratom_scf/pyscf_dhf_ranges.h
$(DFR_DHFR): kernels/dfratom_scf/data/pyscf_dhf_ranges.tsv
	@mkdir -p $(@D)
	awk -F'\t' '!/^#/ && NF >= 17 {printf "{\"%s\", %s, %s, %s, %s, %s, %s, %s, {%s, %s, %s, %s}, {%s, %s, %s, %s}, %s},\n", $$1, $$2, $$3, $$4, $$5, $$6, $$7, $$8, $$9, $$11, $$13, $$15, $$10, $$12, $$14, $$16, $$17}' $< > $@
$(BUILD)/obj/kernels/dfratom_scf/validate.o: $(DFR_DHF) $(DFR_DHFR)

# libint2 reference generator and comparison benchmark: built only where libint2 is installed;
# linked statically so the GPU machine (no Debian libraries) can run it.
LIBINT2_OK := $(wildcard /usr/include/libint2.hpp)
CXX      ?= g++
$(BUILD)/tools/eri_libint2: tools/eri_libint2.cpp kernels/eri_brush/eri.h
	@mkdir -p $(@D)
	$(CXX) -O2 -march=$(ARCH) -std=c++17 -fopenmp -Wall -Wextra -Werror -Ikernels -I/usr/include/eigen3 \
	  -o $@ $< -Wl,-Bstatic -lint2 -Wl,-Bdynamic
eri-libint2: $(if $(LIBINT2_OK),$(BUILD)/tools/eri_libint2)
.PHONY: eri-libint2

# Provenance baked into the binary: it runs on machines without the git tree. version.o is
# rebuilt when the commit (or its -dirty mark) changes, and only then: $(BUILD)/.version is
# rewritten only when its text changes, so an unchanged tree relinks nothing.
SB_COMMIT := $(shell git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)$(shell git diff --quiet HEAD 2>/dev/null || echo -dirty)
$(BUILD)/.version: FORCE
	@mkdir -p $(@D) && [ "$$(cat $@ 2>/dev/null)" = "$(SB_COMMIT)" ] || echo "$(SB_COMMIT)" > $@
$(BUILD)/obj/harness/version.o: $(BUILD)/.version
$(BUILD)/obj/harness/version.o: CFLAGS += \
  -DSB_GIT_COMMIT='"$(SB_COMMIT)"' \
  -DSB_CC_VERSION='"$(shell $(CC) --version | head -1)"' \
  -DSB_NVCC_VERSION='"$(if $(filter 1,$(CUDA)),$(shell $(NVCC) --version | tail -1),none)"' \
  -DSB_CFLAGS_ARCH='"$(ARCH)"'

# The Metropolis decision must round identically on CPU and GPU: no implicit FMA contraction.
$(BUILD)/obj/kernels/lattice_mc/cuda.o $(BUILD)/obj/kernels/lattice_mc/cuda_fused.o: NVFLAGS += -fmad=false

# A test's object apart from its link: a changed library relinks the tests, and recompiles
# none (test_eri_brush_gen compiles every generated class).
define test_object
$(BUILD)/obj/tests/$(basename $(notdir $(1))).o: $(1) $(FLAGS_STAMP)
	@mkdir -p $$(@D)
	$$(CC) $$(CFLAGS) -Itests -c $$< -o $$@
endef
$(foreach s,$(TEST_SRC) $(GPU_SRC),$(eval $(call test_object,$(s))))
$(BUILD)/tests/%: $(BUILD)/obj/tests/%.o $(LIB)
	@mkdir -p $(@D)
	$(LINK) $(CFLAGS) -o $@ $< $(LIB) -lcmocka $(LDLIBS)
# kept: as intermediate files of the chain above make would delete them after the link
.SECONDARY: $(patsubst $(BUILD)/tests/%,$(BUILD)/obj/tests/%.o,$(TESTS) $(GPUTESTS))

# MPI: the CPU backend of every kernel on 1 and 2 ranks must agree (tests/mpi/mpi_test.sh). Every
# object but core/mpi is the same with MPI=1, so the test links an MPI binary beside the
# serial one from the same objects.
$(BUILD)/scibench-mpi: $(filter-out $(BUILD)/obj/core/mpi.o,$(OBJ)) $(BUILD)/obj/core/mpi-mpi.o
	$(MPICC) $(CFLAGS) -o $@ $(sort $^) $(LDLIBS)
test-mpi: $(BUILD)/scibench-mpi
	SB=$(BUILD)/scibench-mpi bash tests/mpi/mpi_test.sh
# On a host with RANKS GPUs: the cuda backends over NCCL and host-staged (tests/mpi/mpi_gpu_test.sh).
RANKS ?= 2
test-mpi-gpu: $(BUILD)/scibench-mpi
	SB=$(BUILD)/scibench-mpi RANKS=$(RANKS) bash tests/mpi/mpi_gpu_test.sh
# Every kernel on 1, 2, 4, ... GPUs of this host into results/<machine>-mpi/ (tools/scaling_mpi.sh).
scaling-mpi: $(BUILD)/scibench-mpi
	SB=$(BUILD)/scibench-mpi bash tools/scaling_mpi.sh
.PHONY: test-mpi test-mpi-gpu scaling-mpi

# ---- user targets ------------------------------------------------------
KERNEL  ?= lattice_mc
BACKEND ?= openmp_simd
SIZE    ?=
ARGS    ?=
PROFILE ?= 0
run: $(BUILD)/scibench
	$(BUILD)/scibench run $(KERNEL) --backend $(BACKEND) $(if $(SIZE),--size $(SIZE)) $(if $(filter 1,$(PROFILE)),--profile) $(ARGS)
validate: $(BUILD)/scibench
	$(BUILD)/scibench validate $(KERNEL) --backend $(BACKEND) $(if $(SIZE),--size $(SIZE)) $(ARGS)
info: $(BUILD)/scibench
	$(BUILD)/scibench info

# make install PREFIX=P: P/bin/scibench and every kernel's data/ as P/share/scibench/<kernel>/,
# where the binary looks beside itself (core/datapath.c): no variable to set.
PREFIX  ?= /usr/local
install: $(BUILD)/scibench
	install -D -m 755 $(BUILD)/scibench $(DESTDIR)$(PREFIX)/bin/scibench
	@cd kernels && for f in $$(find */data -type f); do \
	  install -D -m 644 "$$f" "$(DESTDIR)$(PREFIX)/share/scibench/$${f%%/data/*}/$${f#*/data/}" || exit 1; done
.PHONY: install

# cli_test.sh's shim that holds the JSON writer at its rename (tests/harness/json_stall.c); never
# sanitized: it is preloaded into the binary under test.
STALL_SO := $(BUILD)/tests/json_stall.so
$(STALL_SO): tests/harness/json_stall.c
	@mkdir -p $(@D)
	gcc -O1 -shared -fPIC -Wall -Wextra -Werror -o $@ $< -ldl

# Build every test binary without running it (e.g. before carrying build/ to the GPU machine).
tests: $(BUILD)/scibench $(TESTS) $(GPUTESTS) $(STALL_SO)

# CPU tests; GPU tests are built and run too, and skip with a message without a GPU.
test: $(BUILD)/scibench $(TESTS) $(GPUTESTS) $(STALL_SO) eri-libint2
	@fail=0; for t in $(TESTS) $(GPUTESTS); do echo "== $$t"; $$t || fail=1; done; \
	 SB=$(BUILD)/scibench bash tests/harness/cli_test.sh || fail=1; \
	 MAKE="$(MAKE)" BUILD=$(BUILD) bash tests/harness/install_test.sh || fail=1; \
	 SB=$(BUILD)/scibench ERI_LIBINT2=$(BUILD)/tools/eri_libint2 bash tests/kernels/eri_brush/eri_libint2_test.sh || fail=1; \
	 SB=$(BUILD)/scibench bash tests/harness/readme_tables_test.sh || fail=1; \
	 python3 tools/check_layers.py || fail=1; exit $$fail
# The one-way rule (docs/DESIGN.md: layers): every #include against docs/layers.json.
check-layers:
	@python3 tools/check_layers.py --verbose
.PHONY: check-layers
# On the device: GPU tests must run, not skip.
test-gpu: $(BUILD)/scibench $(GPUTESTS)
	@fail=0; for t in $(GPUTESTS); do echo "== $$t"; SB_REQUIRE_GPU=1 $$t || fail=1; done; \
	 SB=$(BUILD)/scibench SB_REQUIRE_GPU=1 bash tests/harness/profile_vs_ncu_test.sh || fail=1; exit $$fail

# ==== sanitizers and fuzzing (tests/README.md, tests/fuzz/README.md) ==========
# make test SANITIZE=1: every test above under ASan + UBSan (build-san/). CI runs the subset
# SAN_CI_TESTS and the CLI tests (make test-san-ci); left to the full run: test_lattice_mc
# (minutes under ASan), test_dfratom_scf_bsize (2 min), test_eri_brush_openmp and test_eri_brush_gen (the
# generated eri classes).
SAN_CI_TESTS := test_compare test_table test_profile test_json test_params test_stats test_validation test_hwinfo \
                test_openmp_simd_runtime test_nlchains test_fullerene_ff_spiral test_fullerene_ff test_eri_brush_input \
                test_eri_brush_boys test_eri_brush_reference test_eri_brush_families test_dfratom_scf_integrals \
                test_dfratom_scf test_lattice_mc_wavefront
ifeq ($(SANITIZE),1)
# Under ASan the generated eri_brush classes (their units, the J engine, the families) compile
# 5-10x faster at -O0 than at -O1 and run slower, in tests the CI subset leaves out. -w: at -O0
# gcc warns, with no option to turn it off, that it ignores their loop pragmas; the -O3 build
# checks these files with -Werror.
$(addprefix $(BUILD)/obj/kernels/eri_brush/,jengine.o families.o): CFLAGS += -O0 -w
$(BUILD)/obj/gen/eri_brush/%.o: CFLAGS += -O0 -w
export ASAN_OPTIONS  ?= detect_leaks=1:check_initialization_order=1:strict_init_order=1
export UBSAN_OPTIONS ?= print_stacktrace=1:halt_on_error=1
endif
test-san-ci:
	$(MAKE) SANITIZE=1 san-ci-run
san-ci-run: $(BUILD)/scibench $(SAN_CI_TESTS:%=$(BUILD)/tests/%) $(STALL_SO)
	@fail=0; for t in $(SAN_CI_TESTS:%=$(BUILD)/tests/%); do echo "== $$t"; $$t || fail=1; done; \
	 SB=$(BUILD)/scibench bash tests/harness/cli_test.sh || fail=1; exit $$fail

# libFuzzer targets (clang): each links its parser's own objects and tests/fuzz/fuzz_stubs.c.
# make fuzz FUZZ_S=60: the regression inputs, then each target FUZZ_S seconds from its corpus.
FUZZ_CC    ?= clang
FUZZ_BUILD ?= build-fuzz
FUZZ_S     ?= 60
FUZZERS    := xyz g94 spiral nlc_init result_json cli_param
FUZZ_CFLAGS := -O1 -g -std=c11 -D_POSIX_C_SOURCE=200809L -fno-omit-frame-pointer \
               -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all -Wall -Wextra -Werror -MMD -MP \
               -Icore -Iharness -Iruntime/cuda -Iruntime/openmp_simd -Ikernels -Itests/fuzz
fuzz_src_xyz         := kernels/eri_brush/input.c core/datapath.c
fuzz_src_g94         := kernels/eri_brush/input.c kernels/eri_brush/basis.c core/datapath.c
fuzz_src_spiral      := kernels/fullerene_ff/spiral_io.c kernels/fullerene_ff/spiral.c
fuzz_src_nlc_init    := kernels/nlchains/init_file.c
fuzz_src_result_json := harness/results.c harness/result_check.c harness/compare.c harness/table.c core/params.c \
                        harness/peaks_file.c
fuzz_src_cli_param   := harness/cli.c core/params.c harness/results.c harness/result_check.c harness/compare.c harness/table.c \
                        harness/peaks_file.c harness/info_args.c
$(FUZZ_BUILD)/obj/%.o: %.c
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -c $< -o $@
define fuzz_target
$(FUZZ_BUILD)/fuzz_$(1): $(FUZZ_BUILD)/obj/tests/fuzz/fuzz_$(1).o $(FUZZ_BUILD)/obj/tests/fuzz/fuzz_stubs.o $(fuzz_src_$(1):%.c=$(FUZZ_BUILD)/obj/%.o)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $$@ $$^ -ljansson -lm
endef
$(foreach f,$(FUZZERS),$(eval $(call fuzz_target,$(f))))
fuzzers: $(FUZZERS:%=$(FUZZ_BUILD)/fuzz_%)
fuzz: fuzzers
	@bash tests/fuzz/run.sh $(FUZZ_BUILD) $(FUZZ_S) $(FUZZERS)
-include $(wildcard $(FUZZ_BUILD)/obj/*/*.d $(FUZZ_BUILD)/obj/*/*/*.d)

# compute-sanitizer (memcheck, racecheck, initcheck, synccheck) over the GPU tests and one
# small run of each kernel, on the GPU machine with build/ made beforehand; the summary goes
# to results/<machine>/compute-sanitizer.md (tools/compute_sanitizer.sh; ARGS='--tools memcheck').
test-sanitize-gpu:
	@bash tools/compute_sanitizer.sh --build $(BUILD) $(ARGS)
.PHONY: test-san-ci san-ci-run fuzzers fuzz test-sanitize-gpu

# The compiler's own word that a kernel's CPU loops are vectorised (and how wide).
vecreport:
	$(CC) $(CFLAGS) -fopt-info-vec-optimized -c kernels/$(KERNEL)/openmp_simd.c -o /dev/null 2>&1 \
	  | grep -E "loop vectorized" | sed 's|^|  |'

clean:
	rm -rf $(BUILD)
help:
	@echo "make [CUDA=0] [AVX512=1]   build $(BUILD)/scibench (CUDA objects when nvcc exists)"
	@echo "make run KERNEL=k BACKEND=openmp_simd|cuda|reference SIZE=n [PROFILE=1] [ARGS='--reps 5 --param T=0.5']"
	@echo "make validate KERNEL=k BACKEND=b SIZE=n   run + full validation only"
	@echo "make test      unit + integration tests (GPU tests skip without a GPU)"
	@echo "make tests     build all test binaries without running them"
	@echo "make test-gpu  GPU tests only, and --profile against ncu by hand; fails when no GPU"
	@echo "make check-layers   every #include against the one-way rule (docs/layers.json)"
	@echo "make SANITIZE=1 && make test SANITIZE=1   ASan + UBSan build in build-san/ (CUDA off) and every test"
	@echo "make test-san-ci   the CI's sanitizer subset (SAN_CI_TESTS) and the CLI tests under ASan + UBSan"
	@echo "make fuzz FUZZ_S=60   each libFuzzer target (tests/fuzz/) FUZZ_S seconds, after its regression inputs"
	@echo "make test-sanitize-gpu   compute-sanitizer's four tools over the GPU tests and each kernel (on a GPU host)"
	@echo "make MPI=1     build with Open MPI (mpicc): mpirun -n R $(BUILD)/scibench run ... splits the work"
	@echo "make test-mpi  MPI binary $(BUILD)/scibench-mpi; every kernel on 1 and 2 ranks must agree (tests/mpi/mpi_test.sh)"
	@echo "make install PREFIX=/usr/local   bin/scibench and the kernels' data in share/scibench/ (found from any directory)"
	@echo "make info      hardware report with measured peaks"
	@echo "make vecreport KERNEL=k [AVX512=1]   the compiler's vectorisation report for k's CPU loops"
	@echo "make results KERNEL=k BACKEND=b SIZE=n [ARGS=..]   run with --json into results/<machine>/"
	@echo "make compare KERNEL=k SIZE=n   hyperfine across the backends available here (results/<machine>/hyperfine/)"
	@echo "make scaling KERNEL=k BACKEND=b SIZES=\"32 64 128\"   hyperfine parameter scan over sizes"
	@echo "make rerun FROM=results/<machine> TO=dir   every case of FROM again, then: scibench compare FROM TO"
	@echo "make campaign [ARGS='--dry-run --from results/h200']   this machine's results, peaks.json and report at one clean commit"
	@echo "make plot      results/throughput.svg/png and results/roofline-<machine>.svg/png (gnuplot)"
	@echo "make report    make plot, then results/REPORT.md: headline cases per machine, rooflines, machines compared"
	@echo "make readme-tables   regenerate the tables between <!-- scibench-table: ... --> markers in the READMEs"
	@echo "make ci-regression   CPU backend at CI sizes vs results/ci/ (make ci-baseline refreshes it)"

-include $(OBJ:.o=.d) $(patsubst $(BUILD)/tests/%,$(BUILD)/obj/tests/%.d,$(TESTS) $(GPUTESTS))

# ==== results, comparisons, pictures, CI regression (results/README.md) ======
# Scripts live in tools/; each takes the binary from SB. MACHINE is what the
# binary says (`scibench machine`): results/$(MACHINE)/ is where runs land.
SB      ?= $(BUILD)/scibench
SIZES   ?= 32 64 128
RUNS    ?= 10
WARMUP  ?= 2
BACKENDS ?=
export SB RUNS WARMUP BACKENDS
.PHONY: results compare scaling plot report readme-tables ci-regression ci-baseline machine rerun campaign

machine: $(SB)
	@$(SB) machine
# make results KERNEL=k BACKEND=b SIZE=n [ARGS='--reps 10 --param k=v'] -> results/<machine>/<k>.<b>.<n>[.<params>].json
results: $(SB)
	@bash tools/results.sh "$(KERNEL)" "$(BACKEND)" "$(SIZE)" $(ARGS)
# make compare KERNEL=k SIZE=n: hyperfine over the backends available here -> results/<machine>/hyperfine/
compare: $(SB)
	@bash tools/hf_compare.sh "$(KERNEL)" "$(SIZE)" $(ARGS)
# make scaling KERNEL=k BACKEND=b SIZES="32 64 128": hyperfine's parameter scan over sizes
scaling: $(SB)
	@bash tools/hf_scaling.sh "$(KERNEL)" "$(BACKEND)" "$(SIZES)" $(ARGS)
# make plot: results/throughput.{svg,png} and results/roofline-<machine>.{svg,png}
plot: $(SB)
	@$(PYTHON) tools/plot.py results
	@$(PYTHON) tools/scaling_report.py plot results
# make report: results/REPORT.md (headline cases per machine: tools/headline_cases.txt), pictures first
report: plot
	@$(PYTHON) tools/report.py results
# make readme-tables: the tables between <!-- scibench-table: ARGS --> and <!-- /scibench-table -->,
# and eri_brush's per-class tables (<!-- eri-class-tables: FILES -->)
readme-tables: $(SB)
	@$(PYTHON) tools/readme_tables.py
	@$(PYTHON) tools/scaling_report.py readme results
# make rerun FROM=results/h200 TO=/tmp/new: every case in FROM again, here; then scibench compare FROM TO
rerun: $(SB)
	@bash tools/rerun.sh "$(FROM)" "$(TO)" $(ARGS)
# make campaign [ARGS='--dry-run --from results/h200']: this machine's results regenerated at one clean
# commit, peaks.json and the report included (tools/campaign.sh)
campaign: $(SB)
	@bash tools/campaign.sh $(ARGS)
# CI: CPU backend at the CI size vs results/ci/, normalised by the same run's measured peaks
ci-regression: $(SB)
	@bash tools/ci_regression.sh
ci-baseline: $(SB)
	@bash tools/ci_regression.sh --update

# test_eri_brush_gen compiles every generated class (both paths) only to compare them, and runs
# them in well under a second: -O0 (7 s of compile time; -O1 took over 4 min, -O3 more).
$(BUILD)/obj/tests/test_eri_brush_gen.o: CFLAGS += -O0
