/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ktarget core types shared by the core, the backstores and the fabrics.
 */
#ifndef KTARGET_TARGET_H
#define KTARGET_TARGET_H

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/bits.h>
#include <linux/configfs.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/percpu-refcount.h>
#include <linux/semaphore.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/workqueue.h>

#include <ktarget/proto/sense.h>

struct kt_backend_ops;
struct kt_dev_state;

#define KT_VPD_SERIAL_LEN	254	/* SPC-4 7.8.15: unit serial number */
#define KT_PD_TEXT_ID_LEN	256	/* LIO's PD_TEXT_ID_INFO_LEN, with the NUL */

/*
 * How the core goes on with a command the fabric handed in, and with one
 * its backstore is done with (LIO's submit_type and complete_type values):
 * the fabric's default, in the caller's context, or through the core's
 * workqueue (drivers/target/cmd_hop.c).
 */
#define KT_HOP_DEFAULT		0
#define KT_HOP_DIRECT		1
#define KT_HOP_QUEUED		2
#define KT_PATH_LEN		512
#define KT_ALIAS_LEN		256

/*
 * Device attributes, under configfs .../DEV/attrib/ with LIO's names.
 * Booleans are u32 too: one show/store pair fits all.
 */
struct kt_dev_attrib {
	u32	emulate_model_alias;
	u32	emulate_dpo;
	u32	emulate_fua_write;
	u32	emulate_fua_read;
	u32	emulate_write_cache;
	u32	emulate_ua_intlck_ctrl;
	u32	emulate_tas;
	u32	emulate_tpu;
	u32	emulate_tpws;
	u32	emulate_caw;
	u32	emulate_3pc;
	u32	emulate_pr;
	u32	pi_prot_type;
	u32	hw_pi_prot_type;
	u32	pi_prot_format;
	u32	pi_prot_verify;
	u32	enforce_pr_isids;
	u32	is_nonrot;
	u32	emulate_rest_reord;
	u32	force_pr_aptpl;
	u32	hw_block_size;
	u32	block_size;
	u32	hw_max_sectors;
	u32	optimal_sectors;
	u32	hw_queue_depth;
	u32	queue_depth;
	u32	max_unmap_lba_count;
	u32	max_unmap_block_desc_count;
	u32	unmap_granularity;
	u32	unmap_granularity_alignment;
	u32	unmap_zeroes_data;
	u32	max_write_same_len;
	u32	alua_support;
	u32	pgr_support;
	/* ktarget's: token copy's DEFAULT INACTIVITY TIMEOUT, seconds */
	u32	rod_inactivity_timeout;
	/* LIO 6.10 and 7.1: KT_HOP_DEFAULT, _DIRECT or _QUEUED (cmd_hop.c) */
	u32	submit_type;
	u32	complete_type;
	/* ktarget's: 1, a read-only CD/DVD device of 2048-byte blocks (MMC) */
	u32	emulate_cdrom;
	/*
	 * LIO 6.19, read only: WRITE ATOMIC (16)'s limits in hw_block_size
	 * blocks, as the backstore found them at enable (iblock: the block
	 * device's atomic write queue limits); atomic_max_len 0, none.
	 */
	u32	atomic_max_len;
	u32	atomic_alignment;
	u32	atomic_granularity;
	u32	atomic_max_with_boundary;
	u32	atomic_max_boundary;
};

/* Identification, under .../DEV/wwn/ (SPC-4 6.6.2 standard INQUIRY data). */
struct kt_dev_wwn {
	char	vendor_id[8 + 1];
	char	product_id[16 + 1];
	char	revision[4 + 1];
	u32	company_id;		/* IEEE OUI for the NAA designator */
	char	unit_serial[KT_VPD_SERIAL_LEN + 1];
	/* SPC-4 6.32: the text REPORT IDENTIFYING INFORMATION returns */
	char	pd_text_id_info[KT_PD_TEXT_ID_LEN];
};

/* A SCSI logical unit's storage: core/HBA_N/NAME. */
struct kt_dev {
	struct config_group		group;
	struct config_group		attrib_group;
	struct config_group		wwn_group;
	struct config_group		pr_group;
	struct config_group		alua_group;
	struct config_group		stat_group;
	struct config_group		cluster_group;
	/* action/, for a backstore with action_attrs (backend.h) */
	struct config_group		action_group;
	void				*cfs_types;	/* configfs/'s own */

	const struct kt_backend_ops	*ops;
	u32				index;		/* unique among devices */
	u32				hba_index;	/* N of its HBA_N */
	struct mutex			cfg_lock;	/* configfs writes */
	bool				enabled;
	/*
	 * set by the backstore's enable: its medium is open read-only (a
	 * read-only file or mount), so every write is refused as to
	 * write-protected media (DATA PROTECT, 27/00)
	 */
	bool				read_only;
	atomic_t			export_count;	/* LUNs linked to it */
	u64				nr_blocks;	/* in hw_block_size units */
	/* the core's own: the LU's SCSI state (drivers/target/dev_state.h) */
	struct kt_dev_state		*state;

	struct kt_dev_attrib		attrib;
	struct kt_dev_wwn		wwn;
	char				udev_path[KT_PATH_LEN];
	char				alias[KT_ALIAS_LEN];
};

static inline struct kt_dev *kt_dev_from_item(struct config_item *item)
{
	return container_of(to_config_group(item), struct kt_dev, group);
}

/*
 * The length of a value written to a configfs attribute without the
 * trailing newline echo adds ("\n", "\r\n"). A NUL inside stays, for the
 * caller to refuse or to end the string at.
 */
size_t kt_cfs_value_len(const char *page, size_t count);
/*
 * A number in @min..@max written to an attribute (kstrtou32(), base 0):
 * -EINVAL for none, -ERANGE for one outside the range
 */
int kt_cfs_u32(const char *page, size_t count, u32 min, u32 max, u32 *val);

#endif /* KTARGET_TARGET_H */
