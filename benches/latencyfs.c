/* latencyfs: a FUSE passthrough of a source directory that holds every
 * request for a fixed delay before answering it, to measure directory walkers on a
 * filesystem where every operation is a round trip (NFS, sshfs, cloud buckets under
 * FUSE). Used by `benchmark.py --latency-fs` (pfind_bench/latency_fs.py), which
 * builds it with gcc and mounts it afresh for every timed run, so the kernel's
 * dentry and attribute caches start empty: every lookup, opendir and readdir the
 * walk makes reaches this process and waits.
 *
 * Requests are served concurrently, as an NFS server does: libfuse's multi-threaded
 * loop starts a thread per request in flight, and the delay is a sleep, so a
 * thousand requests in flight cost a thousand sleeping threads and no CPU. The
 * kernel takes a directory's lock around lookup and readdir unless the filesystem
 * asks for parallel directory operations, which libfuse 3.14 (Debian 12) does not
 * ask for by default; `init` does, or every directory would be one request at a
 * time. libfuse 3.14 does not pass that request on to the kernel (its INIT reply
 * leaves FUSE_PARALLEL_DIROPS out whatever `want` says; lookups of one directory
 * then queued on the kernel's per-directory mutex, one in flight), so `writev`
 * below, which libfuse's reply goes through, sets the flag in the INIT reply itself
 * when the kernel offered it.
 *
 * Each kernel READDIR request is one call of `lat_readdir` (entries carry their
 * directory offsets), so a directory listing costs opendir, one readdir per
 * buffer-full, the empty readdir that ends it and releasedir: as many round trips
 * as the kernel asks for.
 *
 * A cap on the requests held at once (-m) stands in for a network client's
 * slots for requests in flight (Lustre's per-client RPC slots, NFS's session
 * slots): a request beyond the cap waits for a slot before its delay starts, so
 * that a mount answers at most cap / delay requests a second however many
 * threads a walker runs, and only more mounts (more clients) go faster. That is
 * what `benchmark.py --cluster` measures pfind-mpi with.
 *
 * -s stands in for servers whose cookies are not their source's (issue 47): each
 * open takes a snapshot of the directory and numbers its entries, as libfuse's
 * "fill" mode does for bindfs, sshfs, fuse2fs and most fusepy filesystems
 * (`snapshot`: entry i's cookie is i + 1, so every open re-reads the whole
 * directory, and a cookie names another entry once anything before it changed);
 * `partial` numbers them so that the cookies are exact (any open seeks to any
 * of them) but ascend for the first half of the listing only, the second half
 * taking the low numbers.
 *
 * It is read-only unless -w, which passes mkdir and rmdir on as well: what
 * `pfind --index` needs of a network filesystem to test that it keeps its
 * directories' times (src/index/probe.rs); the rest of a tree's changes are made
 * in SOURCE itself, as another client of a server makes them.
 *
 * Usage: latencyfs [-d MICROSECONDS] [-m MAX_IN_FLIGHT] [-c COUNTFILE] [-u] [-w]
 *                  [-a SECONDS] [-s snapshot|partial] [-o OPENSFILE] SOURCE MOUNTPOINT
 *   -d  the delay of every request (default 1000)
 *   -m  at most this many requests held at once (default: no cap)
 *   -c  written at unmount: the number of requests served and the most held
 *       at once, on one line
 *   -u  readdir gives no file types (DT_UNKNOWN), as some network filesystems do
 *   -s  number each open's snapshot of a directory (see above)
 *   -o  written at unmount: the number of opendir requests served
 *   -w  mounted read-write, with mkdir and rmdir passed on
 *   -a  how long the kernel keeps entries and attributes it was given (default
 *       60 s; 0: every lookup and stat reaches the server)
 * It runs in the foreground until unmounted (fusermount3 -u MOUNTPOINT).
 */
#define FUSE_USE_VERSION 31
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fuse.h>
#include <semaphore.h>
#include <linux/fuse.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

static int source_fd = -1;
static long delay_us = 1000;
static const char *count_file;
static int no_types;
/* -a: how long the kernel may keep entries and attributes (seconds). */
static double cache_seconds = 60;
/* -s: 0 passes the source's cookies on; otherwise each open's snapshot is
 * numbered, SNAPSHOT in order, PARTIAL ascending for the first half only. */
