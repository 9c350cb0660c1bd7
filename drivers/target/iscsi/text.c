// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_iscsi: Text Requests in full feature phase (RFC 7143 11.10,
 * 11.11). A request whose text goes on in the next PDU (C bit) is kept and
 * answered empty; once whole, its keys are answered. The answer is
 * measured, then built once; when it is longer than the initiator takes
 * in one PDU it goes out a part at a time, each part but the last with
 * the C bit and a Target Transfer Tag, and the initiator asks for the next
 * part with an empty Text Request carrying that tag. A request without
 * the F bit is answered without it too, with a tag to go on with.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/mm.h>
#include <linux/module.h>
#include <linux/slab.h>

#include <ktarget/proto/iscsi_text.h>

#include "conn.h"

/* a whole answer: enough for a few thousand targets' SendTargets */
#define KT_ISCSI_TEXT_MAX	(1024 * 1024)
/* one part: what a kmalloc'ed PDU buffer may hold */
#define KT_ISCSI_TEXT_PART_MAX	(32 * 1024)

/*
 * One key of a Text Request in full feature phase, its answer appended at
 * *@len (with no @out, only counted). SendTargets is the only one we know
 * (RFC 7143 13.3): its value is All, nothing (this target) or an iSCSI
 * name; anything else is Reject. Keys are case-sensitive, and every other
 * one is NotUnderstood (RFC 7143 6.2).
 */
static int kt_iscsi_text_key(struct kt_iscsi_conn *conn,
			     const struct kt_iscsi_kv *kv, u8 *out,
			     size_t size, size_t *len)
{
	static const char st[] = "SendTargets";
	const char *answer = "NotUnderstood";

	if (kv->key_len == sizeof(st) - 1 && !memcmp(kv->key, st, kv->key_len)) {
		if (!kv->value_len ||
		    (kv->value_len == 3 && !memcmp(kv->value, "All", 3)) ||
		    !kt_iscsi_name_error(kv->value, kv->value_len))
			return kt_iscsi_sendtargets(conn, out, size, len,
						    kv->value, kv->value_len);
		answer = "Reject";
	}
	if (!out) {
		*len += kv->key_len + strlen(answer) + 2;
		return 0;
	}
	return kt_iscsi_text_put(out, size, len, (const char *)kv->key,
				 kv->key_len, answer, strlen(answer)) ?
	       -ENOSPC : 0;
}

static int kt_iscsi_text_keys(struct kt_iscsi_conn *conn,
			      const struct kt_iscsi_text *t, u8 *out,
			      size_t size, size_t *len)
{
	unsigned int i;
	int ret = 0;

	*len = 0;
	for (i = 0; i < t->nr && !ret; i++)
		ret = kt_iscsi_text_key(conn, &t->kv[i], out, size, len);
	return ret;
}

/*
 * The answer to every key of @t: measured, then written into a buffer of
 * that size (KT_ISCSI_TEXT_MAX at most, with room for a target or two
 * more made meanwhile). An answer that does not fit is sent as far as it
 * got. NULL when there is no memory for it.
 */
static u8 *kt_iscsi_text_answer(struct kt_iscsi_conn *conn,
				const struct kt_iscsi_text *t, size_t *len)
{
	size_t size;
	u8 *out;

	kt_iscsi_text_keys(conn, t, NULL, 0, &size);
	size = min_t(size_t, size + 1024, KT_ISCSI_TEXT_MAX);
	out = kvmalloc(size, GFP_KERNEL);
	if (out && kt_iscsi_text_keys(conn, t, out, size, len))
		pr_warn_ratelimited("Text Request: the answer does not fit in %zu bytes: cut at %zu\n",
				    size, *len);
	return out;
}

void kt_iscsi_text_drop(struct kt_iscsi_conn *conn)
{
	struct kt_iscsi_text_reply *tr = &conn->text;

	kvfree(tr->buf);
	tr->buf = NULL;
	tr->len = 0;
	tr->off = 0;
	kfree(tr->req);
	tr->req = NULL;
	tr->req_len = 0;
	tr->open = false;
}

/*
 * The next part of the answer in progress, as much as the initiator takes
 * in one PDU, ending after a whole key=value where one fits; an empty one
 * when nothing is left. The sequence stays open (F=0, a TTT to continue
 * with) while more of the answer is left (C=1), and when the request had
 * no F bit: a response with F=1 to it would be a protocol error (RFC 7143
 * 11.11.1).
 */
static void kt_iscsi_text_send(struct kt_iscsi_conn *conn)
{
	struct kt_iscsi_text_reply *tr = &conn->text;
	struct kt_iscsi_text_rsp r = { .itt = tr->itt,
				       .ttt = KT_ISCSI_RSVD_TAG };
	u32 part = min3(tr->len - tr->off, conn->nego.max_xmit_dsl,
			(u32)KT_ISCSI_TEXT_PART_MAX);
	u8 bhs[KT_ISCSI_BHS_LEN];
	u8 *data = NULL;
	u32 cut = part;

	if (tr->off + part < tr->len) {
		while (cut && tr->buf[tr->off + cut - 1])
			cut--;
		if (cut)
			part = cut;
	}
	if (part) {
		data = kmemdup(tr->buf + tr->off, part, GFP_KERNEL);
		if (!data) {
			/* the initiator would wait for an answer in vain */
			kt_iscsi_text_drop(conn);
			kt_iscsi_conn_close(conn);
			return;
		}
	}
	tr->off += part;
	r.data_len = part;
	if (tr->off < tr->len || !tr->final) {
		tr->ttt = (tr->ttt + 1) & KT_ISCSI_TTT_R2T_MASK;
		r.ttt = tr->ttt;
		r.cont = tr->off < tr->len;
		tr->open = true;
		if (!r.cont) {
			/* all sent: nothing to keep for the follow-on */
			kvfree(tr->buf);
			tr->buf = NULL;
			tr->len = 0;
			tr->off = 0;
		}
	} else {
		r.final = true;
		kt_iscsi_text_drop(conn);
	}
	if (kt_iscsi_encode_text_rsp(bhs, &r)) {
		kfree(data);
		return;
	}
	kt_iscsi_queue_pdu(conn, bhs, data, part, true);
}

