// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_loop: the loopback fabric's configfs side, with the names LIO's
 * tcm_loop has and rtslib-fb writes (its "loopback" fabric: WWNs of type
 * naa, feature "nexus"):
 *
 *	target/loopback/version
 *	target/loopback/naa.X/tpgt_N/{nexus, transport_status, address,
 *		attrib/fabric_prot_type}
 *
 * The core builds the rest of the tree (lun/, acls/, enable, ...). A TPG
 * sees its LUNs through one I_T nexus: writing an initiator port name
 * (naa.X, as the target's) to nexus makes it and its SCSI host; writing
 * NULL, or nothing, removes them. Unlike tcm_loop, the nexus may go while
 * LUNs are linked: its disks go with it. Every refused write returns
 * -EINVAL (or -EEXIST, -ENODEV as LIO) and logs one line saying what was
 * wrong.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/configfs.h>
#include <linux/ctype.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>

#include <ktarget/version.h>

#include "loop.h"

/* bytes of a refused value that are logged */
#define KT_LOOP_SHOWN	64

static int kt_loop_shown(const char *page, size_t count)
{
	return min_t(size_t, kt_cfs_value_len(page, count), KT_LOOP_SHOWN);
}

/*
 * A SAS address as LIO's loopback names its ports: "naa." and 16 hex
 * digits (rtslib-fb makes naa.5001405 and 9 random ones), or 32 for an
 * NAA IEEE Registered Extended name. NULL if @name is one, else why not.
 */
static const char *kt_loop_naa_error(const char *name, size_t len)
{
	size_t i, digits = len - 4;

	if (len < 4 || strncmp(name, "naa.", 4))
		return "want naa. and 16 hex digits";
	if (digits != 16 && digits != 32)
		return "want 16 (or 32) hex digits after naa.";
	for (i = 4; i < len; i++)
		if (!isxdigit(name[i]))
			return "want only hex digits after naa.";
	return NULL;
}

/* ---- target/loopback ---- */

static ssize_t kt_loop_root_version_show(struct config_item *item, char *page)
{
	return sysfs_emit(page, "ktarget loopback fabric %s\n", KT_VERSION);
}

CONFIGFS_ATTR_RO(kt_loop_root_, version);

struct configfs_attribute *kt_loop_root_attrs[] = {
	&kt_loop_root_attr_version,
	NULL,
};

/* ---- target/loopback/naa.X ---- */

struct kt_wwn *kt_loop_make_wwn(const char *name)
{
	const char *why = kt_loop_naa_error(name, strlen(name));
	struct kt_loop_tport *tport;

	if (why) {
		pr_warn_ratelimited("loopback/%.*s: not a loopback target name: %s\n",
				    KT_LOOP_SHOWN, name, why);
		return ERR_PTR(-EINVAL);
	}
	tport = kzalloc(sizeof(*tport), GFP_KERNEL);
	if (!tport)
		return ERR_PTR(-ENOMEM);
	return &tport->wwn;
}

void kt_loop_drop_wwn(struct kt_wwn *wwn)
{
	kfree(container_of(wwn, struct kt_loop_tport, wwn));
}

/* ---- naa.X/tpgt_N ---- */

struct kt_tpg *kt_loop_make_tpg(struct kt_wwn *wwn, u16 tag)
{
	struct kt_loop_tpg *tpg;

	tpg = kzalloc(sizeof(*tpg), GFP_KERNEL);
	if (!tpg)
		return ERR_PTR(-ENOMEM);
	mutex_init(&tpg->nexus_lock);
	/* LIO's loopback: demo mode, writable */
	tpg->tpg.generate_node_acls = true;
	tpg->tpg.demo_write_protect = false;
	return &tpg->tpg;
}

/* configfs releases a TPG after its LUNs: the nexus goes with it */
void kt_loop_drop_tpg(struct kt_tpg *se_tpg)
{
	struct kt_loop_tpg *tpg = to_loop_tpg(se_tpg);

	mutex_lock(&tpg->nexus_lock);
	if (tpg->nexus)
		kt_loop_nexus_drop(tpg);
	mutex_unlock(&tpg->nexus_lock);
	kfree(tpg);
}

static const char *kt_loop_tpg_path(struct kt_tpg *tpg, char *buf,
				    size_t size)
{
	snprintf(buf, size, "loopback/%s/tpgt_%u", tpg->wwn->name, tpg->tag);
	return buf;
}

#define KT_LOOP_PATH_LEN	(KT_INITIATOR_NAME_LEN + 32)

static ssize_t kt_loop_tpg_nexus_show(struct config_item *item, char *page)
{
	struct kt_loop_tpg *tpg = to_loop_tpg(kt_tpg_from_item(item));
	const char *initiator;
	ssize_t ret = 0;

	mutex_lock(&tpg->nexus_lock);
	initiator = kt_loop_initiator(tpg);
	if (initiator)
		ret = sysfs_emit(page, "%s\n", initiator);
	mutex_unlock(&tpg->nexus_lock);
	return ret;
}

/*
 * An initiator port name makes the nexus; NULL (LIO's word) or an empty
 * line removes it.
 */
static ssize_t kt_loop_tpg_nexus_store(struct config_item *item,
				       const char *page, size_t count)
{
	struct kt_tpg *se_tpg = kt_tpg_from_item(item);
	struct kt_loop_tpg *tpg = to_loop_tpg(se_tpg);
	size_t len = kt_cfs_value_len(page, count);
	char where[KT_LOOP_PATH_LEN];
	const char *why;
	char *name;
	int ret;

	kt_loop_tpg_path(se_tpg, where, sizeof(where));
	if (!len || (len == 4 && !memcmp(page, "NULL", 4))) {
		mutex_lock(&tpg->nexus_lock);
		ret = tpg->nexus ? 0 : -ENODEV;
		if (tpg->nexus)
			kt_loop_nexus_drop(tpg);
		mutex_unlock(&tpg->nexus_lock);
		if (ret)
			pr_warn_ratelimited("%s/nexus: no I_T nexus to remove\n",
					    where);
		return ret ? ret : count;
	}
	why = len >= KT_INITIATOR_NAME_LEN ? "too long" :
	      memchr(page, '\0', len) ? "has a NUL byte" :
	      kt_loop_naa_error(page, len);
	if (why) {
		pr_warn_ratelimited("%s/nexus: '%*pE': not an initiator port name: %s\n",
				    where, kt_loop_shown(page, count), page, why);
		return -EINVAL;
	}
	name = kmemdup_nul(page, len, GFP_KERNEL);
	if (!name)
		return -ENOMEM;
	mutex_lock(&tpg->nexus_lock);
	if (tpg->nexus) {
		pr_warn_ratelimited("%s/nexus: '%s': the nexus of %s exists; write NULL first\n",
				    where, name, kt_loop_initiator(tpg));
		ret = -EEXIST;
	} else {
		ret = kt_loop_nexus_make(tpg, name);
		if (ret)
			pr_warn_ratelimited("%s/nexus: '%s': no nexus made: %d\n",
					    where, name, ret);
	}
	mutex_unlock(&tpg->nexus_lock);
	kfree(name);
	return ret ? ret : count;
}

static ssize_t kt_loop_tpg_transport_status_show(struct config_item *item,
						 char *page)
{
	struct kt_loop_tpg *tpg = to_loop_tpg(kt_tpg_from_item(item));

	return sysfs_emit(page, "%s\n",
			  READ_ONCE(tpg->offline) ? "offline" : "online");
}

/*
 * offline: the port fails every command (the midlayer retries them) until
 * online again; LIO's way of testing an initiator's path handling.
 */
static ssize_t kt_loop_tpg_transport_status_store(struct config_item *item,
						  const char *page,
						  size_t count)
{
	struct kt_tpg *se_tpg = kt_tpg_from_item(item);
	size_t len = kt_cfs_value_len(page, count);
	char where[KT_LOOP_PATH_LEN];

	if (len == 6 && !memcmp(page, "online", 6)) {
		WRITE_ONCE(to_loop_tpg(se_tpg)->offline, false);
	} else if (len == 7 && !memcmp(page, "offline", 7)) {
		WRITE_ONCE(to_loop_tpg(se_tpg)->offline, true);
	} else {
		pr_warn_ratelimited("%s/transport_status: '%*pE': want online or offline\n",
				    kt_loop_tpg_path(se_tpg, where, sizeof(where)),
				    kt_loop_shown(page, count), page);
		return -EINVAL;
	}
	return count;
}

/* H:C:T of the nexus's target, as the midlayer names it; empty without */
static ssize_t kt_loop_tpg_address_show(struct config_item *item, char *page)
{
	struct kt_tpg *se_tpg = kt_tpg_from_item(item);
	struct kt_loop_tpg *tpg = to_loop_tpg(se_tpg);
	ssize_t ret = 0;
	int host;

	mutex_lock(&tpg->nexus_lock);
	host = kt_loop_host_no(tpg);
	if (host >= 0)
		ret = sysfs_emit(page, "%d:0:%u\n", host, se_tpg->tag);
	mutex_unlock(&tpg->nexus_lock);
	return ret;
}

CONFIGFS_ATTR(kt_loop_tpg_, nexus);
CONFIGFS_ATTR(kt_loop_tpg_, transport_status);
CONFIGFS_ATTR_RO(kt_loop_tpg_, address);

struct configfs_attribute *kt_loop_tpg_attrs[] = {
	&kt_loop_tpg_attr_nexus,
	&kt_loop_tpg_attr_transport_status,
	&kt_loop_tpg_attr_address,
	NULL,
};

/* ---- tpgt_N/attrib/ ---- */

static struct kt_tpg *attrib_to_tpg(struct config_item *item)
{
	return container_of(to_config_group(item), struct kt_tpg, attrib_group);
}

static ssize_t kt_loop_attrib_fabric_prot_type_show(struct config_item *item,
						    char *page)
{
	struct kt_loop_tpg *tpg = to_loop_tpg(attrib_to_tpg(item));

	return sysfs_emit(page, "%u\n", READ_ONCE(tpg->fabric_prot_type));
}

/*
 * As LIO's: the protection type (0, 1 or 3) the next nexus shows on LUs
 * that keep no PI of their own; the core checks and drops the tuples the
 * sd driver sends with a write and makes those of a read. A LU with PI of
 * its own (attrib/pi_prot_type) shows its own type whatever this says.
 */
static ssize_t kt_loop_attrib_fabric_prot_type_store(struct config_item *item,
						     const char *page,
						     size_t count)
{
	struct kt_loop_tpg *tpg = to_loop_tpg(attrib_to_tpg(item));
	char where[KT_LOOP_PATH_LEN];
	u32 val;

	if (kt_cfs_u32(page, count, 0, 3, &val) || val == 2) {
		pr_warn_ratelimited("%s/attrib/fabric_prot_type: '%*pE': want 0, 1 or 3 (type 2 needs 32-byte CDBs)\n",
				    kt_loop_tpg_path(&tpg->tpg, where,
						     sizeof(where)),
				    kt_loop_shown(page, count), page);
		return -EINVAL;
	}
	WRITE_ONCE(tpg->fabric_prot_type, val);
	return count;
}

CONFIGFS_ATTR(kt_loop_attrib_, fabric_prot_type);

struct configfs_attribute *kt_loop_tpg_attrib_attrs[] = {
	&kt_loop_attrib_attr_fabric_prot_type,
	NULL,
};
