# sharesim — plain Makefile, flags from pkg-config.
# `make run` / `make test` first call scripts/install-deps (`run`: what the simulator needs;
# `test`: that and the test tools) so a fresh Debian machine needs nothing else.
#
# The build prints one line per stage (a directory's objects, an archive, a link): the first
# screen of `make run` is the quickstart table, not compiler command lines. `make V=1` shows
# every command in full (the Linux kernel's convention).
V       ?=
Q       := $(if $(V),,@)

CC      ?= cc
# MPI=1 links Open MPI for `mpirun -n N sharesim sweep|validate` (docs/distributed.md); MPI=0
# builds without it (every run is one process, --shard still works). By default it is 1 when
# Open MPI's development package is there (pkg-config ompi-c): `make run` does not install it
# (53 MB of dependencies for a feature the quickstart does not use), `make test` and
# `scripts/install-deps mpi` do. Changing it rebuilds everything ($(B)/.cflags). Its flags come
# from pkg-config like every other library, not from the mpicc wrapper: mpicc would replace
# $(CC), and the ASan build, the clang fuzz build and nvcc's host code all need their own
# compiler with the same flags.
ifeq ($(origin MPI),undefined)
MPI     := $(shell pkg-config --exists ompi-c 2>/dev/null && echo 1 || echo 0)
endif
# The simulator does not need CUnit (a test-only package: scripts/install-deps test); only the
# test runners link it, through TEST_LIBS.
PKGS    := gsl libcjson yaml-0.1 $(if $(filter 1,$(MPI)),ompi-c)
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null)
TEST_LIBS  := $(or $(shell pkg-config --libs cunit 2>/dev/null),-lcunit)
CSTD    := -std=c11 -D_POSIX_C_SOURCE=200809L
WARN    := -Wall -Wextra -Werror
OPT     ?= -O2 -g
CFLAGS  += $(CSTD) $(WARN) $(OPT) $(PKG_CFLAGS) -Isim -DSS_MPI=$(if $(filter 1,$(MPI)),1,0)
LDLIBS  += $(PKG_LIBS) -lm

