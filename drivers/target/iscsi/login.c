// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_iscsi: login (RFC 7143 6.3, 11.12, 11.13).
 *
 * One explicit state machine per connection: each Login Request is parsed
 * completely (text splitting and negotiation are the pure functions of
 * proto/iscsi_text.c), the answer is decided, and only then is one Login
 * Response sent. kt_iscsi_login_pdu() takes each PDU through its header
 * and the gathering of C-bit continuations, then the whole request through
 * the step of the login's stage (enum kt_iscsi_login_stage):
 *
 *   stage         what comes                               next stage
 *   FIRST         the first PDU: the login takes its       NAMES
 *                 ISID, TSIH, CID, CmdSN and CSG
 *   NAMES         the first whole request: InitiatorName,  SECURITY if CSG 0,
 *                 SessionType and TargetName are read,     OPERATIONAL if 1
 *                 then that stage answers the request
 *   SECURITY      T=0; or T=1 while a CHAP exchange is     SECURITY
 *                 half done, or the initiator must still
 *                 authenticate (answered T=0)
 *                 T=1, NSG=1                               OPERATIONAL
 *                 T=1, NSG=3                               FULL_FEATURE
 *   OPERATIONAL   T=0                                      OPERATIONAL
 *                 T=1, NSG=3                               FULL_FEATURE
 *   FULL_FEATURE  the session is made or joined and the    -
 *                 last answer sent: rx.c hands login no
 *                 more PDUs, and the login is freed
 *
 * The CSG of the requests (l->csg) changes only with an answered transit;
 * proto/iscsi_pdu.c lets in no CSG but 0 and 1, nor an NSG that does not
 * move forward. A PDU with C=1 is answered empty and leaves the stage as
 * it is. A normal session's first answer carries its TargetPortalGroupTag
 * (RFC 7143 13.9); the first answer in OPERATIONAL carries our
 * MaxRecvDataSegmentLength (13.12).
 *
 * In any stage a failure sends a status and closes the connection: a
 * version above 0, an ISID, TSIH, CID, CSG or CmdSN that changed (the
 * refusal, as every answer, carries the ITT of the request it answers),
 * more than 8 KiB of text, a name or key refused, CHAP failing, an
 * initiator that must authenticate asking to leave SECURITY with no
 * AuthMethod agreed, or in OPERATIONAL having skipped SECURITY (RFC 7143
 * 6.3), or no session.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "conn.h"
#include "login.h"

/* The RFC defaults (RFC 7143 13) before anything is negotiated. */
static void kt_iscsi_nego_defaults(struct kt_iscsi_nego *n)
{
	*n = (struct kt_iscsi_nego){
		.max_recv_dsl = 8192,
		.max_xmit_dsl = 8192,
		.max_burst = 262144,
		.first_burst = 65536,
		.max_r2t = 1,
		.time2wait = 2,
		.time2retain = 20,
		.initial_r2t = true,
		.immediate_data = true,
		.data_pdu_in_order = true,
		.data_seq_in_order = true,
		.max_conns = 1,
	};
}

/*
 * A new connection's login: 0, or -EBUSY when too many are in login
 * (login_limit.c). The first PDU must come within KT_ISCSI_FIRST_PDU_SECS.
 */
int kt_iscsi_login_start(struct kt_iscsi_conn *conn)
{
	struct kt_iscsi_login *l;
	int ret;

	ret = kt_iscsi_login_admit(&conn->peer);
	if (ret)
		return ret;
	l = kvzalloc(sizeof(*l), GFP_KERNEL);
	if (!l) {
		kt_iscsi_login_leave(&conn->peer);
		return -ENOMEM;
	}
	kt_obj_inc(&kt_iscsi_objs[KT_ISCSI_OBJ_LOGIN]);
	l->conn = conn;
	kt_iscsi_nego_defaults(&l->nego);
	l->rdma = conn->xport->rdma;
	l->recv_cap = conn->xport->max_recv_dsl ?: U32_MAX;
	conn->login = l;
	mod_timer(&conn->login_timer, jiffies + KT_ISCSI_FIRST_PDU_SECS * HZ);
	return 0;
}

void kt_iscsi_login_free(struct kt_iscsi_conn *conn)
{
	struct kt_iscsi_login *l = conn->login;

	if (!l)
		return;
	if (l->acl)
		kt_acl_put(l->acl);
	if (l->tpg) {
		mutex_lock(&kt_iscsi_config_lock);
		list_del(&l->tpg_node);
		mutex_unlock(&kt_iscsi_config_lock);
	}
	memzero_explicit(&l->chap, sizeof(l->chap));
	kvfree(l);
	kt_obj_dec(&kt_iscsi_objs[KT_ISCSI_OBJ_LOGIN]);
	kt_iscsi_login_leave(&conn->peer);
	conn->login = NULL;
}

int kt_rsp_put(struct kt_iscsi_login *l, const char *key, const char *val)
{
	return kt_iscsi_text_put(l->rsp, sizeof(l->rsp), &l->rsp_len, key,
				 strlen(key), val, strlen(val)) ? -ENOSPC : 0;
}

static int kt_rsp_put_u32(struct kt_iscsi_login *l, const char *key, u32 v)
{
	char buf[16];

	snprintf(buf, sizeof(buf), "%u", v);
	return kt_rsp_put(l, key, buf);
}

