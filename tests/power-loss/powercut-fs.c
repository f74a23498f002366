// powercut-fs: a pass-through FUSE file system that forgets, at a simulated power cut,
// everything that was not made durable (the LazyFS / ALICE model).
//
//   powercut-fs [--forget-fdatasync | --forget-fsync | --forget-dirsync | --forget-dirsync-of DIR] [--torn SEED]
//               [--sync-delay-ms N] [--full] [--control FILE] [--stats FILE] BACKING SHADOW MOUNTPOINT
//
// Every operation is passed through to BACKING at once, so the daemon on MOUNTPOINT sees
// an ordinary file system. Beside it the file system keeps what a disk would still hold
// after a power cut:
//
//   - per file (by inode, so renames and unlinks do not lose track of it): its contents
//     as of its last fsync/fdatasync, in SHADOW/<id>. Writes, truncations and fallocate
//     since then are only remembered as dirty byte ranges, copied to SHADOW at the next
//     sync of that file;
//   - per directory: its entries (name -> inode) as of its last fsync. A create, rename,
//     unlink, mkdir or rmdir changes the live directory only; it reaches the durable
//     listing when the directory itself is fsynced.
//
// The power cut is the unmount: when fuse_main returns, BACKING is rebuilt from the
// durable state alone (the durable root listing, recursively; each file from SHADOW),
// and whatever was not durable is gone. What the mount started with counts as durable.
// With --torn SEED part of what was not durable survives instead (see `tear`): torn
// records and files, renames that reached the disk without a directory fsync.
//
// A precise crash point: on SIGUSR1 the control FILE is read, "PID KIND COUNT", and the
// COUNT-th next operation of KIND (write, fsync, fdatasync, fsyncdir, rename, unlink,
// create, any) SIGKILLs PID instead of being performed; from then on every operation
// fails with EIO and changes nothing, as if the machine had stopped there. (The harness
// also kills at random times from outside.)
//
// The self-check modes make the file system lie: --forget-fdatasync answers an
// fdatasync without making anything durable, --forget-fsync the same for a file's
// fsync (the keybag's, a timeline file's before its rename), --forget-dirsync for a directory
// fsync, --forget-dirsync-of DIR only for the directory DIR (relative to BACKING). A test
// that cannot tell these from the honest mode cannot see a missing sync.
//
// --sync-delay-ms N makes every fsync, fdatasync and directory fsync take N ms more (a
// slow disk: eMMC and SD cards take tens of ms), for tests of what waits for a sync.
// Being single-threaded, the file system then serves nothing else meanwhile, as a disk
// with one queue would not either.
//
// A full disk: with --full, or from a SIGUSR2 until the next one, every write that would
// grow a file, every growing truncation and every fallocate fails with ENOSPC, as on a
// file system with no free block; writes inside a file's size (the journal's
// preallocated regions), renames, unlinks and empty creates go through.
//
// At exit one line of statistics is written to the stats FILE (or stderr): operation
// counts and how much the cut forgot.
//
// Single-threaded on purpose (run with -s semantics): the model needs no locks, and the
// daemon's parallel group commits simply take turns. Modes and owners are passed
// through and treated as durable at once (the daemon's durability does not rest on them).
// Symbolic and hard links are refused: the daemon makes neither.
#define FUSE_USE_VERSION 31
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <fuse.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <sys/types.h>
#include <unistd.h>

struct range { off_t start, end; };
struct entry { char *name; unsigned id; };

struct node {
    ino_t backing_ino;
    int live;               // still reachable in BACKING (its backing inode is in use)
    int is_dir;
    mode_t mode;
    uid_t uid;
    gid_t gid;
    // Files: ranges changed since the last sync; whether SHADOW/<id> exists.
    struct range *dirty;
    size_t ndirty, capdirty;
    int has_durable;
    // Directories: the durable listing.
    struct entry *listing;
    size_t nlisting;
};

static char backing[PATH_MAX];
static char shadow[PATH_MAX];
static const char *control_path;
static const char *stats_path;
static int forget_fdatasync, forget_fsync, forget_dirsync;
/// --full, toggled by SIGUSR2: no free block (see the header).
static volatile sig_atomic_t disk_full;
static void on_sigusr2(int sig) { (void)sig; disk_full = !disk_full; }
/// --sync-delay-ms: what every sync takes on top.
static long sync_delay_ms;

