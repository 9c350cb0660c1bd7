// SPDX-License-Identifier: GPL-2.0
/*
 * SCSI sense data: the one place where an outcome becomes sense bytes.
 */
#include <linux/types.h>
#include <linux/string.h>
#include <linux/unaligned.h>

#include <ktarget/proto/sense.h>

/* SPC-4 4.5.6, table 28: sense keys */
#define NOT_READY		0x2
#define MEDIUM_ERROR		0x3
#define HARDWARE_ERROR		0x4
#define ILLEGAL_REQUEST		0x5
#define UNIT_ATTENTION		0x6
#define DATA_PROTECT		0x7
#define COPY_ABORTED		0xa
#define ABORTED_COMMAND		0xb
#define MISCOMPARE		0xe

struct kt_sense_entry {
	u8 key;
	u8 asc;
	u8 ascq;
	u8 status;
};

#define CC(k, a, q)	{ (k), (a), (q), KT_SAM_CHECK_CONDITION }

static const struct kt_sense_entry kt_sense_table[KT_SENSE_MAX + 1] = {
	[0]  = { 0, 0, 0, KT_SAM_GOOD },
	[1]  = CC(ILLEGAL_REQUEST, 0x20, 0x00),	/* INVALID COMMAND OPERATION CODE */
	[2]  = CC(ILLEGAL_REQUEST, 0x24, 0x00),	/* INVALID FIELD IN CDB */
	[3]  = CC(ILLEGAL_REQUEST, 0x26, 0x00),	/* INVALID FIELD IN PARAMETER LIST */
	[4]  = CC(ILLEGAL_REQUEST, 0x1a, 0x00),	/* PARAMETER LIST LENGTH ERROR */
	[5]  = CC(ILLEGAL_REQUEST, 0x21, 0x00),	/* LBA OUT OF RANGE */
	[6]  = CC(ILLEGAL_REQUEST, 0x25, 0x00),	/* LOGICAL UNIT NOT SUPPORTED */
	[7]  = CC(DATA_PROTECT, 0x27, 0x00),	/* WRITE PROTECTED */
	[8]  = CC(MISCOMPARE, 0x1d, 0x00),	/* MISCOMPARE DURING VERIFY OPERATION */
	[9]  = CC(UNIT_ATTENTION, 0x29, 0x00),	/* asc/ascq supplied by the caller */
	[10] = { 0, 0, 0, KT_SAM_RESERVATION_CONFLICT },
	[11] = CC(ILLEGAL_REQUEST, 0x55, 0x04),	/* INSUFFICIENT REGISTRATION RESOURCES */
	[12] = { 0, 0, 0, KT_SAM_BUSY },
	[13] = CC(MEDIUM_ERROR, 0x11, 0x00),	/* UNRECOVERED READ ERROR */
	[14] = CC(MEDIUM_ERROR, 0x0c, 0x00),	/* WRITE ERROR */
	[15] = CC(HARDWARE_ERROR, 0x08, 0x00),	/* LOGICAL UNIT COMMUNICATION FAILURE */
	[16] = CC(ILLEGAL_REQUEST, 0x24, 0x00),
	[17] = CC(ABORTED_COMMAND, 0x00, 0x00),
	[18] = CC(ILLEGAL_REQUEST, 0x24, 0x00),
	[19] = CC(ILLEGAL_REQUEST, 0x0d, 0x02),	/* COPY TARGET DEVICE NOT REACHABLE */
	[20] = CC(ILLEGAL_REQUEST, 0x26, 0x06),	/* TOO MANY TARGET DESCRIPTORS */
	[21] = CC(ILLEGAL_REQUEST, 0x26, 0x07),	/* UNSUPPORTED TARGET DESCRIPTOR TYPE CODE */
	[22] = CC(ILLEGAL_REQUEST, 0x26, 0x08),	/* TOO MANY SEGMENT DESCRIPTORS */
	[23] = CC(ILLEGAL_REQUEST, 0x26, 0x09),	/* UNSUPPORTED SEGMENT DESCRIPTOR TYPE CODE */
	[24] = CC(COPY_ABORTED, 0x0d, 0x01),	/* THIRD PARTY DEVICE FAILURE */
	[25] = CC(ILLEGAL_REQUEST, 0x39, 0x00),	/* SAVING PARAMETERS NOT SUPPORTED */
	[26] = CC(NOT_READY, 0x04, 0x00),	/* LOGICAL UNIT NOT READY */
	[27] = CC(ILLEGAL_REQUEST, 0x0e, 0x03),	/* INVALID FIELD IN COMMAND INFORMATION UNIT */
	[28] = CC(ABORTED_COMMAND, 0x4e, 0x00),	/* OVERLAPPED COMMANDS ATTEMPTED */
	[29] = CC(ILLEGAL_REQUEST, 0x26, 0x04),	/* INVALID RELEASE OF PERSISTENT RESERVATION */
	[30] = CC(ABORTED_COMMAND, 0x47, 0x05),	/* PROTOCOL SERVICE CRC ERROR */
	[31] = CC(NOT_READY, 0x04, 0x1b),	/* SANITIZE IN PROGRESS */
	[32] = CC(MEDIUM_ERROR, 0x31, 0x03),	/* SANITIZE COMMAND FAILED */
	[33] = { 0, 0, 0, KT_SAM_TASK_SET_FULL },
	[34] = CC(DATA_PROTECT, 0x27, 0x07),	/* SPACE ALLOCATION FAILED WRITE PROTECT */
};

