# SPDX-License-Identifier: GPL-2.0
# scripts/install.sh's preflight over sample /proc/mdstat files (a shell
# test: nothing to build).
UNIT_TESTS += $(UNIT_DIR)/install_preflight.sh
