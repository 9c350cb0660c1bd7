// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_iscsi: target/iscsi/IQN/tpgt_N/param/, the TPG's side of login
 * negotiation with LIO's names and initial values. Each write is checked
 * against the key's type and range in the key table of proto/iscsi_text
 * (RFC 7143 6.1, 12, 13); LIO's own MaxXmitDataSegmentLength and the
 * obsolete marker keys take the values LIO takes. The data path reads the
 * strings under kt_iscsi_config_lock.
 */
#define pr_fmt(fmt) "ktarget_iscsi: " fmt

#include <linux/configfs.h>
#include <linux/kernel.h>
#include <linux/lockdep.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/string.h>

#include "iscsi.h"

struct kt_param_def {
	const char	*def;	/* LIO's initial value */
	u8		key;	/* enum kt_iscsi_key_id: the value's type, range */
};

static const struct kt_param_def kt_params[KT_P_NR] = {
	/* LIO offers only CHAP until attrib/authentication is 0 */
	[KT_P_AUTH_METHOD] = { "CHAP", KT_ISCSI_KEY_AUTH_METHOD },
	[KT_P_HEADER_DIGEST] = { "CRC32C,None", KT_ISCSI_KEY_HEADER_DIGEST },
	[KT_P_DATA_DIGEST] = { "CRC32C,None", KT_ISCSI_KEY_DATA_DIGEST },
	[KT_P_MAX_CONNECTIONS] = { "1", KT_ISCSI_KEY_MAX_CONNECTIONS },
	[KT_P_TARGET_ALIAS] = { "ktarget", KT_ISCSI_KEY_TARGET_ALIAS },
	[KT_P_INITIAL_R2T] = { "Yes", KT_ISCSI_KEY_INITIAL_R2T },
	[KT_P_IMMEDIATE_DATA] = { "Yes", KT_ISCSI_KEY_IMMEDIATE_DATA },
	[KT_P_MAX_RECV_DATA_SEGMENT_LENGTH] = {
		"8192", KT_ISCSI_KEY_MAX_RECV_DATA_SEGMENT_LENGTH },
	/* LIO's own: what the target sends, 512..2^24-1 as the key above */
	[KT_P_MAX_XMIT_DATA_SEGMENT_LENGTH] = {
		"262144", KT_ISCSI_KEY_MAX_RECV_DATA_SEGMENT_LENGTH },
	[KT_P_MAX_BURST_LENGTH] = { "262144", KT_ISCSI_KEY_MAX_BURST_LENGTH },
	[KT_P_FIRST_BURST_LENGTH] = {
		"65536", KT_ISCSI_KEY_FIRST_BURST_LENGTH },
	[KT_P_DEFAULT_TIME2WAIT] = { "2", KT_ISCSI_KEY_DEFAULT_TIME2WAIT },
	[KT_P_DEFAULT_TIME2RETAIN] = {
		"20", KT_ISCSI_KEY_DEFAULT_TIME2RETAIN },
	[KT_P_MAX_OUTSTANDING_R2T] = {
		"1", KT_ISCSI_KEY_MAX_OUTSTANDING_R2T },
	[KT_P_DATA_PDU_IN_ORDER] = { "Yes", KT_ISCSI_KEY_DATA_PDU_IN_ORDER },
	[KT_P_DATA_SEQUENCE_IN_ORDER] = {
		"Yes", KT_ISCSI_KEY_DATA_SEQUENCE_IN_ORDER },
	[KT_P_ERROR_RECOVERY_LEVEL] = {
		"0", KT_ISCSI_KEY_ERROR_RECOVERY_LEVEL },
	/* RFC 7143 13.25: markers are obsolete */
	[KT_P_IF_MARKER] = { "No", KT_ISCSI_KEY_IF_MARKER },
	[KT_P_OF_MARKER] = { "No", KT_ISCSI_KEY_OF_MARKER },
	[KT_P_IF_MARK_INT] = { "Reject", KT_ISCSI_KEY_IF_MARK_INT },
	[KT_P_OF_MARK_INT] = { "Reject", KT_ISCSI_KEY_OF_MARK_INT },
};

void kt_iscsi_tpg_init_params(struct kt_iscsi_tpg *tpg)
{
	int p;

	for (p = 0; p < KT_P_NR; p++)
		strscpy(tpg->param[p], kt_params[p].def, KT_ISCSI_PARAM_LEN);
}

