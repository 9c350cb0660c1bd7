/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ktarget_srpt: SRP_CMD's layout, parsed by a pure function (parse.c)
 * that userspace unit tests build too (tools/testing/unit): this header
 * needs nothing but the kernel's types.
 */
#ifndef KTARGET_SRPT_PARSE_H
#define KTARGET_SRPT_PARSE_H

#include <linux/types.h>

/* SRP r16a 6.8: the lengths of SRP_CMD and of its descriptors */
#define KT_SRPT_CMD_LEN		48	/* sizeof(struct srp_cmd) */
#define KT_SRPT_DESC_LEN	16	/* sizeof(struct srp_direct_buf) */
#define KT_SRPT_IND_HDR_LEN	20	/* sizeof(struct srp_indirect_buf) */
/* SRP r16a table 18: DATA-OUT / DATA-IN BUFFER DESCRIPTOR FORMAT */
#define KT_SRPT_FMT_DIRECT	1
#define KT_SRPT_FMT_INDIRECT	2

enum kt_srpt_parse {
	KT_SRPT_PARSE_OK,
	KT_SRPT_PARSE_SHORT,		/* the IU ends inside a field */
	KT_SRPT_PARSE_BIDI,		/* data both ways */
	KT_SRPT_PARSE_FORMAT,		/* a descriptor format not taken */
	KT_SRPT_PARSE_EXTERNAL,		/* an indirect table not in the IU */
	KT_SRPT_PARSE_LENGTH,		/* lengths that do not add up */
};

enum kt_srpt_dir {
	KT_SRPT_DIR_NONE,
	KT_SRPT_DIR_OUT,		/* initiator to target */
	KT_SRPT_DIR_IN,
};

struct kt_srpt_parsed {
	enum kt_srpt_dir	dir;
	const u8		*cdb;
	u32			cdb_len;
	u64			lun;		/* the LUN field, raw */
	u8			task_attr;
	u32			ndesc;
	const u8		*desc;		/* ndesc 16-byte descriptors */
	u32			total;		/* their bytes */
};

enum kt_srpt_parse kt_srpt_parse_cmd(const u8 *iu, u32 len,
				     struct kt_srpt_parsed *p, u32 *bad);
const char *kt_srpt_parse_msg(enum kt_srpt_parse st);

#endif /* KTARGET_SRPT_PARSE_H */
