/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shim: what <scsi/scsi_proto.h> takes from <linux/build_bug.h> and the
 * headers it includes in the kernel, from 6.5 on (the unit tests use that
 * header from whichever kernel headers are installed): static_assert()
 * with an optional message, the byte order its bit fields follow, and
 * DECLARE_FLEX_ARRAY().
 */
#ifndef KT_SHIM_LINUX_BUILD_BUG_H
#define KT_SHIM_LINUX_BUILD_BUG_H

#include <endian.h>

#undef static_assert
#define static_assert(expr, ...) __kt_static_assert(expr, ##__VA_ARGS__, #expr)
#define __kt_static_assert(expr, msg, ...) _Static_assert(expr, msg)

#ifndef DECLARE_FLEX_ARRAY
#define DECLARE_FLEX_ARRAY(type, name)	type name[]
#endif

#if __BYTE_ORDER == __LITTLE_ENDIAN
#ifndef __LITTLE_ENDIAN_BITFIELD
#define __LITTLE_ENDIAN_BITFIELD
#endif
#undef __BIG_ENDIAN
#else
#undef __LITTLE_ENDIAN
#endif

#endif
