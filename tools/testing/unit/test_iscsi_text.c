// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of drivers/target/proto/iscsi_text.c: splitting login/text data
 * segments, value parsers, the key table and negotiation, with hostile input.
 * Every parsed buffer is a heap copy of exactly its length, so that ASan
 * reports any read past the end.
 */
#include <linux/types.h>

#include <ktarget/proto/iscsi_text.h>

#include "kt_test.h"

/* String literals as (bytes, length): embedded NULs count, the last one not */
#define LIT_LEN(s)		(sizeof(s) - 1)
#define KEY_FIND(s)		kt_iscsi_key_find((const u8 *)(s), LIT_LEN(s))
#define SPECIAL(s)		kt_iscsi_value_special((const u8 *)(s), LIT_LEN(s))
#define DUP(s)			dup_exact(s, LIT_LEN(s))
#define SPLIT(t, kv, max, s, flags, b)	split(t, kv, max, s, LIT_LEN(s), flags, b)

static u8 *dup_exact(const void *src, size_t len)
{
	u8 *p = malloc(len ? len : 1);

	if (!p)
		abort();
	memcpy(p, src, len);
	return p;
}

/* "key=" then @n bytes of @c then a NUL, in a buffer of exactly that size. */
static u8 *item_buf(const char *key, char c, size_t n, size_t *len)
{
	size_t klen = strlen(key);
	u8 *p;

	*len = klen + 1 + n + 1;
	p = malloc(*len);
	if (!p)
		abort();
	memcpy(p, key, klen);
	p[klen] = '=';
	memset(p + klen + 1, c, n);
	p[*len - 1] = '\0';
	return p;
}

static enum kt_iscsi_text_status split(struct kt_iscsi_text *t,
				       struct kt_iscsi_kv *kv, unsigned int max,
				       const void *src, size_t len,
				       unsigned int flags, u8 **copy)
{
	enum kt_iscsi_text_status st;

	*copy = dup_exact(src, len);
	kt_iscsi_text_init(t, kv, max);
	st = kt_iscsi_text_split(t, *copy, len, flags);
	return st;
}

static int kv_is(const struct kt_iscsi_kv *kv, const char *key,
		 const char *val)
{
	return kv->key_len == strlen(key) && !memcmp(kv->key, key, kv->key_len) &&
	       kv->value_len == strlen(val) &&
	       !memcmp(kv->value, val, kv->value_len);
}

static void login_well_formed_multi_key_buffer_is_split(void)
{
	static const char in[] = "InitiatorName=iqn.1994-05.com.example:host\0"
		"SessionType=Normal\0HeaderDigest=CRC32C,None\0"
		"TargetAlias=\0MaxRecvDataSegmentLength=262144\0";
	struct kt_iscsi_kv kv[8];
	struct kt_iscsi_text t;
	u8 *b;

	KT_EXPECT_EQ(SPLIT(&t, kv, 8, in, 0, &b), KT_ISCSI_TEXT_OK);
	KT_EXPECT_EQ(t.nr, 5);
	KT_EXPECT_EQ(t.tail_len, 0);
	KT_EXPECT(kv_is(&kv[0], "InitiatorName", "iqn.1994-05.com.example:host"));
	KT_EXPECT(kv_is(&kv[1], "SessionType", "Normal"));
	KT_EXPECT(kv_is(&kv[2], "HeaderDigest", "CRC32C,None"));
	KT_EXPECT(kv_is(&kv[3], "TargetAlias", ""));
	KT_EXPECT(kv_is(&kv[4], "MaxRecvDataSegmentLength", "262144"));
	KT_EXPECT_EQ(kv[0].offset, 0);
	KT_EXPECT_EQ(kv[1].offset, 43);
	KT_EXPECT(kv[4].key == b + kv[4].offset);
	free(b);
}

static void login_value_may_contain_equals_sign(void)
{
	struct kt_iscsi_kv kv[2];
	struct kt_iscsi_text t;
	u8 *b;

	KT_EXPECT_EQ(SPLIT(&t, kv, 2, "CHAP_C=0bAB==\0", 0, &b),
		     KT_ISCSI_TEXT_OK);
	KT_EXPECT(kv_is(&kv[0], "CHAP_C", "0bAB=="));
	free(b);
}

static void login_key_without_equals_is_rejected(void)
{
	struct kt_iscsi_kv kv[4];
	struct kt_iscsi_text t;
	u8 *b;

	KT_EXPECT_EQ(SPLIT(&t, kv, 4, "SessionType=Normal\0HeaderDigest\0", 0,
			   &b), KT_ISCSI_TEXT_NO_EQUALS);
	KT_EXPECT_EQ(t.bad_off, 31);	/* the NUL where '=' was due */
	KT_EXPECT_EQ(t.nr, 1);
	free(b);
}

static void login_empty_key_is_rejected(void)
{
	struct kt_iscsi_kv kv[4];
	struct kt_iscsi_text t;
	u8 *b;

	KT_EXPECT_EQ(SPLIT(&t, kv, 4, "A=1\0=value\0", 0, &b),
		     KT_ISCSI_TEXT_EMPTY_KEY);
	KT_EXPECT_EQ(t.bad_off, 4);
	free(b);
}

static void login_key_of_64_bytes_is_rejected(void)
{
	char key[65];
	struct kt_iscsi_kv kv[1];
	struct kt_iscsi_text t;
	size_t len;
	u8 *b;

	memset(key, 'K', 64);
	key[64] = '\0';
	b = item_buf(key, 'v', 1, &len);
	kt_iscsi_text_init(&t, kv, 1);
	KT_EXPECT_EQ(kt_iscsi_text_split(&t, b, len, 0),
		     KT_ISCSI_TEXT_KEY_TOO_LONG);
	KT_EXPECT_EQ(t.bad_off, 63);
	free(b);

	key[63] = '\0';		/* 63 bytes: the longest key-name */
	b = item_buf(key, 'v', 1, &len);
	kt_iscsi_text_init(&t, kv, 1);
	KT_EXPECT_EQ(kt_iscsi_text_split(&t, b, len, 0), KT_ISCSI_TEXT_OK);
	KT_EXPECT_EQ(kv[0].key_len, 63);
	free(b);

	/* without an '=', an overlong key is still reported as overlong */
	memset(key, 'K', 64);
	b = dup_exact(key, 65);
	kt_iscsi_text_init(&t, kv, 1);
	KT_EXPECT_EQ(kt_iscsi_text_split(&t, b, 65, 0),
		     KT_ISCSI_TEXT_KEY_TOO_LONG);
	free(b);
}

static void login_key_with_bad_character_is_rejected(void)
{
	struct kt_iscsi_kv kv[2];
	struct kt_iscsi_text t;
	u8 *b;

	KT_EXPECT_EQ(SPLIT(&t, kv, 2, "Header Digest=None\0", 0, &b),
		     KT_ISCSI_TEXT_BAD_KEY_CHAR);
	KT_EXPECT_EQ(t.bad_off, 6);
	free(b);
	/* RFC 7143 6.1: a key-name begins with a capital letter */
	KT_EXPECT_EQ(SPLIT(&t, kv, 2, "headerDigest=None\0", 0, &b),
		     KT_ISCSI_TEXT_BAD_KEY_CHAR);
	KT_EXPECT_EQ(t.bad_off, 0);
	free(b);
	KT_EXPECT_EQ(SPLIT(&t, kv, 2, "Key\xc3\xa9=x\0", 0, &b),
		     KT_ISCSI_TEXT_BAD_KEY_CHAR);
	KT_EXPECT_EQ(t.bad_off, 3);
	free(b);
	KT_EXPECT_EQ(SPLIT(&t, kv, 2, "A#B=x\0", 0, &b),
		     KT_ISCSI_TEXT_BAD_KEY_CHAR);
	free(b);
	/* the allowed punctuation, and an "X#" public extension key */
	KT_EXPECT_EQ(SPLIT(&t, kv, 2,
			   "X-com.example+a@b_c=1\0X#NodeArchitecture=k\0",
			   0, &b), KT_ISCSI_TEXT_OK);
	KT_EXPECT_EQ(t.nr, 2);
	free(b);
}

static void login_value_of_255_bytes_is_accepted_256_rejected(void)
{
	struct kt_iscsi_kv kv[1];
	struct kt_iscsi_text t;
	size_t len;
	u8 *b;

	b = item_buf("TargetAlias", 'a', 255, &len);
	kt_iscsi_text_init(&t, kv, 1);
	KT_EXPECT_EQ(kt_iscsi_text_split(&t, b, len, 0), KT_ISCSI_TEXT_OK);
	KT_EXPECT_EQ(kv[0].value_len, 255);
	free(b);

	b = item_buf("TargetAlias", 'a', 256, &len);
	kt_iscsi_text_init(&t, kv, 1);
	KT_EXPECT_EQ(kt_iscsi_text_split(&t, b, len, 0),
		     KT_ISCSI_TEXT_VALUE_TOO_LONG);
	KT_EXPECT_EQ(t.bad_off, 12 + 255);
	free(b);

	/* unknown keys get the simple-value limit too */
	b = item_buf("X-vendor.key", 'a', 256, &len);
	kt_iscsi_text_init(&t, kv, 1);
	KT_EXPECT_EQ(kt_iscsi_text_split(&t, b, len, 0),
		     KT_ISCSI_TEXT_VALUE_TOO_LONG);
	free(b);

	/* iSCSI names stop at 223 bytes (RFC 7143 4.2.7.1) */
	b = item_buf("InitiatorName", 'a', 224, &len);
	kt_iscsi_text_init(&t, kv, 1);
	KT_EXPECT_EQ(kt_iscsi_text_split(&t, b, len, 0),
		     KT_ISCSI_TEXT_VALUE_TOO_LONG);
	free(b);
}