/* RFC 7143 6.1 values, typed by the key table; a reason in @why if not. */
static int kt_param_check(const struct kt_iscsi_key *key, const u8 *v,
			  size_t len, char *why, size_t size)
{
	enum kt_iscsi_special special = kt_iscsi_value_special(v, len);
	struct kt_iscsi_list it;
	const u8 *item;
	size_t ilen;
	u64 n, hi;
	bool b;

	/* LIO's default for the marker intervals */
	if (special == KT_ISCSI_VAL_REJECT && key->type == KT_ISCSI_TYPE_RANGE)
		return 0;
	if (special != KT_ISCSI_VAL_PLAIN) {
		scnprintf(why, size, "a reserved value");
		return -EINVAL;
	}

	switch (key->type) {
	case KT_ISCSI_TYPE_TEXT:
		return 0;
	case KT_ISCSI_TYPE_LIST:
		kt_iscsi_list_init(&it, v, len);
		while (kt_iscsi_list_next(&it, &item, &ilen)) {
			if (!ilen ||
			    !kt_iscsi_list_contains((const u8 *)key->values,
						    strlen(key->values),
						    item, ilen)) {
				scnprintf(why, size, "want a list of %s",
					  key->values);
				return -EINVAL;
			}
		}
		return 0;
	case KT_ISCSI_TYPE_NUMBER:
		if (kt_iscsi_parse_number(v, len, key->max, 0, &n, NULL) ==
		    KT_ISCSI_TEXT_OK && n >= key->min)
			return 0;
		scnprintf(why, size, "want a number in %llu..%llu",
			  key->min, key->max);
		return -EINVAL;
	case KT_ISCSI_TYPE_BOOL:
		if (kt_iscsi_parse_bool(v, len, &b) == KT_ISCSI_TEXT_OK)
			return 0;
		scnprintf(why, size, "want Yes or No");
		return -EINVAL;
	case KT_ISCSI_TYPE_RANGE:
		if (kt_iscsi_parse_range(v, len, key->max, &n, &hi, NULL) ==
		    KT_ISCSI_TEXT_OK && n >= key->min)
			return 0;
		scnprintf(why, size, "want Reject or lo~hi within %llu..%llu",
			  key->min, key->max);
		return -EINVAL;
	default:
		scnprintf(why, size, "cannot be configured");
		return -EINVAL;
	}
}

static struct kt_iscsi_tpg *param_to_tpg(struct config_item *item)
{
	return to_iscsi_tpg(container_of(to_config_group(item), struct kt_tpg,
					 param_group));
}

static ssize_t kt_tpg_param_show(struct config_item *item,
				 enum kt_iscsi_param p, char *page)
{
	struct kt_iscsi_tpg *tpg = param_to_tpg(item);
	ssize_t ret;

	mutex_lock(&kt_iscsi_config_lock);
	ret = sysfs_emit(page, "%s\n", tpg->param[p]);
	mutex_unlock(&kt_iscsi_config_lock);
	return ret;
}

static ssize_t kt_tpg_param_store(struct config_item *item,
				  enum kt_iscsi_param p, const char *name,
				  const char *page, size_t count)
{
	const struct kt_iscsi_key *key = kt_iscsi_key_get(kt_params[p].key);
	struct kt_iscsi_tpg *tpg = param_to_tpg(item);
	size_t len = kt_cfs_value_len(page, count);
	ssize_t bad = kt_iscsi_cfs_ctrl(page, len);
	char where[KT_ISCSI_WHERE_LEN];
	char why[80];

	if (len >= KT_ISCSI_PARAM_LEN)
		scnprintf(why, sizeof(why), "%zu bytes, at most %d", len,
			  KT_ISCSI_PARAM_LEN - 1);
	else if (bad >= 0)
		scnprintf(why, sizeof(why), "control character at byte %zd",
			  bad);
	else if (!kt_param_check(key, (const u8 *)page, len, why, sizeof(why)))
		goto store;
	pr_warn_ratelimited("%s/%s: '%*pE': %s\n",
			    kt_iscsi_cfs_path(item, where, sizeof(where)), name,
			    kt_iscsi_cfs_shown(page, count), page, why);
	return -EINVAL;

store:
	mutex_lock(&kt_iscsi_config_lock);
	memcpy(tpg->param[p], page, len);
	tpg->param[p][len] = '\0';
	mutex_unlock(&kt_iscsi_config_lock);
	return count;
}

/* LIO's names are CamelCase: the C names are spelled out */
#define KT_TPG_PARAM(_var, _p, _str)					\
static const char kt_tpg_param_##_var##_name[] = _str;			\
static ssize_t kt_tpg_param_##_var##_show(struct config_item *item,	\
					  char *page)			\
{									\
	return kt_tpg_param_show(item, KT_P_##_p, page);		\
}									\
static ssize_t kt_tpg_param_##_var##_store(struct config_item *item,	\
					   const char *page, size_t count) \
{									\
	return kt_tpg_param_store(item, KT_P_##_p,			\
				  kt_tpg_param_##_var##_name, page, count); \
}									\
static struct configfs_attribute kt_tpg_param_attr_##_var = {		\
	.ca_name	= kt_tpg_param_##_var##_name,			\
	.ca_owner	= THIS_MODULE,					\
	.ca_mode	= 0644,						\
	.show		= kt_tpg_param_##_var##_show,			\
	.store		= kt_tpg_param_##_var##_store,			\
}

