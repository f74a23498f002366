/*
 * pam_widgetd.so: hands the login password to the user's widgetd (DESIGN §8).
 *
 * PAM glue only: no cryptography here. The module sends the password the stack has
 * already verified to widgetd over its Varlink socket (Unlock), re-wraps on a
 * password change (SetPasscode), and reports a passcode that can no longer match
 * (ReportPasscodeOutOfStep). It never decides or delays a login: every outcome is
 * PAM_IGNORE, every failure a syslog line, every call bounded by one deadline.
 *
 * Placement (the pam-auth-update profile, pam/widgetd.pam-config, does this): in `auth`,
 * only where it runs after the password was verified and never after a failure.
 * A line after `auth required pam_unix.so` STILL runs on a wrong password (required
 * only records the failure), and would hand that password to widgetd as a counted
 * attempt. So it must follow a module whose failure ends the stack: `requisite`, or
 * Debian's `[success=1 default=ignore] pam_unix.so` + `requisite pam_deny.so`
 * (pam-auth-update's "Additional" modules), as scripts/test-pam proves both ways.
 *
 * Identity: a user instance of widgetd takes its owner (its own uid) as
 * administrator (DESIGN §6). login and sshd run this module as root, so it connects
 * with the user's credentials: a child process takes the user's uid, gid and groups,
 * creates the socket, connects (which resolves the path with the user's rights) and
 * hands the connected socket back over a socket pair; the kernel records the peer
 * credentials (SO_PEERCRED, SO_PEERGROUPS) at connect(), so the exchange that follows
 * runs in the caller. /run/user/UID belongs to the user, and root following a path the
 * user controls (a symlink to some root-only socket) would be a confused deputy. (Root
 * is an administrator of every instance too, so connecting as root would be accepted:
 * it is refused here for that confused deputy, not for widgetd's sake.) A process that
 * is not root (a screen locker such as phosh) connects as itself, in the child too.
 *
 * Why a child: resolving the path can block without end (a FUSE file system the user
 * mounted there that never answers), and only SIGKILL ends that wait. The child is
 * killed at the deadline; it runs nothing but a few system calls between _Fork and
 * _exit, sends nothing to widgetd, waits (until the parent is done with the
 * connection) so that widgetd, which tells a peer by the process that connected, finds
 * it running, and once it has taken the user's credentials the
 * kernel makes it undumpable, so the user cannot read the copy of the caller's memory
 * it shares. The application may see a SIGCHLD for it, as for pam_unix's helper; it
 * is reaped here through its pidfd, and one the application reaps first is just gone.
 *
 * Who listens: the password goes only to a socket whose listener (SO_PEERCRED, the
 * credentials of the process that called listen()) is the user or root. Any other uid
 * listening on socket= (a world-writable directory, a path that another account could
 * bind first) is sent nothing, not even GetStatus, and is logged. widgetd's system
 * units qualify: systemd (root) listens on widgetd.socket for the `widgetd` user.
 *
 * Time: one deadline bounds each PAM call as a whole (CALL_MS), whatever the listener
 * does: connect (path resolution included) and the status each within QUICK_MS of it,
 * the rest (Unlock or SetPasscode with their key derivations, ReportPasscodeOutOfStep)
 * within what is left.
 *
 * Arguments: socket=PATH (default /run/user/UID/widgetd/widgetd.sock), enroll (an
 * instance with no passcode takes the password as its passcode), debug.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#define PAM_SM_AUTH
#define PAM_SM_SESSION
#define PAM_SM_PASSWORD
#include <security/pam_ext.h>
#include <security/pam_modules.h>

#include "widgetd_json.h"

/* Built with -fvisibility=hidden: only the PAM entry points are exported. */
#define EXPORT __attribute__((visibility("default")))

