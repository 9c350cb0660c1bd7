// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_iscsi: the iSCSI fabric's configfs side, with LIO's names,
 * defaults and ranges, so that targetcli-fb / rtslib-fb and echo scripts
 * written for LIO work unchanged:
 *
 *	target/iscsi/{lio_version, cpus_allowed_list, discovery_auth/}
 *	target/iscsi/IQN/tpgt_N/{dynamic_sessions, attrib/, param/, auth/,
 *		np/ADDR:PORT/{iser, cxgbit},
 *		acls/INITIATOR/{info, cmdsn_depth, tag, attrib/, auth/}}
 *
 * The core builds the generic tree (enable, lun/, acls/, mapped LUNs) and
 * calls the hooks below through kt_iscsi_ops, the fabric's ops table in
 * main.c. Every refused write returns an error and logs one
 * line saying what was wrong; values written with echo lose their newline.
 * param/ is in configfs/param.c, np/ in configfs/np.c, auth/ and
 * discovery_auth/ in configfs/auth.c.
 */
#define pr_fmt(fmt) "ktarget_iscsi: " fmt

#include <linux/configfs.h>
#include <linux/cpumask.h>
#include <linux/ctype.h>
#include <linux/kernel.h>
#include <linux/list.h>
#include <linux/lockdep.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "iscsi.h"

/* see iscsi.h: the lists and every value configfs writes */
DEFINE_MUTEX(kt_iscsi_config_lock);
LIST_HEAD(kt_iscsi_tiqns);
struct cpumask kt_iscsi_allowed_cpus = { CPU_BITS_ALL };

/* ---- helpers shared by configfs_*.c ---- */

static bool kt_cfs_ours(struct config_item *item)
{
	return item && item->ci_type && item->ci_type->ct_owner == THIS_MODULE;
}

#define KT_CFS_DEPTH	6	/* IQN/tpgt_N/acls/INITIATOR/auth */

const char *kt_iscsi_cfs_path(struct config_item *item, char *buf, size_t size)
{
	struct config_item *chain[KT_CFS_DEPTH];
	size_t len = 0;
	int n = 0;

	/* stop below target/iscsi, the last item whose parent is ours */
	for (; item && n < KT_CFS_DEPTH && kt_cfs_ours(item->ci_parent);
	     item = item->ci_parent)
		chain[n++] = item;
	if (!n)
		return "iscsi";
	buf[0] = '\0';
	while (n--)
		len += scnprintf(buf + len, size - len, "%s%s", len ? "/" : "",
				 config_item_name(chain[n]));
	return buf;
}

ssize_t kt_iscsi_cfs_ctrl(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if ((u8)s[i] < 0x20 || s[i] == 0x7f)
			return i;
	return -1;
}

/* The written number, without its newline, NUL-terminated into @buf. */
static int kt_cfs_number(const char *page, size_t count, char *buf,
			 size_t size)
{
	size_t len = kt_cfs_value_len(page, count);

	if (len >= size)
		return -EINVAL;
	memcpy(buf, page, len);
	buf[len] = '\0';
	return 0;
}

#define KT_CFS_SHOWN	32	/* bytes of a refused value that are logged */

int kt_iscsi_cfs_shown(const char *page, size_t count)
{
	return min_t(size_t, kt_cfs_value_len(page, count), KT_CFS_SHOWN);
}

/*
 * A number for attribute @name of @item: @min..@max without the values
 * below 32 whose bit is set in @holes; @allowed says so in the log line.
 */
int kt_iscsi_cfs_u32(struct config_item *item, const char *name,
		     const char *page, size_t count, u32 min, u32 max,
		     u32 holes, const char *allowed, u32 *val)
{
	char where[KT_ISCSI_WHERE_LEN];

	if (!kt_cfs_u32(page, count, min, max, val) &&
	    !(*val < 32 && (holes & BIT(*val))))
		return 0;
	pr_warn_ratelimited("%s/%s: '%*pE': want %s\n",
			    kt_iscsi_cfs_path(item, where, sizeof(where)), name,
			    kt_iscsi_cfs_shown(page, count), page, allowed);
	return -EINVAL;
}

/* ---- target/iscsi ---- */