enum { PASSTHROUGH, SNAPSHOT, PARTIAL };
static int numbering = PASSTHROUGH;
static const char *opens_file;
static atomic_ulong requests, opendirs;
/* Requests being held now, and the most held at once. */
static atomic_long in_flight, peak_in_flight;
/* -m: the slots a request takes for its delay, when capped. */
static sem_t slots;
static int capped;
/* Set by init when the kernel offers parallel directory operations; cleared once
 * the INIT reply carried the flag. */
static atomic_int parallel_dirops_pending;

/* Every operation starts here: one more request, held for the delay. */
static void hold(void) {
    atomic_fetch_add_explicit(&requests, 1, memory_order_relaxed);
    if (delay_us <= 0)
        return;
    if (capped) {
        while (sem_wait(&slots) != 0 && errno == EINTR) {
        }
    }
    long now = atomic_fetch_add(&in_flight, 1) + 1;
    long peak = atomic_load(&peak_in_flight);
    while (now > peak && !atomic_compare_exchange_weak(&peak_in_flight, &peak, now)) {
    }
    struct timespec t = {delay_us / 1000000, (delay_us % 1000000) * 1000};
    while (nanosleep(&t, &t) != 0 && errno == EINTR) {
    }
    atomic_fetch_sub(&in_flight, 1);
    if (capped)
        sem_post(&slots);
}

/* The source-relative name of a FUSE path: "/" is the source itself. */
static const char *relative(const char *path) {
    return path[1] == '\0' ? "." : path + 1;
}

/* libfuse sends every reply with writev; this one, linked into the program,
 * takes the place of libc's for libfuse (the program exports it, see
 * pfind_bench/latency_fs.py) and adds FUSE_PARALLEL_DIROPS to the INIT reply,
 * the first reply of the session. */
ssize_t writev(int fd, const struct iovec *iov, int count) {
    if (atomic_load(&parallel_dirops_pending) && count >= 2 &&
        iov[0].iov_len == sizeof(struct fuse_out_header) &&
        iov[1].iov_len >= offsetof(struct fuse_init_out, max_background)) {
        const struct fuse_out_header *head = iov[0].iov_base;
        struct fuse_init_out *init = iov[1].iov_base;
        if (head->error == 0 && init->major == FUSE_KERNEL_VERSION) {
            init->flags |= FUSE_PARALLEL_DIROPS;
            atomic_store(&parallel_dirops_pending, 0);
        }
    }
    return syscall(SYS_writev, fd, iov, count);
}

static void *lat_init(struct fuse_conn_info *conn, struct fuse_config *cfg) {
    conn->want |= conn->capable & FUSE_CAP_PARALLEL_DIROPS;
    if (conn->capable & FUSE_CAP_PARALLEL_DIROPS)
        atomic_store(&parallel_dirops_pending, 1);
    cfg->use_ino = 1;
    /* One mount per run: caching within it is what a client does anyway. */
    cfg->entry_timeout = cache_seconds;
    cfg->attr_timeout = cache_seconds;
    cfg->negative_timeout = cache_seconds;
    return NULL;
}

static void lat_destroy(void *private_data) {
    (void)private_data;
    if (opens_file) {
        FILE *out = fopen(opens_file, "w");
        if (out) {
            fprintf(out, "%lu\n", atomic_load(&opendirs));
            fclose(out);
        }
    }
    if (!count_file)
        return;
    FILE *out = fopen(count_file, "w");
    if (out) {
        fprintf(out, "%lu %ld\n", atomic_load(&requests), atomic_load(&peak_in_flight));
        fclose(out);
    }
}

static int lat_getattr(const char *path, struct stat *st, struct fuse_file_info *fi) {
    (void)fi;
    hold();
    if (fstatat(source_fd, relative(path), st, AT_SYMLINK_NOFOLLOW) != 0)
        return -errno;
    return 0;
}

static int lat_readlink(const char *path, char *buf, size_t size) {
    hold();
    ssize_t n = readlinkat(source_fd, relative(path), buf, size - 1);
    if (n < 0)
        return -errno;
    buf[n] = '\0';
    return 0;
}

/* An open directory: the source's stream, or (-s) the snapshot taken at open. */
struct snapshot_entry {
    char *name;
    ino_t ino;
    unsigned char type;
};
struct open_dir {
    DIR *dir;
    struct snapshot_entry *entries;
    size_t count;
};

