# runq: one entry point.
#   make          build the kernel (build/kernel.elf) and the host CLI (build/runq)
#   make run      build, boot the kernel in QEMU, interactive shell on the console
#   make test     the whole test suite; ends with "N passed, N failed"
#   make gdb      QEMU waiting for gdb, and gdb attached with the kernel's symbols
#   make deps     install the Debian packages (as root) or print the apt-get line
#   make BUG=name build the kernel with a kernel-core bug put back (RUNQ_BUG_NAME, docs/testing.md);
#                 a policy bug is a patch, built in a copy: scripts/bug_tree.sh name DIR && make -C DIR kernel

BUILD := build
CC ?= cc
LD ?= ld

# ---- kernel ----
KERNEL := $(BUILD)/kernel.elf
KSRC_C := $(shell find kernel -name '*.c' | sort)
KSRC_S := $(shell find kernel -name '*.S' | sort)
KOBJ := $(patsubst %.c,$(BUILD)/%.o,$(KSRC_C)) $(patsubst %.S,$(BUILD)/%.o,$(KSRC_S))
# BUG=name defines RUNQ_BUG_NAME (a switch in the kernel core). The policy's
# bugs are patches, tests/bugs/eevdf/name.patch, never in these sources.
# KEXTRA: more kernel flags, for a variant built in its own BUILD directory
# (a whole variant kernel: make BUILD=build/NAME KEXTRA=-D... build/NAME/kernel.elf).
KBUG := $(if $(BUG),-DRUNQ_BUG_$(shell echo $(BUG) | tr a-z A-Z))
ifneq ($(BUG),)
ifneq ($(wildcard tests/bugs/eevdf/$(BUG).patch),)
$(error BUG=$(BUG) is a policy bug, a patch: scripts/bug_tree.sh $(BUG) DIR && make -C DIR kernel)
endif
endif
KCFLAGS := -std=gnu11 -ffreestanding -fno-pic -fno-pie -mno-red-zone -mgeneral-regs-only \
	-fno-stack-protector -fno-omit-frame-pointer -fno-builtin -O2 -g \
	-Wall -Wextra -Werror -Wmissing-prototypes -DRUNQ_KERNEL $(KBUG) $(KEXTRA) -Ikernel/lib -Ikernel/sched -MMD -MP

# ---- host ----
RUNQ := $(BUILD)/runq
# The host binary holds the CLI, the trace decoder and recorder, the database
# layer, the TUI, the labs, the Linux engine (host/engine/linux/), and the policies
# themselves (for runq sim).
# Every host folder's C files (host/engine/linux/bpf/ is the BPF target's, not the host's).
# The policies and the balancer's rules: the kernel's own sources, which know
# nothing of locks or CPUs (kernel/sched/README.md).
POLICY_SRC := kernel/sched/decide.c kernel/sched/rr.c kernel/sched/rt.c kernel/sched/eevdf.c kernel/sched/eevdf_tree.c \
	kernel/sched/weights.c kernel/sched/balance_rules.c
HOST_DIRS := trace trace/recorder db tui labs/engine host/base host/scenario host/engine host/engine/kernel host/engine/linux \
	host/engine/sim host/experiment host/analysis host/export host/cli
