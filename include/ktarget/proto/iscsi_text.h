/* SPDX-License-Identifier: GPL-2.0 */
/*
 * iSCSI login and text key=value handling: splitting a text data segment
 * into items, parsing values, the table of keys ktarget knows and the
 * target's half of a negotiation. Pure functions over caller buffers, built
 * into ktarget_iscsi and into the userspace unit and fuzz tests.
 *
 * References: RFC 7143 5.3 (login phase), 6.1 (text format), 6.2 (text mode
 * negotiation), 12 (security keys), 13 (operational keys); RFC 7145 6 and
 * RFC 5046 6 (iSER keys).
 */
#ifndef KTARGET_PROTO_ISCSI_TEXT_H
#define KTARGET_PROTO_ISCSI_TEXT_H

#include <linux/bits.h>
#include <linux/types.h>

#define KT_ISCSI_KEY_NAME_MAX		63	/* RFC 7143 6.1: standard-label */
#define KT_ISCSI_VALUE_MAX		255	/* RFC 7143 6.1: simple-value */
#define KT_ISCSI_NAME_MAX		223	/* RFC 7143 4.2.7.1: iSCSI name */
#define KT_ISCSI_CHAP_BINARY_MAX	1024	/* RFC 7143 12.1.3: CHAP_C, CHAP_R */
/* "0x" and two digits per byte: the longest encoded CHAP_C or CHAP_R */
#define KT_ISCSI_CHAP_VALUE_MAX		(2 + 2 * KT_ISCSI_CHAP_BINARY_MAX)
/* Values of 8192 bytes or more are refused whatever the key. */
#define KT_ISCSI_VALUE_HARD_MAX		8191
/* RFC 7143 6.1: every receiver takes at least this much text per sequence */
#define KT_ISCSI_LTDS_MIN		8192

enum kt_iscsi_text_status {
	KT_ISCSI_TEXT_OK = 0,
	/* kt_iscsi_text_split() */
	KT_ISCSI_TEXT_NO_EQUALS,	/* item without '=' */
	KT_ISCSI_TEXT_EMPTY_KEY,	/* item that starts with '=' */
	KT_ISCSI_TEXT_KEY_TOO_LONG,	/* key over KT_ISCSI_KEY_NAME_MAX bytes */
	KT_ISCSI_TEXT_BAD_KEY_CHAR,	/* key byte outside the RFC 7143 6.1 set */
	KT_ISCSI_TEXT_VALUE_TOO_LONG,	/* value or list element over its limit */
	KT_ISCSI_TEXT_BAD_UTF8,		/* value is not well-formed UTF-8 */
	KT_ISCSI_TEXT_DUPLICATE_KEY,	/* key already seen in this sequence */
	KT_ISCSI_TEXT_TOO_MANY,		/* more items than the caller's array */
	KT_ISCSI_TEXT_UNTERMINATED,	/* last item has no NUL, C bit clear */
	KT_ISCSI_TEXT_EMPTY_ITEM,	/* NUL where an item should start */
	/* value parsers */
	KT_ISCSI_TEXT_BAD_NUMBER,	/* not a decimal, hex or base64 constant */
	KT_ISCSI_TEXT_NUM_OVERFLOW,	/* does not fit in 64 bits */
	KT_ISCSI_TEXT_OUT_OF_RANGE,	/* above the caller's maximum */
	KT_ISCSI_TEXT_BAD_BOOLEAN,	/* neither "Yes" nor "No" */
	KT_ISCSI_TEXT_BAD_RANGE,	/* not "a~b" with a <= b */
	KT_ISCSI_TEXT_BAD_BINARY,	/* not a hex or base64 binary constant */
	KT_ISCSI_TEXT_BINARY_TOO_LONG,	/* decodes to more than the caller's buffer */
	/* kt_iscsi_text_put() */
	KT_ISCSI_TEXT_NO_SPACE,		/* output buffer too small */
	KT_ISCSI_TEXT_BAD_VALUE,	/* value to write holds a NUL */
};

/* One key=value item; key and value point into the parsed buffer. */
struct kt_iscsi_kv {
	const u8	*key;
	const u8	*value;
	size_t		key_len;
	size_t		value_len;
	size_t		offset;		/* of the key, in the buffer it came from */
};

