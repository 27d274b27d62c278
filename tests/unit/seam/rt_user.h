/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User space stand-ins for the kernel facilities resync_throttle.c uses,
 * so the policy builds unchanged in tests/unit/.
 */
#ifndef _MD_RT_USER_H
#define _MD_RT_USER_H

#include <stdbool.h>
#include <stdint.h>
#include <errno.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int32_t s32;
typedef int64_t s64;

#ifndef U32_MAX
#define U32_MAX		((u32)~0U)
#endif
#ifndef U64_MAX
#define U64_MAX		(~0ULL)
#endif
#ifndef S64_MAX
#define S64_MAX		((s64)(~0ULL >> 1))
#endif

static inline u64 div_u64(u64 dividend, u32 divisor)
{
	return dividend / divisor;
}

static inline u64 div64_u64(u64 dividend, u64 divisor)
{
	return dividend / divisor;
}

#endif
