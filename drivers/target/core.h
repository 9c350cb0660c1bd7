/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ktarget_core: declarations shared between the files of the core module.
 */
#ifndef KTARGET_CORE_H
#define KTARGET_CORE_H

#include <linux/configfs.h>

#include <ktarget/target.h>
#include <ktarget/proto/sense.h>

#include "dev_state.h"
#include "lun.h"

struct kt_dev;
struct kt_cmd;
struct kt_backend_ops;
struct scatterlist;
struct seq_file;
struct dentry;

#include <ktarget/version.h>
#define KT_DBROOT_DEFAULT	"/var/target"
#define KT_DBROOT_MAX		4096

/* objects.c: the core's live counts (include/ktarget/objects.h) */
struct kt_obj_count;
struct kt_lun;
extern struct kt_obj_count kt_obj_sessions;
extern struct kt_obj_count kt_obj_lun_refs;
int kt_objects_init(void);
void kt_objects_exit(void);
void kt_cmd_debugfs_init(struct dentry *root);

/* A LUN's in-flight references, counted in kt_obj_lun_refs. */
bool kt_lun_tryget(struct kt_lun *lun);
void kt_lun_get(struct kt_lun *lun);
void kt_lun_put(struct kt_lun *lun);

/* main.c: the directory of the state kept across restarts */
void kt_dbroot_get(char *buf, size_t size);
void kt_dbroot_set(const char *dir);

/* backstore.c */
const struct kt_backend_ops *kt_backend_get(const char *name);
void kt_backend_abort(struct kt_cmd *cmd);
bool kt_backend_may_not_answer(const struct kt_dev *dev);
bool kt_backend_lun_unlinking(struct kt_dev *dev, const struct kt_lun *lun);

/* fabric.c */
struct kt_fabric *kt_fabric_get(const char *name);

/* dev_state.c */
int kt_dev_init(struct kt_dev *dev, const struct kt_backend_ops *ops);
int kt_dev_enable(struct kt_dev *dev);
void kt_dev_release(struct kt_dev *dev);
void kt_dev_export(struct kt_dev *dev);
void kt_dev_unexport(struct kt_dev *dev);
struct kt_session;
bool kt_dev_size_sync(struct kt_dev *dev, enum kt_ua_scope scope,
		      const struct kt_session *sess);

/* session.c */
struct kt_node_acl;
struct kt_tpg;
struct kt_session;
struct kt_lun;
void kt_acl_init(struct kt_node_acl *acl, struct kt_tpg *tpg, const char *name);
struct kt_lun *kt_session_get_lun(struct kt_session *sess, u64 unpacked_lun,
				  bool *wp);
u64 *kt_session_list_luns(struct kt_session *sess, unsigned int *nr);
/* @fn on every registered session, of every TPG, under a spinlock */
typedef void (*kt_session_fn)(struct kt_session *sess, void *arg);
void kt_session_walk(kt_session_fn fn, void *arg);

/* dispatch.c: which family takes the command on */
struct kt_cdb;
enum kt_data_dir;
sense_reason_t kt_exec_parse(struct kt_cmd *cmd, const struct kt_cdb *c,
			     u32 *needed, enum kt_data_dir *dir);
bool kt_passthrough_takes(const u8 *cdb, unsigned int len);
sense_reason_t kt_passthrough_setup(struct kt_cmd *cmd, unsigned int cdb_len);

/* cmd.c, tmr.c */
bool kt_cmd_claim(struct kt_cmd *cmd, int bit);
void kt_cmd_execute(struct kt_cmd *cmd);
sense_reason_t kt_cmd_loaded_checks(struct kt_cmd *cmd);
void kt_cmd_complete_data(struct kt_cmd *cmd, const void *buf, u32 len);

/* cmd_hop.c: direct or through the core's workqueue (submit_type, ...) */
void kt_cmd_submit(struct kt_cmd *cmd);
void kt_cmd_be_complete(struct kt_cmd *cmd, sense_reason_t reason);
int kt_cmd_hop_init(void);
void kt_cmd_hop_exit(void);
struct kt_tmr;
void kt_tmr_task_done(struct kt_tmr *tmr);
struct kt_pr_nexus;
struct kt_pr_abort;
struct kt_pr_abort *kt_tmr_preempt_alloc(struct kt_cmd *pr);
void kt_tmr_preempt_abort(struct kt_pr_abort *pa,
			  const struct kt_pr_nexus *gone, unsigned int nr_gone,
			  sense_reason_t answer);
void kt_tmr_preempt_abort_dev(struct kt_dev *dev,
			      const struct kt_pr_nexus *gone,
			      unsigned int nr_gone, struct kt_cmd *spare,
			      atomic_t *aborting);

/* data_limit.c: target/data_buffer_limit_mb */
int kt_data_limit_init(void);
void kt_data_limit_exit(void);
int kt_data_share_get(struct kt_session *sess);
void kt_data_share_put(struct kt_session *sess);
bool kt_data_limit_try_charge(struct kt_session *sess, unsigned int pages);
void kt_data_limit_charge(struct kt_session *sess, unsigned int pages);
void kt_data_limit_uncharge(struct kt_session *sess, unsigned int pages);
unsigned long kt_data_limit_mb(void);
int kt_data_limit_set_mb(unsigned long mb);

