// SPDX-License-Identifier: GPL-2.0
/*
 * iSCSI login and text key=value handling, table-driven. No allocation,
 * locking or logging here: this file is compiled unchanged into the
 * userspace unit and fuzz tests. Buffers are never assumed to be
 * NUL-terminated; every scan is bounded by an explicit length.
 */
#include <linux/kernel.h>
#include <linux/types.h>
#include <linux/string.h>

#include <ktarget/proto/iscsi_text.h>

#define KT_U64_MAX	(~0ULL)

static void kt_set_off(size_t *bad_off, size_t off)
{
	if (bad_off)
		*bad_off = off;
}

/* RFC 7143 6.1: letters, digits, dot, minus, plus, commercial at, underscore */
static bool kt_key_char(u8 c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '+' ||
	       c == '@' || c == '_';
}

/*
 * RFC 7143 6.1: a key-name is a standard-label, which begins with a capital
 * letter. The IANA-registered public extension keys ("X#...", e.g.
 * X#NodeArchitecture of RFC 7143 13.26) carry a '#' after the 'X'.
 */
static bool kt_key_byte_ok(const u8 *key, size_t i, bool any_first)
{
	if (i == 0)
		return (key[0] >= 'A' && key[0] <= 'Z') ||
		       (any_first && kt_key_char(key[0]));
	if (i == 1 && key[1] == '#')
		return key[0] == 'X';
	return kt_key_char(key[i]);
}

/*
 * Scans the key of an item of @len bytes up to its '=' (or its end), into
 * *@key_len. Errors set *@bad to the offending byte within the item.
 */
static enum kt_iscsi_text_status kt_scan_key(const u8 *item, size_t len,
					     size_t *key_len, size_t *bad,
					     bool any_first)
{
	size_t i;

	for (i = 0; i < len && item[i] != '='; i++) {
		if (i == KT_ISCSI_KEY_NAME_MAX) {
			*bad = i;
			return KT_ISCSI_TEXT_KEY_TOO_LONG;
		}
		if (!kt_key_byte_ok(item, i, any_first)) {
			*bad = i;
			return KT_ISCSI_TEXT_BAD_KEY_CHAR;
		}
	}
	*key_len = i;
	return KT_ISCSI_TEXT_OK;
}

/*
 * RFC 7143 6.1 asks for UTF-8 text; RFC 3629 4 defines which byte sequences
 * are well formed (no overlong forms, no surrogates, nothing past U+10FFFF).
 * Returns @len, or the offset of the first byte of a bad sequence.
 */
static size_t kt_utf8_check(const u8 *s, size_t len)
{
	size_t i = 0, j, n;
	u8 c, lo, hi;

	while (i < len) {
		c = s[i];
		if (c < 0x80) {
			i++;
			continue;
		}
		if (c >= 0xc2 && c <= 0xdf)
			n = 1;
		else if (c >= 0xe0 && c <= 0xef)
			n = 2;
		else if (c >= 0xf0 && c <= 0xf4)
			n = 3;
		else
			return i;
		lo = 0x80;
		hi = 0xbf;
		if (c == 0xe0)
			lo = 0xa0;	/* overlong */
		else if (c == 0xed)
			hi = 0x9f;	/* surrogates */
		else if (c == 0xf0)
			lo = 0x90;	/* overlong */
		else if (c == 0xf4)
			hi = 0x8f;	/* above U+10FFFF */
		if (len - i <= n || s[i + 1] < lo || s[i + 1] > hi)
			return i;
		for (j = 2; j <= n; j++)
			if ((s[i + j] & 0xc0) != 0x80)
				return i;
		i += n + 1;
	}
	return len;
}

/*
 * The value of a key (NULL: not in the table) may be @len bytes long; a
 * @complete value is also checked for UTF-8 and, for lists, per element.
 */
static enum kt_iscsi_text_status kt_check_value(const struct kt_iscsi_key *k,
						const u8 *v, size_t len,
						bool complete, size_t *bad)
{
	size_t limit = k ? k->value_max : KT_ISCSI_VALUE_MAX;
	size_t off, start;
	const u8 *comma;

	if (len > limit) {
		*bad = limit;
		return KT_ISCSI_TEXT_VALUE_TOO_LONG;
	}
	if (!complete)
		return KT_ISCSI_TEXT_OK;

	off = kt_utf8_check(v, len);
	if (off != len) {
		*bad = off;
		return KT_ISCSI_TEXT_BAD_UTF8;
	}

	if (!k || k->type != KT_ISCSI_TYPE_LIST)
		return KT_ISCSI_TEXT_OK;
	/* RFC 7143 6.1: the 255-byte limit applies to each value of a list */
	for (start = 0; start <= len; start = off + 1) {
		comma = start < len ? memchr(v + start, ',', len - start) : NULL;
		off = comma ? (size_t)(comma - v) : len;
		if (off - start > KT_ISCSI_VALUE_MAX) {
			*bad = start + KT_ISCSI_VALUE_MAX;
			return KT_ISCSI_TEXT_VALUE_TOO_LONG;
		}
	}
	return KT_ISCSI_TEXT_OK;
}

/* An item of @ilen bytes whose key, of @klen bytes, passed kt_scan_key(). */
static enum kt_iscsi_text_status kt_check_item(const u8 *item, size_t ilen,
					       size_t klen, bool complete,
					       size_t *bad)
{
	enum kt_iscsi_text_status st;

	if (!klen) {
		*bad = 0;
		return KT_ISCSI_TEXT_EMPTY_KEY;
	}
	if (klen == ilen) {
		/* a cut item may not have reached its '=' yet */
		if (!complete)
			return KT_ISCSI_TEXT_OK;
		*bad = ilen;
		return KT_ISCSI_TEXT_NO_EQUALS;
	}
	st = kt_check_value(kt_iscsi_key_find(item, klen), item + klen + 1,
			    ilen - klen - 1, complete, bad);
	*bad += klen + 1;
	return st;
}

void kt_iscsi_text_init(struct kt_iscsi_text *t, struct kt_iscsi_kv *kv,
			unsigned int max)
{
	*t = (struct kt_iscsi_text){ .kv = kv, .max = max };
}

/*
 * RFC 7143 6.2: a key may be declared or negotiated only once, so a key seen
 * earlier in the same sequence is refused, reporting both places.
 */
static enum kt_iscsi_text_status kt_add_item(struct kt_iscsi_text *t,
					     const u8 *item, size_t key_len,
					     size_t item_len, size_t pos)
{
	struct kt_iscsi_kv *kv;
	unsigned int i;

	for (i = 0; i < t->nr; i++) {
		kv = &t->kv[i];
		if (kv->key_len == key_len && !memcmp(kv->key, item, key_len)) {
			t->bad_off = pos;
			t->dup_off = kv->offset;
			t->dup_idx = i;
			return KT_ISCSI_TEXT_DUPLICATE_KEY;
		}
	}
	if (t->nr >= t->max) {
		t->bad_off = pos;
		return KT_ISCSI_TEXT_TOO_MANY;
	}

	kv = &t->kv[t->nr++];
	kv->key = item;
	kv->key_len = key_len;
	kv->value = item + key_len + 1;
	kv->value_len = item_len - key_len - 1;
	kv->offset = pos;
	return KT_ISCSI_TEXT_OK;
}

