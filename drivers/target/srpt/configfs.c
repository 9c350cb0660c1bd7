// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_srpt: the configfs side, with the names of LIO's ib_srpt that
 * rtslib-fb's "srpt" fabric writes:
 *
 *	target/srpt/discovery_auth/rdma_cm_port
 *	target/srpt/PORT/tpgt_N/{enable, lun/, acls/,
 *		attrib/{srp_max_req_size, srp_max_rsp_size, srp_sq_size,
 *			use_srq}}
 *
 * PORT names an RDMA port by its GUID (16 hex digits, with or without
 * "0x", or xxxx:xxxx:xxxx:xxxx) or its GID 0 ("0x" and 32 hex digits, as
 * rtslib makes it from /sys/class/infiniband/DEV/ports/N/gids/0, or the
 * GID in its eight-group form). A login is taken by a TPG of the port it
 * came in on. ACLs are needed (no demo mode, as in ib_srpt). Every refused
 * write logs one line saying what was wrong.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/configfs.h>
#include <linux/ctype.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "srpt.h"

/* the ports and TPGs logins look through, and the TPGs' channel lists */
DEFINE_MUTEX(kt_srpt_lock);
LIST_HEAD(kt_srpt_tports);

/* bytes of a refused value that are logged */
#define KT_SRPT_SHOWN	64

/* @n hex digits at @s into @out, n / 2 bytes; false on another character */
static bool kt_srpt_hex(const char *s, size_t n, u8 *out)
{
	return !(n % 2) && !hex2bin(out, s, n / 2);
}

/*
 * @name as a port: a GUID in id[8..15] (*is_guid) or a GID in id[0..15].
 * NULL, or what is wrong with it.
 */
static const char *kt_srpt_parse_port(const char *name, u8 *id, bool *is_guid)
{
	size_t len = strlen(name), i, g;
	char digits[33];

	memset(id, 0, 16);
	if (len > 2 && name[0] == '0' && (name[1] == 'x' || name[1] == 'X')) {
		name += 2;
		len -= 2;
	}
	/* plain hex: 16 digits a GUID, 32 a GID */
	if ((len == 16 || len == 32) && strspn(name, "0123456789abcdefABCDEF") == len) {
		*is_guid = len == 16;
		return kt_srpt_hex(name, len, id + 16 - len / 2) ? NULL : "bad hex digit";
	}
	/* groups of four hex digits with colons: 4 a GUID, 8 a GID */
	if (len != 19 && len != 39)
		return "want a port GUID (16 hex digits) or GID (0x and 32 hex digits)";
	for (i = 0, g = 0; i < len; i++) {
		if (i % 5 == 4) {
			if (name[i] != ':')
				return "want groups of four hex digits between colons";
			continue;
		}
		if (!isxdigit(name[i]))
			return "bad hex digit";
		digits[g++] = name[i];
	}
	*is_guid = len == 19;
	return kt_srpt_hex(digits, g, id + 16 - g / 2) ? NULL : "bad hex digit";
}

/* ---- target/srpt/discovery_auth ---- */

static ssize_t kt_srpt_disc_rdma_cm_port_show(struct config_item *item,
					      char *page)
{
	return sysfs_emit(page, "%u\n", kt_srpt_listen_port());
}

static ssize_t kt_srpt_disc_rdma_cm_port_store(struct config_item *item,
					       const char *page, size_t count)
{
	u32 port;
	int ret;

	if (kt_cfs_u32(page, count, 0, U16_MAX, &port)) {
		pr_warn_ratelimited("discovery_auth/rdma_cm_port: '%*pE': want a port number, 0 for none\n",
				    (int)min_t(size_t, kt_cfs_value_len(page, count),
					       KT_SRPT_SHOWN), page);
		return -EINVAL;
	}
	ret = kt_srpt_listen(port);
	return ret ? ret : count;
}

CONFIGFS_ATTR(kt_srpt_disc_, rdma_cm_port);

static struct configfs_attribute *kt_srpt_disc_attrs[] = {
	&kt_srpt_disc_attr_rdma_cm_port,
	NULL,
};

static void kt_srpt_disc_release(struct config_item *item)
{
	kfree(to_config_group(item));
}

static struct configfs_item_operations kt_srpt_disc_item_ops = {
	.release	= kt_srpt_disc_release,
};

