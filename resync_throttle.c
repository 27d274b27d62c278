// SPDX-License-Identifier: GPL-2.0
/* resync_throttle skeleton; replaced by the idle-aware policy. */
#include <linux/module.h>
