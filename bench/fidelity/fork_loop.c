/* The reference for create.fork: fork, child _exit(0), parent waitpid — nothing else.
 *
 * Usage: fork_loop N [ANON_KIB [VMAS [SAMPLES]]]
 *   -> prints "NS ANON_KIB PTE_KIB VMAS": nanoseconds per fork+exit+wait, then the shape the
 *      loop forked from (RssAnon and VmPTE from /proc/self/status, lines of /proc/self/maps).
 *
 * NS is the mean over the N forks; with SAMPLES it is the statistic concbench reports instead:
 * one untimed warm-up sample, then SAMPLES samples of N / SAMPLES forks each, and the median of
 * the samples' means. A fork's time is skewed (now and then one is several times slower), so a
 * median of sample means sits below the mean of all forks; comparing concbench's median with a
 * plain mean would credit the method with the statistic's difference.
 *
 * A fork copies the page-table entries of every private page the parent dirtied, so its cost
 * grows with the parent's anonymous memory. With ANON_KIB the program first dirties heap pages
 * until its RssAnon reaches ANON_KIB, and with VMAS it adds small untouched mappings until it
 * has that many: the shape concbench's worker recorded (create.fork's parent_anon_kib and
 * parent_vmas counters), so the two loops fork from processes of the same size and only the
 * loop around the fork differs. Without them it is the plain 20-line loop. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* A field of /proc/self/status in kB, or -1. */
static long status_kib(const char *field) {
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long v = -1;
    size_t n = strlen(field);
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, field, n) == 0) v = strtol(line + n, NULL, 10);
    if (f) fclose(f);
    return v;
}

static long mappings(void) {
    FILE *f = fopen("/proc/self/maps", "r");
    long n = 0;
    int c;
    while (f && (c = fgetc(f)) != EOF) n += c == '\n';
    if (f) fclose(f);
    return n;
}

/* Dirty heap pages, a page at a time (brk heap below glibc's mmap threshold, as a Rust
 * worker's small allocations are), until RssAnon reaches `kib`. The blocks stay allocated. */
static void grow_anon(long kib) {
    long page = sysconf(_SC_PAGESIZE);
    while (status_kib("RssAnon:") < kib) {
        char *p = malloc(page);
        if (!p) { perror("malloc"); exit(1); }
        memset(p, 1, page);
    }
}

/* Add one-page mappings, alternately readable and not (so neighbours never merge into one),
 * until the process has `n` mappings. Untouched: they add mappings, not anonymous pages. */
static void grow_vmas(long n) {
    long page = sysconf(_SC_PAGESIZE);
    for (int i = 0; mappings() < n; i++)
        if (mmap(NULL, page, i % 2 ? PROT_NONE : PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) ==
            MAP_FAILED) { perror("mmap"); exit(1); }
}

/* Nanoseconds per fork+exit+wait over `n` of them. */
static double forks_ns(int n) {
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    for (int i = 0; i < n; i++) {
        pid_t p = fork();
        if (p == 0) _exit(0);
        if (p < 0 || waitpid(p, NULL, 0) != p) { perror("fork/waitpid"); exit(1); }
    }
    clock_gettime(CLOCK_MONOTONIC, &b);
    return ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / n;
}

static int by_value(const void *x, const void *y) {
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* One warm-up sample, then the median of `samples` samples' means (N / samples forks each). */
static double median_of_samples(int n, int samples) {
    int per = n / samples > 0 ? n / samples : 1;
    double *ns = malloc(sizeof(double) * samples);
    if (!ns) { perror("malloc"); exit(1); }
    forks_ns(per);
    for (int i = 0; i < samples; i++) ns[i] = forks_ns(per);
    qsort(ns, samples, sizeof(double), by_value);
    double m = samples % 2 ? ns[samples / 2] : (ns[samples / 2 - 1] + ns[samples / 2]) / 2;
    free(ns);
    return m;
}

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 5000;
    int samples = argc > 4 ? atoi(argv[4]) : 0;
    if (argc > 2) grow_anon(atol(argv[2]));
    if (argc > 3) grow_vmas(atol(argv[3]));
    long anon = status_kib("RssAnon:"), pte = status_kib("VmPTE:"), vmas = mappings();
    double ns = samples > 0 ? median_of_samples(n, samples) : forks_ns(n);
    printf("%.1f %ld %ld %ld\n", ns, anon, pte, vmas);
    return 0;
}