static void login_chap_values_may_reach_1024_binary_bytes(void)
{
	struct kt_iscsi_kv kv[1];
	struct kt_iscsi_text t;
	size_t len;
	u8 *b;

	/* "0x" and 2048 digits: 1024 bytes, RFC 7143 12.1.3 */
	b = item_buf("CHAP_C", 'f', KT_ISCSI_CHAP_VALUE_MAX, &len);
	b[7] = '0';
	b[8] = 'x';
	kt_iscsi_text_init(&t, kv, 1);
	KT_EXPECT_EQ(kt_iscsi_text_split(&t, b, len, 0), KT_ISCSI_TEXT_OK);
	KT_EXPECT_EQ(kv[0].value_len, 2050);
	free(b);

	b = item_buf("CHAP_R", 'f', KT_ISCSI_CHAP_VALUE_MAX + 1, &len);
	kt_iscsi_text_init(&t, kv, 1);
	KT_EXPECT_EQ(kt_iscsi_text_split(&t, b, len, 0),
		     KT_ISCSI_TEXT_VALUE_TOO_LONG);
	KT_EXPECT_EQ(t.bad_off, 7 + 2050);
	free(b);
}

static void login_value_of_8193_bytes_is_rejected(void)
{
	static const char *const keys[] = {
		"CHAP_C", "HeaderDigest", "AuthMethod", "X-big", "SendTargets",
	};
	struct kt_iscsi_kv kv[1];
	struct kt_iscsi_text t;
	size_t i, len;
	u8 *b;

	for (i = 0; i < ARRAY_SIZE(keys); i++) {
		b = item_buf(keys[i], 'a', 8193, &len);
		kt_iscsi_text_init(&t, kv, 1);
		KT_EXPECT_EQ(kt_iscsi_text_split(&t, b, len, 0),
			     KT_ISCSI_TEXT_VALUE_TOO_LONG);
		KT_EXPECT(t.bad_off <= strlen(keys[i]) + 1 + 8191);
		KT_EXPECT_EQ(t.nr, 0);
		free(b);
	}
}

static void login_list_values_are_limited_per_element(void)
{
	struct kt_iscsi_kv kv[1];
	struct kt_iscsi_text t;
	size_t len;
	u8 *b;

	/* 300 bytes of short values: over 255 in all, fine for a list */
	b = item_buf("AuthMethod", 'a', 300, &len);
	for (size_t i = 11 + 9; i < 11 + 300; i += 10)
		b[i] = ',';
	kt_iscsi_text_init(&t, kv, 1);
	KT_EXPECT_EQ(kt_iscsi_text_split(&t, b, len, 0), KT_ISCSI_TEXT_OK);
	free(b);

	/* one element of 256 bytes after a short one */
	b = item_buf("HeaderDigest", 'a', 5 + 256, &len);
	memcpy(b + 13, "None,", 5);
	kt_iscsi_text_init(&t, kv, 1);
	KT_EXPECT_EQ(kt_iscsi_text_split(&t, b, len, 0),
		     KT_ISCSI_TEXT_VALUE_TOO_LONG);
	KT_EXPECT_EQ(t.bad_off, 13 + 5 + 255);
	free(b);
}

static void login_duplicate_keys_report_both_offsets(void)
{
	struct kt_iscsi_kv kv[4];
	struct kt_iscsi_text t;
	u8 *b;

	KT_EXPECT_EQ(SPLIT(&t, kv, 4,
			   "MaxBurstLength=512\0A=1\0MaxBurstLength=1024\0",
			   0, &b), KT_ISCSI_TEXT_DUPLICATE_KEY);
	KT_EXPECT_EQ(t.dup_off, 0);
	KT_EXPECT_EQ(t.dup_idx, 0);
	KT_EXPECT_EQ(t.bad_off, 23);
	free(b);

	/* keys are case sensitive: these two are different keys */
	KT_EXPECT_EQ(SPLIT(&t, kv, 4, "Abc=1\0ABC=2\0", 0, &b),
		     KT_ISCSI_TEXT_OK);
	free(b);
}

static void login_duplicate_key_in_a_later_pdu_is_rejected(void)
{
	struct kt_iscsi_kv kv[4];
	struct kt_iscsi_text t;
	u8 *b1, *b2;

	b1 = DUP("A=1\0InitialR2T=No\0");
	b2 = DUP("B=2\0InitialR2T=Yes\0");
	kt_iscsi_text_init(&t, kv, 4);
	KT_EXPECT_EQ(kt_iscsi_text_split(&t, b1, 18, 0), KT_ISCSI_TEXT_OK);
	KT_EXPECT_EQ(kt_iscsi_text_split(&t, b2, 19, 0),
		     KT_ISCSI_TEXT_DUPLICATE_KEY);
	KT_EXPECT_EQ(t.dup_idx, 1);
	KT_EXPECT_EQ(t.dup_off, 4);
	KT_EXPECT_EQ(t.bad_off, 4);
	KT_EXPECT_EQ(t.nr, 3);
	free(b1);
	free(b2);
}

static void login_unterminated_item_without_continue_is_rejected(void)
{
	struct kt_iscsi_kv kv[4];
	struct kt_iscsi_text t;
	u8 *b;

	KT_EXPECT_EQ(SPLIT(&t, kv, 4, "A=1\0MaxBurstLength=512", 0, &b),
		     KT_ISCSI_TEXT_UNTERMINATED);
	KT_EXPECT_EQ(t.bad_off, 4);
	free(b);
	KT_EXPECT_EQ(SPLIT(&t, kv, 4, "HeaderDig", 0, &b),
		     KT_ISCSI_TEXT_UNTERMINATED);
	KT_EXPECT_EQ(t.bad_off, 0);
	free(b);
}

static void login_unterminated_item_with_continue_reports_the_tail(void)
{
	static const char pdu1[] = "A=1\0MaxBurstLe";
	static const char pdu2[] = "ngth=512\0B=2\0";
	struct kt_iscsi_kv kv[4];
	struct kt_iscsi_text t;
	u8 joined[64];
	u8 *b, *c;
	size_t n;

	KT_EXPECT_EQ(SPLIT(&t, kv, 4, pdu1, KT_ISCSI_TEXT_F_CONTINUE, &b),
		     KT_ISCSI_TEXT_OK);
	KT_EXPECT_EQ(t.nr, 1);
	KT_EXPECT_EQ(t.tail_len, 10);

	/* the caller carries the tail in front of the next PDU */
	n = t.tail_len;
	memcpy(joined, b + sizeof(pdu1) - 1 - n, n);
	memcpy(joined + n, pdu2, sizeof(pdu2) - 1);
	n += sizeof(pdu2) - 1;
	c = dup_exact(joined, n);
	KT_EXPECT_EQ(kt_iscsi_text_split(&t, c, n, 0), KT_ISCSI_TEXT_OK);
	KT_EXPECT_EQ(t.nr, 3);
	KT_EXPECT_EQ(t.tail_len, 0);
	KT_EXPECT(kv_is(&kv[0], "A", "1"));
	KT_EXPECT(kv_is(&kv[1], "MaxBurstLength", "512"));
	KT_EXPECT(kv_is(&kv[2], "B", "2"));
	free(b);
	free(c);

	/* a cut right after the NUL leaves no tail */
	KT_EXPECT_EQ(SPLIT(&t, kv, 4, "A=1\0", KT_ISCSI_TEXT_F_CONTINUE,
			   &b), KT_ISCSI_TEXT_OK);
	KT_EXPECT_EQ(t.tail_len, 0);
	free(b);
}

static void login_cut_item_is_checked_as_far_as_it_goes(void)
{
	struct kt_iscsi_kv kv[4];
	struct kt_iscsi_text t;
	size_t len;
	u8 *b;

	KT_EXPECT_EQ(SPLIT(&t, kv, 4, "A=1\0bad key", KT_ISCSI_TEXT_F_CONTINUE, &b),
		     KT_ISCSI_TEXT_BAD_KEY_CHAR);
	KT_EXPECT_EQ(t.bad_off, 4);
	free(b);
	KT_EXPECT_EQ(SPLIT(&t, kv, 4, "=abc", KT_ISCSI_TEXT_F_CONTINUE,
			   &b), KT_ISCSI_TEXT_EMPTY_KEY);
	free(b);

	/* a cut value already past its limit cannot be carried on */
	b = item_buf("TargetAlias", 'a', 300, &len);
	kt_iscsi_text_init(&t, kv, 4);
	KT_EXPECT_EQ(kt_iscsi_text_split(&t, b, len - 1,
					 KT_ISCSI_TEXT_F_CONTINUE),
		     KT_ISCSI_TEXT_VALUE_TOO_LONG);
	free(b);

	/* a cut inside a UTF-8 sequence is fine until the item ends */
	KT_EXPECT_EQ(SPLIT(&t, kv, 4, "TargetAlias=caf\xc3",
			   KT_ISCSI_TEXT_F_CONTINUE, &b), KT_ISCSI_TEXT_OK);
	KT_EXPECT_EQ(t.tail_len, 16);
	free(b);
}

