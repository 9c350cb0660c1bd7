// SPDX-License-Identifier: GPL-2.0
/*
 * kt_tcmu_hostile: a hostile TCMU daemon. It opens the UIO device of the
 * user backstore device NAME (tcm-user/N/NAME/...), maps it and, for
 * SECONDS, answers the kernel's commands with garbage: cmd_tails that are
 * unaligned, outside the ring or past the head, entries whose header word
 * is none, answers naming command ids that are not in the ring or were
 * answered already, statuses outside SAM, READ_LEN longer than the data,
 * sense of any length; it writes the mailbox's head, scribbles over the
 * data area and touches pages of it no command was given (the kernel
 * answers SIGBUS, which it survives). Now and then it answers properly,
 * so that commands keep flowing. The kernel must stay clean.
 *
 *   kt_tcmu_hostile NAME SECONDS [SEED]
 *
 * Prints what it did; exits 0 once the time is up, 1 if it could not
 * start (no such device, no mapping).
 */
#include <dirent.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <linux/target_core_user.h>

static sigjmp_buf kt_bus_jmp;
static unsigned long kt_buses;

static void kt_on_bus(int sig)
{
	kt_buses++;
	siglongjmp(kt_bus_jmp, 1);
}

/* the uioN whose name is tcm-user/N/@name/... into @uio */
static int kt_find_uio(const char *name, char *uio, size_t len)
{
	char path[512], buf[512], want[300];
	struct dirent *de;
	DIR *d = opendir("/sys/class/uio");
	int found = 0;

	if (!d)
		return 0;
	snprintf(want, sizeof(want), "/%s/", name);
	while (!found && (de = readdir(d))) {
		FILE *f;

		if (strncmp(de->d_name, "uio", 3))
			continue;
		snprintf(path, sizeof(path), "/sys/class/uio/%s/name", de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(buf, sizeof(buf), f) && !strncmp(buf, "tcm-user/", 9) &&
		    strstr(buf + 9, want)) {
			snprintf(uio, len, "%s", de->d_name);
			found = 1;
		}
		fclose(f);
	}
	closedir(d);
	return found;
}

static size_t kt_map_size(const char *uio)
{
	char path[512];
	unsigned long long size = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/class/uio/%s/maps/map0/size", uio);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fscanf(f, "%llx", &size) != 1)
		size = 0;
	fclose(f);
	return size;
}

static uint32_t kt_rand(void)
{
	return (uint32_t)random();
}

/* a status, mostly SAM's */
static uint8_t kt_status(void)
{
	static const uint8_t sam[] = { 0x00, 0x02, 0x08, 0x18, 0x28, 0x40 };

	return kt_rand() % 4 ? sam[kt_rand() % sizeof(sam)] : kt_rand();
}

int main(int argc, char **argv)
{
	unsigned long kicks = 0, proper = 0, bad = 0, scribbles = 0;
	struct tcmu_mailbox *mb;
	char uio[256], dev[300];
	size_t size;
	time_t end;
	uint8_t *map;
	int fd;

	if (argc < 3) {
		fprintf(stderr, "usage: %s NAME SECONDS [SEED]\n", argv[0]);
		return 1;
	}
	srandom(argc > 3 ? atoi(argv[3]) : getpid());
	if (!kt_find_uio(argv[1], uio, sizeof(uio))) {
		fprintf(stderr, "no UIO device for %s\n", argv[1]);
		return 1;
	}
	size = kt_map_size(uio);
	snprintf(dev, sizeof(dev), "/dev/%s", uio);
	fd = open(dev, O_RDWR);
	if (fd < 0 || !size) {
		perror(dev);
		return 1;
	}
	map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	mb = (struct tcmu_mailbox *)map;
	printf("%s: %s, map %zu bytes, ring %u at %u, version %u, flags %#x\n",
	       argv[1], uio, size, mb->cmdr_size, mb->cmdr_off, mb->version,
	       mb->flags);
	signal(SIGBUS, kt_on_bus);
	end = time(NULL) + atoi(argv[2]);

	while (time(NULL) < end) {
		uint32_t rsize = mb->cmdr_size, off = mb->cmdr_off;
		uint32_t head = __atomic_load_n(&mb->cmd_head, __ATOMIC_ACQUIRE);
		uint32_t tail = mb->cmd_tail;
		uint32_t one = 1, r = kt_rand() % 16;

		if (rsize == 0 || off + rsize > size)
			break;
		if (sigsetjmp(kt_bus_jmp, 1))
			continue;
		if (r < 6) {
			/* answer what is there, mostly right, sometimes not */
			while (tail % 8 == 0 && tail < rsize && tail != head) {
				struct tcmu_cmd_entry *e = (void *)(map + off + tail);
				uint32_t len = tcmu_hdr_get_len(e->hdr.len_op);

				if (len == 0 || len > rsize - tail)
					break;
				if (tcmu_hdr_get_op(e->hdr.len_op) == TCMU_OP_CMD) {
					if (kt_rand() % 8 == 0)
						e->hdr.cmd_id = kt_rand();
					e->hdr.uflags = kt_rand() % 4 ? 0 : kt_rand();
					e->rsp.scsi_status = kt_rand() % 3 ? 0 : kt_status();
					e->rsp.read_len = kt_rand();
					if (kt_rand() % 4 == 0)
						memset(e->rsp.sense_buffer, kt_rand(),
						       sizeof(e->rsp.sense_buffer));
					proper++;
				}
				tail = (tail + len) % rsize;
			}
			__atomic_store_n(&mb->cmd_tail, tail, __ATOMIC_RELEASE);
		} else if (r < 9) {
			/* a tail anywhere */
			mb->cmd_tail = kt_rand() % 3 ? kt_rand() % rsize : kt_rand();
			bad++;
		} else if (r < 11) {
			/* garbage where the next answer would be, tail past it */
			if (tail < rsize - 8) {
				memcpy(map + off + tail, &(uint32_t){ kt_rand() }, 4);
				mb->cmd_tail = (tail + 8 * (kt_rand() % 64)) % rsize;
			}
			bad++;
		} else if (r < 12) {
			/* the kernel's head is the kernel's */
			mb->cmd_head = kt_rand();
			bad++;
		} else if (r < 14) {
			/* scribble on the data area, used pages or not */
			size_t data = off + rsize, at;

			if (size > data) {
				at = data + (kt_rand() % 4 ? kt_rand() % 65536 :
					     kt_rand() % (size - data));
				if (at < size)
					map[at] ^= kt_rand();
			}
			scribbles++;
		}
		if (write(fd, &one, sizeof(one)) == sizeof(one))
			kicks++;
		if (kt_rand() % 4 == 0)
			usleep(kt_rand() % 2000);
	}
	printf("kicks %lu answers %lu garbage %lu scribbles %lu SIGBUS %lu\n",
	       kicks, proper, bad, scribbles, kt_buses);
	munmap(map, size);
	close(fd);
	return 0;
}