/* Where auth keeps the password for open_session when the instance is not running. */
#define KEPT_PASSWORD "pam_widgetd_password"
/* PAM's own bound on a response (PAM_MAX_RESP_SIZE): longer passwords are not sent. */
#define MAX_PASSWORD 512
/* A request: the method, and two passwords escaped at 6 bytes per byte at worst. */
#define MAX_REQUEST (256 + 2 * 6 * MAX_PASSWORD)
/* Replies are not secret; GetStatus with a long hiddenComplications list is the largest. */
#define MAX_REPLY (1 << 20)
/* Deadlines, in milliseconds, on the monotonic clock. CALL_MS bounds a whole PAM call:
 * answers with one or two key derivations (Argon2id about 100 ms each by default,
 * queued behind other unlocks) fit in it with room. QUICK_MS bounds each step that
 * needs none (connecting, GetStatus, ReportPasscodeOutOfStep) within it. A widgetd
 * that is absent costs nothing (connect fails at once); one that hangs, trickles or
 * sits behind a path that never resolves costs at most CALL_MS in all. */
#define QUICK_MS 1000
#define CALL_MS 3000
/* After SIGKILL, how long the connecting child is waited for before it is left to the
 * application to reap (a process killed in a wait ends at once; this bounds the rest). */
#define REAP_MS 100

struct options {
    char socket[sizeof(((struct sockaddr_un *)0)->sun_path)];
    int socket_given;
    int enroll;
    int debug;
};

static void parse_options(pam_handle_t *pamh, int argc, const char **argv, struct options *o)
{
    memset(o, 0, sizeof *o);
    for (int i = 0; i < argc; i++) {
        if (strncmp(argv[i], "socket=", 7) == 0) {
            if (strlen(argv[i] + 7) == 0 || strlen(argv[i] + 7) >= sizeof o->socket) {
                pam_syslog(pamh, LOG_ERR, "socket= is empty or too long; using the default");
                continue;
            }
            strcpy(o->socket, argv[i] + 7);
            o->socket_given = 1;
        } else if (strcmp(argv[i], "enroll") == 0) {
            o->enroll = 1;
        } else if (strcmp(argv[i], "debug") == 0) {
            o->debug = 1;
        } else {
            pam_syslog(pamh, LOG_ERR, "unknown argument ignored: %s", argv[i]);
        }
    }
}

#define DEBUG(...) do { if (o->debug) pam_syslog(pamh, LOG_DEBUG, __VA_ARGS__); } while (0)

static long long now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* Waits for `events` on `fd` until `deadline` (CLOCK_MONOTONIC ms): 0, or -1 with
 * errno ETIMEDOUT. */
static int wait_for(int fd, short events, long long deadline)
{
    for (;;) {
        long long left = deadline - now_ms();
        if (left <= 0) { errno = ETIMEDOUT; return -1; }
        struct pollfd p = { .fd = fd, .events = events };
        int n = poll(&p, 1, (int)left);
        if (n > 0) return 0;
        if (n < 0 && errno != EINTR) return -1;
    }
}

/* In the child: the user's credentials (if the caller is root), the socket, connect.
 * Reports the connected socket, or the errno, over `report`, then exits. Only
 * async-signal-safe calls (the caller may have threads): raw system calls set the
 * credentials of this, the child's only thread. */
static void __attribute__((noreturn)) connect_child(int report, const struct sockaddr_un *addr, const gid_t *groups,
                                                    size_t ngroups, uid_t uid, gid_t gid)
{
    int err = 0, fd = -1;
    if (groups != NULL
        && (syscall(SYS_setgroups, ngroups, groups) < 0 || syscall(SYS_setresgid, gid, gid, gid) < 0
            || syscall(SYS_setresuid, uid, uid, uid) < 0)) {
        err = EPERM;
    } else if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0)) < 0) {
        err = errno;
    } else if (connect(fd, (const struct sockaddr *)addr, sizeof *addr) < 0 && errno != EINPROGRESS) {
        /* A Unix socket connects at once or not at all; a full backlog (EAGAIN) is
         * an instance too busy to wait for. */
        err = errno;
    }
    union {
        struct cmsghdr header;
        char space[CMSG_SPACE(sizeof(int))];
    } control;
    struct iovec iov = { .iov_base = &err, .iov_len = sizeof err };
    struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
    memset(&control, 0, sizeof control);
    if (err == 0) {
        msg.msg_control = control.space;
        msg.msg_controllen = sizeof control.space;
        struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(c), &fd, sizeof fd);
    }
    while (sendmsg(report, &msg, MSG_NOSIGNAL) < 0 && errno == EINTR) {}
    /* Alive until the parent is done with the connection (it closes its end, or kills
     * this child at its deadline): widgetd tells a peer by the process that connected,
     * read through a pidfd when it accepts, and an exited connector is one it cannot
     * vouch for. */
    if (err == 0) {
        char byte;
        while (read(report, &byte, 1) < 0 && errno == EINTR) {}
    }
    _exit(0);
}

