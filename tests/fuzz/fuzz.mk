# tests/fuzz/fuzz.mk — libFuzzer targets for the input parsers (included by the Makefile).
#
#   make fuzz FUZZ_SECONDS=60   build every target and fuzz each for FUZZ_SECONDS seconds
#   make fuzz-regress           replay the seed corpus (incl. past crash inputs) once, no fuzzing
#   make fuzz-build             only build the targets
#
# Everything generated (objects, binaries, the growing corpus, crash artifacts) goes under
# build/fuzz/; the repository's tests/fuzz/corpus/<target>/ is only read (seeds and regression
# inputs). A crash writes build/fuzz/artifacts/<target>/crash-<sha1> and fails the make.
#
# Adding a target: write tests/fuzz/<target>.c defining LLVMFuzzerTestOneInput, add a seed
# directory tests/fuzz/corpus/<target>/, and add the name to FUZZ_TARGETS.
FUZZ_TARGETS := fuzz_scenario fuzz_trace_azure fuzz_trace_openb fuzz_trace_sharesim fuzz_mig \
  fuzz_sweepmerge fuzz_pagecheck fuzz_openb fuzz_partial

FUZZ_SECONDS ?= 60
# clang-14 is what Debian 12's libclang-rt-14-dev (the libFuzzer runtime) goes with.
FUZZ_CC ?= $(shell command -v clang-14 >/dev/null 2>&1 && echo clang-14 || echo clang)
FZ := $(B)/fuzz
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
# ENG_CHECK_EVERY_LOG2=8: the engine's progress check (and fuzz_scenario's event budget) every
# 256 events instead of 2^20 (core/engine.h), so each input's run stays short.
FUZZ_CFLAGS := $(CSTD) $(WARN) -O1 -g $(PKG_CFLAGS) -Isim $(FUZZ_SAN) -DENG_CHECK_EVERY_LOG2=8
# -timeout: one input taking more than 10 s is a hang; -rss_limit_mb bounds memory per input.
FUZZ_RUN_FLAGS := -timeout=10 -rss_limit_mb=2048 -print_final_stats=1

# Format name (as tr_format_from_name spells it) per trace target suffix.
fuzz_trace_fmt = $(if $(filter azure,$(1)),azure-llm,$(1))

.PHONY: fuzz fuzz-build fuzz-regress

$(FZ)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -MMD -MP -c $< -o $@

$(eval $(call stage,$(FZ)/obj/.built,CC-FUZZ,sim/,$(LIB_SRC:%.c=$(FZ)/obj/%.o)))

$(FZ)/libsharesim.a: $(LIB_SRC:%.c=$(FZ)/obj/%.o) $(FZ)/obj/.built
	@rm -f $@
	$(call say,AR,$@)ar rcs $@ $(filter %.o,$^)

# One source, one binary per trace format (the shorter stem wins over the generic rule).
$(FZ)/fuzz_trace_%: tests/fuzz/fuzz_trace.c $(FZ)/libsharesim.a
	$(call say,LD-FUZZ,$@)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer \
	  -DFUZZ_TRACE_FORMAT='"$(call fuzz_trace_fmt,$*)"' -o $@ $^ $(LDLIBS)

$(FZ)/fuzz_%: tests/fuzz/fuzz_%.c $(FZ)/libsharesim.a
	$(call say,LD-FUZZ,$@)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $^ $(LDLIBS)

fuzz-build: deps-test $(FUZZ_TARGETS:%=$(FZ)/%)

# Each target: the first corpus directory (build/) collects new inputs, the second (the
# repository's seeds) is only read. Its dictionary is tests/fuzz/<target>.dict (the tokens, keys
# and column names, that random mutation would take long to guess) followed by
# tests/fuzz/numeric_edge.dict (the numbers at which doubles, integers and the clock's bounds
# change behaviour), joined into build/fuzz/dict/<target>.dict (libFuzzer takes one -dict).
$(FZ)/dict/%.dict: tests/fuzz/numeric_edge.dict $(wildcard tests/fuzz/*.dict)
	@mkdir -p $(dir $@)
	@cat $(wildcard tests/fuzz/$*.dict) tests/fuzz/numeric_edge.dict > $@

fuzz: fuzz-build $(FUZZ_TARGETS:%=$(FZ)/dict/%.dict)
	@set -e; for t in $(FUZZ_TARGETS); do \
	  mkdir -p $(FZ)/corpus/$$t $(FZ)/artifacts/$$t; \
	  dict=-dict=$(FZ)/dict/$$t.dict; \
	  echo "== $$t: $(FUZZ_SECONDS) s"; \
	  $(FZ)/$$t $(FUZZ_RUN_FLAGS) $$dict -max_total_time=$(FUZZ_SECONDS) \
	    -artifact_prefix=$(FZ)/artifacts/$$t/ $(FZ)/corpus/$$t tests/fuzz/corpus/$$t \
	    2>$(FZ)/$$t.log || { tail -60 $(FZ)/$$t.log; exit 1; }; \
	  grep -E '^(stat::number_of_executed_units|stat::peak_rss_mb|#[0-9]+.*DONE)' \
	    $(FZ)/$$t.log || true; \
	done

fuzz-regress: fuzz-build
	@set -e; for t in $(FUZZ_TARGETS); do \
	  echo "== $$t: replaying tests/fuzz/corpus/$$t"; \
	  $(FZ)/$$t $(FUZZ_RUN_FLAGS) tests/fuzz/corpus/$$t/* 2>$(FZ)/$$t.regress.log || \
	    { tail -60 $(FZ)/$$t.regress.log; exit 1; }; \
	done

# The objects' .d files are picked up by the Makefile's own `find $(B) -name '*.d'`.
