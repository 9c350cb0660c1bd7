/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace shim: the bits of <linux/kernel.h> protocol code uses. */
#ifndef KT_SHIM_LINUX_KERNEL_H
#define KT_SHIM_LINUX_KERNEL_H

#include <linux/types.h>
#include <linux/printk.h>

#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)

/* lib/hexdump.c's: the value of a hex digit, or -1 */
static inline int hex_to_bin(unsigned char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	ch |= 0x20;
	return ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 : -1;
}

#endif