/*
 * The items of one logical text data segment (RFC 7143 6.1), gathered over
 * one or more calls of kt_iscsi_text_split(). Items found by earlier calls
 * point into the earlier buffers, which must stay valid while @kv is used.
 */
struct kt_iscsi_text {
	struct kt_iscsi_kv	*kv;	/* caller's array ... */
	unsigned int		max;	/* ... and its size */
	unsigned int		nr;	/* items filled so far */
	size_t			tail_len; /* incomplete item at the end, C bit set */
	size_t			bad_off; /* on error: offset of the offending byte */
	size_t			dup_off; /* DUPLICATE_KEY: offset of the first one */
	unsigned int		dup_idx; /* DUPLICATE_KEY: its index in @kv */
};

/* Flags of kt_iscsi_text_split() */
#define KT_ISCSI_TEXT_F_CONTINUE	BIT(0)	/* C bit: last item may be cut */
/*
 * a key may begin with any key character, not only a capital letter: no
 * key we know does, and full feature phase answers such a key
 * NotUnderstood (RFC 7143 6.2) rather than refusing the whole request
 */
#define KT_ISCSI_TEXT_F_ANY_KEY		BIT(1)

void kt_iscsi_text_init(struct kt_iscsi_text *t, struct kt_iscsi_kv *kv,
			unsigned int max);
enum kt_iscsi_text_status kt_iscsi_text_split(struct kt_iscsi_text *t,
					      const u8 *buf, size_t len,
					      unsigned int flags);

/* Append key=value and its NUL at *@pos; nothing is written on error. */
enum kt_iscsi_text_status kt_iscsi_text_put(u8 *buf, size_t size, size_t *pos,
					    const char *key, size_t key_len,
					    const char *val, size_t val_len);

/* Flags of kt_iscsi_parse_number() */
#define KT_ISCSI_NUM_F_BASE64		BIT(0)	/* accept 0b..., a binary-value */

enum kt_iscsi_text_status kt_iscsi_parse_number(const u8 *val, size_t len,
						u64 max, unsigned int flags,
						u64 *out, size_t *bad_off);
enum kt_iscsi_text_status kt_iscsi_parse_bool(const u8 *val, size_t len,
					      bool *out);
enum kt_iscsi_text_status kt_iscsi_parse_range(const u8 *val, size_t len,
					       u64 max, u64 *lo, u64 *hi,
					       size_t *bad_off);
enum kt_iscsi_text_status kt_iscsi_parse_binary(const u8 *val, size_t len,
						u8 *out, size_t out_size,
						size_t *out_len,
						size_t *bad_off);

/* RFC 7143 6.2: reserved constants ("None" is an ordinary value). */
enum kt_iscsi_special {
	KT_ISCSI_VAL_PLAIN = 0,
	KT_ISCSI_VAL_REJECT,
	KT_ISCSI_VAL_IRRELEVANT,
	KT_ISCSI_VAL_NOT_UNDERSTOOD,
};

enum kt_iscsi_special kt_iscsi_value_special(const u8 *val, size_t len);

/* Iterator over a list-of-values "a,b,c" (RFC 7143 6.1). */
struct kt_iscsi_list {
	const u8	*next;
	size_t		left;
	bool		done;
};

void kt_iscsi_list_init(struct kt_iscsi_list *it, const u8 *val, size_t len);
bool kt_iscsi_list_next(struct kt_iscsi_list *it, const u8 **item,
			size_t *item_len);
bool kt_iscsi_list_contains(const u8 *list, size_t len, const u8 *item,
			    size_t item_len);