static int take_snapshot(struct open_dir *open_dir) {
    size_t room = 0;
    for (;;) {
        errno = 0;
        struct dirent *entry = readdir(open_dir->dir);
        if (!entry)
            return errno ? -errno : 0;
        if (open_dir->count == room) {
            room = room ? room * 2 : 256;
            void *grown = realloc(open_dir->entries, room * sizeof *open_dir->entries);
            if (!grown)
                return -ENOMEM;
            open_dir->entries = grown;
        }
        struct snapshot_entry *kept = &open_dir->entries[open_dir->count++];
        kept->name = strdup(entry->d_name);
        kept->ino = entry->d_ino;
        kept->type = entry->d_type;
        if (!kept->name)
            return -ENOMEM;
    }
}

static int lat_opendir(const char *path, struct fuse_file_info *fi) {
    hold();
    atomic_fetch_add_explicit(&opendirs, 1, memory_order_relaxed);
    int fd = openat(source_fd, relative(path), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    struct open_dir *open_dir = calloc(1, sizeof *open_dir);
    if (!open_dir) {
        close(fd);
        return -ENOMEM;
    }
    open_dir->dir = fdopendir(fd);
    if (!open_dir->dir) {
        int err = errno;
        close(fd);
        free(open_dir);
        return -err;
    }
    if (numbering != PASSTHROUGH) {
        int err = take_snapshot(open_dir);
        if (err) {
            closedir(open_dir->dir);
            free(open_dir);
            return err;
        }
    }
    fi->fh = (uint64_t)(uintptr_t)open_dir;
    return 0;
}

/* -s: the cookie of the position before entry `index` of a snapshot of `count`
 * (1 .. count, 0 being the start), and back. PARTIAL gives the first half the
 * high numbers and the second half the low ones: exact, ascending in parts. */
static off_t cookie_of(size_t index, size_t count) {
    if (numbering == SNAPSHOT || index == 0)
        return (off_t)index;
    size_t half = count / 2;
    return (off_t)(index <= half ? index + (count - half) : index - half);
}

static size_t index_of(off_t cookie, size_t count) {
    if (numbering == SNAPSHOT || cookie <= 0)
        return (size_t)(cookie < 0 ? 0 : cookie);
    size_t half = count / 2, at = (size_t)cookie;
    if (at > count)
        return count;
    return at > count - half ? at - (count - half) : at + half;
}

static int snapshot_readdir(struct open_dir *open_dir, void *buf, fuse_fill_dir_t fill,
                            off_t offset) {
    size_t count = open_dir->count;
    for (size_t index = index_of(offset, count); index < count; index++) {
        struct snapshot_entry *entry = &open_dir->entries[index];
        struct stat st;
        memset(&st, 0, sizeof st);
        st.st_ino = entry->ino;
        if (!no_types)
            st.st_mode = (mode_t)DTTOIF(entry->type);
        /* The cookie after the last entry ends the listing. */
        off_t next = index + 1 == count ? (off_t)count + 1 : cookie_of(index + 1, count);
        if (fill(buf, entry->name, &st, next, 0))
            return 0;
    }
    return 0;
}

static int lat_readdir(const char *path, void *buf, fuse_fill_dir_t fill, off_t offset,
                       struct fuse_file_info *fi, enum fuse_readdir_flags flags) {
    (void)path;
    (void)flags;
    hold();
    struct open_dir *open_dir = (struct open_dir *)(uintptr_t)fi->fh;
    if (numbering != PASSTHROUGH)
        return snapshot_readdir(open_dir, buf, fill, offset);
    DIR *dir = open_dir->dir;
    if (offset != telldir(dir))
        seekdir(dir, offset);
    for (;;) {
        errno = 0;
        struct dirent *entry = readdir(dir);
        if (!entry)
            return errno ? -errno : 0;
        struct stat st;
        memset(&st, 0, sizeof st);
        st.st_ino = entry->d_ino;
        if (!no_types)
            st.st_mode = (mode_t)DTTOIF(entry->d_type);
        off_t next = telldir(dir);
        if (fill(buf, entry->d_name, &st, next, 0)) {
            /* The buffer is full: this entry is the next request's first. */
            seekdir(dir, offset);
            return 0;
        }
        offset = next;
    }
}

static int lat_releasedir(const char *path, struct fuse_file_info *fi) {
    (void)path;
    hold();
    struct open_dir *open_dir = (struct open_dir *)(uintptr_t)fi->fh;
    for (size_t index = 0; index < open_dir->count; index++)
        free(open_dir->entries[index].name);
    free(open_dir->entries);
    closedir(open_dir->dir);
    free(open_dir);
    return 0;
}

static int lat_open(const char *path, struct fuse_file_info *fi) {
    hold();
    int fd = openat(source_fd, relative(path), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    fi->fh = (uint64_t)fd;
    return 0;
}

static int lat_read(const char *path, char *buf, size_t size, off_t offset,
                    struct fuse_file_info *fi) {
    (void)path;
    hold();
    ssize_t n = pread((int)fi->fh, buf, size, offset);
    return n < 0 ? -errno : (int)n;
}

static int lat_release(const char *path, struct fuse_file_info *fi) {
    (void)path;
    hold();
    close((int)fi->fh);
    return 0;
}

static int lat_mkdir(const char *path, mode_t mode) {
    hold();
    return mkdirat(source_fd, relative(path), mode) == 0 ? 0 : -errno;
}

static int lat_rmdir(const char *path) {
    hold();
    return unlinkat(source_fd, relative(path), AT_REMOVEDIR) == 0 ? 0 : -errno;
}

static struct fuse_operations operations = {
    .init = lat_init,
    .destroy = lat_destroy,
    .getattr = lat_getattr,
    .readlink = lat_readlink,
    .opendir = lat_opendir,
    .readdir = lat_readdir,
    .releasedir = lat_releasedir,
    .open = lat_open,
    .read = lat_read,
    .release = lat_release,
};

static int usage(const char *argv0) {
    fprintf(stderr,
            "usage: %s [-d MICROSECONDS] [-m MAX_IN_FLIGHT] [-c COUNTFILE] [-u] [-w] [-a SECONDS] "
            "[-s snapshot|partial] [-o OPENSFILE] SOURCE MOUNTPOINT\n",
            argv0);
    return 2;
}

int main(int argc, char **argv) {
    int opt;
    long cap = 0;
    int writable = 0;
    while ((opt = getopt(argc, argv, "d:m:c:uwa:s:o:")) != -1) {
        switch (opt) {
        case 'd':
            delay_us = atol(optarg);
            break;
        case 'm':
            cap = atol(optarg);
            if (cap <= 0)
                return usage(argv[0]);
            break;
        case 'c':
            count_file = optarg;
            break;
        case 'u':
            no_types = 1;
            break;
        case 'w':
            writable = 1;
            break;
        case 'a':
            cache_seconds = atof(optarg);
            if (cache_seconds < 0)
                return usage(argv[0]);
            break;
        case 's':
            if (strcmp(optarg, "snapshot") == 0)
                numbering = SNAPSHOT;
            else if (strcmp(optarg, "partial") == 0)
                numbering = PARTIAL;
            else
                return usage(argv[0]);
            break;
        case 'o':
            opens_file = optarg;
            break;
        default:
            return usage(argv[0]);
        }
    }
    if (argc - optind != 2)
        return usage(argv[0]);
    if (cap > 0) {
        if (sem_init(&slots, 0, (unsigned)cap) != 0) {
            perror("sem_init");
            return 1;
        }
        capped = 1;
    }
    source_fd = open(argv[optind], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (source_fd < 0) {
        perror(argv[optind]);
        return 1;
    }
    if (writable) {
        operations.mkdir = lat_mkdir;
        operations.rmdir = lat_rmdir;
    }
    /* Foreground, multi-threaded, read-only unless -w. libfuse 3.14 serves at most 10
     * requests at a time and ends idle threads beyond 10 unless told otherwise:
     * a server of many clients keeps far more in flight. */
    char *fuse_argv[] = {argv[0], "-f", "-o",
                         writable ? "rw,fsname=latencyfs,subtype=latencyfs,max_threads=4096,"
                                    "max_idle_threads=4096"
                                  : "ro,fsname=latencyfs,subtype=latencyfs,max_threads=4096,"
                                    "max_idle_threads=4096",
                         argv[optind + 1], NULL};
    return fuse_main(5, fuse_argv, &operations, NULL);
}
