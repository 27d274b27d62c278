/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel compatibility: the kernel interfaces that changed between the
 * kernels this stack builds against (Debian's 6.1 and 6.12), behind one
 * name each.
 *
 * What varies.  These interfaces the stack uses changed shape in between:
 *  - the exclusive open of a member returns a struct file (6.9) where it
 *    returned the block device, and is given back with bdev_fput().
 *
 * How each is picked.  By what the target headers compile, not by their
 * version: md_compat_probe.sh, run by Kbuild before any object compiles
 * (so by make, DKMS and sparse builds alike), compiles a snippet per
 * interface with the module's flags and -Werror and writes a HAVE_* line
 * into md_compat_gen.h in the build directory for each that compiles.  A
 * snippet uses everything its variant below uses, so a backport is
 * followed and a partial one fails to build at the wrapper.  A plain
 * LINUX_VERSION_CODE test is for an interface that was only added or
 * removed, where a probe would test nothing but the version; none of the
 * differences above is such a case.
 *
 * Why that is enough.  Each wrapper does on the new interface what the old
 * one did: the same limits, the same exclusive holder, the same shrinker
 * callbacks.  The rest of the stack calls only these names and never tests
 * a kernel version or a HAVE_*: the next kernel change is one more probe
 * and one more wrapper here, and no caller changes.
 */
#ifndef _MD_COMPAT_H
#define _MD_COMPAT_H

#include <linux/blkdev.h>
#include <linux/err.h>
#include <linux/fs.h>

#include "md_compat_gen.h"

/* ---- a member's exclusive open ------------------------------------- */

/*
 * What giving back an exclusive open needs: the open file (6.9) or the
 * block device.  Set by md_bdev_open_excl(), used once by
 * md_bdev_close_excl(); the owner serialises the two (the core does it
 * under reconfig_mutex, or before the member is visible).
 */
struct md_bdev_excl {
#ifdef HAVE_BDEV_FILE_OPEN_BY_DEV
	struct file *file;
#else
	struct block_device *bdev;
#endif
};

#ifdef HAVE_BDEV_FILE_OPEN_BY_DEV
/*
 * Open @dev for reading and writing, exclusively for @holder (a holder
 * makes the open exclusive).  Returns the block device or an ERR_PTR.
 */
static inline struct block_device *
md_bdev_open_excl(dev_t dev, void *holder, struct md_bdev_excl *excl)
{
	struct file *file;

	file = bdev_file_open_by_dev(dev, BLK_OPEN_READ | BLK_OPEN_WRITE,
				     holder, NULL);
	if (IS_ERR(file))
		return ERR_CAST(file);
	excl->file = file;
	return file_bdev(file);
}

/* Give the claim back now (fput() would defer it) and close. */
static inline void md_bdev_close_excl(struct md_bdev_excl *excl)
{
	bdev_fput(excl->file);
	excl->file = NULL;
}
#else
static inline struct block_device *
md_bdev_open_excl(dev_t dev, void *holder, struct md_bdev_excl *excl)
{
	struct block_device *bdev;

	bdev = blkdev_get_by_dev(dev, FMODE_READ | FMODE_WRITE | FMODE_EXCL,
				 holder);
	if (!IS_ERR(bdev))
		excl->bdev = bdev;
	return bdev;
}

static inline void md_bdev_close_excl(struct md_bdev_excl *excl)
{
	blkdev_put(excl->bdev, FMODE_READ | FMODE_WRITE | FMODE_EXCL);
	excl->bdev = NULL;
}
#endif

#endif /* _MD_COMPAT_H */