/* Send a Login Response with @status and the response text built so far. */
static int kt_iscsi_login_send(struct kt_iscsi_conn *conn, u16 status,
			       bool transit, u8 nsg)
{
	struct kt_iscsi_login *l = conn->login;
	struct kt_iscsi_login_rsp r = {
		.tsih = status ? 0 : l->tsih,
		.itt = l->itt,
		.statsn = conn->stat_sn++,
		.exp_cmdsn = l->cmdsn,
		.max_cmdsn = l->cmdsn,
		.data_len = status ? 0 : l->rsp_len,
		.status = status,
		.version_max = 0,
		.version_active = 0,
		.csg = l->csg,
		.nsg = transit ? nsg : 0,
		.transit = transit,
	};
	u8 bhs[KT_ISCSI_BHS_LEN];

	memcpy(r.isid, l->isid, sizeof(r.isid));
	if (kt_iscsi_encode_login_rsp(bhs, &r))
		return -EINVAL;
	return kt_iscsi_send_pdu(conn, bhs, l->rsp, r.data_len);
}

static void kt_iscsi_login_fail(struct kt_iscsi_conn *conn, u16 status,
				const char *why)
{
	struct kt_iscsi_login *l = conn->login;

	pr_warn_ratelimited("login of %s to %s refused (status %#06x): %s\n",
			    l->initiator[0] ? l->initiator : "?",
			    l->target[0] ? l->target :
			    (l->discovery ? "discovery" : "?"),
			    status, why);
	kt_iscsi_login_send(conn, status, false, 0);
	kt_iscsi_conn_close(conn);
}

/*
 * RFC 7145 6: over iSER the data moves by RDMA, so no digests and no
 * unsolicited Data-Out; a PDU's data must fit one receive buffer.
 */
static const char *kt_iscsi_mine_rdma(struct kt_iscsi_login *l,
				      unsigned int id)
{
	u32 mrdsl = 8192;

	switch (id) {
	case KT_ISCSI_KEY_RDMA_EXTENSIONS:
	case KT_ISCSI_KEY_INITIAL_R2T:
		return "Yes";
	case KT_ISCSI_KEY_HEADER_DIGEST:
	case KT_ISCSI_KEY_DATA_DIGEST:
		return "None";
	case KT_ISCSI_KEY_MAX_RECV_DATA_SEGMENT_LENGTH:
	case KT_ISCSI_KEY_TARGET_RECV_DATA_SEGMENT_LENGTH:
		if (l->tpg) {
			const char *v = l->tpg->param[KT_P_MAX_XMIT_DATA_SEGMENT_LENGTH];
			size_t bad;
			u64 n;

			/* configfs/param.c let only a valid number in */
			if (!kt_iscsi_parse_number((const u8 *)v, strlen(v),
						   U32_MAX, 0, &n, &bad))
				mrdsl = n;
		}
		snprintf(l->recv_dsl, sizeof(l->recv_dsl), "%u",
			 min(mrdsl, l->recv_cap));
		return l->recv_dsl;
	}
	return NULL;
}

/* The configured value of @key for this TPG, or NULL for the RFC default. */
static const char *kt_iscsi_mine(struct kt_iscsi_login *l, unsigned int id)
{
	static const s8 param_of[KT_ISCSI_KEY_NR] = {
		[0 ... KT_ISCSI_KEY_NR - 1] = -1,
		[KT_ISCSI_KEY_HEADER_DIGEST] = KT_P_HEADER_DIGEST,
		[KT_ISCSI_KEY_DATA_DIGEST] = KT_P_DATA_DIGEST,
		[KT_ISCSI_KEY_MAX_CONNECTIONS] = KT_P_MAX_CONNECTIONS,
		[KT_ISCSI_KEY_INITIAL_R2T] = KT_P_INITIAL_R2T,
		[KT_ISCSI_KEY_IMMEDIATE_DATA] = KT_P_IMMEDIATE_DATA,
		/*
		 * LIO declares its MaxXmitDataSegmentLength (262144) as what
		 * it receives; so do we: 8 KiB Data-Out PDUs cost a receive
		 * round each, and the data lands in the command's pages anyway
		 */
		[KT_ISCSI_KEY_MAX_RECV_DATA_SEGMENT_LENGTH] = KT_P_MAX_XMIT_DATA_SEGMENT_LENGTH,
		[KT_ISCSI_KEY_MAX_BURST_LENGTH] = KT_P_MAX_BURST_LENGTH,
		[KT_ISCSI_KEY_FIRST_BURST_LENGTH] = KT_P_FIRST_BURST_LENGTH,
		[KT_ISCSI_KEY_DEFAULT_TIME2WAIT] = KT_P_DEFAULT_TIME2WAIT,
		[KT_ISCSI_KEY_DEFAULT_TIME2RETAIN] = KT_P_DEFAULT_TIME2RETAIN,
		[KT_ISCSI_KEY_MAX_OUTSTANDING_R2T] = KT_P_MAX_OUTSTANDING_R2T,
		[KT_ISCSI_KEY_DATA_PDU_IN_ORDER] = KT_P_DATA_PDU_IN_ORDER,
		[KT_ISCSI_KEY_DATA_SEQUENCE_IN_ORDER] = KT_P_DATA_SEQUENCE_IN_ORDER,
		[KT_ISCSI_KEY_ERROR_RECOVERY_LEVEL] = KT_P_ERROR_RECOVERY_LEVEL,
		[KT_ISCSI_KEY_AUTH_METHOD] = KT_P_AUTH_METHOD,
		[KT_ISCSI_KEY_OF_MARKER] = KT_P_OF_MARKER,
		[KT_ISCSI_KEY_IF_MARKER] = KT_P_IF_MARKER,
	};

	/* what authentication, if any, this initiator must do */
	if (id == KT_ISCSI_KEY_AUTH_METHOD)
		return kt_iscsi_chap_auth_method(l);
	if (l->rdma) {
		const char *v = kt_iscsi_mine_rdma(l, id);

		if (v)
			return v;
		/* MC/S waits on the byte stream for CmdSN order: TCP only */
		if (id == KT_ISCSI_KEY_MAX_CONNECTIONS)
			return "1";
	}
	if (!l->tpg || id >= KT_ISCSI_KEY_NR || param_of[id] < 0)
		return NULL;
	/* ERL 0 is what ktarget implements, whatever is configured */
	if (id == KT_ISCSI_KEY_ERROR_RECOVERY_LEVEL)
		return "0";
	return l->tpg->param[param_of[id]];
}

