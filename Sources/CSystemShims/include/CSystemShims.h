// Linux calls that Swift's Glibc module does not export, or exports in a shape
// Swift cannot call (epoll, prctl, mallopt, SO_PEERCRED, accept4).
// Each is a thin, static wrapper; the Swift side owns the error handling.
#ifndef CSYSTEMSHIMS_H
#define CSYSTEMSHIMS_H

#include <stdint.h>
#include <sys/types.h>
#include <sys/epoll.h>

/// epoll, unchanged.
int shim_epoll_create(void);
int shim_epoll_ctl(int epfd, int op, int fd, uint32_t events, uint64_t data);
/// Waits for events; fills parallel arrays of ready data and event masks.
int shim_epoll_wait(int epfd, uint64_t *data, uint32_t *events, int max, int timeout_ms);

/// accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC).
int shim_accept_nonblocking(int fd);

/// getsockopt(SO_PEERCRED). Returns 0 on success, -1 with errno.
int shim_peer_credentials(int fd, pid_t *pid, uid_t *uid, gid_t *gid);

/// prctl(PR_SET_DUMPABLE, value).
int shim_set_dumpable(int value);
/// prctl(PR_GET_DUMPABLE).
int shim_get_dumpable(void);
/// mallopt(M_PERTURB, byte): glibc overwrites freed heap chunks with `byte`.
int shim_malloc_perturb(int byte);
/// malloc_trim(0): glibc returns free heap pages (in every arena) to the kernel. 1 if any were.
int shim_malloc_trim(void);
/// madvise(addr, len, MADV_DONTDUMP).
int shim_madvise_dontdump(void *addr, size_t len);

/// eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC): a counter another thread can bump to wake epoll.
int shim_eventfd_create(void);
/// Adds 1 to an eventfd's counter. Returns 0, or -1 with errno.
int shim_eventfd_signal(int fd);
/// Reads and resets an eventfd's counter. Returns 0, or -1 with errno (EAGAIN when zero).
int shim_eventfd_drain(int fd);

/// Which clock a timerfd or a reading is on.
enum shim_clock { shim_clock_wall = 0, shim_clock_monotonic = 1, shim_clock_boottime = 2 };
/// Reads a clock, in seconds (CLOCK_REALTIME, CLOCK_MONOTONIC, CLOCK_BOOTTIME).
double shim_clock_seconds(int clock);
/// timerfd_create(clock, TFD_NONBLOCK | TFD_CLOEXEC) for `shim_clock_wall` or
/// `shim_clock_boottime`. Returns the descriptor, or -1 with errno.
int shim_timerfd_create(int clock);
/// Arms a timerfd for the absolute `seconds` on its clock (TFD_TIMER_ABSTIME; with
/// TFD_TIMER_CANCEL_ON_SET when `cancel_on_set`), or disarms it when `seconds` < 0.
/// Returns 0, or -1 with errno.
int shim_timerfd_arm(int fd, double seconds, int cancel_on_set);
/// Reads a timerfd's expirations. Returns 1 if it expired, 0 if not (EAGAIN), 2 if the
/// clock was set (ECANCELED; the timer is then disarmed), or -1 with errno.
int shim_timerfd_drain(int fd);

/// Makes `signals` (an array of `count` signal numbers) the calling thread's whole
/// signal mask with pthread_sigmask(SIG_SETMASK), unblocking any other signal inherited
/// blocked, so threads started afterwards inherit exactly this mask. Returns 0 or an errno.
int shim_block_signals(const int *signals, int count);
/// signalfd(-1, {signals}, SFD_NONBLOCK | SFD_CLOEXEC). Returns the fd, or -1 with errno.
int shim_signalfd_create(const int *signals, int count);
/// Reads one pending signal from a signalfd. Returns the signal number, 0 when none is
/// pending (EAGAIN), or -1 with errno.
int shim_signalfd_read(int fd);
/// signal(SIGPIPE, SIG_IGN).
void shim_ignore_sigpipe(void);

/// getsockopt(SO_PEERGROUPS): the peer's supplementary groups at connect time.
/// Fills up to `max` gids; returns their number, or -1 with errno (ERANGE: `max` too small).
int shim_peer_groups(int fd, gid_t *groups, int max);

/// getsockopt(SO_PEERPIDFD): a pidfd (close-on-exec) of the process that connected,
/// taken by the kernel at connect time, so that it names that process even after its
/// pid is reused. Returns the descriptor, or -1 with errno (ENOPROTOOPT on kernels
/// before 6.5, which lack the option; ESRCH if the peer is already gone).
int shim_peer_pidfd(int fd);
/// open(path, O_PATH | O_DIRECTORY | O_CLOEXEC), or openat(dirfd, ...) when `dirfd` >= 0.
int shim_open_directory_path(int dirfd, const char *path);
/// openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC), then
/// fstat: a regular file only. Returns the descriptor, or -1 with errno (ELOOP for a
/// symbolic link, EINVAL for anything not a regular file).
int shim_open_regular_file_at(int dirfd, const char *name);
/// open(path, O_RDONLY | O_CLOEXEC).
int shim_open_read_only(const char *path);

/// socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0). Glibc's SOCK_* enum
/// is not reliably visible to Swift once another C module has included <sys/socket.h>.
int shim_unix_stream_socket(void);

/// pipe2(fds, O_CLOEXEC): both ends close-on-exec from the start, so that no program
/// another thread starts meanwhile inherits one. Glibc hides pipe2 without _GNU_SOURCE.
int shim_pipe_cloexec(int fds[2]);

/// The constants Swift cannot import as macros.
extern const uint32_t shim_EPOLLIN, shim_EPOLLOUT, shim_EPOLLERR, shim_EPOLLHUP, shim_EPOLLRDHUP;
extern const int shim_EPOLL_CTL_ADD, shim_EPOLL_CTL_MOD, shim_EPOLL_CTL_DEL;
extern const int shim_SOCK_STREAM;

#endif
