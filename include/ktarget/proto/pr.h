/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Persistent reservations, the wire side: PERSISTENT RESERVE OUT parameter
 * lists and TransportIDs, PERSISTENT RESERVE IN response data, and which
 * commands a reservation lets through. Pure functions over caller-owned
 * buffers and structs, built into ktarget_core and into the userspace unit
 * and fuzz tests. The registrations themselves live in drivers/target/pr.c.
 *
 * References: SPC-4 (spc4r37) 5.13 (reservations), 6.15 (PERSISTENT RESERVE
 * IN), 6.16 (PERSISTENT RESERVE OUT), 7.6.4.6 (iSCSI TransportID);
 * SBC-3 4.17 (reservations and block commands).
 */
#ifndef KTARGET_PROTO_PR_H
#define KTARGET_PROTO_PR_H

#include <linux/bits.h>
#include <linux/types.h>

#include <ktarget/proto/sense.h>

struct kt_cdb_desc;

/* SPC-4 6.16.2: PERSISTENT RESERVE OUT service actions */
#define KT_PRO_REGISTER			0x0
#define KT_PRO_RESERVE			0x1
#define KT_PRO_RELEASE			0x2
#define KT_PRO_CLEAR			0x3
#define KT_PRO_PREEMPT			0x4
#define KT_PRO_PREEMPT_AND_ABORT	0x5
#define KT_PRO_REGISTER_AND_IGNORE	0x6
#define KT_PRO_REGISTER_AND_MOVE	0x7

/* SPC-4 6.15.1: PERSISTENT RESERVE IN service actions */
#define KT_PRI_READ_KEYS		0x0
#define KT_PRI_READ_RESERVATION		0x1
#define KT_PRI_REPORT_CAPABILITIES	0x2
#define KT_PRI_READ_FULL_STATUS		0x3

/* SPC-4 6.16.4: persistent reservation TYPE */
#define KT_PR_TYPE_NONE			0x0	/* no reservation */
#define KT_PR_TYPE_WE			0x1	/* Write Exclusive */
#define KT_PR_TYPE_EA			0x3	/* Exclusive Access */
#define KT_PR_TYPE_WE_RO		0x5	/* ... Registrants Only */
#define KT_PR_TYPE_EA_RO		0x6
#define KT_PR_TYPE_WE_AR		0x7	/* ... All Registrants */
#define KT_PR_TYPE_EA_AR		0x8

#define KT_PR_SCOPE_LU			0x0

/* SPC-4 7.6.4.6: an iSCSI name, NUL included (RFC 7143 4.2.7.1) */
#define KT_PR_NAME_LEN			224
#define KT_PR_ISID_LEN			6
/* the longest TransportID we build: header, "name,i,0x" + 12 hex, NUL, pad */
#define KT_PR_TID_MAX			(4 + KT_PR_NAME_LEN + 5 + 12 + 4)

static inline bool kt_pr_type_valid(u8 type)
{
	switch (type) {
	case KT_PR_TYPE_WE:
	case KT_PR_TYPE_EA:
	case KT_PR_TYPE_WE_RO:
	case KT_PR_TYPE_EA_RO:
	case KT_PR_TYPE_WE_AR:
	case KT_PR_TYPE_EA_AR:
		return true;
	}
	return false;
}

/* All Registrants types: every registrant holds the reservation */
static inline bool kt_pr_type_all_reg(u8 type)
{
	return type == KT_PR_TYPE_WE_AR || type == KT_PR_TYPE_EA_AR;
}

/* Registrants Only and All Registrants types */
static inline bool kt_pr_type_reg_only(u8 type)
{
	return type >= KT_PR_TYPE_WE_RO && type <= KT_PR_TYPE_EA_AR;
}

/*
 * An initiator port as a TransportID names it (SPC-4 7.6.4): the
 * protocol, the initiator's name, and the port's identifier within it
 * when there is one (iSCSI: the ISID of format 01b). The fabric names
 * its sessions' ports so. For FC, SRP and SAS the name is text too, as
 * the fabrics write it ("fc." or "naa." or "0x", then hex digits; FC's
 * colon form is taken): their TransportIDs carry the binary identifier
 * those digits spell, and two such names match when the identifiers do.
 */
struct kt_pr_tid {
	char	name[KT_PR_NAME_LEN];		/* NUL-terminated */
	u8	isid[KT_PR_ISID_LEN];
	bool	has_isid;
	u8	proto;				/* PROTOCOL IDENTIFIER */
};

/* SPC-4 7.6.1, table 362: a PROTOCOL IDENTIFIER's name, as LIO shows it */
const char *kt_pr_proto_name(u8 proto);

/*
 * Parse one TransportID at @buf, @len bytes available; *@used is set to
 * its length on success. Offsets in *@field are relative to @base, the
 * TransportID's offset in the parameter list. iSCSI (SPC-4 7.6.4.6): the
 * name must be NUL-terminated within the ADDITIONAL LENGTH, which is 20
 * to 224 bytes (244 with an ISID) and a multiple of 4; for format 01b the
 * ",i,0x" separator and 12 hex digits of ISID must follow it. A
 * TransportID longer than @len is a PARAMETER LIST LENGTH ERROR.
 * FC, SRP and SAS (7.6.4.2, .5, .7): 24 bytes of format 00b; the name
 * made is "fc.", "0x" or "naa." and the identifier in lower-case hex.
 * Any other PROTOCOL IDENTIFIER is an invalid field.
 */
sense_reason_t kt_pr_tid_parse(const u8 *buf, u32 len, u32 base, u32 *used,
			       struct kt_pr_tid *tid,
			       struct kt_sense_field *field);

