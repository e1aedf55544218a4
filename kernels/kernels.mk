# kernels/ — CUDA microbenchmarks, built with nvcc into build/kernels/ (included by the
# Makefile). `make kernels` (and `make all`) builds them when nvcc is on PATH or at
# /usr/local/cuda/bin/nvcc, and otherwise says so and succeeds: the simulator never
# needs CUDA. The host code links libsharesim.a (profile fragments, kanalysis).

ifeq ($(origin NVCC),undefined)
NVCC := $(or $(shell command -v nvcc 2>/dev/null),$(wildcard /usr/local/cuda/bin/nvcc))
endif
# A100 (sm_80), H100/H200 (sm_90), plus sm_90 PTX so newer GPUs JIT-compile it.
CUDA_ARCH ?= -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 \
             -gencode arch=compute_90,code=compute_90
NVCCFLAGS ?= -O2 -std=c++17 $(CUDA_ARCH) -Xcompiler -Wall,-Wextra,-Werror -Werror all-warnings
KB        := $(B)/kernels
KERNELS   := tslice partition concurrency fidelity
KERNEL_BINS := $(addprefix $(KB)/,$(KERNELS))

.PHONY: kernels
all: kernels

ifeq ($(strip $(NVCC)),)
kernels:
	@echo "kernels: nvcc not found (PATH or /usr/local/cuda/bin): skipping the CUDA microbenchmarks"
else
kernels: $(KERNEL_BINS)

# One line for all of kernels/ (the stage macro of the Makefile), like sim/: the first screen
# of `make run` is the quickstart table.
$(KB)/%.o: kernels/%.cu kernels/kcommon.h $(wildcard sim/*/*.h)
	@mkdir -p $(KB)
	$(Q)$(NVCC) $(NVCCFLAGS) -Isim $(PKG_CFLAGS) -c $< -o $@
$(eval $(call stage,$(KB)/.built,NVCC,kernels/,$(addsuffix .o,$(KERNEL_BINS)) $(KB)/kcommon.o))

# Keep the objects (make would delete them as intermediates of the pattern chain).
.SECONDARY: $(addsuffix .o,$(KERNEL_BINS)) $(KB)/kcommon.o

$(KERNEL_BINS): $(KB)/%: $(KB)/%.o $(KB)/kcommon.o $(B)/libsharesim.a $(KB)/.built
	$(Q)$(NVCC) $(NVCCFLAGS) -o $@ $(filter-out $(KB)/.built,$^) $(PKG_LIBS) -lm
endif