HOST_SRC := $(sort $(foreach d,$(HOST_DIRS),$(wildcard $(d)/*.c))) $(POLICY_SRC)
HOST_OBJ := $(patsubst %.c,$(BUILD)/host/%.o,$(HOST_SRC))
# SQL files in db/ are embedded as C strings (scripts/embed.sh FILE NAME).
HOST_SQL := $(sort $(wildcard db/*.sql))
HOST_OBJ += $(patsubst db/%.sql,$(BUILD)/gen/%_sql.o,$(HOST_SQL))
HOST_LIBS := -lsqlite3 -lncursesw -lm -lpthread
HCFLAGS := -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -Wmissing-prototypes -O2 -g -iquote . -iquote kernel/sched -iquote kernel/lib -MMD -MP

.PHONY: all run test test-build check docs seeds gdb deps clean kernel prove-bugs fuzz fuzz-leave-bug bench linux-diff
all: deps-check $(KERNEL) $(RUNQ)
kernel: $(KERNEL)

deps-check:
	@sh scripts/deps.sh
deps:
	@sh scripts/deps.sh

$(BUILD)/kernel/%.o: kernel/%.c
	@mkdir -p $(dir $@)
	$(CC) $(KCFLAGS) -c $< -o $@
$(BUILD)/kernel/%.o: kernel/%.S
	@mkdir -p $(dir $@)
	$(CC) $(KCFLAGS) -c $< -o $@
# A BUG= build must not mix with normal objects: its flag is part of the stamp.
$(BUILD)/kernel/.flags: FORCE
	@mkdir -p $(dir $@)
	@echo '$(KCFLAGS)' | cmp -s - $@ || echo '$(KCFLAGS)' > $@
$(KOBJ): $(BUILD)/kernel/.flags
$(KERNEL): $(KOBJ) kernel/kernel.ld
	$(LD) -nostdlib -static -z max-page-size=0x1000 --no-warn-rwx-segments -T kernel/kernel.ld -o $@ $(KOBJ)

$(BUILD)/host/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(HCFLAGS) -c $< -o $@
$(BUILD)/gen/%_sql.c: db/%.sql scripts/embed.sh
	@mkdir -p $(dir $@)
	sh scripts/embed.sh $< db_$*_sql > $@
$(BUILD)/gen/%_sql.o: $(BUILD)/gen/%_sql.c
	$(CC) $(HCFLAGS) -c $< -o $@
# Keep the generated C: as an intermediate make deleted it after every
# build, printing "rm build/gen/..." under make run's shell.
.SECONDARY: $(patsubst db/%.sql,$(BUILD)/gen/%_sql.c,$(HOST_SQL))
$(RUNQ): $(HOST_OBJ)
	$(CC) -o $@ $(HOST_OBJ) $(HOST_LIBS)

# ---- host tests ----
# Test programs are linked from objects, each compiled once with -MMD, so
# touching a header rebuilds exactly what includes it. Three object trees:
#   build/tobj/  unit tests and the sanitized runq (build/asan/runq, which
#                make test drives): -O1, ASan and UBSan, and a sanitizer
#                report aborts (no recovery), so it cannot leave a test green;
#   build/fobj/  the libFuzzer targets (clang);
#   build/host/  -O2, no sanitizers: runq, trace_gen and the benches.
SANFLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all
TCFLAGS := -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -Wmissing-prototypes -O1 -g $(SANFLAGS) -iquote . -iquote kernel/sched \
	-iquote kernel/lib -MMD -MP
FUZZFLAGS := -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -Wmissing-prototypes -g -O1 -fsanitize=fuzzer-no-link,address,undefined \
	-fno-sanitize-recover=all -iquote . -iquote kernel/sched -iquote kernel/lib -MMD -MP
FUZZLINK := -fsanitize=fuzzer,address,undefined
tobj = $(patsubst %.c,$(BUILD)/tobj/%.o,$(1))
fobj = $(patsubst %.c,$(BUILD)/fobj/%.o,$(1))
hobj = $(patsubst %.c,$(BUILD)/host/%.o,$(1))
$(BUILD)/tobj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(TCFLAGS) -c $< -o $@

# ---- the BPF recorder (host/engine/linux/bpf/, host/engine/linux/bpfrec.c) ----
# Built when clang, bpftool and libbpf-dev are here (scripts/deps.sh
# installs them): the program is compiled for the BPF target, CO-RE, and
# embedded in runq as bpftool's skeleton header. Without them runq still
# builds and the Linux engine records from tracefs alone, saying why.
BPFTOOL := $(shell PATH="$$PATH:/usr/sbin:/sbin" command -v bpftool)
HAVE_BPF := $(if $(and $(BPFTOOL),$(shell command -v clang),$(wildcard /usr/include/bpf/libbpf.h)),1)
BPF_SKEL := $(BUILD)/bpf/lxbpf.skel.h
ifeq ($(HAVE_BPF),1)
HCFLAGS += -DRUNQ_HAVE_BPF -iquote $(BUILD)/bpf
TCFLAGS += -DRUNQ_HAVE_BPF -iquote $(BUILD)/bpf
HOST_LIBS += -lbpf -lelf -lz
$(BUILD)/host/host/engine/linux/bpfrec.o $(BUILD)/tobj/host/engine/linux/bpfrec.o: $(BPF_SKEL)
endif
$(BUILD)/bpf/sched.bpf.o: host/engine/linux/bpf/sched.bpf.c host/engine/linux/bpf/wire.h
	@mkdir -p $(dir $@)
	clang -O2 -g -target bpf -D__TARGET_ARCH_x86 -I/usr/include/$(shell $(CC) -print-multiarch) -iquote . -c $< -o $@
$(BPF_SKEL): $(BUILD)/bpf/sched.bpf.o
	$(BPFTOOL) gen skeleton $< name lxbpf > $@.tmp && mv $@.tmp $@
$(BUILD)/fobj/%.o: %.c
	@mkdir -p $(dir $@)
	clang $(FUZZFLAGS) -c $< -o $@

# Each test program's objects, in a variable named after it (OBJ_rr_test
# for $(BUILD)/tests/rr_test); TEST_PROGS names them all, and the rules
# below make each program of its objects, once for all.
OBJ_rr_test := $(call tobj,tests/policy/rr_test.c $(POLICY_SRC))
OBJ_rt_test := $(call tobj,tests/policy/rt_test.c $(POLICY_SRC))
OBJ_eevdf_test := $(call tobj,tests/policy/eevdf_test.c $(POLICY_SRC))
OBJ_trace_decode_test := $(call tobj,tests/trace/trace_decode_test.c trace/decode.c)
OBJ_sha256_test := $(call tobj,tests/base/sha256_test.c host/base/sha256.c)
# The kernel's trace ring, compiled for the host against libc's memcpy.
OBJ_ring_test := $(call tobj,tests/kernel/ring_test.c kernel/trace/ring.c)
# The Linux engine's runner, on this host's Linux (threads of the test).
OBJ_linux_run_test := $(call tobj,tests/engine/linux_run_test.c host/engine/linux/run.c host/engine/linux/alternate.c host/engine/linux/refuse.c host/engine/linux/hostrules.c host/engine/linux/setup.c host/engine/linux/measure.c host/engine/linux/note.c $(wildcard host/scenario/*.c) \
	host/base/xalloc.c $(POLICY_SRC))
# The Linux recorder on this host's tracefs, writing through db/.
OBJ_linux_pingpong := $(call tobj,tests/engine/linux_pingpong.c host/engine/linux/tracefs.c host/engine/linux/ftrace.c host/engine/linux/lxrec.c host/engine/linux/bpfrec.c host/engine/linux/hostrules.c \
	$(wildcard db/*.c) $(wildcard trace/*.c) kernel/sched/weights.c host/base/xalloc.c)
# runq top's model and what it reads, without a terminal: its unit test,
# tests/tui/top_agree.sh's probe and its bench (bench_top) are built on it.
TOP_MODEL_SRC := tui/model.c tui/table.c tui/control.c db/recorder_lock.c db/events.c db/tstate.c db/qx_top.c trace/decode.c $(POLICY_SRC)
OBJ_top_model_test := $(call tobj,tests/tui/top_model_test.c $(TOP_MODEL_SRC))
# runq top's model at one trace time, for tests/tui/top_agree.sh.
OBJ_top_at := $(call tobj,tests/tui/top_at.c $(TOP_MODEL_SRC))
OBJ_eevdf_fuzz := $(call fobj,tests/policy/eevdf_fuzz.c $(POLICY_SRC))
OBJ_rt_fuzz := $(call fobj,tests/policy/rt_fuzz.c $(POLICY_SRC))
OBJ_trace_fuzz := $(call fobj,tests/trace/trace_fuzz.c trace/decode.c)
OBJ_trace_gen := $(call hobj,tests/trace/trace_gen.c host/base/xalloc.c $(POLICY_SRC))
OBJ_trace_hostile := $(call hobj,tests/trace/trace_hostile.c host/base/xalloc.c)
# The Linux 6.18 reference for the differential test (issue 14): its own
# rules; shared with runq only Linux's weight table, the scenario's
# durations (host/scenario/duration.c) and the random stream (sim/rng.h).
OBJ_linux_ref := $(call hobj,tests/policy/linux_ref.c tests/policy/linux_ref_parse.c tests/policy/linux_ref_gen.c \
	tests/policy/linux_ref_main.c kernel/sched/weights.c host/scenario/duration.c)
ASAN_RUNQ := $(BUILD)/asan/runq
ASAN_OBJ := $(call tobj,$(HOST_SRC))
TEST_PROGS := rr_test rt_test rt_fuzz eevdf_test eevdf_fuzz trace_gen trace_decode_test sha256_test trace_fuzz \
	top_model_test ring_test top_at trace_hostile linux_ref linux_run_test linux_pingpong
TEST_OBJ := $(sort $(foreach p,$(TEST_PROGS),$(OBJ_$(p))) $(ASAN_OBJ))

HOST_TESTS := $(addprefix $(BUILD)/tests/,$(TEST_PROGS)) $(ASAN_RUNQ)
# Each program of its objects, and the libraries of those that need some;
# one recipe links each kind: the unit tests with the sanitizers, the
# fuzzers with libFuzzer, the generators and the reference plain.
$(foreach p,$(TEST_PROGS),$(eval $(BUILD)/tests/$(p): $$(OBJ_$(p))))
$(BUILD)/tests/linux_run_test: TEST_LIBS := -lpthread -lm $(if $(HAVE_BPF),-lbpf -lelf -lz)
$(BUILD)/tests/linux_pingpong: $(patsubst db/%.sql,$(BUILD)/gen/%_sql.o,$(HOST_SQL))
$(BUILD)/tests/linux_pingpong: TEST_LIBS := -lsqlite3 -lm -lpthread $(if $(HAVE_BPF),-lbpf -lelf -lz)
$(BUILD)/tests/top_at $(BUILD)/tests/top_model_test: $(BUILD)/gen/schema_sql.o
$(BUILD)/tests/top_at $(BUILD)/tests/top_model_test: TEST_LIBS := -lsqlite3 -lm
$(addprefix $(BUILD)/tests/,rr_test rt_test eevdf_test sha256_test trace_decode_test ring_test linux_run_test linux_pingpong \
	top_at top_model_test):
	@mkdir -p $(dir $@)
	$(CC) $(SANFLAGS) -o $@ $^ $(TEST_LIBS)
$(addprefix $(BUILD)/tests/,eevdf_fuzz rt_fuzz trace_fuzz):
	@mkdir -p $(dir $@)
	clang $(FUZZLINK) -o $@ $^
$(addprefix $(BUILD)/tests/,trace_gen trace_hostile linux_ref):
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^
# runq with ASan and UBSan, for the shell suites; it finds the kernel
# beside itself, as build/runq does.
$(ASAN_RUNQ): $(ASAN_OBJ) $(patsubst db/%.sql,$(BUILD)/gen/%_sql.o,$(HOST_SQL)) $(KERNEL)
	@mkdir -p $(dir $@)
	ln -sf ../kernel.elf $(dir $@)kernel.elf
	$(CC) $(SANFLAGS) -o $@ $(ASAN_OBJ) $(patsubst db/%.sql,$(BUILD)/gen/%_sql.o,$(HOST_SQL)) $(HOST_LIBS)

# One job a CPU even when typed plain, as make test builds (serial, the
# first make run of a clean clone spent most of its minute compiling).
run:
	@$(MAKE) --no-print-directory -j$(shell nproc) all
	$(RUNQ) run

# QEMU waits for gdb on localhost:$(GDB_PORT) with the console in
# build/gdb-console.log; gdb has runq's helpers (runq-ps, runq-queue CPU,
# runq-wake CPU, runq-trace CPU: docs/gdb.md) and each vCPU is a gdb thread
# (info threads; thread N; bt).
GDB_PORT ?= 1234
gdb: all
	$(RUNQ) boot --gdb-port $(GDB_PORT) --timeout 100000 $(GDB_BOOT_FLAGS) > $(BUILD)/gdb-console.log 2>&1 & \
	sleep 1; gdb -q $(KERNEL) -ex 'source scripts/gdb/runq.py' -ex 'target remote :$(GDB_PORT)' $(GDB_FLAGS); \
	kill $$! 2>/dev/null; true

# The build one job a CPU even when `make test` is typed plain (serial it
# was 7 minutes of a 17-minute run on 2 cores); the suites then run in
# lanes (tests/runner.sh). It builds what make bench, make fuzz and
# make gdb need too (BENCHES; the rest are HOST_TESTS and all), so a
# program of theirs that no longer builds fails make test.
test:
	@$(MAKE) --no-print-directory -j$(shell nproc) test-build
	@RUNQ=$(RUNQ) RUNQ_SAN=$(ASAN_RUNQ) bash tests/run.sh
# Every generated figure in README, docs/ and labs/, made again from its
# runs (scripts/docs.pl; docs/testing.md, "Generated figures"): only the
# blocks whose inputs changed, DOCS_JOBS at a time; FORCE=1 runs every one,
# ONLY=id,id those. make test's docs_current says when this is due.
DOCS_JOBS ?= $(shell nproc)
docs: all
	@perl scripts/docs.pl -j $(DOCS_JOBS) $(if $(FORCE),--force) $(if $(ONLY),--only $(ONLY))

# Every run behind docs/seeds.md made again, and the verdict table
# (scripts/seeds.sh; minutes on 2 cores).
seeds: all
	@sh scripts/seeds.sh -j $(DOCS_JOBS)

# The long forms and the docs' kernel examples (tests/run.sh's `check`
# lines): what make test runs short, run long. .ci/run runs both.
check:
	@$(MAKE) --no-print-directory -j$(shell nproc) test-build
	@RUNQ=$(ASAN_RUNQ) RUNQ_SAN=$(ASAN_RUNQ) RUNQ_TEST_SET=check LOGS=$(BUILD)/check-logs DURATIONS=tests/durations.check bash tests/run.sh

# ---- benches (make bench: tests/bench.sh) ----
# Built like runq (build/host/: -O2, no sanitizers) from the same object
# lists as the tests; the bench scripts run these and compile nothing.
BENCH_PICK_OBJ := $(call hobj,tests/policy/bench_pick.c $(POLICY_SRC))
BENCH_BALANCE_OBJ := $(call hobj,tests/policy/bench_balance.c $(POLICY_SRC))
BENCH_TOP_OBJ := $(call hobj,tests/tui/bench_top.c $(TOP_MODEL_SRC))
# The kernel that times each trace record it writes (tests/kernel/bench_trace_emit.sh):
# the kernel's own objects but emit.o and tracer.o, the two files whose code
# reads RUNQ_TRACE_SELFCOST (trace.h only declares its table, and every
# other object's text is the same with the flag: checked), compiled again
# with it and linked in their places, as the poison kernels below are.
SELFCOST_KERNEL := $(BUILD)/selfcost/kernel.elf
KEMIT := $(BUILD)/kernel/trace/emit.o
SELFCOST_OBJ := $(BUILD)/selfcost/kernel/trace/emit.o $(BUILD)/selfcost/kernel/trace/tracer.o
BENCHES := $(BUILD)/bench/bench_pick $(BUILD)/bench/bench_balance $(BUILD)/bench/bench_top $(SELFCOST_KERNEL)
$(BUILD)/bench/bench_pick: $(BENCH_PICK_OBJ)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^
$(BUILD)/bench/bench_balance: $(BENCH_BALANCE_OBJ)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^
$(BUILD)/bench/bench_top: $(BENCH_TOP_OBJ) $(BUILD)/gen/schema_sql.o
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ -lsqlite3 -lm
$(BUILD)/selfcost/kernel/trace/%.o: kernel/trace/%.c $(BUILD)/kernel/.flags
	@mkdir -p $(dir $@)
	$(CC) $(KCFLAGS) -DRUNQ_TRACE_SELFCOST -c $< -o $@
$(SELFCOST_KERNEL): $(KOBJ) $(SELFCOST_OBJ) kernel/kernel.ld
	$(LD) -nostdlib -static -z max-page-size=0x1000 --no-warn-rwx-segments -T kernel/kernel.ld -o $@ \
		$(patsubst $(KEMIT),$(BUILD)/selfcost/kernel/trace/emit.o,$(patsubst $(BUILD)/kernel/trace/tracer.o,$(BUILD)/selfcost/kernel/trace/tracer.o,$(KOBJ)))
# tests/kernel/trace_fields.sh's two kernels that fill each record with
# 0x00 and 0xff before its fields are written: the kernel's own objects
# but emit.o, the one file that reads RUNQ_TRACE_POISON, compiled again
# with it and linked in its place (the same image a whole build with the
# flag makes, in two compiles instead of a hundred), by make test-build.
POISON_KERNELS := $(BUILD)/poison-0x00/kernel.elf $(BUILD)/poison-0xff/kernel.elf
.SECONDARY: $(BUILD)/poison-0x00/kernel/trace/emit.o $(BUILD)/poison-0xff/kernel/trace/emit.o
$(BUILD)/poison-%/kernel/trace/emit.o: kernel/trace/emit.c $(BUILD)/kernel/.flags
	@mkdir -p $(dir $@)
	$(CC) $(KCFLAGS) -DRUNQ_TRACE_POISON=$* -c $< -o $@
$(BUILD)/poison-%/kernel.elf: $(KOBJ) $(BUILD)/poison-%/kernel/trace/emit.o kernel/kernel.ld
	$(LD) -nostdlib -static -z max-page-size=0x1000 --no-warn-rwx-segments -T kernel/kernel.ld -o $@ \
		$(patsubst $(KEMIT),$(BUILD)/poison-$*/kernel/trace/emit.o,$(KOBJ))
# Everything the suites run, built (one job a CPU when make test calls it).
# Here, below BENCHES and POISON_KERNELS: a prerequisite list is expanded
# when make reads the rule, and above their definitions both were empty
# (a clean clone's make test then had no bench_pick).
test-build: all $(HOST_TESTS) $(BENCHES) $(POISON_KERNELS)
bench: all $(BENCHES) $(BUILD)/tests/trace_gen
	@bash tests/bench.sh

# The policy fuzzer, then the differential test against Linux 6.18's rules
# on many more workloads than `make test` runs, then the database readers
# on DB_FUZZ_ROUNDS hostile databases, seeded from the clock (the first
# line says the seeds; SEED=N repeats them).
fuzz: $(BUILD)/tests/eevdf_fuzz $(RUNQ) $(BUILD)/tests/linux_ref $(ASAN_RUNQ) $(BUILD)/tests/trace_gen
	@bash tests/policy/eevdf_fuzz.sh $${FUZZ_SECONDS:-600}
	@bash tests/policy/linux_diff.sh $${LINUX_DIFF_N:-5000} | tail -n 4
	@SEED=$${SEED:-$$(date +%s)} bash tests/db/db_fuzz.sh $${DB_FUZZ_ROUNDS:-500} $(ASAN_RUNQ)

# The fuzzer with the seed's ordering bug forced on: it must fail, fast.
fuzz-leave-bug:
	@mkdir -p $(BUILD)/fuzz-leave-bug/corpus
	clang $(FUZZFLAGS) $(FUZZLINK) -DEEVDF_FUZZ_LAB_LEAVE_BUG -o $(BUILD)/fuzz-leave-bug/eevdf_fuzz \
		tests/policy/eevdf_fuzz.c $(POLICY_SRC)
	cd $(BUILD)/fuzz-leave-bug && ! ./eevdf_fuzz -seed=1 -max_total_time=120 corpus

# runq sim against the Linux 6.18 reference on random workloads (make test
# runs 300 of each kind). LINUX_DIFF_N seeds a kind.
linux-diff: $(RUNQ) $(BUILD)/tests/linux_ref
	@bash tests/policy/linux_diff.sh $${LINUX_DIFF_N:-300}

prove-bugs: deps-check
	@bash tests/prove_bugs.sh

clean:
	rm -rf $(BUILD)

FORCE:
-include $(KOBJ:.o=.d) $(wildcard $(BUILD)/poison-*/kernel/trace/emit.d $(BUILD)/selfcost/kernel/trace/*.d) $(HOST_OBJ:.o=.d) $(TEST_OBJ:.o=.d) $(BENCH_PICK_OBJ:.o=.d) $(BENCH_TOP_OBJ:.o=.d)