static bool kt_all_zero(const u8 *p, size_t len, size_t *bad)
{
	size_t i;

	for (i = 0; i < len; i++) {
		if (p[i]) {
			*bad = i;
			return false;
		}
	}
	return true;
}

/*
 * RFC 7143 6.1: the data segment is a sequence of key=value items, each
 * followed by one NUL. With the C bit set (KT_ISCSI_TEXT_F_CONTINUE) the
 * last item may be cut short: it is checked as far as it goes, and its
 * length is left in t->tail_len for the caller to carry into the next PDU
 * (at most KT_ISCSI_KEY_NAME_MAX + 1 + KT_ISCSI_VALUE_HARD_MAX bytes).
 */
enum kt_iscsi_text_status kt_iscsi_text_split(struct kt_iscsi_text *t,
					      const u8 *buf, size_t len,
					      unsigned int flags)
{
	enum kt_iscsi_text_status st;
	size_t pos = 0, ilen, klen, bad;
	const u8 *item, *nul;
	bool complete;

	t->tail_len = 0;
	t->bad_off = 0;
	while (pos < len) {
		item = buf + pos;
		nul = memchr(item, 0, len - pos);
		complete = nul;
		ilen = complete ? (size_t)(nul - item) : len - pos;
		bad = 0;

		if (!ilen) {
			/* NULs after the last item are padding; others are not */
			if (kt_all_zero(item, len - pos, &bad))
				break;
			t->bad_off = pos;
			return KT_ISCSI_TEXT_EMPTY_ITEM;
		}

		st = kt_scan_key(item, ilen, &klen, &bad,
				 flags & KT_ISCSI_TEXT_F_ANY_KEY);
		if (st == KT_ISCSI_TEXT_OK)
			st = kt_check_item(item, ilen, klen, complete, &bad);
		if (st != KT_ISCSI_TEXT_OK) {
			t->bad_off = pos + bad;
			return st;
		}

		if (!complete) {
			/* RFC 7143 6.1: even the last item ends with a NUL */
			if (!(flags & KT_ISCSI_TEXT_F_CONTINUE)) {
				t->bad_off = pos;
				return KT_ISCSI_TEXT_UNTERMINATED;
			}
			t->tail_len = ilen;
			break;
		}

		st = kt_add_item(t, item, klen, ilen, pos);
		if (st != KT_ISCSI_TEXT_OK)
			return st;
		pos += ilen + 1;
	}
	return KT_ISCSI_TEXT_OK;
}

enum kt_iscsi_text_status kt_iscsi_text_put(u8 *buf, size_t size, size_t *pos,
					    const char *key, size_t key_len,
					    const char *val, size_t val_len)
{
	enum kt_iscsi_text_status st;
	size_t klen = 0, bad = 0, room;

	/* a key we echo NotUnderstood may begin with any key character */
	st = kt_scan_key((const u8 *)key, key_len, &klen, &bad, true);
	if (st != KT_ISCSI_TEXT_OK)
		return st;
	if (klen != key_len)
		return KT_ISCSI_TEXT_BAD_KEY_CHAR;	/* an '=' in the key */
	if (!key_len)
		return KT_ISCSI_TEXT_EMPTY_KEY;

	if (*pos > size)
		return KT_ISCSI_TEXT_NO_SPACE;
	room = size - *pos;
	/* key, '=', value, NUL; key_len is at most 63 */
	if (val_len > room || room - val_len < key_len + 2)
		return KT_ISCSI_TEXT_NO_SPACE;
	/* a NUL inside the value would end the item early */
	if (val_len && memchr(val, 0, val_len))
		return KT_ISCSI_TEXT_BAD_VALUE;

	memcpy(buf + *pos, key, key_len);
	buf[*pos + key_len] = '=';
	if (val_len)
		memcpy(buf + *pos + key_len + 1, val, val_len);
	buf[*pos + key_len + 1 + val_len] = '\0';
	*pos += key_len + val_len + 2;
	return KT_ISCSI_TEXT_OK;
}