/*
 * Build the TransportID of @tid in its protocol's form (iSCSI: format
 * 01b if it has an ISID, else 00b) into @buf, at most @buf_len bytes
 * written; returns its full length, a multiple of 4, at least 24.
 */
u32 kt_pr_tid_build(const struct kt_pr_tid *tid, u8 *buf, u32 buf_len);

/*
 * Two TransportIDs name the same port (or, for iSCSI without ISID, the
 * same node).
 */
bool kt_pr_tid_match(const struct kt_pr_tid *a, const struct kt_pr_tid *b);

/* A PERSISTENT RESERVE OUT command, CDB and parameter list decoded */
struct kt_pr_out {
	u64	res_key;		/* RESERVATION KEY */
	u64	sa_key;			/* SERVICE ACTION RESERVATION KEY */
	u8	sa;			/* KT_PRO_* */
	u8	scope;
	u8	type;			/* KT_PR_TYPE_*, checked where it matters */
	bool	spec_i_pt;
	bool	all_tg_pt;
	bool	aptpl;
	bool	unreg;			/* REGISTER AND MOVE: UNREG */
	u16	rtpi;			/* REGISTER AND MOVE: target port */
	u32	tid_off;		/* TransportIDs: offset in the list */
	u32	tid_len;		/* ... and their total length */
};

/*
 * The one TransportID of a REGISTER AND MOVE list (@out from
 * kt_pr_out_parse()): as kt_pr_tid_parse(), and its length must be the
 * TRANSPORTID PARAMETER DATA LENGTH, else an invalid field (byte 20).
 */
sense_reason_t kt_pr_move_tid(const struct kt_pr_out *out, const u8 *param,
			      struct kt_pr_tid *tid,
			      struct kt_sense_field *field);

#define KT_PR_OUT_BASIC_LEN	24	/* SPC-4 6.16.3: the basic list */
#define KT_PR_OUT_MOVE_HDR_LEN	24	/* SPC-4 6.16.4: REGISTER AND MOVE */

/*
 * Decode the CDB of PERSISTENT RESERVE OUT and its parameter list (@len
 * bytes at @param; the PARAMETER LIST LENGTH is taken from @cdb and must
 * equal @len). Checks what does not depend on the registrations: the
 * length for the service action, SCOPE and TYPE where they are used
 * (RESERVE, RELEASE, REGISTER AND MOVE; a PREEMPT uses them only when it
 * takes the reservation: kt_pr_out_check_type() there),
 * SPEC_I_PT only with REGISTER, ALL_TG_PT not with REGISTER AND MOVE, the
 * TransportID list length. The TransportIDs themselves are walked with
 * kt_pr_tid_parse() from @out->tid_off.
 */
/*
 * SPC-4 6.16.2: SCOPE is LU_SCOPE and TYPE one we know, for a service
 * action that reserves. A PREEMPT that only removes registrations ignores
 * both (SPC-4 5.13.11.4.3): its caller checks them only where it reserves.
 */
sense_reason_t kt_pr_out_check_type(const struct kt_pr_out *out,
				    struct kt_sense_field *field);

sense_reason_t kt_pr_out_parse(const u8 *cdb, const u8 *param, u32 len,
			       struct kt_pr_out *out,
			       struct kt_sense_field *field);

/* One registration, as PERSISTENT RESERVE IN reports it */
struct kt_pr_reg_info {
	u64			key;
	u16			rtpi;		/* relative target port */
	bool			all_tg_pt;
	bool			holder;		/* holds the reservation */
	struct kt_pr_tid	tid;		/* the initiator port */
};

/* A device's persistent reservation state, as the builders see it */
struct kt_pr_info {
	u32				generation;	/* PRgeneration */
	u8				type;		/* KT_PR_TYPE_NONE: none */
	u64				res_key;	/* holder's key (not AR) */
	bool				aptpl;		/* PTPL_A */
	const struct kt_pr_reg_info	*regs;
	u32				nr_regs;
};

/*
 * PERSISTENT RESERVE IN (SPC-4 6.15), every service action; the builder
 * contract of <ktarget/proto/spc.h> (bounded output, *@data_len the
 * response cut to the ALLOCATION LENGTH).
 */
sense_reason_t kt_pr_in(const struct kt_pr_info *pr, const u8 *cdb, u8 *buf,
			u32 buf_len, u32 *data_len,
			struct kt_sense_field *field);

/*
 * May @cdb, decoded against descriptor @d (NULL: not one the LU offers),
 * run on a logical unit with a persistent reservation of @type
 * (SPC-4 5.13.1 and SBC-3 4.17 tables of commands allowed in the presence
 * of reservations), sent through an I_T nexus that is @registered and
 * does or does not @hold the reservation? Returns KT_SENSE_NONE or
 * KT_SENSE_RESERVATION_CONFLICT. PERSISTENT RESERVE OUT is allowed here:
 * its service actions check the registrations themselves. The holder is
 * refused only RESERVE and RELEASE (6)/(10).
 */
sense_reason_t kt_pr_check_access(const struct kt_cdb_desc *d, const u8 *cdb,
				  u8 type, bool registered, bool holder);

/*
 * May a command decoded against descriptor @d (NULL: not one the LU
 * offers) run while an SPC-2 RESERVE holds the logical unit for another
 * I_T nexus (SPC-2 5.5.1)?
 */
sense_reason_t kt_pr_check_reserve(const struct kt_cdb_desc *d);

#endif /* KTARGET_PROTO_PR_H */
