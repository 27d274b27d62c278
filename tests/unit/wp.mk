# SPDX-License-Identifier: GPL-2.0
#
# writes_pending unit tests (included by tests/unit/Makefile).
#   wp_basic        deterministic sequences and mid-pass races
#   wp_stress_tsan  stress test under ThreadSanitizer
#   wp_stress_asan  stress test under AddressSanitizer + UBSan
#   wp_bench        microbenchmark, `make bench` only
# `make wp-mutants` builds broken variants and shows the tests catch them.

WP_SRC := $(UNIT_TOP)/writes_pending.c $(UNIT_TOP)/writes_pending.h \
	$(UNIT_TOP)/writes_pending_seam.h $(UNIT_DIR)/seam/wp_user.h
# GCC warns that TSan does not model atomic_thread_fence; the fences are
# there for the hardware, TSan checks the rest.
WP_TSAN := $(UNIT_TSAN) $(if $(shell $(CC) -Wno-tsan -E -x c /dev/null \
	>/dev/null 2>&1 && echo y),-Wno-tsan)

UNIT_TESTS += $(UNIT_BUILD)/wp_basic $(UNIT_BUILD)/wp_stress_tsan \
	$(UNIT_BUILD)/wp_stress_asan
UNIT_BENCHES += $(UNIT_BUILD)/wp_bench

$(UNIT_BUILD)/wp_basic: $(UNIT_DIR)/wp_basic.c $(WP_SRC) | $(UNIT_BUILD)
	$(CC) $(UNIT_CFLAGS) $(UNIT_ASAN) -o $@ $<

$(UNIT_BUILD)/wp_stress_tsan: $(UNIT_DIR)/wp_stress.c $(WP_SRC) | $(UNIT_BUILD)
	$(CC) $(UNIT_CFLAGS) $(WP_TSAN) -o $@ $<

$(UNIT_BUILD)/wp_stress_asan: $(UNIT_DIR)/wp_stress.c $(WP_SRC) | $(UNIT_BUILD)
	$(CC) $(UNIT_CFLAGS) $(UNIT_ASAN) -o $@ $<

$(UNIT_BUILD)/wp_bench: $(UNIT_DIR)/wp_bench.c $(WP_SRC) | $(UNIT_BUILD)
	$(CC) $(UNIT_BENCH_CFLAGS) -DWP_NR_CPUS=16 -DWP_USER_OWNED_CPUS \
		-DWP_USER_KERNEL_MB -o $@ $<
