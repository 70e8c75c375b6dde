/* The reference for io.read model=threads: one pthread per file, released together, each
 * read(2)s its file to the end in 4 KiB calls; the time runs from the release to the last
 * reader's end. The files' pages are dropped (POSIX_FADV_DONTNEED) before, untimed.
 * Usage: read_ref FILE...  -> prints MiB/s. */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static pthread_barrier_t start;
static long long total;

static void *reader(void *arg) {
    int fd = *(int *)arg;
    static __thread char buf[4096];
    long long n = 0;
    ssize_t got;
    pthread_barrier_wait(&start);
    while ((got = read(fd, buf, sizeof buf)) > 0) n += got;
    if (got < 0) { perror("read"); exit(1); }
    __atomic_add_fetch(&total, n, __ATOMIC_RELAXED);
    return NULL;
}

int main(int argc, char **argv) {
    int files = argc - 1;
    if (files < 1) { fprintf(stderr, "usage: read_ref FILE...\n"); return 2; }
    int *fds = calloc(files, sizeof *fds);
    pthread_t *threads = calloc(files, sizeof *threads);
    for (int i = 0; i < files; i++) {
        if ((fds[i] = open(argv[i + 1], O_RDONLY)) < 0) { perror(argv[i + 1]); return 1; }
        posix_fadvise(fds[i], 0, 0, POSIX_FADV_DONTNEED);
    }
    pthread_barrier_init(&start, NULL, files + 1);
    for (int i = 0; i < files; i++) pthread_create(&threads[i], NULL, reader, &fds[i]);
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    pthread_barrier_wait(&start);
    for (int i = 0; i < files; i++) pthread_join(threads[i], NULL);
    clock_gettime(CLOCK_MONOTONIC, &b);
    double s = (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9;
    printf("%.1f\n", total / 1048576.0 / s);
    return 0;
}
