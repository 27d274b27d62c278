// SPDX-License-Identifier: GPL-2.0
/*
 * RAID1 personality skeleton: loads and unloads; the real personality replaces it.
 */
#include <linux/module.h>

static int __init raid1_init(void)
{
	return 0;
}

static void __exit raid1_exit(void)
{
}

module_init(raid1_init);
module_exit(raid1_exit);
MODULE_LICENSE("GPL");
MODULE_VERSION("0.1-fork");
MODULE_DESCRIPTION("RAID1 personality for md (out-of-tree fork stack)");
