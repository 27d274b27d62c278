// SPDX-License-Identifier: GPL-2.0
/* writes_pending skeleton; replaced by the batched counter. */
#include <linux/module.h>