static ssize_t kt_root_lio_version_show(struct config_item *item, char *page)
{
	return sysfs_emit(page, "%s\n", KT_ISCSI_RELEASE);
}

static ssize_t kt_root_cpus_allowed_list_show(struct config_item *item,
					      char *page)
{
	ssize_t ret;

	mutex_lock(&kt_iscsi_config_lock);
	ret = sysfs_emit(page, "%*pbl\n",
			 cpumask_pr_args(&kt_iscsi_allowed_cpus));
	mutex_unlock(&kt_iscsi_config_lock);
	return ret;
}

static ssize_t kt_root_cpus_allowed_list_store(struct config_item *item,
					       const char *page, size_t count)
{
	cpumask_var_t mask;
	char *buf;
	int ret;

	if (!zalloc_cpumask_var(&mask, GFP_KERNEL))
		return -ENOMEM;
	buf = kmemdup_nul(page, kt_cfs_value_len(page, count), GFP_KERNEL);
	if (!buf) {
		ret = -ENOMEM;
		goto out;
	}
	ret = cpulist_parse(buf, mask);
	if (ret || cpumask_empty(mask)) {
		pr_warn_ratelimited("cpus_allowed_list: '%*pE': want a non-empty CPU list such as 0-3,6\n",
				    kt_iscsi_cfs_shown(page, count), page);
		ret = -EINVAL;
	} else {
		mutex_lock(&kt_iscsi_config_lock);
		cpumask_copy(&kt_iscsi_allowed_cpus, mask);
		mutex_unlock(&kt_iscsi_config_lock);
	}
	kfree(buf);
out:
	free_cpumask_var(mask);
	return ret ? ret : count;
}

CONFIGFS_ATTR_RO(kt_root_, lio_version);
CONFIGFS_ATTR(kt_root_, cpus_allowed_list);

struct configfs_attribute *kt_iscsi_root_attrs[] = {
	&kt_root_attr_lio_version,
	&kt_root_attr_cpus_allowed_list,
	NULL,
};

/* ---- target/iscsi/IQN ---- */

struct kt_wwn *kt_iscsi_make_wwn(const char *name)
{
	const char *why = kt_iscsi_name_error((const u8 *)name, strlen(name));
	struct kt_iscsi_tiqn *tiqn;

	if (why) {
		pr_warn_ratelimited("'%*pE': not an iSCSI target name: %s\n",
				    (int)strlen(name), name, why);
		return ERR_PTR(-EINVAL);
	}
	tiqn = kzalloc(sizeof(*tiqn), GFP_KERNEL);
	if (!tiqn)
		return ERR_PTR(-ENOMEM);
	strscpy(tiqn->wwn.name, name, sizeof(tiqn->wwn.name));
	INIT_LIST_HEAD(&tiqn->tpgs);

	mutex_lock(&kt_iscsi_config_lock);
	list_add_tail(&tiqn->node, &kt_iscsi_tiqns);
	mutex_unlock(&kt_iscsi_config_lock);
	return &tiqn->wwn;
}

/* configfs releases a WWN after the TPGs below it */
void kt_iscsi_drop_wwn(struct kt_wwn *wwn)
{
	struct kt_iscsi_tiqn *tiqn = to_iscsi_tiqn(wwn);

	mutex_lock(&kt_iscsi_config_lock);
	list_del(&tiqn->node);
	WARN_ON_ONCE(!list_empty(&tiqn->tpgs));
	mutex_unlock(&kt_iscsi_config_lock);
	kfree(tiqn);
}

struct kt_iscsi_tpg *kt_iscsi_find_tpg(const char *name, u16 tag)
{
	struct kt_iscsi_tiqn *tiqn;
	struct kt_iscsi_tpg *tpg;

	lockdep_assert_held(&kt_iscsi_config_lock);
	list_for_each_entry(tiqn, &kt_iscsi_tiqns, node) {
		if (strcmp(tiqn->wwn.name, name))
			continue;
		list_for_each_entry(tpg, &tiqn->tpgs, node)
			if (tpg->tpg.tag == tag)
				return tpg;
		break;
	}
	return NULL;
}

/* ---- tpgt_N/attrib/ ---- */

