/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Seam between raid0_geom.h and its environment: kernel types here,
 * tests/unit/ user space when __KERNEL__ is not defined.  The geometry
 * needs fixed-width integers, bool and a 64-by-32-bit division with
 * remainder (div_u64_rem()), the same as raid5_geom.c's.
 */
#ifndef _MD_RAID0_GEOM_SEAM_H
#define _MD_RAID0_GEOM_SEAM_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/math64.h>
#else
#include "tests/unit/seam/r5_user.h"
#endif

#endif
