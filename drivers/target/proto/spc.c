// SPDX-License-Identifier: GPL-2.0
/*
 * SPC-4 responses and CDB checks: INQUIRY with its VPD pages, REPORT LUNS,
 * REPORT SUPPORTED OPERATION CODES / TASK MANAGEMENT FUNCTIONS, REQUEST
 * SENSE, and the reserved-bit checks of every CDB, both read from the one
 * command table (kt_cdb_descs[], proto/cdb.c). No allocation, locking or
 * logging here: this file is compiled unchanged into the userspace unit and
 * fuzz tests.
 */
#include <linux/types.h>
#include <linux/errno.h>
#include <linux/string.h>
#include <linux/bits.h>
#include <linux/unaligned.h>

#include <ktarget/proto/cdb.h>
#include <ktarget/proto/pi.h>
#include <ktarget/proto/sense.h>
#include <ktarget/proto/lun.h>
#include <ktarget/proto/spc.h>

/* Recommended command timeouts we report (SPC-4 6.35.4), in seconds */
#define KT_SPC_TIMEOUT		30
#define KT_SPC_TIMEOUT_LONG	120

static bool kt_spc_gate_open(const struct kt_lu_info *lu, u8 gate)
{
	switch (gate) {
	case KT_GATE_ALWAYS:
		return true;
	case KT_GATE_PR:
		return lu->flags & KT_LU_PR;
	case KT_GATE_CAW:
		return lu->flags & KT_LU_CAW;
	case KT_GATE_TPU:
		return lu->flags & KT_LU_TPU;
	case KT_GATE_LBP:
		return kt_spc_lbpme(lu);
	case KT_GATE_3PC:
		return lu->flags & KT_LU_3PC;
	case KT_GATE_ROD:
		return (lu->flags & KT_LU_3PC) && (lu->flags & KT_LU_ROD);
	case KT_GATE_ALUA:
		return lu->tpgs & 0x3;
	case KT_GATE_ALUA_EXPL:
		return lu->tpgs & 0x2;
	case KT_GATE_BLOCK_ERASE:
		return lu->flags & KT_LU_BLOCK_ERASE;
	case KT_GATE_ATOMIC:
		return kt_sbc_atomic_max(lu);
	}
	return false;
}

/*
 * The usage data of @c for @lu: optional bits cleared when off. It is
 * both what REPORT SUPPORTED OPERATION CODES reports and what the CDB
 * check lets through, so the two cannot disagree.
 */
static void kt_spc_usage(const struct kt_lu_info *lu,
			 const struct kt_cdb_desc *c, u8 *usage)
{
	usage[0] = c->opcode;
	memcpy(&usage[1], c->usage, c->len - 1);
	if ((c->flags & KT_CDB_D_DPOFUA) && !kt_spc_dpofua(lu)) {
		usage[1] &= ~0x18;
		/*
		 * FUA on a LU with its write cache off: every write is on the
		 * medium when it completes anyway. UEFI firmware (EDK2) sets
		 * it even where MODE SENSE says DPOFUA=0; LIO's fix takes it
		 * too, so a UEFI iSCSI boot does not fail.
		 */
		if (!(lu->flags & KT_LU_WCE))
			usage[1] |= c->usage[0] & 0x08;
	}
	if ((c->flags & KT_CDB_D_WS_UNMAP) && !(lu->flags & KT_LU_TPWS))
		usage[1] &= ~0x08;
	/* RDPROTECT and its like, on a LU with PI (which of them: sbc.c) */
	if ((c->flags & KT_CDB_D_PROTECT) && lu->pi_type)
		usage[1] |= 0xe0;
}

/*
 * Look @opcode (and @sa, for commands with service actions) up among the
 * commands @lu offers. *@has_sa tells whether the operation code has
 * service actions, *@known whether it is offered at all.
 */
static const struct kt_cdb_desc *kt_spc_find(const struct kt_lu_info *lu,
					     u8 opcode, u16 sa, bool *known,
					     bool *has_sa)
{
	const struct kt_cdb_set *set = lu->cmds ? lu->cmds : &kt_sbc_cmds;
	const struct kt_cdb_desc *c;
	unsigned int i;

	*known = false;
	*has_sa = false;
	for (i = 0; i < set->nr; i++) {
		c = &set->descs[i];
		if (c->opcode != opcode || !kt_spc_gate_open(lu, c->gate))
			continue;
		*known = true;
		if (c->has_sa)
			*has_sa = true;
		if (!c->has_sa || c->sa == sa)
			return c;
	}
	return NULL;
}

/* The left-most bit set in @v, for a BIT POINTER (SPC-4 4.5.2.4.2) */
static u8 kt_spc_top_bit(u8 v)
{
	u8 bit = 7;

	while (bit && !(v & BIT(bit)))
		bit--;
	return bit;
}

static sense_reason_t kt_spc_bad_bit(struct kt_sense_field *field, u16 byte,
				     u8 bit)
{
	*field = KT_FIELD_CDB_BIT(byte, bit);
	return KT_SENSE_INVALID_CDB_FIELD;
}

static sense_reason_t kt_spc_bad_byte(struct kt_sense_field *field, u16 byte)
{
	*field = KT_FIELD_CDB(byte);
	return KT_SENSE_INVALID_CDB_FIELD;
}

/* SBC-3 START STOP UNIT: POWER CONDITION and its modifier */
static sense_reason_t kt_spc_check_ssu(const u8 *cdb,
				       struct kt_sense_field *field)
{
	u8 pc = cdb[4] >> 4, mod = cdb[3] & 0x0f, max_mod;

