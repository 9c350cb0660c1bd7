/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace shim: pr_*() print to stderr when KT_SHIM_VERBOSE is set in the
 * environment. Protocol code should not log; this is for the odd debug line.
 */
#ifndef KT_SHIM_LINUX_PRINTK_H
#define KT_SHIM_LINUX_PRINTK_H

#include <stdio.h>
#include <stdlib.h>

#define kt_shim_pr(lvl, fmt, ...) \
	do { \
		if (getenv("KT_SHIM_VERBOSE")) \
			fprintf(stderr, lvl fmt, ##__VA_ARGS__); \
	} while (0)

#define pr_err(fmt, ...)	kt_shim_pr("err: ", fmt, ##__VA_ARGS__)
#define pr_warn(fmt, ...)	kt_shim_pr("warn: ", fmt, ##__VA_ARGS__)
#define pr_info(fmt, ...)	kt_shim_pr("info: ", fmt, ##__VA_ARGS__)
#define pr_debug(fmt, ...)	kt_shim_pr("debug: ", fmt, ##__VA_ARGS__)
#define pr_warn_ratelimited	pr_warn
#define pr_err_ratelimited	pr_err

#endif
