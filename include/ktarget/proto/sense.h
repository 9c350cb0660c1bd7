/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SCSI outcomes and sense data. A command fails with one sense_reason_t
 * (plus, for field errors, a field pointer); kt_sense_build() turns it into
 * sense bytes, in exactly one place.
 *
 * References: SPC-4 4.5 (sense data), 4.5.2.4.2 (field pointer),
 * SPC-4 annex D (ASC/ASCQ assignments).
 */
#ifndef KTARGET_PROTO_SENSE_H
#define KTARGET_PROTO_SENSE_H

#include <linux/types.h>

typedef unsigned int __bitwise sense_reason_t;

#define KT_SR(n)	((__force sense_reason_t)(n))

/*
 * drivers/target/proto/sense.c maps each to its status and sense by name;
 * a reason without an entry fails tools/testing/unit/test_sense.c.
 */
#define KT_SENSE_NONE				KT_SR(0)
#define KT_SENSE_INVALID_OPCODE			KT_SR(1)	/* 5/20/00 */
#define KT_SENSE_INVALID_CDB_FIELD		KT_SR(2)	/* 5/24/00 */
#define KT_SENSE_INVALID_PARAM_FIELD		KT_SR(3)	/* 5/26/00 */
#define KT_SENSE_PARAM_LIST_LENGTH		KT_SR(4)	/* 5/1A/00 */
#define KT_SENSE_LBA_OUT_OF_RANGE		KT_SR(5)	/* 5/21/00 */
#define KT_SENSE_LUN_NOT_SUPPORTED		KT_SR(6)	/* 5/25/00 */
#define KT_SENSE_WRITE_PROTECTED		KT_SR(7)	/* 7/27/00 */
#define KT_SENSE_MISCOMPARE			KT_SR(8)	/* E/1D/00 */
#define KT_SENSE_UNIT_ATTENTION			KT_SR(9)	/* 6/asc/ascq given */
#define KT_SENSE_RESERVATION_CONFLICT		KT_SR(10)	/* status 0x18, no sense */
#define KT_SENSE_INSUFFICIENT_REG_RESOURCES	KT_SR(11)	/* 5/55/04 */
#define KT_SENSE_OUT_OF_RESOURCES		KT_SR(12)	/* busy */
#define KT_SENSE_MEDIUM_ERROR			KT_SR(13)	/* 3/11/00 unrecovered read */
#define KT_SENSE_WRITE_ERROR			KT_SR(14)	/* 3/0C/00 */
#define KT_SENSE_LU_COMM_FAILURE		KT_SR(15)	/* 4/08/00 */
#define KT_SENSE_CDB_TOO_LONG			KT_SR(16)	/* 5/24/00, field 0 */
#define KT_SENSE_ABORTED_COMMAND		KT_SR(17)	/* B/00/00 */
#define KT_SENSE_INCORRECT_LENGTH		KT_SR(18)	/* 5/24/00 */
#define KT_SENSE_COPY_TARGET_NOT_REACHABLE	KT_SR(19)	/* 5/0D/02 */
#define KT_SENSE_TOO_MANY_TARGET_DESC		KT_SR(20)	/* 5/26/06 */
#define KT_SENSE_UNSUPPORTED_TARGET_DESC	KT_SR(21)	/* 5/26/07 */
#define KT_SENSE_TOO_MANY_SEGMENT_DESC		KT_SR(22)	/* 5/26/08 */
#define KT_SENSE_UNSUPPORTED_SEGMENT_DESC	KT_SR(23)	/* 5/26/09 */
#define KT_SENSE_COPY_ABORTED			KT_SR(24)	/* A/0D/01 */
#define KT_SENSE_SAVING_PARAMS_UNSUPPORTED	KT_SR(25)	/* 5/39/00 */
#define KT_SENSE_NOT_READY			KT_SR(26)	/* 2/04/00 */
#define KT_SENSE_INVALID_FIELD_IN_COMMAND_IU	KT_SR(27)	/* 5/0E/03 */
#define KT_SENSE_OVERLAPPED_COMMANDS		KT_SR(28)	/* B/4E/00 */
#define KT_SENSE_INVALID_RELEASE_OF_PR		KT_SR(29)	/* 5/26/04 */
#define KT_SENSE_PROTOCOL_CRC_ERROR		KT_SR(30)	/* B/47/05 */
#define KT_SENSE_SANITIZE_IN_PROGRESS		KT_SR(31)	/* 2/04/1B */
#define KT_SENSE_SANITIZE_FAILED		KT_SR(32)	/* 3/31/03 */
#define KT_SENSE_TASK_SET_FULL			KT_SR(33)	/* status 0x28, no sense */
#define KT_SENSE_SPACE_ALLOC_FAILED		KT_SR(34)	/* 7/27/07 */
/* SBC-4 4.22: a protection information check failed (B/10/01..03) */
#define KT_SENSE_PI_GUARD			KT_SR(35)	/* B/10/01 */
#define KT_SENSE_PI_APP_TAG			KT_SR(36)	/* B/10/02 */
#define KT_SENSE_PI_REF_TAG			KT_SR(37)	/* B/10/03 */
#define KT_SENSE_FORMAT_IN_PROGRESS		KT_SR(38)	/* 2/04/04 */
#define KT_SENSE_FORMAT_FAILED			KT_SR(39)	/* 3/31/01 */
#define KT_SENSE_FORMAT_CORRUPTED		KT_SR(40)	/* 3/31/00 */
#define KT_SENSE_MAX				40

/*
 * SPC-4 annex D: the ASC/ASCQ pairs the core raises by name, as the u16
 * (ASC << 8 | ASCQ) that unit attentions and NOT READY answers carry.
 */
