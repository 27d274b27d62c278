# SPDX-License-Identifier: GPL-2.0
#
# raid0 geometry unit test (included by tests/unit/Makefile).
#   r0_geom   hand-drawn layouts and bijection properties of
#             raid0_geom.h, AddressSanitizer + UBSan

R0_SRC := $(UNIT_TOP)/raid0_geom.h $(UNIT_TOP)/raid0_geom_seam.h \
	$(UNIT_DIR)/seam/r5_user.h

UNIT_TESTS += $(UNIT_BUILD)/r0_geom

$(UNIT_BUILD)/r0_geom: $(UNIT_DIR)/r0_geom.c $(R0_SRC) | $(UNIT_BUILD)
	$(CC) $(UNIT_CFLAGS) $(UNIT_ASAN) -o $@ $<