/* RFC 4648 4: the base64 alphabet; '=' is padding, not a digit */
static int kt_b64_digit(u8 c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

/*
 * Counts the base64 digits of @s into *@ndig and checks that only pad
 * characters follow them, at most two. *@bad is the offset of an error.
 */
static bool kt_b64_scan(const u8 *s, size_t len, size_t *ndig, size_t *bad)
{
	size_t n, i;

	for (n = 0; n < len && s[n] != '='; n++) {
		if (kt_b64_digit(s[n]) < 0) {
			*bad = n;
			return false;
		}
	}
	for (i = n; i < len; i++) {
		if (s[i] != '=' || i - n >= 2) {
			*bad = i;
			return false;
		}
	}
	if (!n) {
		*bad = 0;
		return false;
	}
	*ndig = n;
	return true;
}

enum kt_iscsi_text_status kt_iscsi_parse_number(const u8 *val, size_t len,
						u64 max, unsigned int flags,
						u64 *out, size_t *bad_off)
{
	size_t i, ndig, bad = 0;
	u64 v = 0;
	int d;

	*out = 0;
	if (!len) {
		kt_set_off(bad_off, 0);
		return KT_ISCSI_TEXT_BAD_NUMBER;
	}

	if (len >= 2 && val[0] == '0' && (val[1] == 'x' || val[1] == 'X')) {
		/* RFC 7143 6.1 hex-constant: "0x" and at least one digit */
		if (len == 2) {
			kt_set_off(bad_off, 2);
			return KT_ISCSI_TEXT_BAD_NUMBER;
		}
		for (i = 2; i < len; i++) {
			d = hex_to_bin(val[i]);
			if (d < 0) {
				kt_set_off(bad_off, i);
				return KT_ISCSI_TEXT_BAD_NUMBER;
			}
			if (v > KT_U64_MAX >> 4) {
				kt_set_off(bad_off, i);
				return KT_ISCSI_TEXT_NUM_OVERFLOW;
			}
			v = v << 4 | d;
		}
	} else if (len >= 2 && val[0] == '0' &&
		   (val[1] == 'b' || val[1] == 'B')) {
		/*
		 * RFC 7143 6.1 base64-constant, for binary-values only: as a
		 * number it is read digit by digit, most significant first;
		 * trailing pad characters are not part of it.
		 */
		if (!(flags & KT_ISCSI_NUM_F_BASE64)) {
			kt_set_off(bad_off, 1);
			return KT_ISCSI_TEXT_BAD_NUMBER;
		}
		if (!kt_b64_scan(val + 2, len - 2, &ndig, &bad)) {
			kt_set_off(bad_off, 2 + bad);
			return KT_ISCSI_TEXT_BAD_NUMBER;
		}
		for (i = 2; i < 2 + ndig; i++) {
			if (v > KT_U64_MAX >> 6) {
				kt_set_off(bad_off, i);
				return KT_ISCSI_TEXT_NUM_OVERFLOW;
			}
			v = v << 6 | kt_b64_digit(val[i]);
		}
	} else {
		/* RFC 7143 6.1 decimal-constant: no leading zero but "0" */
		if (val[0] == '0' && len > 1) {
			kt_set_off(bad_off, 1);
			return KT_ISCSI_TEXT_BAD_NUMBER;
		}
		for (i = 0; i < len; i++) {
			if (val[i] < '0' || val[i] > '9') {
				kt_set_off(bad_off, i);
				return KT_ISCSI_TEXT_BAD_NUMBER;
			}
			d = val[i] - '0';
			if (v > (KT_U64_MAX - d) / 10) {
				kt_set_off(bad_off, i);
				return KT_ISCSI_TEXT_NUM_OVERFLOW;
			}
			v = v * 10 + d;
		}
	}

	if (v > max) {
		kt_set_off(bad_off, 0);
		return KT_ISCSI_TEXT_OUT_OF_RANGE;
	}
	*out = v;
	return KT_ISCSI_TEXT_OK;
}

/* RFC 7143 6.1 boolean-value: "Yes" or "No", case sensitive */
enum kt_iscsi_text_status kt_iscsi_parse_bool(const u8 *val, size_t len,
					      bool *out)
{
	*out = false;
	if (len == 3 && !memcmp(val, "Yes", 3)) {
		*out = true;
		return KT_ISCSI_TEXT_OK;
	}
	if (len == 2 && !memcmp(val, "No", 2))
		return KT_ISCSI_TEXT_OK;
	return KT_ISCSI_TEXT_BAD_BOOLEAN;
}

/*
 * RFC 7143 6.1 numeric-range: two numerical-values separated by a tilde,
 * the right one not lower than the left one.
 */
enum kt_iscsi_text_status kt_iscsi_parse_range(const u8 *val, size_t len,
					       u64 max, u64 *lo, u64 *hi,
					       size_t *bad_off)
{
	enum kt_iscsi_text_status st;
	const u8 *tilde;
	size_t left, bad = 0;

	*lo = 0;
	*hi = 0;
	tilde = len ? memchr(val, '~', len) : NULL;
	if (!tilde) {
		kt_set_off(bad_off, len);
		return KT_ISCSI_TEXT_BAD_RANGE;
	}
	left = tilde - val;

	st = kt_iscsi_parse_number(val, left, max, 0, lo, &bad);
	if (st != KT_ISCSI_TEXT_OK) {
		kt_set_off(bad_off, bad);
		return st;
	}
	st = kt_iscsi_parse_number(tilde + 1, len - left - 1, max, 0, hi, &bad);
	if (st != KT_ISCSI_TEXT_OK) {
		*lo = 0;
		kt_set_off(bad_off, left + 1 + bad);
		return st;
	}
	if (*lo > *hi) {
		*lo = 0;
		*hi = 0;
		kt_set_off(bad_off, left);
		return KT_ISCSI_TEXT_BAD_RANGE;
	}
	return KT_ISCSI_TEXT_OK;
}

/*
 * RFC 7143 6.1: a hex-constant of n digits holds (n + 1) / 2 bytes, so an
 * odd count leaves the first byte with one digit.
 */
static enum kt_iscsi_text_status kt_hex_binary(const u8 *s, size_t n, u8 *out,
					       size_t out_size, size_t *out_len,
					       size_t *bad)
{
	size_t i, o = 0, fits;

	if (!n) {
		*bad = 0;
		return KT_ISCSI_TEXT_BAD_BINARY;
	}
	for (i = 0; i < n; i++) {
		if (hex_to_bin(s[i]) < 0) {
			*bad = i;
			return KT_ISCSI_TEXT_BAD_BINARY;
		}
	}
	if (n / 2 + n % 2 > out_size) {
		fits = 2 * out_size;
		if (n % 2 && fits)
			fits--;
		*bad = fits;
		return KT_ISCSI_TEXT_BINARY_TOO_LONG;
	}

	i = 0;
	if (n % 2)
		out[o++] = hex_to_bin(s[i++]);
	for (; i < n; i += 2)
		out[o++] = hex_to_bin(s[i]) << 4 | hex_to_bin(s[i + 1]);
	*out_len = o;
	return KT_ISCSI_TEXT_OK;
}

/*
 * RFC 7143 6.1: a base64-constant of n digits (pads excluded) holds
 * n * 3 / 4 bytes, RFC 4648 4 encoding; n = 4k + 1 is impossible, and pads,
 * when present, complete the last quantum.
 */
static enum kt_iscsi_text_status kt_b64_binary(const u8 *s, size_t len, u8 *out,
					       size_t out_size, size_t *out_len,
					       size_t *bad)
{
	size_t n, i, o = 0, nbytes;
	unsigned int bits = 0;
	u32 acc = 0;

	if (!kt_b64_scan(s, len, &n, bad))
		return KT_ISCSI_TEXT_BAD_BINARY;
	if (n % 4 == 1 || (len > n && len % 4)) {
		*bad = n;
		return KT_ISCSI_TEXT_BAD_BINARY;
	}
	nbytes = n / 4 * 3 + (n % 4 ? n % 4 - 1 : 0);
	if (nbytes > out_size) {
		/* the digit holding the first bit of byte out_size */
		*bad = out_size / 3 * 4 + out_size % 3 * 4 / 3;
		return KT_ISCSI_TEXT_BINARY_TOO_LONG;
	}

	for (i = 0; i < n; i++) {
		acc = (acc << 6 | kt_b64_digit(s[i])) & 0xfff;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			out[o++] = (acc >> bits) & 0xff;
		}
	}
	*out_len = o;
	return KT_ISCSI_TEXT_OK;
}

/*
 * A binary-value (RFC 7143 6.1), e.g. CHAP_C or CHAP_R (RFC 7143 12.1.3),
 * decoded into @out. Only the hex and base64 forms are taken: a decimal
 * constant has no byte length of its own.
 */
enum kt_iscsi_text_status kt_iscsi_parse_binary(const u8 *val, size_t len,
						u8 *out, size_t out_size,
						size_t *out_len,
						size_t *bad_off)
{
	enum kt_iscsi_text_status st;
	size_t bad = 0;

	*out_len = 0;
	if (len < 2 || val[0] != '0') {
		kt_set_off(bad_off, 0);
		return KT_ISCSI_TEXT_BAD_BINARY;
	}
	if (val[1] == 'x' || val[1] == 'X') {
		st = kt_hex_binary(val + 2, len - 2, out, out_size, out_len,
				   &bad);
	} else if (val[1] == 'b' || val[1] == 'B') {
		st = kt_b64_binary(val + 2, len - 2, out, out_size, out_len,
				   &bad);
	} else {
		kt_set_off(bad_off, 1);
		return KT_ISCSI_TEXT_BAD_BINARY;
	}
	if (st != KT_ISCSI_TEXT_OK)
		kt_set_off(bad_off, 2 + bad);
	return st;
}

static bool kt_text_eq(const u8 *val, size_t len, const char *s, size_t slen)
{
	return len == slen && (!len || !memcmp(val, s, len));
}

enum kt_iscsi_special kt_iscsi_value_special(const u8 *val, size_t len)
{
	if (kt_text_eq(val, len, "Reject", 6))
		return KT_ISCSI_VAL_REJECT;
	if (kt_text_eq(val, len, "Irrelevant", 10))
		return KT_ISCSI_VAL_IRRELEVANT;
	if (kt_text_eq(val, len, "NotUnderstood", 13))
		return KT_ISCSI_VAL_NOT_UNDERSTOOD;
	return KT_ISCSI_VAL_PLAIN;
}

