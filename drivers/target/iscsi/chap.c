// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_iscsi: CHAP (RFC 7143 12.1.3, RFC 1994), one-way and mutual,
 * with MD5, SHA-1, SHA-256 and SHA3-256 through the kernel crypto API.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <crypto/algapi.h>
#include <crypto/hash.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/string.h>

#include "login.h"

struct kt_chap_alg {
	u8		id;		/* CHAP_A value */
	const char	*hash;		/* crypto API name */
	u8		len;		/* digest bytes */
};

/* IANA PPP authentication algorithms, in our order of preference */
static const struct kt_chap_alg kt_chap_algs[] = {
	{ 8, "sha3-256", 32 },
	{ 7, "sha256", 32 },
	{ 6, "sha1", 20 },
	{ 5, "md5", 16 },
};

static const struct kt_chap_alg *kt_chap_alg(u8 id)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(kt_chap_algs); i++)
		if (kt_chap_algs[i].id == id)
			return &kt_chap_algs[i];
	return NULL;
}

static const struct kt_iscsi_auth *kt_chap_creds(struct kt_iscsi_login *l)
{
	if (l->discovery)
		return &kt_iscsi_discovery_auth;
	if (l->acl)
		return &to_iscsi_acl(l->acl)->auth;
	return &l->tpg->auth;
}

/* Does this login have to authenticate? (tpg attrib/authentication, ACL override) */
bool kt_iscsi_chap_required(struct kt_iscsi_tpg *tpg, struct kt_node_acl *acl)
{
	if (acl && to_iscsi_acl(acl)->attrib.authentication >= 0)
		return to_iscsi_acl(acl)->attrib.authentication;
	return tpg->attrib.authentication;
}

/*
 * The AuthMethod list we accept for this login: CHAP only when it is
 * required; otherwise CHAP when the initiator asks for it and credentials
 * are configured (as LIO does), or None.
 */
const char *kt_iscsi_chap_auth_method(struct kt_iscsi_login *l)
{
	const struct kt_iscsi_auth *cred;

	if (l->need_auth)
		return "CHAP";
	if (!l->discovery && !l->tpg)
		return "None";
	cred = kt_chap_creds(l);
	return cred->userid[0] && cred->password[0] ? "CHAP,None" : "None";
}

/* H(id || secret || challenge) */
static int kt_chap_digest(const struct kt_chap_alg *alg, u8 id,
			  const char *secret, const u8 *chal, size_t chal_len,
			  u8 *out)
{
	struct crypto_shash *tfm;
	int ret;

	tfm = crypto_alloc_shash(alg->hash, 0, 0);
	if (IS_ERR(tfm))
		return PTR_ERR(tfm);
	{
		SHASH_DESC_ON_STACK(desc, tfm);

		desc->tfm = tfm;
		ret = crypto_shash_init(desc) ?:
		      crypto_shash_update(desc, &id, 1) ?:
		      crypto_shash_update(desc, secret, strlen(secret)) ?:
		      crypto_shash_update(desc, chal, chal_len) ?:
		      crypto_shash_final(desc, out);
		shash_desc_zero(desc);
	}
	crypto_free_shash(tfm);
	return ret;
}

static void kt_hex(char *dst, const u8 *src, size_t len)
{
	*dst++ = '0';
	*dst++ = 'x';
	dst = bin2hex(dst, src, len);
	*dst = '\0';
}

/* @kv's value, NUL-terminated, into @dst of @size bytes; false if too long */
static bool kt_chap_copy(char *dst, size_t size, const struct kt_iscsi_kv *kv)
{
	if (kv->value_len >= size)
		return false;
	memcpy(dst, kv->value, kv->value_len);
	dst[kv->value_len] = '\0';
	return true;
}

