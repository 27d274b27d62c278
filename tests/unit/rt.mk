# SPDX-License-Identifier: GPL-2.0
#
# resync_throttle unit tests (included by tests/unit/Makefile).
#   rt_scenarios       simulated device, sync loop and foreground jobs
#                      driving rt_decide(); AddressSanitizer + UBSan
#   rt_scenarios_tsan  the same under ThreadSanitizer (the policy is
#                      single-threaded; this checks it builds that way)
# `make rt-mutants` builds the scenarios against deliberately broken
# policies (RT_MUTANT=1..6) and fails unless every one of them fails.

RT_SRC := $(UNIT_TOP)/resync_throttle.c $(UNIT_TOP)/resync_throttle.h \
	$(UNIT_TOP)/resync_throttle_seam.h $(UNIT_DIR)/seam/rt_user.h \
	$(UNIT_DIR)/rt_scenarios.h
RT_MUTANTS := 1 2 3 4 5 6

UNIT_TESTS += $(UNIT_BUILD)/rt_scenarios $(UNIT_BUILD)/rt_scenarios_tsan

$(UNIT_BUILD)/rt_scenarios: $(UNIT_DIR)/rt_scenarios.c $(RT_SRC) | $(UNIT_BUILD)
	$(CC) $(UNIT_CFLAGS) $(UNIT_ASAN) -o $@ $<

$(UNIT_BUILD)/rt_scenarios_tsan: $(UNIT_DIR)/rt_scenarios.c $(RT_SRC) \
		| $(UNIT_BUILD)
	$(CC) $(UNIT_CFLAGS) $(UNIT_TSAN) -o $@ $<

$(UNIT_BUILD)/rt_mutant_%: $(UNIT_DIR)/rt_scenarios.c $(RT_SRC) | $(UNIT_BUILD)
	$(CC) $(UNIT_CFLAGS) -O2 -DRT_MUTANT=$* -o $@ $<

.PHONY: rt-mutants
rt-mutants: $(addprefix $(UNIT_BUILD)/rt_mutant_,$(RT_MUTANTS))
	@ok=1; for m in $(RT_MUTANTS); do \
		out=$$($(UNIT_BUILD)/rt_mutant_$$m 2>&1); \
		if grep '^not ok' <<<"$$out"; then \
			echo "# mutant $$m: caught"; \
		else \
			echo "# mutant $$m: NOT caught"; ok=0; \
		fi; \
	done; test $$ok = 1