/* RFC 7143 6.1: n commas separate n + 1 values, empty ones included */
void kt_iscsi_list_init(struct kt_iscsi_list *it, const u8 *val, size_t len)
{
	it->next = val;
	it->left = len;
	it->done = false;
}

bool kt_iscsi_list_next(struct kt_iscsi_list *it, const u8 **item,
			size_t *item_len)
{
	const u8 *comma;

	if (it->done)
		return false;
	comma = it->left ? memchr(it->next, ',', it->left) : NULL;
	*item = it->next;
	if (!comma) {
		*item_len = it->left;
		it->left = 0;
		it->done = true;
		return true;
	}
	*item_len = comma - it->next;
	it->left -= *item_len + 1;
	it->next = comma + 1;
	return true;
}

bool kt_iscsi_list_contains(const u8 *list, size_t len, const u8 *item,
			    size_t item_len)
{
	struct kt_iscsi_list it;
	const u8 *v;
	size_t vlen;

	kt_iscsi_list_init(&it, list, len);
	while (kt_iscsi_list_next(&it, &v, &vlen))
		if (vlen == item_len && (!vlen || !memcmp(v, item, vlen)))
			return true;
	return false;
}

#define SND_I		KT_ISCSI_SENDER_INITIATOR
#define SND_T		KT_ISCSI_SENDER_TARGET
#define SND_IT		(KT_ISCSI_SENDER_INITIATOR | KT_ISCSI_SENDER_TARGET)
#define ST_SEC		KT_ISCSI_NEGO_SECURITY
#define ST_OP		KT_ISCSI_NEGO_OPERATIONAL
#define ST_LOGIN	(KT_ISCSI_NEGO_SECURITY | KT_ISCSI_NEGO_OPERATIONAL)
#define ST_OP_FFP	(KT_ISCSI_NEGO_OPERATIONAL | KT_ISCSI_NEGO_FFP)
#define ST_ANY		KT_ISCSI_NEGO_STAGE_MASK
#define F_LO		KT_ISCSI_KEY_F_LEADING_ONLY
#define F_SW		KT_ISCSI_KEY_F_SESSION
#define F_ND		KT_ISCSI_KEY_F_NOT_DISCOVERY
#define F_AUTH		KT_ISCSI_KEY_F_AUTH
#define F_ISER		KT_ISCSI_KEY_F_ISER
#define F_OBS		KT_ISCSI_KEY_F_OBSOLETE
#define LEN_24		16777215	/* 2**24 - 1 */

/*
 * Use, senders, scope, range, default and result function of each key, as
 * RFC 7143 13 (operational), 12 (security) and RFC 7145 6 / RFC 5046 6
 * (iSER) give them. "Any-Stage" declarations may appear in both login
 * stages; "Use: ALL" keys in the operational stage and in Text requests.
 */