/* Reads the child's report: the connected socket, or -1 with errno. */
static int receive_connection(int report)
{
    int err = 0, fd = -1;
    union {
        struct cmsghdr header;
        char space[CMSG_SPACE(sizeof(int))];
    } control;
    struct iovec iov = { .iov_base = &err, .iov_len = sizeof err };
    struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.space,
                          .msg_controllen = sizeof control.space };
    ssize_t n;
    memset(&control, 0, sizeof control);
    while ((n = recvmsg(report, &msg, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR) {}
    if (n < 0) return -1;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c != NULL; c = CMSG_NXTHDR(&msg, c)) {
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS && c->cmsg_len == CMSG_LEN(sizeof(int)))
            memcpy(&fd, CMSG_DATA(c), sizeof fd);
    }
    if (n != (ssize_t)sizeof err || (err == 0) != (fd >= 0)) {
        /* The child died before reporting (n == 0), or a report that cannot be. */
        if (fd >= 0) close(fd);
        errno = n == 0 ? ECHILD : EPROTO;
        return -1;
    }
    if (err != 0) { errno = err; return -1; }
    return fd;
}

/* Ends the child: killed if it still runs, then reaped within REAP_MS. A child that
 * the application's own SIGCHLD handling reaps first is simply gone. Without a pidfd
 * (a kernel before 5.3) the pid is killed only while the child is known to live: it
 * has not reported, and its end of the pair is still open. */
static void end_child(pam_handle_t *pamh, pid_t pid, int pidfd, int kill_it)
{
    if (kill_it) {
        if (pidfd >= 0) (void)pidfd_send_signal(pidfd, SIGKILL, NULL, 0);
        else (void)kill(pid, SIGKILL);
    }
    if (pidfd >= 0) {
        (void)wait_for(pidfd, POLLIN, now_ms() + REAP_MS);
    }
    if (waitpid(pid, NULL, WNOHANG) == 0)
        pam_syslog(pamh, LOG_WARNING, "the connecting child %d did not end at once; left to be reaped", (int)pid);
    if (pidfd >= 0) close(pidfd);
}

/* The child that connected, kept alive while its connection is used. */
struct connector {
    pid_t pid;
    int pidfd;
    int pair; /* the parent's end: closing it lets the child exit */
};

/* Connects to widgetd as the user, path resolution included, by `deadline`. Returns
 * the socket, or -1 with errno (ENOENT or ECONNREFUSED: no instance is listening;
 * ETIMEDOUT: the path or the connection did not resolve in time). On success the child
 * that connected waits in `child` until end_connector. */