static void slow_sync(void) {
    if (sync_delay_ms <= 0) return;
    struct timespec delay = {sync_delay_ms / 1000, (sync_delay_ms % 1000) * 1000000L};
    while (nanosleep(&delay, &delay) != 0 && errno == EINTR) {}
}
static const char *forget_dirsync_of;  // only of this directory (a path under BACKING)
static int torn;                       // --torn SEED: keep some unsynced changes at the cut

static struct node *nodes;
static size_t nnodes, capnodes;
static unsigned root_id;

// Which node each open backing descriptor belongs to (descriptors are small numbers).
#define MAX_FDS 65536
static int fd_node[MAX_FDS];

// The crash point.
static volatile sig_atomic_t control_pending;
static pid_t victim;
static char victim_kind[32];
static long victim_countdown;
static int dead;

static struct {
    long write, fsync, fdatasync, fsyncdir, rename, unlink, create, mkdir, rmdir, truncate, fallocate;
    long forgotten_fsync, forgotten_fdatasync, forgotten_fsyncdir;
} count;

static void die(const char *format, ...) {
    va_list args;
    va_start(args, format);
    fprintf(stderr, "powercut-fs: ");
    vfprintf(stderr, format, args);
    fprintf(stderr, "\n");
    va_end(args);
    exit(1);
}

static void backing_path(char *out, const char *path) {
    snprintf(out, PATH_MAX, "%s%s", backing, path);
}

static void shadow_path(char *out, unsigned id) {
    snprintf(out, PATH_MAX, "%s/%u", shadow, id);
}

static unsigned new_node(const struct stat *st) {
    if (nnodes == capnodes) {
        capnodes = capnodes ? capnodes * 2 : 64;
        nodes = realloc(nodes, capnodes * sizeof *nodes);
        if (!nodes) die("out of memory");
    }
    struct node *n = &nodes[nnodes];
    memset(n, 0, sizeof *n);
    n->backing_ino = st->st_ino;
    n->live = 1;
    n->is_dir = S_ISDIR(st->st_mode);
    n->mode = st->st_mode & 07777;
    n->uid = st->st_uid;
    n->gid = st->st_gid;
    return (unsigned)nnodes++;
}

// The live node of a backing inode, made if it is new to us.
static unsigned node_for(const struct stat *st) {
    for (size_t i = 0; i < nnodes; i++)
        if (nodes[i].live && nodes[i].backing_ino == st->st_ino) return (unsigned)i;
    return new_node(st);
}

static void forget_inode(ino_t ino) {
    for (size_t i = 0; i < nnodes; i++)
        if (nodes[i].live && nodes[i].backing_ino == ino) nodes[i].live = 0;
}

static void mark_dirty(unsigned id, off_t start, off_t end) {
    if (end <= start) return;
    struct node *n = &nodes[id];
    // Keep the ranges sorted and disjoint: merge every range that touches [start, end).
    size_t i = 0;
    while (i < n->ndirty && n->dirty[i].end < start) i++;
    size_t j = i;
    while (j < n->ndirty && n->dirty[j].start <= end) {
        if (n->dirty[j].start < start) start = n->dirty[j].start;
        if (n->dirty[j].end > end) end = n->dirty[j].end;
        j++;
    }
    if (j == i) {
        if (n->ndirty == n->capdirty) {
            n->capdirty = n->capdirty ? n->capdirty * 2 : 8;
            n->dirty = realloc(n->dirty, n->capdirty * sizeof *n->dirty);
            if (!n->dirty) die("out of memory");
        }
        memmove(&n->dirty[i + 1], &n->dirty[i], (n->ndirty - i) * sizeof *n->dirty);
        n->ndirty++;
    } else if (j > i + 1) {
        memmove(&n->dirty[i + 1], &n->dirty[j], (n->ndirty - j) * sizeof *n->dirty);
        n->ndirty -= j - i - 1;
    }
    n->dirty[i].start = start;
    n->dirty[i].end = end;
}

static void copy_range(int from, int to, off_t start, off_t end) {
    static char buffer[1 << 16];
    while (start < end) {
        size_t want = (size_t)(end - start) < sizeof buffer ? (size_t)(end - start) : sizeof buffer;
        ssize_t n = pread(from, buffer, want, start);
        if (n < 0) die("pread: %s", strerror(errno));
        if (n == 0) break;  // beyond the end: the truncate below settles the size
        if (pwrite(to, buffer, (size_t)n, start) != n) die("pwrite shadow: %s", strerror(errno));
        start += n;
    }
}