static const struct kt_iscsi_key kt_iscsi_keys[KT_ISCSI_KEY_NR] = {
	/* RFC 7143 13.1: Use IO, CO, list of CRC32C and None */
	[KT_ISCSI_KEY_HEADER_DIGEST] = {
		.id = KT_ISCSI_KEY_HEADER_DIGEST,
		.name = "HeaderDigest", .def = "None", .values = "CRC32C,None",
		.value_max = KT_ISCSI_VALUE_HARD_MAX,
		.type = KT_ISCSI_TYPE_LIST, .result = KT_ISCSI_RESULT_LIST,
		.senders = SND_IT, .stages = ST_OP,
	},
	[KT_ISCSI_KEY_DATA_DIGEST] = {
		.id = KT_ISCSI_KEY_DATA_DIGEST,
		.name = "DataDigest", .def = "None", .values = "CRC32C,None",
		.value_max = KT_ISCSI_VALUE_HARD_MAX,
		.type = KT_ISCSI_TYPE_LIST, .result = KT_ISCSI_RESULT_LIST,
		.senders = SND_IT, .stages = ST_OP,
	},
	/* RFC 7143 13.2 */
	[KT_ISCSI_KEY_MAX_CONNECTIONS] = {
		.id = KT_ISCSI_KEY_MAX_CONNECTIONS,
		.name = "MaxConnections", .def = "1", .min = 1, .max = 65535,
		.value_max = KT_ISCSI_VALUE_MAX,
		.type = KT_ISCSI_TYPE_NUMBER, .result = KT_ISCSI_RESULT_MIN,
		.senders = SND_IT, .stages = ST_OP, .flags = F_LO | F_SW | F_ND,
	},
	/* RFC 7143 13.3: Use FFPO; "All", an iSCSI name or nothing */
	[KT_ISCSI_KEY_SEND_TARGETS] = {
		.id = KT_ISCSI_KEY_SEND_TARGETS,
		.name = "SendTargets", .value_max = KT_ISCSI_VALUE_MAX,
		.type = KT_ISCSI_TYPE_TEXT,
		.result = KT_ISCSI_RESULT_DECLARATIVE,
		.senders = SND_I, .stages = KT_ISCSI_NEGO_FFP, .flags = F_SW,
	},
	/* RFC 7143 13.4: IO by initiator, FFPO by target, Any-Stage */
	[KT_ISCSI_KEY_TARGET_NAME] = {
		.id = KT_ISCSI_KEY_TARGET_NAME,
		.name = "TargetName", .value_max = KT_ISCSI_NAME_MAX,
		.type = KT_ISCSI_TYPE_TEXT,
		.result = KT_ISCSI_RESULT_DECLARATIVE,
		.senders = SND_IT, .stages = ST_ANY, .flags = F_SW,
	},
	/* RFC 7143 13.5: IO, Any-Stage */
	[KT_ISCSI_KEY_INITIATOR_NAME] = {
		.id = KT_ISCSI_KEY_INITIATOR_NAME,
		.name = "InitiatorName", .value_max = KT_ISCSI_NAME_MAX,
		.type = KT_ISCSI_TYPE_TEXT,
		.result = KT_ISCSI_RESULT_DECLARATIVE,
		.senders = SND_I, .stages = ST_LOGIN, .flags = F_SW,
	},
	/* RFC 7143 13.6: ALL, Any-Stage, a UTF-8 local name */
	[KT_ISCSI_KEY_TARGET_ALIAS] = {
		.id = KT_ISCSI_KEY_TARGET_ALIAS,
		.name = "TargetAlias", .value_max = KT_ISCSI_VALUE_MAX,
		.type = KT_ISCSI_TYPE_TEXT,
		.result = KT_ISCSI_RESULT_DECLARATIVE,
		.senders = SND_T, .stages = ST_ANY, .flags = F_SW,
	},
	/* RFC 7143 13.7 */
	[KT_ISCSI_KEY_INITIATOR_ALIAS] = {
		.id = KT_ISCSI_KEY_INITIATOR_ALIAS,
		.name = "InitiatorAlias", .value_max = KT_ISCSI_VALUE_MAX,
		.type = KT_ISCSI_TYPE_TEXT,
		.result = KT_ISCSI_RESULT_DECLARATIVE,
		.senders = SND_I, .stages = ST_ANY, .flags = F_SW,
	},
	/* RFC 7143 13.8: also in login redirection, hence any stage */
	[KT_ISCSI_KEY_TARGET_ADDRESS] = {
		.id = KT_ISCSI_KEY_TARGET_ADDRESS,
		.name = "TargetAddress", .value_max = KT_ISCSI_VALUE_MAX,
		.type = KT_ISCSI_TYPE_TEXT,
		.result = KT_ISCSI_RESULT_DECLARATIVE,
		.senders = SND_T, .stages = ST_ANY, .flags = F_SW,
	},
	/* RFC 7143 13.9: IO by target, Any-Stage, a 16-bit binary-value */
	[KT_ISCSI_KEY_TARGET_PORTAL_GROUP_TAG] = {
		.id = KT_ISCSI_KEY_TARGET_PORTAL_GROUP_TAG,
		.name = "TargetPortalGroupTag", .min = 0, .max = 65535,
		.value_max = KT_ISCSI_VALUE_MAX,
		.type = KT_ISCSI_TYPE_NUMBER,
		.result = KT_ISCSI_RESULT_DECLARATIVE,
		.senders = SND_T, .stages = ST_LOGIN, .flags = F_SW,
	},
	/* RFC 7143 13.10 */
	[KT_ISCSI_KEY_INITIAL_R2T] = {
		.id = KT_ISCSI_KEY_INITIAL_R2T,
		.name = "InitialR2T", .def = "Yes",
		.value_max = KT_ISCSI_VALUE_MAX,
		.type = KT_ISCSI_TYPE_BOOL, .result = KT_ISCSI_RESULT_OR,
		.senders = SND_IT, .stages = ST_OP, .flags = F_LO | F_SW | F_ND,
	},
	/* RFC 7143 13.11 */
	[KT_ISCSI_KEY_IMMEDIATE_DATA] = {
		.id = KT_ISCSI_KEY_IMMEDIATE_DATA,
		.name = "ImmediateData", .def = "Yes",
		.value_max = KT_ISCSI_VALUE_MAX,
		.type = KT_ISCSI_TYPE_BOOL, .result = KT_ISCSI_RESULT_AND,
		.senders = SND_IT, .stages = ST_OP, .flags = F_LO | F_SW | F_ND,
	},
	/* RFC 7143 13.12: ALL, declarative, CO */
	[KT_ISCSI_KEY_MAX_RECV_DATA_SEGMENT_LENGTH] = {
		.id = KT_ISCSI_KEY_MAX_RECV_DATA_SEGMENT_LENGTH,
		.name = "MaxRecvDataSegmentLength", .def = "8192",
		.min = 512, .max = LEN_24, .value_max = KT_ISCSI_VALUE_MAX,
		.type = KT_ISCSI_TYPE_NUMBER,
		.result = KT_ISCSI_RESULT_DECLARATIVE,
		.senders = SND_IT, .stages = ST_OP_FFP,
	},
	/* RFC 7143 13.13 */
	[KT_ISCSI_KEY_MAX_BURST_LENGTH] = {
		.id = KT_ISCSI_KEY_MAX_BURST_LENGTH,
		.name = "MaxBurstLength", .def = "262144",
		.min = 512, .max = LEN_24, .value_max = KT_ISCSI_VALUE_MAX,
		.type = KT_ISCSI_TYPE_NUMBER, .result = KT_ISCSI_RESULT_MIN,
		.senders = SND_IT, .stages = ST_OP, .flags = F_LO | F_SW | F_ND,
	},
	/* RFC 7143 13.14: also irrelevant with InitialR2T=Yes, ImmediateData=No */
	[KT_ISCSI_KEY_FIRST_BURST_LENGTH] = {
		.id = KT_ISCSI_KEY_FIRST_BURST_LENGTH,
		.name = "FirstBurstLength", .def = "65536",
		.min = 512, .max = LEN_24, .value_max = KT_ISCSI_VALUE_MAX,
		.type = KT_ISCSI_TYPE_NUMBER, .result = KT_ISCSI_RESULT_MIN,
		.senders = SND_IT, .stages = ST_OP, .flags = F_LO | F_SW | F_ND,
	},
	/* RFC 7143 13.15 */
	[KT_ISCSI_KEY_DEFAULT_TIME2WAIT] = {
		.id = KT_ISCSI_KEY_DEFAULT_TIME2WAIT,
		.name = "DefaultTime2Wait", .def = "2", .min = 0, .max = 3600,
		.value_max = KT_ISCSI_VALUE_MAX,
		.type = KT_ISCSI_TYPE_NUMBER, .result = KT_ISCSI_RESULT_MAX,
		.senders = SND_IT, .stages = ST_OP, .flags = F_LO | F_SW,
	},
	/* RFC 7143 13.16 */
	[KT_ISCSI_KEY_DEFAULT_TIME2RETAIN] = {
		.id = KT_ISCSI_KEY_DEFAULT_TIME2RETAIN,
		.name = "DefaultTime2Retain", .def = "20", .min = 0, .max = 3600,
		.value_max = KT_ISCSI_VALUE_MAX,
		.type = KT_ISCSI_TYPE_NUMBER, .result = KT_ISCSI_RESULT_MIN,
		.senders = SND_IT, .stages = ST_OP, .flags = F_LO | F_SW,
	},
	/* RFC 7143 13.17 */
	[KT_ISCSI_KEY_MAX_OUTSTANDING_R2T] = {
		.id = KT_ISCSI_KEY_MAX_OUTSTANDING_R2T,
		.name = "MaxOutstandingR2T", .def = "1", .min = 1, .max = 65535,
		.value_max = KT_ISCSI_VALUE_MAX,
		.type = KT_ISCSI_TYPE_NUMBER, .result = KT_ISCSI_RESULT_MIN,
		.senders = SND_IT, .stages = ST_OP, .flags = F_LO | F_SW | F_ND,
	},
	/* RFC 7143 13.18 */
	[KT_ISCSI_KEY_DATA_PDU_IN_ORDER] = {
		.id = KT_ISCSI_KEY_DATA_PDU_IN_ORDER,
		.name = "DataPDUInOrder", .def = "Yes",
		.value_max = KT_ISCSI_VALUE_MAX,
		.type = KT_ISCSI_TYPE_BOOL, .result = KT_ISCSI_RESULT_OR,
		.senders = SND_IT, .stages = ST_OP, .flags = F_LO | F_SW | F_ND,
	},
	/* RFC 7143 13.19 */
	[KT_ISCSI_KEY_DATA_SEQUENCE_IN_ORDER] = {
		.id = KT_ISCSI_KEY_DATA_SEQUENCE_IN_ORDER,
		.name = "DataSequenceInOrder", .def = "Yes",
		.value_max = KT_ISCSI_VALUE_MAX,
		.type = KT_ISCSI_TYPE_BOOL, .result = KT_ISCSI_RESULT_OR,
		.senders = SND_IT, .stages = ST_OP, .flags = F_LO | F_SW | F_ND,
	},
	/* RFC 7143 13.20 */
	[KT_ISCSI_KEY_ERROR_RECOVERY_LEVEL] = {
		.id = KT_ISCSI_KEY_ERROR_RECOVERY_LEVEL,
		.name = "ErrorRecoveryLevel", .def = "0", .min = 0, .max = 2,
		.value_max = KT_ISCSI_VALUE_MAX,
		.type = KT_ISCSI_TYPE_NUMBER, .result = KT_ISCSI_RESULT_MIN,
		.senders = SND_IT, .stages = ST_OP, .flags = F_LO | F_SW,
	},
	/* RFC 7143 13.21: LO, declarative, Any-Stage */
	[KT_ISCSI_KEY_SESSION_TYPE] = {
		.id = KT_ISCSI_KEY_SESSION_TYPE,
		.name = "SessionType", .def = "Normal",
		.values = "Discovery,Normal", .value_max = KT_ISCSI_VALUE_MAX,
		.type = KT_ISCSI_TYPE_TEXT,
		.result = KT_ISCSI_RESULT_DECLARATIVE,
		.senders = SND_I, .stages = ST_LOGIN, .flags = F_LO | F_SW,
	},
	/* RFC 7143 13.23 */
	[KT_ISCSI_KEY_TASK_REPORTING] = {
		.id = KT_ISCSI_KEY_TASK_REPORTING,
		.name = "TaskReporting", .def = "RFC3720",
		.values = "RFC3720,ResponseFence,FastAbort",
		.value_max = KT_ISCSI_VALUE_HARD_MAX,
		.type = KT_ISCSI_TYPE_LIST, .result = KT_ISCSI_RESULT_LIST,
		.senders = SND_IT, .stages = ST_OP, .flags = F_LO | F_SW | F_ND,
	},
	/* RFC 7143 12.1: security stage, CO; the RFC gives no default */
	[KT_ISCSI_KEY_AUTH_METHOD] = {
		.id = KT_ISCSI_KEY_AUTH_METHOD,
		.name = "AuthMethod", .values = "KRB5,SRP,CHAP,None",
		.value_max = KT_ISCSI_VALUE_HARD_MAX,
		.type = KT_ISCSI_TYPE_LIST, .result = KT_ISCSI_RESULT_LIST,
		.senders = SND_IT, .stages = ST_SEC,
	},
	/* RFC 7143 12.1.3: CHAP_A is a list of RFC 1994 algorithm numbers */
	[KT_ISCSI_KEY_CHAP_A] = {
		.id = KT_ISCSI_KEY_CHAP_A,
		.name = "CHAP_A", .value_max = KT_ISCSI_VALUE_HARD_MAX,
		.type = KT_ISCSI_TYPE_LIST, .result = KT_ISCSI_RESULT_LIST,
		.senders = SND_IT, .stages = ST_SEC, .flags = F_AUTH,
	},
	/* RFC 7143 12.1.3 and RFC 1994 4.1: the identifier is one octet */
	[KT_ISCSI_KEY_CHAP_I] = {
		.id = KT_ISCSI_KEY_CHAP_I,
		.name = "CHAP_I", .min = 0, .max = 255,
		.value_max = KT_ISCSI_VALUE_MAX,
		.type = KT_ISCSI_TYPE_NUMBER,
		.result = KT_ISCSI_RESULT_DECLARATIVE,
		.senders = SND_IT, .stages = ST_SEC, .flags = F_AUTH,
	},
	/* RFC 7143 12.1.3: binary length of C and R at most 1024 bytes */
	[KT_ISCSI_KEY_CHAP_C] = {
		.id = KT_ISCSI_KEY_CHAP_C,
		.name = "CHAP_C", .value_max = KT_ISCSI_CHAP_VALUE_MAX,
		.type = KT_ISCSI_TYPE_BINARY,
		.result = KT_ISCSI_RESULT_DECLARATIVE,
		.senders = SND_IT, .stages = ST_SEC, .flags = F_AUTH,
	},
	[KT_ISCSI_KEY_CHAP_N] = {
		.id = KT_ISCSI_KEY_CHAP_N,
		.name = "CHAP_N", .value_max = KT_ISCSI_VALUE_MAX,
		.type = KT_ISCSI_TYPE_TEXT,
		.result = KT_ISCSI_RESULT_DECLARATIVE,
		.senders = SND_IT, .stages = ST_SEC, .flags = F_AUTH,
	},
	[KT_ISCSI_KEY_CHAP_R] = {
		.id = KT_ISCSI_KEY_CHAP_R,
		.name = "CHAP_R", .value_max = KT_ISCSI_CHAP_VALUE_MAX,
		.type = KT_ISCSI_TYPE_BINARY,
		.result = KT_ISCSI_RESULT_DECLARATIVE,
		.senders = SND_IT, .stages = ST_SEC, .flags = F_AUTH,
	},
	/*
	 * RFC 7143 13.25: markers are obsolete. A marker key SHOULD get
	 * Reject or MAY get No: AND against "No" gives No, which is what
	 * initiators of RFC 3720 expect. A marker interval MUST get Reject.
	 */
	[KT_ISCSI_KEY_OF_MARKER] = {
		.id = KT_ISCSI_KEY_OF_MARKER,
		.name = "OFMarker", .def = "No",
		.value_max = KT_ISCSI_VALUE_MAX,
		.type = KT_ISCSI_TYPE_BOOL, .result = KT_ISCSI_RESULT_AND,
		.senders = SND_IT, .stages = ST_OP, .flags = F_OBS,
	},
	[KT_ISCSI_KEY_IF_MARKER] = {
		.id = KT_ISCSI_KEY_IF_MARKER,
		.name = "IFMarker", .def = "No",
		.value_max = KT_ISCSI_VALUE_MAX,
		.type = KT_ISCSI_TYPE_BOOL, .result = KT_ISCSI_RESULT_AND,
		.senders = SND_IT, .stages = ST_OP, .flags = F_OBS,
	},
	[KT_ISCSI_KEY_OF_MARK_INT] = {
		.id = KT_ISCSI_KEY_OF_MARK_INT,
		.name = "OFMarkInt", .def = "2048", .min = 1, .max = 65535,
		.value_max = KT_ISCSI_VALUE_MAX,
		.type = KT_ISCSI_TYPE_RANGE, .result = KT_ISCSI_RESULT_REJECT,
		.senders = SND_IT, .stages = ST_OP, .flags = F_OBS,
	},
	[KT_ISCSI_KEY_IF_MARK_INT] = {
		.id = KT_ISCSI_KEY_IF_MARK_INT,
		.name = "IFMarkInt", .def = "2048", .min = 1, .max = 65535,
		.value_max = KT_ISCSI_VALUE_MAX,
		.type = KT_ISCSI_TYPE_RANGE, .result = KT_ISCSI_RESULT_REJECT,
		.senders = SND_IT, .stages = ST_OP, .flags = F_OBS,
	},
	/* RFC 7145 6: iSER keys */
	[KT_ISCSI_KEY_RDMA_EXTENSIONS] = {
		.id = KT_ISCSI_KEY_RDMA_EXTENSIONS,
		.name = "RDMAExtensions", .def = "No",
		.value_max = KT_ISCSI_VALUE_MAX,
		.type = KT_ISCSI_TYPE_BOOL, .result = KT_ISCSI_RESULT_AND,
		.senders = SND_IT, .stages = ST_OP,
		.flags = F_LO | F_SW | F_ISER,
	},
	[KT_ISCSI_KEY_TARGET_RECV_DATA_SEGMENT_LENGTH] = {
		.id = KT_ISCSI_KEY_TARGET_RECV_DATA_SEGMENT_LENGTH,
		.name = "TargetRecvDataSegmentLength", .def = "8192",
		.min = 512, .max = LEN_24, .value_max = KT_ISCSI_VALUE_MAX,
		.type = KT_ISCSI_TYPE_NUMBER, .result = KT_ISCSI_RESULT_MIN,
		.senders = SND_IT, .stages = ST_OP, .flags = F_ISER,
	},
	[KT_ISCSI_KEY_INITIATOR_RECV_DATA_SEGMENT_LENGTH] = {
		.id = KT_ISCSI_KEY_INITIATOR_RECV_DATA_SEGMENT_LENGTH,
		.name = "InitiatorRecvDataSegmentLength", .def = "8192",
		.min = 512, .max = LEN_24, .value_max = KT_ISCSI_VALUE_MAX,
		.type = KT_ISCSI_TYPE_NUMBER, .result = KT_ISCSI_RESULT_MIN,
		.senders = SND_IT, .stages = ST_OP, .flags = F_ISER,
	},
	/* RFC 5046 6: 0 (no limit) or 2 to 2**32 - 1; gone from RFC 7145 */
	[KT_ISCSI_KEY_MAX_OUTSTANDING_UNEXPECTED_PDUS] = {
		.id = KT_ISCSI_KEY_MAX_OUTSTANDING_UNEXPECTED_PDUS,
		.name = "MaxOutstandingUnexpectedPDUs", .def = "0",
		.min = 2, .max = 0xffffffffULL,
		.value_max = KT_ISCSI_VALUE_MAX,
		.type = KT_ISCSI_TYPE_NUMBER,
		.result = KT_ISCSI_RESULT_MIN_OR_ZERO,
		.senders = SND_IT, .stages = ST_OP,
		.flags = F_LO | F_SW | F_ISER,
	},
};

