/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace shim: <linux/ctype.h> is the C library's here. */
#ifndef KT_SHIM_LINUX_CTYPE_H
#define KT_SHIM_LINUX_CTYPE_H

#include <ctype.h>

#endif
