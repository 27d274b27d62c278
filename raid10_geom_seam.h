/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Seam between raid10_geom.h and its environment: kernel types here,
 * tests/unit/ user space when __KERNEL__ is not defined.  The geometry
 * needs fixed-width integers, bool, a 64-by-32-bit division with
 * remainder (div_u64_rem()) and the smallest chunk md accepts, one page.
 */
#ifndef _MD_RAID10_GEOM_SEAM_H
#define _MD_RAID10_GEOM_SEAM_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/math64.h>
#include <asm/page.h>
#define R10G_MIN_CHUNK	(PAGE_SIZE >> 9)
#else
#include "tests/unit/seam/r5_user.h"
#define R10G_MIN_CHUNK	8
#endif

#endif
