/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Seam between raid5_geom.c and its environment: kernel types here,
 * tests/unit/ user space when __KERNEL__ is not defined.  The geometry
 * needs fixed-width integers, bool, EINVAL, the case annotation of
 * <linux/compiler_attributes.h> and a 64-by-32-bit division with
 * remainder (div_u64_rem()).
 */
#ifndef _MD_RAID5_GEOM_SEAM_H
#define _MD_RAID5_GEOM_SEAM_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/errno.h>
#include <linux/math64.h>
#else
#include "tests/unit/seam/r5_user.h"
#endif

#endif
