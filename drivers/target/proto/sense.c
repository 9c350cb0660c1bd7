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
/* the table's index is the reason itself */
#define AT(name) \
	[(__force unsigned int)KT_SENSE_##name]

static const struct kt_sense_entry kt_sense_table[KT_SENSE_MAX + 1] = {
	AT(NONE) = { 0, 0, 0, KT_SAM_GOOD },
	/* INVALID COMMAND OPERATION CODE */
	AT(INVALID_OPCODE) = CC(ILLEGAL_REQUEST, 0x20, 0x00),
	/* INVALID FIELD IN CDB */
	AT(INVALID_CDB_FIELD) = CC(ILLEGAL_REQUEST, 0x24, 0x00),
	/* INVALID FIELD IN PARAMETER LIST */
	AT(INVALID_PARAM_FIELD) = CC(ILLEGAL_REQUEST, 0x26, 0x00),
	/* PARAMETER LIST LENGTH ERROR */
	AT(PARAM_LIST_LENGTH) = CC(ILLEGAL_REQUEST, 0x1a, 0x00),
	/* LBA OUT OF RANGE */
	AT(LBA_OUT_OF_RANGE) = CC(ILLEGAL_REQUEST, 0x21, 0x00),
	/* LOGICAL UNIT NOT SUPPORTED */
	AT(LUN_NOT_SUPPORTED) = CC(ILLEGAL_REQUEST, 0x25, 0x00),
	/* WRITE PROTECTED */
	AT(WRITE_PROTECTED) = CC(DATA_PROTECT, 0x27, 0x00),
	/* MISCOMPARE DURING VERIFY OPERATION */
	AT(MISCOMPARE) = CC(MISCOMPARE, 0x1d, 0x00),
	/* asc/ascq supplied by the caller */
	AT(UNIT_ATTENTION) = CC(UNIT_ATTENTION, 0x29, 0x00),
	AT(RESERVATION_CONFLICT) = { 0, 0, 0, KT_SAM_RESERVATION_CONFLICT },
	/* INSUFFICIENT REGISTRATION RESOURCES */
	AT(INSUFFICIENT_REG_RESOURCES) = CC(ILLEGAL_REQUEST, 0x55, 0x04),
	AT(OUT_OF_RESOURCES) = { 0, 0, 0, KT_SAM_BUSY },
	/* UNRECOVERED READ ERROR */
	AT(MEDIUM_ERROR) = CC(MEDIUM_ERROR, 0x11, 0x00),
	/* WRITE ERROR */
	AT(WRITE_ERROR) = CC(MEDIUM_ERROR, 0x0c, 0x00),
	/* LOGICAL UNIT COMMUNICATION FAILURE */
	AT(LU_COMM_FAILURE) = CC(HARDWARE_ERROR, 0x08, 0x00),
	AT(CDB_TOO_LONG) = CC(ILLEGAL_REQUEST, 0x24, 0x00),
	AT(ABORTED_COMMAND) = CC(ABORTED_COMMAND, 0x00, 0x00),
	AT(INCORRECT_LENGTH) = CC(ILLEGAL_REQUEST, 0x24, 0x00),
	/* COPY TARGET DEVICE NOT REACHABLE */
	AT(COPY_TARGET_NOT_REACHABLE) = CC(ILLEGAL_REQUEST, 0x0d, 0x02),
	/* TOO MANY TARGET DESCRIPTORS */
	AT(TOO_MANY_TARGET_DESC) = CC(ILLEGAL_REQUEST, 0x26, 0x06),
	/* UNSUPPORTED TARGET DESCRIPTOR TYPE CODE */
	AT(UNSUPPORTED_TARGET_DESC) = CC(ILLEGAL_REQUEST, 0x26, 0x07),
	/* TOO MANY SEGMENT DESCRIPTORS */
	AT(TOO_MANY_SEGMENT_DESC) = CC(ILLEGAL_REQUEST, 0x26, 0x08),
	/* UNSUPPORTED SEGMENT DESCRIPTOR TYPE CODE */
	AT(UNSUPPORTED_SEGMENT_DESC) = CC(ILLEGAL_REQUEST, 0x26, 0x09),
	/* THIRD PARTY DEVICE FAILURE */
	AT(COPY_ABORTED) = CC(COPY_ABORTED, 0x0d, 0x01),
	/* SAVING PARAMETERS NOT SUPPORTED */
	AT(SAVING_PARAMS_UNSUPPORTED) = CC(ILLEGAL_REQUEST, 0x39, 0x00),
	/* LOGICAL UNIT NOT READY */
	AT(NOT_READY) = CC(NOT_READY, 0x04, 0x00),
	/* INVALID FIELD IN COMMAND INFORMATION UNIT */
	AT(INVALID_FIELD_IN_COMMAND_IU) = CC(ILLEGAL_REQUEST, 0x0e, 0x03),
	/* OVERLAPPED COMMANDS ATTEMPTED */
	AT(OVERLAPPED_COMMANDS) = CC(ABORTED_COMMAND, 0x4e, 0x00),
	/* INVALID RELEASE OF PERSISTENT RESERVATION */
	AT(INVALID_RELEASE_OF_PR) = CC(ILLEGAL_REQUEST, 0x26, 0x04),
	/* PROTOCOL SERVICE CRC ERROR */
	AT(PROTOCOL_CRC_ERROR) = CC(ABORTED_COMMAND, 0x47, 0x05),
	/* SANITIZE IN PROGRESS */
	AT(SANITIZE_IN_PROGRESS) = CC(NOT_READY, 0x04, 0x1b),
	/* SANITIZE COMMAND FAILED */
	AT(SANITIZE_FAILED) = CC(MEDIUM_ERROR, 0x31, 0x03),
	AT(TASK_SET_FULL) = { 0, 0, 0, KT_SAM_TASK_SET_FULL },
	/* SPACE ALLOCATION FAILED WRITE PROTECT */
	AT(SPACE_ALLOC_FAILED) = CC(DATA_PROTECT, 0x27, 0x07),
	/* LOGICAL BLOCK GUARD CHECK FAILED */
	AT(PI_GUARD) = CC(ABORTED_COMMAND, 0x10, 0x01),
	/* LOGICAL BLOCK APPLICATION TAG CHECK FAILED */
	AT(PI_APP_TAG) = CC(ABORTED_COMMAND, 0x10, 0x02),
	/* LOGICAL BLOCK REFERENCE TAG CHECK FAILED */
	AT(PI_REF_TAG) = CC(ABORTED_COMMAND, 0x10, 0x03),
	/* LOGICAL UNIT NOT READY, FORMAT IN PROGRESS */
	AT(FORMAT_IN_PROGRESS) = CC(NOT_READY, 0x04, 0x04),
	/* FORMAT COMMAND FAILED */
	AT(FORMAT_FAILED) = CC(MEDIUM_ERROR, 0x31, 0x01),
	/* MEDIUM FORMAT CORRUPTED */
	AT(FORMAT_CORRUPTED) = CC(MEDIUM_ERROR, 0x31, 0x00),
};

#undef AT
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
