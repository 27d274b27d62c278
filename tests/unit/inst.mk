# SPDX-License-Identifier: GPL-2.0
# Shell tests (nothing to build): scripts/install.sh's preflight over
# sample /proc/mdstat files, the kernel log filter splat-known.awk, and
# what KVER names (scripts/kver.sh, dkms.conf's kernels).
UNIT_TESTS += $(UNIT_DIR)/install_preflight.sh
UNIT_TESTS += $(UNIT_DIR)/splat_known.sh
UNIT_TESTS += $(UNIT_DIR)/kver.sh
