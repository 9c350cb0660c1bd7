/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ktarget_iscsi: types shared by the files of the iSCSI fabric.
 */
#ifndef KTARGET_ISCSI_H
#define KTARGET_ISCSI_H

#include <linux/atomic.h>
#include <linux/configfs.h>
#include <linux/cpumask.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/net.h>
#include <linux/refcount.h>
#include <linux/socket.h>
#include <linux/spinlock.h>
#include <linux/timer.h>
#include <linux/workqueue.h>

#include <ktarget/fabric.h>
#include <ktarget/iscsi_transport.h>
#include <ktarget/version.h>
#include <ktarget/proto/iscsi_pdu.h>
#include <ktarget/proto/iscsi_text.h>

#define KT_ISCSI_RELEASE	"ktarget iSCSI " KT_VERSION
#define KT_ISCSI_AUTH_LEN	256	/* CHAP names and secrets */
#define KT_ISCSI_PARAM_LEN	256

/* tpgt_N/param/: LIO's names, in this order, LIO's defaults. */
enum kt_iscsi_param {
	KT_P_AUTH_METHOD,
	KT_P_HEADER_DIGEST,
	KT_P_DATA_DIGEST,
	KT_P_MAX_CONNECTIONS,
	KT_P_TARGET_ALIAS,
	KT_P_INITIAL_R2T,
	KT_P_IMMEDIATE_DATA,
	KT_P_MAX_RECV_DATA_SEGMENT_LENGTH,
	KT_P_MAX_XMIT_DATA_SEGMENT_LENGTH,
	KT_P_MAX_BURST_LENGTH,
	KT_P_FIRST_BURST_LENGTH,
	KT_P_DEFAULT_TIME2WAIT,
	KT_P_DEFAULT_TIME2RETAIN,
	KT_P_MAX_OUTSTANDING_R2T,
	KT_P_DATA_PDU_IN_ORDER,
	KT_P_DATA_SEQUENCE_IN_ORDER,
	KT_P_ERROR_RECOVERY_LEVEL,
	KT_P_IF_MARKER,
	KT_P_OF_MARKER,
	KT_P_IF_MARK_INT,
	KT_P_OF_MARK_INT,
	KT_P_NR
};

/* tpgt_N/attrib/ (LIO's TA_* defaults) */
struct kt_iscsi_tpg_attrib {
	u32	authentication;
	u32	login_timeout;
	u32	netif_timeout;
	u32	generate_node_acls;
	u32	cache_dynamic_acls;
	u32	default_cmdsn_depth;
	u32	demo_mode_write_protect;
	u32	prod_mode_write_protect;
	u32	demo_mode_discovery;
	u32	default_erl;
	u32	t10_pi;
	u32	fabric_prot_type;
	u32	tpg_enabled_sendtargets;
	u32	login_keys_workaround;
	u32	default_dataout_timeout;	/* ktarget's: demo-mode sessions */
};

/* LIO's default: 3 s for a Data-Out (an ACL's dataout_timeout) */
#define KT_ISCSI_DATAOUT_TIMEOUT	3

/* LIO's defaults: a ping after 15 s of silence, 30 s to answer it */
#define KT_ISCSI_NOPIN_TIMEOUT		15
#define KT_ISCSI_NOPIN_RSP_TIMEOUT	30

/* acls/INITIATOR/attrib/ (LIO's NA_* defaults) */
struct kt_iscsi_acl_attrib {
	u32	dataout_timeout;
	u32	dataout_timeout_retries;
	u32	default_erl;
	u32	nopin_timeout;
	u32	nopin_response_timeout;
	u32	random_datain_pdu_offsets;
	u32	random_datain_seq_offsets;
	u32	random_r2t_offsets;
	s32	authentication;		/* -1: as the TPG says */
	/* may the initiator reset the whole target (LIO's names) */
	u32	tmr_warm_reset;
	u32	tmr_cold_reset;
};

/*
 * CHAP credentials: userid/password prove the initiator to us, the
 * _mutual pair proves us to the initiator. Stored without the newline
 * that echo adds.
 */
struct kt_iscsi_auth {
	char	userid[KT_ISCSI_AUTH_LEN];
	char	password[KT_ISCSI_AUTH_LEN];
	char	userid_mutual[KT_ISCSI_AUTH_LEN];
	char	password_mutual[KT_ISCSI_AUTH_LEN];
};

/* target/iscsi/IQN */
struct kt_iscsi_tiqn {
	struct kt_wwn		wwn;
	struct list_head	node;		/* kt_iscsi_tiqns */
	struct list_head	tpgs;
};

