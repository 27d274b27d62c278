/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User space stand-ins for the kernel facilities raid5_geom.c uses, so
 * the geometry builds unchanged in tests/unit/.
 */
#ifndef _MD_R5_USER_H
#define _MD_R5_USER_H

#include <stdbool.h>
#include <stdint.h>
#include <errno.h>

typedef uint32_t u32;
typedef uint64_t u64;
typedef int64_t s64;

#define fallthrough	__attribute__((__fallthrough__))

static inline u64 div_u64_rem(u64 dividend, u32 divisor, u32 *remainder)
{
	*remainder = dividend % divisor;
	return dividend / divisor;
}

#endif
