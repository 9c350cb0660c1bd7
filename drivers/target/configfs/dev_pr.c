// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_core: core/HBA/DEV/pr/, the reservation state as LIO shows it
 * (rtslib-fb and targetcli read these names). Read-only, except
 * res_aptpl_metadata: rtslib writes LIO's APTPL file back there when it
 * finds one in dbroot; we keep our own file (pr_aptpl.c), so the write is
 * accepted and ignored.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/configfs.h>
#include <linux/module.h>

#include <ktarget/proto/pr.h>

#include "configfs.h"
#include "core.h"
#include "pr/pr.h"

#define KT_NO_PR_HOLDER		"No SPC-3 Reservation holder\n"

static struct kt_dev *kt_pr_dev(struct config_item *item)
{
	return container_of(to_config_group(item), struct kt_dev, pr_group);
}

static const char *kt_pr_type_name(u8 type)
{
	switch (type) {
	case KT_PR_TYPE_WE:	return "Write Exclusive Access";
	case KT_PR_TYPE_EA:	return "Exclusive Access";
	case KT_PR_TYPE_WE_RO:	return "Write Exclusive Access, Registrants Only";
	case KT_PR_TYPE_EA_RO:	return "Exclusive Access, Registrants Only";
	case KT_PR_TYPE_WE_AR:	return "Write Exclusive Access, All Registrants";
	case KT_PR_TYPE_EA_AR:	return "Exclusive Access, All Registrants";
	}
	return "Unknown";
}

/* "iqn...,i,0x23d000000001" */
static int kt_pr_port_name(const struct kt_pr_reg *reg, char *buf, size_t n)
{
	if (!reg->tid.has_isid)
		return scnprintf(buf, n, "%s", reg->tid.name);
	return scnprintf(buf, n, "%s,i,0x%*phN", reg->tid.name,
			 KT_PR_ISID_LEN, reg->tid.isid);
}

static ssize_t kt_pr_res_holder_show(struct config_item *item, char *page)
{
	struct kt_dev *dev = kt_pr_dev(item);
	struct kt_res *res = &dev->state->res;
	ssize_t len = 0;

	mutex_lock(&res->lock);
	if (res->spc2_holder) {
		const struct kt_session *sess = res->spc2_holder;

		len = sysfs_emit(page, "SPC-2 Reservation: %s Initiator: %s\n",
				 kt_pr_proto_name(sess->tid.proto),
				 sess->initiator);
	} else if (res->spc2_elsewhere) {
		len = sysfs_emit(page, "SPC-2 Reservation: through another node of the cluster\n");
	} else if (res->type == KT_PR_TYPE_NONE) {
		len = sysfs_emit(page, KT_NO_PR_HOLDER);
	} else if (!res->holder) {
		len = sysfs_emit(page, "SPC-3 Reservation: All Target Registrants\n");
	} else {
		len = sysfs_emit(page, "SPC-3 Reservation: %s Initiator: ",
				 kt_pr_proto_name(res->holder->tid.proto));
		len += kt_pr_port_name(res->holder, page + len, PAGE_SIZE - len);
		len += sysfs_emit_at(page, len, "\n");
	}
	mutex_unlock(&res->lock);
	return len;
}

static ssize_t kt_pr_res_pr_all_tgt_pts_show(struct config_item *item,
					     char *page)
{
	struct kt_res *res = &kt_pr_dev(item)->state->res;
	ssize_t len;

	mutex_lock(&res->lock);
	if (res->type == KT_PR_TYPE_NONE)
		len = sysfs_emit(page, KT_NO_PR_HOLDER);
	else if (!res->holder || res->holder->all_tg_pt)
		len = sysfs_emit(page, "SPC-3 Reservation: All Target Ports\n");
	else
		len = sysfs_emit(page, "SPC-3 Reservation: Single Target Port\n");
	mutex_unlock(&res->lock);
	return len;
}

static ssize_t kt_pr_res_pr_generation_show(struct config_item *item,
					    char *page)
{
	return sysfs_emit(page, "0x%08x\n",
			  READ_ONCE(kt_pr_dev(item)->state->res.generation));
}

static ssize_t kt_pr_res_pr_holder_tg_port_show(struct config_item *item,
						char *page)
{
	struct kt_res *res = &kt_pr_dev(item)->state->res;
	ssize_t len;

	mutex_lock(&res->lock);
	if (res->type == KT_PR_TYPE_NONE)
		len = sysfs_emit(page, KT_NO_PR_HOLDER);
	else if (!res->holder)
		len = sysfs_emit(page, "SPC-3 Reservation: All Target Registrants\n");
	else
		len = sysfs_emit(page, "SPC-3 Reservation: Relative Target Port Identifier: %u\n",
				 res->holder->rtpi);
	mutex_unlock(&res->lock);
	return len;
}