#undef CC

static const struct kt_sense_entry *kt_sense_entry(sense_reason_t reason)
{
	unsigned int r = (__force unsigned int)reason;

	/* an unknown reason is a bug in the caller: report a hardware error */
	if (r > KT_SENSE_MAX)
		r = (__force unsigned int)KT_SENSE_LU_COMM_FAILURE;
	return &kt_sense_table[r];
}

u8 kt_sense_status(sense_reason_t reason)
{
	return kt_sense_entry(reason)->status;
}

void kt_sense_lookup(sense_reason_t reason, u8 *key, u8 *asc, u8 *ascq)
{
	const struct kt_sense_entry *e = kt_sense_entry(reason);

	*key = e->key;
	*asc = e->asc;
	*ascq = e->ascq;
}

unsigned int kt_sense_build(sense_reason_t reason, u16 asc_ascq,
			    const struct kt_sense_field *field,
			    u64 info, bool info_valid, u8 *buf)
{
	const struct kt_sense_entry *e = kt_sense_entry(reason);

	if (e->status != KT_SAM_CHECK_CONDITION)
		return 0;

	memset(buf, 0, KT_SENSE_BUF_LEN);
	/* SPC-4 4.5.3, table 27: current error, fixed format */
	buf[0] = 0x70;
	buf[2] = e->key;
	if (info_valid && info <= 0xffffffff) {
		buf[0] |= 0x80;		/* VALID: INFORMATION holds an LBA */
		put_unaligned_be32((u32)info, &buf[3]);
	}
	buf[7] = KT_SENSE_BUF_LEN - 8;
	if (asc_ascq) {
		buf[12] = asc_ascq >> 8;
		buf[13] = asc_ascq & 0xff;
	} else {
		buf[12] = e->asc;
		buf[13] = e->ascq;
	}
	/* SPC-4 4.5.2.4.2, table 32: field pointer */
	if (field && field->valid) {
		buf[15] = 0x80;		/* SKSV */
		if (field->in_cdb)
			buf[15] |= 0x40;
		if (field->bit_valid)
			buf[15] |= 0x08 | (field->bit & 0x7);
		put_unaligned_be16(field->byte, &buf[16]);
	}
	return KT_SENSE_BUF_LEN;
}

void kt_sense_set_asc(u8 *buf, u16 asc_ascq)
{
	buf[12] = asc_ascq >> 8;
	buf[13] = asc_ascq & 0xff;
}

void kt_sense_set_csi(u8 *buf, u32 csi)
{
	put_unaligned_be32(csi, &buf[8]);
}

void kt_sense_set_progress(u8 *buf, u16 progress)
{
	buf[15] = 0x80;				/* SKSV */
	put_unaligned_be16(progress, &buf[16]);
}