	switch (pc) {
	case 0x0:	/* START_VALID */
	case 0x1:	/* ACTIVE */
	case 0x7:	/* LU_CONTROL */
		max_mod = 0;
		break;
	case 0x2:	/* IDLE: idle_a, idle_b, idle_c */
	case 0xa:	/* FORCE_IDLE_0 */
		max_mod = 2;
		break;
	case 0x3:	/* STANDBY: standby_z, standby_y */
	case 0xb:	/* FORCE_STANDBY_0 */
		max_mod = 1;
		break;
	default:
		return kt_spc_bad_bit(field, 4, 7);
	}
	if (mod > max_mod)
		return kt_spc_bad_bit(field, 3, 3);
	return KT_SENSE_NONE;
}

/* Field checks of the commands that have no builder in this file */
static sense_reason_t kt_spc_check_fields(const struct kt_lu_info *lu,
					  const u8 *cdb,
					  struct kt_sense_field *field)
{
	u8 bytchk;

	switch (cdb[0]) {
	case VERIFY:
	case VERIFY_12:
	case VERIFY_16:
		/* SBC-3 VERIFY: BYTCHK 10b is reserved */
		bytchk = (cdb[1] >> 1) & 0x3;
		if (bytchk == 0x2)
			return kt_spc_bad_bit(field, 1, 2);
		break;
	case WRITE_VERIFY:
	case WRITE_VERIFY_12:
	case WRITE_VERIFY_16:
		/* SBC-3 WRITE AND VERIFY: BYTCHK 10b and 11b are reserved */
		bytchk = (cdb[1] >> 1) & 0x3;
		if (bytchk & 0x2)
			return kt_spc_bad_bit(field, 1, 2);
		break;
	case COMPARE_AND_WRITE:
		/* SBC-3 COMPARE AND WRITE: at most the Block Limits maximum */
		if (cdb[13] > lu->max_caw_blocks)
			return kt_spc_bad_byte(field, 13);
		break;
	case START_STOP:
		return kt_spc_check_ssu(cdb, field);
	case ALLOW_MEDIUM_REMOVAL:
		/* SBC-3 PREVENT ALLOW MEDIUM REMOVAL: 10b and 11b (MMC has them) */
		if (lu->pdt == TYPE_DISK && (cdb[4] & 0x2))
			return kt_spc_bad_bit(field, 4, 1);
		break;
	case MAINTENANCE_IN:
		/* SPC-4 REPORT TARGET PORT GROUPS: formats 000b and 001b */
		if ((cdb[1] & 0x1f) == MI_REPORT_TARGET_PGS && (cdb[1] >> 5) > 1)
			return kt_spc_bad_bit(field, 1, 7);
		break;
	}
	return KT_SENSE_NONE;
}

sense_reason_t kt_spc_check_cdb(const struct kt_lu_info *lu, const u8 *cdb,
				u32 len, struct kt_sense_field *field)
{
	return kt_spc_check_desc(lu, len ? kt_cdb_desc_find(cdb, len) : NULL,
				 cdb, len, field);
}

sense_reason_t kt_spc_check_desc(const struct kt_lu_info *lu,
				 const struct kt_cdb_desc *c, const u8 *cdb,
				 u32 len, struct kt_sense_field *field)
{
	u8 usage[16], allowed, bad;
	bool known, has_sa;
	unsigned int i;

	*field = (struct kt_sense_field){ 0 };
	if (!len)
		return KT_SENSE_INVALID_OPCODE;

	if (!c || !kt_spc_gate_open(lu, c->gate)) {
		/* does the LU offer other service actions of the opcode? */
		kt_spc_find(lu, cdb[0], len > 1 ? cdb[1] & 0x1f : 0, &known,
			    &has_sa);
		/* an unsupported SERVICE ACTION is an invalid field, not opcode */
		if (known && has_sa)
			return kt_spc_bad_bit(field, 1, 4);
		return KT_SENSE_INVALID_OPCODE;
	}
	if (len < c->len)
		return kt_spc_bad_byte(field, 0);

	/* SPC-4 4.2.5: reserved bits are zero; so are fields we do not use */
	kt_spc_usage(lu, c, usage);
	for (i = 1; i < c->len - 1U; i++) {
		allowed = usage[i];
		if (i == 1 && c->has_sa)
			allowed |= 0x1f;
		bad = cdb[i] & ~allowed;
		/* SPC-4 4.5.2.4.2: a field in error is named by its first bit */
		if (i == 1 && (c->flags & KT_CDB_D_PROTECT) && (bad & 0xe0))
			return kt_spc_bad_bit(field, 1, 7);
		if (bad)
			return kt_spc_bad_bit(field, i, kt_spc_top_bit(bad));
	}

	/*
	 * SAM-5, CONTROL byte: no NACA (NORMACA is zero), no linked
	 * commands; the vendor specific bits 7..6 are ignored.
	 */
	bad = cdb[c->len - 1] & 0x3f;
	if (bad)
		return kt_spc_bad_bit(field, c->len - 1, kt_spc_top_bit(bad));

	return kt_spc_check_fields(lu, cdb, field);
}

u32 kt_spc_alloc_len(const u8 *cdb)
{
	return kt_spc_desc_alloc_len(kt_cdb_desc_find(cdb, 2), cdb);
}

