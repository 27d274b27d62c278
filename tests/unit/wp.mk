# SPDX-License-Identifier: GPL-2.0
#
# writes_pending unit tests (included by tests/unit/Makefile).
#   wp_basic        deterministic sequences and mid-pass races
#   wp_stress_tsan  stress test under ThreadSanitizer
#   wp_stress_asan  stress test under AddressSanitizer + UBSan, built with
#                   WP_CLOSING_SPINS=0 (writers never wait for a pass)
#   wp_bench        microbenchmark, `make bench` only
# `make wp-mutants` builds broken variants and shows the tests catch them.

WP_SRC := $(UNIT_TOP)/writes_pending.c $(UNIT_TOP)/writes_pending.h \
	$(UNIT_TOP)/writes_pending_seam.h $(UNIT_DIR)/seam/wp_user.h \
	$(UNIT_DIR)/wp_scenarios.h
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
	$(CC) $(UNIT_CFLAGS) $(UNIT_ASAN) -DWP_CLOSING_SPINS=0 -o $@ $<

$(UNIT_BUILD)/wp_bench: $(UNIT_DIR)/wp_bench.c $(WP_SRC) | $(UNIT_BUILD)
	$(CC) $(UNIT_BENCH_CFLAGS) -DWP_NR_CPUS=16 -DWP_USER_OWNED_CPUS \
		-DWP_USER_KERNEL_MB -o $@ $<

# Mutation check (not part of `check`: it takes ~30 s and leans on real
# hardware races).  Each mutant is a broken writes_pending.c; the stress
# test, built -O2 without sanitizers, must fail on it.  "control" is the
# unbroken code in the same builds and must pass.  no_smp_mb is reported
# but not required to be caught: the store-buffer window it opens is a
# few nanoseconds wide and rarely hit on a small x86 host; the Promela
# model (tests/model, NO_WRITER_FENCE/NO_CLOSER_FENCE) is what shows that
# the barriers are needed.
WP_MUT := $(UNIT_BUILD)/mutants
WP_MUT_MS ?= 1500
WP_MUT_CFLAGS := $(UNIT_BENCH_CFLAGS) -DWP_NR_CPUS=4
define wp_mutant
	@mkdir -p $(WP_MUT)/$(1)
	@sed $(2) $(UNIT_TOP)/writes_pending.c > $(WP_MUT)/$(1)/writes_pending.c
	@$(CC) -I$(WP_MUT)/$(1) $(WP_MUT_CFLAGS) $(3) \
		-o $(WP_MUT)/$(1)/wp_stress $(UNIT_DIR)/wp_stress.c
	@if WP_STRESS_MS=$(WP_MUT_MS) $(WP_MUT)/$(1)/wp_stress \
		> $(WP_MUT)/$(1)/log 2>&1; then r=survived; else r=caught; fi; \
	grep -m2 'VIOLATION\|leftover' $(WP_MUT)/$(1)/log | sed 's/^/    /'; \
	if [ $(4) = $$r ] || [ $(4) = any ]; then echo "ok - $(1): $$r"; \
	else echo "not ok - $(1): $$r (want $(4))"; exit 1; fi
endef

.PHONY: wp-mutants
wp-mutants: $(WP_SRC)
	@echo "KTAP version 1"
	$(call wp_mutant,control,-e '',,survived)
	$(call wp_mutant,control_owned,-e '',-DWP_USER_OWNED_CPUS,survived)
	$(call wp_mutant,sum_skips_cpu0,\
		-e 's/^\t\tsum += /\t\tif (cpu) sum += /',,caught)
	$(call wp_mutant,undo_on_other_cpu,\
		-e 's/^\t\tthis_cpu_dec/\t\twp_user_cpu ^= 1; this_cpu_dec/',\
		-DWP_CLOSING_SPINS=0,caught)
	$(call wp_mutant,admit_while_closing,\
		-e 's/gate != WP_OPEN/gate == WP_CLOSED/',,caught)
	$(call wp_mutant,closer_skips_closing,\
		-e '/WRITE_ONCE(wp->gate, WP_CLOSING)/d',,caught)
	$(call wp_mutant,no_smp_mb,-e '',\
		-DWP_USER_OWNED_CPUS -DWP_USER_BREAK_MB,any)