/* Collect the CHAP_* keys of one request. */
u16 kt_iscsi_chap_key(struct kt_iscsi_chap *chap, struct kt_iscsi_login *l,
		      const struct kt_iscsi_kv *kv, const char **why)
{
	const char *k = (const char *)kv->key;
	bool ok = false;

	if (kv->key_len != 6 || memcmp(k, "CHAP_", 5)) {
		*why = "unexpected authentication key";
		return KT_ISCSI_LOGIN_INITIATOR_ERROR;
	}
	switch (k[5]) {
	case 'A':
		ok = kt_chap_copy(chap->a, sizeof(chap->a), kv);
		chap->got_a = ok;
		break;
	case 'N':
		ok = kt_chap_copy(chap->n, sizeof(chap->n), kv);
		chap->got_n = ok;
		break;
	case 'R':
		ok = kt_chap_copy(chap->r, sizeof(chap->r), kv);
		chap->got_r = ok;
		break;
	case 'I':
		ok = kt_chap_copy(chap->i, sizeof(chap->i), kv);
		chap->got_i = ok;
		break;
	case 'C':
		ok = kt_chap_copy(chap->c, sizeof(chap->c), kv);
		chap->got_c = ok;
		break;
	}
	if (!ok) {
		*why = "bad CHAP key";
		return KT_ISCSI_LOGIN_AUTH_FAILED;
	}
	return 0;
}

/* Choose an algorithm and send the challenge. */
static u16 kt_chap_challenge(struct kt_iscsi_chap *chap,
			     struct kt_iscsi_login *l, const char **why)
{
	const struct kt_chap_alg *alg = NULL, *a;
	struct kt_iscsi_list it;
	const u8 *item;
	size_t len;
	char buf[2 + 2 * KT_CHAP_CHALLENGE_MAX + 1];
	u64 v;

	kt_iscsi_list_init(&it, (const u8 *)chap->a, strlen(chap->a));
	while (!alg && kt_iscsi_list_next(&it, &item, &len)) {
		if (kt_iscsi_parse_number(item, len, 255, 0, &v, NULL))
			continue;
		a = kt_chap_alg(v);
		if (a)
			alg = a;
	}
	if (!alg) {
		*why = "no CHAP algorithm in common";
		kt_rsp_put(l, "CHAP_A", "Reject");
		return KT_ISCSI_LOGIN_AUTH_FAILED;
	}
	chap->alg = alg->id;
	chap->id = get_random_u8();
	/* RFC 1994: the challenge is at least as long as the digest */
	chap->challenge_len = alg->len;
	get_random_bytes(chap->challenge, chap->challenge_len);

	snprintf(buf, sizeof(buf), "%u", alg->id);
	kt_rsp_put(l, "CHAP_A", buf);
	snprintf(buf, sizeof(buf), "%u", chap->id);
	kt_rsp_put(l, "CHAP_I", buf);
	kt_hex(buf, chap->challenge, chap->challenge_len);
	kt_rsp_put(l, "CHAP_C", buf);
	chap->state = KT_CHAP_WANT_R;
	return 0;
}