u32 kt_spc_desc_alloc_len(const struct kt_cdb_desc *c, const u8 *cdb)
{
	if (cdb[0] == READ_CAPACITY)	/* SBC-3 READ CAPACITY (10): 8 bytes */
		return 8;
	if (!c)
		return 0;
	switch (c->alen_size) {
	case 1:
		return cdb[c->alen_off];
	case 2:
		return get_unaligned_be16(&cdb[c->alen_off]);
	case 4:
		return get_unaligned_be32(&cdb[c->alen_off]);
	}
	return 0;
}

/* ------------------------------------------------------------------------
 * INQUIRY (SPC-4 6.6)
 */

/* Version descriptors (SPC-4 6.6.2, table of version descriptor values) */
#define KT_VD_SAM5		0x00a0
#define KT_VD_SPC4		0x0460
#define KT_VD_SBC3		0x04c0
#define KT_VD_ISCSI		0x0960

#define KT_STD_INQ_LEN		96	/* through the version descriptors */

/* SPC-4 4.4.1: ASCII data fields hold 20h..7Eh, left-aligned, space-padded */
static void kt_spc_out_ascii(struct kt_spc_out *o, const char *s, u32 width)
{
	u32 i, n = s ? strnlen(s, width) : 0;

	for (i = 0; i < n; i++)
		kt_spc_out_u8(o, s[i] >= 0x20 && s[i] <= 0x7e ? s[i] : ' ');
	kt_spc_out_fill(o, ' ', width - n);
}

static u32 kt_spc_strlen(const char *s, u32 max)
{
	return s ? strnlen(s, max) : 0;
}

/* SPC-4 6.6.2: standard INQUIRY data */
static void kt_spc_inquiry_std(const struct kt_lu_info *lu,
			       struct kt_spc_out *o)
{
	u8 b5 = (lu->tpgs & 0x3) << 4;

	if (lu->flags & KT_LU_3PC)
		b5 |= 0x08;				/* 3PC */
	if (lu->pi_type)
		b5 |= 0x01;				/* PROTECT */

	/* connected; a direct access block device, or a CD/DVD device */
	kt_spc_out_u8(o, lu->pdt);
	/* only a CD/DVD LU's medium is removable (RMB) */
	kt_spc_out_u8(o, lu->pdt == TYPE_ROM ? 0x80 : 0x00);
	kt_spc_out_u8(o, 0x06);		/* VERSION: SPC-4 */
	kt_spc_out_u8(o, 0x12);		/* HISUP, RESPONSE DATA FORMAT 2 */
	kt_spc_out_u8(o, KT_STD_INQ_LEN - 5);
	kt_spc_out_u8(o, b5);
	kt_spc_out_u8(o, 0x00);
	kt_spc_out_u8(o, 0x02);		/* CMDQUE */
	kt_spc_out_ascii(o, lu->vendor_id, KT_SPC_VENDOR_LEN);
	kt_spc_out_ascii(o, lu->product_id, KT_SPC_PRODUCT_LEN);
	kt_spc_out_ascii(o, lu->revision, KT_SPC_REVISION_LEN);
	kt_spc_out_fill(o, 0, 58 - 36);	/* vendor specific, SPI fields */
	kt_spc_out_be16(o, KT_VD_SAM5);
	if (lu->proto_id == KT_PROTO_ISCSI)
		kt_spc_out_be16(o, KT_VD_ISCSI);
	kt_spc_out_be16(o, KT_VD_SPC4);
	/* which MMC version a CD/DVD LU claims: none */
	if (lu->pdt == TYPE_DISK)
		kt_spc_out_be16(o, KT_VD_SBC3);
	kt_spc_out_fill(o, 0, KT_STD_INQ_LEN - o->off);
}

static bool kt_spc_has_serial(const struct kt_lu_info *lu)
{
	return kt_spc_strlen(lu->unit_serial, 1);
}

static bool kt_spc_has_tpc_page(const struct kt_lu_info *lu)
{
	return (lu->flags & KT_LU_3PC) && lu->vpd_tpc;
}

/* SPC-4 7.8, Supported VPD Pages VPD page */
static void kt_spc_vpd_00(const struct kt_lu_info *lu, struct kt_spc_out *o)
{
	kt_spc_out_u8(o, 0x00);
	if (kt_spc_has_serial(lu))
		kt_spc_out_u8(o, 0x80);
	kt_spc_out_u8(o, 0x83);
	kt_spc_out_u8(o, 0x86);
	if (kt_spc_has_tpc_page(lu))
		kt_spc_out_u8(o, 0x8f);
	if (lu->pdt != TYPE_DISK)
		return;
	kt_spc_out_u8(o, 0xb0);
	kt_spc_out_u8(o, 0xb1);
	kt_spc_out_u8(o, 0xb2);
}

/* SPC-4 7.8, Unit Serial Number VPD page */
static void kt_spc_vpd_80(const struct kt_lu_info *lu, struct kt_spc_out *o)
{
	kt_spc_out_ascii(o, lu->unit_serial,
			 kt_spc_strlen(lu->unit_serial, KT_SPC_SERIAL_MAX));
}

/* 36 bits of FNV-1a over the unit serial: the NAA VENDOR SPECIFIC IDENTIFIER */
static u64 kt_spc_serial_hash(const struct kt_lu_info *lu)
{
	u32 i, n = kt_spc_strlen(lu->unit_serial, KT_SPC_SERIAL_MAX);
	u64 h = 0xcbf29ce484222325ULL;

	for (i = 0; i < n; i++) {
		h ^= (u8)lu->unit_serial[i];
		h *= 0x100000001b3ULL;
	}
	return h & 0xfffffffffULL;
}