static bool kt_yes(const char *v)
{
	return !strcmp(v, "Yes");
}

/*
 * A number kt_iscsi_negotiate() has accepted (or answered), read by the
 * same parser: RFC 7143 6.1 decimal or hex constants, no octal.
 */
static u32 kt_num(const char *v)
{
	size_t bad;
	u64 n;

	if (WARN_ON_ONCE(kt_iscsi_parse_number((const u8 *)v, strlen(v),
					       U32_MAX, 0, &n, &bad)))
		return 0;
	return n;
}

/*
 * The timers of full feature phase: keepalive and Data-Out timeout. NOP-In
 * pings with the ACL's timeouts; a dynamic ACL has the defaults.
 */
static void kt_iscsi_login_keepalive(struct kt_iscsi_conn *conn)
{
	struct kt_node_acl *acl = conn->sess->se.acl;
	u16 timeout = KT_ISCSI_NOPIN_TIMEOUT, rsp = KT_ISCSI_NOPIN_RSP_TIMEOUT;

	conn->dataout_timeout =
		READ_ONCE(conn->sess->tpg->attrib.default_dataout_timeout);
	/* the session holds the ACL it logged in under */
	if (acl) {
		const struct kt_iscsi_acl_attrib *a = &to_iscsi_acl(acl)->attrib;

		timeout = READ_ONCE(a->nopin_timeout);
		rsp = READ_ONCE(a->nopin_response_timeout);
		conn->dataout_timeout = READ_ONCE(a->dataout_timeout);
	}
	kt_iscsi_keepalive_start(conn, timeout, rsp);
}

/* Remember the outcome of a key for the session. */
static void kt_iscsi_nego_record(struct kt_iscsi_login *l, unsigned int id,
				 const char *v)
{
	struct kt_iscsi_nego *n = &l->nego;

	BUILD_BUG_ON(KT_ISCSI_KEY_NR > 64);
	l->nego_keys |= BIT_ULL(id);
	switch (id) {
	case KT_ISCSI_KEY_HEADER_DIGEST:
		n->header_digest = !strcmp(v, "CRC32C");
		break;
	case KT_ISCSI_KEY_DATA_DIGEST:
		n->data_digest = !strcmp(v, "CRC32C");
		break;
	case KT_ISCSI_KEY_INITIAL_R2T:
		n->initial_r2t = kt_yes(v);
		break;
	case KT_ISCSI_KEY_IMMEDIATE_DATA:
		n->immediate_data = kt_yes(v);
		break;
	case KT_ISCSI_KEY_MAX_RECV_DATA_SEGMENT_LENGTH:
	case KT_ISCSI_KEY_INITIATOR_RECV_DATA_SEGMENT_LENGTH:
		/* declarative: the initiator's receive limit is our send limit */
		n->max_xmit_dsl = clamp_t(u32, kt_num(v), 512, 16777215);
		break;
	case KT_ISCSI_KEY_TARGET_RECV_DATA_SEGMENT_LENGTH:
		n->max_recv_dsl = clamp_t(u32, kt_num(v), 512, l->recv_cap);
		break;
	case KT_ISCSI_KEY_MAX_BURST_LENGTH:
		n->max_burst = kt_num(v);
		break;
	case KT_ISCSI_KEY_MAX_CONNECTIONS:
		n->max_conns = clamp_t(u32, kt_num(v), 1, 65535);
		break;
	case KT_ISCSI_KEY_FIRST_BURST_LENGTH:
		n->first_burst = kt_num(v);
		break;
	case KT_ISCSI_KEY_MAX_OUTSTANDING_R2T:
		n->max_r2t = kt_num(v);
		break;
	case KT_ISCSI_KEY_DEFAULT_TIME2WAIT:
		n->time2wait = kt_num(v);
		break;
	case KT_ISCSI_KEY_DEFAULT_TIME2RETAIN:
		n->time2retain = kt_num(v);
		break;
	case KT_ISCSI_KEY_DATA_PDU_IN_ORDER:
		n->data_pdu_in_order = kt_yes(v);
		break;
	case KT_ISCSI_KEY_DATA_SEQUENCE_IN_ORDER:
		n->data_seq_in_order = kt_yes(v);
		break;
	case KT_ISCSI_KEY_ERROR_RECOVERY_LEVEL:
		n->erl = kt_num(v);
		break;
	case KT_ISCSI_KEY_AUTH_METHOD:
		if (!strcmp(v, "CHAP") && l->chap.state == KT_CHAP_NONE)
			l->chap.state = KT_CHAP_WANT_A;
		else if (!strcmp(v, "None"))
			l->chap.method_none = true;
		break;
	}
}

/*
 * Find the TPG of @target behind this connection's portal, and list the
 * login on it.
 */
