/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A CD/DVD logical unit (peripheral device type 05h, MMC-6): its command
 * table and the pure builders of the MMC answers, built into ktarget_core
 * and into the userspace unit tests. The LU is a read-only disc with one
 * session holding one data track (mode 1) of 2048-byte blocks from LBA 0:
 * an ISO 9660 image. It reports the DVD-ROM profile when it is larger
 * than a CD can be, else the CD-ROM profile; the tray is always closed and
 * loaded.
 *
 * The builders follow proto/spc.h's contract (bounded output, the full
 * length in *@data_len, the field in error in *@field).
 *
 * References: MMC-6 (mmc6r02g): 5 (features and profiles), 6 (commands),
 * 7.8 (the MM capabilities mode page, as MMC-3 6.3.11 has it).
 */
#ifndef KTARGET_PROTO_MMC_H
#define KTARGET_PROTO_MMC_H

#include <linux/types.h>

#include <ktarget/proto/cdb.h>
#include <ktarget/proto/sense.h>
#include <ktarget/proto/spc.h>

/* MMC-6 6.x operation codes <scsi/scsi_proto.h> lacks (linux/cdrom.h's GPCMD_*) */
#define KT_MMC_GET_CONFIGURATION	0x46
#define KT_MMC_READ_DISC_INFO		0x51
#define KT_MMC_READ_TRACK_INFO		0x52
#define KT_MMC_RESERVE_TRACK		0x53
#define KT_MMC_SEND_OPC			0x54
#define KT_MMC_REPAIR_TRACK		0x58
#define KT_MMC_CLOSE_TRACK		0x5b
#define KT_MMC_SEND_CUE_SHEET		0x5d
#define KT_MMC_BLANK			0xa1
#define KT_MMC_SET_CD_SPEED		0xbb
#define KT_MMC_MECHANISM_STATUS		0xbd

#define KT_MMC_BLOCK_SIZE	2048	/* a CD's and a DVD's user data block */
/*
 * The longest CD (80 minutes, 360000 blocks, less the 2 s before track 1):
 * a longer image is a DVD
 */
#define KT_MMC_CD_MAX_BLOCKS	(80 * 60 * 75 - 150)

/* MMC-6 5.3.1: profiles */
#define KT_MMC_PROFILE_CD_ROM	0x0008
#define KT_MMC_PROFILE_DVD_ROM	0x0010

/* The commands of a CD/DVD LU, sorted as kt_cdb_descs[] */
extern const struct kt_cdb_set kt_mmc_cmds;

/* The current profile of a disc of @nr_blocks 2048-byte blocks */
u16 kt_mmc_profile(u64 nr_blocks);

/* GET CONFIGURATION (MMC-6 6.6): the feature header and descriptors */
sense_reason_t kt_mmc_get_configuration(const struct kt_lu_info *lu,
					const u8 *cdb, u8 *buf, u32 buf_len,
					u32 *data_len,
					struct kt_sense_field *field);

/* GET EVENT STATUS NOTIFICATION (MMC-6 6.7), polled: the media class */
sense_reason_t kt_mmc_event_status(const struct kt_lu_info *lu,
				   const u8 *cdb, u8 *buf, u32 buf_len,
				   u32 *data_len,
				   struct kt_sense_field *field);

/*
 * READ TOC/PMA/ATIP (MMC-6 6.26): formats 0 (TOC), 1 (session
 * information) and 2 (full TOC), in LBA or MSF form; the format may also
 * come in the CONTROL byte's vendor bits (SFF-8020, as Linux's sr sends
 * its multisession query).
 */
sense_reason_t kt_mmc_read_toc(const struct kt_lu_info *lu, const u8 *cdb,
			       u8 *buf, u32 buf_len, u32 *data_len,
			       struct kt_sense_field *field);

/* READ DISC INFORMATION (MMC-6 6.22), standard disc information */
sense_reason_t kt_mmc_disc_info(const struct kt_lu_info *lu, const u8 *cdb,
				u8 *buf, u32 buf_len, u32 *data_len,
				struct kt_sense_field *field);

/* READ TRACK INFORMATION (MMC-6 6.27) by LBA, track or session number */
sense_reason_t kt_mmc_track_info(const struct kt_lu_info *lu, const u8 *cdb,
				 u8 *buf, u32 buf_len, u32 *data_len,
				 struct kt_sense_field *field);

/* MECHANISM STATUS (MMC-6 6.10): no changer, idle, tray closed */
sense_reason_t kt_mmc_mech_status(const struct kt_lu_info *lu, const u8 *cdb,
				  u8 *buf, u32 buf_len, u32 *data_len,
				  struct kt_sense_field *field);

/*
 * MODE SENSE (6)/(10) of a CD/DVD LU: the MM Capabilities and Mechanical
 * Status page (2Ah), alone or as all pages (3Fh), with no block
 * descriptor; saved values are not kept.
 */
sense_reason_t kt_mmc_mode_sense(const struct kt_lu_info *lu, const u8 *cdb,
				 u8 *buf, u32 buf_len, u32 *data_len,
				 struct kt_sense_field *field);

#endif /* KTARGET_PROTO_MMC_H */