/*
 * SPC-4 7.8, NAA designator format, NAA IEEE Registered Extended (6h):
 * 24-bit COMPANY ID, 36-bit VENDOR SPECIFIC IDENTIFIER, 64-bit VENDOR
 * SPECIFIC IDENTIFIER EXTENSION. LIO derives all of it from the hex
 * digits of the serial, so two devices can collide; the extension here is
 * the device id the core assigns, unique per device.
 */
void kt_spc_naa(const struct kt_lu_info *lu, u8 *out)
{
	u32 oui = lu->company_id & 0xffffff;
	u64 vsi = kt_spc_serial_hash(lu);

	out[0] = 0x60 | (oui >> 20);
	out[1] = oui >> 12;
	out[2] = oui >> 4;
	out[3] = (oui & 0xf) << 4 | (u8)(vsi >> 32);
	put_unaligned_be32((u32)vsi, &out[4]);
	put_unaligned_be64(lu->dev_id, &out[8]);
}

/* Designation descriptor header (SPC-4 7.8, Device Identification) */
static void kt_spc_desig(struct kt_spc_out *o, u8 proto, u8 code_set,
			 bool piv, u8 assoc, u8 type, u8 len)
{
	kt_spc_out_u8(o, (piv ? (proto & 0xf) << 4 : 0) | code_set);
	kt_spc_out_u8(o, (piv ? 0x80 : 0) | assoc << 4 | type);
	kt_spc_out_u8(o, 0);
	kt_spc_out_u8(o, len);
}

#define CS_BINARY	0x1
#define CS_ASCII	0x2
#define CS_UTF8		0x3
#define ASSOC_LU	0x0
#define ASSOC_PORT	0x1
#define ASSOC_TARGET	0x2
#define DT_T10		0x1
#define DT_NAA		0x3
#define DT_REL_PORT	0x4
#define DT_TPG		0x5
#define DT_NAME		0x8

/* SCSI name string: NUL-terminated, NUL-padded to a multiple of 4 */
static void kt_spc_desig_name(const struct kt_lu_info *lu,
			      struct kt_spc_out *o, const char *name, u8 assoc)
{
	u32 n = kt_spc_strlen(name, KT_SPC_NAME_MAX);
	u32 padded = (n + 1 + 3) & ~3U;

	if (!n)
		return;
	kt_spc_desig(o, lu->proto_id, CS_UTF8, true, assoc, DT_NAME, padded);
	kt_spc_out_mem(o, (const u8 *)name, n);
	kt_spc_out_fill(o, 0, padded - n);
}

/* SPC-4 7.8, Device Identification VPD page */
static void kt_spc_vpd_83(const struct kt_lu_info *lu, struct kt_spc_out *o)
{
	u32 serial = kt_spc_strlen(lu->unit_serial,
				   255 - KT_SPC_VENDOR_LEN);
	u8 naa[KT_SPC_NAA_LEN];

	kt_spc_naa(lu, naa);
	kt_spc_desig(o, 0, CS_BINARY, false, ASSOC_LU, DT_NAA, sizeof(naa));
	kt_spc_out_mem(o, naa, sizeof(naa));

	/* T10 vendor ID based: vendor identification, then the serial */
	kt_spc_desig(o, 0, CS_ASCII, false, ASSOC_LU, DT_T10,
		     KT_SPC_VENDOR_LEN + serial);
	kt_spc_out_ascii(o, lu->vendor_id, KT_SPC_VENDOR_LEN);
	kt_spc_out_ascii(o, lu->unit_serial, serial);

	kt_spc_desig(o, lu->proto_id, CS_BINARY, true, ASSOC_PORT,
		     DT_REL_PORT, 4);
	kt_spc_out_be16(o, 0);
	kt_spc_out_be16(o, lu->rel_port_id);

	if (lu->tpgs & 0x3) {
		kt_spc_desig(o, lu->proto_id, CS_BINARY, true, ASSOC_PORT,
			     DT_TPG, 4);
		kt_spc_out_be16(o, 0);
		kt_spc_out_be16(o, lu->tpg_id);
	}

	kt_spc_desig_name(lu, o, lu->port_name, ASSOC_PORT);
	kt_spc_desig_name(lu, o, lu->target_name, ASSOC_TARGET);
}

/*
 * SPC-4 7.8, Extended INQUIRY Data VPD page. With PI: SPT the one type
 * the LU is formatted with (000b type 1, 100b type 3), GRD_CHK, and
 * REF_CHK for type 1; no APP_CHK, since no command without PI brings an
 * expected application tag (proto/pi.h)
 */
static void kt_spc_vpd_86(const struct kt_lu_info *lu, struct kt_spc_out *o)
{
	u8 b4 = 0;

	if (lu->pi_type == KT_PI_TYPE1)
		b4 = 0x04 | 0x01;		/* SPT 000b, GRD_CHK, REF_CHK */
	else if (lu->pi_type == KT_PI_TYPE3)
		b4 = 0x20 | 0x04;		/* SPT 100b, GRD_CHK */
	kt_spc_out_u8(o, b4);
	kt_spc_out_u8(o, 0x07);			/* HEADSUP, ORDSUP, SIMPSUP */
	kt_spc_out_u8(o, lu->flags & KT_LU_WCE ? 0x01 : 0);	/* V_SUP */
	kt_spc_out_u8(o, 0x01);			/* LUICLR */
	kt_spc_out_fill(o, 0, 0x3c - 4);
}