/* target/iscsi/IQN/tpgt_N */
struct kt_iscsi_tpg {
	struct kt_tpg			tpg;
	struct kt_iscsi_tiqn		*tiqn;
	struct list_head		node;	/* tiqn->tpgs */
	struct kt_iscsi_tpg_attrib	attrib;
	struct kt_iscsi_auth		auth;
	char				param[KT_P_NR][KT_ISCSI_PARAM_LEN];
	struct list_head		nps;	/* kt_iscsi_tpg_np */
	atomic_t			nr_sessions;
	/* under kt_iscsi_config_lock */
	bool				closed;	/* being disabled: no new session */
	struct list_head		logins;	/* kt_iscsi_login::tpg_node */
};

/* target/iscsi/IQN/tpgt_N/acls/INITIATOR */
struct kt_iscsi_acl {
	struct kt_node_acl		acl;
	struct kt_iscsi_acl_attrib	attrib;
	struct kt_iscsi_auth		auth;
	u32				cmdsn_depth;
	u32				tag_set;
	char				tag[64];
};

struct kt_iscsi_portal;

/* target/iscsi/IQN/tpgt_N/np/ADDR:PORT */
struct kt_iscsi_tpg_np {
	struct config_group		group;
	struct kt_iscsi_tpg		*tpg;
	struct kt_iscsi_portal		*portal;
	struct list_head		node;	/* tpg->nps */
	struct sockaddr_storage		addr;
	struct mutex			iser_lock;	/* iser writes */
	bool				iser;		/* also listening for iSER */
};

/*
 * An address listened on, shared by every TPG with a network portal there
 * (portal.c); the np/ directories and the connections it accepted hold it.
 */
struct kt_iscsi_portal {
	struct list_head		node;	/* kt_iscsi_portals */
	struct sockaddr_storage		addr;
	refcount_t			ref;
	void				*tcp;	/* kt_iscsi_tcp's listener */
	/* the RDMA listener on the same address, while an np has iser=1 */
	void				*rdma;
	const struct kt_iscsi_transport	*rdma_xport;
	unsigned int			rdma_users;
};

static inline struct kt_iscsi_tpg *to_iscsi_tpg(struct kt_tpg *tpg)
{
	return container_of(tpg, struct kt_iscsi_tpg, tpg);
}

static inline struct kt_iscsi_acl *to_iscsi_acl(struct kt_node_acl *acl)
{
	return container_of(acl, struct kt_iscsi_acl, acl);
}

static inline struct kt_iscsi_tiqn *to_iscsi_tiqn(struct kt_wwn *wwn)
{
	return container_of(wwn, struct kt_iscsi_tiqn, wwn);
}

/* responses.c, tmf.c: the data-path hooks of kt_iscsi_ops */
void kt_iscsi_write_pending(struct kt_cmd *se);
void kt_iscsi_queue_data_in(struct kt_cmd *se);
void kt_iscsi_queue_status(struct kt_cmd *se);
void kt_iscsi_queue_tm_rsp(struct kt_tmr *tmr);
void kt_iscsi_release_cmd(struct kt_cmd *se);
void kt_iscsi_aborted(struct kt_cmd *se);
void kt_iscsi_abort_data_out(struct kt_cmd *se);

/*
 * main.c: kt_iscsi_ops is the fabric: its data-path and configuration
 * hooks and its attributes.
 */
extern const struct kt_fabric_ops kt_iscsi_ops;

/*
 * configfs/fabric.c, configfs/auth.c
 *
 * kt_iscsi_config_lock protects kt_iscsi_tiqns, every tiqn->tpgs and
 * tpg->nps list, and every value below target/iscsi that configfs writes:
 * tpg->attrib, tpg->param, tpg->auth, the ACLs' attrib, auth, cmdsn_depth
 * and tag, kt_iscsi_discovery_auth/enforce and kt_iscsi_allowed_cpus.
 * Readers (login, discovery) copy what they need under it. It is never
 * held while calling into portal.c or session.c.
 */
extern struct mutex kt_iscsi_config_lock;
extern struct list_head kt_iscsi_tiqns;
extern struct kt_iscsi_auth kt_iscsi_discovery_auth;
extern bool kt_iscsi_discovery_enforce;
/* target/iscsi/cpus_allowed_list; all CPUs until written */
extern struct cpumask kt_iscsi_allowed_cpus;
/*
 * The TPG tpgt_@tag of target @name, or NULL. Caller holds
 * kt_iscsi_config_lock. A TPG that is not enabled may still be being set
 * up by the core: check tpg->tpg.enabled before using its core fields.
 */