static void login_non_utf8_value_is_rejected(void)
{
	static const struct {
		const char *s;
		size_t len;
		size_t bad;
	} cases[] = {
		{ "A=\xff\0", 4, 2 },			/* never valid */
		{ "A=ok\xc0\x80\0", 7, 4 },		/* overlong NUL */
		{ "A=\xe0\x80\xaf\0", 6, 2 },		/* overlong '/' */
		{ "A=\xed\xa0\x80\0", 6, 2 },		/* surrogate */
		{ "A=\xf4\x90\x80\x80\0", 7, 2 },	/* above U+10FFFF */
		{ "A=\xe2\x82\0", 5, 2 },		/* cut short */
		{ "A=x\x80y\0", 6, 3 },			/* lone continuation */
	};
	struct kt_iscsi_kv kv[2];
	struct kt_iscsi_text t;
	size_t i;
	u8 *b;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		KT_EXPECT_EQ(split(&t, kv, 2, cases[i].s, cases[i].len, 0, &b),
			     KT_ISCSI_TEXT_BAD_UTF8);
		KT_EXPECT_EQ(t.bad_off, cases[i].bad);
		free(b);
	}

	/* two, three and four byte sequences are fine */
	KT_EXPECT_EQ(SPLIT(&t, kv, 2,
			   "InitiatorAlias=caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\0",
			   0, &b), KT_ISCSI_TEXT_OK);
	free(b);
}

static void login_too_many_items_is_rejected(void)
{
	struct kt_iscsi_kv kv[3];
	struct kt_iscsi_text t;
	u8 *b;

	KT_EXPECT_EQ(SPLIT(&t, kv, 3, "A=1\0B=2\0C=3\0", 0, &b),
		     KT_ISCSI_TEXT_OK);
	free(b);
	KT_EXPECT_EQ(SPLIT(&t, kv, 3, "A=1\0B=2\0C=3\0D=4\0", 0, &b),
		     KT_ISCSI_TEXT_TOO_MANY);
	KT_EXPECT_EQ(t.bad_off, 12);
	KT_EXPECT_EQ(t.nr, 3);
	free(b);
	KT_EXPECT_EQ(SPLIT(&t, kv, 0, "A=1\0", 0, &b),
		     KT_ISCSI_TEXT_TOO_MANY);
	free(b);
}

static void login_trailing_nuls_are_padding_inner_empty_item_is_not(void)
{
	struct kt_iscsi_kv kv[4];
	struct kt_iscsi_text t;
	u8 *b;

	KT_EXPECT_EQ(SPLIT(&t, kv, 4, "A=1\0\0\0\0", 0, &b),
		     KT_ISCSI_TEXT_OK);
	KT_EXPECT_EQ(t.nr, 1);
	free(b);
	KT_EXPECT_EQ(SPLIT(&t, kv, 4, "A=1\0\0B=2\0", 0, &b),
		     KT_ISCSI_TEXT_EMPTY_ITEM);
	KT_EXPECT_EQ(t.bad_off, 4);
	free(b);
	KT_EXPECT_EQ(split(&t, kv, 4, "", 0, 0, &b), KT_ISCSI_TEXT_OK);
	KT_EXPECT_EQ(t.nr, 0);
	free(b);
}

static enum kt_iscsi_text_status num(const char *s, u64 max, unsigned int flags,
				     u64 *v, size_t *bad)
{
	size_t len = strlen(s);
	u8 *b = dup_exact(s, len);
	enum kt_iscsi_text_status st;

	st = kt_iscsi_parse_number(b, len, max, flags, v, bad);
	free(b);
	return st;
}

static void number_decimal_parses_and_overflow_is_caught(void)
{
	size_t bad;
	u64 v;

	KT_EXPECT_EQ(num("0", ~0ULL, 0, &v, &bad), KT_ISCSI_TEXT_OK);
	KT_EXPECT_EQ(v, 0);
	KT_EXPECT_EQ(num("262144", ~0ULL, 0, &v, &bad), KT_ISCSI_TEXT_OK);
	KT_EXPECT_EQ(v, 262144);
	KT_EXPECT_EQ(num("18446744073709551615", ~0ULL, 0, &v, &bad),
		     KT_ISCSI_TEXT_OK);
	KT_EXPECT_EQ(v, ~0ULL);
	KT_EXPECT_EQ(num("18446744073709551616", ~0ULL, 0, &v, &bad),
		     KT_ISCSI_TEXT_NUM_OVERFLOW);
	KT_EXPECT_EQ(bad, 19);
	KT_EXPECT_EQ(v, 0);
	KT_EXPECT_EQ(num("99999999999999999999999", ~0ULL, 0, &v, &bad),
		     KT_ISCSI_TEXT_NUM_OVERFLOW);
}

static void number_hex_parses_and_overflow_is_caught(void)
{
	size_t bad;
	u64 v;

	KT_EXPECT_EQ(num("0x10", ~0ULL, 0, &v, &bad), KT_ISCSI_TEXT_OK);
	KT_EXPECT_EQ(v, 16);
	KT_EXPECT_EQ(num("0XaBcD", ~0ULL, 0, &v, &bad), KT_ISCSI_TEXT_OK);
	KT_EXPECT_EQ(v, 0xabcd);
	KT_EXPECT_EQ(num("0xffffffffffffffff", ~0ULL, 0, &v, &bad),
		     KT_ISCSI_TEXT_OK);
	KT_EXPECT_EQ(v, ~0ULL);
	/* leading zeros do not count against the 64 bits */
	KT_EXPECT_EQ(num("0x00000000000000000001", ~0ULL, 0, &v, &bad),
		     KT_ISCSI_TEXT_OK);
	KT_EXPECT_EQ(v, 1);
	KT_EXPECT_EQ(num("0x10000000000000000", ~0ULL, 0, &v, &bad),
		     KT_ISCSI_TEXT_NUM_OVERFLOW);
	KT_EXPECT_EQ(bad, 18);
}

static void number_base64_parses_only_when_allowed(void)
{
	size_t bad;
	u64 v;

	KT_EXPECT_EQ(num("0bAQ==", ~0ULL, 0, &v, &bad),
		     KT_ISCSI_TEXT_BAD_NUMBER);
	KT_EXPECT_EQ(bad, 1);
	/* RFC 7143 6.1: a base-64 number; A=0, Q=16, pads are not digits */
	KT_EXPECT_EQ(num("0bAQ==", ~0ULL, KT_ISCSI_NUM_F_BASE64, &v, &bad),
		     KT_ISCSI_TEXT_OK);
	KT_EXPECT_EQ(v, 16);
	KT_EXPECT_EQ(num("0B//", ~0ULL, KT_ISCSI_NUM_F_BASE64, &v, &bad),
		     KT_ISCSI_TEXT_OK);
	KT_EXPECT_EQ(v, 4095);
	/* 10 digits are 60 bits, 11 would be 66 unless the top is small */
	KT_EXPECT_EQ(num("0BPAAAAAAAAAA", ~0ULL, KT_ISCSI_NUM_F_BASE64, &v,
			 &bad), KT_ISCSI_TEXT_OK);
	KT_EXPECT_EQ(v, 15ULL << 60);
	KT_EXPECT_EQ(num("0BQAAAAAAAAAA", ~0ULL, KT_ISCSI_NUM_F_BASE64, &v,
			 &bad), KT_ISCSI_TEXT_NUM_OVERFLOW);
	KT_EXPECT_EQ(num("0b", ~0ULL, KT_ISCSI_NUM_F_BASE64, &v, &bad),
		     KT_ISCSI_TEXT_BAD_NUMBER);
	KT_EXPECT_EQ(num("0bA===", ~0ULL, KT_ISCSI_NUM_F_BASE64, &v, &bad),
		     KT_ISCSI_TEXT_BAD_NUMBER);
	KT_EXPECT_EQ(num("0bA=A", ~0ULL, KT_ISCSI_NUM_F_BASE64, &v, &bad),
		     KT_ISCSI_TEXT_BAD_NUMBER);
	KT_EXPECT_EQ(bad, 4);
}

static void number_with_garbage_or_empty_is_rejected(void)
{
	static const struct {
		const char *s;
		size_t bad;
	} cases[] = {
		{ "", 0 }, { " 1", 0 }, { "+1", 0 }, { "-1", 0 }, { "1 ", 1 },
		{ "12a", 2 }, { "01", 1 }, { "0x", 2 }, { "0xg", 2 },
		{ "0x1g", 3 }, { "x1", 0 }, { "1,2", 1 }, { "0o7", 1 },
	};
	size_t i, bad;
	u64 v;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		bad = 99;
		KT_EXPECT_EQ(num(cases[i].s, ~0ULL, KT_ISCSI_NUM_F_BASE64, &v,
				 &bad), KT_ISCSI_TEXT_BAD_NUMBER);
		KT_EXPECT_EQ(bad, cases[i].bad);
	}
	KT_EXPECT_EQ(kt_iscsi_parse_number(NULL, 0, 1, 0, &v, NULL),
		     KT_ISCSI_TEXT_BAD_NUMBER);
}

