# SPDX-License-Identifier: GPL-2.0
#
# Out-of-tree md RAID stack.  `make` builds md-mod.ko, raid1.ko and
# raid456.ko against the Debian cloud kernel headers that
# tests/vm/setup.sh installs; override with KDIR=/path/to/build.
#
# KVER picks the kernel for every target (scripts/kver.sh): 6.1 (the
# default), 6.12, or a release such as 6.12.118+deb12-cloud-amd64.  The
# scripts the targets run read it from the environment.

SRC := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
CACHE := $(SRC)/.cache

# KABI=<release> on the command line, the older spelling, means KVER=<release>
ifeq ($(origin KVER),undefined)
ifneq ($(filter command line environment,$(origin KABI)),)
KVER := $(KABI)
endif
endif
KVER ?= 6.1
export KVER

# setup.sh resolves KVER to a release (for a series through its cloud
# metapackage) and records it in KABI_FILE so image and headers always
# match.  The modules for 6.1 build here, for any other kernel in their
# own directory (a copy of the sources), so builds for two kernels never
# overwrite each other.
ifeq ($(KVER),6.1)
KABI_FILE := $(CACHE)/kabi.mk
else
KABI_FILE := $(CACHE)/kabi-$(KVER).mk
endif
-include $(KABI_FILE)
ifneq ($(words $(subst ., ,$(KVER))),2)
KABI := $(KVER)
endif
KDIR ?= /usr/src/linux-headers-$(KABI)
ifeq ($(KVER),6.1)
BUILD := $(SRC)
SEEKDISK := $(CACHE)/seekdisk
else
BUILD := $(CACHE)/build-$(KABI)
SEEKDISK := $(CACHE)/seekdisk-$(KABI)
endif
# a recipe's first line where a target serves 6.1 only
only-6.1 = @[ "$(KVER)" = 6.1 ] || { echo "make $@: the debug kernel is Debian's 6.1 only (KVER=$(KVER))" >&2; exit 2; }

.PHONY: all build-sources modules setup clean check unit model vm-check demo bench \
	bench-throttle bench-delayed checkpatch sparse install uninstall dkms-install \
	dkms-remove dkms-check check-slow check-intree mdadm-suite check-debug debug-kernel \
	bench-report check-debug-bite torture seekdisk check-compat \
	sysfs-parity parity-selftest

all: modules

ifeq ($(words $(subst ., ,$(KVER))),2)
$(KABI_FILE):
	$(SRC)/tests/vm/setup.sh
else
# A release needs no look-up, and a host that installs for its own
# kernel needs only that kernel's headers, not the VM's packages and
# image (the VM targets fetch those themselves: host-lib.sh).
$(KABI_FILE):
	@echo "$(KVER)" | grep -Eq '^[0-9]+\.[0-9]+\.[0-9A-Za-z.+~_-]+$$' || { echo "make: KVER must be a series such as 6.1 or 6.12, or a release such as 6.12.118+deb12-cloud-amd64 (got '$(KVER)')" >&2; exit 2; }
	@[ -d $(KDIR) ] || { echo "make: no headers of $(KVER) in $(KDIR) (apt-get install linux-headers-$(KVER), or make setup KVER=$(KVER))" >&2; exit 1; }
	@mkdir -p $(CACHE)
	echo "KABI := $(KVER)" > $@
endif

setup:
	$(SRC)/tests/vm/setup.sh

# Another kernel's build directory gets the sources that changed, then
# builds there; kbuild rebuilds only what they touch.
build-sources: $(KABI_FILE)
ifneq ($(BUILD),$(SRC))
	$(SRC)/scripts/copy-sources.sh $(BUILD)
endif

modules: build-sources
	$(MAKE) -C $(KDIR) M=$(BUILD) W=1 modules

# seekdisk.ko (tests/vm/seekdisk/), the seek-charging member disk of the
# seek benches (issue 32): a module for the guest only, built in
# .cache/seekdisk/ so that the tree keeps no kbuild output of it.
# tests/vm/bench builds it when a job has "# MEMBERS: seek".  Its
# directory is per kernel like BUILD.
seekdisk: $(KABI_FILE)
	@mkdir -p $(SEEKDISK)
	@for f in $(SRC)/tests/vm/seekdisk/Kbuild $(SRC)/tests/vm/seekdisk/*.c; do \
		cmp -s $$f $(SEEKDISK)/$${f##*/} || cp $$f $(SEEKDISK)/ || exit 1; \
	done
	$(MAKE) -C $(KDIR) M=$(SEEKDISK) W=1 modules