#define KT_ASC_NOT_READY_TRANSITIONING	0x040a	/* ASYMMETRIC ACCESS STATE TRANSITION */
#define KT_ASC_NOT_READY_STANDBY	0x040b	/* TARGET PORT IN STANDBY STATE */
#define KT_ASC_NOT_READY_UNAVAILABLE	0x040c	/* TARGET PORT IN UNAVAILABLE STATE */
#define KT_ASC_STPG_FAILED		0x670a	/* SET TARGET PORT GROUPS COMMAND FAILED */
#define KT_ASC_NOT_READY_OFFLINE	0x0412	/* LOGICAL UNIT NOT READY, OFFLINE */
#define KT_ASC_POWER_ON_RESET		0x2900	/* POWER ON, RESET, OR BUS DEVICE RESET */
#define KT_ASC_BUS_DEVICE_RESET		0x2903	/* BUS DEVICE RESET FUNCTION OCCURRED */
#define KT_ASC_MODE_PARAMS_CHANGED	0x2a01	/* MODE PARAMETERS CHANGED */
#define KT_ASC_RESERVATIONS_PREEMPTED	0x2a03	/* RESERVATIONS PREEMPTED */
#define KT_ASC_RESERVATIONS_RELEASED	0x2a04	/* RESERVATIONS RELEASED */
#define KT_ASC_REGISTRATIONS_PREEMPTED	0x2a05	/* REGISTRATIONS PREEMPTED */
#define KT_ASC_ALUA_STATE_CHANGED	0x2a06	/* ASYMMETRIC ACCESS STATE CHANGED */
#define KT_ASC_CAPACITY_CHANGED		0x2a09	/* CAPACITY DATA HAS CHANGED */
#define KT_ASC_SOFT_THRESHOLD		0x3807	/* THIN PROVISIONING SOFT THRESHOLD REACHED */
#define KT_ASC_INQUIRY_CHANGED		0x3f03	/* INQUIRY DATA HAS CHANGED */
#define KT_ASC_LUNS_CHANGED		0x3f0e	/* REPORTED LUNS DATA HAS CHANGED */

/* SAM-5 5.3: status codes */
#define KT_SAM_GOOD			0x00
#define KT_SAM_CHECK_CONDITION		0x02
#define KT_SAM_CONDITION_MET		0x04
#define KT_SAM_BUSY			0x08
#define KT_SAM_RESERVATION_CONFLICT	0x18
#define KT_SAM_TASK_SET_FULL		0x28
#define KT_SAM_TASK_ABORTED		0x40

/* SPC-4 4.5.2.4.2: where in the CDB or parameter list the bad field is. */
struct kt_sense_field {
	u16	byte;
	u8	bit;		/* 0..7 */
	u8	bit_valid:1;	/* BPV */
	u8	in_cdb:1;	/* C/D: 1 = CDB, 0 = parameter data */
	u8	valid:1;	/* SKSV */
};

#define KT_FIELD_CDB(b)		((struct kt_sense_field){ .byte = (b), .in_cdb = 1, .valid = 1 })
#define KT_FIELD_CDB_BIT(b, n)	((struct kt_sense_field){ .byte = (b), .bit = (n), \
				  .bit_valid = 1, .in_cdb = 1, .valid = 1 })
#define KT_FIELD_PARAM(b)	((struct kt_sense_field){ .byte = (b), .valid = 1 })
#define KT_FIELD_PARAM_BIT(b, n) ((struct kt_sense_field){ .byte = (b), .bit = (n), \
				  .bit_valid = 1, .valid = 1 })

#define KT_SENSE_BUF_LEN	18	/* fixed format, 10 additional bytes */
/*
 * The most a command carries: a passthrough backstore's sense, kept as its
 * device server gave it (descriptor format may be longer than the core's
 * own), up to the 96 bytes of LIO's TRANSPORT_SENSE_BUFFER and the TCMU
 * ring's sense_buffer
 */
#define KT_SENSE_MAX_LEN	96

/* The SAM status a reason reports (CHECK CONDITION for most). */
u8 kt_sense_status(sense_reason_t reason);

/*
 * Fixed-format sense data (SPC-4 4.5.3) for @reason into @buf of
 * KT_SENSE_BUF_LEN bytes; @asc_ascq overrides the table for unit
 * attentions (0 otherwise). Returns the sense length, 0 when the reason
 * carries no sense data (GOOD, RESERVATION CONFLICT, BUSY).
 */
unsigned int kt_sense_build(sense_reason_t reason, u16 asc_ascq,
			    const struct kt_sense_field *field,
			    u64 info, bool info_valid, u8 *buf);

/*
 * Fields the table cannot give, set on fixed-format sense data @buf that
 * kt_sense_build() made: ASC and ASCQ (zero included) and the
 * COMMAND-SPECIFIC INFORMATION field (SPC-4 4.5.3; EXTENDED COPY puts the
 * number of the failed segment there, SPC-4 6.4).
 */
void kt_sense_set_asc(u8 *buf, u16 asc_ascq);
void kt_sense_set_csi(u8 *buf, u32 csi);
/* SPC-4 4.5.2.4.4: PROGRESS INDICATION, in 65536ths, of a NOT READY */
void kt_sense_set_progress(u8 *buf, u16 progress);

/* Sense key, ASC and ASCQ of @reason, for tests and logging. */
void kt_sense_lookup(sense_reason_t reason, u8 *key, u8 *asc, u8 *ascq);

#endif /* KTARGET_PROTO_SENSE_H */
