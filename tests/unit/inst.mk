# SPDX-License-Identifier: GPL-2.0
# Shell tests (nothing to build): scripts/install.sh's preflight over
# sample /proc/mdstat files, and the kernel log filter splat-known.awk.
UNIT_TESTS += $(UNIT_DIR)/install_preflight.sh
UNIT_TESTS += $(UNIT_DIR)/splat_known.sh
