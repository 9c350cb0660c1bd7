// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_iscsi: SendTargets (RFC 7143 Appendix C): every target this
 * portal leads to, with a TargetAddress per network portal of each enabled
 * TPG.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/inet.h>
#include <linux/module.h>
#include <net/ipv6.h>

#include "conn.h"

/* key=value at *@len; with no @buf, only counted */
static int kt_put(u8 *buf, size_t size, size_t *len, const char *key,
		  const char *val)
{
	if (!buf) {
		*len += strlen(key) + strlen(val) + 2;
		return 0;
	}
	return kt_iscsi_text_put(buf, size, len, key, strlen(key), val,
				 strlen(val)) ? -ENOSPC : 0;
}

/* "addr:port,tpgt"; a wildcard portal answers with the address dialled. */
static void kt_iscsi_target_address(struct kt_iscsi_conn *conn,
				    const struct sockaddr_storage *np,
				    u16 tag, char *out, size_t size)
{
	struct sockaddr_storage local;
	const struct sockaddr_storage *a = np;

	if ((np->ss_family == AF_INET &&
	     ((struct sockaddr_in *)np)->sin_addr.s_addr == htonl(INADDR_ANY)) ||
	    (np->ss_family == AF_INET6 &&
	     ipv6_addr_any(&((struct sockaddr_in6 *)np)->sin6_addr))) {
		if (!conn->xport->local_addr(conn, &local))
			a = &local;
	}
	if (a->ss_family == AF_INET6)
		snprintf(out, size, "[%pI6c]:%u,%u",
			 &((struct sockaddr_in6 *)a)->sin6_addr,
			 ntohs(((struct sockaddr_in6 *)np)->sin6_port), tag);
	else
		snprintf(out, size, "%pI4:%u,%u",
			 &((struct sockaddr_in *)a)->sin_addr,
			 ntohs(((struct sockaddr_in *)np)->sin_port), tag);
}

int kt_iscsi_sendtargets(struct kt_iscsi_conn *conn, u8 *buf, size_t size,
			 size_t *len, const u8 *what, size_t what_len)
{
	struct kt_iscsi_sess *sess = conn->sess;
	struct kt_iscsi_tiqn *tiqn;
	struct kt_iscsi_tpg *tpg;
	struct kt_iscsi_tpg_np *np;
	char addr[80];
	bool all = what_len == 3 && !memcmp(what, "All", 3);
	int ret = 0;

	/*
	 * A normal session hears of its own target only (RFC 7143 Appendix
	 * C: All is for Discovery sessions). All there means that target, as
	 * no value does: libiscsi's tests send it, and LIO answers it.
	 */
	if (!sess->discovery) {
		if (what_len && !all && (strlen(sess->target) != what_len ||
					 memcmp(sess->target, what, what_len)))
			return 0;
		all = false;
		what_len = 0;
	}

	mutex_lock(&kt_iscsi_config_lock);
	list_for_each_entry(tiqn, &kt_iscsi_tiqns, node) {
		size_t start = *len;
		bool named = false;

		if (!all && (what_len ? (strlen(tiqn->wwn.name) != what_len ||
					 memcmp(tiqn->wwn.name, what, what_len)) :
					strcmp(tiqn->wwn.name, sess->target)))
			continue;
		list_for_each_entry(tpg, &tiqn->tpgs, node) {
			if (!tpg->tpg.enabled || !tpg->attrib.tpg_enabled_sendtargets)
				continue;
			list_for_each_entry(np, &tpg->nps, node) {
				if (!named) {
					ret = kt_put(buf, size, len, "TargetName",
						     tiqn->wwn.name);
					named = true;
				}
				kt_iscsi_target_address(conn, &np->addr,
							tpg->tpg.tag, addr,
							sizeof(addr));
				ret = ret ?: kt_put(buf, size, len,
						    "TargetAddress", addr);
			}
		}
		if (ret) {
			/* no target without its addresses */
			*len = start;
			break;
		}
	}
	mutex_unlock(&kt_iscsi_config_lock);
	return ret;
}