static ssize_t kt_pr_res_pr_registered_i_pts_show(struct config_item *item,
						  char *page)
{
	struct kt_res *res = &kt_pr_dev(item)->state->res;
	struct kt_pr_reg *reg;
	ssize_t len;

	mutex_lock(&res->lock);
	len = sysfs_emit(page, "SPC-3 PR Registrations:\n");
	list_for_each_entry(reg, &res->regs, node) {
		if (len > PAGE_SIZE - KT_PR_NAME_LEN - 96) {
			len += sysfs_emit_at(page, len, "...\n");
			break;
		}
		len += sysfs_emit_at(page, len, "%s Node: ",
				     kt_pr_proto_name(reg->tid.proto));
		len += kt_pr_port_name(reg, page + len, PAGE_SIZE - len);
		len += sysfs_emit_at(page, len,
				     " Key: 0x%016llx PRgeneration: 0x%08x Target Port: %u%s\n",
				     reg->key, res->generation, reg->rtpi,
				     reg->all_tg_pt ? " (all)" : "");
	}
	if (list_empty(&res->regs))
		len += sysfs_emit_at(page, len, "None\n");
	mutex_unlock(&res->lock);
	return len;
}

static ssize_t kt_pr_res_pr_type_show(struct config_item *item, char *page)
{
	struct kt_res *res = &kt_pr_dev(item)->state->res;
	ssize_t len;

	mutex_lock(&res->lock);
	if (res->type == KT_PR_TYPE_NONE)
		len = sysfs_emit(page, KT_NO_PR_HOLDER);
	else
		len = sysfs_emit(page, "SPC-3 Reservation Type: %s\n",
				 kt_pr_type_name(res->type));
	mutex_unlock(&res->lock);
	return len;
}

static ssize_t kt_pr_res_type_show(struct config_item *item, char *page)
{
	struct kt_dev *dev = kt_pr_dev(item);

	if (READ_ONCE(dev->state->res.active) & KT_RES_SPC2)
		return sysfs_emit(page, "SPC2_RESERVATIONS\n");
	return sysfs_emit(page, "SPC3_PERSISTENT_RESERVATIONS\n");
}

static ssize_t kt_pr_res_aptpl_active_show(struct config_item *item,
					   char *page)
{
	return sysfs_emit(page, "APTPL Bit Status: %s\n",
			  READ_ONCE(kt_pr_dev(item)->state->res.aptpl) ?
			  "Activated" : "Disabled");
}

static ssize_t kt_pr_res_aptpl_metadata_show(struct config_item *item,
					     char *page)
{
	return sysfs_emit(page, "Ready to process PR APTPL metadata..\n");
}

static ssize_t kt_pr_res_aptpl_metadata_store(struct config_item *item,
					      const char *page, size_t count)
{
	pr_warn_ratelimited("%s: pr/res_aptpl_metadata: LIO's APTPL metadata is not used; ktarget restores its own file from dbroot\n",
			    config_item_name(&kt_pr_dev(item)->group.cg_item));
	return count;
}

CONFIGFS_ATTR_RO(kt_pr_, res_holder);
CONFIGFS_ATTR_RO(kt_pr_, res_pr_all_tgt_pts);
CONFIGFS_ATTR_RO(kt_pr_, res_pr_generation);
CONFIGFS_ATTR_RO(kt_pr_, res_pr_holder_tg_port);
CONFIGFS_ATTR_RO(kt_pr_, res_pr_registered_i_pts);
CONFIGFS_ATTR_RO(kt_pr_, res_pr_type);
CONFIGFS_ATTR_RO(kt_pr_, res_type);
CONFIGFS_ATTR_RO(kt_pr_, res_aptpl_active);
CONFIGFS_ATTR(kt_pr_, res_aptpl_metadata);

static struct configfs_attribute *kt_pr_attrs[] = {
	&kt_pr_attr_res_holder,
	&kt_pr_attr_res_pr_all_tgt_pts,
	&kt_pr_attr_res_pr_generation,
	&kt_pr_attr_res_pr_holder_tg_port,
	&kt_pr_attr_res_pr_registered_i_pts,
	&kt_pr_attr_res_pr_type,
	&kt_pr_attr_res_type,
	&kt_pr_attr_res_aptpl_active,
	&kt_pr_attr_res_aptpl_metadata,
	NULL,
};

const struct config_item_type kt_dev_pr_type = {
	.ct_attrs	= kt_pr_attrs,
	.ct_owner	= THIS_MODULE,
};
