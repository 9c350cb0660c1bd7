// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the unit attention ring (ua.c). Two sessions of one initiator
 * (same name, other ISIDs) on one TPG, one device; what each command of
 * theirs takes, in order, once.
 */
#include <kunit/test.h>
#include <linux/slab.h>

#include <ktarget/fabric.h>

#include "core.h"
#include "dev_state.h"

#define KT_ASC_TEST_A	0x2a01	/* MODE PARAMETERS CHANGED */
#define KT_ASC_TEST_B	0x2a03	/* RESERVATIONS PREEMPTED */

struct kt_ua_fixture {
	struct kt_dev		dev;
	struct kt_dev_state	state;
	struct kt_tpg		tpg;
	struct kt_session	sess[2];
	struct kt_cmd		cmd[2];
};

static int kt_ua_test_init(struct kunit *test)
{
	struct kt_ua_fixture *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	int i;

	KUNIT_ASSERT_NOT_NULL(test, f);
	/* before any assertion: exit runs when init fails too */
	test->priv = f;
	f->dev.state = &f->state;
	f->dev.index = 7;
	kt_ua_dev_init(&f->dev);
	f->tpg.tag = 1;
	for (i = 0; i < 2; i++) {
		struct kt_session *s = &f->sess[i];

		s->tpg = &f->tpg;
		strscpy(s->tid.name, "iqn.2026-12.org.ktarget:kunit",
			sizeof(s->tid.name));
		s->tid.isid[5] = i + 1;
		s->tid.has_isid = true;
		kt_ua_session_init(s);
		f->cmd[i].sess = s;
		f->cmd[i].dev = &f->dev;
	}
	/* each nexus's first word from the LU */
	for (i = 0; i < 2; i++)
		KUNIT_ASSERT_EQ(test, kt_ua_take(&f->cmd[i]),
				(u16)KT_ASC_POWER_ON_RESET);
	return 0;
}

static void kt_ua_test_exit(struct kunit *test)
{
	struct kt_ua_fixture *f = test->priv;

	if (!f)
		return;
	kt_ua_session_exit(&f->sess[0]);
	kt_ua_session_exit(&f->sess[1]);
}

static void kt_ua_power_on_is_told_once(struct kunit *test)
{
	struct kt_ua_fixture *f = test->priv;

	KUNIT_EXPECT_EQ(test, kt_ua_take(&f->cmd[0]), 0);
	KUNIT_EXPECT_EQ(test, kt_ua_take(&f->cmd[1]), 0);
}

static void kt_ua_all_reaches_every_nexus_once(struct kunit *test)
{
	struct kt_ua_fixture *f = test->priv;

	kt_ua_raise(&f->dev, KT_ASC_TEST_A, KT_UA_ALL, NULL);
	KUNIT_EXPECT_EQ(test, kt_ua_take(&f->cmd[0]), KT_ASC_TEST_A);
	KUNIT_EXPECT_EQ(test, kt_ua_take(&f->cmd[0]), 0);
	KUNIT_EXPECT_EQ(test, kt_ua_take(&f->cmd[1]), KT_ASC_TEST_A);
	KUNIT_EXPECT_EQ(test, kt_ua_take(&f->cmd[1]), 0);
}

static void kt_ua_events_come_oldest_first(struct kunit *test)
{
	struct kt_ua_fixture *f = test->priv;

	kt_ua_raise(&f->dev, KT_ASC_TEST_A, KT_UA_ALL, NULL);
	kt_ua_raise(&f->dev, KT_ASC_TEST_B, KT_UA_ALL, NULL);
	KUNIT_EXPECT_EQ(test, kt_ua_take(&f->cmd[0]), KT_ASC_TEST_A);
	KUNIT_EXPECT_EQ(test, kt_ua_take(&f->cmd[0]), KT_ASC_TEST_B);
	KUNIT_EXPECT_EQ(test, kt_ua_take(&f->cmd[0]), 0);
}

static void kt_ua_only_and_others_split_the_nexuses(struct kunit *test)
{
	struct kt_ua_fixture *f = test->priv;

	kt_ua_raise(&f->dev, KT_ASC_TEST_A, KT_UA_ONLY, &f->sess[0]);
	KUNIT_EXPECT_EQ(test, kt_ua_take(&f->cmd[1]), 0);
	KUNIT_EXPECT_EQ(test, kt_ua_take(&f->cmd[0]), KT_ASC_TEST_A);

	kt_ua_raise(&f->dev, KT_ASC_TEST_B, KT_UA_OTHERS, &f->sess[0]);
	KUNIT_EXPECT_EQ(test, kt_ua_take(&f->cmd[0]), 0);
	KUNIT_EXPECT_EQ(test, kt_ua_take(&f->cmd[1]), KT_ASC_TEST_B);
}

/* TransportID format 00b names the initiator: every ISID of it */
static void kt_ua_a_name_without_isid_names_every_port(struct kunit *test)
{
	struct kt_ua_fixture *f = test->priv;

	kt_ua_raise_nexus(&f->dev, KT_ASC_TEST_A, KT_UA_ONLY,
			  f->sess[0].nexus_name_key, 0);
	KUNIT_EXPECT_EQ(test, kt_ua_take(&f->cmd[0]), KT_ASC_TEST_A);
	KUNIT_EXPECT_EQ(test, kt_ua_take(&f->cmd[1]), KT_ASC_TEST_A);
}

