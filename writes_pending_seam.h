/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Seam between writes_pending.c and its environment.  writes_pending.c
 * is written against kernel interfaces only: per-CPU data, barriers,
 * preemption, a raw spinlock, allocation and a clock.  In the kernel
 * they come from the headers below; in user space (__KERNEL__ not
 * defined) tests/unit/seam/wp_user.h supplies the same names on top of
 * pthreads and GCC __atomic builtins.  The KUnit suite (kunit/wp_kunit.c,
 * debug kernel only) defines WP_SEAM_KUNIT: kernel locks, barriers and
 * allocation, but the per-CPU slots are simulated as in user space so
 * that the shared scenarios can choose the CPU each call runs on.
 */
#ifndef _MD_WRITES_PENDING_SEAM_H
#define _MD_WRITES_PENDING_SEAM_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/cache.h>
#include <linux/compiler.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/processor.h>
#include <linux/spinlock.h>
#include <linux/sched/clock.h>
#include <linux/bug.h>
#include <asm/barrier.h>
#ifdef WP_SEAM_KUNIT
#include "kunit/wp_seam.h"
#endif
#else
#include "tests/unit/seam/wp_user.h"
#endif

#endif
