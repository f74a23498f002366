#define _GNU_SOURCE
#include "CSystemShims.h"
#include <sys/socket.h>
#include <sys/prctl.h>
#include <sys/mman.h>
#include <malloc.h>
#include <errno.h>

const uint32_t shim_EPOLLIN = EPOLLIN, shim_EPOLLOUT = EPOLLOUT, shim_EPOLLERR = EPOLLERR,
               shim_EPOLLHUP = EPOLLHUP, shim_EPOLLRDHUP = EPOLLRDHUP;
const int shim_EPOLL_CTL_ADD = EPOLL_CTL_ADD, shim_EPOLL_CTL_MOD = EPOLL_CTL_MOD,
          shim_EPOLL_CTL_DEL = EPOLL_CTL_DEL;

int shim_epoll_create(void) { return epoll_create1(EPOLL_CLOEXEC); }

int shim_epoll_ctl(int epfd, int op, int fd, uint32_t events, uint64_t data) {
    struct epoll_event ev = { .events = events, .data.u64 = data };
    return epoll_ctl(epfd, op, fd, &ev);
}

int shim_epoll_wait(int epfd, uint64_t *data, uint32_t *events, int max, int timeout_ms) {
    struct epoll_event evs[256];
    if (max > 256) max = 256;
    int n = epoll_wait(epfd, evs, max, timeout_ms);
    for (int i = 0; i < n; i++) { data[i] = evs[i].data.u64; events[i] = evs[i].events; }
    return n;
}

int shim_accept_nonblocking(int fd) { return accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC); }

int shim_peer_credentials(int fd, pid_t *pid, uid_t *uid, gid_t *gid) {
    struct ucred cred;
    socklen_t len = sizeof(cred);
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) return -1;
    *pid = cred.pid; *uid = cred.uid; *gid = cred.gid;
    return 0;
}

int shim_set_dumpable(int value) { return prctl(PR_SET_DUMPABLE, value, 0, 0, 0); }
int shim_get_dumpable(void) { return prctl(PR_GET_DUMPABLE, 0, 0, 0, 0); }
int shim_malloc_perturb(int byte) { return mallopt(M_PERTURB, byte); }
int shim_madvise_dontdump(void *addr, size_t len) { return madvise(addr, len, MADV_DONTDUMP); }