struct kt_iscsi_tpg *kt_iscsi_find_tpg(const char *name, u16 tag);
/* Parse "1.2.3.4:3260" / "[::1]:3260" into @ss; -EINVAL if malformed. */
int kt_iscsi_parse_portal(const char *name, struct sockaddr_storage *ss);

/*
 * configfs/fabric.c: the configuration hooks of kt_iscsi_ops and the
 * attributes of target/iscsi, tpgt_N, tpgt_N/attrib, acls/INITIATOR and
 * acls/INITIATOR/attrib. make_wwn takes only a valid iSCSI name; a drop
 * hook runs after configfs has released the groups below it.
 */
extern struct configfs_attribute *kt_iscsi_root_attrs[];
extern struct configfs_attribute *kt_iscsi_tpg_attrs[];
extern struct configfs_attribute *kt_iscsi_tpg_attrib_attrs[];
extern struct configfs_attribute *kt_iscsi_acl_attrs[];
extern struct configfs_attribute *kt_iscsi_acl_attrib_attrs[];
struct kt_wwn *kt_iscsi_make_wwn(const char *name);
void kt_iscsi_drop_wwn(struct kt_wwn *wwn);
struct kt_tpg *kt_iscsi_make_tpg(struct kt_wwn *wwn, u16 tag);
void kt_iscsi_drop_tpg(struct kt_tpg *se_tpg);
/* disabling ends the TPG's sessions; called without tpg->lock */
int kt_iscsi_tpg_enable(struct kt_tpg *se_tpg, bool enable);
/* a kt_iscsi_acl with the defaults, its cmdsn_depth the TPG's */
struct kt_node_acl *kt_iscsi_alloc_acl(struct kt_tpg *se_tpg);
void kt_iscsi_free_acl(struct kt_node_acl *acl);

/* configfs internals shared by configfs{,_param,_np,_auth}.c */
#define KT_ISCSI_WHERE_LEN	320
extern struct configfs_attribute *kt_iscsi_tpg_param_attrs[];
extern struct configfs_attribute *kt_iscsi_tpg_auth_attrs[];
extern struct configfs_attribute *kt_iscsi_acl_auth_attrs[];
void kt_iscsi_init_fabric_groups(struct config_group *root);
void kt_iscsi_tpg_init_params(struct kt_iscsi_tpg *tpg);
/* LIO: offer AuthMethod None or not, as attrib/authentication says */
void kt_iscsi_tpg_offer_none(struct kt_iscsi_tpg *tpg, bool offer);
struct config_group *kt_iscsi_make_np(struct kt_tpg *tpg, const char *name);
void kt_iscsi_drop_np(struct kt_tpg *tpg, struct config_group *np);
/* @item's path below target/iscsi, for log lines */
const char *kt_iscsi_cfs_path(struct config_item *item, char *buf,
			      size_t size);
/* Index of the first control character (NUL included) in @s, or -1 */
ssize_t kt_iscsi_cfs_ctrl(const char *s, size_t len);
/* How many bytes of a refused value to log */
int kt_iscsi_cfs_shown(const char *page, size_t count);
/*
 * A number written to attribute @name of @item: @min..@max without the
 * values below 32 whose bit is set in @holes. On error, one log line that
 * says @allowed, and -EINVAL.
 */
int kt_iscsi_cfs_u32(struct config_item *item, const char *name,
		     const char *page, size_t count, u32 min, u32 max,
		     u32 holes, const char *allowed, u32 *val);

/* portal.c */
struct kt_iscsi_portal *kt_iscsi_portal_get(const struct sockaddr_storage *ss);
void kt_iscsi_portal_put(struct kt_iscsi_portal *portal);
/* iser=1 / iser=0 of a network portal: share one RDMA listener */
int kt_iscsi_portal_rdma_get(struct kt_iscsi_portal *portal);
void kt_iscsi_portal_rdma_put(struct kt_iscsi_portal *portal);

/* login.c: end the logins under way to a TPG, and let no new one in */
void kt_iscsi_tpg_close_logins(struct kt_iscsi_tpg *tpg);

/* session.c: stop every session of a TPG / of an ACL */
void kt_iscsi_tpg_close_sessions(struct kt_iscsi_tpg *tpg);
void kt_iscsi_acl_close_sessions(struct kt_node_acl *acl);
ssize_t kt_iscsi_acl_info(struct kt_node_acl *acl, char *page);

#endif /* KTARGET_ISCSI_H */