static void number_above_max_is_out_of_range(void)
{
	size_t bad;
	u64 v;

	KT_EXPECT_EQ(num("16777215", 16777215, 0, &v, &bad), KT_ISCSI_TEXT_OK);
	KT_EXPECT_EQ(num("16777216", 16777215, 0, &v, &bad),
		     KT_ISCSI_TEXT_OUT_OF_RANGE);
	KT_EXPECT_EQ(v, 0);
	KT_EXPECT_EQ(num("0x1000000", 16777215, 0, &v, &bad),
		     KT_ISCSI_TEXT_OUT_OF_RANGE);
}

static void boolean_is_yes_or_no_only(void)
{
	static const char *const bad[] = { "yes", "no", "YES", "Y", "", "Yes ",
					   "True", "1", "Noo" };
	bool v;
	size_t i;
	u8 *b;

	b = dup_exact("Yes", 3);
	KT_EXPECT_EQ(kt_iscsi_parse_bool(b, 3, &v), KT_ISCSI_TEXT_OK);
	KT_EXPECT(v);
	free(b);
	b = dup_exact("No", 2);
	KT_EXPECT_EQ(kt_iscsi_parse_bool(b, 2, &v), KT_ISCSI_TEXT_OK);
	KT_EXPECT(!v);
	free(b);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		b = dup_exact(bad[i], strlen(bad[i]));
		KT_EXPECT_EQ(kt_iscsi_parse_bool(b, strlen(bad[i]), &v),
			     KT_ISCSI_TEXT_BAD_BOOLEAN);
		free(b);
	}
}

static void list_iteration_yields_each_value(void)
{
	struct kt_iscsi_list it;
	const u8 *v;
	size_t n;
	u8 *b = dup_exact("CRC32C,,None,", 13);

	kt_iscsi_list_init(&it, b, 13);
	KT_EXPECT(kt_iscsi_list_next(&it, &v, &n));
	KT_EXPECT(n == 6 && !memcmp(v, "CRC32C", 6));
	KT_EXPECT(kt_iscsi_list_next(&it, &v, &n));
	KT_EXPECT_EQ(n, 0);
	KT_EXPECT(kt_iscsi_list_next(&it, &v, &n));
	KT_EXPECT(n == 4 && !memcmp(v, "None", 4));
	KT_EXPECT(kt_iscsi_list_next(&it, &v, &n));
	KT_EXPECT_EQ(n, 0);
	KT_EXPECT(!kt_iscsi_list_next(&it, &v, &n));
	KT_EXPECT(!kt_iscsi_list_next(&it, &v, &n));

	KT_EXPECT(kt_iscsi_list_contains(b, 13, (const u8 *)"None", 4));
	KT_EXPECT(!kt_iscsi_list_contains(b, 13, (const u8 *)"Non", 3));
	KT_EXPECT(!kt_iscsi_list_contains(b, 13, (const u8 *)"CRC32C,", 7));
	free(b);

	/* a single value, and the empty list of one empty value */
	b = dup_exact("None", 4);
	kt_iscsi_list_init(&it, b, 4);
	KT_EXPECT(kt_iscsi_list_next(&it, &v, &n) && n == 4);
	KT_EXPECT(!kt_iscsi_list_next(&it, &v, &n));
	free(b);
	kt_iscsi_list_init(&it, NULL, 0);
	KT_EXPECT(kt_iscsi_list_next(&it, &v, &n) && n == 0);
	KT_EXPECT(!kt_iscsi_list_next(&it, &v, &n));
}

static void reserved_constants_are_recognised(void)
{
	KT_EXPECT_EQ(SPECIAL("Reject"), KT_ISCSI_VAL_REJECT);
	KT_EXPECT_EQ(SPECIAL("Irrelevant"),
		     KT_ISCSI_VAL_IRRELEVANT);
	KT_EXPECT_EQ(SPECIAL("NotUnderstood"),
		     KT_ISCSI_VAL_NOT_UNDERSTOOD);
	KT_EXPECT_EQ(SPECIAL("None"), KT_ISCSI_VAL_PLAIN);
	KT_EXPECT_EQ(SPECIAL("reject"), KT_ISCSI_VAL_PLAIN);
	KT_EXPECT_EQ(SPECIAL("Rejected"),
		     KT_ISCSI_VAL_PLAIN);
	KT_EXPECT_EQ(kt_iscsi_value_special(NULL, 0), KT_ISCSI_VAL_PLAIN);
}

static void range_parses_and_checks_order(void)
{
	u64 lo, hi;
	size_t bad;
	u8 *b;

	b = dup_exact("512~0x2000", 10);
	KT_EXPECT_EQ(kt_iscsi_parse_range(b, 10, 65535, &lo, &hi, &bad),
		     KT_ISCSI_TEXT_OK);
	KT_EXPECT(lo == 512 && hi == 8192);
	free(b);
	b = dup_exact("5~5", 3);
	KT_EXPECT_EQ(kt_iscsi_parse_range(b, 3, 65535, &lo, &hi, &bad),
		     KT_ISCSI_TEXT_OK);
	free(b);
	b = dup_exact("6~5", 3);
	KT_EXPECT_EQ(kt_iscsi_parse_range(b, 3, 65535, &lo, &hi, &bad),
		     KT_ISCSI_TEXT_BAD_RANGE);
	KT_EXPECT_EQ(bad, 1);
	free(b);
	b = dup_exact("512", 3);
	KT_EXPECT_EQ(kt_iscsi_parse_range(b, 3, 65535, &lo, &hi, &bad),
		     KT_ISCSI_TEXT_BAD_RANGE);
	free(b);
	b = dup_exact("1~x", 3);
	KT_EXPECT_EQ(kt_iscsi_parse_range(b, 3, 65535, &lo, &hi, &bad),
		     KT_ISCSI_TEXT_BAD_NUMBER);
	KT_EXPECT_EQ(bad, 2);
	free(b);
	b = dup_exact("1~70000", 7);
	KT_EXPECT_EQ(kt_iscsi_parse_range(b, 7, 65535, &lo, &hi, &bad),
		     KT_ISCSI_TEXT_OUT_OF_RANGE);
	free(b);
	b = dup_exact("~1", 2);
	KT_EXPECT_EQ(kt_iscsi_parse_range(b, 2, 65535, &lo, &hi, &bad),
		     KT_ISCSI_TEXT_BAD_NUMBER);
	free(b);
}

static enum kt_iscsi_text_status bin(const char *s, u8 *out, size_t size,
				     size_t *n, size_t *bad)
{
	size_t len = strlen(s);
	u8 *b = dup_exact(s, len);
	enum kt_iscsi_text_status st;

	st = kt_iscsi_parse_binary(b, len, out, size, n, bad);
	free(b);
	return st;
}

static void binary_hex_decodes_odd_digit_counts_too(void)
{
	u8 out[8];
	size_t n, bad;

	KT_EXPECT_EQ(bin("0x0102ff", out, 8, &n, &bad), KT_ISCSI_TEXT_OK);
	KT_EXPECT(n == 3 && out[0] == 1 && out[1] == 2 && out[2] == 0xff);
	KT_EXPECT_EQ(bin("0X123", out, 8, &n, &bad), KT_ISCSI_TEXT_OK);
	KT_EXPECT(n == 2 && out[0] == 0x01 && out[1] == 0x23);
	KT_EXPECT_EQ(bin("0x0000", out, 8, &n, &bad), KT_ISCSI_TEXT_OK);
	KT_EXPECT_EQ(n, 2);
}

static void binary_base64_decodes_with_and_without_pads(void)
{
	u8 out[8];
	size_t n, bad;

	KT_EXPECT_EQ(bin("0bAQID", out, 8, &n, &bad), KT_ISCSI_TEXT_OK);
	KT_EXPECT(n == 3 && out[0] == 1 && out[1] == 2 && out[2] == 3);
	KT_EXPECT_EQ(bin("0bAQ==", out, 8, &n, &bad), KT_ISCSI_TEXT_OK);
	KT_EXPECT(n == 1 && out[0] == 1);
	KT_EXPECT_EQ(bin("0BAQ", out, 8, &n, &bad), KT_ISCSI_TEXT_OK);
	KT_EXPECT(n == 1 && out[0] == 1);
	KT_EXPECT_EQ(bin("0b//79", out, 8, &n, &bad), KT_ISCSI_TEXT_OK);
	KT_EXPECT(n == 3 && out[0] == 0xff && out[1] == 0xfe && out[2] == 0xfd);
	KT_EXPECT_EQ(bin("0bAQI=", out, 8, &n, &bad), KT_ISCSI_TEXT_OK);
	KT_EXPECT(n == 2 && out[0] == 1 && out[1] == 2);
}

static void binary_bad_encodings_are_rejected(void)
{
	static const struct {
		const char *s;
		size_t bad;
	} cases[] = {
		{ "", 0 }, { "0", 0 }, { "1x12", 0 }, { "0x", 2 }, { "0b", 2 },
		{ "0x12g4", 4 }, { "0bA", 3 }, { "0bAAAAA", 7 },
		{ "0bAQ=", 4 }, { "0bAQ===", 6 }, { "0bA=Q=", 4 },
		{ "0b*AAA", 2 }, { "1234", 0 }, { "0d12", 1 },
	};
	u8 out[8];
	size_t i, n, bad;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		bad = 99;
		KT_EXPECT_EQ(bin(cases[i].s, out, 8, &n, &bad),
			     KT_ISCSI_TEXT_BAD_BINARY);
		KT_EXPECT_EQ(bad, cases[i].bad);
		KT_EXPECT_EQ(n, 0);
	}
}

