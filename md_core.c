// SPDX-License-Identifier: GPL-2.0
/*
 * md core skeleton: claims block major 9 ("md") and /proc/mdstat so that
 * the harness can tell this stack from in-tree md.  The real core
 * replaces this file.
 */
#include <linux/module.h>
#include <linux/blkdev.h>
#include <linux/proc_fs.h>
#include <linux/seq_file.h>

#define MD_MAJOR_NR 9

static int mdstat_show(struct seq_file *m, void *v)
{
	seq_puts(m, "Personalities : \nunused devices: <none>\n");
	return 0;
}

static int __init md_init(void)
{
	int ret;

	ret = register_blkdev(MD_MAJOR_NR, "md");
	if (ret)
		return ret;
	if (!proc_create_single("mdstat", 0444, NULL, mdstat_show)) {
		ret = -ENOMEM;
		goto unregister_blkdev;
	}
	return 0;

unregister_blkdev:
	unregister_blkdev(MD_MAJOR_NR, "md");
	return ret;
}

static void __exit md_exit(void)
{
	remove_proc_entry("mdstat", NULL);
	unregister_blkdev(MD_MAJOR_NR, "md");
}

module_init(md_init);
module_exit(md_exit);
MODULE_LICENSE("GPL");
MODULE_VERSION("0.1-fork");
MODULE_DESCRIPTION("md RAID core (out-of-tree fork stack)");