static void kt_ua_another_port_is_not_this_nexus(struct kunit *test)
{
	struct kt_ua_fixture *f = test->priv;

	kt_ua_raise_nexus(&f->dev, KT_ASC_TEST_A, KT_UA_ONLY,
			  f->sess[0].nexus_key, f->tpg.tag + 1);
	KUNIT_EXPECT_EQ(test, kt_ua_take(&f->cmd[0]), 0);
	kt_ua_raise_nexus(&f->dev, KT_ASC_TEST_B, KT_UA_ONLY,
			  f->sess[0].nexus_key, f->tpg.tag);
	KUNIT_EXPECT_EQ(test, kt_ua_take(&f->cmd[0]), KT_ASC_TEST_B);
}

/* The ring keeps KT_UA_HISTORY events: older ones are lost, not replayed */
static void kt_ua_ring_keeps_the_newest(struct kunit *test)
{
	struct kt_ua_fixture *f = test->priv;
	int i;

	kt_ua_raise(&f->dev, KT_ASC_TEST_A, KT_UA_ALL, NULL);
	for (i = 0; i < KT_UA_HISTORY; i++)
		kt_ua_raise(&f->dev, i % 2 ? KT_ASC_TEST_A : KT_ASC_TEST_B,
			    KT_UA_ALL, NULL);
	/* the first A fell out of the ring: the newest eight remain */
	for (i = 0; i < KT_UA_HISTORY; i++)
		KUNIT_EXPECT_EQ(test, kt_ua_take(&f->cmd[0]),
				i % 2 ? KT_ASC_TEST_A : KT_ASC_TEST_B);
	KUNIT_EXPECT_EQ(test, kt_ua_take(&f->cmd[0]), 0);
}

/* the same ASC/ASCQ raised again before it was told is told once */
static void kt_ua_a_repeat_is_told_once(struct kunit *test)
{
	struct kt_ua_fixture *f = test->priv;
	int i;

	for (i = 0; i < 3; i++)
		kt_ua_raise(&f->dev, KT_ASC_TEST_A, KT_UA_ALL, NULL);
	kt_ua_raise(&f->dev, KT_ASC_TEST_B, KT_UA_ALL, NULL);
	kt_ua_raise(&f->dev, KT_ASC_TEST_A, KT_UA_ALL, NULL);
	/* another nexus's own event between two does not split them */
	kt_ua_raise(&f->dev, KT_ASC_TEST_B, KT_UA_ONLY, &f->sess[1]);
	kt_ua_raise(&f->dev, KT_ASC_TEST_A, KT_UA_ALL, NULL);
	KUNIT_EXPECT_EQ(test, kt_ua_take(&f->cmd[0]), KT_ASC_TEST_A);
	KUNIT_EXPECT_EQ(test, kt_ua_take(&f->cmd[0]), KT_ASC_TEST_B);
	KUNIT_EXPECT_EQ(test, kt_ua_take(&f->cmd[0]), KT_ASC_TEST_A);
	KUNIT_EXPECT_EQ(test, kt_ua_take(&f->cmd[0]), 0);
	/* the other nexus: A, B, A, its own B, A */
	KUNIT_EXPECT_EQ(test, kt_ua_take(&f->cmd[1]), KT_ASC_TEST_A);
	KUNIT_EXPECT_EQ(test, kt_ua_take(&f->cmd[1]), KT_ASC_TEST_B);
	KUNIT_EXPECT_EQ(test, kt_ua_take(&f->cmd[1]), KT_ASC_TEST_A);
	KUNIT_EXPECT_EQ(test, kt_ua_take(&f->cmd[1]), KT_ASC_TEST_B);
	KUNIT_EXPECT_EQ(test, kt_ua_take(&f->cmd[1]), KT_ASC_TEST_A);
	KUNIT_EXPECT_EQ(test, kt_ua_take(&f->cmd[1]), 0);
}

static void kt_ua_luns_changed_comes_first_once(struct kunit *test)
{
	struct kt_ua_fixture *f = test->priv;

	kt_ua_raise(&f->dev, KT_ASC_TEST_A, KT_UA_ALL, NULL);
	kt_ua_luns_changed(&f->tpg);
	KUNIT_EXPECT_EQ(test, kt_ua_take(&f->cmd[0]), (u16)KT_ASC_LUNS_CHANGED);
	KUNIT_EXPECT_EQ(test, kt_ua_take(&f->cmd[0]), KT_ASC_TEST_A);
	KUNIT_EXPECT_EQ(test, kt_ua_take(&f->cmd[0]), 0);
	KUNIT_EXPECT_EQ(test, kt_ua_take(&f->cmd[1]), (u16)KT_ASC_LUNS_CHANGED);
}

static struct kunit_case kt_ua_cases[] = {
	KUNIT_CASE(kt_ua_power_on_is_told_once),
	KUNIT_CASE(kt_ua_all_reaches_every_nexus_once),
	KUNIT_CASE(kt_ua_events_come_oldest_first),
	KUNIT_CASE(kt_ua_only_and_others_split_the_nexuses),
	KUNIT_CASE(kt_ua_a_name_without_isid_names_every_port),
	KUNIT_CASE(kt_ua_another_port_is_not_this_nexus),
	KUNIT_CASE(kt_ua_ring_keeps_the_newest),
	KUNIT_CASE(kt_ua_a_repeat_is_told_once),
	KUNIT_CASE(kt_ua_luns_changed_comes_first_once),
	{}
};

static struct kunit_suite kt_ua_suite = {
	.name = "ktarget_ua",
	.init = kt_ua_test_init,
	.exit = kt_ua_test_exit,
	.test_cases = kt_ua_cases,
};

kunit_test_suite(kt_ua_suite);
