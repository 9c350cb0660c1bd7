/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernels before 6.12 keep the unaligned accessors in <asm/unaligned.h>;
 * 6.12 moved them to <linux/unaligned.h> (commit 5f60d5f6bbc1, "move
 * asm/unaligned.h to linux/unaligned.h"). The tree includes the new name;
 * the top-level Kbuild puts this directory on the include path only where
 * the kernel has no <linux/unaligned.h>.
 */
#ifndef KTARGET_COMPAT_LINUX_UNALIGNED_H
#define KTARGET_COMPAT_LINUX_UNALIGNED_H

#include <asm/unaligned.h>

#endif /* KTARGET_COMPAT_LINUX_UNALIGNED_H */
