// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the iSCSI login/text splitter, value parsers and the
 * negotiation helper over arbitrary bytes. The first input byte chooses the
 * flags and where the text is cut in two PDUs; the rest is the text.
 *
 * Checked: every item lies inside the buffer, is well framed and within
 * the limits; the text cut in two PDUs (C bit on the first) gives the same
 * items as the whole; serialized items split back to the same items;
 * parsers and the negotiation never write or claim more than they were
 * given.
 */
#include <linux/types.h>
#include <stdlib.h>
#include <string.h>

#include <ktarget/proto/iscsi_text.h>

#define MAX_KV		32
#define CHECK(c)	do { if (!(c)) abort(); } while (0)

static void check_item(const struct kt_iscsi_kv *kv, const u8 *buf,
		       size_t len, unsigned int any)
{
	const struct kt_iscsi_key *k;
	size_t limit;

	CHECK(kv->key >= buf && kv->key < buf + len);
	CHECK(kv->offset == (size_t)(kv->key - buf));
	CHECK(kv->key_len >= 1 && kv->key_len <= KT_ISCSI_KEY_NAME_MAX);
	CHECK(!memchr(kv->key, '=', kv->key_len));
	/* KT_ISCSI_TEXT_F_ANY_KEY: any key character may come first */
	CHECK((kv->key[0] >= 'A' && kv->key[0] <= 'Z') ||
	      (any && kv->key[0] != '=' && kv->key[0] != '\0'));
	CHECK(kv->key[kv->key_len] == '=');
	CHECK(kv->value == kv->key + kv->key_len + 1);
	/* the value and its NUL are inside the buffer */
	CHECK(kv->value_len < (size_t)(buf + len - kv->value));
	CHECK(kv->value[kv->value_len] == '\0');
	CHECK(!kv->value_len || !memchr(kv->value, 0, kv->value_len));
	k = kt_iscsi_key_find(kv->key, kv->key_len);
	limit = k ? k->value_max : KT_ISCSI_VALUE_MAX;
	CHECK(kv->value_len <= limit);
	CHECK(kv->value_len <= KT_ISCSI_VALUE_HARD_MAX);
}

static void check_values(const struct kt_iscsi_kv *kv, unsigned int flags)
{
	enum kt_iscsi_nego_status ns;
	struct kt_iscsi_list it;
	const u8 *v = kv->value, *e;
	size_t n = kv->value_len, elen, total = 0, bad = ~(size_t)0;
	char out[KT_ISCSI_VALUE_MAX + 1];
	u8 bin[KT_ISCSI_CHAP_BINARY_MAX];
	size_t out_len = ~(size_t)0;
	unsigned int parts = 0;
	u64 num, lo, hi;
	bool b;

	if (kt_iscsi_parse_number(v, n, 65535, KT_ISCSI_NUM_F_BASE64, &num,
				  &bad) == KT_ISCSI_TEXT_OK)
		CHECK(num <= 65535);
	else
		CHECK(bad <= n && num == 0);

	bad = ~(size_t)0;
	if (kt_iscsi_parse_binary(v, n, bin, flags % 2 ? 8 : sizeof(bin),
				  &out_len, &bad) == KT_ISCSI_TEXT_OK)
		CHECK(out_len >= 1 && out_len <= (flags % 2 ? 8 : sizeof(bin)));
	else
		CHECK(bad <= n && out_len == 0);

	if (kt_iscsi_parse_range(v, n, ~0ULL, &lo, &hi, &bad) ==
	    KT_ISCSI_TEXT_OK)
		CHECK(lo <= hi);
	if (kt_iscsi_parse_bool(v, n, &b) == KT_ISCSI_TEXT_OK)
		CHECK(n == 2 || n == 3);

	kt_iscsi_list_init(&it, v, n);
	while (kt_iscsi_list_next(&it, &e, &elen)) {
		CHECK(e >= v && e + elen <= v + n);
		CHECK(!elen || !memchr(e, ',', elen));
		total += elen;
		parts++;
	}
	CHECK(total + parts - 1 == n);

	out_len = ~(size_t)0;
	ns = kt_iscsi_negotiate(kv->key, kv->key_len, v, n, NULL, 0, flags,
				out, sizeof(out), &out_len);
	CHECK(ns <= KT_ISCSI_NEGO_NO_SPACE);
	CHECK(out_len < sizeof(out));
	switch (ns) {
	case KT_ISCSI_NEGO_REPLY:
	case KT_ISCSI_NEGO_REPLY_OPTIONAL:
	case KT_ISCSI_NEGO_REJECT:
	case KT_ISCSI_NEGO_IRRELEVANT:
	case KT_ISCSI_NEGO_NOT_UNDERSTOOD:
		CHECK(out_len > 0 && out[out_len] == '\0');
		CHECK(strlen(out) == out_len && !memchr(out, ',', out_len));
		break;
	default:
		CHECK(out_len == 0);
		break;
	}
	if (ns == KT_ISCSI_NEGO_REJECT)
		CHECK(!strcmp(out, "Reject"));
}

/* A value taken as an iSCSI name (SendTargets=): well formed or not. */
static void check_name(const struct kt_iscsi_kv *kv)
{
	const char *why = kt_iscsi_name_error(kv->value, kv->value_len);

	if (why) {
		CHECK(*why);
		return;
	}
	CHECK(kv->value_len >= 13 && kv->value_len <= KT_ISCSI_NAME_MAX);
	CHECK(!memcmp(kv->value, "iqn.", 4) || !memcmp(kv->value, "eui.", 4) ||
	      !memcmp(kv->value, "naa.", 4));
}

