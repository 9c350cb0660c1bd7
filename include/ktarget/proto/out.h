/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A cursor for building responses into a caller's buffer: what does not
 * fit is dropped, and the position counts the full length, so that the
 * caller can report a residual. Shared by the protocol builders.
 */
#ifndef KTARGET_PROTO_OUT_H
#define KTARGET_PROTO_OUT_H

#include <linux/types.h>

struct kt_out {
	u8		*buf;
	unsigned int	cap;
	unsigned int	pos;
};

static inline void kt_out_u8(struct kt_out *o, u8 v)
{
	if (o->pos < o->cap)
		o->buf[o->pos] = v;
	o->pos++;
}

static inline void kt_out_be16(struct kt_out *o, u16 v)
{
	kt_out_u8(o, (v >> 8) & 0xff);
	kt_out_u8(o, v & 0xff);
}

static inline void kt_out_be32(struct kt_out *o, u32 v)
{
	kt_out_be16(o, (v >> 16) & 0xffff);
	kt_out_be16(o, v & 0xffff);
}

static inline void kt_out_be64(struct kt_out *o, u64 v)
{
	kt_out_be32(o, (v >> 32) & 0xffffffff);
	kt_out_be32(o, v & 0xffffffff);
}

/* @n bytes of @p, or @n zeroes when @p is NULL */
static inline void kt_out_bytes(struct kt_out *o, const u8 *p, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		kt_out_u8(o, p ? p[i] : 0);
}

static inline void kt_out_zero(struct kt_out *o, unsigned int n)
{
	kt_out_bytes(o, NULL, n);
}

#endif /* KTARGET_PROTO_OUT_H */