static struct kt_iscsi_tpg *kt_iscsi_login_find_tpg(struct kt_iscsi_conn *conn,
						    const char *target)
{
	struct kt_iscsi_tiqn *tiqn;
	struct kt_iscsi_tpg *tpg, *found = NULL;
	struct kt_iscsi_tpg_np *np;

	mutex_lock(&kt_iscsi_config_lock);
	list_for_each_entry(tiqn, &kt_iscsi_tiqns, node) {
		if (strcmp(tiqn->wwn.name, target))
			continue;
		list_for_each_entry(tpg, &tiqn->tpgs, node) {
			if (!tpg->tpg.enabled || tpg->closed)
				continue;
			list_for_each_entry(np, &tpg->nps, node) {
				if (np->portal == conn->portal &&
				    (!conn->xport->rdma || np->iser)) {
					found = tpg;
					break;
				}
			}
			if (found)
				break;
		}
		break;
	}
	if (found) {
		/* listed and set together: kt_iscsi_login_free() unlists */
		conn->login->tpg = found;
		list_add_tail(&conn->login->tpg_node, &found->logins);
	}
	mutex_unlock(&kt_iscsi_config_lock);
	return found;
}

/*
 * Logins that found @tpg: from now on none makes a session on it (the
 * check in kt_iscsi_login_finish() is under the same lock); those under way
 * are closed, and gone when this returns.
 */
void kt_iscsi_tpg_close_logins(struct kt_iscsi_tpg *tpg)
{
	struct kt_iscsi_login *l;
	bool left;

	mutex_lock(&kt_iscsi_config_lock);
	tpg->closed = true;
	list_for_each_entry(l, &tpg->logins, tpg_node)
		kt_iscsi_conn_close(l->conn);
	mutex_unlock(&kt_iscsi_config_lock);
	for (;;) {
		mutex_lock(&kt_iscsi_config_lock);
		left = !list_empty(&tpg->logins);
		mutex_unlock(&kt_iscsi_config_lock);
		if (!left)
			return;
		msleep(20);
	}
}

/* The leading keys of the first request: who, to whom, what kind. */
static u16 kt_iscsi_login_names(struct kt_iscsi_conn *conn, const char **why)
{
	struct kt_iscsi_login *l = conn->login;
	struct kt_iscsi_text t;
	const char *stype = "Normal";
	char sbuf[16] = "";
	unsigned int i;

	kt_iscsi_text_init(&t, l->kv, ARRAY_SIZE(l->kv));
	if (kt_iscsi_text_split(&t, l->req, l->req_len, 0)) {
		*why = "malformed text";
		return KT_ISCSI_LOGIN_INITIATOR_ERROR;
	}
	for (i = 0; i < t.nr; i++) {
		const struct kt_iscsi_kv *kv = &l->kv[i];
		char *dst = NULL;
		size_t size = 0;

		if (kv->key_len == 13 && !memcmp(kv->key, "InitiatorName", 13)) {
			dst = l->initiator;
			size = sizeof(l->initiator);
		} else if (kv->key_len == 10 && !memcmp(kv->key, "TargetName", 10)) {
			dst = l->target;
			size = sizeof(l->target);
		} else if (kv->key_len == 11 && !memcmp(kv->key, "SessionType", 11)) {
			dst = sbuf;
			size = sizeof(sbuf);
		}
		if (!dst)
			continue;
		if (kv->value_len >= size) {
			*why = "name too long";
			return KT_ISCSI_LOGIN_INITIATOR_ERROR;
		}
		memcpy(dst, kv->value, kv->value_len);
		dst[kv->value_len] = '\0';
	}
	if (sbuf[0])
		stype = sbuf;

	if (!l->initiator[0]) {
		*why = "no InitiatorName";
		return KT_ISCSI_LOGIN_MISSING_PARAMETER;
	}
	if (!strcmp(stype, "Discovery")) {
		l->discovery = true;
		l->need_auth = kt_iscsi_discovery_enforce;
		return 0;
	}
	if (strcmp(stype, "Normal")) {
		*why = "unknown SessionType";
		return KT_ISCSI_LOGIN_SESSION_TYPE_UNSUPPORTED;
	}
	if (!l->target[0]) {
		*why = "no TargetName";
		return KT_ISCSI_LOGIN_MISSING_PARAMETER;
	}
	l->tpg = kt_iscsi_login_find_tpg(conn, l->target);
	if (!l->tpg) {
		*why = "no such target behind this portal";
		return KT_ISCSI_LOGIN_NOT_FOUND;
	}
	/* the TPG's login_timeout counts from the connection's start */
	mod_timer(&conn->login_timer, conn->login_start +
		  READ_ONCE(l->tpg->attrib.login_timeout) * HZ);
	l->acl = kt_tpg_find_acl(&l->tpg->tpg, l->initiator);
	if (!l->acl && !l->tpg->tpg.generate_node_acls) {
		*why = "no ACL for this initiator";
		return KT_ISCSI_LOGIN_AUTHZ_FAILED;
	}
	l->need_auth = kt_iscsi_chap_required(l->tpg, l->acl);
	return 0;
}