#undef SND_I
#undef SND_T
#undef SND_IT
#undef ST_SEC
#undef ST_OP
#undef ST_LOGIN
#undef ST_OP_FFP
#undef ST_ANY
#undef F_LO
#undef F_SW
#undef F_ND
#undef F_AUTH
#undef F_ISER
#undef F_OBS
#undef LEN_24

/* RFC 7143 6.1: keys are case sensitive */
const struct kt_iscsi_key *kt_iscsi_key_find(const u8 *name, size_t len)
{
	const struct kt_iscsi_key *k;
	unsigned int i;

	if (!len || len > KT_ISCSI_KEY_NAME_MAX)
		return NULL;
	for (i = 0; i < KT_ISCSI_KEY_NR; i++) {
		k = &kt_iscsi_keys[i];
		if (strlen(k->name) == len && !memcmp(k->name, name, len))
			return k;
	}
	return NULL;
}

const struct kt_iscsi_key *kt_iscsi_key_get(unsigned int id)
{
	return id < KT_ISCSI_KEY_NR ? &kt_iscsi_keys[id] : NULL;
}

static enum kt_iscsi_nego_status kt_answer(char *out, size_t size,
					   size_t *out_len, const char *s,
					   size_t len,
					   enum kt_iscsi_nego_status st)
{
	*out_len = 0;
	if (len >= size)
		return KT_ISCSI_NEGO_NO_SPACE;
	if (len)
		memcpy(out, s, len);
	out[len] = '\0';
	*out_len = len;
	return st;
}

