/* The reference for create.fork, linked into concbench (reference.fork_c): the loop of
 * bench/fidelity/fork_loop.c and of the seed's forkcreat.c — fork, the child _exit(0)s, the
 * parent waitpid()s it — and nothing else. Run in a worker where create.fork runs, so the two
 * fork from one process of one shape and only the loop around the fork differs. */
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

/* `n` forks, each reaped before the next; 0, or -1 with errno set by the call that failed. */
int concbench_fork_loop(unsigned long n) {
    for (unsigned long i = 0; i < n; i++) {
        pid_t p = fork();
        if (p == 0) _exit(0);
        if (p < 0 || waitpid(p, NULL, 0) != p) return -1;
    }
    return 0;
}
