# SPDX-License-Identifier: GPL-2.0
#
# raid456 geometry unit test (included by tests/unit/Makefile).
#   r5_geom   layout pictures and bijection properties of raid5_geom.c,
#             AddressSanitizer + UBSan

R5_SRC := $(UNIT_TOP)/raid5_geom.c $(UNIT_TOP)/raid5_geom.h \
	$(UNIT_TOP)/raid5_geom_seam.h $(UNIT_DIR)/seam/r5_user.h

UNIT_TESTS += $(UNIT_BUILD)/r5_geom

$(UNIT_BUILD)/r5_geom: $(UNIT_DIR)/r5_geom.c $(R5_SRC) | $(UNIT_BUILD)
	$(CC) $(UNIT_CFLAGS) $(UNIT_ASAN) -o $@ $<