static void binary_longer_than_the_buffer_is_rejected(void)
{
	u8 *out = malloc(KT_ISCSI_CHAP_BINARY_MAX);
	char *s = malloc(2 + 2 * 1025 + 1);
	size_t n, bad;

	strcpy(s, "0x");
	memset(s + 2, 'a', 2 * 1025);
	s[2 + 2 * 1025] = '\0';
	KT_EXPECT_EQ(bin(s, out, KT_ISCSI_CHAP_BINARY_MAX, &n, &bad),
		     KT_ISCSI_TEXT_BINARY_TOO_LONG);
	KT_EXPECT_EQ(bad, 2 + 2048);
	s[2 + 2048] = '\0';
	KT_EXPECT_EQ(bin(s, out, KT_ISCSI_CHAP_BINARY_MAX, &n, &bad),
		     KT_ISCSI_TEXT_OK);
	KT_EXPECT_EQ(n, 1024);
	KT_EXPECT_EQ(out[1023], 0xaa);
	/* 2049 digits: the first byte takes one of them */
	s[2 + 2048] = 'a';
	s[2 + 2049] = '\0';
	KT_EXPECT_EQ(bin(s, out, KT_ISCSI_CHAP_BINARY_MAX, &n, &bad),
		     KT_ISCSI_TEXT_BINARY_TOO_LONG);
	KT_EXPECT_EQ(bad, 2 + 2047);

	/* byte 2 starts in the third digit */
	KT_EXPECT_EQ(bin("0bAQID", out, 2, &n, &bad),
		     KT_ISCSI_TEXT_BINARY_TOO_LONG);
	KT_EXPECT_EQ(bad, 2 + 2);
	KT_EXPECT_EQ(bin("0x01", out, 0, &n, &bad),
		     KT_ISCSI_TEXT_BINARY_TOO_LONG);
	KT_EXPECT_EQ(bin("0x1", NULL, 0, &n, &bad),
		     KT_ISCSI_TEXT_BINARY_TOO_LONG);
	free(out);
	free(s);
}

static void key_table_lookup_is_exact_and_case_sensitive(void)
{
	const struct kt_iscsi_key *k;

	k = KEY_FIND("MaxBurstLength");
	KT_EXPECT(k && k->id == KT_ISCSI_KEY_MAX_BURST_LENGTH);
	KT_EXPECT(k && k->result == KT_ISCSI_RESULT_MIN);
	KT_EXPECT(k && k->min == 512 && k->max == 16777215);
	KT_EXPECT(k && (k->flags & KT_ISCSI_KEY_F_LEADING_ONLY));
	KT_EXPECT(!KEY_FIND("maxburstlength"));
	KT_EXPECT(!KEY_FIND("MaxBurstLengt"));
	KT_EXPECT(!KEY_FIND("MaxBurstLengthX"));
	KT_EXPECT(!kt_iscsi_key_find(NULL, 0));

	k = KEY_FIND("HeaderDigest");
	KT_EXPECT(k && k->type == KT_ISCSI_TYPE_LIST &&
		  !(k->flags & KT_ISCSI_KEY_F_SESSION) &&
		  k->stages == KT_ISCSI_NEGO_OPERATIONAL);
	k = KEY_FIND("AuthMethod");
	KT_EXPECT(k && k->stages == KT_ISCSI_NEGO_SECURITY);
	k = KEY_FIND("TargetAlias");
	KT_EXPECT(k && k->senders == KT_ISCSI_SENDER_TARGET);
	k = KEY_FIND("DefaultTime2Wait");
	KT_EXPECT(k && k->result == KT_ISCSI_RESULT_MAX);
	k = KEY_FIND("RDMAExtensions");
	KT_EXPECT(k && (k->flags & KT_ISCSI_KEY_F_ISER));
	KT_EXPECT(!kt_iscsi_key_get(KT_ISCSI_KEY_NR));
}

/* Every entry agrees with itself: id, name, default and limits. */
static void key_table_entries_are_consistent(void)
{
	const struct kt_iscsi_key *k;
	unsigned int i;
	size_t len;
	bool b;
	u64 v;

	for (i = 0; i < KT_ISCSI_KEY_NR; i++) {
		k = kt_iscsi_key_get(i);
		KT_EXPECT(k && k->name);
		if (!k || !k->name)
			continue;
		len = strlen(k->name);
		KT_EXPECT_EQ(k->id, i);
		KT_EXPECT(kt_iscsi_key_find((const u8 *)k->name, len) == k);
		KT_EXPECT(k->value_max >= 1 &&
			  k->value_max <= KT_ISCSI_VALUE_HARD_MAX);
		KT_EXPECT(k->senders && k->stages);
		KT_EXPECT(k->min <= k->max);
		if (!k->def)
			continue;
		if (k->type == KT_ISCSI_TYPE_NUMBER) {
			KT_EXPECT_EQ(kt_iscsi_parse_number((const u8 *)k->def,
							   strlen(k->def),
							   k->max, 0, &v, NULL),
				     KT_ISCSI_TEXT_OK);
		} else if (k->type == KT_ISCSI_TYPE_BOOL) {
			KT_EXPECT_EQ(kt_iscsi_parse_bool((const u8 *)k->def,
							 strlen(k->def), &b),
				     KT_ISCSI_TEXT_OK);
		} else if (k->values) {
			KT_EXPECT(kt_iscsi_list_contains((const u8 *)k->values,
							 strlen(k->values),
							 (const u8 *)k->def,
							 strlen(k->def)));
		}
	}
}

struct nego {
	enum kt_iscsi_nego_status st;
	char out[64];
	size_t len;
};

/* Negotiates with every input in an exact-size heap buffer. */
static struct nego nego(const char *key, const char *offer, const char *mine,
			unsigned int flags)
{
	size_t klen = strlen(key), olen = strlen(offer);
	u8 *k = dup_exact(key, klen), *o = dup_exact(offer, olen);
	char *m = mine ? (char *)dup_exact(mine, strlen(mine)) : NULL;
	struct nego r;

	memset(&r, 0, sizeof(r));
	r.st = kt_iscsi_negotiate(k, klen, o, olen, m, m ? strlen(mine) : 0,
				  flags, r.out, sizeof(r.out), &r.len);
	free(k);
	free(o);
	free(m);
	return r;
}

#define OP	KT_ISCSI_NEGO_OPERATIONAL

static void nego_header_digest_takes_first_value_target_accepts(void)
{
	struct nego r;

	r = nego("HeaderDigest", "CRC32C,None", "CRC32C,None", OP);
	KT_EXPECT_EQ(r.st, KT_ISCSI_NEGO_REPLY);
	KT_EXPECT(!strcmp(r.out, "CRC32C") && r.len == 6);
	r = nego("HeaderDigest", "None,CRC32C", "CRC32C,None", OP);
	KT_EXPECT(r.st == KT_ISCSI_NEGO_REPLY && !strcmp(r.out, "None"));
	r = nego("DataDigest", "CRC32C,None", "None", OP);
	KT_EXPECT(r.st == KT_ISCSI_NEGO_REPLY && !strcmp(r.out, "None"));
	r = nego("HeaderDigest", "X-vendor-crc,CRC32C", "CRC32C", OP);
	KT_EXPECT(r.st == KT_ISCSI_NEGO_REPLY && !strcmp(r.out, "CRC32C"));
	/* the RFC default when nothing is configured */
	r = nego("HeaderDigest", "CRC32C,None", NULL, OP);
	KT_EXPECT(r.st == KT_ISCSI_NEGO_REPLY && !strcmp(r.out, "None"));
	r = nego("AuthMethod", "KRB5,CHAP,None", "CHAP",
		 KT_ISCSI_NEGO_SECURITY);
	KT_EXPECT(r.st == KT_ISCSI_NEGO_REPLY && !strcmp(r.out, "CHAP"));
}

static void nego_list_with_nothing_in_common_is_reject(void)
{
	struct nego r;

	r = nego("HeaderDigest", "CRC32C", "None", OP);
	KT_EXPECT_EQ(r.st, KT_ISCSI_NEGO_REJECT);
	KT_EXPECT(!strcmp(r.out, "Reject"));
	r = nego("HeaderDigest", "", "CRC32C,None", OP);
	KT_EXPECT_EQ(r.st, KT_ISCSI_NEGO_REJECT);
	r = nego("HeaderDigest", "crc32c,none", "CRC32C,None", OP);
	KT_EXPECT_EQ(r.st, KT_ISCSI_NEGO_REJECT);
	r = nego("AuthMethod", "None", "CHAP", KT_ISCSI_NEGO_SECURITY);
	KT_EXPECT_EQ(r.st, KT_ISCSI_NEGO_REJECT);
}