/* Check the initiator's answer; answer its challenge if it sent one. */
static u16 kt_chap_verify(struct kt_iscsi_chap *chap, struct kt_iscsi_login *l,
			  const char **why)
{
	const struct kt_chap_alg *alg = kt_chap_alg(chap->alg);
	const struct kt_iscsi_auth *cred = kt_chap_creds(l);
	u8 want[KT_CHAP_DIGEST_MAX], got[KT_CHAP_DIGEST_MAX];
	u8 ichal[KT_ISCSI_CHAP_BINARY_MAX];
	char hex[2 + 2 * KT_CHAP_DIGEST_MAX + 1];
	size_t got_len, ichal_len;
	u64 iid;

	if (!chap->got_n || !chap->got_r) {
		*why = "CHAP_N or CHAP_R missing";
		return KT_ISCSI_LOGIN_AUTH_FAILED;
	}
	if (!cred->userid[0] || !cred->password[0]) {
		*why = "no CHAP credentials configured";
		return KT_ISCSI_LOGIN_AUTH_FAILED;
	}
	if (strcmp(chap->n, cred->userid)) {
		*why = "CHAP_N does not match the configured userid";
		return KT_ISCSI_LOGIN_AUTH_FAILED;
	}
	if (kt_iscsi_parse_binary((const u8 *)chap->r, strlen(chap->r), got,
				  sizeof(got), &got_len, NULL) ||
	    got_len != alg->len) {
		*why = "malformed CHAP_R";
		return KT_ISCSI_LOGIN_AUTH_FAILED;
	}
	if (kt_chap_digest(alg, chap->id, cred->password, chap->challenge,
			   chap->challenge_len, want)) {
		*why = "CHAP hash unavailable";
		return KT_ISCSI_LOGIN_TARGET_ERROR;
	}
	if (crypto_memneq(want, got, alg->len)) {
		*why = "CHAP_R is wrong";
		return KT_ISCSI_LOGIN_AUTH_FAILED;
	}
	chap->done = true;
	chap->state = KT_CHAP_DONE;

	/* mutual CHAP: the initiator challenges us */
	if (!chap->got_i && !chap->got_c)
		return 0;
	if (!chap->got_i || !chap->got_c ||
	    kt_iscsi_parse_number((const u8 *)chap->i, strlen(chap->i), 255, 0,
				  &iid, NULL) ||
	    kt_iscsi_parse_binary((const u8 *)chap->c, strlen(chap->c), ichal,
				  sizeof(ichal), &ichal_len, NULL) || !ichal_len) {
		*why = "malformed CHAP_I or CHAP_C";
		return KT_ISCSI_LOGIN_AUTH_FAILED;
	}
	/* RFC 7143 12.1.3: a reflected challenge is refused */
	if (ichal_len == chap->challenge_len &&
	    !memcmp(ichal, chap->challenge, ichal_len)) {
		*why = "the initiator reflected our CHAP challenge";
		return KT_ISCSI_LOGIN_AUTH_FAILED;
	}
	if (!cred->userid_mutual[0] || !cred->password_mutual[0]) {
		*why = "mutual CHAP asked, no mutual credentials configured";
		return KT_ISCSI_LOGIN_AUTH_FAILED;
	}
	if (kt_chap_digest(alg, iid, cred->password_mutual, ichal, ichal_len,
			   want)) {
		*why = "CHAP hash unavailable";
		return KT_ISCSI_LOGIN_TARGET_ERROR;
	}
	kt_rsp_put(l, "CHAP_N", cred->userid_mutual);
	kt_hex(hex, want, alg->len);
	kt_rsp_put(l, "CHAP_R", hex);
	return 0;
}

/* After the keys of a security-stage request: advance the exchange. */
u16 kt_iscsi_chap_step(struct kt_iscsi_chap *chap, struct kt_iscsi_login *l,
		       const char **why)
{
	u16 st = 0;

	switch (chap->state) {
	case KT_CHAP_NONE:
		/*
		 * RFC 7143 11.13.5: without a method in common the login
		 * cannot go on, and ends now (as LIO's does) rather than
		 * answer T=0 to each request until it times out. Where CHAP
		 * is required we offer CHAP alone, so None is never agreed:
		 * the initiator that offers only None gets here.
		 */
		if (chap->no_method) {
			*why = l->need_auth ?
			       "authentication required, initiator offered no CHAP" :
			       "no AuthMethod in common";
			st = KT_ISCSI_LOGIN_AUTH_FAILED;
			break;
		}
		if (chap->got_a && !chap->method_none)
			st = kt_chap_challenge(chap, l, why);
		break;
	case KT_CHAP_WANT_A:
		if (chap->got_a)
			st = kt_chap_challenge(chap, l, why);
		break;
	case KT_CHAP_WANT_R:
		st = kt_chap_verify(chap, l, why);
		break;
	case KT_CHAP_DONE:
		break;
	}
	/* the next request brings its own keys */
	chap->got_a = false;
	chap->got_n = false;
	chap->got_r = false;
	chap->got_i = false;
	chap->got_c = false;
	return st;
}
