# SPDX-License-Identifier: GPL-2.0
#
# raid10 geometry unit test (included by tests/unit/Makefile).
#   r10_geom  hand-drawn layouts, bijection properties and degraded-array
#             checks of raid10_geom.h, AddressSanitizer + UBSan

R10_SRC := $(UNIT_TOP)/raid10_geom.h $(UNIT_TOP)/raid10_geom_seam.h \
	$(UNIT_DIR)/seam/r5_user.h

UNIT_TESTS += $(UNIT_BUILD)/r10_geom

$(UNIT_BUILD)/r10_geom: $(UNIT_DIR)/r10_geom.c $(R10_SRC) | $(UNIT_BUILD)
	$(CC) $(UNIT_CFLAGS) $(UNIT_ASAN) -o $@ $<