/* SBC-3, Block Limits VPD page, with SBC-4's atomic fields */
static void kt_spc_vpd_b0(const struct kt_lu_info *lu, struct kt_spc_out *o)
{
	bool lbp = kt_spc_lbpme(lu), tpu = lu->flags & KT_LU_TPU;
	u32 opt = lu->optimal_sectors, gran = lu->unmap_granularity;

	if (lu->hw_max_sectors && opt > lu->hw_max_sectors)
		opt = lu->hw_max_sectors;

	kt_spc_out_u8(o, 0x01);			/* WSNZ */
	kt_spc_out_u8(o, lu->flags & KT_LU_CAW ? lu->max_caw_blocks : 0);
	kt_spc_out_be16(o, 1U << (lu->lbppbe & 0xf));	/* granularity */
	kt_spc_out_be32(o, lu->hw_max_sectors);
	kt_spc_out_be32(o, opt);
	kt_spc_out_be32(o, 0);			/* MAXIMUM PREFETCH LENGTH */
	kt_spc_out_be32(o, tpu ? lu->max_unmap_lba_count : 0);
	kt_spc_out_be32(o, tpu ? lu->max_unmap_block_desc_count : 0);
	kt_spc_out_be32(o, lbp ? gran & 0x7fffffff : 0);
	if (lbp && gran)			/* UGAVALID */
		kt_spc_out_be32(o, BIT(31) |
				(lu->unmap_granularity_alignment & 0x7fffffff));
	else
		kt_spc_out_be32(o, 0);
	kt_spc_out_be64(o, lu->max_write_same_len);
	/* SBC-4 6.6.4: the atomic fields, zero where none is offered */
	if (kt_sbc_atomic_max(lu)) {
		kt_spc_out_be32(o, kt_sbc_atomic_max(lu));
		kt_spc_out_be32(o, lu->atomic_alignment);
		kt_spc_out_be32(o, lu->atomic_granularity);
		kt_spc_out_be32(o, lu->atomic_max_with_boundary);
		kt_spc_out_be32(o, lu->atomic_max_boundary);
	} else {
		kt_spc_out_fill(o, 0, 0x3c - 40);
	}
}

/* SBC-3, Block Device Characteristics VPD page */
static void kt_spc_vpd_b1(const struct kt_lu_info *lu, struct kt_spc_out *o)
{
	/* MEDIUM ROTATION RATE 1: non-rotating medium */
	kt_spc_out_be16(o, lu->flags & KT_LU_NONROT ? 1 : 0);
	kt_spc_out_u8(o, 0);			/* PRODUCT TYPE */
	/* WABEREQ 01b: a block-erased block reads with GOOD status */
	kt_spc_out_u8(o, lu->flags & KT_LU_BLOCK_ERASE ? 0x40 : 0);
	kt_spc_out_fill(o, 0, 0x3c - 4);
}

/* SBC-3, Logical Block Provisioning VPD page */
static void kt_spc_vpd_b2(const struct kt_lu_info *lu, struct kt_spc_out *o)
{
	u8 b5 = 0;

	if (lu->flags & KT_LU_TPU)
		b5 |= 0x80;			/* LBPU */
	if (lu->flags & KT_LU_TPWS)
		b5 |= 0x60;			/* LBPWS, LBPWS10 */
	if (kt_spc_lbpme(lu) && (lu->flags & KT_LU_LBPRZ))
		b5 |= 0x04;			/* LBPRZ */

	/* THRESHOLD EXPONENT: 0 when no threshold is offered */
	kt_spc_out_u8(o, lu->flags & KT_LU_LBP_THRESH ? lu->lbp_thresh_exp : 0);
	kt_spc_out_u8(o, b5);
	kt_spc_out_u8(o, kt_spc_lbpme(lu) ? 0x02 : 0);	/* thin provisioned */
	kt_spc_out_u8(o, 0);
}

typedef void (*kt_spc_vpd_fn)(const struct kt_lu_info *lu,
			      struct kt_spc_out *o);

static kt_spc_vpd_fn kt_spc_vpd_page(const struct kt_lu_info *lu, u8 page)
{
	/* the SBC pages are a block device's */
	if (page >= 0xb0 && lu->pdt != TYPE_DISK)
		return NULL;
	switch (page) {
	case 0x00:
		return kt_spc_vpd_00;
	case 0x80:
		return kt_spc_has_serial(lu) ? kt_spc_vpd_80 : NULL;
	case 0x83:
		return kt_spc_vpd_83;
	case 0x86:
		return kt_spc_vpd_86;
	case 0xb0:
		return kt_spc_vpd_b0;
	case 0xb1:
		return kt_spc_vpd_b1;
	case 0xb2:
		return kt_spc_vpd_b2;
	}
	return NULL;
}

sense_reason_t kt_spc_inquiry(const struct kt_lu_info *lu, const u8 *cdb,
			      u8 *buf, u32 buf_len, u32 *data_len,
			      struct kt_sense_field *field)
{
	u16 alloc = get_unaligned_be16(&cdb[3]);
	struct kt_spc_out o;
	kt_spc_vpd_fn fn;
	u8 page = cdb[2];

	*data_len = 0;
	*field = (struct kt_sense_field){ 0 };
	kt_spc_out_init(&o, buf, buf_len, alloc);

