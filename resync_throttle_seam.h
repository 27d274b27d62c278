/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Seam between resync_throttle.c and its environment: kernel types here,
 * tests/unit/ user space when __KERNEL__ is not defined.  The policy
 * needs only fixed-width types, bool, S64_MAX/U32_MAX, EINVAL and the
 * 64-bit divisions div_u64() and div64_u64().
 */
#ifndef _MD_RESYNC_THROTTLE_SEAM_H
#define _MD_RESYNC_THROTTLE_SEAM_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/limits.h>
#include <linux/errno.h>
#include <linux/math64.h>
#else
#include "tests/unit/seam/rt_user.h"
#endif

#endif