KT_TPG_PARAM(auth_method, AUTH_METHOD, "AuthMethod");
KT_TPG_PARAM(header_digest, HEADER_DIGEST, "HeaderDigest");
KT_TPG_PARAM(data_digest, DATA_DIGEST, "DataDigest");
KT_TPG_PARAM(max_connections, MAX_CONNECTIONS, "MaxConnections");
KT_TPG_PARAM(target_alias, TARGET_ALIAS, "TargetAlias");
KT_TPG_PARAM(initial_r2t, INITIAL_R2T, "InitialR2T");
KT_TPG_PARAM(immediate_data, IMMEDIATE_DATA, "ImmediateData");
KT_TPG_PARAM(max_recv_dsl, MAX_RECV_DATA_SEGMENT_LENGTH,
	     "MaxRecvDataSegmentLength");
KT_TPG_PARAM(max_xmit_dsl, MAX_XMIT_DATA_SEGMENT_LENGTH,
	     "MaxXmitDataSegmentLength");
KT_TPG_PARAM(max_burst_length, MAX_BURST_LENGTH, "MaxBurstLength");
KT_TPG_PARAM(first_burst_length, FIRST_BURST_LENGTH,
	     "FirstBurstLength");
KT_TPG_PARAM(default_time2wait, DEFAULT_TIME2WAIT, "DefaultTime2Wait");
KT_TPG_PARAM(default_time2retain, DEFAULT_TIME2RETAIN,
	     "DefaultTime2Retain");
KT_TPG_PARAM(max_outstanding_r2t, MAX_OUTSTANDING_R2T,
	     "MaxOutstandingR2T");
KT_TPG_PARAM(data_pdu_in_order, DATA_PDU_IN_ORDER, "DataPDUInOrder");
KT_TPG_PARAM(data_sequence_in_order, DATA_SEQUENCE_IN_ORDER,
	     "DataSequenceInOrder");
KT_TPG_PARAM(error_recovery_level, ERROR_RECOVERY_LEVEL,
	     "ErrorRecoveryLevel");
KT_TPG_PARAM(if_marker, IF_MARKER, "IFMarker");
KT_TPG_PARAM(of_marker, OF_MARKER, "OFMarker");
KT_TPG_PARAM(if_mark_int, IF_MARK_INT, "IFMarkInt");
KT_TPG_PARAM(of_mark_int, OF_MARK_INT, "OFMarkInt");

struct configfs_attribute *kt_iscsi_tpg_param_attrs[] = {
	&kt_tpg_param_attr_auth_method,
	&kt_tpg_param_attr_header_digest,
	&kt_tpg_param_attr_data_digest,
	&kt_tpg_param_attr_max_connections,
	&kt_tpg_param_attr_target_alias,
	&kt_tpg_param_attr_initial_r2t,
	&kt_tpg_param_attr_immediate_data,
	&kt_tpg_param_attr_max_recv_dsl,
	&kt_tpg_param_attr_max_xmit_dsl,
	&kt_tpg_param_attr_max_burst_length,
	&kt_tpg_param_attr_first_burst_length,
	&kt_tpg_param_attr_default_time2wait,
	&kt_tpg_param_attr_default_time2retain,
	&kt_tpg_param_attr_max_outstanding_r2t,
	&kt_tpg_param_attr_data_pdu_in_order,
	&kt_tpg_param_attr_data_sequence_in_order,
	&kt_tpg_param_attr_error_recovery_level,
	&kt_tpg_param_attr_if_marker,
	&kt_tpg_param_attr_of_marker,
	&kt_tpg_param_attr_if_mark_int,
	&kt_tpg_param_attr_of_mark_int,
	NULL,
};

/*
 * LIO ties attrib/authentication to param/AuthMethod: a TPG that enforces
 * authentication does not offer None (None alone becomes CHAP), one that
 * does not enforce it offers None as well.
 */
void kt_iscsi_tpg_offer_none(struct kt_iscsi_tpg *tpg, bool offer)
{
	char *am = tpg->param[KT_P_AUTH_METHOD];
	char buf[KT_ISCSI_PARAM_LEN];
	size_t len = strlen(am), out = 0;
	struct kt_iscsi_list it;
	const u8 *v;
	size_t vlen;

	lockdep_assert_held(&kt_iscsi_config_lock);
	if (kt_iscsi_list_contains((const u8 *)am, len, (const u8 *)"None", 4) ==
	    offer)
		return;
	if (offer) {
		if (len + sizeof(",None") <= KT_ISCSI_PARAM_LEN)
			memcpy(am + len, ",None", sizeof(",None"));
		return;
	}
	kt_iscsi_list_init(&it, (const u8 *)am, len);
	while (kt_iscsi_list_next(&it, &v, &vlen))
		if (vlen != 4 || memcmp(v, "None", 4))
			out += scnprintf(buf + out, sizeof(buf) - out, "%s%.*s",
					 out ? "," : "", (int)vlen, v);
	strscpy(am, out ? buf : "CHAP", KT_ISCSI_PARAM_LEN);
}
