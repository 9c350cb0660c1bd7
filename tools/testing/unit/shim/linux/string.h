/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace shim: memcpy, memchr, strnlen and friends. */
#ifndef KT_SHIM_LINUX_STRING_H
#define KT_SHIM_LINUX_STRING_H

#include <string.h>

#endif