/*
 * A request with the C bit: its text is kept, up to 8 KiB in all, until
 * the request that ends it.
 */
static int kt_iscsi_text_gather(struct kt_iscsi_conn *conn)
{
	struct kt_iscsi_text_reply *tr = &conn->text;
	u32 n = conn->rx.hdr.data_len;

	if (tr->req_len + n > KT_ISCSI_LOGIN_BUF) {
		pr_warn_ratelimited("Text Request: more than %u bytes of text in one request: rejected\n",
				    KT_ISCSI_LOGIN_BUF);
		return -E2BIG;
	}
	if (!tr->req) {
		tr->req = kmalloc(KT_ISCSI_LOGIN_BUF, GFP_KERNEL);
		if (!tr->req)
			return -ENOMEM;
	}
	memcpy(tr->req + tr->req_len, conn->rx_buf, n);
	tr->req_len += n;
	return 0;
}

/*
 * The keys of a whole request (@text, @len bytes) answered; the answer
 * goes out from its first part.
 */
static void kt_iscsi_text_keys_answer(struct kt_iscsi_conn *conn,
				      const u8 *text, u32 len)
{
	struct kt_iscsi_text_reply *tr = &conn->text;
	struct kt_iscsi_kv kv[8];
	struct kt_iscsi_text t;
	size_t n;
	u8 *out;

	kt_iscsi_text_init(&t, kv, ARRAY_SIZE(kv));
	if (kt_iscsi_text_split(&t, text, len, KT_ISCSI_TEXT_F_ANY_KEY)) {
		pr_warn_ratelimited("Text Request: malformed text at byte %zu: rejected\n",
				    t.bad_off);
		kt_iscsi_text_drop(conn);
		kt_iscsi_send_reject(conn, KT_ISCSI_REJECT_PROTOCOL_ERROR);
		return;
	}
	out = kt_iscsi_text_answer(conn, &t, &n);
	/* the keys pointed into the gathered text: free it only now */
	kfree(tr->req);
	tr->req = NULL;
	tr->req_len = 0;
	if (!out) {
		kt_iscsi_text_drop(conn);
		kt_iscsi_conn_close(conn);
		return;
	}
	kvfree(tr->buf);
	tr->buf = out;
	tr->len = n;
	tr->off = 0;
	kt_iscsi_text_send(conn);
}

/*
 * A Text Request. TTT 0xffffffff begins a sequence and ends any before it
 * (RFC 7143 11.10.4); any other TTT must be the one we sent last with this
 * ITT, and while parts of our answer are left it must be empty. Then: a
 * request with the C bit is kept and answered empty; an empty follow-on
 * gets the next part (or the empty end); any other brings keys, answered
 * anew.
 */
void kt_iscsi_text(struct kt_iscsi_conn *conn)
{
	struct kt_iscsi_text_reply *tr = &conn->text;
	const struct kt_iscsi_bhs *h = &conn->rx.hdr;
	bool follow_on = h->ttt != KT_ISCSI_RSVD_TAG;
	int ret;

	/* RFC 7143 3.2.2.1: one outside the CmdSN window is ignored */
	if (!h->immediate && !kt_iscsi_cmdsn_check(conn, h->cmdsn, false))
		return;
	if (!follow_on) {
		kt_iscsi_text_drop(conn);
		tr->itt = h->itt;
	} else if (!tr->open || h->itt != tr->itt || h->ttt != tr->ttt) {
		pr_warn_ratelimited("Text Request: ITT %#x TTT %#x continues no answer of ours: rejected\n",
				    h->itt, h->ttt);
		kt_iscsi_send_reject(conn, KT_ISCSI_REJECT_INVALID_FIELD);
		return;
	}
	/* RFC 7143 6.2: after a part with C=1, only an empty request */
	if (tr->off < tr->len && (h->data_len || h->text.cont)) {
		pr_warn_ratelimited("Text Request: ITT %#x brings text while our answer is unfinished: rejected\n",
				    h->itt);
		kt_iscsi_text_drop(conn);
		kt_iscsi_send_reject(conn, KT_ISCSI_REJECT_PROTOCOL_ERROR);
		return;
	}
	tr->open = false;
	tr->final = h->final;
	if (h->text.cont || tr->req_len) {
		ret = kt_iscsi_text_gather(conn);
		if (ret) {
			kt_iscsi_text_drop(conn);
			if (ret == -ENOMEM)
				kt_iscsi_conn_close(conn);
			else
				kt_iscsi_send_reject(conn,
						     KT_ISCSI_REJECT_PROTOCOL_ERROR);
			return;
		}
		if (h->text.cont) {
			kvfree(tr->buf);
			tr->buf = NULL;
			tr->len = 0;
			tr->off = 0;
			kt_iscsi_text_send(conn);
			return;
		}
		kt_iscsi_text_keys_answer(conn, tr->req, tr->req_len);
		return;
	}
	/* the next part of the answer, or the empty end of the sequence */
	if (!h->data_len && follow_on) {
		kt_iscsi_text_send(conn);
		return;
	}
	kt_iscsi_text_keys_answer(conn, conn->rx_buf, h->data_len);
}