static void nego_max_recv_data_segment_length_is_declarative(void)
{
	struct nego r;

	r = nego("MaxRecvDataSegmentLength", "262144", "8192", OP);
	KT_EXPECT_EQ(r.st, KT_ISCSI_NEGO_NO_REPLY);
	KT_EXPECT_EQ(r.len, 0);
	r = nego("MaxRecvDataSegmentLength", "511", "8192", OP);
	KT_EXPECT_EQ(r.st, KT_ISCSI_NEGO_REJECT);
	r = nego("MaxRecvDataSegmentLength", "16777216", "8192", OP);
	KT_EXPECT_EQ(r.st, KT_ISCSI_NEGO_REJECT);
	/* also allowed in full feature phase (Use: ALL) */
	r = nego("MaxRecvDataSegmentLength", "65536", NULL,
		 KT_ISCSI_NEGO_FFP);
	KT_EXPECT_EQ(r.st, KT_ISCSI_NEGO_NO_REPLY);
}

static void nego_burst_lengths_take_the_minimum(void)
{
	struct nego r;

	r = nego("MaxBurstLength", "1048576", "262144", OP);
	KT_EXPECT(r.st == KT_ISCSI_NEGO_REPLY && !strcmp(r.out, "262144"));
	r = nego("MaxBurstLength", "65536", "262144", OP);
	KT_EXPECT(r.st == KT_ISCSI_NEGO_REPLY && !strcmp(r.out, "65536"));
	r = nego("FirstBurstLength", "0x10000", "262144", OP);
	KT_EXPECT(r.st == KT_ISCSI_NEGO_REPLY && !strcmp(r.out, "65536"));
	r = nego("MaxConnections", "8", "1", OP);
	KT_EXPECT(r.st == KT_ISCSI_NEGO_REPLY && !strcmp(r.out, "1"));
	r = nego("ErrorRecoveryLevel", "2", "0", OP);
	KT_EXPECT(r.st == KT_ISCSI_NEGO_REPLY && !strcmp(r.out, "0"));
	r = nego("TargetRecvDataSegmentLength", "262144", "8192", OP);
	KT_EXPECT(r.st == KT_ISCSI_NEGO_REPLY && !strcmp(r.out, "8192"));
}

static void nego_default_time2wait_takes_the_maximum(void)
{
	struct nego r;

	r = nego("DefaultTime2Wait", "0", "2", OP);
	KT_EXPECT(r.st == KT_ISCSI_NEGO_REPLY && !strcmp(r.out, "2"));
	r = nego("DefaultTime2Wait", "3600", "2", OP);
	KT_EXPECT(r.st == KT_ISCSI_NEGO_REPLY && !strcmp(r.out, "3600"));
	r = nego("DefaultTime2Retain", "3600", "20", OP);
	KT_EXPECT(r.st == KT_ISCSI_NEGO_REPLY && !strcmp(r.out, "20"));
}

static void nego_initial_r2t_is_or(void)
{
	struct nego r;

	r = nego("InitialR2T", "No", "No", OP);
	KT_EXPECT(r.st == KT_ISCSI_NEGO_REPLY && !strcmp(r.out, "No"));
	r = nego("InitialR2T", "No", "Yes", OP);
	KT_EXPECT(r.st == KT_ISCSI_NEGO_REPLY && !strcmp(r.out, "Yes"));
	/* RFC 7143 6.2.2: OR with Yes offered: the answer is optional */
	r = nego("InitialR2T", "Yes", "No", OP);
	KT_EXPECT(r.st == KT_ISCSI_NEGO_REPLY_OPTIONAL &&
		  !strcmp(r.out, "Yes"));
	r = nego("DataPDUInOrder", "No", NULL, OP);
	KT_EXPECT(r.st == KT_ISCSI_NEGO_REPLY && !strcmp(r.out, "Yes"));
}

static void nego_immediate_data_is_and(void)
{
	struct nego r;

	r = nego("ImmediateData", "Yes", "Yes", OP);
	KT_EXPECT(r.st == KT_ISCSI_NEGO_REPLY && !strcmp(r.out, "Yes"));
	r = nego("ImmediateData", "Yes", "No", OP);
	KT_EXPECT(r.st == KT_ISCSI_NEGO_REPLY && !strcmp(r.out, "No"));
	/* RFC 7143 6.2.2: AND with No offered: the answer is optional */
	r = nego("ImmediateData", "No", "Yes", OP);
	KT_EXPECT(r.st == KT_ISCSI_NEGO_REPLY_OPTIONAL &&
		  !strcmp(r.out, "No"));
	r = nego("ImmediateData", "yes", "Yes", OP);
	KT_EXPECT_EQ(r.st, KT_ISCSI_NEGO_REJECT);
	r = nego("RDMAExtensions", "Yes", NULL, OP);
	KT_EXPECT(r.st == KT_ISCSI_NEGO_REPLY && !strcmp(r.out, "No"));
}

static void nego_unknown_key_is_not_understood(void)
{
	struct nego r;

	r = nego("X-com.example.Feature", "Yes", NULL, OP);
	KT_EXPECT_EQ(r.st, KT_ISCSI_NEGO_NOT_UNDERSTOOD);
	KT_EXPECT(!strcmp(r.out, "NotUnderstood") && r.len == 13);
	r = nego("iSCSIProtocolLevel", "1", NULL, OP);
	KT_EXPECT_EQ(r.st, KT_ISCSI_NEGO_NOT_UNDERSTOOD);
	r = nego("headerdigest", "None", NULL, OP);
	KT_EXPECT_EQ(r.st, KT_ISCSI_NEGO_NOT_UNDERSTOOD);
}

static void nego_out_of_range_is_reject(void)
{
	static const char *const offers[][2] = {
		{ "MaxBurstLength", "511" },
		{ "MaxBurstLength", "16777216" },
		{ "MaxBurstLength", "" },
		{ "MaxBurstLength", "abc" },
		{ "MaxBurstLength", "0b//" },		/* not a numerical-value */
		{ "MaxBurstLength", "99999999999999999999999" },
		{ "ErrorRecoveryLevel", "3" },
		{ "MaxConnections", "0" },
		{ "DefaultTime2Wait", "3601" },
		{ "MaxOutstandingR2T", "65536" },
		{ "MaxOutstandingUnexpectedPDUs", "1" },
		{ "SessionType", "Bogus" },
	};
	struct nego r;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(offers); i++) {
		r = nego(offers[i][0], offers[i][1], NULL, OP);
		KT_EXPECT_EQ(r.st, KT_ISCSI_NEGO_REJECT);
		KT_EXPECT(!strcmp(r.out, "Reject"));
	}
}

static void nego_keys_irrelevant_to_discovery_answer_irrelevant(void)
{
	struct nego r;

	r = nego("MaxBurstLength", "262144", NULL,
		 OP | KT_ISCSI_NEGO_F_DISCOVERY);
	KT_EXPECT(r.st == KT_ISCSI_NEGO_IRRELEVANT &&
		  !strcmp(r.out, "Irrelevant"));
	r = nego("ErrorRecoveryLevel", "0", NULL,
		 OP | KT_ISCSI_NEGO_F_DISCOVERY);
	KT_EXPECT_EQ(r.st, KT_ISCSI_NEGO_REPLY);
	r = nego("HeaderDigest", "None", NULL, OP | KT_ISCSI_NEGO_F_DISCOVERY);
	KT_EXPECT_EQ(r.st, KT_ISCSI_NEGO_REPLY);
}

static void nego_leading_only_key_on_other_connection(void)
{
	struct nego r;

	r = nego("MaxBurstLength", "262144", NULL,
		 OP | KT_ISCSI_NEGO_F_NON_LEADING);
	KT_EXPECT_EQ(r.st, KT_ISCSI_NEGO_IRRELEVANT);
	r = nego("SessionType", "Normal", NULL,
		 OP | KT_ISCSI_NEGO_F_NON_LEADING);
	KT_EXPECT_EQ(r.st, KT_ISCSI_NEGO_NO_REPLY);
	r = nego("HeaderDigest", "CRC32C", "CRC32C",
		 OP | KT_ISCSI_NEGO_F_NON_LEADING);
	KT_EXPECT(r.st == KT_ISCSI_NEGO_REPLY && !strcmp(r.out, "CRC32C"));
}

static void nego_wrong_sender_or_stage_is_not_allowed(void)
{
	struct nego r;

	r = nego("TargetAlias", "x", NULL, OP);
	KT_EXPECT_EQ(r.st, KT_ISCSI_NEGO_NOT_ALLOWED);
	r = nego("TargetPortalGroupTag", "1", NULL, OP);
	KT_EXPECT_EQ(r.st, KT_ISCSI_NEGO_NOT_ALLOWED);
	r = nego("HeaderDigest", "None", NULL, KT_ISCSI_NEGO_SECURITY);
	KT_EXPECT_EQ(r.st, KT_ISCSI_NEGO_NOT_ALLOWED);
	r = nego("AuthMethod", "None", "None", OP);
	KT_EXPECT_EQ(r.st, KT_ISCSI_NEGO_NOT_ALLOWED);
	r = nego("SendTargets", "All", NULL, OP);
	KT_EXPECT_EQ(r.st, KT_ISCSI_NEGO_NOT_ALLOWED);
	r = nego("SendTargets", "All", NULL, KT_ISCSI_NEGO_FFP);
	KT_EXPECT_EQ(r.st, KT_ISCSI_NEGO_NO_REPLY);
	/* declarations of Any-Stage keys go in both login stages */
	r = nego("InitiatorName", "iqn.2005-03.org.example:i", NULL,
		 KT_ISCSI_NEGO_SECURITY);
	KT_EXPECT_EQ(r.st, KT_ISCSI_NEGO_NO_REPLY);
	/* no stage given: no stage check */
	r = nego("AuthMethod", "None", "None", 0);
	KT_EXPECT_EQ(r.st, KT_ISCSI_NEGO_REPLY);
}