/* Answer every key of the request; 0 or a login status. */
static u16 kt_iscsi_login_keys(struct kt_iscsi_conn *conn, const char **why)
{
	struct kt_iscsi_login *l = conn->login;
	unsigned int flags, i;
	struct kt_iscsi_text t;
	char out[KT_ISCSI_PARAM_LEN];
	size_t out_len;
	u16 st;

	kt_iscsi_text_init(&t, l->kv, ARRAY_SIZE(l->kv));
	if (kt_iscsi_text_split(&t, l->req, l->req_len, 0)) {
		*why = "malformed text";
		return KT_ISCSI_LOGIN_INITIATOR_ERROR;
	}
	flags = l->csg == KT_ISCSI_STAGE_SECURITY ? KT_ISCSI_NEGO_SECURITY :
						      KT_ISCSI_NEGO_OPERATIONAL;
	if (l->discovery)
		flags |= KT_ISCSI_NEGO_F_DISCOVERY;
	/* RFC 7143 13: leading-only keys are Irrelevant on another connection */
	if (l->tsih)
		flags |= KT_ISCSI_NEGO_F_NON_LEADING;

	for (i = 0; i < t.nr; i++) {
		const struct kt_iscsi_kv *kv = &l->kv[i];
		const struct kt_iscsi_key *key;
		const char *mine = NULL;
		enum kt_iscsi_nego_status ns;

		unsigned int kflags = flags;

		key = kt_iscsi_key_find(kv->key, kv->key_len);
		if (key)
			mine = kt_iscsi_mine(l, key->id);
		/*
		 * Initiators (libiscsi among them) offer operational keys with
		 * their first, security-stage request; LIO answers them there,
		 * and so do we.
		 */
		if (key && l->csg == KT_ISCSI_STAGE_SECURITY &&
		    !(key->stages & KT_ISCSI_NEGO_SECURITY) &&
		    (key->stages & KT_ISCSI_NEGO_OPERATIONAL))
			kflags = (flags & ~KT_ISCSI_NEGO_SECURITY) |
				 KT_ISCSI_NEGO_OPERATIONAL;
		ns = kt_iscsi_negotiate(kv->key, kv->key_len, kv->value,
					kv->value_len, mine,
					mine ? strlen(mine) : 0, kflags, out,
					sizeof(out), &out_len);
		switch (ns) {
		case KT_ISCSI_NEGO_REPLY:
		case KT_ISCSI_NEGO_REPLY_OPTIONAL:
			if (key)
				kt_iscsi_nego_record(l, key->id, out);
			if (kt_iscsi_text_put(l->rsp, sizeof(l->rsp), &l->rsp_len,
					      (const char *)kv->key, kv->key_len,
					      out, out_len))
				goto nospace;
			break;
		case KT_ISCSI_NEGO_NO_REPLY:
			if (key) {
				memcpy(out, kv->value, min(kv->value_len, sizeof(out) - 1));
				out[min(kv->value_len, sizeof(out) - 1)] = '\0';
				kt_iscsi_nego_record(l, key->id, out);
			}
			break;
		case KT_ISCSI_NEGO_REJECT:
			/* no method in common: CHAP's step ends the login */
			if (key && key->id == KT_ISCSI_KEY_AUTH_METHOD)
				l->chap.no_method = true;
			fallthrough;
		case KT_ISCSI_NEGO_IRRELEVANT:
		case KT_ISCSI_NEGO_NOT_UNDERSTOOD:
			if (kt_iscsi_text_put(l->rsp, sizeof(l->rsp), &l->rsp_len,
					      (const char *)kv->key, kv->key_len,
					      out, out_len))
				goto nospace;
			break;
		case KT_ISCSI_NEGO_AUTH:
			st = kt_iscsi_chap_key(&l->chap, l, kv, why);
			if (st)
				return st;
			break;
		default:
			snprintf(l->why, sizeof(l->why),
				 "key %.*s not allowed here or a bad offer (%d)",
				 (int)min_t(size_t, kv->key_len, 64),
				 (const char *)kv->key, ns);
			*why = l->why;
			return KT_ISCSI_LOGIN_INITIATOR_ERROR;
		}
	}
	/* RFC 7143 13.14: FirstBurstLength must not exceed MaxBurstLength */
	if (l->nego.first_burst > l->nego.max_burst) {
		snprintf(l->why, sizeof(l->why),
			 "FirstBurstLength %u above MaxBurstLength %u",
			 l->nego.first_burst, l->nego.max_burst);
		*why = l->why;
		return KT_ISCSI_LOGIN_INITIATOR_ERROR;
	}
	return 0;
nospace:
	*why = "response too long";
	return KT_ISCSI_LOGIN_TARGET_ERROR;
}

/*
 * A connection joining a session runs by the session's values of the
 * leading-only keys (RFC 7143 13): it was told they are Irrelevant.
 */
static void kt_iscsi_nego_session_keys(struct kt_iscsi_login *l,
				       const struct kt_iscsi_nego *sess)
{
	l->nego.max_burst = sess->max_burst;
	l->nego.first_burst = sess->first_burst;
	l->nego.max_r2t = sess->max_r2t;
	l->nego.time2wait = sess->time2wait;
	l->nego.time2retain = sess->time2retain;
	l->nego.initial_r2t = sess->initial_r2t;
	l->nego.immediate_data = sess->immediate_data;
	l->nego.data_pdu_in_order = sess->data_pdu_in_order;
	l->nego.data_seq_in_order = sess->data_seq_in_order;
	l->nego.erl = sess->erl;
}

/*
 * A login with a TSIH joins that session: as a new connection while the
 * session has fewer than MaxConnections (MC/S), or as a connection
 * reinstatement (RFC 7143 6.3.4): same CID as the connection it replaces,
 * which is closed with its tasks (ERL < 2).
 */
