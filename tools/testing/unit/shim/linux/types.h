/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace shim: the kernel's fixed-width types, so that the files of
 * drivers/target/proto compile unchanged into host unit and fuzz tests.
 */
#ifndef KT_SHIM_LINUX_TYPES_H
#define KT_SHIM_LINUX_TYPES_H

#include_next <linux/types.h>	/* UAPI: __u8 .. __u64, __be16 .. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef int64_t s64;

#ifndef __bitwise
#define __bitwise
#endif
#define __force

#define U8_MAX		((u8)~0U)
#define U16_MAX		((u16)~0U)
#define U32_MAX		((u32)~0U)
#define U64_MAX		((u64)~0ULL)

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define min(a, b)	((a) < (b) ? (a) : (b))
#define max(a, b)	((a) > (b) ? (a) : (b))
#define min_t(t, a, b)	((t)(a) < (t)(b) ? (t)(a) : (t)(b))
#define max_t(t, a, b)	((t)(a) > (t)(b) ? (t)(a) : (t)(b))

#endif
