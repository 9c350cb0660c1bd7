/* SPDX-License-Identifier: GPL-2.0 */
/*
 * T10 protection information (SBC-4 4.22): the 8 bytes a logical block
 * carries with PI on (LOGICAL BLOCK GUARD, the CRC-16 of the block's data;
 * LOGICAL BLOCK APPLICATION TAG; LOGICAL BLOCK REFERENCE TAG, big-endian),
 * how a device server makes them for a write without PI and checks them on
 * a read. Pure: built into ktarget_core (drivers/target/pi.c walks a
 * command's data with it) and into the userspace unit tests.
 */
#ifndef KTARGET_PROTO_PI_H
#define KTARGET_PROTO_PI_H

#include <linux/bits.h>
#include <linux/types.h>

#include <ktarget/proto/sense.h>

#define KT_PI_TUPLE_LEN		8
#define KT_PI_APP_ESCAPE	0xffff
#define KT_PI_REF_ESCAPE	0xffffffff

/* protection types (attrib/pi_prot_type; READ CAPACITY (16) P_TYPE + 1) */
#define KT_PI_TYPE1		1
#define KT_PI_TYPE3		3

/* which fields a check compares */
#define KT_PI_CHECK_GUARD	BIT(0)
#define KT_PI_CHECK_APP		BIT(1)
#define KT_PI_CHECK_REF		BIT(2)

/*
 * CRC-16 T10-DIF (polynomial 8BB7h, no reflection, initial value 0) of
 * @len bytes at @buf, going on from @crc (0 to start a block)
 */
u16 kt_pi_crc(u16 crc, const u8 *buf, size_t len);

/*
 * The tuple a write with WRPROTECT 000b gets (SBC-4 4.22.4): guard @guard,
 * application tag 0, reference tag the low 32 bits of @lba for type 1, 0
 * for type 3 (whose reference tag the application client owns).
 */
void kt_pi_tuple_make(u8 *tuple, u8 type, u16 guard, u64 lba);

/*
 * What a read with RDPROTECT 000b checks (SBC-4 table 103 and its like):
 * the guard, and the reference tag of type 1. The application tag only
 * where an expected value is known, which no CDB of 16 bytes or fewer
 * carries: never here.
 */
unsigned int kt_pi_read_checks(u8 type);

/*
 * What a command with PI transferred checks of each block's tuple, by its
 * RDPROTECT, WRPROTECT or VRPROTECT field @protect (the tables of SBC-4's
 * READ (10), WRITE (10) and VERIFY (10)): 001b and 101b the guard and the reference tag of
 * type 1, 010b that reference tag only, 011b nothing, 100b the guard only;
 * 000b as kt_pi_read_checks(). The application tag never: the LU does not
 * set ATO, so it is the application client's.
 */
unsigned int kt_pi_protect_checks(u8 type, u8 protect);

/*
 * Check @tuple of the block at @lba whose data has CRC @guard: the fields
 * in @checks, the application tag against @app under @app_mask. The escape
 * values turn every check off: application tag FFFFh for type 1,
 * application tag FFFFh with reference tag FFFFFFFFh for type 3 (SBC-4
 * 4.22.3). Returns KT_SENSE_NONE or the failed check's reason, in the
 * order guard, application tag, reference tag.
 */
sense_reason_t kt_pi_tuple_check(const u8 *tuple, u8 type, u16 guard,
				 u64 lba, unsigned int checks, u16 app,
				 u16 app_mask);

#endif /* KTARGET_PROTO_PI_H */
