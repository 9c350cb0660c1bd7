// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_kunit: KUnit suites of what cannot leave the kernel (the unit
 * attention ring, the task set, a command's claim). Built only where the
 * kernel has KUnit (the debug kernel of ../shared/kernel); the suites run
 * when it is loaded, and their results are in
 * /sys/kernel/debug/kunit/SUITE/results.
 */
#include <linux/module.h>

#include <ktarget/version.h>

MODULE_DESCRIPTION("ktarget KUnit suites");
MODULE_VERSION(KT_VERSION);
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