// Makes a file's current contents its durable contents.
static void make_file_durable(unsigned id, int fd) {
    struct node *n = &nodes[id];
    struct stat st;
    if (fstat(fd, &st) != 0) die("fstat: %s", strerror(errno));
    if (!n->has_durable) mark_dirty(id, 0, st.st_size);
    char path[PATH_MAX];
    shadow_path(path, id);
    int out = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
    if (out < 0) die("open %s: %s", path, strerror(errno));
    for (size_t i = 0; i < n->ndirty; i++) copy_range(fd, out, n->dirty[i].start, n->dirty[i].end);
    if (ftruncate(out, st.st_size) != 0) die("ftruncate shadow: %s", strerror(errno));
    close(out);
    n->ndirty = 0;
    n->has_durable = 1;
}

static void free_listing(struct node *n) {
    for (size_t i = 0; i < n->nlisting; i++) free(n->listing[i].name);
    free(n->listing);
    n->listing = NULL;
    n->nlisting = 0;
}

// Makes a directory's current entries its durable listing (new inodes get nodes).
static void make_directory_durable(unsigned id, int dirfd_in) {
    int dfd = dup(dirfd_in);
    DIR *dir = dfd < 0 ? NULL : fdopendir(dfd);
    if (!dir) die("fdopendir: %s", strerror(errno));
    rewinddir(dir);
    struct entry *listing = NULL;
    size_t count_entries = 0, cap = 0;
    struct dirent *d;
    while ((d = readdir(dir))) {
        if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, "..")) continue;
        struct stat st;
        if (fstatat(dfd, d->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) die("lstat %s: %s", d->d_name, strerror(errno));
        if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) die("%s: only files and directories are modelled", d->d_name);
        if (count_entries == cap) {
            cap = cap ? cap * 2 : 16;
            listing = realloc(listing, cap * sizeof *listing);
            if (!listing) die("out of memory");
        }
        listing[count_entries].name = strdup(d->d_name);
        listing[count_entries].id = node_for(&st);
        count_entries++;
    }
    closedir(dir);
    free_listing(&nodes[id]);
    nodes[id].listing = listing;
    nodes[id].nlisting = count_entries;
}

// What the mount starts with is durable: every directory's listing, every file's contents.
static void adopt(const char *bpath) {
    struct stat st;
    if (lstat(bpath, &st) != 0) die("lstat %s: %s", bpath, strerror(errno));
    unsigned id = node_for(&st);
    int dfd = open(bpath, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0) die("open %s: %s", bpath, strerror(errno));
    make_directory_durable(id, dfd);
    close(dfd);
    for (size_t i = 0; i < nodes[id].nlisting; i++) {
        char child[PATH_MAX];
        snprintf(child, sizeof child, "%s/%s", bpath, nodes[id].listing[i].name);
        unsigned cid = nodes[id].listing[i].id;
        if (nodes[cid].is_dir) {
            adopt(child);
        } else {
            int fd = open(child, O_RDONLY | O_CLOEXEC);
            if (fd < 0) die("open %s: %s", child, strerror(errno));
            make_file_durable(cid, fd);
            close(fd);
        }
    }
}

// ---- the crash point -------------------------------------------------------------

static void on_sigusr1(int sig) { (void)sig; control_pending = 1; }

static void read_control(void) {
    control_pending = 0;
    if (!control_path) return;
    FILE *f = fopen(control_path, "r");
    if (!f) return;
    int pid;
    long n;
    char kind[32];
    if (fscanf(f, "%d %31s %ld", &pid, kind, &n) == 3) {
        victim = pid;
        snprintf(victim_kind, sizeof victim_kind, "%s", kind);
        victim_countdown = n;
    }
    fclose(f);
}

// Called at the start of every operation: 1 if the machine is off (the caller fails with EIO).
static int power_off(const char *kind) {
    if (control_pending) read_control();
    if (dead) return 1;
    if (victim > 0 && (!strcmp(victim_kind, "any") || !strcmp(victim_kind, kind))) {
        if (--victim_countdown <= 0) {
            kill(victim, SIGKILL);
            victim = 0;
            dead = 1;
            return 1;
        }
    }
    return 0;
}

#define OFF_OR(kind) do { if (power_off(kind)) return -EIO; } while (0)

// ---- operations ------------------------------------------------------------------

