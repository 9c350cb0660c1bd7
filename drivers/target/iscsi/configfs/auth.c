// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_iscsi: the CHAP credentials in configfs, with LIO's names:
 *
 *	target/iscsi/discovery_auth/	SendTargets sessions
 *	target/iscsi/IQN/tpgt_N/auth/	demo mode (generate_node_acls=1)
 *	.../acls/INITIATOR/auth/	one initiator
 *
 * each with userid, password (the initiator's name and secret, RFC 7143
 * 12.1.3), userid_mutual, password_mutual (the target's, for mutual CHAP)
 * and authenticate_target (1 when the mutual pair is set).
 *
 * Unlike LIO, a value written with echo loses its newline: LIO keeps it
 * and then refuses every login ("CHAP_N values do not match"). "NULL" or
 * an empty value clears a credential, as rtslib expects. RFC 7143 12.1.3
 * wants secrets of 12 bytes or more; like LIO we take shorter ones. Values
 * are never logged. As in LIO, reading and writing needs CAP_SYS_ADMIN.
 */
#define pr_fmt(fmt) "ktarget_iscsi: " fmt

#include <linux/capability.h>
#include <linux/configfs.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "iscsi.h"

struct kt_iscsi_auth kt_iscsi_discovery_auth;
bool kt_iscsi_discovery_enforce;

static ssize_t kt_auth_show(struct kt_iscsi_auth *auth, size_t offset,
			    char *page)
{
	ssize_t ret;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	mutex_lock(&kt_iscsi_config_lock);
	ret = sysfs_emit(page, "%s\n", (char *)auth + offset);
	mutex_unlock(&kt_iscsi_config_lock);
	return ret;
}

static ssize_t kt_auth_store(struct config_item *item,
			     struct kt_iscsi_auth *auth, const char *name,
			     size_t offset, const char *page, size_t count)
{
	size_t len = kt_cfs_value_len(page, count);
	ssize_t bad = kt_iscsi_cfs_ctrl(page, len);
	char where[KT_ISCSI_WHERE_LEN];
	char *dst = (char *)auth + offset;

	if (!capable(CAP_SYS_ADMIN)) {
		pr_warn_ratelimited("%s/%s: needs CAP_SYS_ADMIN\n",
				    kt_iscsi_cfs_path(item, where, sizeof(where)),
				    name);
		return -EPERM;
	}
	if (len >= KT_ISCSI_AUTH_LEN) {
		pr_warn_ratelimited("%s/%s: %zu bytes, at most %d\n",
				    kt_iscsi_cfs_path(item, where, sizeof(where)),
				    name, len, KT_ISCSI_AUTH_LEN - 1);
		return -EINVAL;
	}
	if (bad >= 0) {
		pr_warn_ratelimited("%s/%s: control character at byte %zd\n",
				    kt_iscsi_cfs_path(item, where, sizeof(where)),
				    name, bad);
		return -EINVAL;
	}
	if (len == 4 && !memcmp(page, "NULL", 4))
		len = 0;

	mutex_lock(&kt_iscsi_config_lock);
	memcpy(dst, page, len);
	dst[len] = '\0';
	mutex_unlock(&kt_iscsi_config_lock);
	return count;
}

static ssize_t kt_auth_target_show(struct kt_iscsi_auth *auth, char *page)
{
	bool mutual;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	mutex_lock(&kt_iscsi_config_lock);
	mutual = auth->userid_mutual[0] && auth->password_mutual[0];
	mutex_unlock(&kt_iscsi_config_lock);
	return sysfs_emit(page, "%d\n", mutual);
}

/* _pfx##get(item) is the level's struct kt_iscsi_auth */
#define KT_AUTH_STR(_pfx, _field)					\
static const size_t _pfx##_field##_off =				\
	offsetof(struct kt_iscsi_auth, _field);				\
static ssize_t _pfx##_field##_show(struct config_item *item, char *page) \
{									\
	return kt_auth_show(_pfx##get(item), _pfx##_field##_off, page);	\
}									\
static ssize_t _pfx##_field##_store(struct config_item *item,		\
				    const char *page, size_t count)	\
{									\
	return kt_auth_store(item, _pfx##get(item), #_field,		\
			     _pfx##_field##_off, page, count);		\
}									\
static struct configfs_attribute _pfx##attr_##_field = {		\
	.ca_name	= #_field,					\
	.ca_owner	= THIS_MODULE,					\
	.ca_mode	= 0644,						\
	.show		= _pfx##_field##_show,				\
	.store		= _pfx##_field##_store,				\
}

#define KT_AUTH_TARGET(_pfx)						\
static ssize_t _pfx##authenticate_target_show(struct config_item *item, \
					      char *page)		\
{									\
	return kt_auth_target_show(_pfx##get(item), page);		\
}									\
CONFIGFS_ATTR_RO(_pfx, authenticate_target)

/* ---- tpgt_N/auth/ ---- */

static struct kt_iscsi_auth *kt_tpg_auth_get(struct config_item *item)
{
	return &to_iscsi_tpg(container_of(to_config_group(item),
					  struct kt_tpg, auth_group))->auth;
}

KT_AUTH_STR(kt_tpg_auth_, userid);
KT_AUTH_STR(kt_tpg_auth_, password);
KT_AUTH_STR(kt_tpg_auth_, userid_mutual);
KT_AUTH_STR(kt_tpg_auth_, password_mutual);
KT_AUTH_TARGET(kt_tpg_auth_);

struct configfs_attribute *kt_iscsi_tpg_auth_attrs[] = {
	&kt_tpg_auth_attr_userid,
	&kt_tpg_auth_attr_password,
	&kt_tpg_auth_attr_authenticate_target,
	&kt_tpg_auth_attr_userid_mutual,
	&kt_tpg_auth_attr_password_mutual,
	NULL,
};

/* ---- acls/INITIATOR/auth/ ---- */

static struct kt_iscsi_auth *kt_acl_auth_get(struct config_item *item)
{
	return &to_iscsi_acl(container_of(to_config_group(item),
					  struct kt_node_acl, auth_group))->auth;
}

KT_AUTH_STR(kt_acl_auth_, userid);
KT_AUTH_STR(kt_acl_auth_, password);
KT_AUTH_STR(kt_acl_auth_, userid_mutual);
KT_AUTH_STR(kt_acl_auth_, password_mutual);
KT_AUTH_TARGET(kt_acl_auth_);

struct configfs_attribute *kt_iscsi_acl_auth_attrs[] = {
	&kt_acl_auth_attr_userid,
	&kt_acl_auth_attr_password,
	&kt_acl_auth_attr_authenticate_target,
	&kt_acl_auth_attr_userid_mutual,
	&kt_acl_auth_attr_password_mutual,
	NULL,
};

/* ---- target/iscsi/discovery_auth/ ---- */

static struct kt_iscsi_auth *kt_disc_get(struct config_item *item)
{
	return &kt_iscsi_discovery_auth;
}

KT_AUTH_STR(kt_disc_, userid);
KT_AUTH_STR(kt_disc_, password);
KT_AUTH_STR(kt_disc_, userid_mutual);
KT_AUTH_STR(kt_disc_, password_mutual);
KT_AUTH_TARGET(kt_disc_);

/* 1: SendTargets sessions must pass CHAP with the credentials above */
static ssize_t kt_disc_enforce_discovery_auth_show(struct config_item *item,
						   char *page)
{
	return sysfs_emit(page, "%d\n", READ_ONCE(kt_iscsi_discovery_enforce));
}

static ssize_t kt_disc_enforce_discovery_auth_store(struct config_item *item,
						    const char *page,
						    size_t count)
{
	u32 on;
	int ret;

	ret = kt_iscsi_cfs_u32(item, "enforce_discovery_auth", page, count,
			       0, 1, 0, "0 or 1", &on);
	if (ret)
		return ret;
	mutex_lock(&kt_iscsi_config_lock);
	kt_iscsi_discovery_enforce = on;
	mutex_unlock(&kt_iscsi_config_lock);
	return count;
}

CONFIGFS_ATTR(kt_disc_, enforce_discovery_auth);

static struct configfs_attribute *kt_disc_attrs[] = {
	&kt_disc_attr_userid,
	&kt_disc_attr_password,
	&kt_disc_attr_authenticate_target,
	&kt_disc_attr_userid_mutual,
	&kt_disc_attr_password_mutual,
	&kt_disc_attr_enforce_discovery_auth,
	NULL,
};

static void kt_disc_release(struct config_item *item)
{
	kfree(to_config_group(item));
}

static struct configfs_item_operations kt_disc_item_ops = {
	.release	= kt_disc_release,
};

static const struct config_item_type kt_disc_type = {
	.ct_item_ops	= &kt_disc_item_ops,
	.ct_attrs	= kt_disc_attrs,
	.ct_owner	= THIS_MODULE,
};

/*
 * mkdir target/iscsi: add discovery_auth/. The credentials are global and
 * outlive the directory, as in LIO.
 */
void kt_iscsi_init_fabric_groups(struct config_group *root)
{
	struct config_group *group;

	group = kzalloc(sizeof(*group), GFP_KERNEL);
	if (!group)
		return;
	config_group_init_type_name(group, "discovery_auth", &kt_disc_type);
	configfs_add_default_group(group, root);
}