static int connect_as_user(pam_handle_t *pamh, const struct passwd *pw, const char *path, long long deadline,
                           struct connector *child)
{
    struct sockaddr_un addr = { .sun_family = AF_UNIX };
    gid_t *groups = NULL;
    int ngroups = 0, pair[2], pidfd, fd = -1, err = 0;
    pid_t pid;
    strcpy(addr.sun_path, path); /* its length was checked against sun_path */
    if (geteuid() == 0 && pw->pw_uid != 0) {
        /* The user's groups, as the instance would see them after a real login (NSS:
         * read here, before the fork, never in the child). */
        getgrouplist(pw->pw_name, pw->pw_gid, NULL, &ngroups);
        if (ngroups <= 0 || (groups = calloc((size_t)ngroups, sizeof(gid_t))) == NULL
            || getgrouplist(pw->pw_name, pw->pw_gid, groups, &ngroups) < 0) {
            pam_syslog(pamh, LOG_ERR, "cannot read the groups of %s", pw->pw_name);
            free(groups);
            errno = EPERM;
            return -1;
        }
    }
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) < 0) {
        err = errno;
        free(groups);
        errno = err;
        return -1;
    }
    pid = _Fork();
    if (pid == 0) {
        close(pair[0]);
        connect_child(pair[1], &addr, groups, (size_t)ngroups, pw->pw_uid, pw->pw_gid);
    }
    err = errno;
    close(pair[1]);
    free(groups);
    if (pid < 0) {
        close(pair[0]);
        errno = err;
        return -1;
    }
    pidfd = pidfd_open(pid, 0);
    if (wait_for(pair[0], POLLIN, deadline) < 0) {
        err = errno;
        end_child(pamh, pid, pidfd, 1);
    } else {
        fd = receive_connection(pair[0]);
        err = errno;
        if (fd >= 0) {
            child->pid = pid;
            child->pidfd = pidfd;
            child->pair = pair[0];
            return fd;
        }
        end_child(pamh, pid, pidfd, 0);
    }
    close(pair[0]);
    errno = err;
    return fd;
}

/* Ends the child that connected, once its connection is no longer used. */
static void end_connector(pam_handle_t *pamh, struct connector *child)
{
    if (child->pair < 0) return;
    close(child->pair);
    child->pair = -1;
    /* It exits as soon as it reads the end of the pair; killed if it does not. */
    if (child->pidfd >= 0 && wait_for(child->pidfd, POLLIN, now_ms() + REAP_MS) == 0) {
        end_child(pamh, child->pid, child->pidfd, 0);
    } else {
        end_child(pamh, child->pid, child->pidfd, 1);
    }
    child->pidfd = -1;
}

/* Whether the listener behind `fd` may receive the user's password: the user or root.
 * Returns 0, or -1 (logged). */
static int check_listener(pam_handle_t *pamh, const struct passwd *pw, int fd, const char *path)
{
    struct ucred peer;
    socklen_t len = sizeof peer;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &peer, &len) < 0 || len != sizeof peer) {
        pam_syslog(pamh, LOG_ERR, "cannot read who listens on %s (%m): nothing sent", path);
        return -1;
    }
    if (peer.uid != pw->pw_uid && peer.uid != 0) {
        pam_syslog(pamh, LOG_ERR, "%s is served by uid %u (pid %d), neither %s nor root: nothing sent", path,
                   (unsigned)peer.uid, (int)peer.pid, pw->pw_name);
        return -1;
    }
    return 0;
}

/* Sends one NUL-terminated request and reads one reply into `reply` (its text, NUL
 * terminated, without the NUL that ends it on the wire). Returns 0, or -1. */
static int exchange(int fd, const char *request, size_t len, long long deadline, char *reply, size_t cap,
                    size_t *reply_len)
{
    size_t sent = 0, got = 0;
    while (sent < len) {
        ssize_t n = send(fd, request + sent, len - sent, MSG_NOSIGNAL);
        if (n > 0) { sent += (size_t)n; continue; }
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && errno != EAGAIN) return -1;
        if (wait_for(fd, POLLOUT, deadline) < 0) return -1;
    }
    for (;;) {
        char *nul = got ? memchr(reply, '\0', got) : NULL;
        if (nul != NULL) {
            /* One call, one reply: anything after it would be a protocol error. */
            if ((size_t)(nul - reply) + 1 != got) { errno = EPROTO; return -1; }
            *reply_len = (size_t)(nul - reply);
            return 0;
        }
        if (got == cap) { errno = EMSGSIZE; return -1; }
        ssize_t n = recv(fd, reply + got, cap - got, 0);
        if (n > 0) { got += (size_t)n; continue; }
        if (n == 0) { errno = ECONNRESET; return -1; }
        if (errno == EINTR) continue;
        if (errno != EAGAIN) return -1;
        if (wait_for(fd, POLLIN, deadline) < 0) return -1;
    }
}