static void *pc_init(struct fuse_conn_info *conn, struct fuse_config *cfg) {
    (void)conn;
    cfg->use_ino = 1;
    cfg->hard_remove = 1;      // an unlinked open file stays reachable through its descriptor
    cfg->nullpath_ok = 1;
    cfg->entry_timeout = 0;
    cfg->attr_timeout = 0;
    cfg->negative_timeout = 0;
    cfg->direct_io = 1;        // every read and write reaches us: no page cache above the model
    cfg->kernel_cache = 0;
    return NULL;
}

static int pc_getattr(const char *path, struct stat *st, struct fuse_file_info *fi) {
    OFF_OR("getattr");
    int r;
    if (fi) {
        r = fstat((int)fi->fh, st);
    } else {
        char b[PATH_MAX];
        backing_path(b, path);
        r = lstat(b, st);
    }
    return r == 0 ? 0 : -errno;
}

static int pc_access(const char *path, int mask) {
    OFF_OR("access");
    char b[PATH_MAX];
    backing_path(b, path);
    return access(b, mask) == 0 ? 0 : -errno;
}

static int pc_opendir(const char *path, struct fuse_file_info *fi) {
    OFF_OR("opendir");
    char b[PATH_MAX];
    backing_path(b, path);
    DIR *d = opendir(b);
    if (!d) return -errno;
    fi->fh = (uint64_t)(uintptr_t)d;
    return 0;
}

static int pc_readdir(const char *path, void *buf, fuse_fill_dir_t filler, off_t offset, struct fuse_file_info *fi,
                      enum fuse_readdir_flags flags) {
    (void)path; (void)offset; (void)flags;
    OFF_OR("readdir");
    DIR *d = (DIR *)(uintptr_t)fi->fh;
    rewinddir(d);
    struct dirent *e;
    // Offset 0 for every entry: the whole listing in one call, as the daemon's are small.
    while ((e = readdir(d))) {
        struct stat st = {.st_ino = e->d_ino, .st_mode = (mode_t)DTTOIF(e->d_type)};
        if (filler(buf, e->d_name, &st, 0, 0)) break;
    }
    return 0;
}

static int pc_releasedir(const char *path, struct fuse_file_info *fi) {
    (void)path;
    closedir((DIR *)(uintptr_t)fi->fh);
    return 0;
}

static int pc_fsyncdir(const char *path, int datasync, struct fuse_file_info *fi) {
    (void)datasync;
    OFF_OR("fsyncdir");
    count.fsyncdir++;
    slow_sync();
    if (forget_dirsync) { count.forgotten_fsyncdir++; return 0; }
    (void)path;  // NULL with nullpath_ok: the open directory says which it is
    int dfd = dirfd((DIR *)(uintptr_t)fi->fh);
    struct stat st;
    if (fstat(dfd, &st) != 0) return -errno;
    if (forget_dirsync_of) {
        char b[PATH_MAX];
        struct stat target;
        snprintf(b, sizeof b, "%s/%s", backing, forget_dirsync_of);
        if (lstat(b, &target) == 0 && target.st_ino == st.st_ino) { count.forgotten_fsyncdir++; return 0; }
    }
    make_directory_durable(node_for(&st), dfd);
    return 0;
}

static int pc_mkdir(const char *path, mode_t mode) {
    OFF_OR("mkdir");
    count.mkdir++;
    char b[PATH_MAX];
    backing_path(b, path);
    if (mkdir(b, mode) != 0) return -errno;
    struct stat st;
    if (lstat(b, &st) == 0) new_node(&st);
    return 0;
}

static int pc_rmdir(const char *path) {
    OFF_OR("rmdir");
    count.rmdir++;
    char b[PATH_MAX];
    backing_path(b, path);
    struct stat st;
    if (lstat(b, &st) != 0) return -errno;
    if (rmdir(b) != 0) return -errno;
    forget_inode(st.st_ino);
    return 0;
}

static int pc_unlink(const char *path) {
    OFF_OR("unlink");
    count.unlink++;
    char b[PATH_MAX];
    backing_path(b, path);
    struct stat st;
    if (lstat(b, &st) != 0) return -errno;
    if (unlink(b) != 0) return -errno;
    if (st.st_nlink <= 1) forget_inode(st.st_ino);
    return 0;
}

static int pc_rename(const char *from, const char *to, unsigned int flags) {
    OFF_OR("rename");
    count.rename++;
    char bf[PATH_MAX], bt[PATH_MAX];
    backing_path(bf, from);
    backing_path(bt, to);
    struct stat replaced;
    int replaces = lstat(bt, &replaced) == 0;
    if (renameat2(AT_FDCWD, bf, AT_FDCWD, bt, flags) != 0) return -errno;
    // The inode a plain rename replaced is gone from the live tree (EXCHANGE keeps both).
    if (replaces && !(flags & RENAME_EXCHANGE) && replaced.st_nlink <= 1 && !S_ISDIR(replaced.st_mode))
        forget_inode(replaced.st_ino);
    if (replaces && !(flags & RENAME_EXCHANGE) && S_ISDIR(replaced.st_mode)) forget_inode(replaced.st_ino);
    return 0;
}

