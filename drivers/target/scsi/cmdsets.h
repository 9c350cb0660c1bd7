/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ktarget_core: the SCSI command sets the core answers itself, between
 * their files (spc.c, sbc.c, mmc.c, sanitize.c, lbp_thresh.c) and the rest of the
 * core: what dispatch.c hands commands to, the LU's geometry and its
 * INQUIRY/READ CAPACITY facts (struct kt_lu_info), SANITIZE's gates and the
 * thin-provisioning soft threshold. May call the engine (core.h), pr/
 * (reservations), alua/ and copy/.
 */
#ifndef KTARGET_CORE_CMDSETS_H
#define KTARGET_CORE_CMDSETS_H

#include <linux/types.h>

#include <ktarget/proto/sense.h>

struct kt_cdb;
struct kt_cdb_set;
struct kt_cmd;
struct kt_dev;
struct kt_lu_info;
struct kt_mode_select;
struct work_struct;
struct kt_session;
enum kt_data_dir;

/*
 * spc.c: what runs the commands the core answers itself, named by
 * dispatch.c's table. A builder writes a command's data-in into @buf (@len
 * bytes, zeroed) and says in @data_len how long the whole answer is;
 * kt_spc_run_builder() runs it with a buffer of at most @max bytes (64 KiB
 * if 0) and completes the command.
 */
typedef sense_reason_t (*kt_builder_t)(struct kt_cmd *cmd,
				       const struct kt_lu_info *lu,
				       u8 *buf, u32 len, u32 *data_len);
void kt_spc_run_builder(struct kt_cmd *cmd, kt_builder_t fn, u32 max);
sense_reason_t kt_spc_build_inquiry(struct kt_cmd *cmd,
				    const struct kt_lu_info *lu, u8 *buf,
				    u32 len, u32 *data_len);
sense_reason_t kt_spc_build_report_luns(struct kt_cmd *cmd,
					const struct kt_lu_info *lu, u8 *buf,
					u32 len, u32 *data_len);
sense_reason_t kt_spc_build_mode_sense(struct kt_cmd *cmd,
				       const struct kt_lu_info *lu, u8 *buf,
				       u32 len, u32 *data_len);
sense_reason_t kt_spc_build_rsoc(struct kt_cmd *cmd,
				 const struct kt_lu_info *lu, u8 *buf,
				 u32 len, u32 *data_len);
sense_reason_t kt_spc_build_rstmf(struct kt_cmd *cmd,
				  const struct kt_lu_info *lu, u8 *buf,
				  u32 len, u32 *data_len);
sense_reason_t kt_spc_build_report_id_info(struct kt_cmd *cmd,
					   const struct kt_lu_info *lu, u8 *buf,
					   u32 len, u32 *data_len);
sense_reason_t kt_spc_build_request_sense(struct kt_cmd *cmd,
					  const struct kt_lu_info *lu, u8 *buf,
					  u32 len, u32 *data_len);
sense_reason_t kt_spc_build_read_defect(struct kt_cmd *cmd,
					const struct kt_lu_info *lu, u8 *buf,
					u32 len, u32 *data_len);
sense_reason_t kt_spc_build_get_lba_status(struct kt_cmd *cmd,
					   const struct kt_lu_info *lu, u8 *buf,
					   u32 len, u32 *data_len);
void kt_spc_execute_good(struct kt_cmd *cmd);
void kt_spc_execute_mode_select(struct kt_cmd *cmd);
void kt_spc_execute_read_capacity(struct kt_cmd *cmd);

/* sbc.c: the parsers dispatch.c calls */
sense_reason_t kt_sbc_check_protect(struct kt_cmd *cmd, const struct kt_cdb *c);
sense_reason_t kt_sbc_parse_rw(struct kt_cmd *cmd, const struct kt_cdb *c,
			       u32 *needed, enum kt_data_dir *dir);
sense_reason_t kt_sbc_parse_write_atomic(struct kt_cmd *cmd,
					 const struct kt_cdb *c, u32 *needed,
					 enum kt_data_dir *dir);
sense_reason_t kt_sbc_parse_verify(struct kt_cmd *cmd, const struct kt_cdb *c,
				   u32 *needed, enum kt_data_dir *dir);
sense_reason_t kt_sbc_parse_caw(struct kt_cmd *cmd, const struct kt_cdb *c,
				u32 *needed, enum kt_data_dir *dir);
sense_reason_t kt_sbc_parse_orwrite(struct kt_cmd *cmd, const struct kt_cdb *c,
				    u32 *needed, enum kt_data_dir *dir);
sense_reason_t kt_sbc_parse_pre_fetch(struct kt_cmd *cmd,
				      const struct kt_cdb *c, u32 *needed,
				      enum kt_data_dir *dir);