/* sgl_cache.c */
unsigned int kt_sgl_shape(struct scatterlist *sgl, unsigned int cap, u32 len);
void kt_sgl_free(struct scatterlist *sgl, unsigned int cap);
void kt_sgl_cache_init(struct kt_session *sess);
void kt_sgl_cache_exit(struct kt_session *sess);
struct scatterlist *kt_sgl_cache_get(struct kt_session *sess, u32 len,
				     unsigned int *nents, unsigned int *cap);
void kt_sgl_cache_put(struct kt_session *sess, struct scatterlist *sgl,
		      unsigned int cap);

/* ua.c */
void kt_ua_dev_init(struct kt_dev *dev);
void kt_ua_session_init(struct kt_session *sess);
void kt_ua_session_exit(struct kt_session *sess);
void kt_ua_raise(struct kt_dev *dev, u16 asc_ascq, enum kt_ua_scope scope,
		 const struct kt_session *sess);
void kt_ua_raise_nexus(struct kt_dev *dev, u16 asc_ascq,
		       enum kt_ua_scope scope, u64 nexus, u16 port);
u64 kt_nexus_key(const char *name, const u8 *isid);
void kt_ua_luns_changed(struct kt_tpg *tpg);
u16 kt_ua_take(struct kt_cmd *cmd);
sense_reason_t kt_ua_check(struct kt_cmd *cmd);

/* cmd.c: the core's own commands, which no fabric carries */
void kt_cmd_init_internal(struct kt_cmd *cmd, struct kt_session *sess,
			  u64 tag, enum kt_data_dir dir);

/* pi.c */
void kt_pi_dev_init(struct kt_dev *dev);
/*
 * The protection type @cmd's initiator sees: its LU's own, or else (not
 * on a CD/DVD LU) the one its session's fabric shows on LUs without PI
 * (kt_session.prot_type), whose tuples the core makes and drops.
 */
u8 kt_cmd_pi_type(const struct kt_cmd *cmd);
/* ... and that one is only the fabric's: the LU keeps no PI */
bool kt_cmd_pi_fabric_only(const struct kt_cmd *cmd);
/*
 * A read of a LU whose PI is only the fabric's: the tuples of the first
 * @len bytes of cmd->sgl, made into cmd->prot_sgl. Any context.
 */
sense_reason_t kt_pi_insert(struct kt_cmd *cmd, u32 len);

/*
 * pi_wire.c: RDPROTECT / WRPROTECT over a fabric that interleaves the PI
 * with the data (kt_fabric_ops.pi_interleaved). kt_pi_wire_split() gives
 * the command a data list and a PI list of its own for its @nr blocks (a
 * write's taken apart from the fabric's buffer); kt_pi_wire_join() puts
 * the fabric's buffer back (a read's filled from them first) and frees
 * them: before the command completes, whatever its outcome. Both from
 * process context.
 */
sense_reason_t kt_pi_wire_split(struct kt_cmd *cmd, u32 nr, bool write);
sense_reason_t kt_pi_wire_join(struct kt_cmd *cmd, bool read);

/* task_set.c */
int kt_task_set_init(void);
void kt_task_set_exit(void);
int kt_task_set_dev_init(struct kt_dev *dev);
void kt_task_set_dev_exit(struct kt_dev *dev);
void kt_task_set_enter(struct kt_cmd *cmd);
bool kt_task_set_may_run(struct kt_cmd *cmd);
void kt_task_set_leave(struct kt_cmd *cmd);
void kt_task_set_abort(struct kt_cmd *cmd);
void kt_task_set_show(struct seq_file *m, struct kt_cmd *cmd);

/* be_io.c: every data op of a backstore, and the gate FORMAT UNIT closes */
int kt_be_io_dev_init(struct kt_dev *dev);
void kt_be_io_dev_exit(struct kt_dev *dev);
void kt_be_io_close(struct kt_dev *dev);
void kt_be_io_open(struct kt_dev *dev);
void kt_be_io_new_gen(struct kt_dev *dev);
void kt_cmd_setup_fmt_gen(struct kt_cmd *cmd);
void kt_be_io_done(struct kt_cmd *cmd);
/* scsi/format.c: a LUN reset or a LUN's removal stops a running format */
void kt_format_stop(struct kt_dev *dev, const struct kt_lun *lun);
void kt_be_rw(struct kt_cmd *cmd, bool write, u64 pos, u32 len, bool fua);
void kt_be_flush(struct kt_cmd *cmd);
sense_reason_t kt_be_write_zeroes(struct kt_dev *dev, struct kt_cmd *cmd,
				  u64 pos, u64 len);
s64 kt_be_copy_range(struct kt_dev *dst, u64 dst_pos, struct kt_dev *src,
		     u64 src_pos, u64 len);

#endif /* KTARGET_CORE_H */