static const struct config_item_type kt_srpt_disc_type = {
	.ct_item_ops	= &kt_srpt_disc_item_ops,
	.ct_attrs	= kt_srpt_disc_attrs,
	.ct_owner	= THIS_MODULE,
};

/* mkdir target/srpt: discovery_auth/, whose port outlives it, as in LIO */
void kt_srpt_init_fabric_groups(struct config_group *root)
{
	struct config_group *group;

	group = kzalloc(sizeof(*group), GFP_KERNEL);
	if (!group)
		return;
	config_group_init_type_name(group, "discovery_auth", &kt_srpt_disc_type);
	configfs_add_default_group(group, root);
}

/* ---- target/srpt/PORT ---- */

struct kt_wwn *kt_srpt_make_wwn(const char *name)
{
	struct kt_srpt_tport *tport;
	const char *why;
	u8 id[16];
	bool is_guid;

	why = kt_srpt_parse_port(name, id, &is_guid);
	if (why) {
		pr_warn_ratelimited("srpt/%.*s: not a port GUID or GID: %s\n",
				    KT_SRPT_SHOWN, name, why);
		return ERR_PTR(-EINVAL);
	}
	tport = kzalloc(sizeof(*tport), GFP_KERNEL);
	if (!tport)
		return ERR_PTR(-ENOMEM);
	memcpy(tport->id, id, sizeof(id));
	tport->is_guid = is_guid;
	INIT_LIST_HEAD(&tport->tpgs);
	mutex_lock(&kt_srpt_lock);
	list_add_tail(&tport->node, &kt_srpt_tports);
	mutex_unlock(&kt_srpt_lock);
	return &tport->wwn;
}

void kt_srpt_drop_wwn(struct kt_wwn *wwn)
{
	struct kt_srpt_tport *tport = container_of(wwn, struct kt_srpt_tport,
						   wwn);

	mutex_lock(&kt_srpt_lock);
	list_del(&tport->node);
	WARN_ON_ONCE(!list_empty(&tport->tpgs));
	mutex_unlock(&kt_srpt_lock);
	kfree(tport);
}

/* ---- PORT/tpgt_N ---- */

struct kt_tpg *kt_srpt_make_tpg(struct kt_wwn *wwn, u16 tag)
{
	struct kt_srpt_tport *tport = container_of(wwn, struct kt_srpt_tport,
						   wwn);
	struct kt_srpt_tpg *tpg;

	tpg = kzalloc(sizeof(*tpg), GFP_KERNEL);
	if (!tpg)
		return ERR_PTR(-ENOMEM);
	tpg->tport = tport;
	INIT_LIST_HEAD(&tpg->channels);
	tpg->max_req_size = READ_ONCE(kt_srpt_max_req_size);
	tpg->max_rsp_size = KT_SRPT_DEF_RSP_SIZE;
	tpg->sq_size = READ_ONCE(kt_srpt_sq_size);
	/* ib_srpt: ACLs only, writable */
	tpg->tpg.generate_node_acls = false;
	tpg->tpg.demo_write_protect = false;
	mutex_lock(&kt_srpt_lock);
	list_add_tail(&tpg->node, &tport->tpgs);
	mutex_unlock(&kt_srpt_lock);
	return &tpg->tpg;
}

/* configfs releases a TPG after its LUNs and ACLs: its channels go first */
void kt_srpt_drop_tpg(struct kt_tpg *se_tpg)
{
	struct kt_srpt_tpg *tpg = to_srpt_tpg(se_tpg);

	kt_srpt_tpg_close(tpg, NULL, true);
	mutex_lock(&kt_srpt_lock);
	list_del(&tpg->node);
	mutex_unlock(&kt_srpt_lock);
	kfree(tpg);
}

/* Called without tpg->lock; disabling ends the TPG's channels. */
int kt_srpt_tpg_enable(struct kt_tpg *se_tpg, bool enable)
{
	struct kt_srpt_tpg *tpg = to_srpt_tpg(se_tpg);

	if (!enable) {
		kt_srpt_tpg_close(tpg, NULL, true);
		return 0;
	}
	mutex_lock(&kt_srpt_lock);
	tpg->closed = false;
	mutex_unlock(&kt_srpt_lock);
	return 0;
}

/* acls/INITIATOR is being removed: its channels end */
void kt_srpt_close_acl(struct kt_node_acl *acl)
{
	kt_srpt_tpg_close(to_srpt_tpg(acl->tpg), acl, false);
}

/* ---- tpgt_N/attrib/ ---- */

