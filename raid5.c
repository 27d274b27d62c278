// SPDX-License-Identifier: GPL-2.0
/*
 * RAID4/5/6 personality skeleton: loads and unloads; the real personality replaces it.
 */
#include <linux/module.h>

static int __init raid5_init(void)
{
	return 0;
}

static void __exit raid5_exit(void)
{
}

module_init(raid5_init);
module_exit(raid5_exit);
MODULE_LICENSE("GPL");
MODULE_VERSION("0.1-fork");
MODULE_DESCRIPTION("RAID4/5/6 personality for md (out-of-tree fork stack)");