static u16 kt_iscsi_login_join(struct kt_iscsi_conn *conn, const char **why)
{
	struct kt_iscsi_login *l = conn->login;
	struct kt_iscsi_conn *old = NULL, *c;
	struct kt_iscsi_sess *sess;

	sess = kt_iscsi_sess_find(l->isid, l->tsih, l->initiator,
				  l->discovery ? NULL : l->tpg);
	if (!sess) {
		*why = "no session with this ISID and TSIH";
		return KT_ISCSI_LOGIN_SESSION_DOES_NOT_EXIST;
	}
	spin_lock(&sess->lock);
	list_for_each_entry(c, &sess->conns, sess_node) {
		if (c->cid == l->cid) {
			old = c;
			kt_iscsi_conn_get(old);
			break;
		}
	}
	spin_unlock(&sess->lock);
	if (!old && READ_ONCE(sess->nr_conns) >= sess->nego.max_conns) {
		snprintf(l->why, sizeof(l->why),
			 "MaxConnections=%u: the session has them all",
			 sess->nego.max_conns);
		*why = l->why;
		kt_iscsi_sess_put(sess);
		return KT_ISCSI_LOGIN_TOO_MANY_CONNECTIONS;
	}
	kt_iscsi_nego_session_keys(l, &sess->nego);
	/* the new connection takes our reference to the session */
	if (kt_iscsi_sess_add_conn(sess, conn, old ? 0 : sess->nego.max_conns)) {
		if (old)
			kt_iscsi_conn_put(old);
		kt_iscsi_sess_put(sess);
		*why = "the session is closing or has all its connections";
		return KT_ISCSI_LOGIN_TOO_MANY_CONNECTIONS;
	}
	conn->cid = l->cid;
	if (!old) {
		pr_info("%s: connection %u joins session %#x\n", l->initiator,
			l->cid, l->tsih);
		return 0;
	}
	pr_info("%s: connection %u of session %#x reinstated\n",
		l->initiator, l->cid, l->tsih);
	/* the old connection's end is no session failure */
	WRITE_ONCE(old->logged_out, true);
	kt_iscsi_conn_close(old);
	kt_iscsi_conn_put(old);
	return 0;
}

/* The initiator moves to full feature phase: make or join the session. */
static u16 kt_iscsi_login_finish(struct kt_iscsi_conn *conn, const char **why)
{
	struct kt_iscsi_login *l = conn->login;
	struct kt_iscsi_sess *sess;
	int ret;

	if (l->tsih)
		return kt_iscsi_login_join(conn, why);
	/* the old session of this ISID ends, with its tasks, before ours */
	if (!l->discovery &&
	    !kt_iscsi_sess_reinstate(l->isid, l->initiator, l->tpg, conn)) {
		*why = "closed while the session it replaces ended";
		return KT_ISCSI_LOGIN_TARGET_ERROR;
	}

	sess = kt_iscsi_sess_create(l->discovery);
	if (!sess) {
		*why = "out of sessions";
		return KT_ISCSI_LOGIN_OUT_OF_RESOURCES;
	}
	memcpy(sess->isid, l->isid, 6);
	strscpy(sess->initiator, l->initiator, sizeof(sess->initiator));
	strscpy(sess->target, l->target, sizeof(sess->target));
	sess->nego = l->nego;
	sess->exp_cmdsn = l->cmdsn;
	sess->ready_sn = l->cmdsn;
	sess->cmdsn_depth = 64;

	if (!l->discovery) {
		/*
		 * The TPG may have been disabled since the login found it:
		 * once it is closed (under this lock) no session joins it.
		 */
		mutex_lock(&kt_iscsi_config_lock);
		if (l->tpg->closed) {
			mutex_unlock(&kt_iscsi_config_lock);
			kt_iscsi_sess_put(sess);
			*why = "the target portal group is being disabled";
			return KT_ISCSI_LOGIN_SERVICE_UNAVAILABLE;
		}
		sess->tpg = l->tpg;
		sess->cmdsn_depth = l->acl ? to_iscsi_acl(l->acl)->cmdsn_depth :
					     l->tpg->attrib.default_cmdsn_depth;
		/* SPC-4 7.6.4.6: name and ISID, TransportID format 01b */
		sess->se.tid.proto = kt_iscsi_ops.proto_id;
		strscpy(sess->se.tid.name, l->initiator,
			sizeof(sess->se.tid.name));
		memcpy(sess->se.tid.isid, l->isid, KT_PR_ISID_LEN);
		sess->se.tid.has_isid = true;
		/*
		 * LUs without PI shown with this type (the core's, pi.c):
		 * as in LIO, only where the TPG has t10_pi on too
		 */
		if (READ_ONCE(l->tpg->attrib.t10_pi))
			sess->se.prot_type =
				READ_ONCE(l->tpg->attrib.fabric_prot_type);
		ret = kt_session_register(&sess->se, &l->tpg->tpg, l->acl,
					  l->initiator);
		if (ret) {
			mutex_unlock(&kt_iscsi_config_lock);
			kt_iscsi_sess_put(sess);
			if (ret == -EACCES) {
				*why = "the TPG refused the session";
				return KT_ISCSI_LOGIN_AUTHZ_FAILED;
			}
			*why = ret == -EUSERS ? "too many sessions of this initiator" :
						"no memory for the session";
			return KT_ISCSI_LOGIN_OUT_OF_RESOURCES;
		}
		l->acl = NULL;		/* the session holds it now */
		sess->registered = true;
		atomic_inc(&l->tpg->nr_sessions);
		mutex_unlock(&kt_iscsi_config_lock);
	}

	l->tsih = sess->tsih;
	ret = kt_iscsi_sess_add_conn(sess, conn, 0);
	if (ret) {
		kt_iscsi_sess_put(sess);
		*why = "session closing";
		return KT_ISCSI_LOGIN_TARGET_ERROR;
	}
	conn->cid = l->cid;
	return 0;
}