static bool same_items(const struct kt_iscsi_kv *a, const struct kt_iscsi_kv *b,
		       unsigned int nr)
{
	unsigned int i;

	for (i = 0; i < nr; i++) {
		if (a[i].key_len != b[i].key_len ||
		    a[i].value_len != b[i].value_len ||
		    memcmp(a[i].key, b[i].key, a[i].key_len) ||
		    (a[i].value_len &&
		     memcmp(a[i].value, b[i].value, a[i].value_len)))
			return false;
	}
	return true;
}

/* The text in two PDUs, cut at @cut, gives what the whole gave. */
static void check_two_pdus(const u8 *buf, size_t len, size_t cut,
			   const struct kt_iscsi_kv *whole, unsigned int nr,
			   unsigned int any)
{
	struct kt_iscsi_kv kv[MAX_KV];
	struct kt_iscsi_text t;
	u8 *first, *joined;
	size_t jlen;

	first = malloc(cut ? cut : 1);
	CHECK(first);
	memcpy(first, buf, cut);
	kt_iscsi_text_init(&t, kv, MAX_KV);
	CHECK(kt_iscsi_text_split(&t, first, cut,
				  KT_ISCSI_TEXT_F_CONTINUE | any) ==
	      KT_ISCSI_TEXT_OK);
	CHECK(t.tail_len <= cut);
	CHECK(t.tail_len <= KT_ISCSI_KEY_NAME_MAX + 1 + KT_ISCSI_VALUE_HARD_MAX);

	jlen = t.tail_len + len - cut;
	joined = malloc(jlen ? jlen : 1);
	CHECK(joined);
	memcpy(joined, first + cut - t.tail_len, t.tail_len);
	memcpy(joined + t.tail_len, buf + cut, len - cut);
	CHECK(kt_iscsi_text_split(&t, joined, jlen, any) == KT_ISCSI_TEXT_OK);
	CHECK(t.nr == nr && t.tail_len == 0);
	CHECK(same_items(whole, kv, nr));
	free(joined);
	free(first);
}

/* Serialized again, the items split back to themselves. */
static void check_round_trip(const struct kt_iscsi_kv *kv, unsigned int nr,
			     size_t len, unsigned int any)
{
	struct kt_iscsi_kv again[MAX_KV];
	struct kt_iscsi_text t;
	size_t pos = 0;
	unsigned int i;
	u8 *out;

	out = malloc(len ? len : 1);
	CHECK(out);
	for (i = 0; i < nr; i++) {
		CHECK(kt_iscsi_text_put(out, len, &pos, (const char *)kv[i].key,
					kv[i].key_len,
					(const char *)kv[i].value,
					kv[i].value_len) == KT_ISCSI_TEXT_OK);
		CHECK(pos <= len);
	}
	kt_iscsi_text_init(&t, again, MAX_KV);
	CHECK(kt_iscsi_text_split(&t, out, pos, any) == KT_ISCSI_TEXT_OK);
	CHECK(t.nr == nr && same_items(kv, again, nr));
	free(out);
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	static const unsigned int stages[4] = {
		0, KT_ISCSI_NEGO_SECURITY, KT_ISCSI_NEGO_OPERATIONAL,
		KT_ISCSI_NEGO_FFP,
	};
	enum kt_iscsi_text_status st;
	struct kt_iscsi_kv kv[MAX_KV];
	struct kt_iscsi_text t;
	unsigned int i, flags, nego, any;
	size_t len;
	u8 *buf;

	if (!size)
		return 0;
	flags = data[0] & 1 ? KT_ISCSI_TEXT_F_CONTINUE : 0;
	/* full feature phase's Text: a key of any first key character */
	any = data[0] & 0x20 ? KT_ISCSI_TEXT_F_ANY_KEY : 0;
	flags |= any;
	nego = stages[data[0] >> 1 & 3];
	if (data[0] & 0x08)
		nego |= KT_ISCSI_NEGO_F_DISCOVERY;
	if (data[0] & 0x10)
		nego |= KT_ISCSI_NEGO_F_NON_LEADING;
	len = size - 1;
	buf = malloc(len ? len : 1);	/* exact size: ASan sees overreads */
	CHECK(buf);
	memcpy(buf, data + 1, len);

	kt_iscsi_text_init(&t, kv, MAX_KV);
	st = kt_iscsi_text_split(&t, buf, len, flags);
	CHECK(t.nr <= MAX_KV);
	for (i = 0; i < t.nr; i++)
		check_item(&kv[i], buf, len, any);

	if (st != KT_ISCSI_TEXT_OK) {
		CHECK(st <= KT_ISCSI_TEXT_BAD_VALUE);
		CHECK(t.bad_off <= len);
		if (st == KT_ISCSI_TEXT_DUPLICATE_KEY) {
			CHECK(t.dup_idx < t.nr && t.dup_off < t.bad_off);
			CHECK(!memcmp(buf + t.bad_off, kv[t.dup_idx].key,
				      kv[t.dup_idx].key_len + 1));
		}
		free(buf);
		return 0;
	}

	CHECK(t.tail_len <= len);
	CHECK(!t.tail_len || (flags & KT_ISCSI_TEXT_F_CONTINUE));
	for (i = 0; i < t.nr; i++) {
		check_values(&kv[i], nego);
		check_name(&kv[i]);
	}
	check_round_trip(kv, t.nr, len, any);
	if (!(flags & KT_ISCSI_TEXT_F_CONTINUE) && len)
		check_two_pdus(buf, len, (data[0] * 131u + len / 3) % len, kv,
			       t.nr, any);
	free(buf);
	return 0;
}
