/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Seam between writes_pending.c and its environment: the kernel here,
 * tests/unit/ user space (pthreads) when __KERNEL__ is not defined.
 */
#ifndef _MD_WRITES_PENDING_SEAM_H
#define _MD_WRITES_PENDING_SEAM_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/spinlock.h>
#include <linux/ktime.h>

typedef spinlock_t wp_spinlock_t;
#define wp_lock_init(l)	spin_lock_init(l)
#define wp_lock(l, f)	spin_lock_irqsave(l, f)
#define wp_unlock(l, f)	spin_unlock_irqrestore(l, f)
#define wp_now_ns()	ktime_get_ns()
#else
#include "tests/unit/seam/wp_user.h"
#endif

#endif
