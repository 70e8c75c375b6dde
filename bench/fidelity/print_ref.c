/* The reference for workload.print (seed S0.print's fork.c / thread.c, with the terminal
 * replaced by a pipe the parent drains): P workers each write COUNT lines, one write(2) per line.
 * One warm-up batch, then 5 timed ones (as concbench repeats batches in one process).
 * Usage: print_ref process|thread P COUNT LINE_BYTES  -> prints the median seconds per batch. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int out_fd;
static long count;
static char line[4096];
static size_t line_len;

static void write_lines(void) {
    for (long i = 0; i < count; i++)
        if (write(out_fd, line, line_len) != (ssize_t)line_len) { perror("write"); _exit(1); }
}

static void *thread_body(void *arg) { (void)arg; write_lines(); return NULL; }

static int threads;
static long workers;

static double batch(void) {
    int fds[2];
    if (pipe(fds) != 0) { perror("pipe"); exit(1); }
    out_fd = fds[1];
    pthread_t *tids = calloc((size_t)workers, sizeof *tids);
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    for (long i = 0; i < workers; i++) {
        if (threads) {
            if (pthread_create(&tids[i], NULL, thread_body, NULL) != 0) { perror("pthread_create"); exit(1); }
        } else {
            pid_t c = fork();
            if (c == 0) { write_lines(); _exit(0); }
            if (c < 0) { perror("fork"); exit(1); }
        }
    }
    long long want = (long long)workers * count * (long long)line_len, got = 0;
    static char buf[65536];
    while (got < want) {
        ssize_t n = read(fds[0], buf, sizeof buf);
        if (n <= 0) { perror("read"); exit(1); }
        got += n;
    }
    for (long i = 0; i < workers; i++) {
        if (threads) pthread_join(tids[i], NULL);
        else if (wait(NULL) < 0) { perror("wait"); exit(1); }
    }
    clock_gettime(CLOCK_MONOTONIC, &b);
    close(fds[0]);
    close(fds[1]);
    free(tids);
    return (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9;
}

static int by_value(const void *x, const void *y) {
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

int main(int argc, char **argv) {
    if (argc != 5) { fprintf(stderr, "usage: print_ref process|thread P COUNT LINE_BYTES\n"); return 2; }
    threads = strcmp(argv[1], "thread") == 0;
    workers = atol(argv[2]);
    count = atol(argv[3]);
    line_len = (size_t)atol(argv[4]);
    for (size_t i = 0; i + 1 < line_len; i++) line[i] = "hello linux "[i % 12];
    line[line_len - 1] = '\n';
    double t[5];
    batch();
    for (int i = 0; i < 5; i++) t[i] = batch();
    qsort(t, 5, sizeof t[0], by_value);
    printf("%.6f\n", t[2]);
    return 0;
}