static enum kt_iscsi_nego_status kt_reject(char *out, size_t size,
					   size_t *out_len)
{
	return kt_answer(out, size, out_len, "Reject", 6, KT_ISCSI_NEGO_REJECT);
}

static size_t kt_fmt_u64(char *buf, u64 v)
{
	char tmp[20];
	size_t n = 0, i;

	do {
		tmp[n++] = '0' + v % 10;
		v /= 10;
	} while (v);
	for (i = 0; i < n; i++)
		buf[i] = tmp[n - 1 - i];
	return n;
}

/* A numerical-value (RFC 7143 6.1) inside the range of @k. */
static bool kt_number_ok(const struct kt_iscsi_key *k, const u8 *v,
			 size_t len, u64 *out)
{
	if (kt_iscsi_parse_number(v, len, k->max, 0, out, NULL))
		return false;
	if (*out >= k->min)
		return true;
	return k->result == KT_ISCSI_RESULT_MIN_OR_ZERO && !*out;
}

/*
 * RFC 7143 6.2.1: the acceptor answers with the first value of the offered
 * list that it supports, or Reject when it supports none of them.
 */
static enum kt_iscsi_nego_status kt_nego_list(const struct kt_iscsi_key *k,
					      const u8 *offer, size_t olen,
					      const u8 *mine, size_t mlen,
					      char *out, size_t size,
					      size_t *out_len)
{
	struct kt_iscsi_list it;
	const u8 *v;
	size_t vlen;

	if (k->values) {
		kt_iscsi_list_init(&it, mine, mlen);
		while (kt_iscsi_list_next(&it, &v, &vlen))
			if (!kt_iscsi_list_contains((const u8 *)k->values,
						    strlen(k->values), v, vlen))
				return KT_ISCSI_NEGO_BAD_CONFIG;
	}

	kt_iscsi_list_init(&it, offer, olen);
	while (kt_iscsi_list_next(&it, &v, &vlen))
		if (vlen && kt_iscsi_list_contains(mine, mlen, v, vlen))
			return kt_answer(out, size, out_len, (const char *)v,
					 vlen, KT_ISCSI_NEGO_REPLY);
	return kt_reject(out, size, out_len);
}

/*
 * RFC 7143 6.2.2: a numerical offer outside the key's range is answered
 * with Reject; otherwise the result function of the key (RFC 7143 13)
 * picks the outcome from the offer and the target's value.
 */
static enum kt_iscsi_nego_status kt_nego_number(const struct kt_iscsi_key *k,
						const u8 *offer, size_t olen,
						const u8 *mine, size_t mlen,
						char *out, size_t size,
						size_t *out_len)
{
	char num[20];
	u64 o, m, r;

	if (!kt_number_ok(k, offer, olen, &o))
		return kt_reject(out, size, out_len);
	if (!kt_number_ok(k, mine, mlen, &m))
		return KT_ISCSI_NEGO_BAD_CONFIG;

	if (k->result == KT_ISCSI_RESULT_MAX)
		r = o > m ? o : m;
	else if (k->result == KT_ISCSI_RESULT_MIN_OR_ZERO && (!o || !m))
		r = o ? o : m;
	else
		r = o < m ? o : m;
	return kt_answer(out, size, out_len, num, kt_fmt_u64(num, r),
			 KT_ISCSI_NEGO_REPLY);
}

/*
 * RFC 7143 6.2.2: for Boolean keys the answer is the result function of
 * both values; it may be left out when the offer alone decides it (No for
 * AND, Yes for OR).
 */