static const struct kt_iscsi_tpg_attrib kt_tpg_attrib_defaults = {
	.authentication			= 1,
	.login_timeout			= 15,
	.netif_timeout			= 2,
	.generate_node_acls		= 0,
	.cache_dynamic_acls		= 0,
	.default_cmdsn_depth		= 64,
	.demo_mode_write_protect	= 1,
	.prod_mode_write_protect	= 0,
	.demo_mode_discovery		= 1,
	.default_erl			= 0,
	.t10_pi				= 0,
	.fabric_prot_type		= 0,
	.tpg_enabled_sendtargets	= 1,
	.login_keys_workaround		= 1,
	.default_dataout_timeout	= KT_ISCSI_DATAOUT_TIMEOUT,
};

static struct kt_iscsi_tpg *attrib_to_tpg(struct config_item *item)
{
	return to_iscsi_tpg(container_of(to_config_group(item), struct kt_tpg,
					 attrib_group));
}

/*
 * One u32 of tpgt_N/attrib/ or acls/INITIATOR/attrib/: @min..@max without
 * the values below 32 whose bit is set in @holes; @apply (TPG only) adds
 * side effects under kt_iscsi_config_lock.
 */
struct kt_attrib_def {
	const char	*name;
	size_t		offset;
	u32		min;
	u32		max;
	u32		holes;
	const char	*allowed;	/* the set, for the log line */
	void		(*apply)(struct kt_iscsi_tpg *tpg, u32 val);
};

#define KT_ATTRIB_DEF(_pfx, _struct, _name, _min, _max, _holes, _allowed, \
		      _apply)						\
static const struct kt_attrib_def _pfx##_name##_def = {		\
	.name		= #_name,					\
	.offset		= offsetof(_struct, _name),			\
	.min		= _min,						\
	.max		= _max,						\
	.holes		= _holes,					\
	.allowed	= _allowed,					\
	.apply		= _apply,					\
};									\
static ssize_t _pfx##_name##_show(struct config_item *item, char *page) \
{									\
	return _pfx##show(item, &_pfx##_name##_def, page);		\
}									\
static ssize_t _pfx##_name##_store(struct config_item *item,		\
				   const char *page, size_t count)	\
{									\
	return _pfx##store(item, &_pfx##_name##_def, page, count);	\
}									\
static struct configfs_attribute _pfx##attr_##_name = {		\
	.ca_name	= #_name,					\
	.ca_owner	= THIS_MODULE,					\
	.ca_mode	= 0644,						\
	.show		= _pfx##_name##_show,				\
	.store		= _pfx##_name##_store,				\
}

static void kt_tpg_apply_authentication(struct kt_iscsi_tpg *tpg, u32 val)
{
	kt_iscsi_tpg_offer_none(tpg, !val);
}

/* LIO: demo mode caches the ACLs it makes */
static void kt_tpg_apply_generate_node_acls(struct kt_iscsi_tpg *tpg, u32 val)
{
	WRITE_ONCE(tpg->tpg.generate_node_acls, val);
	if (val)
		tpg->attrib.cache_dynamic_acls = 1;
}

static void kt_tpg_apply_cache_dynamic_acls(struct kt_iscsi_tpg *tpg, u32 val)
{
	if (tpg->attrib.generate_node_acls)
		tpg->attrib.cache_dynamic_acls = 1;
}

static void kt_tpg_apply_demo_mode_write_protect(struct kt_iscsi_tpg *tpg,
						 u32 val)
{
	WRITE_ONCE(tpg->tpg.demo_write_protect, val);
}

/* The u32 of @def in @attrib: a TPG's or an ACL's attrib/ */
static ssize_t kt_attrib_show(const struct kt_attrib_def *def, void *attrib,
			      char *page)
{
	return sysfs_emit(page, "%u\n", *(u32 *)((u8 *)attrib + def->offset));
}

