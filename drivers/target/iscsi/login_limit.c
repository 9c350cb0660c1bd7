// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_iscsi: a bound on the connections still in login. Each holds
 * about 40 KiB (its login state and buffers) before any initiator name is
 * known, for up to the TPG's login_timeout; unbounded, a peer that opens
 * connections and sends nothing would hold memory in proportion to its
 * patience, and everyone else's logins would wait behind it. At most
 * login_max_per_source connections from one address and login_max from all
 * are in login at once; one past either bound is closed as it arrives, and
 * the kernel log says which bound it met.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/hashtable.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <net/ipv6.h>

#include "conn.h"

static unsigned int login_max = 1024;
module_param(login_max, uint, 0644);
MODULE_PARM_DESC(login_max,
		 "connections in login at once, from all addresses (0: no bound)");

static unsigned int login_max_per_source = 64;
module_param(login_max_per_source, uint, 0644);
MODULE_PARM_DESC(login_max_per_source,
		 "connections in login at once from one address (0: no bound)");

/* the connections in login from one address */
struct kt_login_source {
	struct hlist_node	node;
	struct in6_addr		addr;	/* IPv4 as v4-mapped */
	unsigned int		count;
};

static DEFINE_HASHTABLE(kt_login_sources, 8);
static DEFINE_SPINLOCK(kt_login_lock);
static unsigned int kt_logins;	/* under kt_login_lock */

static void kt_login_addr(const struct sockaddr_storage *ss,
			  struct in6_addr *a)
{
	if (ss->ss_family == AF_INET6)
		*a = ((const struct sockaddr_in6 *)ss)->sin6_addr;
	else if (ss->ss_family == AF_INET)
		ipv6_addr_set_v4mapped(((const struct sockaddr_in *)ss)->sin_addr.s_addr,
				       a);
	else
		memset(a, 0, sizeof(*a));	/* no per-address bound */
}

static struct kt_login_source *kt_login_find(const struct in6_addr *a,
					     u32 key)
{
	struct kt_login_source *s;

	hash_for_each_possible(kt_login_sources, s, node, key)
		if (ipv6_addr_equal(&s->addr, a))
			return s;
	return NULL;
}

/*
 * Room for one more connection in login from @peer: 0, -EBUSY after saying
 * which bound it met, or -ENOMEM.
 */
int kt_iscsi_login_admit(const struct sockaddr_storage *peer)
{
	unsigned int all = READ_ONCE(login_max);
	unsigned int per = READ_ONCE(login_max_per_source);
	struct kt_login_source *s, *fresh;
	bool full_all = false, full_here = false;
	struct in6_addr a;
	u32 key;

	kt_login_addr(peer, &a);
	key = ipv6_addr_hash(&a);
	fresh = kzalloc(sizeof(*fresh), GFP_KERNEL);
	if (!fresh)
		return -ENOMEM;
	spin_lock(&kt_login_lock);
	s = kt_login_find(&a, key);
	if (all && kt_logins >= all) {
		full_all = true;
	} else if (per && s && s->count >= per && !ipv6_addr_any(&a)) {
		full_here = true;
	} else {
		if (!s) {
			s = fresh;
			fresh = NULL;
			s->addr = a;
			hash_add(kt_login_sources, &s->node, key);
		}
		s->count++;
		kt_logins++;
	}
	spin_unlock(&kt_login_lock);
	kfree(fresh);
	if (full_all)
		pr_warn_ratelimited("a connection from %pISc closed: %u connections are in login (login_max)\n",
				    peer, all);
	else if (full_here)
		pr_warn_ratelimited("a connection from %pISc closed: %u connections from there are in login (login_max_per_source)\n",
				    peer, per);
	return full_all || full_here ? -EBUSY : 0;
}

/* The connection from @peer that kt_iscsi_login_admit() let in left login. */
void kt_iscsi_login_leave(const struct sockaddr_storage *peer)
{
	struct kt_login_source *s, *gone = NULL;
	struct in6_addr a;
	u32 key;

	kt_login_addr(peer, &a);
	key = ipv6_addr_hash(&a);
	spin_lock(&kt_login_lock);
	s = kt_login_find(&a, key);
	if (!WARN_ON_ONCE(!s) && !--s->count) {
		hash_del(&s->node);
		gone = s;
	}
	kt_logins--;
	spin_unlock(&kt_login_lock);
	kfree(gone);
}