static enum kt_iscsi_nego_status kt_nego_bool(const struct kt_iscsi_key *k,
					      const u8 *offer, size_t olen,
					      const u8 *mine, size_t mlen,
					      char *out, size_t size,
					      size_t *out_len)
{
	enum kt_iscsi_nego_status st = KT_ISCSI_NEGO_REPLY;
	bool o, m, r;

	if (kt_iscsi_parse_bool(offer, olen, &o))
		return kt_reject(out, size, out_len);
	if (kt_iscsi_parse_bool(mine, mlen, &m))
		return KT_ISCSI_NEGO_BAD_CONFIG;

	if (k->result == KT_ISCSI_RESULT_AND) {
		r = o && m;
		if (!o)
			st = KT_ISCSI_NEGO_REPLY_OPTIONAL;
	} else {
		r = o || m;
		if (o)
			st = KT_ISCSI_NEGO_REPLY_OPTIONAL;
	}
	return r ? kt_answer(out, size, out_len, "Yes", 3, st) :
		   kt_answer(out, size, out_len, "No", 2, st);
}

/* A declaration needs no answer, but its value must still be admissible. */
static bool kt_declaration_ok(const struct kt_iscsi_key *k, const u8 *offer,
			      size_t olen)
{
	bool b;
	u64 v;

	switch (k->type) {
	case KT_ISCSI_TYPE_NUMBER:
		return kt_number_ok(k, offer, olen, &v);
	case KT_ISCSI_TYPE_BOOL:
		return !kt_iscsi_parse_bool(offer, olen, &b);
	case KT_ISCSI_TYPE_TEXT:
		return !k->values ||
		       kt_iscsi_list_contains((const u8 *)k->values,
					      strlen(k->values), offer, olen);
	default:
		return true;
	}
}

enum kt_iscsi_nego_status kt_iscsi_negotiate(const u8 *key, size_t key_len,
					     const u8 *offer, size_t offer_len,
					     const char *mine, size_t mine_len,
					     unsigned int flags, char *out,
					     size_t out_size, size_t *out_len)
{
	const struct kt_iscsi_key *k = kt_iscsi_key_find(key, key_len);
	unsigned int stage = flags & KT_ISCSI_NEGO_STAGE_MASK;

	*out_len = 0;
	/* RFC 7143 6.2: a key the acceptor does not know gets NotUnderstood */
	if (!k)
		return kt_answer(out, out_size, out_len, "NotUnderstood", 13,
				 KT_ISCSI_NEGO_NOT_UNDERSTOOD);
	/* RFC 7143 13, 12: Senders and Use of each key */
	if (!(k->senders & KT_ISCSI_SENDER_INITIATOR))
		return KT_ISCSI_NEGO_NOT_ALLOWED;
	if (stage && !(k->stages & stage))
		return KT_ISCSI_NEGO_NOT_ALLOWED;
	/* RFC 7143 6.2: the reserved constants are answers, never offers */
	if (kt_iscsi_value_special(offer, offer_len) != KT_ISCSI_VAL_PLAIN)
		return KT_ISCSI_NEGO_BAD_OFFER;

	/*
	 * A leading-only key has no bearing on another connection of the
	 * session, nor a session key on a discovery session (RFC 7143 13,
	 * "Irrelevant when").
	 */
	if (((flags & KT_ISCSI_NEGO_F_NON_LEADING) &&
	     (k->flags & KT_ISCSI_KEY_F_LEADING_ONLY)) ||
	    ((flags & KT_ISCSI_NEGO_F_DISCOVERY) &&
	     (k->flags & KT_ISCSI_KEY_F_NOT_DISCOVERY))) {
		if (k->result == KT_ISCSI_RESULT_DECLARATIVE)
			return KT_ISCSI_NEGO_NO_REPLY;
		return kt_answer(out, out_size, out_len, "Irrelevant", 10,
				 KT_ISCSI_NEGO_IRRELEVANT);
	}

	/* every authentication key belongs to the method's own code */
	if (k->flags & KT_ISCSI_KEY_F_AUTH)
		return KT_ISCSI_NEGO_AUTH;
	if (k->result == KT_ISCSI_RESULT_DECLARATIVE) {
		if (!kt_declaration_ok(k, offer, offer_len))
			return kt_reject(out, out_size, out_len);
		return KT_ISCSI_NEGO_NO_REPLY;
	}
	if (k->result == KT_ISCSI_RESULT_REJECT)
		return kt_reject(out, out_size, out_len);

	if (!mine) {
		if (!k->def)
			return KT_ISCSI_NEGO_BAD_CONFIG;
		mine = k->def;
		mine_len = strlen(k->def);
	}

	switch (k->result) {
	case KT_ISCSI_RESULT_LIST:
		return kt_nego_list(k, offer, offer_len, (const u8 *)mine,
				    mine_len, out, out_size, out_len);
	case KT_ISCSI_RESULT_AND:
	case KT_ISCSI_RESULT_OR:
		return kt_nego_bool(k, offer, offer_len, (const u8 *)mine,
				    mine_len, out, out_size, out_len);
	default:
		return kt_nego_number(k, offer, offer_len, (const u8 *)mine,
				      mine_len, out, out_size, out_len);
	}
}

static bool kt_digit(u8 c)
{
	return c >= '0' && c <= '9';
}

static bool kt_hex_digits(const u8 *s, size_t n)
{
	for (; n; n--, s++)
		if (!kt_digit(*s) && !((*s | 0x20) >= 'a' && (*s | 0x20) <= 'f'))
			return false;
	return true;
}

static bool kt_iqn_char(u8 c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       kt_digit(c) || c == '-' || c == '.' || c == ':';
}

/*
 * RFC 7143 4.2.7: "iqn.yyyy-mm.naming-authority[:unique]" (RFC 3722
 * characters), "eui." and 16 hex digits, "naa." and 16 or 32 hex digits;
 * at most 223 bytes. NULL when @name is one, else what is wrong with it.
 */
const char *kt_iscsi_name_error(const u8 *name, size_t len)
{
	unsigned int month;
	size_t i;

	if (len > KT_ISCSI_NAME_MAX)
		return "longer than 223 bytes";
	if (len >= 4 && !memcmp(name, "eui.", 4))
		return len == 20 && kt_hex_digits(name + 4, 16) ? NULL :
		       "eui. takes 16 hex digits";
	if (len >= 4 && !memcmp(name, "naa.", 4))
		return (len == 20 || len == 36) &&
		       kt_hex_digits(name + 4, len - 4) ? NULL :
		       "naa. takes 16 or 32 hex digits";
	if (len < 4 || memcmp(name, "iqn.", 4))
		return "not an iqn., eui. or naa. name";

	if (len < 13 || !kt_digit(name[4]) || !kt_digit(name[5]) ||
	    !kt_digit(name[6]) || !kt_digit(name[7]) || name[8] != '-' ||
	    !kt_digit(name[9]) || !kt_digit(name[10]) || name[11] != '.')
		return "want iqn.yyyy-mm.naming-authority[:unique]";
	month = (name[9] - '0') * 10 + name[10] - '0';
	if (month < 1 || month > 12)
		return "want iqn.yyyy-mm.naming-authority[:unique]";
	for (i = 12; i < len; i++)
		if (!kt_iqn_char(name[i]))
			return "iqn. names hold only letters, digits, '-', '.' and ':'";
	return NULL;
}