/* One open connection to widgetd and its reply buffer. */
struct conn {
    pam_handle_t *pamh;
    const struct options *o;
    int fd;
    struct connector child; /* the process that connected, alive while fd is used */
    char *buffer;
    const char *path;
    long long deadline; /* of the whole PAM call */
};

/* The deadline of a step: `step_ms` from now, or the call's if that comes first
 * (0: the rest of the call). */
static long long step_deadline(const struct conn *c, int step_ms)
{
    long long step = now_ms() + step_ms;
    return step_ms > 0 && step < c->deadline ? step : c->deadline;
}

/* Calls `method` with `params` (a JSON object's members, or NULL) and parses the
 * answer, within `step_ms` (0: the rest of the call). The request, which may hold
 * passwords, lives on the stack and is zeroed here whatever happens. Returns 0 with
 * `r` filled, or -1 (logged). */
static int call(struct conn *c, const char *method, const char *params, int step_ms, struct wd_reply *r)
{
    char request[MAX_REQUEST + 64];
    size_t reply_len = 0;
    int n, rc = -1;
    n = snprintf(request, sizeof request, "{\"method\":\"io.widgetd.Device.%s\"%s%s%s}", method,
                 params ? ",\"parameters\":{" : "", params ? params : "", params ? "}" : "");
    if (n < 0 || (size_t)n >= sizeof request) {
        pam_syslog(c->pamh, LOG_ERR, "%s: request too long, not sent", method);
    } else if (exchange(c->fd, request, (size_t)n + 1, step_deadline(c, step_ms), c->buffer, MAX_REPLY, &reply_len) < 0) {
        pam_syslog(c->pamh, LOG_WARNING, "%s on %s failed: %m", method, c->path);
    } else if (wd_parse_reply(c->buffer, reply_len, r) < 0) {
        pam_syslog(c->pamh, LOG_WARNING, "%s on %s: unreadable reply", method, c->path);
    } else {
        rc = 0;
    }
    explicit_bzero(request, sizeof request);
    return rc;
}

/* `"name":"ESCAPED"` appended to `out` at `*at`; the password never leaves the
 * caller's stack buffer. Returns 0, or -1 if it cannot be sent as JSON (not UTF-8,
 * empty, too long). */
static int add_member(char *out, size_t cap, size_t *at, const char *name, const char *value)
{
    size_t len = strnlen(value, MAX_PASSWORD + 1), n;
    int head;
    if (len > MAX_PASSWORD) return -1;
    head = snprintf(out + *at, cap - *at, "%s\"%s\":\"", *at ? "," : "", name);
    if (head < 0 || (size_t)head >= cap - *at) return -1;
    *at += (size_t)head;
    n = wd_json_escape(out + *at, cap - *at, value, len);
    if (n == 0 || cap - *at - n < 2) return -1;
    *at += n;
    out[(*at)++] = '"';
    out[*at] = '\0';
    return 0;
}

/* Calls a method whose parameters are passwords (NULL names are left out). */
static int call_with_secrets(struct conn *c, const char *method, const char *name1, const char *value1,
                             const char *name2, const char *value2, struct wd_reply *r)
{
    char params[MAX_REQUEST];
    size_t at = 0;
    int rc = -1;
    params[0] = '\0';
    if ((name1 && add_member(params, sizeof params, &at, name1, value1) < 0)
        || (name2 && add_member(params, sizeof params, &at, name2, value2) < 0)) {
        pam_syslog(c->pamh, LOG_NOTICE, "%s not sent: the password is empty, not UTF-8 or too long", method);
    } else {
        rc = call(c, method, params, 0, r);
    }
    explicit_bzero(params, sizeof params);
    return rc;
}