sparse: build-sources
	$(MAKE) -C $(KDIR) M=$(BUILD) C=2 modules

checkpatch: $(KABI_FILE)
	$(SRC)/scripts/checkpatch.sh

clean:
ifeq ($(BUILD),$(SRC))
	$(MAKE) -C $(KDIR) M=$(SRC) clean 2>/dev/null || true
else
	rm -rf $(BUILD)
endif
	rm -rf $(SRC)/tests/unit/build $(SRC)/tests/model/build

unit:
	$(MAKE) -C $(SRC)/tests/unit

model:
	$(MAKE) -C $(SRC)/tests/model

vm-check: modules
	$(SRC)/tests/vm/run-tests

# The long exhaustive VM tests ("# SLOW:" header: every RAID4/5/6 layout
# both ways with in-tree md) and the slow run-crash variants (raid6),
# which make check lists as skipped.  Both run; fails if either fails.
check-slow: modules
	VM_SLOW=only NO_BUILD=1 $(SRC)/tests/vm/run-tests; t=$$?; \
	VM_SLOW=only NO_BUILD=1 $(SRC)/tests/vm/run-crash; c=$$?; \
	[ $$t -eq 0 ] && [ $$c -eq 0 ]

# The VM tests that take every path md_compat.h wraps, on in-tree md and
# this stack: array disk allocation and its queue limits (t10, t60's
# write-zeroes and discard stacking, t13's spare added by the md thread),
# a member's exclusive open and close (t10, t13, t73), the block device
# methods (t20: open, release, the read-only ioctls), the write cache
# and FUA features (t85, RAID4/5/6), the stripe cache shrinker (t88, on
# null_blk), RAID4/5/6 discard limits (t67), and each personality's IO
# path (t12 RAID1, t70 and t73 RAID5, t85 RAID4/5/6, t100 linear through
# md_remap.c, which raid0 shares, t103 RAID10 on RAID1's engine).  CI runs
# them on 6.12 (README, "Kernels").
COMPAT_TESTS := t10-raid1-basic t12-raid1-fio-verify t13-raid1-fail-add \
	t20-core-lifecycle t60-raid1-write-zeroes t67-raid5-discard \
	t70-raid5-basic t73-raid5-degraded t85-raid456-flush t88-raid5-stripe-cache \
	t100-linear t103-raid10
check-compat: modules
	NO_BUILD=1 TESTS="$(COMPAT_TESTS)" $(SRC)/tests/vm/run-tests

# sysfs parity with in-tree md (issue 35): t54-sysfs-parity walks md/,
# one dev-*/ and md/bitmap/ of a RAID1 and a RAID5 array on both
# implementations, then tests/vm/sysfs_parity.py writes the table
# Documentation/sysfs-parity.md from that run's console logs and fails
# when an attribute in-tree has is missing here, or a valid write that
# takes effect in-tree is refused or ignored here, and
# Documentation/sysfs-parity-notes.txt gives no reason.  The run must be
# a new one: a stale results/vm-latest is never compared.
# parity-selftest checks the script on a hand-made fixture, without a VM.
sysfs-parity: modules
	@old=$$(readlink $(SRC)/results/vm-latest 2>/dev/null); \
	NO_BUILD=1 IMPL=both TESTS=t54-sysfs-parity $(SRC)/tests/vm/run-tests; \
	t=$$?; new=$$(readlink $(SRC)/results/vm-latest 2>/dev/null); \
	if [ -z "$$new" ] || [ "$$new" = "$$old" ]; then \
		echo "make sysfs-parity: run-tests made no new results directory" >&2; \
		exit 1; \
	fi; \
	python3 $(SRC)/tests/vm/sysfs_parity.py --check \
		-o $(SRC)/Documentation/sysfs-parity.md $(SRC)/results/$$new; \
	p=$$?; [ $$t -eq 0 ] && [ $$p -eq 0 ]