static struct kt_srpt_tpg *attrib_to_tpg(struct config_item *item)
{
	return to_srpt_tpg(container_of(to_config_group(item), struct kt_tpg,
					attrib_group));
}

/* a u32 attribute of the TPG, in [min, max]; new logins take it */
static ssize_t kt_srpt_attrib_store(struct config_item *item,
				    const char *page, size_t count,
				    const char *attr, u32 min, u32 max,
				    u32 *field)
{
	struct kt_srpt_tpg *tpg = attrib_to_tpg(item);
	u32 val;

	if (kt_cfs_u32(page, count, min, max, &val)) {
		pr_warn_ratelimited("%s/tpgt_%u/attrib/%s: '%*pE': want %u..%u\n",
				    tpg->tpg.wwn->name, tpg->tpg.tag, attr,
				    (int)min_t(size_t, kt_cfs_value_len(page, count),
					       KT_SRPT_SHOWN), page, min, max);
		return -EINVAL;
	}
	mutex_lock(&kt_srpt_lock);
	*field = val;
	mutex_unlock(&kt_srpt_lock);
	return count;
}

static ssize_t kt_srpt_attrib_srp_max_req_size_show(struct config_item *item,
						    char *page)
{
	return sysfs_emit(page, "%u\n", READ_ONCE(attrib_to_tpg(item)->max_req_size));
}

static ssize_t kt_srpt_attrib_srp_max_req_size_store(struct config_item *item,
						     const char *page,
						     size_t count)
{
	return kt_srpt_attrib_store(item, page, count, "srp_max_req_size",
				    KT_SRPT_MIN_REQ_SIZE, KT_SRPT_MAX_REQ_SIZE,
				    &attrib_to_tpg(item)->max_req_size);
}

static ssize_t kt_srpt_attrib_srp_max_rsp_size_show(struct config_item *item,
						    char *page)
{
	return sysfs_emit(page, "%u\n", READ_ONCE(attrib_to_tpg(item)->max_rsp_size));
}

static ssize_t kt_srpt_attrib_srp_max_rsp_size_store(struct config_item *item,
						     const char *page,
						     size_t count)
{
	return kt_srpt_attrib_store(item, page, count, "srp_max_rsp_size",
				    KT_SRPT_MIN_RSP_SIZE, KT_SRPT_MAX_RSP_SIZE,
				    &attrib_to_tpg(item)->max_rsp_size);
}

static ssize_t kt_srpt_attrib_srp_sq_size_show(struct config_item *item,
					       char *page)
{
	return sysfs_emit(page, "%u\n", READ_ONCE(attrib_to_tpg(item)->sq_size));
}

static ssize_t kt_srpt_attrib_srp_sq_size_store(struct config_item *item,
						const char *page, size_t count)
{
	return kt_srpt_attrib_store(item, page, count, "srp_sq_size",
				    KT_SRPT_MIN_SQ_SIZE, 65536,
				    &attrib_to_tpg(item)->sq_size);
}

CONFIGFS_ATTR(kt_srpt_attrib_, srp_max_req_size);
CONFIGFS_ATTR(kt_srpt_attrib_, srp_max_rsp_size);
CONFIGFS_ATTR(kt_srpt_attrib_, srp_sq_size);

static ssize_t kt_srpt_attrib_use_srq_show(struct config_item *item,
					   char *page)
{
	return sysfs_emit(page, "0\n");
}

/* every channel has receive buffers of its own: 0 only */
static ssize_t kt_srpt_attrib_use_srq_store(struct config_item *item,
					    const char *page, size_t count)
{
	struct kt_srpt_tpg *tpg = attrib_to_tpg(item);
	u32 val;

	if (kt_cfs_u32(page, count, 0, 0, &val)) {
		pr_warn_ratelimited("%s/tpgt_%u/attrib/use_srq: want 0 (no shared receive queue)\n",
				    tpg->tpg.wwn->name, tpg->tpg.tag);
		return -EINVAL;
	}
	return count;
}

CONFIGFS_ATTR(kt_srpt_attrib_, use_srq);

struct configfs_attribute *kt_srpt_tpg_attrib_attrs[] = {
	&kt_srpt_attrib_attr_srp_max_req_size,
	&kt_srpt_attrib_attr_srp_max_rsp_size,
	&kt_srpt_attrib_attr_srp_sq_size,
	&kt_srpt_attrib_attr_use_srq,
	NULL,
};
