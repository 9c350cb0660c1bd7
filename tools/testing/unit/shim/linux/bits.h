/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace shim: BIT() and friends. */
#ifndef KT_SHIM_LINUX_BITS_H
#define KT_SHIM_LINUX_BITS_H

#define BIT(nr)		(1UL << (nr))
#define BIT_ULL(nr)	(1ULL << (nr))

#endif