B       := build
# Parallel jobs for the builds and test runs that make run/test start themselves (every
# core; CI has 2): `make test JOBS=1` runs everything one at a time.
JOBS    ?= $(shell nproc 2>/dev/null || echo 1)
# sim/ is in layers (docs/architecture.md); the library is every layer but cli/.
LAYERS  := base calib mig io llm core cluster policy policy/units report tools
LIB_SRC := $(sort $(foreach l,$(LAYERS),$(wildcard sim/$(l)/*.c)))
CLI_SRC := $(sort $(wildcard sim/cli/*.c))
# The test runner links the CLI helpers too (signal handling, option parsing), not main().
CLI_LIB_SRC := $(filter-out sim/cli/main.c,$(CLI_SRC))
TEST_SRC:= $(sort $(wildcard tests/test_*.c)) tests/testutil.c
LIB_OBJ := $(LIB_SRC:%.c=$(B)/%.o)
TEST_OBJ:= $(TEST_SRC:%.c=$(B)/%.o)

# One line for each stage. $(call stage,STAMP,LABEL,WHAT,OBJECTS) is a rule that prints, once
# OBJECTS are up to date, "  LABEL WHAT (N files)" (N: those rebuilt this time) and touches STAMP;
# the archive or binary depends on the stamp, so the line comes before its own. Compile rules
# print nothing unless V=1.
define stage
$(1): $(4)
	@printf '  %-7s %s (%s)\n' '$(2)' '$(3)' \
	  "$$(if $$(filter-out $$?,$$^),$$(words $$?) of $$(words $$^) files rebuilt,$$(words $$^) files)"
	@touch $$@
endef
# "  LABEL TARGET" before a command, unless V=1 (then the command itself is shown).
say = $(if $(V),,@printf '  %-7s %s\n' '$(1)' '$(2)';)

ASAN_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
A       := $(B)/asan


.PHONY: FORCE all deps deps-test run test test-layers test-refs test-unit test-asan test-valgrind test-install install golden clean format quickstart bench results \
	results-check docs-figures docs-check cluster-openb figures
all: $(B)/sharesim $(B)/libsharesim.a

# deps: the packages building and running the simulator needs; deps-test adds the test tools.
deps:
	@./scripts/install-deps run
deps-test:
	@./scripts/install-deps test

# The compile flags of the last build: rewritten only when they change (MPI found or not, OPT,
# CC), so that every object made with other flags is rebuilt.
$(B)/.cflags: FORCE
	@mkdir -p $(B)
	@echo '$(CC) $(CFLAGS)' | cmp -s - $@ || echo '$(CC) $(CFLAGS)' > $@
FORCE:

$(B)/%.o: %.c $(B)/.cflags
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS) -MMD -MP -c $< -o $@

# sim/ is one stage, not one per layer: with four lines for the whole build (compile, archive,
# link, kernels), `make run` on a fresh machine shows its table at line 10, in the first screen.
$(eval $(call stage,$(B)/sim/.built,CC,sim/,$(LIB_OBJ) $(CLI_SRC:%.c=$(B)/%.o)))
$(eval $(call stage,$(B)/tests/.built,CC,tests/,$(TEST_OBJ) $(B)/tests/main.o))

$(B)/libsharesim.a: $(LIB_OBJ) $(B)/sim/.built
	@rm -f $@
	$(call say,AR,$@)ar rcs $@ $(LIB_OBJ)

$(B)/sharesim: $(CLI_SRC:%.c=$(B)/%.o) $(B)/sim/.built $(B)/libsharesim.a
	$(call say,LD,$@)$(CC) $(CFLAGS) -o $@ $(filter %.o %.a,$^) $(LDLIBS)

# The test runner: every tests/test_<name>.c defines `void test_<name>_register(void)`;
# the registry below is generated from the file names so adding a suite is adding a file.
$(B)/test_registry.c: $(TEST_SRC) Makefile
	@mkdir -p $(B)
	@{ for f in $(notdir $(basename $(filter tests/test_%.c,$(TEST_SRC)))); do \
	     echo "void $${f}_register(void);"; done; \
	   echo "void tests_register_all(void);"; \
	   echo "void tests_register_all(void) {"; \
	   for f in $(notdir $(basename $(filter tests/test_%.c,$(TEST_SRC)))); do \
	     echo "  $${f}_register();"; done; \
	   echo "}"; } > $@.tmp && mv $@.tmp $@

$(B)/test_registry.o: $(B)/test_registry.c
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

$(B)/run-tests: $(TEST_OBJ) $(B)/test_registry.o $(B)/tests/main.o $(CLI_LIB_SRC:%.c=$(B)/%.o) \
		$(B)/tests/.built $(B)/libsharesim.a
	$(call say,LD,$@)$(CC) $(CFLAGS) -o $@ $(filter %.o %.a,$^) $(LDLIBS) $(TEST_LIBS)

# Sanitizer build: same sources, separate object tree (one stage line for it all).
$(A)/%.o: %.c $(B)/.cflags
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS) $(ASAN_FLAGS) -O1 -MMD -MP -c $< -o $@

$(A)/test_registry.o: $(B)/test_registry.c
	$(Q)$(CC) $(CFLAGS) $(ASAN_FLAGS) -O1 -c $< -o $@

$(eval $(call stage,$(A)/.built-sim,CC-ASAN,sim/,$(CLI_SRC:%.c=$(A)/%.o) $(LIB_SRC:%.c=$(A)/%.o)))
$(eval $(call stage,$(A)/.built-tests,CC-ASAN,tests/,$(TEST_SRC:%.c=$(A)/%.o) $(A)/tests/main.o))

$(A)/sharesim: $(CLI_SRC:%.c=$(A)/%.o) $(LIB_SRC:%.c=$(A)/%.o) $(A)/.built-sim
	$(call say,LD,$@)$(CC) $(CFLAGS) $(ASAN_FLAGS) -o $@ $(filter %.o,$^) $(LDLIBS)

$(A)/run-tests: $(TEST_SRC:%.c=$(A)/%.o) $(A)/test_registry.o $(A)/tests/main.o \
		$(CLI_LIB_SRC:%.c=$(A)/%.o) $(LIB_SRC:%.c=$(A)/%.o) $(A)/.built-tests $(A)/sharesim
	$(call say,LD,$@)$(CC) $(CFLAGS) $(ASAN_FLAGS) -o $@ $(filter %.o,$^) $(LDLIBS) $(TEST_LIBS)

# Targets a new user types call install-deps first, then re-enter make: the flags above are
# computed by pkg-config when the Makefile is read, so they must be read after the packages
# are installed, never before (the first `make run` on a fresh machine would stop at cJSON.h).
run: deps
	@$(MAKE) --no-print-directory -j$(JOBS) all
	@echo '$$ $(B)/sharesim run workloads/quickstart.json'
	@$(B)/sharesim run workloads/quickstart.json

# Tests find the CLI under test through SHARESIM (for end-to-end checks).
test: deps-test
	@$(MAKE) --no-print-directory test-layers
	@$(MAKE) --no-print-directory test-refs
	@$(MAKE) --no-print-directory -j$(JOBS) all $(B)/run-tests $(A)/run-tests
	@$(MAKE) --no-print-directory test-unit
	@$(MAKE) --no-print-directory test-install
	@$(MAKE) --no-print-directory test-asan

# Includes must follow sim/'s layer table (docs/architecture.md).
test-layers:
	@tests/check-layers sim

# No tracked file may point outside the repository; profile sources resolve (tests/check-refs).
test-refs:
	@tests/check-refs

# Each suite is its own process, JOBS at a time (tests/run-suites); `build/run-tests SUITE`
# runs one with CUnit's verbose listing.
test-unit: all $(B)/run-tests
	SHARESIM=$(B)/sharesim SUITE_TIMES=$(B)/suite-seconds tests/run-suites $(JOBS) $(B)/run-tests

test-asan: $(A)/run-tests
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  SHARESIM=$(A)/sharesim SHARESIM_SANITIZED=1 SUITE_TIMES=$(B)/suite-seconds tests/run-suites $(JOBS) $(A)/run-tests

bench: deps-test
	@$(MAKE) --no-print-directory all $(B)/tightloop
	./scripts/bench

# The hand-written M/M/4 loop `make bench` compares the engine with (tests/bench/tightloop.c).
$(B)/tightloop: tests/bench/tightloop.c
	@mkdir -p $(B)
	$(call say,CC LD,$@)$(CC) $(CSTD) $(WARN) $(OPT) -o $@ $< -lm

# Benchmark tables and plots (docs/results.md): every study of results/index.json.
# results-check regenerates the tables into a temporary folder and diffs them
# against the committed ones (plots excluded), then checks the figures quoted in README.md
# and docs/ (scripts/docs-figures); CI runs it. `make results` rewrites both.
results: deps
	@$(MAKE) --no-print-directory all
	./scripts/regen-results
	./scripts/docs-figures --update

# Every figure of every study of results/index.json as a gnuplot script with its data, rendered
# to PNG and PDF (docs/report.md): FIGURES/<study>/<figure>.{gp,dat,png,pdf}. The studies run
# again into FIGURES/results (results/ is left as it is); as long as `make results`.
FIGURES ?= $(B)/figures
figures: deps
	@$(MAKE) --no-print-directory all
	VALIDATE_ARGS=skip ./scripts/regen-results --out $(FIGURES)/results --gnuplot $(FIGURES)

# The cluster study (docs/cluster.md): openb trace, six policies x 10 seeds, against the FGD
# simulator's committed results: its tables (its page is the cluster-openb study of results/index.json).
cluster-openb: deps
	@$(MAKE) --no-print-directory all
	./scripts/cluster-openb

results-check: deps
	@$(MAKE) --no-print-directory all
	./scripts/results-check

# Only the figures of README.md and docs/ (seconds): checked against the build and results/.
docs-figures: all
	./scripts/docs-figures

# Every shell block of README.md and docs/*.md is run and compared, or marked as not run with
# a reason (scripts/docs-check; docs/development.md, "Docs that are checked"). CI runs it.
docs-check: all
	./scripts/docs-check

# The normal test binary under memcheck, and every CLI it spawns too (through the wrapper
# tests/valgrind/sharesim). Fails on any invalid access and on definite or indirect leaks, in
# the runner or in any sharesim process (one log per process in build/valgrind/).
VALGRIND := valgrind -q --leak-check=full --errors-for-leak-kinds=definite,indirect \
	--show-leak-kinds=definite,indirect --error-exitcode=1
test-valgrind: all $(B)/run-tests
	@rm -rf $(B)/valgrind && mkdir -p $(B)/valgrind
	SHARESIM=$(CURDIR)/tests/valgrind/sharesim SHARESIM_REAL=$(CURDIR)/$(B)/sharesim SHARESIM_VG_LOGS=$(CURDIR)/$(B)/valgrind \
	  SHARESIM_SANITIZED=1 SHARESIM_UNDER_VALGRIND=1 SUITE_TIMES=$(B)/suite-seconds tests/run-suites $(JOBS) $(B)/run-tests $(VALGRIND)
	@bad=$$(find $(B)/valgrind -name '*.log' -size +0c); \
	if [ -n "$$bad" ]; then cat $$bad; echo "test-valgrind: memcheck errors in: $$bad"; exit 1; fi; \
	echo "test-valgrind: clean ($$(ls $(B)/valgrind | wc -l) sharesim processes checked)"

# Golden results (tests/test_golden.c): rewrite tests/golden/ from tests/fixtures/golden/
# after a deliberate change of a model, then review the diff.
golden: all
	@for f in tests/fixtures/golden/*.json; do \
	  $(B)/sharesim run $$f --quiet --json tests/golden/$$(basename $$f) || exit 1; done
	@echo "golden: tests/golden/ rewritten; review with git diff"

# make install PREFIX=DIR (default /usr/local): the binary in DIR/bin, the calibration profiles
# and the shipped scenarios and traces in DIR/share/sharesim, where the binary finds them, with
# LICENSE and NOTICE beside them (NOTICE names the third-party data and its licences).
PREFIX ?= /usr/local
SHARE  := $(DESTDIR)$(PREFIX)/share/sharesim
install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(SHARE)/kernels/profiles/workloads $(SHARE)/kernels/profiles/models $(SHARE)/kernels/profiles/kernels $(SHARE)/kernels/profiles/engines $(SHARE)/kernels/profiles/datasets $(SHARE)/kernels/profiles/measurements $(SHARE)/workloads $(SHARE)/traces
	install -m 755 $(B)/sharesim $(DESTDIR)$(PREFIX)/bin/sharesim
	install -m 644 kernels/profiles/*.json $(SHARE)/kernels/profiles/
	install -m 644 kernels/profiles/models/*.json $(SHARE)/kernels/profiles/models/
	install -m 644 kernels/profiles/kernels/*.json $(SHARE)/kernels/profiles/kernels/
	install -m 644 kernels/profiles/engines/*.json $(SHARE)/kernels/profiles/engines/
	install -m 644 kernels/profiles/workloads/*.json $(SHARE)/kernels/profiles/workloads/
	install -m 644 kernels/profiles/datasets/*.csv kernels/profiles/datasets/README.md $(SHARE)/kernels/profiles/datasets/
	install -m 644 kernels/profiles/measurements/*.csv kernels/profiles/measurements/*.md $(SHARE)/kernels/profiles/measurements/
	install -m 644 workloads/*.json workloads/*.csv workloads/README.md $(SHARE)/workloads/
	install -m 644 traces/*.csv traces/*.md traces/LICENSE.* traces/SHA256SUMS $(SHARE)/traces/
	install -m 644 LICENSE NOTICE $(SHARE)/
	@echo "install: $(DESTDIR)$(PREFIX)/bin/sharesim (profiles, workloads, traces, LICENSE, NOTICE in $(SHARE))"

# The installed binary works from anywhere: profiles found next to it, a shipped scenario run;
# the licence and the notice installed beside the data, the same bytes as the repository's.
test-install:
	@d=$$(mktemp -d) && trap 'rm -rf "$$d"' EXIT && \
	  $(MAKE) --no-print-directory -s install PREFIX=$$d >/dev/null && \
	  for f in LICENSE NOTICE traces/LICENSE.azure-llm.CC-BY-4.0; do \
	    cmp -s $$f $$d/share/sharesim/$$f || { echo "test-install: $$f not installed in share/sharesim"; exit 1; }; \
	  done && \
	  (cd / && $$d/bin/sharesim profile list >/dev/null && \
	   $$d/bin/sharesim run $$d/share/sharesim/workloads/quickstart.json --quiet --json $$d/q.json) && \
	  echo "test-install: the installed sharesim finds its profiles and runs the quickstart"

format:
	clang-format -i $$(find sim tests -name '*.[ch]')

clean:
	rm -rf $(B)

-include kernels/kernels.mk
-include tests/fuzz/fuzz.mk
-include $(shell find $(B) -name '*.d' 2>/dev/null)