/* ... and its store; @tpg, for def->apply, is NULL for an ACL's */
static ssize_t kt_attrib_store(struct config_item *item,
			       const struct kt_attrib_def *def, void *attrib,
			       struct kt_iscsi_tpg *tpg, const char *page,
			       size_t count)
{
	u32 val;
	int ret;

	ret = kt_iscsi_cfs_u32(item, def->name, page, count, def->min,
			       def->max, def->holes, def->allowed, &val);
	if (ret)
		return ret;
	mutex_lock(&kt_iscsi_config_lock);
	*(u32 *)((u8 *)attrib + def->offset) = val;
	if (def->apply && tpg)
		def->apply(tpg, val);
	mutex_unlock(&kt_iscsi_config_lock);
	return count;
}

static ssize_t kt_tpg_attrib_show(struct config_item *item,
				  const struct kt_attrib_def *def, char *page)
{
	return kt_attrib_show(def, &attrib_to_tpg(item)->attrib, page);
}

static ssize_t kt_tpg_attrib_store(struct config_item *item,
				   const struct kt_attrib_def *def,
				   const char *page, size_t count)
{
	struct kt_iscsi_tpg *tpg = attrib_to_tpg(item);

	return kt_attrib_store(item, def, &tpg->attrib, tpg, page, count);
}

#define KT_TPG_ATTRIB(_name, _min, _max, _holes, _allowed, _apply)	\
	KT_ATTRIB_DEF(kt_tpg_attrib_, struct kt_iscsi_tpg_attrib, _name,	\
		      _min, _max, _holes, _allowed, _apply)