static int pc_link(const char *from, const char *to) { (void)from; (void)to; return -EPERM; }
static int pc_symlink(const char *from, const char *to) { (void)from; (void)to; return -EPERM; }

static int pc_chmod(const char *path, mode_t mode, struct fuse_file_info *fi) {
    OFF_OR("chmod");
    int r;
    struct stat st;
    if (fi) {
        r = fchmod((int)fi->fh, mode);
        if (r == 0) r = fstat((int)fi->fh, &st);
    } else {
        char b[PATH_MAX];
        backing_path(b, path);
        r = chmod(b, mode);
        if (r == 0) r = lstat(b, &st);
    }
    if (r != 0) return -errno;
    nodes[node_for(&st)].mode = mode & 07777;
    return 0;
}

static int pc_chown(const char *path, uid_t uid, gid_t gid, struct fuse_file_info *fi) {
    OFF_OR("chown");
    int r;
    struct stat st;
    if (fi) {
        r = fchown((int)fi->fh, uid, gid);
        if (r == 0) r = fstat((int)fi->fh, &st);
    } else {
        char b[PATH_MAX];
        backing_path(b, path);
        r = lchown(b, uid, gid);
        if (r == 0) r = lstat(b, &st);
    }
    if (r != 0) return -errno;
    nodes[node_for(&st)].uid = st.st_uid;
    nodes[node_for(&st)].gid = st.st_gid;
    return 0;
}

static int pc_utimens(const char *path, const struct timespec tv[2], struct fuse_file_info *fi) {
    OFF_OR("utimens");
    if (fi) return futimens((int)fi->fh, tv) == 0 ? 0 : -errno;
    char b[PATH_MAX];
    backing_path(b, path);
    return utimensat(AT_FDCWD, b, tv, AT_SYMLINK_NOFOLLOW) == 0 ? 0 : -errno;
}

// A sync copies from the descriptor it is called on: write-only opens become read-write.
static int readable(int flags) {
    return (flags & O_ACCMODE) == O_WRONLY ? (flags & ~O_ACCMODE) | O_RDWR : flags;
}

static int remember_fd(int fd) {
    struct stat st;
    if (fstat(fd, &st) != 0) { int e = errno; close(fd); return -e; }
    if (fd >= MAX_FDS) { close(fd); return -EMFILE; }
    fd_node[fd] = (int)node_for(&st);
    return 0;
}

static int pc_create(const char *path, mode_t mode, struct fuse_file_info *fi) {
    OFF_OR("create");
    count.create++;
    char b[PATH_MAX];
    backing_path(b, path);
    int fd = open(b, readable(fi->flags) | O_CLOEXEC, mode);
    if (fd < 0) return -errno;
    int r = remember_fd(fd);
    if (r != 0) return r;
    fi->fh = (uint64_t)fd;
    fi->direct_io = 1;
    return 0;
}

static int pc_open(const char *path, struct fuse_file_info *fi) {
    OFF_OR("open");
    char b[PATH_MAX];
    backing_path(b, path);
    struct stat before;
    int had = lstat(b, &before) == 0;
    int fd = open(b, readable(fi->flags) | O_CLOEXEC);
    if (fd < 0) return -errno;
    int r = remember_fd(fd);
    if (r != 0) return r;
    if ((fi->flags & O_TRUNC) && had) mark_dirty((unsigned)fd_node[fd], 0, before.st_size);
    fi->fh = (uint64_t)fd;
    fi->direct_io = 1;
    return 0;
}

static int pc_read(const char *path, char *buf, size_t size, off_t offset, struct fuse_file_info *fi) {
    (void)path;
    OFF_OR("read");
    ssize_t n = pread((int)fi->fh, buf, size, offset);
    return n < 0 ? -errno : (int)n;
}

