/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Asymmetric logical unit access (ALUA), the wire side: REPORT TARGET PORT
 * GROUPS response data, SET TARGET PORT GROUPS parameter lists, and which
 * commands each asymmetric access state lets through. Pure functions over
 * caller-owned buffers, built into ktarget_core and into the userspace unit
 * and fuzz tests. The groups themselves live in drivers/target/alua.c.
 *
 * References: SPC-4 (spc4r37) 5.15 (asymmetric logical unit access),
 * 6.27 (REPORT TARGET PORT GROUPS), 6.36 (SET TARGET PORT GROUPS).
 */
#ifndef KTARGET_PROTO_ALUA_H
#define KTARGET_PROTO_ALUA_H

#include <linux/bits.h>
#include <linux/types.h>

#include <ktarget/proto/sense.h>

struct kt_cdb_desc;

/* SPC-4 6.27.2, table 167: ASYMMETRIC ACCESS STATE */
#define KT_ALUA_AO		0x0	/* active/optimized */
#define KT_ALUA_ANO		0x1	/* active/non-optimized */
#define KT_ALUA_STANDBY		0x2
#define KT_ALUA_UNAVAILABLE	0x3
#define KT_ALUA_LBA_DEPENDENT	0x4
#define KT_ALUA_OFFLINE		0xe
#define KT_ALUA_TRANSITIONING	0xf

/* SPC-4 6.27.2: the SUPPORTED bits, byte 1 of a group descriptor */
#define KT_ALUA_SUP_T		BIT(7)	/* transitioning */
#define KT_ALUA_SUP_O		BIT(6)	/* offline */
#define KT_ALUA_SUP_LBD		BIT(4)	/* LBA dependent */
#define KT_ALUA_SUP_U		BIT(3)	/* unavailable */
#define KT_ALUA_SUP_S		BIT(2)	/* standby */
#define KT_ALUA_SUP_AN		BIT(1)	/* active/non-optimized */
#define KT_ALUA_SUP_AO		BIT(0)	/* active/optimized */

/* SPC-4 6.27.2, table 168: STATUS CODE */
#define KT_ALUA_STATUS_NONE	0x0
#define KT_ALUA_STATUS_EXPLICIT	0x1	/* altered by SET TARGET PORT GROUPS */
#define KT_ALUA_STATUS_IMPLICIT	0x2	/* altered by implicit behaviour */

/* SPC-4 6.6.2: TPGS field of standard INQUIRY data */
#define KT_ALUA_TPGS_IMPLICIT	0x1
#define KT_ALUA_TPGS_EXPLICIT	0x2

#define KT_ALUA_MAX_PORTS	255	/* TARGET PORT COUNT is one byte */
#define KT_ALUA_STPG_DESC_LEN	4
#define KT_ALUA_STPG_HDR_LEN	4

/* One target port group as REPORT TARGET PORT GROUPS shows it. */
struct kt_alua_desc {
	u16		id;
	u8		state;		/* KT_ALUA_* */
	u8		status;		/* KT_ALUA_STATUS_* */
	u8		supported;	/* KT_ALUA_SUP_* */
	bool		preferred;
	u8		nr_ports;
	const u16	*ports;		/* relative target port identifiers */
};

/* One descriptor of a SET TARGET PORT GROUPS parameter list. */
struct kt_alua_stpg_desc {
	u8	state;
	u16	id;		/* TARGET PORT GROUP */
};

/* The SUPPORTED bit that offers @state; 0 for a reserved state value. */
u8 kt_alua_state_sup(u8 state);

/*
 * REPORT TARGET PORT GROUPS (SPC-4 6.27): the response for the groups
 * @d[0..@nr) into @buf of @len bytes (truncated there); *@data_len is the
 * full length. @cdb chooses the length-only or the extended header, which
 * carries @implicit_trans_secs.
 */
sense_reason_t kt_alua_rtpg(const u8 *cdb, const struct kt_alua_desc *d,
			    unsigned int nr, u8 implicit_trans_secs,
			    u8 *buf, u32 len, u32 *data_len,
			    struct kt_sense_field *field);

/*
 * SET TARGET PORT GROUPS (SPC-4 6.36): the @len bytes of parameter data
 * into @out (room for @max descriptors), *@nr of them. Only primary states
 * may be asked for: a descriptor with any other state is an invalid field.
 */
sense_reason_t kt_alua_stpg_parse(const u8 *buf, u32 len,
				  struct kt_alua_stpg_desc *out,
				  unsigned int max, unsigned int *nr,
				  struct kt_sense_field *field);

/*
 * SPC-4 5.15.2.4: may a command decoded against descriptor @d (NULL: not
 * one the LU offers) run through a target port in access state @state?
 * 0 if so, else the ASC/ASCQ of the NOT READY sense it ends with.
 */
u16 kt_alua_access_check(u8 state, const struct kt_cdb_desc *d);

#endif /* KTARGET_PROTO_ALUA_H */
