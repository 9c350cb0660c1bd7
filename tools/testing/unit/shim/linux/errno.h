/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace shim: errno values, plus the kernel-internal ones. */
#ifndef KT_SHIM_LINUX_ERRNO_H
#define KT_SHIM_LINUX_ERRNO_H

#include_next <linux/errno.h>

#define ENOTSUPP	524

#endif