static int pc_write(const char *path, const char *buf, size_t size, off_t offset, struct fuse_file_info *fi) {
    (void)path;
    OFF_OR("write");
    count.write++;
    int fd = (int)fi->fh;
    if (fi->flags & O_APPEND) {
        struct stat st;
        if (fstat(fd, &st) == 0) offset = st.st_size;
    }
    if (disk_full) {
        struct stat st;
        if (fstat(fd, &st) != 0) return -errno;
        if (offset + (off_t)size > st.st_size) return -ENOSPC;
    }
    ssize_t n = pwrite(fd, buf, size, offset);
    if (n < 0) return -errno;
    mark_dirty((unsigned)fd_node[fd], offset, offset + n);
    return (int)n;
}

static int pc_truncate(const char *path, off_t size, struct fuse_file_info *fi) {
    OFF_OR("truncate");
    count.truncate++;
    struct stat st;
    int fd;
    if (fi) {
        fd = (int)fi->fh;
        if (fstat(fd, &st) != 0) return -errno;
        if (disk_full && size > st.st_size) return -ENOSPC;
        if (ftruncate(fd, size) != 0) return -errno;
        mark_dirty((unsigned)fd_node[fd], size < st.st_size ? size : st.st_size, size > st.st_size ? size : st.st_size);
        return 0;
    }
    char b[PATH_MAX];
    backing_path(b, path);
    if (lstat(b, &st) != 0) return -errno;
    if (disk_full && size > st.st_size) return -ENOSPC;
    if (truncate(b, size) != 0) return -errno;
    mark_dirty(node_for(&st), size < st.st_size ? size : st.st_size, size > st.st_size ? size : st.st_size);
    return 0;
}

static int pc_fallocate(const char *path, int mode, off_t offset, off_t length, struct fuse_file_info *fi) {
    (void)path;
    OFF_OR("fallocate");
    count.fallocate++;
    if (disk_full) return -ENOSPC;
    int fd = (int)fi->fh;
    if (fallocate(fd, mode, offset, length) != 0) return -errno;
    // Allocated, zeroed or punched: either way these bytes now differ from the durable copy.
    mark_dirty((unsigned)fd_node[fd], offset, offset + length);
    return 0;
}

static int pc_fsync(const char *path, int datasync, struct fuse_file_info *fi) {
    (void)path;
    OFF_OR(datasync ? "fdatasync" : "fsync");
    if (datasync) count.fdatasync++; else count.fsync++;
    slow_sync();
    if (datasync && forget_fdatasync) { count.forgotten_fdatasync++; return 0; }
    if (!datasync && forget_fsync) { count.forgotten_fsync++; return 0; }
    int fd = (int)fi->fh;
    make_file_durable((unsigned)fd_node[fd], fd);
    return 0;
}

static int pc_flush(const char *path, struct fuse_file_info *fi) { (void)path; (void)fi; return 0; }

static int pc_release(const char *path, struct fuse_file_info *fi) {
    (void)path;
    // Even after the cut: the descriptor must go, but nothing becomes durable by a close.
    close((int)fi->fh);
    return 0;
}

static int pc_statfs(const char *path, struct statvfs *st) {
    (void)path;
    OFF_OR("statfs");
    return statvfs(backing, st) == 0 ? 0 : -errno;
}

static const struct fuse_operations operations = {
    .init = pc_init,
    .getattr = pc_getattr,
    .access = pc_access,
    .opendir = pc_opendir,
    .readdir = pc_readdir,
    .releasedir = pc_releasedir,
    .fsyncdir = pc_fsyncdir,
    .mkdir = pc_mkdir,
    .rmdir = pc_rmdir,
    .unlink = pc_unlink,
    .rename = pc_rename,
    .link = pc_link,
    .symlink = pc_symlink,
    .chmod = pc_chmod,
    .chown = pc_chown,
    .utimens = pc_utimens,
    .create = pc_create,
    .open = pc_open,
    .read = pc_read,
    .write = pc_write,
    .truncate = pc_truncate,
    .fallocate = pc_fallocate,
    .fsync = pc_fsync,
    .flush = pc_flush,
    .release = pc_release,
    .statfs = pc_statfs,
    // No .flock/.lock: the kernel then keeps flock and POSIX locks itself, per mount,
    // which is all the daemon's StateDirectoryLock needs.
};

// ---- the power cut: rebuild BACKING from the durable state -------------------------

static long restored_files, restored_dirs, lost_dirty_files;
static long long lost_dirty_bytes;

