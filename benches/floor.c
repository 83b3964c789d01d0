/*
 * floor: the least work a directory walk can do on Linux. It is the measuring
 * stick of pfind's benchmark harness (benchmark.py builds it and times pfind
 * against it), not a tool.
 *
 *     floor [-j N] [-p] ROOT
 *
 * prints how many regular files there are under the directory ROOT, or with -p
 * their paths, one a line, exactly as `find ROOT -type f` names them (in another
 * order). -j N walks with N threads (default 1).
 *
 * Per directory it does what every walker must and nothing more: openat()
 * relative to the parent directory's descriptor, getdents64() into a 64 KiB
 * buffer until the directory is exhausted, close(). An entry's type is its
 * d_type: nothing is ever stat()ed, so a filesystem that leaves d_type unknown
 * (DT_UNKNOWN) is not walked correctly. With -p each thread gathers lines in a
 * 256 KiB buffer and writes it whole.
 *
 * What a measuring stick leaves out: filters and every other option, order,
 * symbolic links (never followed; ROOT itself only with a trailing slash, as
 * find does), and error reporting. A directory that cannot be opened or read is
 * passed over in silence (find would say so on stderr); the exit status is 0,
 * or 2 for a wrong command line.
 *
 * The threads share one stack of directories waiting to be read, under one
 * mutex, taken once to pop a directory and once per 64 KiB of entries to push
 * its subdirectories. A directory's descriptor stays open until it has been
 * read and every subdirectory found in it has been opened relative to it.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

enum {
    DIRENT_BUFFER = 64 * 1024,  /* one getdents64 call's worth of entries */
    OUTPUT_BUFFER = 256 * 1024, /* one thread's lines between two writes */
};

/* One getdents64 record, as the kernel lays it out. */
struct linux_dirent64 {
    unsigned long long d_ino;
    long long d_off;
    unsigned short d_reclen;
    unsigned char d_type;
    char d_name[];
};

/* A directory found, waiting on the stack, being read, or holding its
 * descriptor for subdirectories not opened yet. */
struct dir {
    struct dir *parent; /* opened relative to its descriptor; NULL for ROOT */
    struct dir *below;  /* the next directory down the stack */
    int fd;             /* -1 until opened, and if it could not be */
    atomic_int holds;   /* 1 while unread or being read, +1 per subdirectory not opened yet */
    int slash;          /* whether a '/' goes between path and a child's name (not after "dir/") */
    size_t len;         /* strlen(path) */
    size_t name_at;     /* path + name_at is its own name, the tail of path */
    char path[];        /* as find prints it: ROOT, then "/name" per level */
};

/* The directories to read, and how many are pushed but not finished reading:
 * the walk is over when that count reaches 0. */
static struct {
    pthread_mutex_t lock;
    pthread_cond_t wake;
    struct dir *top;
    size_t unfinished;
} stack = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, NULL, 0};

/* Output lines from the threads' buffers must not interleave. */
static pthread_mutex_t output_lock = PTHREAD_MUTEX_INITIALIZER;
static int print_paths;

/* One thread's counter and output buffer. */
struct walker {
    pthread_t thread;
    unsigned long long files;
    size_t used;
    char *out;
};

static struct dir *new_dir(struct dir *parent, const char *name, size_t name_len) {
    size_t prefix = parent ? parent->len + (size_t)parent->slash : 0;
    struct dir *d = malloc(sizeof *d + prefix + name_len + 1);
    if (!d) abort(); /* out of memory: no count would be right */
    d->parent = parent;
    d->fd = -1;
    atomic_init(&d->holds, 1);
    d->slash = 1;
    d->len = prefix + name_len;
    d->name_at = prefix;
    if (parent) {
        memcpy(d->path, parent->path, parent->len);
        if (parent->slash) d->path[parent->len] = '/';
    }
    memcpy(d->path + prefix, name, name_len);
    d->path[d->len] = '\0';
    return d;
}

/* Drops one hold; the last closes the descriptor and frees the directory. */
static void release(struct dir *d) {
    if (atomic_fetch_sub_explicit(&d->holds, 1, memory_order_acq_rel) == 1) {
        if (d->fd >= 0) close(d->fd);
        free(d);
    }
}

/* Pushes the chain first..last (n directories, linked through `below`), and
 * with `finished` counts the directory just read as done: one lock for both. */
static void settle(struct dir *first, struct dir *last, size_t n, int finished) {
    pthread_mutex_lock(&stack.lock);
    if (n) {
        last->below = stack.top;
        stack.top = first;
    }
    stack.unfinished += n;
    stack.unfinished -= (size_t)finished;
    if (stack.unfinished == 0 || n > 1)
        pthread_cond_broadcast(&stack.wake);
    else if (n == 1)
        pthread_cond_signal(&stack.wake);
    pthread_mutex_unlock(&stack.lock);
}

/* The next directory to read, or NULL once the walk is over. */
static struct dir *pop(void) {
    pthread_mutex_lock(&stack.lock);
    while (!stack.top && stack.unfinished > 0) pthread_cond_wait(&stack.wake, &stack.lock);
    struct dir *d = stack.top;
    if (d) stack.top = d->below;
    pthread_mutex_unlock(&stack.lock);
    return d;
}