static void report_out_of_step(struct conn *c, const char *why)
{
    struct wd_reply r;
    if (call(c, "ReportPasscodeOutOfStep", NULL, QUICK_MS, &r) < 0) return;
    if (r.error[0])
        pam_syslog(c->pamh, LOG_ERR, "ReportPasscodeOutOfStep refused: %s", r.error);
    else
        pam_syslog(c->pamh, LOG_NOTICE,
                   "widgetd passcode out of step (%s): no password is sent until `widgetctl passcode change`", why);
}

/* Opens the conversation, if the user or root listens, for a PAM call that ends at
 * `deadline`. Returns 0, or -1 with `*absent` set when no instance listens (ENOENT,
 * ECONNREFUSED: the caller may keep the password for later). */
static void close_conn(struct conn *c);

static int open_conn(struct conn *c, pam_handle_t *pamh, const struct options *o, const struct passwd *pw,
                     char *path, size_t path_cap, long long deadline, int *absent)
{
    c->pamh = pamh;
    c->o = o;
    c->fd = -1;
    c->child.pair = -1;
    c->child.pidfd = -1;
    c->buffer = NULL;
    c->path = path;
    c->deadline = deadline;
    *absent = 0;
    if (o->socket_given) {
        snprintf(path, path_cap, "%s", o->socket);
    } else if ((size_t)snprintf(path, path_cap, "/run/user/%u/widgetd/widgetd.sock", (unsigned)pw->pw_uid) >= path_cap) {
        return -1;
    }
    c->fd = connect_as_user(pamh, pw, path, step_deadline(c, QUICK_MS), &c->child);
    if (c->fd < 0) {
        *absent = errno == ENOENT || errno == ECONNREFUSED || errno == ENOTDIR;
        if (*absent)
            DEBUG("no widgetd listening on %s", path);
        else
            pam_syslog(pamh, LOG_WARNING, "cannot connect to %s: %m", path);
        return -1;
    }
    if (check_listener(pamh, pw, c->fd, path) < 0) {
        close_conn(c);
        return -1;
    }
    c->buffer = malloc(MAX_REPLY);
    if (c->buffer == NULL) {
        close_conn(c);
        return -1;
    }
    return 0;
}

static void close_conn(struct conn *c)
{
    if (c->fd >= 0) close(c->fd);
    end_connector(c->pamh, &c->child);
    free(c->buffer);
    c->fd = -1;
    c->buffer = NULL;
}

/* GetStatus, and whether a password may be sent at all. 1: the passcode is set and
 * in step; 0: a passcode-less instance (and `enroll` applies); -1: send nothing. */
static int check_status(struct conn *c, struct wd_reply *status)
{
    pam_handle_t *pamh = c->pamh;
    const struct options *o = c->o;
    if (call(c, "GetStatus", NULL, QUICK_MS, status) < 0) return -1;
    if (status->error[0]) {
        pam_syslog(pamh, LOG_WARNING, "GetStatus refused: %s", status->error);
        return -1;
    }
    if (status->passcode_set == 0) return 0;
    if (status->passcode_set != 1) {
        pam_syslog(pamh, LOG_WARNING, "GetStatus without passcodeSet: nothing sent");
        return -1;
    }
    /* An older widgetd that does not know the flag cannot be out of step. */
    if (status->passcode_in_step == 0) {
        pam_syslog(pamh, LOG_NOTICE,
                   "widgetd passcode is out of step with the login password: nothing sent (run `widgetctl passcode change`)");
        return -1;
    }
    DEBUG("widgetd is %s, %ld failed attempts", status->state, status->failed_attempts);
    return 1;
}

