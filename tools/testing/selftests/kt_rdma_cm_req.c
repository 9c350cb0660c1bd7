// SPDX-License-Identifier: GPL-2.0
/*
 * An RDMA CM connect request with the depths an initiator chooses, sent
 * through the kernel's rdma_cm character device without librdmacm (which
 * clamps them to what the local device has):
 *
 *   kt_rdma_cm_req ADDR PORT INITIATOR_DEPTH RESPONDER_RESOURCES [HEX]
 *
 * It asks for an iSER connection (the iSER CM REQ private data, or the
 * bytes HEX gives: an SRP login of the test's own making) and no
 * queue pair of its own, prints the event the target's answer produces
 * ("connect response", "rejected", ...) and, from a connect response, the
 * depths the target chose ("target: initiator depth N, responder
 * resources M"), and goes. Exits 0 once it has an answer, 1 when it has
 * none within 10 s, 2 on a local failure.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <rdma/rdma_user_cm.h>

#define PS_TCP		0x0106
#define QPT_RC		2

static int cm_fd;

static const char *const event_names[] = {
	"address resolved", "address error", "route resolved", "route error",
	"connect request", "connect response", "connect error", "unreachable",
	"rejected", "established", "disconnected", "device removal",
};

static int cm_cmd(__u32 cmd, void *in, size_t len, size_t out)
{
	char buf[sizeof(struct rdma_ucm_cmd_hdr) + 512];
	struct rdma_ucm_cmd_hdr *hdr = (void *)buf;

	hdr->cmd = cmd;
	hdr->in = len;
	hdr->out = out;
	memcpy(buf + sizeof(*hdr), in, len);
	if (write(cm_fd, buf, sizeof(*hdr) + len) != (ssize_t)(sizeof(*hdr) + len)) {
		fprintf(stderr, "rdma_cm command %u: %s\n", cmd, strerror(errno));
		return -errno;
	}
	return 0;
}

/* the next event, or -1 when none comes within @ms */
static int cm_event(int ms, struct rdma_ucm_event_resp *ev)
{
	struct rdma_ucm_get_event get = { .response = (uintptr_t)ev };
	struct pollfd p = { .fd = cm_fd, .events = POLLIN };
	char buf[sizeof(struct rdma_ucm_cmd_hdr) + sizeof(get)];
	struct rdma_ucm_cmd_hdr *hdr = (void *)buf;

	if (poll(&p, 1, ms) != 1)
		return -1;
	hdr->cmd = RDMA_USER_CM_CMD_GET_EVENT;
	hdr->in = sizeof(get);
	hdr->out = sizeof(*ev);
	memcpy(buf + sizeof(*hdr), &get, sizeof(get));
	if (write(cm_fd, buf, sizeof(buf)) != sizeof(buf)) {
		perror("rdma_cm event");
		return -1;
	}
	return ev->event;
}

static const char *event_name(int e)
{
	if (e < 0)
		return "nothing";
	if ((size_t)e < sizeof(event_names) / sizeof(event_names[0]))
		return event_names[e];
	return "another event";
}

static int expect(int ms, int want, const char *step)
{
	struct rdma_ucm_event_resp ev = { };
	int e = cm_event(ms, &ev);

	if (e != want || ev.status) {
		printf("%s: %s, status %d\n", step, event_name(e), (int)ev.status);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct rdma_ucm_create_id_resp idr;
	struct rdma_ucm_create_id create = {
		/* rdma_ucm drops the events of an id whose uid is 0 */
		.uid = 1, .response = (uintptr_t)&idr, .ps = PS_TCP,
		.qp_type = QPT_RC,
	};
	struct rdma_ucm_resolve_addr ra = {
		.timeout_ms = 2000, .dst_size = sizeof(struct sockaddr_in),
	};
	struct rdma_ucm_resolve_route rr = { .timeout_ms = 2000 };
	struct rdma_ucm_connect conn = { };
	struct rdma_ucm_event_resp ev;
	struct sockaddr_in *dst = (void *)&ra.dst_addr;
	int e;

	if (argc != 5 && argc != 6) {
		fprintf(stderr, "usage: %s ADDR PORT INITIATOR_DEPTH RESPONDER_RESOURCES [HEX]\n",
			argv[0]);
		return 2;
	}
	cm_fd = open("/dev/infiniband/rdma_cm", O_RDWR);
	if (cm_fd < 0 || cm_cmd(RDMA_USER_CM_CMD_CREATE_ID, &create,
				sizeof(create), sizeof(idr))) {
		perror("rdma_cm");
		return 2;
	}
	dst->sin_family = AF_INET;
	dst->sin_port = htons(atoi(argv[2]));
	if (inet_pton(AF_INET, argv[1], &dst->sin_addr) != 1)
		return 2;
	/* from the same address: the target is on this machine's device */
	memcpy(&ra.src_addr, &ra.dst_addr, sizeof(*dst));
	((struct sockaddr_in *)&ra.src_addr)->sin_port = 0;
	ra.src_size = sizeof(*dst);
	ra.id = idr.id;
	if (cm_cmd(RDMA_USER_CM_CMD_RESOLVE_ADDR, &ra, sizeof(ra), 0) ||
	    expect(5000, 0, "resolve address"))
		return 2;
	rr.id = idr.id;
	if (cm_cmd(RDMA_USER_CM_CMD_RESOLVE_ROUTE, &rr, sizeof(rr), 0) ||
	    expect(5000, 2, "resolve route"))
		return 2;

	conn.id = idr.id;
	conn.conn_param.qp_num = 0x4242;
	conn.conn_param.initiator_depth = atoi(argv[3]);
	conn.conn_param.responder_resources = atoi(argv[4]);
	conn.conn_param.retry_count = 7;
	conn.conn_param.rnr_retry_count = 7;
	conn.conn_param.valid = 1;
	/* iSER CM REQ: no zero-based virtual addresses, no send with invalidate */
	conn.conn_param.private_data[0] = 0xc0;
	conn.conn_param.private_data_len = 4;
	if (argc == 6) {
		const char *hex = argv[5];
		size_t n = strlen(hex) / 2, i;
		unsigned int byte;

		if (n > sizeof(conn.conn_param.private_data))
			return 2;
		for (i = 0; i < n; i++) {
			if (sscanf(hex + 2 * i, "%2x", &byte) != 1)
				return 2;
			conn.conn_param.private_data[i] = byte;
		}
		conn.conn_param.private_data_len = n;
	}
	if (cm_cmd(RDMA_USER_CM_CMD_CONNECT, &conn, sizeof(conn), 0)) {
		perror("connect");
		return 2;
	}
	e = cm_event(10000, &ev);
	printf("asked: initiator depth %s, responder resources %s; answer: %s\n",
	       argv[3], argv[4], event_name(e));
	/* the REP as this side sees it: the target's depths are mirrored */
	if (e == 5)
		printf("target: initiator depth %u, responder resources %u\n",
		       ev.param.conn.responder_resources,
		       ev.param.conn.initiator_depth);
	return e < 0;
}