static void write_all(const char *p, size_t n) {
    while (n > 0) {
        ssize_t w = write(STDOUT_FILENO, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return; /* nowhere to write: nothing to report it to */
        p += w;
        n -= (size_t)w;
    }
}

static void flush(struct walker *w) {
    if (!w->used) return;
    pthread_mutex_lock(&output_lock);
    write_all(w->out, w->used);
    pthread_mutex_unlock(&output_lock);
    w->used = 0;
}

/* Adds the line "DIR/NAME\n" to the thread's buffer. */
static void print_file(struct walker *w, const struct dir *d, const char *name, size_t name_len) {
    size_t line = d->len + (size_t)d->slash + name_len + 1;
    if (w->used + line > OUTPUT_BUFFER) flush(w);
    if (line > OUTPUT_BUFFER) { /* a path longer than the buffer: written in pieces, still whole */
        pthread_mutex_lock(&output_lock);
        write_all(d->path, d->len);
        write_all("/", (size_t)d->slash);
        write_all(name, name_len);
        write_all("\n", 1);
        pthread_mutex_unlock(&output_lock);
        return;
    }
    char *p = w->out + w->used;
    memcpy(p, d->path, d->len);
    p += d->len;
    if (d->slash) *p++ = '/';
    memcpy(p, name, name_len);
    p[name_len] = '\n';
    w->used += line;
}

/* Opens d, lists it, counts (or prints) its regular files and pushes its
 * subdirectories. */
static void read_dir(struct walker *w, struct dir *d, char *entries) {
    if (d->parent) {
        d->fd = openat(d->parent->fd, d->path + d->name_at, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        release(d->parent);
    } else { /* ROOT, from the working directory; a symlink only as "link/" (find -P) */
        d->fd = open(d->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
    }
    long got;
    while (d->fd >= 0 && (got = syscall(SYS_getdents64, d->fd, entries, DIRENT_BUFFER)) > 0) {
        struct dir *first = NULL, *last = NULL;
        size_t found = 0;
        for (long at = 0; at < got;) {
            struct linux_dirent64 *e = (struct linux_dirent64 *)(entries + at);
            at += e->d_reclen;
            const char *name = e->d_name;
            if (e->d_type == DT_REG) {
                w->files++;
                if (print_paths) print_file(w, d, name, strlen(name));
            } else if (e->d_type == DT_DIR && !(name[0] == '.' && (!name[1] || (name[1] == '.' && !name[2])))) {
                struct dir *sub = new_dir(d, name, strlen(name));
                atomic_fetch_add_explicit(&d->holds, 1, memory_order_relaxed);
                sub->below = first;
                first = sub;
                if (!last) last = sub;
                found++;
            }
        }
        if (found) settle(first, last, found, 0);
    }
    settle(NULL, NULL, 0, 1);
    release(d);
}

static void *walk(void *arg) {
    struct walker *w = arg;
    char *entries = malloc(DIRENT_BUFFER);
    w->out = print_paths ? malloc(OUTPUT_BUFFER) : NULL;
    if (!entries || (print_paths && !w->out)) abort();
    for (struct dir *d; (d = pop());) read_dir(w, d, entries);
    if (print_paths) flush(w);
    free(entries);
    free(w->out);
    return NULL;
}

/* Every directory on the way down holds a descriptor while a subdirectory of it
 * waits on the stack, so a deep tree wants more than the usual soft limit. */
static void raise_descriptor_limit(void) {
    struct rlimit l;
    if (getrlimit(RLIMIT_NOFILE, &l) == 0 && l.rlim_cur < l.rlim_max) {
        l.rlim_cur = l.rlim_max;
        setrlimit(RLIMIT_NOFILE, &l);
    }
}

static int usage(void) {
    fputs("usage: floor [-j N] [-p] ROOT\n", stderr);
    return 2;
}

int main(int argc, char **argv) {
    long threads = 1;
    for (int opt; (opt = getopt(argc, argv, "j:p")) != -1;) {
        char *end;
        if (opt == 'p') {
            print_paths = 1;
        } else if (opt == 'j') {
            threads = strtol(optarg, &end, 10);
            if (*optarg == '\0' || *end != '\0' || threads < 1 || threads > 4096) return usage();
        } else {
            return usage();
        }
    }
    if (optind != argc - 1) return usage();
    raise_descriptor_limit();

    const char *root = argv[optind];
    struct dir *top = new_dir(NULL, root, strlen(root));
    top->slash = top->len == 0 || root[top->len - 1] != '/'; /* find prints "dir/" + name, not "dir//" + name */
    settle(top, top, 1, 0);

    struct walker *walkers = calloc((size_t)threads, sizeof *walkers);
    if (!walkers) abort();
    long started = 1; /* this thread is the first walker */
    while (started < threads && pthread_create(&walkers[started].thread, NULL, walk, &walkers[started]) == 0) started++;
    walk(&walkers[0]);
    unsigned long long files = walkers[0].files;
    for (long i = 1; i < started; i++) {
        pthread_join(walkers[i].thread, NULL);
        files += walkers[i].files;
    }
    free(walkers);
    if (!print_paths) printf("%llu\n", files);
    return 0;
}