/* Grow the receive buffer to what we allowed the initiator to send. */
static int kt_iscsi_login_resize(struct kt_iscsi_conn *conn)
{
	u32 want = conn->nego.max_recv_dsl;
	u8 *buf;

	if (want <= conn->rx_buf_len)
		return 0;
	buf = kvmalloc(want, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	kvfree(conn->rx_buf);
	conn->rx_buf = buf;
	conn->rx_buf_len = want;
	return 0;
}

/* FIRST: what the whole login keeps of its first PDU. */
static void kt_iscsi_login_first(struct kt_iscsi_conn *conn)
{
	struct kt_iscsi_login *l = conn->login;
	const struct kt_iscsi_bhs *h = &conn->rx.hdr;

	/*
	 * RFC 7143 6.3: the target's login timeout, LIO's default
	 * 15 s, until the TPG's own is known
	 */
	mod_timer(&conn->login_timer, conn->login_start +
		  KT_ISCSI_LOGIN_SECS * HZ);
	memcpy(l->isid, h->login.isid, 6);
	l->tsih = h->login.tsih;
	l->cid = h->login.cid;
	l->cmdsn = h->cmdsn;
	l->csg = h->login.csg;
	conn->exp_stat_sn = h->exp_statsn;
	/* RFC 7143 11.13.4: the first StatSN is the target's choice */
	conn->stat_sn = get_random_u32();
	l->stage = KT_LOGIN_NAMES;
}

/*
 * Every PDU: version 0, and after the first the login's own ISID, TSIH
 * and CID (RFC 7143 11.12.5-11.12.7) and CSG. Its CmdSN stays that of the
 * first on a leading login; on another connection of a session it may
 * only move on, as the session's other connections send commands
 * (11.12.8).
 */
static u16 kt_iscsi_login_header(struct kt_iscsi_conn *conn, const char **why)
{
	struct kt_iscsi_login *l = conn->login;
	const struct kt_iscsi_bhs *h = &conn->rx.hdr;

	/* the answer, a refusal too, is the answer to this request */
	l->itt = h->itt;
	if (h->login.version_min > 0) {
		*why = "unsupported version";
		return KT_ISCSI_LOGIN_UNSUPPORTED_VERSION;
	}
	if (l->stage == KT_LOGIN_FIRST) {
		kt_iscsi_login_first(conn);
		return 0;
	}
	if (memcmp(l->isid, h->login.isid, 6))
		*why = "ISID changed within the login";
	else if (l->tsih != h->login.tsih)
		*why = "TSIH changed within the login";
	else if (l->cid != h->login.cid)
		*why = "CID changed within the login";
	else if (l->csg != h->login.csg)
		*why = "stage changed within the login";
	else if (l->tsih ? (s32)(h->cmdsn - l->cmdsn) < 0 :
			   h->cmdsn != l->cmdsn)
		*why = "CmdSN changed within the login";
	else
		return 0;
	return KT_ISCSI_LOGIN_INITIATOR_ERROR;
}

/* Gather continued text (C bit) into one request. */
static u16 kt_iscsi_login_gather(struct kt_iscsi_conn *conn, const char **why)
{
	struct kt_iscsi_login *l = conn->login;
	const struct kt_iscsi_bhs *h = &conn->rx.hdr;

	if (l->req_len + h->data_len > sizeof(l->req)) {
		*why = "login text longer than 8192 bytes";
		return KT_ISCSI_LOGIN_INITIATOR_ERROR;
	}
	memcpy(l->req + l->req_len, conn->rx_buf, h->data_len);
	l->req_len += h->data_len;
	l->rsp_len = 0;
	return 0;
}

/* Into the stage of @csg: 0 or 1, all that proto/iscsi_pdu.c lets in. */
static void kt_iscsi_login_enter(struct kt_iscsi_login *l, u8 csg)
{
	l->csg = csg;
	l->stage = csg == KT_ISCSI_STAGE_SECURITY ? KT_LOGIN_SECURITY :
						      KT_LOGIN_OPERATIONAL;
}

/* The initiator need not authenticate, or CHAP (in SECURITY) succeeded. */
static bool kt_iscsi_login_authenticated(const struct kt_iscsi_login *l)
{
	return !l->need_auth || l->chap.done;
}

/*
 * RFC 7143 13.12: our MaxRecvDataSegmentLength, in force from the move to
 * OPERATIONAL or FULL_FEATURE; declared (@declare) in OPERATIONAL's first
 * answer, and not looked up again once it has been.
 */
static void kt_iscsi_login_mrdsl(struct kt_iscsi_login *l, bool declare)
{
	const char *mine;

	if (l->sent_mrdsl)
		return;
	mine = kt_iscsi_mine(l, KT_ISCSI_KEY_MAX_RECV_DATA_SEGMENT_LENGTH);
	l->nego.max_recv_dsl = mine ? kt_num(mine) : 8192;
	if (declare) {
		kt_rsp_put(l, "MaxRecvDataSegmentLength", mine ? mine : "8192");
		l->sent_mrdsl = true;
	}
}

/*
 * A whole request: in NAMES its names first, which choose the stage; in
 * every stage an answer to each of its keys.
 */
static u16 kt_iscsi_login_request(struct kt_iscsi_conn *conn, const char **why)
{
	struct kt_iscsi_login *l = conn->login;
	u16 st;

	if (l->stage == KT_LOGIN_NAMES) {
		st = kt_iscsi_login_names(conn, why);
		if (st)
			return st;
		/* RFC 7143 6.3: a login may skip the security stage */
		kt_iscsi_login_enter(l, l->csg);
	}
	st = kt_iscsi_login_keys(conn, why);
	if (st)
		return st;
	l->req_len = 0;

	/* RFC 7143 13.9: a normal session learns its TPGT in the first answer */
	if (!l->discovery && !l->sent_tpgt) {
		kt_rsp_put_u32(l, "TargetPortalGroupTag", l->tpg->tpg.tag);
		l->sent_tpgt = true;
	}
	return 0;
}

/*
 * SECURITY: CHAP takes its step. The login moves on only when no exchange
 * is half done and the initiator has authenticated if it must; until then
 * a request with T=1 is answered T=0.
 */
static u16 kt_iscsi_login_security(struct kt_iscsi_conn *conn, bool *transit,
				   const char **why)
{
	struct kt_iscsi_login *l = conn->login;
	u16 st;

	st = kt_iscsi_chap_step(&l->chap, l, why);
	if (st)
		return st;
	/*
	 * T=1 with no method agreed and none offered: the initiator means to
	 * leave without authenticating. It ends now, as AuthMethod=None
	 * alone does, not at the login timeout after a T=0 to each request.
	 */
	if (*transit && l->need_auth && l->chap.state == KT_CHAP_NONE) {
		*why = "authentication required, initiator leaves SECURITY without AuthMethod";
		return KT_ISCSI_LOGIN_AUTH_FAILED;
	}
	/* a CHAP exchange once begun must finish, asked for or not */
	if (l->chap.state == KT_CHAP_WANT_A ||
	    l->chap.state == KT_CHAP_WANT_R ||
	    !kt_iscsi_login_authenticated(l))
		*transit = false;	/* not before authentication ends */
	if (*transit && conn->rx.hdr.login.nsg == KT_ISCSI_STAGE_OPERATIONAL)
		kt_iscsi_login_mrdsl(l, false);
	return 0;
}

/*
 * OPERATIONAL: only a login that skipped SECURITY can be here without
 * having authenticated. Our MaxRecvDataSegmentLength goes in the first
 * answer.
 */
static u16 kt_iscsi_login_operational(struct kt_iscsi_conn *conn,
				      const char **why)
{
	struct kt_iscsi_login *l = conn->login;

	if (!kt_iscsi_login_authenticated(l)) {
		*why = "authentication required";
		return KT_ISCSI_LOGIN_AUTH_FAILED;
	}
	kt_iscsi_login_mrdsl(l, true);
	return 0;
}

/*
 * Into FULL_FEATURE: make or join the session, answer, and hand the
 * connection to full feature phase; the login is freed unless the
 * connection is closing.
 */
static u16 kt_iscsi_login_full_feature(struct kt_iscsi_conn *conn,
				       const char **why)
{
	struct kt_iscsi_login *l = conn->login;
	u16 st;

	kt_iscsi_login_mrdsl(l, false);
	if (l->discovery)
		l->nego.max_recv_dsl = 8192;
	st = kt_iscsi_login_finish(conn, why);
	if (st)
		return st;
	conn->nego = l->nego;
	if (kt_iscsi_login_resize(conn)) {
		*why = "no memory for the receive buffer";
		return KT_ISCSI_LOGIN_OUT_OF_RESOURCES;
	}
	timer_delete(&conn->login_timer);
	/* the response still goes out without digests */
	conn->nego.header_digest = false;
	conn->nego.data_digest = false;
	kt_iscsi_login_send(conn, 0, true, KT_ISCSI_STAGE_FULL_FEATURE);
	l->stage = KT_LOGIN_FULL_FEATURE;
	conn->nego.header_digest = l->nego.header_digest;
	conn->nego.data_digest = l->nego.data_digest;
	/* a close that came meanwhile stays: its work is queued already */
	if (cmpxchg(&conn->state, KT_CONN_LOGIN, KT_CONN_FFP) != KT_CONN_LOGIN)
		return 0;
	if (!l->discovery)
		kt_iscsi_login_keepalive(conn);
	kt_iscsi_login_free(conn);
	return 0;
}

/* The answer: T=0 stays in the stage, T=1 moves to the request's NSG. */
static u16 kt_iscsi_login_answer(struct kt_iscsi_conn *conn, bool transit,
				 const char **why)
{
	struct kt_iscsi_login *l = conn->login;
	u8 nsg = conn->rx.hdr.login.nsg;

	if (!transit) {
		kt_iscsi_login_send(conn, 0, false, 0);
		return 0;
	}
	if (nsg != KT_ISCSI_STAGE_FULL_FEATURE) {
		kt_iscsi_login_send(conn, 0, true, nsg);
		kt_iscsi_login_enter(l, nsg);
		return 0;
	}
	return kt_iscsi_login_full_feature(conn, why);
}

/* A Login Request PDU, from the receive work (rx.c). */
void kt_iscsi_login_pdu(struct kt_iscsi_conn *conn)
{
	struct kt_iscsi_login *l = conn->login;
	const struct kt_iscsi_bhs *h = &conn->rx.hdr;
	const char *why = "protocol error";
	bool transit;
	u16 st;

	if (!l)
		return;
	st = kt_iscsi_login_header(conn, &why);
	if (!st)
		st = kt_iscsi_login_gather(conn, &why);
	if (st)
		goto fail;
	if (h->login.cont) {
		kt_iscsi_login_send(conn, 0, false, 0);
		return;
	}
	st = kt_iscsi_login_request(conn, &why);
	if (st)
		goto fail;
	transit = h->login.transit;
	if (l->stage == KT_LOGIN_SECURITY)
		st = kt_iscsi_login_security(conn, &transit, &why);
	else
		st = kt_iscsi_login_operational(conn, &why);
	if (st)
		goto fail;
	st = kt_iscsi_login_answer(conn, transit, &why);
	if (!st)
		return;
fail:
	kt_iscsi_login_fail(conn, st, why);
}