static void nego_reserved_constant_as_offer_is_bad(void)
{
	KT_EXPECT_EQ(nego("HeaderDigest", "Reject", NULL, OP).st,
		     KT_ISCSI_NEGO_BAD_OFFER);
	KT_EXPECT_EQ(nego("MaxBurstLength", "NotUnderstood", NULL, OP).st,
		     KT_ISCSI_NEGO_BAD_OFFER);
	KT_EXPECT_EQ(nego("InitialR2T", "Irrelevant", NULL, OP).st,
		     KT_ISCSI_NEGO_BAD_OFFER);
}

static void nego_obsolete_marker_keys(void)
{
	struct nego r;

	/* RFC 7143 13.25: marker intervals MUST be answered with Reject */
	r = nego("OFMarkInt", "2048~8192", NULL, OP);
	KT_EXPECT(r.st == KT_ISCSI_NEGO_REJECT && !strcmp(r.out, "Reject"));
	r = nego("IFMarkInt", "1", NULL, OP);
	KT_EXPECT_EQ(r.st, KT_ISCSI_NEGO_REJECT);
	r = nego("IFMarker", "Yes", NULL, OP);
	KT_EXPECT(r.st == KT_ISCSI_NEGO_REPLY && !strcmp(r.out, "No"));
	r = nego("OFMarker", "No", NULL, OP);
	KT_EXPECT(r.st == KT_ISCSI_NEGO_REPLY_OPTIONAL &&
		  !strcmp(r.out, "No"));
}

static void nego_bad_target_config_is_reported(void)
{
	KT_EXPECT_EQ(nego("HeaderDigest", "None", "MD5,None", OP).st,
		     KT_ISCSI_NEGO_BAD_CONFIG);
	KT_EXPECT_EQ(nego("MaxBurstLength", "512", "100", OP).st,
		     KT_ISCSI_NEGO_BAD_CONFIG);
	KT_EXPECT_EQ(nego("MaxBurstLength", "512", "lots", OP).st,
		     KT_ISCSI_NEGO_BAD_CONFIG);
	KT_EXPECT_EQ(nego("InitialR2T", "No", "yes", OP).st,
		     KT_ISCSI_NEGO_BAD_CONFIG);
	/* AuthMethod has no RFC default */
	KT_EXPECT_EQ(nego("AuthMethod", "None", NULL,
			  KT_ISCSI_NEGO_SECURITY).st,
		     KT_ISCSI_NEGO_BAD_CONFIG);
}

static void nego_small_output_buffer_is_no_space(void)
{
	u8 *k = dup_exact("MaxBurstLength", 14), *o = dup_exact("262144", 6);
	char out[7];
	size_t len = 99;

	KT_EXPECT_EQ(kt_iscsi_negotiate(k, 14, o, 6, "262144", 6, OP, out, 6,
					&len), KT_ISCSI_NEGO_NO_SPACE);
	KT_EXPECT_EQ(len, 0);
	KT_EXPECT_EQ(kt_iscsi_negotiate(k, 14, o, 6, "262144", 6, OP, out, 7,
					&len), KT_ISCSI_NEGO_REPLY);
	KT_EXPECT(len == 6 && !strcmp(out, "262144"));
	KT_EXPECT_EQ(kt_iscsi_negotiate(o, 6, o, 6, NULL, 0, OP, NULL, 0,
					&len), KT_ISCSI_NEGO_NO_SPACE);
	free(k);
	free(o);
}

static void nego_unexpected_pdus_zero_means_no_limit(void)
{
	struct nego r;

	r = nego("MaxOutstandingUnexpectedPDUs", "0", "0", OP);
	KT_EXPECT(r.st == KT_ISCSI_NEGO_REPLY && !strcmp(r.out, "0"));
	r = nego("MaxOutstandingUnexpectedPDUs", "0", "64", OP);
	KT_EXPECT(r.st == KT_ISCSI_NEGO_REPLY && !strcmp(r.out, "64"));
	r = nego("MaxOutstandingUnexpectedPDUs", "16", "0", OP);
	KT_EXPECT(r.st == KT_ISCSI_NEGO_REPLY && !strcmp(r.out, "16"));
	r = nego("MaxOutstandingUnexpectedPDUs", "16", "64", OP);
	KT_EXPECT(r.st == KT_ISCSI_NEGO_REPLY && !strcmp(r.out, "16"));
	r = nego("MaxOutstandingUnexpectedPDUs", "4294967295", "0", OP);
	KT_EXPECT(r.st == KT_ISCSI_NEGO_REPLY &&
		  !strcmp(r.out, "4294967295"));
}

static void nego_chap_and_declarations(void)
{
	struct nego r;
	unsigned int sec = KT_ISCSI_NEGO_SECURITY;

	KT_EXPECT_EQ(nego("CHAP_R", "0x00", NULL, sec).st, KT_ISCSI_NEGO_AUTH);
	KT_EXPECT_EQ(nego("CHAP_N", "user", NULL, sec).st, KT_ISCSI_NEGO_AUTH);
	KT_EXPECT_EQ(nego("CHAP_C", "0x00", NULL, OP).st,
		     KT_ISCSI_NEGO_NOT_ALLOWED);
	/* the algorithm list too: the CHAP code picks one (chap.c) */
	KT_EXPECT_EQ(nego("CHAP_A", "7,5", "5", sec).st, KT_ISCSI_NEGO_AUTH);
	KT_EXPECT_EQ(nego("CHAP_A", "7,6", NULL, sec).st, KT_ISCSI_NEGO_AUTH);
	KT_EXPECT_EQ(nego("SessionType", "Discovery", NULL, sec).st,
		     KT_ISCSI_NEGO_NO_REPLY);
	KT_EXPECT_EQ(nego("InitiatorAlias", "", NULL, OP).st,
		     KT_ISCSI_NEGO_NO_REPLY);
	r = nego("TaskReporting", "FastAbort,RFC3720", NULL, OP);
	KT_EXPECT(r.st == KT_ISCSI_NEGO_REPLY && !strcmp(r.out, "RFC3720"));
}

static void put_serializes_and_detects_overflow(void)
{
	u8 *buf = malloc(19);	/* exactly "MaxBurstLength=512\0" */
	size_t pos = 0;

	KT_EXPECT_EQ(kt_iscsi_text_put(buf, 19, &pos, "MaxBurstLength", 14,
				       "512", 3), KT_ISCSI_TEXT_OK);
	KT_EXPECT_EQ(pos, 19);
	KT_EXPECT(!memcmp(buf, "MaxBurstLength=512", 19));
	KT_EXPECT_EQ(kt_iscsi_text_put(buf, 19, &pos, "A", 1, "", 0),
		     KT_ISCSI_TEXT_NO_SPACE);
	KT_EXPECT_EQ(pos, 19);

	pos = 0;
	memset(buf, 0x5a, 19);
	KT_EXPECT_EQ(kt_iscsi_text_put(buf, 18, &pos, "MaxBurstLength", 14,
				       "512", 3), KT_ISCSI_TEXT_NO_SPACE);
	KT_EXPECT_EQ(pos, 0);
	KT_EXPECT_EQ(buf[0], 0x5a);	/* nothing written */
	/* sizes that would wrap around are refused, not wrapped */
	KT_EXPECT_EQ(kt_iscsi_text_put(buf, 19, &pos, "A", 1, "x",
				       (size_t)-1), KT_ISCSI_TEXT_NO_SPACE);
	KT_EXPECT_EQ(kt_iscsi_text_put(buf, 19, &pos, "A", 1, "x",
				       (size_t)-18), KT_ISCSI_TEXT_NO_SPACE);
	pos = 20;
	KT_EXPECT_EQ(kt_iscsi_text_put(buf, 19, &pos, "A", 1, "", 0),
		     KT_ISCSI_TEXT_NO_SPACE);
	pos = 15;
	KT_EXPECT_EQ(kt_iscsi_text_put(buf, 19, &pos, "A", 1, "b", 1),
		     KT_ISCSI_TEXT_OK);
	KT_EXPECT_EQ(pos, 19);
	KT_EXPECT(!memcmp(buf + 15, "A=b", 4));
	free(buf);
}

static void put_rejects_bad_keys_and_nul_in_value(void)
{
	char key[65];
	u8 buf[128];
	size_t pos = 0;

	KT_EXPECT_EQ(kt_iscsi_text_put(buf, sizeof(buf), &pos, "", 0, "x", 1),
		     KT_ISCSI_TEXT_EMPTY_KEY);
	KT_EXPECT_EQ(kt_iscsi_text_put(buf, sizeof(buf), &pos, "A=B", 3, "x",
				       1), KT_ISCSI_TEXT_BAD_KEY_CHAR);
	KT_EXPECT_EQ(kt_iscsi_text_put(buf, sizeof(buf), &pos, "a b", 3, "x",
				       1), KT_ISCSI_TEXT_BAD_KEY_CHAR);
	memset(key, 'K', 64);
	KT_EXPECT_EQ(kt_iscsi_text_put(buf, sizeof(buf), &pos, key, 64, "x", 1),
		     KT_ISCSI_TEXT_KEY_TOO_LONG);
	KT_EXPECT_EQ(kt_iscsi_text_put(buf, sizeof(buf), &pos, "A", 1, "x\0y",
				       3), KT_ISCSI_TEXT_BAD_VALUE);
	KT_EXPECT_EQ(pos, 0);
}