/* The keys of the table, in table order. */
enum kt_iscsi_key_id {
	KT_ISCSI_KEY_HEADER_DIGEST,
	KT_ISCSI_KEY_DATA_DIGEST,
	KT_ISCSI_KEY_MAX_CONNECTIONS,
	KT_ISCSI_KEY_SEND_TARGETS,
	KT_ISCSI_KEY_TARGET_NAME,
	KT_ISCSI_KEY_INITIATOR_NAME,
	KT_ISCSI_KEY_TARGET_ALIAS,
	KT_ISCSI_KEY_INITIATOR_ALIAS,
	KT_ISCSI_KEY_TARGET_ADDRESS,
	KT_ISCSI_KEY_TARGET_PORTAL_GROUP_TAG,
	KT_ISCSI_KEY_INITIAL_R2T,
	KT_ISCSI_KEY_IMMEDIATE_DATA,
	KT_ISCSI_KEY_MAX_RECV_DATA_SEGMENT_LENGTH,
	KT_ISCSI_KEY_MAX_BURST_LENGTH,
	KT_ISCSI_KEY_FIRST_BURST_LENGTH,
	KT_ISCSI_KEY_DEFAULT_TIME2WAIT,
	KT_ISCSI_KEY_DEFAULT_TIME2RETAIN,
	KT_ISCSI_KEY_MAX_OUTSTANDING_R2T,
	KT_ISCSI_KEY_DATA_PDU_IN_ORDER,
	KT_ISCSI_KEY_DATA_SEQUENCE_IN_ORDER,
	KT_ISCSI_KEY_ERROR_RECOVERY_LEVEL,
	KT_ISCSI_KEY_SESSION_TYPE,
	KT_ISCSI_KEY_TASK_REPORTING,
	KT_ISCSI_KEY_AUTH_METHOD,
	KT_ISCSI_KEY_CHAP_A,
	KT_ISCSI_KEY_CHAP_I,
	KT_ISCSI_KEY_CHAP_C,
	KT_ISCSI_KEY_CHAP_N,
	KT_ISCSI_KEY_CHAP_R,
	KT_ISCSI_KEY_OF_MARKER,
	KT_ISCSI_KEY_IF_MARKER,
	KT_ISCSI_KEY_OF_MARK_INT,
	KT_ISCSI_KEY_IF_MARK_INT,
	KT_ISCSI_KEY_RDMA_EXTENSIONS,
	KT_ISCSI_KEY_TARGET_RECV_DATA_SEGMENT_LENGTH,
	KT_ISCSI_KEY_INITIATOR_RECV_DATA_SEGMENT_LENGTH,
	KT_ISCSI_KEY_MAX_OUTSTANDING_UNEXPECTED_PDUS,
	KT_ISCSI_KEY_NR
};

/* What a value is (RFC 7143 6.1). */
enum kt_iscsi_key_type {
	KT_ISCSI_TYPE_TEXT = 0,	/* text, iSCSI name or local name */
	KT_ISCSI_TYPE_LIST,	/* list-of-values */
	KT_ISCSI_TYPE_NUMBER,	/* numerical-value */
	KT_ISCSI_TYPE_BOOL,	/* boolean-value */
	KT_ISCSI_TYPE_RANGE,	/* numeric-range */
	KT_ISCSI_TYPE_BINARY,	/* binary-value */
};

/* How the outcome is found (RFC 7143 6.2.1, 6.2.2). */
enum kt_iscsi_result {
	KT_ISCSI_RESULT_DECLARATIVE = 0,	/* each side declares, no answer */
	KT_ISCSI_RESULT_LIST,	/* first offered value the target accepts */
	KT_ISCSI_RESULT_MIN,
	KT_ISCSI_RESULT_MAX,
	KT_ISCSI_RESULT_AND,
	KT_ISCSI_RESULT_OR,
	KT_ISCSI_RESULT_MIN_OR_ZERO,	/* minimum, where 0 means no limit */
	KT_ISCSI_RESULT_REJECT,		/* obsolete: always answered Reject */
};

/* Who may send a key (struct kt_iscsi_key.senders) */
#define KT_ISCSI_SENDER_INITIATOR	BIT(0)
#define KT_ISCSI_SENDER_TARGET		BIT(1)

/* Where a key may appear (struct kt_iscsi_key.stages, negotiation flags) */
#define KT_ISCSI_NEGO_SECURITY		BIT(0)	/* login, CSG 0 */
#define KT_ISCSI_NEGO_OPERATIONAL	BIT(1)	/* login, CSG 1 */
#define KT_ISCSI_NEGO_FFP		BIT(2)	/* Text in full feature phase */
#define KT_ISCSI_NEGO_STAGE_MASK		(KT_ISCSI_NEGO_SECURITY | \
					 KT_ISCSI_NEGO_OPERATIONAL | \
					 KT_ISCSI_NEGO_FFP)