static void rebuild(unsigned id, const char *path) {
    struct node *n = &nodes[id];
    if (mkdir(path, 0700) != 0) die("mkdir %s: %s", path, strerror(errno));
    restored_dirs++;
    for (size_t i = 0; i < n->nlisting; i++) {
        char child[PATH_MAX];
        snprintf(child, sizeof child, "%s/%s", path, n->listing[i].name);
        unsigned cid = n->listing[i].id;
        struct node *c = &nodes[cid];
        if (c->is_dir) {
            rebuild(cid, child);
            continue;
        }
        int out = open(child, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        if (out < 0) die("create %s: %s", child, strerror(errno));
        if (c->has_durable) {
            char s[PATH_MAX];
            shadow_path(s, cid);
            int in = open(s, O_RDONLY | O_CLOEXEC);
            if (in < 0) die("open %s: %s", s, strerror(errno));
            struct stat st;
            fstat(in, &st);
            copy_range(in, out, 0, st.st_size);
            if (ftruncate(out, st.st_size) != 0) die("ftruncate: %s", strerror(errno));
            close(in);
        }
        if (fchown(out, c->uid, c->gid) != 0 || fchmod(out, c->mode) != 0) die("chmod %s: %s", child, strerror(errno));
        close(out);
        restored_files++;
    }
    if (chown(path, n->uid, n->gid) != 0 || chmod(path, n->mode) != 0) die("chmod %s: %s", path, strerror(errno));
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
    (void)st; (void)flag; (void)ftw;
    if (remove(path) != 0) die("remove %s: %s", path, strerror(errno));
    return 0;
}

static void remove_tree(const char *path) {
    struct stat st;
    if (lstat(path, &st) != 0) return;
    nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

// --torn: the disk may have written back part of what was not synced before the power
// went. Each live file keeps a random prefix (in offset order) of its unsynced bytes,
// so a record or a file can end half written; each live directory keeps, with
// probability 3/10, all its unsynced entry changes (a rename that reached the disk
// without a directory fsync). Seeded, so a run can be replayed.
static long kept_files, kept_dirs;
static long long kept_bytes;

static void keep_prefix(unsigned id, int fd) {
    struct node *n = &nodes[id];
    long long total = 0;
    for (size_t r = 0; r < n->ndirty; r++) total += n->dirty[r].end - n->dirty[r].start;
    long long keep = total ? random() % (total + 1) : 0;
    if (keep == 0) return;
    char path[PATH_MAX];
    shadow_path(path, id);
    int out = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
    if (out < 0) die("open %s: %s", path, strerror(errno));
    if (!n->has_durable && ftruncate(out, 0) != 0) die("ftruncate: %s", strerror(errno));
    kept_files++;
    kept_bytes += keep;
    for (size_t r = 0; r < n->ndirty && keep > 0; r++) {
        off_t length = n->dirty[r].end - n->dirty[r].start;
        off_t take = length < keep ? length : keep;
        copy_range(fd, out, n->dirty[r].start, n->dirty[r].start + take);
        keep -= take;
    }
    close(out);
    n->has_durable = 1;
}

static void tear(int dfd) {
    struct stat st;
    if (fstat(dfd, &st) != 0) die("fstat: %s", strerror(errno));
    unsigned id = node_for(&st);
    if (random() % 10 < 3) {
        make_directory_durable(id, dfd);
        kept_dirs++;
    }
    int copy = dup(dfd);
    DIR *dir = copy < 0 ? NULL : fdopendir(copy);
    if (!dir) die("fdopendir: %s", strerror(errno));
    struct dirent *d;
    while ((d = readdir(dir))) {
        if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, "..")) continue;
        int fd = openat(dfd, d->d_name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0) die("open %s: %s", d->d_name, strerror(errno));
        if (fstat(fd, &st) != 0) die("fstat: %s", strerror(errno));
        if (S_ISDIR(st.st_mode)) tear(fd);
        else if (S_ISREG(st.st_mode) && nodes[node_for(&st)].ndirty) keep_prefix(node_for(&st), fd);
        close(fd);
    }
    closedir(dir);
}

static void power_cut(void) {
    for (size_t i = 0; i < nnodes; i++) {
        if (nodes[i].live && !nodes[i].is_dir && nodes[i].ndirty) {
            lost_dirty_files++;
            for (size_t r = 0; r < nodes[i].ndirty; r++) lost_dirty_bytes += nodes[i].dirty[r].end - nodes[i].dirty[r].start;
        }
    }
    if (torn) {
        int dfd = open(backing, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd < 0) die("open %s: %s", backing, strerror(errno));
        tear(dfd);
        close(dfd);
    }
    char rebuilt[PATH_MAX + 8], old[PATH_MAX + 8];
    snprintf(rebuilt, sizeof rebuilt, "%s.cut", backing);
    snprintf(old, sizeof old, "%s.old", backing);
    remove_tree(rebuilt);
    remove_tree(old);
    rebuild(root_id, rebuilt);
    if (rename(backing, old) != 0) die("rename %s: %s", backing, strerror(errno));
    if (rename(rebuilt, backing) != 0) die("rename %s: %s", rebuilt, strerror(errno));
    remove_tree(old);
}

