// SPDX-License-Identifier: GPL-2.0
/*
 * md_bite: deliberately broken code, built into md-mod only for
 * `make check-debug-bite` (tests/check-debug.sh --bite), never by `make`,
 * dkms or `make check-debug`: Kbuild adds this file only when MD_BITE is
 * set on the kbuild command line.  It shows that the debug kernel and the
 * VM runner catch the three kinds of bug issue 12 names, in md-mod's own
 * code, and report them as a failed test:
 *
 *   MD_BITE=lock  two locks taken in one order, then in the other
 *                 (lockdep: possible circular locking dependency)
 *   MD_BITE=uaf   an allocation read after it was freed
 *                 (KASAN: use-after-free)
 *   MD_BITE=leak  allocations whose last pointer is dropped
 *                 (kmemleak: unreferenced object, found by the runner's
 *                 scan after the test)
 *
 * The bug runs when "1" is written to the write-only parameter
 * /sys/module/md_mod/parameters/bite (tests/vm/tests/t02-debug-bite.sh),
 * not at load, so load_impl stays clean and the report lands in the test
 * that asked for it.  Nothing here runs concurrently with anything else
 * of its own: a parameter write is serialised by the module parameter
 * lock, which is all the locking the lock pair below needs (they exist
 * to be taken, not to protect data).
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/slab.h>

#if defined(MD_BITE_lock)
#define MD_BITE_WHAT "locks taken in the wrong order"
static DEFINE_MUTEX(md_bite_outer);
static DEFINE_MUTEX(md_bite_inner);

/* outer then inner once, then inner then outer: a textbook inversion */
static int md_bite_run(void)
{
	mutex_lock(&md_bite_outer);
	mutex_lock(&md_bite_inner);
	mutex_unlock(&md_bite_inner);
	mutex_unlock(&md_bite_outer);

	mutex_lock(&md_bite_inner);
	mutex_lock(&md_bite_outer);
	mutex_unlock(&md_bite_outer);
	mutex_unlock(&md_bite_inner);
	return 0;
}
#elif defined(MD_BITE_uaf)
#define MD_BITE_WHAT "a use after free"
static int md_bite_run(void)
{
	int *p = kmalloc_array(16, sizeof(*p), GFP_KERNEL);
	int v;

	if (!p)
		return -ENOMEM;
	p[3] = 1;
	kfree(p);
	/* hide the pointer from the compiler's own use-after-free warning */
	OPTIMIZER_HIDE_VAR(p);
	v = READ_ONCE(p[3]);
	pr_info("md_bite: read %d from a freed object\n", v);
	return 0;
}
#elif defined(MD_BITE_leak)
#define MD_BITE_WHAT "leaked allocations"
static int md_bite_run(void)
{
	int i;

	/* several objects, so that one stale copy of a pointer cannot hide all */
	for (i = 0; i < 4; i++) {
		char *p = kmalloc(128, GFP_KERNEL);

		if (!p)
			return -ENOMEM;
		memset(p, 0x6d, 128);
		OPTIMIZER_HIDE_VAR(p);
	}
	return 0;
}
#else
#error "build with MD_BITE=lock, uaf or leak (Kbuild)"
#endif

static int md_bite_set(const char *val, const struct kernel_param *kp)
{
	bool go;
	int err = kstrtobool(val, &go);

	if (err)
		return err;
	if (!go)
		return -EINVAL;
	pr_warn("md_bite: deliberate bug in %s: %s\n", KBUILD_MODNAME,
		MD_BITE_WHAT);
	return md_bite_run();
}

static const struct kernel_param_ops md_bite_ops = {
	.set = md_bite_set,
};

module_param_cb(bite, &md_bite_ops, NULL, 0200);
MODULE_PARM_DESC(bite, "test only (make check-debug-bite): write 1 to run a deliberate bug");
