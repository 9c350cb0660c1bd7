/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The interface between ktarget_core and its backstores.
 *
 * A backstore never sees a CDB: the core decodes and range-checks commands
 * and calls a small table of operations. The exception is a passthrough
 * backstore (exec_cdb below: the user backstore, a SCSI device's), which
 * gets every command but those the core keeps for the LU as a whole.
 * Each backstore module registers its ops under the HBA prefix configfs
 * uses ("rd_mcp", "fileio", "iblock", "user"), and carries
 * MODULE_ALIAS("ktarget-backend-PREFIX") so that mkdir of core/PREFIX_N
 * loads it on demand.
 */
#ifndef KTARGET_BACKEND_H
#define KTARGET_BACKEND_H

#include <linux/module.h>

#include <ktarget/cmd.h>
#include <ktarget/target.h>
#include <ktarget/proto/pi.h>
#include <ktarget/proto/sense.h>

struct kt_backend_ops {
	const char	*name;
	struct module	*owner;

	/* A device named @name under an HBA; the backend embeds struct kt_dev. */
	struct kt_dev	*(*alloc_dev)(const char *name);
	void		(*free_dev)(struct kt_dev *dev);

	/*
	 * One "key=value" of a write to the device's control file. Unknown
	 * keys return -ENOKEY, bad values -EINVAL; the core logs them.
	 */
	int		(*set_param)(struct kt_dev *dev, const char *key,
				     const char *value);

	/*
	 * Optional: one "key=value" of control written while the device is
	 * enabled, for the keys that may change then (those that resize
	 * it: rd_pages=, fd_dev_size=). The core calls it for every key of
	 * a write with !@apply (check only, change nothing), then, if all
	 * passed, again with @apply. @exported: a LUN links the device, so
	 * it may not shrink (no exported block may vanish). Unknown keys
	 * return -ENOKEY, which the core logs; any other refusal the
	 * backend logs itself: a key fixed once enabled or a shrink of an
	 * exported device -EBUSY, a bad value -EINVAL. The core reads
	 * size() afterwards.
	 */
	int		(*set_live_param)(struct kt_dev *dev, const char *key,
					  const char *value, bool exported,
					  bool apply);

	/*
	 * enable: claim the storage and fill dev->nr_blocks and the hw_*
	 * attributes, or log one line saying why not and return -errno.
	 * disable: undo it, on release of an enabled device.
	 */
	int		(*enable)(struct kt_dev *dev);
	void		(*disable)(struct kt_dev *dev);

	/*
	 * Optional: the size of the storage now, in bytes, where it can
	 * change while the device is in use (a block device grown or
	 * shrunk, set_live_param()). The core compares it with the
	 * capacity it reports as every command arrives: it must be cheap
	 * and callable from any context.
	 */
	u64		(*size)(struct kt_dev *dev);

	/* The backend's own lines of the device's info file. */
	ssize_t		(*show_info)(struct kt_dev *dev, char *page, size_t size);

	/*
	 * Data path: move @len bytes at byte offset @pos between the device
	 * and cmd->sgl, and end with kt_be_done(), from any context.
	 * @fua: the write must be on stable storage before it completes.
	 * With cmd->be_take_pages a write may trade whole pages of cmd->sgl
	 * for order-0 pages of its own (sg_set_page()), which the core
	 * then frees or reuses.
	 */
	void		(*rw)(struct kt_cmd *cmd, bool write, u64 pos, u32 len,
			      bool fua);
	/*
	 * Optional: make completed writes stable, then kt_be_done().
	 * Called, like rw(), from the fabric's receive work: whatever waits
	 * for the disk runs elsewhere (a bio's end_io, a work item).
	 */
	void		(*flush)(struct kt_cmd *cmd);
	/*
	 * Make [pos, pos + len) read as zeroes, deallocating where the
	 * storage can (UNMAP, WRITE SAME of zeroes). Synchronous: called
	 * from a work item of the core, may sleep, returns the outcome.
	 */
	sense_reason_t	(*write_zeroes)(struct kt_dev *dev, u64 pos, u64 len);
	/*
	 * Optional, for GET LBA STATUS and SANITIZE BLOCK ERASE: whether the
	 * storage at byte @pos holds data (*@mapped) or is a hole, and for
	 * how many bytes (*@nr, 1..@len). May sleep.
	 */
	int		(*lba_status)(struct kt_dev *dev, u64 pos, u64 len,
				      u64 *nr, bool *mapped);
	/*
	 * Optional, for EXTENDED COPY: copy @len bytes at byte @src_pos of
	 * @src to byte @dst_pos of @dst, two devices of this backstore (or
	 * one) whose ranges do not overlap. Synchronous, may sleep. Returns
	 * the bytes copied; when that is fewer, or on -errno, the core moves
	 * the rest through rw().
	 */
	s64		(*copy_range)(struct kt_dev *dst, u64 dst_pos,
				      struct kt_dev *src, u64 src_pos, u64 len);
	/*
	 * copy_range() moves the data (a memory copy, not shared extents):
	 * the core calls it chunk by chunk, several chunks in flight, as it
	 * keeps READs and WRITEs. Once it copied a segment's first chunk
	 * whole, a chunk of that segment it copies short is an error.
	 */
	bool		copy_moves_data;
	/*
	 * Optional, for the soft threshold of thin provisioning: the bytes
	 * the storage has left for blocks not yet allocated (*@bytes), or
	 * -errno where it cannot tell. May sleep. A backstore that has it
	 * calls kt_lbp_written() after each completed rw() write, in process
	 * context; the core does so for write_zeroes() and copy_range().
	 */
	int		(*lbp_available)(struct kt_dev *dev, u64 *bytes);

	/*
	 * Optional: a passthrough backstore. The core keeps REPORT LUNS,
	 * PERSISTENT RESERVE IN/OUT, RESERVE/RELEASE and the ALUA REPORT /
	 * SET TARGET PORT GROUPS for itself, applies the LU's gates (unit
	 * attention, ALUA state, reservations) to everything, and hands every
	 * other command to exec_cdb(): cmd->cdb (cmd->cdb_len bytes: its
	 * group's length, 8 + ADDITIONAL CDB LENGTH for 7Fh, or what the
	 * fabric gave for the groups that have none),
	 * cmd->dir and cmd->data_length as the initiator gave them, and
	 * cmd->sgl, filled for KT_DATA_OUT. The backstore ends it with one
	 * kt_be_cdb_done() (or kt_be_done() with a sense_reason_t), from any
	 * context. Called from the fabric's context; must not sleep.
	 * Such a backstore reports its own capacity (READ CAPACITY is the
	 * device's); dev->nr_blocks is what it says it is, for the core's
	 * own uses.
	 */
	void		(*exec_cdb)(struct kt_cmd *cmd);

	/*
	 * Optional: the backstore's own files, NULL-terminated, added to the
	 * device's attrib/ after the core's, and the files of an action/
	 * directory made for the device when there are any (LIO's names:
	 * tb_dev_attrib_attrs, tb_dev_action_attrs). Their item is the
	 * device's attrib_group or action_group (kt_dev_from_attrib_item(),
	 * kt_dev_from_action_item()).
	 */
	struct configfs_attribute **attrib_attrs;
	struct configfs_attribute **action_attrs;

	/*
	 * Optional, for a backstore whose commands may wait on a peer that
	 * never answers (the user backstore's daemon). abort: @cmd was
	 * aborted (a TMF, an I_T nexus loss); if this backstore has it (it
	 * must still end it with kt_be_done() or kt_be_cdb_done()), end it
	 * at once where it has not started, within a bound of the
	 * backstore's own otherwise. Called for any victim on the device,
	 * also one the backstore does not have (yet, or any more): one
	 * still on its way into exec_cdb() has KT_CMD_ABORTED set already,
	 * which exec_cdb() must look at where abort() would look for it.
	 * lun_unlinking: @lun is being unlinked and takes no new command;
	 * the core waits for those addressed through it (cmd->lun == @lun):
	 * the same for each of them. From process context, without the
	 * core's locks; may race with the command's own end.
	 */
	void		(*abort)(struct kt_cmd *cmd);
	void		(*lun_unlinking)(struct kt_dev *dev,
					 const struct kt_lun *lun);

	/*
	 * Optional, T10-PI emulation (attrib/pi_prot_type 1 or 3): the
	 * backstore keeps KT_PI_TUPLE_LEN bytes of protection information
	 * per logical block of attrib.block_size beside the data. From the
	 * configfs write of the attribute, device enabled and unexported, or
	 * from a FORMAT UNIT once no data op of the device is in the
	 * backstore (the core's be_io.c, scsi/format.c), which a long one
	 * stops for with -EINTR when kt_format_stopping() says so; under
	 * dev->cfg_lock either way; may sleep.
	 * init_prot: make room for the PI of every block; PI it creates
	 * reads FFh (the escape: not checked, as after format_prot). PI kept
	 * from before (a <file>.protection of LIO's) is kept as it is.
	 * free_prot: let go of it (pi_prot_type back to 0; disable() lets go
	 * by itself). format_prot: every block's PI FFh.
	 * With PI on, rw() makes the PI of the blocks it writes with
	 * kt_pi_generate() before it moves the data, and checks the PI of
	 * the blocks it read with kt_pi_verify(), ending a failed check with
	 * its reason; write_zeroes() gives the blocks FFh, as SBC-4 gives
	 * unmapped blocks (4.7.4.5); copy_range() is not called.
	 */
	int		(*init_prot)(struct kt_dev *dev);
	void		(*free_prot)(struct kt_dev *dev);
	int		(*format_prot)(struct kt_dev *dev);
};

static inline struct kt_dev *kt_dev_from_attrib_item(struct config_item *item)
{
	return container_of(to_config_group(item), struct kt_dev, attrib_group);
}

static inline struct kt_dev *kt_dev_from_action_item(struct config_item *item)
{
	return container_of(to_config_group(item), struct kt_dev, action_group);
}

/*
 * A passthrough command (exec_cdb()) has ended with SAM @status and, for
 * CHECK CONDITION, @sense_len bytes of sense data at @sense (fixed or
 * descriptor format, sent as given up to KT_SENSE_MAX_LEN). A data-in
 * command that returned fewer bytes than asked calls
 * kt_cmd_set_data_in_len() first for GOOD, kt_cmd_set_data_in_valid() for
 * a CHECK CONDITION whose first bytes of data are valid all the same.
 */
void kt_be_cdb_done(struct kt_cmd *cmd, u8 status, const u8 *sense,
		    u32 sense_len);

void kt_lbp_written(struct kt_cmd *cmd, u32 bytes);

/*
 * The backstore's rw() or flush() of @cmd has ended with @reason: the
 * command goes on to the core's next step of it, or completes. From any
 * context; exactly once per rw() or flush() call.
 */
void kt_be_done(struct kt_cmd *cmd, sense_reason_t reason);

/*
 * From a backstore's init_prot / format_prot between chunks of a long
 * write: a FORMAT UNIT of @dev is to stop (a LUN reset, an abort, its LUN
 * removed); return -EINTR then. False outside a FORMAT UNIT (the core's
 * scsi/format.c).
 */
bool kt_format_stopping(struct kt_dev *dev);

/*
 * T10-PI (drivers/target/pi.c): the device's protection type now, 0 for
 * none. It changes while no LUN exports the device, or by FORMAT UNIT
 * while no data op of the device is in the backstore (the core's be_io.c).
 */
static inline u8 kt_pi_type(const struct kt_dev *dev)
{
	return READ_ONCE(dev->attrib.pi_prot_type);
}

/*
 * The PI of @nr logical blocks from @lba whose data is in cmd->sgl from
 * byte @off: kt_pi_generate() writes @nr tuples to @pi, as a write without
 * PI makes them (or those the initiator sent, with WRPROTECT); kt_pi_verify()
 * checks the @nr tuples at @pi as a read does (as RDPROTECT says, and then
 * copies them out to the initiator), and for the first that fails sets the
 * command's INFORMATION to its LBA and returns the failed check's reason.
 * From any context; they sleep not.
 */
void kt_pi_generate(struct kt_cmd *cmd, u32 off, u64 lba, u32 nr, u8 *pi);
/*
 * A command whose PI the fabric carried (cmd->prot_sgl; RDPROTECT or
 * WRPROTECT set): the tuples of the first @len bytes of data, checked
 * against the data in cmd->sgl as the field says. The core checks a
 * write's before rw(); a backstore that reads the tuples straight into
 * the fabric's list (iblock) checks a read's with it. Any context.
 */
sense_reason_t kt_pi_check_carried(struct kt_cmd *cmd, u32 len);

/*
 * A backstore that keeps data and PI apart writes a block's data and its
 * tuple in two steps: it holds the bytes [@pos, @pos + @len) of @dev
 * locked around both (shared for a read, exclusive for a write or a
 * deallocation), so that neither a write nor a read comes between them.
 * Sleeps; process context. Unlock with the same arguments.
 */
void kt_pi_range_lock(struct kt_dev *dev, u64 pos, u64 len, bool write);
void kt_pi_range_unlock(struct kt_dev *dev, u64 pos, u64 len, bool write);
sense_reason_t kt_pi_verify(struct kt_cmd *cmd, u32 off, u64 lba, u32 nr,
			    const u8 *pi);

int kt_backend_register(const struct kt_backend_ops *ops);
void kt_backend_unregister(const struct kt_backend_ops *ops);

#endif /* KTARGET_BACKEND_H */