	/* SPC-4 6.6.1: CMDDT is obsolete, and reserved bits are zero */
	if (cdb[1] & 0xfe)
		return kt_spc_bad_bit(field, 1, kt_spc_top_bit(cdb[1] & 0xfe));

	if (!(cdb[1] & 0x01)) {
		/* SPC-4 6.6.1: PAGE CODE must be zero when EVPD is zero */
		if (page)
			return kt_spc_bad_byte(field, 2);
		kt_spc_inquiry_std(lu, &o);
		*data_len = kt_spc_out_len(&o);
		return KT_SENSE_NONE;
	}

	if (page == 0x8f && kt_spc_has_tpc_page(lu)) {
		o.off = lu->vpd_tpc(buf, o.cap, lu);
		*data_len = kt_spc_out_len(&o);
		return KT_SENSE_NONE;
	}

	fn = kt_spc_vpd_page(lu, page);
	if (!fn)
		return kt_spc_bad_byte(field, 2);

	/* SPC-4 7.8: VPD page header, PAGE LENGTH filled in afterwards */
	kt_spc_out_u8(&o, 0x00);
	kt_spc_out_u8(&o, page);
	kt_spc_out_be16(&o, 0);
	fn(lu, &o);
	kt_spc_out_set_be16(&o, 2, o.off - 4);
	*data_len = kt_spc_out_len(&o);
	return KT_SENSE_NONE;
}

/* ------------------------------------------------------------------------
 * REPORT LUNS (SPC-4 6.33)
 */

sense_reason_t kt_spc_report_luns(const u8 *cdb, const u64 *luns, u32 nr,
				  bool wlun, u8 *buf, u32 buf_len,
				  u32 *data_len, struct kt_sense_field *field)
{
	u32 alloc = get_unaligned_be32(&cdb[6]), count = 0, i;
	bool inventory, well_known;
	struct kt_spc_out o;
	u64 lun;

	*data_len = 0;
	*field = (struct kt_sense_field){ 0 };

	switch (cdb[2]) {		/* SELECT REPORT */
	case 0x00:			/* the logical unit inventory */
		inventory = true;
		well_known = false;
		break;
	case 0x01:			/* well-known logical units only */
		inventory = false;
		well_known = true;
		break;
	case 0x02:			/* all of them */
		inventory = true;
		well_known = true;
		break;
	default:
		return kt_spc_bad_byte(field, 2);
	}
	well_known = well_known && wlun;

	/* SPC-4 6.33: the allocation length is at least 16 */
	if (alloc < 16)
		return kt_spc_bad_byte(field, 6);

	kt_spc_out_init(&o, buf, buf_len, alloc);
	kt_spc_out_be32(&o, 0);		/* LUN LIST LENGTH, filled in below */
	kt_spc_out_be32(&o, 0);

	for (i = 0; inventory && i < nr && o.off <= (u32)~0U - 16; i++) {
		/* a well-known LUN is listed only below, and only asked for */
		if (luns[i] > KT_LUN_FLAT_MAX || !kt_lun_encode(luns[i], &lun))
			continue;
		kt_spc_out_be64(&o, lun);
		count++;
	}
	/* as LIO does: initiators look for LUN 0, report it when empty */
	if (inventory && !count) {
		kt_spc_out_be64(&o, 0);
		count++;
	}
	if (well_known) {
		kt_spc_out_be64(&o, KT_LUN_REPORT_LUNS);
		count++;
	}

	kt_spc_out_set_be32(&o, 0, count * 8);
	*data_len = kt_spc_out_len(&o);
	return KT_SENSE_NONE;
}

/* ------------------------------------------------------------------------
 * REPORT SUPPORTED OPERATION CODES (SPC-4 6.35)
 */

/* SPC-4 6.35.4: command timeouts descriptor */
static void kt_spc_out_timeouts(struct kt_spc_out *o,
				const struct kt_cdb_desc *c)
{
	kt_spc_out_be16(o, 0x0a);		/* DESCRIPTOR LENGTH */
	kt_spc_out_u8(o, 0);
	kt_spc_out_u8(o, 0);			/* COMMAND SPECIFIC */
	kt_spc_out_be32(o, 0);			/* NOMINAL: not reported */
	kt_spc_out_be32(o, c->flags & KT_CDB_D_LONG ? KT_SPC_TIMEOUT_LONG :
			KT_SPC_TIMEOUT);
}

/* SPC-4 6.35.2: all_commands parameter data */
static void kt_spc_rsoc_all(const struct kt_lu_info *lu, bool rctd,
			    struct kt_spc_out *o)
{
	const struct kt_cdb_set *set = lu->cmds ? lu->cmds : &kt_sbc_cmds;
	const struct kt_cdb_desc *c;
	unsigned int i;

	kt_spc_out_be32(o, 0);		/* COMMAND DATA LENGTH, filled in below */
	for (i = 0; i < set->nr; i++) {
		c = &set->descs[i];
		if (!kt_spc_gate_open(lu, c->gate))
			continue;
		kt_spc_out_u8(o, c->opcode);
		kt_spc_out_u8(o, 0);
		kt_spc_out_be16(o, c->has_sa ? c->sa : 0);
		kt_spc_out_u8(o, 0);
		/* CTDP, SERVACTV */
		kt_spc_out_u8(o, (rctd ? 0x02 : 0) | (c->has_sa ? 1 : 0));
		kt_spc_out_be16(o, c->len);
		if (rctd)
			kt_spc_out_timeouts(o, c);
	}
	kt_spc_out_set_be32(o, 0, o->off - 4);
}

