/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ktarget_iscsi: the state of one connection's login, shared by the login
 * state machine (login.c) and CHAP (chap.c).
 */
#ifndef KTARGET_ISCSI_LOGIN_H
#define KTARGET_ISCSI_LOGIN_H

#include "conn.h"

#define KT_CHAP_CHALLENGE_MAX	64	/* bytes; at least the digest size */
#define KT_CHAP_DIGEST_MAX	64

enum kt_chap_state {
	KT_CHAP_NONE,		/* no method chosen yet */
	KT_CHAP_WANT_A,		/* AuthMethod=CHAP: waiting for CHAP_A */
	KT_CHAP_WANT_R,		/* challenge sent: waiting for CHAP_N, CHAP_R */
	KT_CHAP_DONE,
};

/* RFC 7143 12.1.3 and RFC 1994: one CHAP exchange, both directions. */
struct kt_iscsi_chap {
	enum kt_chap_state	state;
	bool			method_none;	/* AuthMethod=None agreed */
	bool			no_method;	/* AuthMethod answered Reject */
	bool			done;		/* the initiator proved itself */
	u8			alg;		/* CHAP_A: 5 MD5, 6 SHA1, 7 SHA-256, 8 SHA3-256 */
	u8			id;
	u8			challenge[KT_CHAP_CHALLENGE_MAX];
	u8			challenge_len;
	/* what the initiator sent in this request */
	char			a[256];
	char			n[KT_ISCSI_AUTH_LEN];
	char			r[2 + 2 * KT_CHAP_DIGEST_MAX + 1];
	char			i[8];
	char			c[KT_ISCSI_CHAP_VALUE_MAX + 1];
	bool			got_a, got_n, got_r, got_i, got_c;
};

/* How far a login is: login.c's opening comment has the transitions. */
enum kt_iscsi_login_stage {
	KT_LOGIN_FIRST,		/* no PDU yet */
	KT_LOGIN_NAMES,		/* the first request, its names not yet read */
	KT_LOGIN_SECURITY,	/* SecurityNegotiation, CSG 0 */
	KT_LOGIN_OPERATIONAL,	/* LoginOperationalNegotiation, CSG 1 */
	KT_LOGIN_FULL_FEATURE,	/* the last answer (T=1, NSG=3) sent */
};

struct kt_iscsi_login {
	enum kt_iscsi_login_stage stage;
	u8			csg;		/* the requests' CSG, as on the wire */
	bool			sent_tpgt;
	bool			sent_mrdsl;
	bool			discovery;
	bool			need_auth;
	u8			isid[6];
	u16			tsih;
	u16			cid;
	u32			itt;
	u32			cmdsn;
	/*
	 * On tpg->logins while it is set: a TPG being disabled or removed
	 * closes its logins and waits for them to end.
	 */
	struct kt_iscsi_tpg	*tpg;
	struct list_head	tpg_node;
	struct kt_iscsi_conn	*conn;
	struct kt_node_acl	*acl;		/* referenced, or NULL */
	struct kt_iscsi_nego	nego;
	u64			nego_keys;	/* BIT(id) of each key negotiated */
	struct kt_iscsi_chap	chap;
	char			initiator[KT_INITIATOR_NAME_LEN];
	char			target[KT_INITIATOR_NAME_LEN];
	/* the request, gathered over C-bit continuations */
	u8			req[KT_ISCSI_LOGIN_BUF];
	u32			req_len;
	/* the response being built */
	u8			rsp[KT_ISCSI_LOGIN_BUF];
	size_t			rsp_len;
	struct kt_iscsi_kv	kv[KT_ISCSI_MAX_KEYS];
	char			why[128];	/* a refusal's reason, for the log */
	/* an RDMA transport (iSER): the keys it forces, its receive limit */
	bool			rdma;
	u32			recv_cap;
	char			recv_dsl[12];
};

int kt_rsp_put(struct kt_iscsi_login *l, const char *key, const char *val);

/* chap.c */
bool kt_iscsi_chap_required(struct kt_iscsi_tpg *tpg, struct kt_node_acl *acl);
const char *kt_iscsi_chap_auth_method(struct kt_iscsi_login *l);
u16 kt_iscsi_chap_key(struct kt_iscsi_chap *chap, struct kt_iscsi_login *l,
		      const struct kt_iscsi_kv *kv, const char **why);
u16 kt_iscsi_chap_step(struct kt_iscsi_chap *chap, struct kt_iscsi_login *l,
		       const char **why);

#endif /* KTARGET_ISCSI_LOGIN_H */
