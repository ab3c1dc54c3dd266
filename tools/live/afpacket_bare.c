/*
 * A bare forwarder on veth + AF_PACKET, the prototype that live mode's interface choice
 * was measured with (issue 34 item 1, "TUN; veth + AF_PACKET or AF_XDP where that is
 * faster — measure and choose"; docs/live.md#throughput). Not part of airqueue: the TUN
 * bare forwarder (crates/airqueue/src/live/bare.rs) is what `airqueue bench --live` runs.
 *
 * It is a two-port "read, write back" bridge: every frame received on one interface is
 * sent out of the other, in batches of up to 64 with recvmmsg/sendmmsg (AF_PACKET is a
 * socket, so unlike a TUN it can move many packets per system call; PACKET_IGNORE_OUTGOING
 * keeps it from reading its own transmissions). Run it inside the namespace holding both
 * interfaces (tools/live/afpacket_bench.sh sets that up, offloads off):
 *
 *   afpacket_bare IFACE_A IFACE_B SECONDS
 *
 * Prints "read N written M seconds S cpu C" at the end (C: its CPU time, user and system).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#ifndef PACKET_IGNORE_OUTGOING
#define PACKET_IGNORE_OUTGOING 23
#endif

#define BATCH 64
#define FRAME 2048

static int open_port(const char *name) {
    int fd = socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK, htons(ETH_P_ALL));
    if (fd < 0) { perror("socket"); exit(1); }
    int one = 1;
    setsockopt(fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof one);
    int big = 4 << 20;
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &big, sizeof big);
    struct sockaddr_ll sll = {0};
    sll.sll_family = AF_PACKET;
    sll.sll_protocol = htons(ETH_P_ALL);
    sll.sll_ifindex = if_nametoindex(name);
    if (!sll.sll_ifindex) { fprintf(stderr, "no interface %s\n", name); exit(1); }
    if (bind(fd, (struct sockaddr *)&sll, sizeof sll) < 0) { perror("bind"); exit(1); }
    return fd;
}

static double cpu(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
    if (argc != 4) { fprintf(stderr, "usage: %s IFACE_A IFACE_B SECONDS\n", argv[0]); return 2; }
    int fds[2] = {open_port(argv[1]), open_port(argv[2])};
    double end = now() + atof(argv[3]), start = now();
    static char bufs[BATCH][FRAME];
    struct iovec iov[BATCH];
    struct mmsghdr msgs[BATCH];
    unsigned long long nread = 0, nwritten = 0;
    struct pollfd pfds[2] = {{fds[0], POLLIN, 0}, {fds[1], POLLIN, 0}};
    while (now() < end) {
        int any = 0;
        for (int i = 0; i < 2; i++) {
            for (int k = 0; k < BATCH; k++) {
                iov[k].iov_base = bufs[k];
                iov[k].iov_len = FRAME;
                memset(&msgs[k].msg_hdr, 0, sizeof msgs[k].msg_hdr);
                msgs[k].msg_hdr.msg_iov = &iov[k];
                msgs[k].msg_hdr.msg_iovlen = 1;
            }
            int n = recvmmsg(fds[i], msgs, BATCH, MSG_DONTWAIT, NULL);
            if (n <= 0) continue;
            any = 1;
            nread += n;
            for (int k = 0; k < n; k++) iov[k].iov_len = msgs[k].msg_len;
            int sent = 0;
            while (sent < n) {
                int m = sendmmsg(fds[1 - i], msgs + sent, n - sent, 0);
                if (m <= 0) break; /* a full device queue: the rest is dropped */
                sent += m;
            }
            nwritten += sent;
        }
        if (!any) poll(pfds, 2, 10);
    }
    printf("read %llu written %llu seconds %.3f cpu %.3f\n", nread, nwritten, now() - start,
           cpu());
    return 0;
}