/* SPC-4 6.35.3: one_command parameter data */
static void kt_spc_rsoc_one(const struct kt_lu_info *lu,
			    const struct kt_cdb_desc *c, bool rctd,
			    struct kt_spc_out *o)
{
	u8 usage[16];

	kt_spc_out_u8(o, 0);
	if (!c) {
		/* SUPPORT 001b: not supported, no CDB usage data */
		kt_spc_out_u8(o, 0x01);
		kt_spc_out_be16(o, 0);
		return;
	}
	/* CTDP, SUPPORT 011b: supported as a standard defines it */
	kt_spc_out_u8(o, (rctd ? 0x80 : 0) | 0x03);
	kt_spc_out_be16(o, c->len);
	kt_spc_usage(lu, c, usage);
	kt_spc_out_mem(o, usage, c->len);
	if (rctd)
		kt_spc_out_timeouts(o, c);
}

sense_reason_t kt_spc_rsoc(const struct kt_lu_info *lu, const u8 *cdb,
			   u8 *buf, u32 buf_len, u32 *data_len,
			   struct kt_sense_field *field)
{
	u8 options = cdb[2] & 0x07, opcode = cdb[3];
	u16 sa = get_unaligned_be16(&cdb[4]);
	bool rctd = cdb[2] & 0x80, known, has_sa;
	const struct kt_cdb_desc *c;
	struct kt_spc_out o;

	*data_len = 0;
	*field = (struct kt_sense_field){ 0 };
	kt_spc_out_init(&o, buf, buf_len, get_unaligned_be32(&cdb[6]));

	switch (options) {
	case 0x0:
		kt_spc_rsoc_all(lu, rctd, &o);
		*data_len = kt_spc_out_len(&o);
		return KT_SENSE_NONE;
	case 0x1:
	case 0x2:
	case 0x3:
		break;
	default:
		return kt_spc_bad_bit(field, 2, 2);
	}

	/*
	 * 001b names an operation code without service actions, 010b one
	 * with; 011b either, the service action only counting when the
	 * operation code has them. An unsupported command is not an error:
	 * its SUPPORT field says so.
	 */
	c = kt_spc_find(lu, opcode, sa, &known, &has_sa);
	if (options == 0x1 && has_sa)
		return kt_spc_bad_bit(field, 2, 2);
	if (options == 0x2 && known && !has_sa)
		return kt_spc_bad_bit(field, 2, 2);

	kt_spc_rsoc_one(lu, c, rctd, &o);
	*data_len = kt_spc_out_len(&o);
	return KT_SENSE_NONE;
}

/* REPORT SUPPORTED TASK MANAGEMENT FUNCTIONS (SPC-4 6.37) */
sense_reason_t kt_spc_rstmf(const struct kt_lu_info *lu, const u8 *cdb,
			    u8 *buf, u32 buf_len, u32 *data_len,
			    struct kt_sense_field *field)
{
	bool repd = cdb[2] & 0x80;
	u16 t = lu->tmf;
	struct kt_spc_out o;
	u8 b0 = 0, b1 = 0;

	*field = (struct kt_sense_field){ 0 };
	kt_spc_out_init(&o, buf, buf_len, get_unaligned_be32(&cdb[6]));

	if (t & KT_TMF_SUP_ABORT_TASK)
		b0 |= BIT(7);			/* ATS */
	if (t & KT_TMF_SUP_ABORT_TASK_SET)
		b0 |= BIT(6);			/* ATSS */
	if (t & KT_TMF_SUP_CLEAR_ACA)
		b0 |= BIT(5);			/* CACAS */
	if (t & KT_TMF_SUP_CLEAR_TASK_SET)
		b0 |= BIT(4);			/* CTSS */
	if (t & KT_TMF_SUP_LU_RESET)
		b0 |= BIT(3);			/* LURS */
	if (t & KT_TMF_SUP_QUERY_TASK)
		b0 |= BIT(2);			/* QTS */
	if (t & KT_TMF_SUP_TARGET_RESET)
		b0 |= BIT(1);			/* TRS */
	if (t & KT_TMF_SUP_WAKEUP)
		b0 |= BIT(0);			/* WAKES */
	if (t & KT_TMF_SUP_QUERY_ASYNC)
		b1 |= BIT(2);			/* QUAS */
	if (t & KT_TMF_SUP_QUERY_TASK_SET)
		b1 |= BIT(1);			/* QTSS */
	if (t & KT_TMF_SUP_IT_NEXUS_RESET)
		b1 |= BIT(0);			/* ITNRS */

	kt_spc_out_u8(&o, b0);
	kt_spc_out_u8(&o, b1);
	kt_spc_out_u8(&o, 0);
	kt_spc_out_u8(&o, repd ? 0x0c : 0);	/* ADDITIONAL DATA LENGTH */
	if (repd) {
		/* TMFTMOV zero: no timeouts reported */
		kt_spc_out_fill(&o, 0, 0x0c);
	}
	*data_len = kt_spc_out_len(&o);
	return KT_SENSE_NONE;
}

/* ------------------------------------------------------------------------
 * REPORT IDENTIFYING INFORMATION (SPC-4 6.32)
 */