/* An instance without a passcode takes `password` when `enroll` is given. */
static void enroll(struct conn *c, const char *password)
{
    pam_handle_t *pamh = c->pamh;
    const struct options *o = c->o;
    struct wd_reply r;
    if (!o->enroll) {
        DEBUG("widgetd has no passcode; enroll not given, nothing sent");
        return;
    }
    if (call_with_secrets(c, "SetPasscode", "new", password, NULL, NULL, &r) < 0) return;
    if (r.error[0])
        pam_syslog(pamh, LOG_WARNING, "enroll: SetPasscode refused: %s", r.error);
    else
        pam_syslog(pamh, LOG_NOTICE, "enroll: the login password is now widgetd's passcode");
}

/* Login: the password the stack verified unlocks widgetd, by `deadline`. Returns 1 if
 * no instance listens, so that the caller may keep it for open_session. */
static int deliver_login_password(pam_handle_t *pamh, const struct options *o, const struct passwd *pw,
                                  const char *password, long long deadline)
{
    char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
    struct conn c;
    struct wd_reply status, r;
    int absent, verdict;
    if (open_conn(&c, pamh, o, pw, path, sizeof path, deadline, &absent) < 0) return absent;
    verdict = check_status(&c, &status);
    if (verdict == 0) {
        enroll(&c, password);
    } else if (verdict == 1 && call_with_secrets(&c, "Unlock", "passcode", password, NULL, NULL, &r) == 0) {
        if (r.error[0] == '\0') {
            DEBUG("widgetd unlocked");
        } else if (strcmp(r.error, "io.widgetd.WrongPasscode") == 0) {
            /* The stack accepted this password: it was changed outside PAM. This
             * attempt is counted like any other; the next ones are not sent. */
            pam_syslog(pamh, LOG_WARNING, "widgetd refused the login password (%ld failed attempts)",
                       r.failed_attempts);
            report_out_of_step(&c, "the login password was refused");
        } else {
            pam_syslog(pamh, LOG_WARNING, "Unlock refused: %s", r.error);
        }
    }
    close_conn(&c);
    return 0;
}

static void free_kept(pam_handle_t *pamh, void *data, int status)
{
    (void)pamh;
    (void)status;
    if (data != NULL) {
        explicit_bzero(data, strlen(data));
        free(data);
    }
}

static const struct passwd *user_of(pam_handle_t *pamh, struct passwd *storage, char *buffer, size_t size)
{
    const char *name = NULL;
    struct passwd *found = NULL;
    if (pam_get_item(pamh, PAM_USER, (const void **)&name) != PAM_SUCCESS || name == NULL || name[0] == '\0')
        return NULL;
    if (getpwnam_r(name, storage, buffer, size, &found) != 0 || found == NULL) return NULL;
    return found;
}

EXPORT int pam_sm_authenticate(pam_handle_t *pamh, int flags, int argc, const char **argv)
{
    struct options opts, *o = &opts;
    struct passwd storage;
    char buffer[4096];
    const struct passwd *pw;
    const char *password = NULL;
    long long deadline = now_ms() + CALL_MS;
    (void)flags;
    parse_options(pamh, argc, argv, o);
    if ((pw = user_of(pamh, &storage, buffer, sizeof buffer)) == NULL) {
        DEBUG("unknown user: nothing sent");
        return PAM_IGNORE;
    }
    /* Only a password the stack already holds: this module never asks for one, and
     * a login without one (a fingerprint) releases no key. */
    if (pam_get_item(pamh, PAM_AUTHTOK, (const void **)&password) != PAM_SUCCESS || password == NULL
        || password[0] == '\0') {
        DEBUG("no password in the stack: nothing sent");
        return PAM_IGNORE;
    }
    if (deliver_login_password(pamh, o, pw, password, deadline)) {
        char *kept = strndup(password, MAX_PASSWORD + 1);
        if (kept != NULL && pam_set_data(pamh, KEPT_PASSWORD, kept, free_kept) != PAM_SUCCESS) free_kept(pamh, kept, 0);
        DEBUG("widgetd not running: password kept for open_session");
    }
    /* Never PAM_SUCCESS: whatever widgetd says, this module must not be what lets a
     * login through, even if it were misplaced as `sufficient`. */
    return PAM_IGNORE;
}

