#define _GNU_SOURCE
#include "CSystemShims.h"
#include <sys/socket.h>
#include <sys/prctl.h>
#include <sys/mman.h>
#include <malloc.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <sys/stat.h>
#include <time.h>

/* Linux 6.5 (asm-generic/socket.h); glibc 2.36's headers do not name it yet. */
#ifndef SO_PEERPIDFD
#define SO_PEERPIDFD 77
#endif

const uint32_t shim_EPOLLIN = EPOLLIN, shim_EPOLLOUT = EPOLLOUT, shim_EPOLLERR = EPOLLERR,
               shim_EPOLLHUP = EPOLLHUP, shim_EPOLLRDHUP = EPOLLRDHUP;
const int shim_EPOLL_CTL_ADD = EPOLL_CTL_ADD, shim_EPOLL_CTL_MOD = EPOLL_CTL_MOD,
          shim_EPOLL_CTL_DEL = EPOLL_CTL_DEL;
const int shim_SOCK_STREAM = SOCK_STREAM;

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
int shim_malloc_trim(void) { return malloc_trim(0); }
int shim_madvise_dontdump(void *addr, size_t len) { return madvise(addr, len, MADV_DONTDUMP); }


int shim_eventfd_create(void) { return eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC); }

int shim_eventfd_signal(int fd) {
    uint64_t one = 1;
    for (;;) {
        ssize_t n = write(fd, &one, sizeof(one));
        if (n == (ssize_t)sizeof(one)) return 0;
        if (n < 0 && errno == EINTR) continue;
        /* EAGAIN: the counter is saturated, so a wake-up is already pending. */
        if (n < 0 && errno == EAGAIN) return 0;
        return -1;
    }
}

int shim_eventfd_drain(int fd) {
    uint64_t value;
    for (;;) {
        ssize_t n = read(fd, &value, sizeof(value));
        if (n == (ssize_t)sizeof(value)) return 0;
        if (n < 0 && errno == EINTR) continue;
        return -1;
    }
}

static int fill_set(sigset_t *set, const int *signals, int count) {
    if (sigemptyset(set) != 0) return -1;
    for (int i = 0; i < count; i++) if (sigaddset(set, signals[i]) != 0) return -1;
    return 0;
}

int shim_block_signals(const int *signals, int count) {
    sigset_t set;
    if (fill_set(&set, signals, count) != 0) return errno;
    // SETMASK, not BLOCK: a mask inherited from the parent (a test runner, a shell)
    // would otherwise keep SIGABRT or SIGQUIT blocked, and the watchdog's abort or an
    // administrator's signal would be ignored.
    return pthread_sigmask(SIG_SETMASK, &set, NULL);
}

int shim_signalfd_create(const int *signals, int count) {
    sigset_t set;
    if (fill_set(&set, signals, count) != 0) return -1;
    return signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
}

int shim_signalfd_read(int fd) {
    struct signalfd_siginfo info;
    for (;;) {
        ssize_t n = read(fd, &info, sizeof(info));
        if (n == (ssize_t)sizeof(info)) return (int)info.ssi_signo;
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && errno == EAGAIN) return 0;
        if (n >= 0) errno = EIO;
        return -1;
    }
}

void shim_ignore_sigpipe(void) { signal(SIGPIPE, SIG_IGN); }

int shim_peer_groups(int fd, gid_t *groups, int max) {
    socklen_t len = (socklen_t)(sizeof(gid_t) * (size_t)max);
    if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups, &len) != 0) return -1;
    return (int)(len / sizeof(gid_t));
}

int shim_peer_pidfd(int fd) {
    int pidfd = -1;
    socklen_t len = sizeof(pidfd);
    if (getsockopt(fd, SOL_SOCKET, SO_PEERPIDFD, &pidfd, &len) != 0) return -1;
    return pidfd;
}

int shim_open_directory_path(int dirfd, const char *path) {
    return openat(dirfd >= 0 ? dirfd : AT_FDCWD, path, O_PATH | O_DIRECTORY | O_CLOEXEC);
}

int shim_open_regular_file_at(int dirfd, const char *name) {
    int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) return -1;
    struct stat st;
    if (fstat(fd, &st) != 0) { int saved = errno; close(fd); errno = saved; return -1; }
    if (!S_ISREG(st.st_mode)) { close(fd); errno = EINVAL; return -1; }
    return fd;
}

int shim_open_read_only(const char *path) { return open(path, O_RDONLY | O_CLOEXEC); }

int shim_unix_stream_socket(void) { return socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0); }

int shim_pipe_cloexec(int fds[2]) {
    return pipe2(fds, O_CLOEXEC);
}

static clockid_t shim_clockid(int clock) {
    switch (clock) {
    case shim_clock_monotonic: return CLOCK_MONOTONIC;
    case shim_clock_boottime: return CLOCK_BOOTTIME;
    default: return CLOCK_REALTIME;
    }
}

double shim_clock_seconds(int clock) {
    struct timespec ts;
    if (clock_gettime(shim_clockid(clock), &ts) != 0) return 0;
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int shim_timerfd_create(int clock) {
    return timerfd_create(shim_clockid(clock), TFD_NONBLOCK | TFD_CLOEXEC);
}

int shim_timerfd_arm(int fd, double seconds, int cancel_on_set) {
    struct itimerspec spec = { 0 };
    int flags = 0;
    if (seconds >= 0) {
        /* 0 would disarm: the earliest absolute time that arms is 1 ns. */
        if (seconds < 1e-9) seconds = 1e-9;
        spec.it_value.tv_sec = (time_t)seconds;
        spec.it_value.tv_nsec = (long)((seconds - (double)spec.it_value.tv_sec) * 1e9);
        if (spec.it_value.tv_sec == 0 && spec.it_value.tv_nsec == 0) spec.it_value.tv_nsec = 1;
        flags = TFD_TIMER_ABSTIME | (cancel_on_set ? TFD_TIMER_CANCEL_ON_SET : 0);
    }
    return timerfd_settime(fd, flags, &spec, NULL);
}

int shim_timerfd_drain(int fd) {
    uint64_t expirations;
    for (;;) {
        ssize_t n = read(fd, &expirations, sizeof(expirations));
        if (n == (ssize_t)sizeof(expirations)) return 1;
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && errno == EAGAIN) return 0;
        if (n < 0 && errno == ECANCELED) return 2;
        return -1;
    }
}