#define KT_SPC_II_PERIPHERAL	0x00	/* set by SET IDENTIFYING INFORMATION */
#define KT_SPC_II_TEXT		0x02	/* peripheral device text */
#define KT_SPC_II_SUPPORTED	0x7f	/* the types offered */
#define KT_SPC_II_DESC_LEN	4

/*
 * SPC-4 6.32.3, table 283: an identifying information descriptor, the
 * INFORMATION TYPE in bits 7..1 of byte 0 (as in the CDB's byte 10) and
 * the MAXIMUM INFORMATION LENGTH in bytes 2..3
 */
static void kt_spc_out_ii_desc(struct kt_spc_out *o, u8 type, u16 max_len)
{
	kt_spc_out_u8(o, type << 1);
	kt_spc_out_u8(o, 0);
	kt_spc_out_be16(o, max_len);
}

sense_reason_t kt_spc_report_id_info(const struct kt_lu_info *lu,
				     const u8 *cdb, u8 *buf, u32 buf_len,
				     u32 *data_len,
				     struct kt_sense_field *field)
{
	u32 n = 0, len = 0;
	struct kt_spc_out o;

	*field = (struct kt_sense_field){ 0 };
	switch (cdb[10] >> 1) {
	case KT_SPC_II_PERIPHERAL:
		break;
	case KT_SPC_II_TEXT:
		n = kt_spc_strlen(lu->pd_text_id_info, KT_SPC_PD_TEXT_MAX);
		/* a null-terminated string, padded to a multiple of four */
		if (n)
			len = (n + 1 + 3) & ~3U;
		break;
	case KT_SPC_II_SUPPORTED:
		len = 2 * KT_SPC_II_DESC_LEN;
		break;
	default:
		return kt_spc_bad_bit(field, 10, 7);
	}
	kt_spc_out_init(&o, buf, buf_len, get_unaligned_be32(&cdb[6]));
	kt_spc_out_be16(&o, 0);
	kt_spc_out_be16(&o, len);	/* IDENTIFYING INFORMATION LENGTH */
	if ((cdb[10] >> 1) == KT_SPC_II_SUPPORTED) {
		/* type 0 is always empty here: no SET IDENTIFYING INFORMATION */
		kt_spc_out_ii_desc(&o, KT_SPC_II_PERIPHERAL, 0);
		/* the text, its NUL and padding: 256 bytes at most */
		kt_spc_out_ii_desc(&o, KT_SPC_II_TEXT,
				   (KT_SPC_PD_TEXT_MAX + 1 + 3) & ~3U);
	}
	if (n) {
		kt_spc_out_mem(&o, (const u8 *)lu->pd_text_id_info, n);
		kt_spc_out_fill(&o, 0, len - n);
	}
	*data_len = kt_spc_out_len(&o);
	return KT_SENSE_NONE;
}

/* ------------------------------------------------------------------------
 * REQUEST SENSE (SPC-4 6.39)
 */

/* SPC-4 4.5.2: descriptor format from fixed format sense */
static void kt_spc_sense_to_desc(const u8 *s, u32 len, struct kt_spc_out *o)
{
	bool deferred = (s[0] & 0x7f) == 0x71;
	bool info = len >= 7 && (s[0] & 0x80);
	bool sks = len >= 18 && (s[15] & 0x80);

	kt_spc_out_u8(o, deferred ? 0x73 : 0x72);
	kt_spc_out_u8(o, len > 2 ? s[2] & 0x0f : 0);	/* SENSE KEY */
	kt_spc_out_u8(o, len > 12 ? s[12] : 0);		/* ASC */
	kt_spc_out_u8(o, len > 13 ? s[13] : 0);		/* ASCQ */
	kt_spc_out_fill(o, 0, 3);
	kt_spc_out_u8(o, (info ? 12 : 0) + (sks ? 8 : 0));
	if (info) {
		/* SPC-4 4.5.2.2: information sense data descriptor */
		kt_spc_out_u8(o, 0x00);
		kt_spc_out_u8(o, 0x0a);
		kt_spc_out_u8(o, 0x80);			/* VALID */
		kt_spc_out_u8(o, 0);
		kt_spc_out_be32(o, 0);
		kt_spc_out_be32(o, get_unaligned_be32(&s[3]));
	}
	if (sks) {
		/* SPC-4 4.5.2.4: sense key specific sense data descriptor */
		kt_spc_out_u8(o, 0x02);
		kt_spc_out_u8(o, 0x06);
		kt_spc_out_fill(o, 0, 2);
		kt_spc_out_mem(o, &s[15], 3);
		kt_spc_out_u8(o, 0);
	}
}

sense_reason_t kt_spc_request_sense(const u8 *cdb, const u8 *sense,
				    u32 sense_len, u8 *buf, u32 buf_len,
				    u32 *data_len, struct kt_sense_field *field)
{
	static const u8 no_sense[KT_SENSE_BUF_LEN] = {
		[0] = 0x70, [7] = KT_SENSE_BUF_LEN - 8,
	};
	struct kt_spc_out o;

	*field = (struct kt_sense_field){ 0 };
	kt_spc_out_init(&o, buf, buf_len, cdb[4]);

	if (!sense_len) {
		sense = no_sense;
		sense_len = sizeof(no_sense);
	}
	if (cdb[1] & 0x01)		/* DESC */
		kt_spc_sense_to_desc(sense, sense_len, &o);
	else
		kt_spc_out_mem(&o, sense, sense_len);
	*data_len = kt_spc_out_len(&o);
	return KT_SENSE_NONE;
}