/* struct kt_iscsi_key.flags */
#define KT_ISCSI_KEY_F_LEADING_ONLY	BIT(0)	/* Use: LO */
#define KT_ISCSI_KEY_F_SESSION		BIT(1)	/* Scope: SW, else CO */
#define KT_ISCSI_KEY_F_NOT_DISCOVERY	BIT(2)	/* irrelevant in discovery */
#define KT_ISCSI_KEY_F_AUTH		BIT(3)	/* authentication method key */
#define KT_ISCSI_KEY_F_ISER		BIT(4)	/* iSER key, RFC 7145 6 */
#define KT_ISCSI_KEY_F_OBSOLETE		BIT(5)	/* RFC 7143 13.25 */

struct kt_iscsi_key {
	const char	*name;
	const char	*def;		/* RFC default; NULL when there is none */
	const char	*values;	/* allowed values of a list or enum */
	u64		min;		/* numbers and ranges */
	u64		max;
	u16		value_max;	/* longest value accepted on the wire */
	u8		name_len;
	u8		id;		/* enum kt_iscsi_key_id */
	u8		type;		/* enum kt_iscsi_key_type */
	u8		result;		/* enum kt_iscsi_result */
	u8		senders;	/* KT_ISCSI_SENDER_* */
	u8		stages;		/* KT_ISCSI_STAGE_* */
	u8		flags;		/* KT_ISCSI_KEY_F_* */
};

const struct kt_iscsi_key *kt_iscsi_key_find(const u8 *name, size_t len);
const struct kt_iscsi_key *kt_iscsi_key_get(unsigned int id);

/* Flags of kt_iscsi_negotiate(), besides one KT_ISCSI_STAGE_* bit */
#define KT_ISCSI_NEGO_F_NON_LEADING	BIT(4)	/* not the leading connection */
#define KT_ISCSI_NEGO_F_DISCOVERY	BIT(5)	/* SessionType=Discovery */

enum kt_iscsi_nego_status {
	KT_ISCSI_NEGO_REPLY = 0,	/* answer key=<out> */
	KT_ISCSI_NEGO_REPLY_OPTIONAL,	/* <out> is the outcome, reply optional */
	KT_ISCSI_NEGO_NO_REPLY,		/* declaration: nothing to answer */
	KT_ISCSI_NEGO_REJECT,		/* answer key=Reject (in <out>) */
	KT_ISCSI_NEGO_IRRELEVANT,	/* answer key=Irrelevant (in <out>) */
	KT_ISCSI_NEGO_NOT_UNDERSTOOD,	/* answer key=NotUnderstood (in <out>) */
	KT_ISCSI_NEGO_AUTH,		/* for the authentication method's code */
	KT_ISCSI_NEGO_NOT_ALLOWED,	/* wrong sender, stage or connection */
	KT_ISCSI_NEGO_BAD_OFFER,	/* a reserved constant as the offer */
	KT_ISCSI_NEGO_BAD_CONFIG,	/* the target's own value is unusable */
	KT_ISCSI_NEGO_NO_SPACE,		/* @out too small */
};

/*
 * The target's answer to the initiator's @offer for @key, given the
 * target's configured value @mine (text as in configfs, e.g. "CRC32C,None";
 * NULL for the RFC default). The answer is written NUL-terminated to @out,
 * its length without the NUL to *@out_len.
 */
enum kt_iscsi_nego_status kt_iscsi_negotiate(const u8 *key, size_t key_len,
					     const u8 *offer, size_t offer_len,
					     const char *mine, size_t mine_len,
					     unsigned int flags, char *out,
					     size_t out_size, size_t *out_len);

/* RFC 7143 4.2.7: NULL for a well-formed iSCSI name, else why not. */
#define KT_ISCSI_NAME_MAX	223
const char *kt_iscsi_name_error(const u8 *name, size_t len);

#endif /* KTARGET_PROTO_ISCSI_TEXT_H */
