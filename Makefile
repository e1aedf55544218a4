# sharesim — plain Makefile, flags from pkg-config.
# `make run` / `make test` first call scripts/install-deps so a fresh Debian
# machine needs nothing else.

CC      ?= cc
PKGS    := gsl libcjson cunit
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null)
CSTD    := -std=c11 -D_POSIX_C_SOURCE=200809L
WARN    := -Wall -Wextra -Werror
OPT     ?= -O2 -g
CFLAGS  += $(CSTD) $(WARN) $(OPT) $(PKG_CFLAGS) -Isim
LDLIBS  += $(PKG_LIBS) -lm

B       := build
LIB_SRC := $(filter-out sim/main.c,$(sort $(wildcard sim/*.c)))
TEST_SRC:= $(sort $(wildcard tests/test_*.c)) tests/testutil.c
LIB_OBJ := $(LIB_SRC:%.c=$(B)/%.o)
TEST_OBJ:= $(TEST_SRC:%.c=$(B)/%.o)

ASAN_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
A       := $(B)/asan

.PHONY: all deps run test test-unit test-asan test-valgrind clean format quickstart bench results \
	results-check
all: $(B)/sharesim $(B)/libsharesim.a

deps:
	@./scripts/install-deps

$(B)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -MMD -MP -c $< -o $@

$(B)/libsharesim.a: $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(B)/sharesim: $(B)/sim/main.o $(B)/libsharesim.a
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

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

$(B)/run-tests: $(TEST_OBJ) $(B)/test_registry.o $(B)/tests/main.o $(B)/libsharesim.a
	$(CC) $(CFLAGS) -o $@ $(TEST_OBJ) $(B)/test_registry.o $(B)/tests/main.o $(B)/libsharesim.a $(LDLIBS)

# Sanitizer build: same sources, separate object tree.
$(A)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(ASAN_FLAGS) -O1 -MMD -MP -c $< -o $@

$(A)/test_registry.o: $(B)/test_registry.c
	$(CC) $(CFLAGS) $(ASAN_FLAGS) -O1 -c $< -o $@

$(A)/sharesim: $(A)/sim/main.o $(LIB_SRC:%.c=$(A)/%.o)
	$(CC) $(CFLAGS) $(ASAN_FLAGS) -o $@ $^ $(LDLIBS)

$(A)/run-tests: $(TEST_SRC:%.c=$(A)/%.o) $(A)/test_registry.o $(A)/tests/main.o $(LIB_SRC:%.c=$(A)/%.o) $(A)/sharesim
	$(CC) $(CFLAGS) $(ASAN_FLAGS) -o $@ $(filter %.o,$^) $(LDLIBS)

# Targets a new user types call install-deps first, then re-enter make: the flags above are
# computed by pkg-config when the Makefile is read, so they must be read after the packages
# are installed, never before (the first `make run` on a fresh machine would stop at cJSON.h).
run: deps
	@$(MAKE) --no-print-directory all
	$(B)/sharesim run workloads/quickstart.json

# Tests find the CLI under test through SHARESIM (for end-to-end checks).
test: deps
	@$(MAKE) --no-print-directory test-unit
	@$(MAKE) --no-print-directory test-asan

test-unit: all $(B)/run-tests
	SHARESIM=$(B)/sharesim $(B)/run-tests

test-asan: $(A)/run-tests
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  SHARESIM=$(A)/sharesim SHARESIM_SANITIZED=1 $(A)/run-tests

bench: deps
	@$(MAKE) --no-print-directory all
	./scripts/bench

# Benchmark tables and plots (docs/results.md): every study of results/index.json.
# results-check regenerates the tables into a temporary folder and diffs them
# against the committed ones (plots excluded); CI runs it.
results: deps
	@$(MAKE) --no-print-directory all
	./scripts/regen-results

results-check: deps
	@$(MAKE) --no-print-directory all
	./scripts/results-check

# The normal test binary under memcheck, and every CLI it spawns too (through the wrapper
# tests/valgrind/sharesim). Fails on any invalid access and on definite or indirect leaks, in
# the runner or in any sharesim process (one log per process in build/valgrind/).
VALGRIND := valgrind -q --leak-check=full --errors-for-leak-kinds=definite,indirect \
	--show-leak-kinds=definite,indirect --error-exitcode=1
test-valgrind: all $(B)/run-tests
	@rm -rf $(B)/valgrind && mkdir -p $(B)/valgrind
	SHARESIM=tests/valgrind/sharesim SHARESIM_REAL=$(B)/sharesim SHARESIM_VG_LOGS=$(B)/valgrind \
	  SHARESIM_SANITIZED=1 SHARESIM_UNDER_VALGRIND=1 $(VALGRIND) $(B)/run-tests
	@bad=$$(find $(B)/valgrind -name '*.log' -size +0c); \
	if [ -n "$$bad" ]; then cat $$bad; echo "test-valgrind: memcheck errors in: $$bad"; exit 1; fi; \
	echo "test-valgrind: clean ($$(ls $(B)/valgrind | wc -l) sharesim processes checked)"

format:
	clang-format -i sim/*.c sim/*.h tests/*.c tests/*.h

clean:
	rm -rf $(B)

-include kernels/kernels.mk
-include tests/fuzz/fuzz.mk
-include $(shell find $(B) -name '*.d' 2>/dev/null)