parity-selftest:
	python3 $(SRC)/tests/unit/sysfs_parity_test.py

# The README's test command: unit tests, the model, then the VM suite
# and the crash test on this stack.  Both stages against in-tree md as
# well would take make check past its 30 minutes (45 min on 2026-12-06),
# so that half is its own target, run by CI after make check.
check: $(KABI_FILE)
	$(SRC)/tests/check.sh

# The same VM suite and crash test on in-tree md: every functional test
# must pass there too, which is how a test is known to be right.
check-intree: modules
	NO_BUILD=1 IMPL=intree $(SRC)/tests/vm/run-tests; t=$$?; \
	NO_BUILD=1 IMPL=intree $(SRC)/tests/vm/run-crash; c=$$?; \
	[ $$t -eq 0 ] && [ $$c -eq 0 ]

# The VM suite and the crash test on a debug build of the same kernel
# (lockdep, KASAN, kmemleak, UBSAN, ...), built once and cached outside the
# clone by scripts/debug-kernel.sh.
# The debug kernel is built from Debian's linux-source-6.1 only.
check-debug: $(KABI_FILE)
	$(only-6.1)
	$(SRC)/tests/check-debug.sh

# The debuggers bite: md-mod built with each deliberate bug of md_bite.c
# (lock order, use after free, leak); passes only if each run fails with
# the expected lockdep / KASAN / kmemleak report.  BITE="lock uaf leak".
check-debug-bite: $(KABI_FILE)
	$(only-6.1)
	$(SRC)/tests/check-debug.sh --bite $(BITE)

debug-kernel: $(KABI_FILE)
	$(only-6.1)
	$(SRC)/scripts/debug-kernel.sh

# Randomized faults under a verifying load (issue 31), both
# implementations, TORTURE_MIN minutes each (5), from TORTURE_SEED (the
# clock); not part of make check.
torture: $(KABI_FILE)
	$(if $(TORTURE_MIN),TORTURE_MIN=$(TORTURE_MIN)) \
	$(if $(TORTURE_SEED),TORTURE_SEED=$(TORTURE_SEED)) \
	$(SRC)/tests/vm/run-torture

# These scripts build the modules themselves, after they have said which
# VM accelerator they use.
demo: $(KABI_FILE)
	$(SRC)/tests/vm/demo

bench: $(KABI_FILE)
	$(SRC)/tests/vm/bench

# Resync throttle benchmark (issue 5), see BENCHMARKS.md.
bench-throttle: $(KABI_FILE)
	$(SRC)/tests/vm/bench-throttle

# Two RAID1 arrays on partitions of the same disks (issue 35): reads on
# one while the other syncs, and both resyncing; see BENCHMARKS.md.
bench-delayed: $(KABI_FILE)
	$(SRC)/tests/vm/bench-delayed

# BENCHMARKS.md's summary table and Documentation/images/bench-summary.png,
# regenerated from the runs recorded in Documentation/benchmarks/results/.
bench-report:
	python3 $(SRC)/tests/vm/bench_report.py generate

# mdadm's own test suite (issue 15): Debian's mdadm source package of
# the installed version, run in the VM against in-tree md and this stack.
mdadm-suite: $(KABI_FILE)
	$(SRC)/tests/vm/run-mdadm-suite

# Install on a host (README, "Install on a Debian 12 host"): into
# lib/modules/$(KABI)/updates/, with or without DKMS; scripts/install.sh.
install: modules
	KABI=$(KABI) $(SRC)/scripts/install.sh install

uninstall: $(KABI_FILE)
	KABI=$(KABI) $(SRC)/scripts/install.sh uninstall

dkms-install: $(KABI_FILE)
	KABI=$(KABI) $(SRC)/scripts/install.sh dkms-install

dkms-remove: $(KABI_FILE)
	KABI=$(KABI) $(SRC)/scripts/install.sh dkms-remove

# dkms build in private trees: dkms.conf must build (make check runs it)
dkms-check: $(KABI_FILE)
	KABI=$(KABI) $(SRC)/scripts/install.sh dkms-check