#define KT_TPG_RANGE(_name, _min, _max)					\
	KT_TPG_ATTRIB(_name, _min, _max, 0, #_min ".." #_max, NULL)
#define KT_TPG_BOOL(_name, _apply)					\
	KT_TPG_ATTRIB(_name, 0, 1, 0, "0 or 1", _apply)

KT_TPG_BOOL(authentication, kt_tpg_apply_authentication);
KT_TPG_RANGE(login_timeout, 5, 30);
KT_TPG_RANGE(netif_timeout, 2, 15);
KT_TPG_BOOL(generate_node_acls, kt_tpg_apply_generate_node_acls);
KT_TPG_RANGE(default_cmdsn_depth, 1, 512);
KT_TPG_BOOL(cache_dynamic_acls, kt_tpg_apply_cache_dynamic_acls);
KT_TPG_BOOL(demo_mode_write_protect, kt_tpg_apply_demo_mode_write_protect);
KT_TPG_BOOL(prod_mode_write_protect, NULL);
KT_TPG_BOOL(demo_mode_discovery, NULL);
KT_TPG_RANGE(default_erl, 0, 2);
KT_TPG_BOOL(t10_pi, NULL);
/* SPC-4 / SBC-3 protection types LIO's fabrics take: none, 1 and 3 */
KT_TPG_ATTRIB(fabric_prot_type, 0, 3, BIT(2), "0, 1 or 3", NULL);
KT_TPG_BOOL(tpg_enabled_sendtargets, NULL);
KT_TPG_BOOL(login_keys_workaround, NULL);
/* ktarget's own: what an ACL's dataout_timeout is for demo-mode sessions */
KT_TPG_RANGE(default_dataout_timeout, 2, 3600);

struct configfs_attribute *kt_iscsi_tpg_attrib_attrs[] = {
	&kt_tpg_attrib_attr_authentication,
	&kt_tpg_attrib_attr_login_timeout,
	&kt_tpg_attrib_attr_netif_timeout,
	&kt_tpg_attrib_attr_generate_node_acls,
	&kt_tpg_attrib_attr_default_cmdsn_depth,
	&kt_tpg_attrib_attr_cache_dynamic_acls,
	&kt_tpg_attrib_attr_demo_mode_write_protect,
	&kt_tpg_attrib_attr_prod_mode_write_protect,
	&kt_tpg_attrib_attr_demo_mode_discovery,
	&kt_tpg_attrib_attr_default_erl,
	&kt_tpg_attrib_attr_t10_pi,
	&kt_tpg_attrib_attr_fabric_prot_type,
	&kt_tpg_attrib_attr_tpg_enabled_sendtargets,
	&kt_tpg_attrib_attr_login_keys_workaround,
	&kt_tpg_attrib_attr_default_dataout_timeout,
	NULL,
};

/* ---- tpgt_N ---- */

/* Demo-mode sessions, those without a configured ACL: one name a line */
static ssize_t kt_tpg_dynamic_sessions_show(struct config_item *item,
					    char *page)
{
	struct kt_tpg *tpg = kt_tpg_from_item(item);
	struct kt_session *sess;
	ssize_t len = 0;

	spin_lock(&tpg->session_lock);
	list_for_each_entry(sess, &tpg->sessions, node)
		if (!sess->acl)
			len += sysfs_emit_at(page, len, "%s\n",
					     sess->initiator);
	spin_unlock(&tpg->session_lock);
	return len;
}

CONFIGFS_ATTR_RO(kt_tpg_, dynamic_sessions);

struct configfs_attribute *kt_iscsi_tpg_attrs[] = {
	&kt_tpg_attr_dynamic_sessions,
	NULL,
};

struct kt_tpg *kt_iscsi_make_tpg(struct kt_wwn *wwn, u16 tag)
{
	struct kt_iscsi_tiqn *tiqn = to_iscsi_tiqn(wwn);
	struct kt_iscsi_tpg *tpg;

	tpg = kzalloc(sizeof(*tpg), GFP_KERNEL);
	if (!tpg)
		return ERR_PTR(-ENOMEM);
	tpg->tiqn = tiqn;
	tpg->attrib = kt_tpg_attrib_defaults;
	kt_iscsi_tpg_init_params(tpg);
	INIT_LIST_HEAD(&tpg->nps);
	atomic_set(&tpg->nr_sessions, 0);
	INIT_LIST_HEAD(&tpg->logins);
	/* the core sets these too; kt_iscsi_find_tpg() may see us before */
	tpg->tpg.tag = tag;
	tpg->tpg.generate_node_acls = tpg->attrib.generate_node_acls;
	tpg->tpg.demo_write_protect = tpg->attrib.demo_mode_write_protect;

	mutex_lock(&kt_iscsi_config_lock);
	list_add_tail(&tpg->node, &tiqn->tpgs);
	mutex_unlock(&kt_iscsi_config_lock);
	return &tpg->tpg;
}

/* configfs releases a TPG after its np/ and acls/ children */
void kt_iscsi_drop_tpg(struct kt_tpg *se_tpg)
{
	struct kt_iscsi_tpg *tpg = to_iscsi_tpg(se_tpg);

	mutex_lock(&kt_iscsi_config_lock);
	list_del(&tpg->node);
	WARN_ON_ONCE(!list_empty(&tpg->nps));
	mutex_unlock(&kt_iscsi_config_lock);
	/* rmdir of an enabled TPG: no session may outlive it */
	kt_iscsi_tpg_close_sessions(tpg);
	kfree(tpg);
}

/*
 * Called without tpg->lock (disabling waits for logins that take it).
 * Portals listen from the time they are made,
 * so enabling starts nothing (LIO allows a TPG without portals);
 * disabling ends the TPG's sessions.
 */
int kt_iscsi_tpg_enable(struct kt_tpg *se_tpg, bool enable)
{
	struct kt_iscsi_tpg *tpg = to_iscsi_tpg(se_tpg);

	if (!enable) {
		kt_iscsi_tpg_close_sessions(tpg);
		return 0;
	}
	mutex_lock(&kt_iscsi_config_lock);
	tpg->closed = false;
	if (tpg->attrib.authentication)
		kt_iscsi_tpg_offer_none(tpg, false);
	mutex_unlock(&kt_iscsi_config_lock);
	return 0;
}

/* ---- tpgt_N/acls/INITIATOR ---- */

static const struct kt_iscsi_acl_attrib kt_acl_attrib_defaults = {
	.dataout_timeout		= KT_ISCSI_DATAOUT_TIMEOUT,
	.dataout_timeout_retries	= 5,
	.default_erl			= 0,
	.nopin_timeout			= KT_ISCSI_NOPIN_TIMEOUT,
	.nopin_response_timeout		= KT_ISCSI_NOPIN_RSP_TIMEOUT,
	.random_datain_pdu_offsets	= 0,
	.random_datain_seq_offsets	= 0,
	.random_r2t_offsets		= 0,
	.authentication			= -1,
	/* another initiator's tasks and sessions are not this one's to end */
	.tmr_warm_reset			= 0,
	.tmr_cold_reset			= 0,
};

struct kt_node_acl *kt_iscsi_alloc_acl(struct kt_tpg *se_tpg)
{
	struct kt_iscsi_tpg *tpg = to_iscsi_tpg(se_tpg);
	struct kt_iscsi_acl *acl;

	acl = kzalloc(sizeof(*acl), GFP_KERNEL);
	if (!acl)
		return NULL;
	acl->attrib = kt_acl_attrib_defaults;
	mutex_lock(&kt_iscsi_config_lock);
	acl->cmdsn_depth = tpg->attrib.default_cmdsn_depth;
	mutex_unlock(&kt_iscsi_config_lock);
	return &acl->acl;
}

void kt_iscsi_free_acl(struct kt_node_acl *acl)
{
	kfree(to_iscsi_acl(acl));
}

static struct kt_node_acl *to_acl(struct config_item *item)
{
	return container_of(to_config_group(item), struct kt_node_acl, group);
}

/* rtslib (targetcli sessions) reads the ACL's sessions from here */
static ssize_t kt_acl_info_show(struct config_item *item, char *page)
{
	return kt_iscsi_acl_info(to_acl(item), page);
}

static ssize_t kt_acl_cmdsn_depth_show(struct config_item *item, char *page)
{
	return sysfs_emit(page, "%u\n", to_iscsi_acl(to_acl(item))->cmdsn_depth);
}

static ssize_t kt_acl_cmdsn_depth_store(struct config_item *item,
					const char *page, size_t count)
{
	struct kt_node_acl *acl = to_acl(item);
	struct kt_iscsi_acl *iacl = to_iscsi_acl(acl);
	bool changed;
	u32 val;
	int ret;

	ret = kt_iscsi_cfs_u32(item, "cmdsn_depth", page, count, 1, 512, 0,
			       "1..512", &val);
	if (ret)
		return ret;
	mutex_lock(&kt_iscsi_config_lock);
	changed = iacl->cmdsn_depth != val;
	iacl->cmdsn_depth = val;
	acl->queue_depth = val;
	mutex_unlock(&kt_iscsi_config_lock);
	/* LIO: the initiator logs in again and gets the new window */
	if (changed)
		kt_iscsi_acl_close_sessions(acl);
	return count;
}

static ssize_t kt_acl_tag_show(struct config_item *item, char *page)
{
	ssize_t ret;

	mutex_lock(&kt_iscsi_config_lock);
	ret = sysfs_emit(page, "%s\n", to_iscsi_acl(to_acl(item))->tag);
	mutex_unlock(&kt_iscsi_config_lock);
	return ret;
}

/* A free-form group name for userspace; rtslib writes NULL to clear it. */
static ssize_t kt_acl_tag_store(struct config_item *item, const char *page,
				size_t count)
{
	struct kt_iscsi_acl *iacl = to_iscsi_acl(to_acl(item));
	size_t len = kt_cfs_value_len(page, count);
	ssize_t bad = kt_iscsi_cfs_ctrl(page, len);
	char where[KT_ISCSI_WHERE_LEN];

	if (len >= sizeof(iacl->tag) || bad >= 0) {
		pr_warn_ratelimited("%s/tag: '%*pE': want at most %zu bytes, no control characters\n",
				    kt_iscsi_cfs_path(item, where, sizeof(where)),
				    kt_iscsi_cfs_shown(page, count), page,
				    sizeof(iacl->tag) - 1);
		return -EINVAL;
	}
	if (len == 4 && !memcmp(page, "NULL", 4))
		len = 0;
	mutex_lock(&kt_iscsi_config_lock);
	memcpy(iacl->tag, page, len);
	iacl->tag[len] = '\0';
	iacl->tag_set = len != 0;
	mutex_unlock(&kt_iscsi_config_lock);
	return count;
}

CONFIGFS_ATTR_RO(kt_acl_, info);
CONFIGFS_ATTR(kt_acl_, cmdsn_depth);
CONFIGFS_ATTR(kt_acl_, tag);

struct configfs_attribute *kt_iscsi_acl_attrs[] = {
	&kt_acl_attr_info,
	&kt_acl_attr_cmdsn_depth,
	&kt_acl_attr_tag,
	NULL,
};

/* ---- acls/INITIATOR/attrib/ ---- */

static struct kt_iscsi_acl *attrib_to_acl(struct config_item *item)
{
	return to_iscsi_acl(container_of(to_config_group(item),
					 struct kt_node_acl, attrib_group));
}

static ssize_t kt_acl_attrib_show(struct config_item *item,
				  const struct kt_attrib_def *def, char *page)
{
	return kt_attrib_show(def, &attrib_to_acl(item)->attrib, page);
}

static ssize_t kt_acl_attrib_store(struct config_item *item,
				   const struct kt_attrib_def *def,
				   const char *page, size_t count)
{
	return kt_attrib_store(item, def, &attrib_to_acl(item)->attrib, NULL,
			       page, count);
}

#define KT_ACL_ATTRIB(_name, _min, _max, _holes, _allowed)		\
	KT_ATTRIB_DEF(kt_acl_attrib_, struct kt_iscsi_acl_attrib, _name,	\
		      _min, _max, _holes, _allowed, NULL)

#define KT_ACL_RANGE(_name, _min, _max)					\
	KT_ACL_ATTRIB(_name, _min, _max, 0, #_min ".." #_max)

KT_ACL_RANGE(dataout_timeout, 2, 60);
KT_ACL_RANGE(dataout_timeout_retries, 1, 15);
KT_ACL_RANGE(default_erl, 0, 2);
/* 0 turns NOP-In pings off */
KT_ACL_ATTRIB(nopin_timeout, 0, 60, BIT(1) | BIT(2), "0 or 3..60");
KT_ACL_RANGE(nopin_response_timeout, 3, 60);
KT_ACL_RANGE(random_datain_pdu_offsets, 0, 1);
KT_ACL_RANGE(random_datain_seq_offsets, 0, 1);
KT_ACL_RANGE(random_r2t_offsets, 0, 1);
KT_ACL_RANGE(tmr_warm_reset, 0, 1);
KT_ACL_RANGE(tmr_cold_reset, 0, 1);

static ssize_t kt_acl_attrib_authentication_show(struct config_item *item,
						 char *page)
{
	return sysfs_emit(page, "%d\n",
			  attrib_to_acl(item)->attrib.authentication);
}

/* -1: as the TPG's attrib/authentication says */
static ssize_t kt_acl_attrib_authentication_store(struct config_item *item,
						  const char *page,
						  size_t count)
{
	struct kt_iscsi_acl *acl = attrib_to_acl(item);
	char where[KT_ISCSI_WHERE_LEN];
	char num[24];
	s32 val;

	if (kt_cfs_number(page, count, num, sizeof(num)) ||
	    kstrtos32(num, 0, &val) || val < -1 || val > 1) {
		pr_warn_ratelimited("%s/authentication: '%*pE': want -1 (as the TPG), 0 or 1\n",
				    kt_iscsi_cfs_path(item, where, sizeof(where)),
				    kt_iscsi_cfs_shown(page, count), page);
		return -EINVAL;
	}
	mutex_lock(&kt_iscsi_config_lock);
	acl->attrib.authentication = val;
	mutex_unlock(&kt_iscsi_config_lock);
	return count;
}

CONFIGFS_ATTR(kt_acl_attrib_, authentication);

struct configfs_attribute *kt_iscsi_acl_attrib_attrs[] = {
	&kt_acl_attrib_attr_dataout_timeout,
	&kt_acl_attrib_attr_dataout_timeout_retries,
	&kt_acl_attrib_attr_default_erl,
	&kt_acl_attrib_attr_nopin_timeout,
	&kt_acl_attrib_attr_nopin_response_timeout,
	&kt_acl_attrib_attr_random_datain_pdu_offsets,
	&kt_acl_attrib_attr_random_datain_seq_offsets,
	&kt_acl_attrib_attr_random_r2t_offsets,
	&kt_acl_attrib_attr_authentication,
	&kt_acl_attrib_attr_tmr_warm_reset,
	&kt_acl_attrib_attr_tmr_cold_reset,
	NULL,
};