static void write_stats(void) {
    FILE *out = stats_path ? fopen(stats_path, "w") : stderr;
    if (!out) die("open %s: %s", stats_path, strerror(errno));
    fprintf(out,
            "write=%ld fsync=%ld fdatasync=%ld fsyncdir=%ld rename=%ld unlink=%ld create=%ld mkdir=%ld rmdir=%ld "
            "truncate=%ld fallocate=%ld forgotten_fsync=%ld forgotten_fdatasync=%ld forgotten_fsyncdir=%ld killed=%d "
            "lost_dirty_files=%ld lost_dirty_bytes=%lld restored_files=%ld restored_dirs=%ld "
            "kept_files=%ld kept_bytes=%lld kept_dirs=%ld\n",
            count.write, count.fsync, count.fdatasync, count.fsyncdir, count.rename, count.unlink, count.create,
            count.mkdir, count.rmdir, count.truncate, count.fallocate, count.forgotten_fsync, count.forgotten_fdatasync,
            count.forgotten_fsyncdir, dead, lost_dirty_files, lost_dirty_bytes, restored_files, restored_dirs,
            kept_files, kept_bytes, kept_dirs);
    if (out != stderr) fclose(out);
}

static void usage(void) {
    fprintf(stderr, "usage: powercut-fs [--forget-fdatasync|--forget-fsync|--forget-dirsync|--forget-dirsync-of DIR] "
                    "[--torn SEED] [--sync-delay-ms N] [--full] "
                    "[--control FILE] [--stats FILE] "
                    "BACKING SHADOW MOUNTPOINT\n");
    exit(64);
}

int main(int argc, char **argv) {
    int i = 1;
    for (; i < argc && !strncmp(argv[i], "--", 2); i++) {
        if (!strcmp(argv[i], "--forget-fdatasync")) forget_fdatasync = 1;
        else if (!strcmp(argv[i], "--forget-fsync")) forget_fsync = 1;
        else if (!strcmp(argv[i], "--forget-dirsync")) forget_dirsync = 1;
        else if (!strcmp(argv[i], "--forget-dirsync-of") && i + 1 < argc) forget_dirsync_of = argv[++i];
        else if (!strcmp(argv[i], "--control") && i + 1 < argc) control_path = argv[++i];
        else if (!strcmp(argv[i], "--stats") && i + 1 < argc) stats_path = argv[++i];
        else if (!strcmp(argv[i], "--sync-delay-ms") && i + 1 < argc) sync_delay_ms = strtol(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--full")) disk_full = 1;
        else if (!strcmp(argv[i], "--torn") && i + 1 < argc) { torn = 1; srandom((unsigned)strtoul(argv[++i], NULL, 10)); }
        else usage();
    }
    if (argc - i != 3) usage();
    if ((control_path && control_path[0] != '/') || (stats_path && stats_path[0] != '/'))
        die("--control and --stats take absolute paths (the mount runs in /)");

    if (!realpath(argv[i], backing)) die("%s: %s", argv[i], strerror(errno));
    if (!realpath(argv[i + 1], shadow)) die("%s: %s", argv[i + 1], strerror(errno));
    const char *mountpoint = argv[i + 2];

    struct stat st;
    if (lstat(backing, &st) != 0) die("%s: %s", backing, strerror(errno));
    root_id = node_for(&st);
    adopt(backing);

    struct sigaction sa = {.sa_handler = on_sigusr1, .sa_flags = SA_RESTART};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGUSR1, &sa, NULL);
    struct sigaction full = {.sa_handler = on_sigusr2, .sa_flags = SA_RESTART};
    sigemptyset(&full.sa_mask);
    sigaction(SIGUSR2, &full, NULL);

    // Foreground, single-threaded; the daemon runs as root, so no allow_other.
    char *fuse_argv[] = {argv[0], "-f", "-s", "-o", "fsname=powercut,subtype=powercut", (char *)mountpoint, NULL};
    int result = fuse_main(6, fuse_argv, &operations, NULL);
    power_cut();
    write_stats();
    return result;
}
