#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# TIMEOUT: 420
# SLOW: t110's ten --replace cases on RAID6, about 1 min per implementation (TCG); make check runs them on RAID5, the same code
#
# mdadm --replace on RAID6 (issue 37): t110's cases on a RAID6 of 4.
RP_LEVEL=6 exec /bin/sh /harness/tests/t110-raid5-replace.sh