sense_reason_t kt_sbc_parse_sync(struct kt_cmd *cmd, const struct kt_cdb *c,
				 u32 *needed, enum kt_data_dir *dir);
sense_reason_t kt_sbc_parse_write_same(struct kt_cmd *cmd,
				       const struct kt_cdb *c, u32 *needed,
				       enum kt_data_dir *dir);
sense_reason_t kt_sbc_parse_unmap(struct kt_cmd *cmd, const struct kt_cdb *c,
				  u32 *needed, enum kt_data_dir *dir);

/* sbc.c, spc.c: the LU's geometry and what INQUIRY and READ CAPACITY say */
u64 kt_dev_nr_lblocks(struct kt_dev *dev);
u32 kt_dev_max_xfer_blocks(const struct kt_dev *dev);
bool kt_dev_capacity_check(struct kt_cmd *cmd, bool self);
void kt_lu_info_fill(struct kt_cmd *cmd, struct kt_lu_info *lu);
/* sbc.c: the workqueue of the multi-step block commands */
int kt_sbc_init(void);
void kt_sbc_exit(void);

/*
 * mmc.c: a CD/DVD LU (attrib/emulate_cdrom): the command set of @dev's
 * type, what INQUIRY says of it, and what runs its own commands
 */
const struct kt_cdb_set *kt_dev_cdb_set(const struct kt_dev *dev);
void kt_mmc_lu_info(const struct kt_dev *dev, struct kt_lu_info *lu);
sense_reason_t kt_mmc_parse_read_only(struct kt_cmd *cmd,
				      const struct kt_cdb *c, u32 *needed,
				      enum kt_data_dir *dir);
sense_reason_t kt_mmc_build_mode_sense(struct kt_cmd *cmd,
				       const struct kt_lu_info *lu, u8 *buf,
				       u32 len, u32 *data_len);
sense_reason_t kt_mmc_build_get_config(struct kt_cmd *cmd,
				       const struct kt_lu_info *lu, u8 *buf,
				       u32 len, u32 *data_len);
sense_reason_t kt_mmc_build_event(struct kt_cmd *cmd,
				  const struct kt_lu_info *lu, u8 *buf,
				  u32 len, u32 *data_len);
sense_reason_t kt_mmc_build_read_toc(struct kt_cmd *cmd,
				     const struct kt_lu_info *lu, u8 *buf,
				     u32 len, u32 *data_len);
sense_reason_t kt_mmc_build_disc_info(struct kt_cmd *cmd,
				      const struct kt_lu_info *lu, u8 *buf,
				      u32 len, u32 *data_len);
sense_reason_t kt_mmc_build_track_info(struct kt_cmd *cmd,
				       const struct kt_lu_info *lu, u8 *buf,
				       u32 len, u32 *data_len);
sense_reason_t kt_mmc_build_mech_status(struct kt_cmd *cmd,
					const struct kt_lu_info *lu, u8 *buf,
					u32 len, u32 *data_len);

/* sanitize.c */
int kt_sanitize_init(void);
void kt_sanitize_exit(void);
void kt_sanitize_dev_init(struct kt_dev *dev);
sense_reason_t kt_sanitize_check(struct kt_cmd *cmd);
sense_reason_t kt_sanitize_medium_check(struct kt_cmd *cmd);
sense_reason_t kt_sanitize_progress(struct kt_dev *dev, u16 *progress,
				    bool *has_progress);
sense_reason_t kt_sanitize_parse(struct kt_cmd *cmd, const struct kt_cdb *c,
				 u32 *needed, enum kt_data_dir *dir);
sense_reason_t kt_sanitize_slot_start(struct kt_dev *dev, int state,
				      u64 total);
void kt_sanitize_slot_end(struct kt_dev *dev, bool failed);
void kt_sanitize_queue(struct work_struct *work);

/* format.c: FORMAT UNIT, the LU's protection type */
sense_reason_t kt_format_parse(struct kt_cmd *cmd, const struct kt_cdb *c,
			       u32 *needed, enum kt_data_dir *dir);

/* lbp_thresh.c: the soft threshold of logical block provisioning */
void kt_lbp_thresh_dev_init(struct kt_dev *dev);
void kt_lbp_thresh_enable(struct kt_dev *dev);
void kt_lbp_thresh_lu_info(struct kt_dev *dev, struct kt_lu_info *lu);
void kt_lbp_thresh_select(struct kt_cmd *cmd, const struct kt_mode_select *sel);
void kt_lbp_consumed(struct kt_dev *dev, struct kt_session *sess, u64 bytes);
void kt_lbp_resample(struct kt_dev *dev, struct kt_session *sess);

#endif /* KTARGET_CORE_CMDSETS_H */
