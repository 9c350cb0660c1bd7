// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_core: Activate Persist Through Power Loss (SPC-4 5.13.5). When
 * the last REGISTER, REGISTER AND IGNORE EXISTING KEY or REGISTER AND MOVE
 * set APTPL, the device's registrations and reservation are written to
 * $dbroot/pr/aptpl_<unit serial, or device name> at every change, and
 * read back when the device is enabled (or, if the file was not there yet,
 * by the first PERSISTENT RESERVE command: rtslib sets the unit serial
 * only after enabling the device).
 *
 * The file is a small text file of our own, one line per registration:
 *
 *	# ktarget persistent reservations
 *	aptpl=1
 *	generation=N
 *	type=T
 *	reg key=0x... rtpi=N all_tg_pt=0|1 holder=0|1 isid=HEX12|- name=NAME proto=P
 *
 * (P, the TransportID's PROTOCOL IDENTIFIER, is missing from older files:
 * iSCSI's then, the only protocol they knew.)
 *
 * It does not start with LIO's "PR_REG_START:", so rtslib leaves it alone.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/module.h>
#include <linux/namei.h>
#include <linux/slab.h>
#include <linux/string.h>

#include <ktarget/compat.h>
#include <ktarget/fabric.h>
#include <ktarget/proto/pr.h>
#include <ktarget/proto/spc.h>

#include "core.h"
#include "pr.h"

#define KT_APTPL_LINE		320	/* longest line we write */
#define KT_APTPL_MAX		(KT_APTPL_LINE * (KT_PR_MAX_REGS + 8))

/* $dbroot/pr/aptpl_NAME into @path (PATH_MAX); false if too long */
static bool kt_aptpl_path(struct kt_dev *dev, char *path, bool dir_only)
{
	const char *id = dev->wwn.unit_serial[0] ? dev->wwn.unit_serial :
			 config_item_name(&dev->group.cg_item);
	size_t n;
	char *p;

	kt_dbroot_get(path, PATH_MAX);
	n = strlen(path);
	if (dir_only)
		return snprintf(path + n, PATH_MAX - n, "/pr") < PATH_MAX - n;
	if (snprintf(path + n, PATH_MAX - n, "/pr/aptpl_%s", id) >= PATH_MAX - n)
		return false;
	/* a serial is printable, but may hold a '/' */
	for (p = path + n + strlen("/pr/aptpl_"); *p; p++)
		if (*p == '/')
			*p = '_';
	return true;
}

/* Make $dbroot/pr if it is not there. */
static int kt_aptpl_mkdir(const char *dir)
{
	struct dentry *dentry;
	struct path parent;
	int ret;

	dentry = kern_path_create(AT_FDCWD, dir, &parent, LOOKUP_DIRECTORY);
	if (IS_ERR(dentry))
		return PTR_ERR(dentry) == -EEXIST ? 0 : PTR_ERR(dentry);
	ret = vfs_mkdir(mnt_idmap(parent.mnt), d_inode(parent.dentry),
			dentry, 0700);
	done_path_create(&parent, dentry);
	return ret;
}

static size_t kt_aptpl_format(struct kt_dev *dev, char *buf, size_t size)
{
	struct kt_res *res = &dev->state->res;
	struct kt_pr_reg *reg;
	char isid[2 * KT_PR_ISID_LEN + 1];
	size_t len;

	len = scnprintf(buf, size,
			"# ktarget persistent reservations\naptpl=%d\ngeneration=%u\ntype=%u\n",
			res->aptpl, res->generation, res->type);
	if (!res->aptpl)
		return len;
	list_for_each_entry(reg, &res->regs, node) {
		if (reg->tid.has_isid)
			bin2hex(isid, reg->tid.isid, KT_PR_ISID_LEN)[0] = '\0';
		else
			strscpy(isid, "-", sizeof(isid));
		len += scnprintf(buf + len, size - len,
				 "reg key=0x%016llx rtpi=%u all_tg_pt=%d holder=%d isid=%s name=%s proto=%u\n",
				 reg->key, reg->rtpi, reg->all_tg_pt,
				 res->holder == reg, isid, reg->tid.name,
				 reg->tid.proto);
	}
	return len;
}

void kt_pr_aptpl_save(struct kt_dev *dev)
{
	struct file *f;
	char *path, *buf;
	size_t len;
	loff_t pos = 0;
	ssize_t ret;

	lockdep_assert_held(&dev->state->res.lock);
	path = kmalloc(PATH_MAX, GFP_KERNEL);
	buf = kvmalloc(KT_APTPL_MAX, GFP_KERNEL);
	if (!path || !buf)
		goto out;
	len = kt_aptpl_format(dev, buf, KT_APTPL_MAX);

	if (!kt_aptpl_path(dev, path, true))
		goto out;
	ret = kt_aptpl_mkdir(path);
	if (ret) {
		pr_warn_ratelimited("APTPL: cannot create %s: %pe\n", path,
				    ERR_PTR(ret));
		goto out;
	}
	if (!kt_aptpl_path(dev, path, false))
		goto out;
	f = filp_open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (IS_ERR(f)) {
		pr_warn_ratelimited("APTPL: cannot write %s: %pe\n", path, f);
		goto out;
	}
	ret = kernel_write(f, buf, len, &pos);
	if (ret != len)
		pr_warn_ratelimited("APTPL: short write to %s: %zd\n", path,
				    ret);
	else
		vfs_fsync(f, 0);
	filp_close(f, NULL);
out:
	kvfree(buf);
	kfree(path);
}

static const char kt_aptpl_reg_in[] =
	"reg key=0x%llx rtpi=%u all_tg_pt=%d holder=%d isid=%15s name=%223s proto=%u";

/* One "reg ..." line; false if it is not one we wrote. */
static bool kt_aptpl_parse_reg(struct kt_dev *dev, const char *line,
			       bool *holder)
{
	char isid[16], *name;
	struct kt_pr_reg *reg;
	unsigned long long key;
	unsigned int rtpi;
	unsigned int proto = KT_PROTO_ISCSI;	/* files before proto= */
	int atp, hold, n;
	bool ok = false;

	name = kmalloc(KT_PR_NAME_LEN, GFP_KERNEL);
	reg = kzalloc(sizeof(*reg), GFP_KERNEL);
	if (!name || !reg)
		goto out;
	n = sscanf(line, kt_aptpl_reg_in, &key, &rtpi, &atp, &hold, isid, name,
		   &proto);
	if (n != 6 && n != 7)
		goto out;
	if (rtpi > U16_MAX || !name[0] || proto > 0xf)
		goto out;
	reg->tid.proto = proto;
	if (strcmp(isid, "-")) {
		if (strlen(isid) != 2 * KT_PR_ISID_LEN ||
		    hex2bin(reg->tid.isid, isid, KT_PR_ISID_LEN))
			goto out;
		reg->tid.has_isid = true;
	}
	strscpy(reg->tid.name, name, sizeof(reg->tid.name));
	reg->key = key;
	reg->rtpi = rtpi;
	reg->all_tg_pt = atp;
	list_add_tail(&reg->node, &dev->state->res.regs);
	dev->state->res.nr_regs++;
	if (hold)
		dev->state->res.holder = reg;
	*holder |= hold;
	reg = NULL;
	ok = true;
out:
	kfree(reg);
	kfree(name);
	return ok;
}

static void kt_aptpl_parse(struct kt_dev *dev, char *buf)
{
	struct kt_res *res = &dev->state->res;
	unsigned int gen = 0, type = 0;
	bool holder = false;
	int aptpl = 0;
	char *line;

	while ((line = strsep(&buf, "\n")) != NULL) {
		if (!*line || *line == '#')
			continue;
		if (sscanf(line, "aptpl=%d", &aptpl) == 1 ||
		    sscanf(line, "generation=%u", &gen) == 1 ||
		    sscanf(line, "type=%u", &type) == 1)
			continue;
		if (aptpl != 1 || res->nr_regs >= kt_pr_max_regs(dev) ||
		    !kt_aptpl_parse_reg(dev, line, &holder))
			break;
	}
	res->aptpl = aptpl == 1;
	res->generation = gen;
	if (res->nr_regs && type <= U8_MAX && kt_pr_type_valid(type) &&
	    (holder || kt_pr_type_all_reg(type))) {
		res->type = type;
		if (kt_pr_type_all_reg(type))
			res->holder = NULL;
	} else {
		res->holder = NULL;
	}
	kt_res_update(dev);
}

/* Under dev->state->res.lock: restore the state, if a file is there. */
void kt_pr_aptpl_load(struct kt_dev *dev)
{
	struct file *f;
	char *path, *buf = NULL;
	loff_t pos = 0;
	ssize_t n;

	lockdep_assert_held(&dev->state->res.lock);
	if (dev->state->res.aptpl_loaded || dev->state->res.nr_regs)
		return;
	path = kmalloc(PATH_MAX, GFP_KERNEL);
	if (!path || !kt_aptpl_path(dev, path, false))
		goto out;
	f = filp_open(path, O_RDONLY, 0);
	if (IS_ERR(f))
		goto out;		/* nothing saved */
	buf = kvmalloc(KT_APTPL_MAX + 1, GFP_KERNEL);
	n = buf ? kernel_read(f, buf, KT_APTPL_MAX, &pos) : -ENOMEM;
	filp_close(f, NULL);
	if (n < 0) {
		pr_warn_ratelimited("APTPL: cannot read %s: %pe\n", path,
				    ERR_PTR(n));
		goto out;
	}
	buf[n] = '\0';
	kt_aptpl_parse(dev, buf);
	dev->state->res.aptpl_loaded = true;
	if (dev->state->res.nr_regs)
		pr_info("%s: %u persistent reservation registration(s) restored from %s\n",
			config_item_name(&dev->group.cg_item),
			dev->state->res.nr_regs, path);
out:
	kvfree(buf);
	kfree(path);
}
