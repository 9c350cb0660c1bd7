// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_vhost: the vhost fabric's configfs side, with the names LIO's
 * vhost_scsi has and rtslib-fb writes (its "vhost" fabric: WWNs of type
 * naa, features nexus, acls and tpgts):
 *
 *	target/vhost/version
 *	target/vhost/{naa.X|fc.X|iqn.X}/tpgt_N/{nexus, attrib/fabric_prot_type}
 *
 * The core builds the rest (lun/, acls/, enable, ...). N is the guest's
 * target number, so 1 to 255. A TPG serves a guest through one I_T nexus:
 * writing an initiator port name of the WWN's type (naa. for naa., fc.
 * for fc., iqn. for iqn., as LIO checks) makes it; writing NULL, or
 * nothing, removes it, unless an endpoint (VHOST_SCSI_SET_ENDPOINT) uses
 * the TPG: then -EBUSY, as LIO's. Removing the TPG itself detaches it from
 * its endpoint first (the guest's target goes) and waits for its commands.
 *
 * A LUN linked into, or about to be unlinked from, a TPG of an endpoint
 * reaches the guest as a hotplug event (event.c).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/configfs.h>
#include <linux/ctype.h>
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/string.h>

#include <ktarget/version.h>

#include "vhost.h"

/* bytes of a refused value that are logged */
#define KT_VHOST_SHOWN		64
#define KT_VHOST_PATH_LEN	(KT_INITIATOR_NAME_LEN + 32)

static int kt_vhost_shown(const char *page, size_t count)
{
	return min_t(size_t, kt_cfs_value_len(page, count), KT_VHOST_SHOWN);
}

static bool kt_vhost_hex(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (!isxdigit(s[i]))
			return false;
	return true;
}

/*
 * The protocol of a port name: naa. and 16 (or 32) hex digits (SAS),
 * fc. and 16 (FC), iqn. and a printable rest (iSCSI). NULL if @name is
 * one, else why not.
 */
static const char *kt_vhost_name_error(const char *name, size_t len, u8 *proto)
{
	size_t i;

	if (len > 4 && !strncmp(name, "naa.", 4)) {
		*proto = KT_VHOST_PROTO_SAS;
		if (len - 4 != 16 && len - 4 != 32)
			return "want 16 (or 32) hex digits after naa.";
		return kt_vhost_hex(name + 4, len - 4) ? NULL :
		       "want only hex digits after naa.";
	}
	if (len > 3 && !strncmp(name, "fc.", 3)) {
		*proto = KT_VHOST_PROTO_FCP;
		return len - 3 == 16 && kt_vhost_hex(name + 3, 16) ? NULL :
		       "want 16 hex digits after fc.";
	}
	if (len > 4 && !strncmp(name, "iqn.", 4)) {
		*proto = KT_VHOST_PROTO_ISCSI;
		for (i = 4; i < len; i++)
			if (!isgraph(name[i]))
				return "want no space or control character in an iqn. name";
		return NULL;
	}
	return "want naa., fc. or iqn.";
}

static const char *kt_vhost_tpg_path(struct kt_vhost_tpg *tpg, char *buf,
				     size_t size)
{
	snprintf(buf, size, "vhost/%s/tpgt_%u", tpg->tport->wwn.name, tpg->tag);
	return buf;
}

/* ---- target/vhost ---- */

static ssize_t kt_vhost_root_version_show(struct config_item *item, char *page)
{
	return sysfs_emit(page, "ktarget vhost fabric %s\n", KT_VERSION);
}

CONFIGFS_ATTR_RO(kt_vhost_root_, version);

struct configfs_attribute *kt_vhost_root_attrs[] = {
	&kt_vhost_root_attr_version,
	NULL,
};

/* ---- target/vhost/WWN ---- */

struct kt_wwn *kt_vhost_make_wwn(const char *name)
{
	struct kt_vhost_tport *tport;
	const char *why;
	u8 proto = 0;

	why = kt_vhost_name_error(name, strlen(name), &proto);
	if (why) {
		pr_warn_ratelimited("vhost/%.*s: not a vhost target name: %s\n",
				    KT_VHOST_SHOWN, name, why);
		return ERR_PTR(-EINVAL);
	}
	tport = kzalloc(sizeof(*tport), GFP_KERNEL);
	if (!tport)
		return ERR_PTR(-ENOMEM);
	tport->proto = proto;
	return &tport->wwn;
}

void kt_vhost_drop_wwn(struct kt_wwn *wwn)
{
	kfree(container_of(wwn, struct kt_vhost_tport, wwn));
}

/* ---- WWN/tpgt_N ---- */

struct kt_tpg *kt_vhost_make_tpg(struct kt_wwn *wwn, u16 tag)
{
	struct kt_vhost_tpg *tpg;

	if (tag >= KT_VHOST_MAX_TARGET) {
		pr_warn_ratelimited("vhost/%s/tpgt_%u: a guest addresses targets 1 to %u\n",
				    wwn->name, tag, KT_VHOST_MAX_TARGET - 1);
		return ERR_PTR(-EINVAL);
	}
	tpg = kzalloc(sizeof(*tpg), GFP_KERNEL);
	if (!tpg)
		return ERR_PTR(-ENOMEM);
	tpg->tport = container_of(wwn, struct kt_vhost_tport, wwn);
	tpg->tag = tag;
	atomic_set(&tpg->inflight, 0);
	/* LIO's vhost: demo mode, writable */
	tpg->tpg.generate_node_acls = true;
	tpg->tpg.demo_write_protect = false;
	mutex_lock(&kt_vhost_mutex);
	list_add_tail(&tpg->node, &kt_vhost_tpgs);
	mutex_unlock(&kt_vhost_mutex);
	return &tpg->tpg;
}

static int kt_vhost_nexus_make(struct kt_vhost_tpg *tpg, const char *name)
{
	struct kt_vhost_nexus *nx;
	struct kt_node_acl *acl;
	int ret;

	lockdep_assert_held(&kt_vhost_mutex);
	nx = kzalloc(sizeof(*nx), GFP_KERNEL);
	if (!nx)
		return -ENOMEM;
	nx->sess.prot_type = READ_ONCE(tpg->fabric_prot_type);
	nx->sess.tid.proto = tpg->tport->proto;
	strscpy(nx->sess.tid.name, name, sizeof(nx->sess.tid.name));
	/* an ACL of that name maps the LUNs it has; demo mode otherwise */
	acl = kt_tpg_find_acl(&tpg->tpg, name);
	ret = kt_session_register(&nx->sess, &tpg->tpg, acl, name);
	if (ret) {
		if (acl)
			kt_acl_put(acl);
		kfree(nx);
		return ret;
	}
	tpg->nexus = nx;
	kt_obj_inc(&kt_vhost_objs[KT_VHOST_OBJ_NEXUS]);
	return 0;
}

/* No endpoint serves @tpg: nothing of the nexus is in flight. */
static void kt_vhost_nexus_drop(struct kt_vhost_tpg *tpg)
{
	struct kt_vhost_nexus *nx = tpg->nexus;

	lockdep_assert_held(&kt_vhost_mutex);
	WARN_ON_ONCE(tpg->dev || atomic_read(&tpg->inflight));
	kt_session_nexus_loss(&nx->sess);
	kt_session_unregister(&nx->sess);
	tpg->nexus = NULL;
	kfree(nx);
	kt_obj_dec(&kt_vhost_objs[KT_VHOST_OBJ_NEXUS]);
}

/* configfs releases a TPG after its LUNs: endpoint and nexus go with it */
void kt_vhost_drop_tpg(struct kt_tpg *se_tpg)
{
	struct kt_vhost_tpg *tpg = to_vhost_tpg(se_tpg);

	mutex_lock(&kt_vhost_mutex);
	/* no SET_ENDPOINT finds it any more */
	list_del(&tpg->node);
	if (tpg->dev)
		kt_vhost_detach_tpg(tpg);
	if (tpg->nexus)
		kt_vhost_nexus_drop(tpg);
	mutex_unlock(&kt_vhost_mutex);
	kfree(tpg);
}

static ssize_t kt_vhost_tpg_nexus_show(struct config_item *item, char *page)
{
	struct kt_vhost_tpg *tpg = to_vhost_tpg(kt_tpg_from_item(item));
	ssize_t ret = 0;

	mutex_lock(&kt_vhost_mutex);
	if (tpg->nexus)
		ret = sysfs_emit(page, "%s\n", tpg->nexus->sess.initiator);
	mutex_unlock(&kt_vhost_mutex);
	return ret;
}

static ssize_t kt_vhost_nexus_remove(struct kt_vhost_tpg *tpg,
				     const char *where, size_t count)
{
	const char *why = NULL;
	ssize_t ret = count;

	mutex_lock(&kt_vhost_mutex);
	if (!tpg->nexus) {
		why = "no I_T nexus to remove";
		ret = -ENODEV;
	} else if (tpg->dev) {
		why = "a guest's endpoint uses it; clear the endpoint first";
		ret = -EBUSY;
	} else {
		kt_vhost_nexus_drop(tpg);
	}
	mutex_unlock(&kt_vhost_mutex);
	if (why)
		pr_warn_ratelimited("%s/nexus: %s\n", where, why);
	return ret;
}

/*
 * An initiator port name makes the nexus; NULL (LIO's word) or an empty
 * line removes it.
 */
static ssize_t kt_vhost_tpg_nexus_store(struct config_item *item,
					const char *page, size_t count)
{
	struct kt_vhost_tpg *tpg = to_vhost_tpg(kt_tpg_from_item(item));
	size_t len = kt_cfs_value_len(page, count);
	char where[KT_VHOST_PATH_LEN];
	const char *why;
	u8 proto = 0;
	char *name;
	int ret;

	kt_vhost_tpg_path(tpg, where, sizeof(where));
	if (!len || (len == 4 && !memcmp(page, "NULL", 4)))
		return kt_vhost_nexus_remove(tpg, where, count);
	why = len >= KT_INITIATOR_NAME_LEN ? "too long" :
	      memchr(page, '\0', len) ? "has a NUL byte" :
	      kt_vhost_name_error(page, len, &proto);
	if (!why && proto != tpg->tport->proto)
		why = "not of the target's type (naa., fc. or iqn.)";
	if (why) {
		pr_warn_ratelimited("%s/nexus: '%*pE': not an initiator port name: %s\n",
				    where, kt_vhost_shown(page, count), page, why);
		return -EINVAL;
	}
	name = kmemdup_nul(page, len, GFP_KERNEL);
	if (!name)
		return -ENOMEM;
	mutex_lock(&kt_vhost_mutex);
	if (tpg->nexus) {
		pr_warn_ratelimited("%s/nexus: '%s': the nexus of %s exists; write NULL first\n",
				    where, name, tpg->nexus->sess.initiator);
		ret = -EEXIST;
	} else {
		ret = kt_vhost_nexus_make(tpg, name);
		if (ret)
			pr_warn_ratelimited("%s/nexus: '%s': no nexus made: %d\n",
					    where, name, ret);
	}
	mutex_unlock(&kt_vhost_mutex);
	kfree(name);
	return ret ? ret : count;
}

CONFIGFS_ATTR(kt_vhost_tpg_, nexus);

struct configfs_attribute *kt_vhost_tpg_attrs[] = {
	&kt_vhost_tpg_attr_nexus,
	NULL,
};

/* ---- tpgt_N/attrib/ ---- */

static struct kt_vhost_tpg *attrib_to_tpg(struct config_item *item)
{
	return to_vhost_tpg(container_of(to_config_group(item), struct kt_tpg,
					 attrib_group));
}

static ssize_t kt_vhost_attrib_fabric_prot_type_show(struct config_item *item,
						     char *page)
{
	return sysfs_emit(page, "%u\n",
			  READ_ONCE(attrib_to_tpg(item)->fabric_prot_type));
}

/*
 * As LIO's: the protection type (0, 1 or 3) the next nexus shows on LUs
 * that keep no PI of their own; a guest with T10_PI sends and gets the
 * tuples, which the core checks and drops, or makes
 */
static ssize_t kt_vhost_attrib_fabric_prot_type_store(struct config_item *item,
						      const char *page,
						      size_t count)
{
	struct kt_vhost_tpg *tpg = attrib_to_tpg(item);
	char where[KT_VHOST_PATH_LEN];
	u32 val;

	if (kt_cfs_u32(page, count, 0, 3, &val) || val == 2) {
		pr_warn_ratelimited("%s/attrib/fabric_prot_type: '%*pE': want 0, 1 or 3 (type 2 needs 32-byte CDBs)\n",
				    kt_vhost_tpg_path(tpg, where, sizeof(where)),
				    kt_vhost_shown(page, count), page);
		return -EINVAL;
	}
	WRITE_ONCE(tpg->fabric_prot_type, val);
	return count;
}

CONFIGFS_ATTR(kt_vhost_attrib_, fabric_prot_type);

struct configfs_attribute *kt_vhost_tpg_attrib_attrs[] = {
	&kt_vhost_attrib_attr_fabric_prot_type,
	NULL,
};

/* ---- LUNs: hotplug events for the guest ---- */

static void kt_vhost_lun_event(struct kt_tpg *se_tpg, u64 unpacked_lun,
			       u32 reason)
{
	struct kt_vhost_tpg *tpg = to_vhost_tpg(se_tpg);
	u64 seen;

	mutex_lock(&kt_vhost_mutex);
	if (tpg->dev && !tpg->detaching && tpg->nexus &&
	    kt_session_lun_number(&tpg->nexus->sess, unpacked_lun, &seen))
		kt_vhost_event(tpg->dev, tpg->tag, seen, reason);
	mutex_unlock(&kt_vhost_mutex);
}

void kt_vhost_lun_linked(struct kt_tpg *tpg, u64 unpacked_lun)
{
	kt_vhost_lun_event(tpg, unpacked_lun, VIRTIO_SCSI_EVT_RESET_RESCAN);
}

void kt_vhost_lun_unlinking(struct kt_tpg *tpg, u64 unpacked_lun)
{
	kt_vhost_lun_event(tpg, unpacked_lun, VIRTIO_SCSI_EVT_RESET_REMOVED);
}
