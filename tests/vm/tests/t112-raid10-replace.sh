#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# TIMEOUT: 420
# SLOW: t110's ten --replace cases on RAID10 (near 2 on 4), about 1 min per implementation (TCG); make check runs them on RAID5
#
# mdadm --replace on RAID10 (issue 37): t110's cases on a RAID10 of 4
# (near 2), whose recovery walks member sectors and rebuilds a
# replacement with the members it holds copies of.
RP_LEVEL=10 exec /bin/sh /harness/tests/t110-raid5-replace.sh
