/* The reference for memory.thread / memory.process: hold K idle units, print the increase of
 * PSS (smaps_rollup, summed over this process and its children) per unit, in KiB.
 * Threads use pthread's default attributes (default stack); processes sleep in pause().
 * Usage: memory_ref thread|process K */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static double pss_kib(pid_t pid) {
    char path[64], l[256];
    snprintf(path, sizeof path, "/proc/%d/smaps_rollup", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f) { perror(path); exit(1); }
    double v = -1;
    while (fgets(l, sizeof l, f))
        if (strncmp(l, "Pss:", 4) == 0) v = atof(l + 4);
    fclose(f);
    return v;
}

static int hold[2], ready[2];

static void *idle(void *arg) {
    char c;
    (void)arg;
    if (write(ready[1], "r", 1) != 1) return NULL;
    if (read(hold[0], &c, 1) < 0) return NULL; /* blocks until the parent closes hold[1] */
    return NULL;
}

int main(int argc, char **argv) {
    if (argc != 3) { fprintf(stderr, "usage: memory_ref thread|process K\n"); return 2; }
    int threads = strcmp(argv[1], "thread") == 0;
    long k = atol(argv[2]);
    if (pipe(hold) || pipe(ready)) { perror("pipe"); return 1; }
    pthread_t *tids = calloc((size_t)k, sizeof *tids);
    pid_t *kids = calloc((size_t)k, sizeof *kids);
    double before = pss_kib(getpid());
    for (long i = 0; i < k; i++) {
        if (threads) {
            if (pthread_create(&tids[i], NULL, idle, NULL)) { perror("pthread_create"); return 1; }
        } else if ((kids[i] = fork()) == 0) {
            if (write(ready[1], "r", 1) != 1) _exit(1);
            for (;;) pause();
        } else if (kids[i] < 0) { perror("fork"); return 1; }
    }
    char c;
    for (long i = 0; i < k; i++)
        if (read(ready[0], &c, 1) != 1) { perror("read"); return 1; }
    double after = pss_kib(getpid());
    for (long i = 0; !threads && i < k; i++) after += pss_kib(kids[i]);
    printf("%.3f\n", (after - before) / k);
    close(hold[1]);
    for (long i = 0; i < k; i++) {
        if (threads) pthread_join(tids[i], NULL);
        else { kill(kids[i], SIGKILL); waitpid(kids[i], NULL, 0); }
    }
    return 0;
}