/* a key echoed NotUnderstood in full feature phase begins as it came */
static void put_takes_a_key_of_any_first_character(void)
{
	u8 buf[64];
	size_t pos = 0;

	KT_EXPECT_EQ(kt_iscsi_text_put(buf, sizeof(buf), &pos, "sENDtARGETS", 11,
				       "NotUnderstood", 13), KT_ISCSI_TEXT_OK);
	KT_EXPECT_EQ(pos, 26);
	KT_EXPECT(!memcmp(buf, "sENDtARGETS=NotUnderstood", 26));
}

static void split_any_key_takes_a_lowercase_first_character(void)
{
	static const u8 req[] = "sENDtARGETS=aLL\0SendTargetsPlease=All";
	struct kt_iscsi_kv kv[4];
	struct kt_iscsi_text t;

	kt_iscsi_text_init(&t, kv, ARRAY_SIZE(kv));
	KT_EXPECT_EQ(kt_iscsi_text_split(&t, req, sizeof(req), 0),
		     KT_ISCSI_TEXT_BAD_KEY_CHAR);
	kt_iscsi_text_init(&t, kv, ARRAY_SIZE(kv));
	KT_EXPECT_EQ(kt_iscsi_text_split(&t, req, sizeof(req),
					 KT_ISCSI_TEXT_F_ANY_KEY),
		     KT_ISCSI_TEXT_OK);
	KT_EXPECT_EQ(t.nr, 2);
	KT_EXPECT_EQ(kv[0].key_len, 11);
	KT_EXPECT(!memcmp(kv[0].key, "sENDtARGETS", 11));
}

static int name_ok(const char *name)
{
	return !kt_iscsi_name_error((const u8 *)name, strlen(name));
}

/* RFC 7143 4.2.7: what SendTargets=<name> and configfs take as a name */
static void iscsi_names_are_checked_by_their_type(void)
{
	char longname[230];

	KT_EXPECT(name_ok("iqn.2026-11.org.ktarget:test"));
	KT_EXPECT(name_ok("iqn.2026-01.org"));
	KT_EXPECT(name_ok("eui.0123456789abcdef"));
	KT_EXPECT(name_ok("naa.0123456789ABCDEF"));
	KT_EXPECT(name_ok("naa.0123456789abcdef0123456789abcdef"));
	KT_EXPECT(!name_ok(""));
	KT_EXPECT(!name_ok("A"));
	KT_EXPECT(!name_ok("Alle"));
	KT_EXPECT(!name_ok("iqn."));
	KT_EXPECT(!name_ok("iqn.2026-13.org.ktarget"));
	KT_EXPECT(!name_ok("iqn.2026-11.org.kt target"));
	KT_EXPECT(!name_ok("eui.0123456789abcdeg"));
	KT_EXPECT(!name_ok("naa.0123"));
	memset(longname, 'a', sizeof(longname));
	memcpy(longname, "iqn.2026-11.org.", 16);
	longname[224] = '\0';
	KT_EXPECT(!name_ok(longname));
	longname[223] = '\0';
	KT_EXPECT(name_ok(longname));
	/* not NUL-terminated: only the given bytes count */
	KT_EXPECT(!kt_iscsi_name_error((const u8 *)"iqn.2026-11.orgX", 15));
}

static void put_then_split_round_trips(void)
{
	static const char *const items[][2] = {
		{ "HeaderDigest", "None" }, { "TargetAlias", "" },
		{ "TargetAddress", "[fe80::1]:3260,1" },
		{ "InitiatorAlias", "caf\xc3\xa9" },
	};
	struct kt_iscsi_kv kv[4];
	struct kt_iscsi_text t;
	u8 buf[128], *b;
	size_t i, pos = 0;

	for (i = 0; i < 4; i++)
		KT_EXPECT_EQ(kt_iscsi_text_put(buf, sizeof(buf), &pos,
					       items[i][0],
					       strlen(items[i][0]),
					       items[i][1],
					       strlen(items[i][1])),
			     KT_ISCSI_TEXT_OK);
	KT_EXPECT_EQ(split(&t, kv, 4, buf, pos, 0, &b), KT_ISCSI_TEXT_OK);
	KT_EXPECT_EQ(t.nr, 4);
	for (i = 0; i < t.nr; i++)
		KT_EXPECT(kv_is(&kv[i], items[i][0], items[i][1]));
	free(b);
}

static const struct kt_test tests[] = {
	KT_TEST_ENTRY(login_well_formed_multi_key_buffer_is_split),
	KT_TEST_ENTRY(login_value_may_contain_equals_sign),
	KT_TEST_ENTRY(login_key_without_equals_is_rejected),
	KT_TEST_ENTRY(login_empty_key_is_rejected),
	KT_TEST_ENTRY(login_key_of_64_bytes_is_rejected),
	KT_TEST_ENTRY(login_key_with_bad_character_is_rejected),
	KT_TEST_ENTRY(login_value_of_255_bytes_is_accepted_256_rejected),
	KT_TEST_ENTRY(login_chap_values_may_reach_1024_binary_bytes),
	KT_TEST_ENTRY(login_value_of_8193_bytes_is_rejected),
	KT_TEST_ENTRY(login_list_values_are_limited_per_element),
	KT_TEST_ENTRY(login_duplicate_keys_report_both_offsets),
	KT_TEST_ENTRY(login_duplicate_key_in_a_later_pdu_is_rejected),
	KT_TEST_ENTRY(login_unterminated_item_without_continue_is_rejected),
	KT_TEST_ENTRY(login_unterminated_item_with_continue_reports_the_tail),
	KT_TEST_ENTRY(login_cut_item_is_checked_as_far_as_it_goes),
	KT_TEST_ENTRY(login_non_utf8_value_is_rejected),
	KT_TEST_ENTRY(login_too_many_items_is_rejected),
	KT_TEST_ENTRY(login_trailing_nuls_are_padding_inner_empty_item_is_not),
	KT_TEST_ENTRY(number_decimal_parses_and_overflow_is_caught),
	KT_TEST_ENTRY(number_hex_parses_and_overflow_is_caught),
	KT_TEST_ENTRY(number_base64_parses_only_when_allowed),
	KT_TEST_ENTRY(number_with_garbage_or_empty_is_rejected),
	KT_TEST_ENTRY(number_above_max_is_out_of_range),
	KT_TEST_ENTRY(boolean_is_yes_or_no_only),
	KT_TEST_ENTRY(list_iteration_yields_each_value),
	KT_TEST_ENTRY(reserved_constants_are_recognised),
	KT_TEST_ENTRY(range_parses_and_checks_order),
	KT_TEST_ENTRY(binary_hex_decodes_odd_digit_counts_too),
	KT_TEST_ENTRY(binary_base64_decodes_with_and_without_pads),
	KT_TEST_ENTRY(binary_bad_encodings_are_rejected),
	KT_TEST_ENTRY(binary_longer_than_the_buffer_is_rejected),
	KT_TEST_ENTRY(key_table_lookup_is_exact_and_case_sensitive),
	KT_TEST_ENTRY(key_table_entries_are_consistent),
	KT_TEST_ENTRY(nego_header_digest_takes_first_value_target_accepts),
	KT_TEST_ENTRY(nego_list_with_nothing_in_common_is_reject),
	KT_TEST_ENTRY(nego_max_recv_data_segment_length_is_declarative),
	KT_TEST_ENTRY(nego_burst_lengths_take_the_minimum),
	KT_TEST_ENTRY(nego_default_time2wait_takes_the_maximum),
	KT_TEST_ENTRY(nego_initial_r2t_is_or),
	KT_TEST_ENTRY(nego_immediate_data_is_and),
	KT_TEST_ENTRY(nego_unknown_key_is_not_understood),
	KT_TEST_ENTRY(nego_out_of_range_is_reject),
	KT_TEST_ENTRY(nego_keys_irrelevant_to_discovery_answer_irrelevant),
	KT_TEST_ENTRY(nego_leading_only_key_on_other_connection),
	KT_TEST_ENTRY(nego_wrong_sender_or_stage_is_not_allowed),
	KT_TEST_ENTRY(nego_reserved_constant_as_offer_is_bad),
	KT_TEST_ENTRY(nego_obsolete_marker_keys),
	KT_TEST_ENTRY(nego_bad_target_config_is_reported),
	KT_TEST_ENTRY(nego_small_output_buffer_is_no_space),
	KT_TEST_ENTRY(nego_unexpected_pdus_zero_means_no_limit),
	KT_TEST_ENTRY(nego_chap_and_declarations),
	KT_TEST_ENTRY(put_serializes_and_detects_overflow),
	KT_TEST_ENTRY(put_rejects_bad_keys_and_nul_in_value),
	KT_TEST_ENTRY(put_then_split_round_trips),
	KT_TEST_ENTRY(put_takes_a_key_of_any_first_character),
	KT_TEST_ENTRY(split_any_key_takes_a_lowercase_first_character),
	KT_TEST_ENTRY(iscsi_names_are_checked_by_their_type),
};

KT_TEST_MAIN(tests)