EXPORT int pam_sm_setcred(pam_handle_t *pamh, int flags, int argc, const char **argv)
{
    (void)pamh;
    (void)flags;
    (void)argc;
    (void)argv;
    return PAM_IGNORE; /* it establishes no credentials */
}

EXPORT int pam_sm_open_session(pam_handle_t *pamh, int flags, int argc, const char **argv)
{
    struct options opts, *o = &opts;
    struct passwd storage;
    char buffer[4096];
    const struct passwd *pw;
    const void *kept = NULL;
    long long deadline = now_ms() + CALL_MS;
    (void)flags;
    parse_options(pamh, argc, argv, o);
    if (pam_get_data(pamh, KEPT_PASSWORD, &kept) != PAM_SUCCESS || kept == NULL) return PAM_IGNORE;
    if ((pw = user_of(pamh, &storage, buffer, sizeof buffer)) != NULL && deliver_login_password(pamh, o, pw, kept, deadline))
        pam_syslog(pamh, LOG_NOTICE, "widgetd not running at session start: the login password was not delivered");
    /* Delivered or not, it is not kept longer than this: the cleanup zeroes it. */
    pam_set_data(pamh, KEPT_PASSWORD, NULL, NULL);
    return PAM_IGNORE;
}

EXPORT int pam_sm_close_session(pam_handle_t *pamh, int flags, int argc, const char **argv)
{
    (void)pamh;
    (void)flags;
    (void)argc;
    (void)argv;
    return PAM_IGNORE;
}

EXPORT int pam_sm_chauthtok(pam_handle_t *pamh, int flags, int argc, const char **argv)
{
    struct options opts, *o = &opts;
    struct passwd storage;
    char buffer[4096];
    char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
    const struct passwd *pw;
    const char *old = NULL, *new = NULL;
    struct conn c;
    struct wd_reply status, r;
    int absent, verdict;
    long long deadline = now_ms() + CALL_MS;
    /* The preliminary pass changes nothing; only the update step, after the modules
     * above have changed the password, is followed. */
    if (!(flags & PAM_UPDATE_AUTHTOK)) return PAM_IGNORE;
    parse_options(pamh, argc, argv, o);
    if ((pw = user_of(pamh, &storage, buffer, sizeof buffer)) == NULL) return PAM_IGNORE;
    if (pam_get_item(pamh, PAM_AUTHTOK, (const void **)&new) != PAM_SUCCESS || new == NULL || new[0] == '\0') {
        DEBUG("no new password in the stack: nothing sent");
        return PAM_IGNORE;
    }
    (void)pam_get_item(pamh, PAM_OLDAUTHTOK, (const void **)&old);
    if (open_conn(&c, pamh, o, pw, path, sizeof path, deadline, &absent) < 0) {
        /* The next login will find the passcode refused and report it out of step. */
        pam_syslog(pamh, LOG_NOTICE, "password changed while widgetd is not reachable: its passcode was not changed");
        return PAM_IGNORE;
    }
    verdict = check_status(&c, &status);
    if (verdict == 0) {
        enroll(&c, new);
    } else if (verdict == 1 && (old == NULL || old[0] == '\0')) {
        /* A reset by root: the old password, which wraps widgetd's keys, is unknown. */
        report_out_of_step(&c, "password reset without the old password");
    } else if (verdict == 1 && call_with_secrets(&c, "SetPasscode", "current", old, "new", new, &r) == 0) {
        if (r.error[0] == '\0') {
            pam_syslog(pamh, LOG_INFO, "widgetd passcode changed with the login password");
        } else if (strcmp(r.error, "io.widgetd.WrongPasscode") == 0) {
            report_out_of_step(&c, "the old password was refused");
        } else {
            pam_syslog(pamh, LOG_WARNING, "SetPasscode refused: %s", r.error);
        }
    }
    close_conn(&c);
    return PAM_IGNORE;
}
