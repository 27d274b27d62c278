# SPDX-License-Identifier: GPL-2.0
#
# Out-of-tree md RAID stack.  `make` builds md-mod.ko, raid1.ko and
# raid456.ko against the Debian cloud kernel headers that
# tests/vm/setup.sh installs; override with KDIR=/path/to/build.

SRC := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
CACHE := $(SRC)/.cache

# setup.sh resolves the cloud kernel ABI through the metapackage and
# records it here so image and headers always match.
-include $(CACHE)/kabi.mk
KDIR ?= /usr/src/linux-headers-$(KABI)

.PHONY: all modules setup clean check check-debug debug-kernel unit model \
	vm-check demo bench bench-throttle checkpatch sparse

all: modules

$(CACHE)/kabi.mk:
	$(SRC)/tests/vm/setup.sh

setup:
	$(SRC)/tests/vm/setup.sh

modules: $(CACHE)/kabi.mk
	$(MAKE) -C $(KDIR) M=$(SRC) W=1 modules

sparse: $(CACHE)/kabi.mk
	$(MAKE) -C $(KDIR) M=$(SRC) C=2 modules

checkpatch: $(CACHE)/kabi.mk
	$(SRC)/scripts/checkpatch.sh

clean:
	$(MAKE) -C $(KDIR) M=$(SRC) clean 2>/dev/null || true
	rm -rf $(SRC)/tests/unit/build $(SRC)/tests/model/build

unit:
	$(MAKE) -C $(SRC)/tests/unit

model:
	$(MAKE) -C $(SRC)/tests/model

vm-check: modules
	$(SRC)/tests/vm/run-tests

# The README's test command: unit tests, the model, then the VM suite
# against in-tree md and this stack.
check: $(CACHE)/kabi.mk
	$(SRC)/tests/check.sh

# The VM suite and the crash test on a debug build of the same kernel
# (lockdep, KASAN, kmemleak, UBSAN, ...), built once and cached outside the
# clone by scripts/debug-kernel.sh.
check-debug: $(CACHE)/kabi.mk
	$(SRC)/tests/check-debug.sh

debug-kernel: $(CACHE)/kabi.mk
	$(SRC)/scripts/debug-kernel.sh

demo: modules
	$(SRC)/tests/vm/demo

bench: modules
	$(SRC)/tests/vm/bench

# Resync throttle benchmark (issue 5), see BENCHMARKS.md.
bench-throttle: modules
	$(SRC)/tests/vm/bench-throttle
