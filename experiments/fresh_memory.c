/* What fresh memory costs: allocate two N-byte buffers, copy N bytes into
 * one, zero the other, free both; 50 times, best and mean per round.
 * Open MPI's reduce-scatters do as much every call (experiments/reduce_scatter.md).
 * gcc -O1 -fno-builtin -o /tmp/fresh_memory experiments/fresh_memory.c
 * /tmp/fresh_memory 524288 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

int main(int argc, char **argv) {
    long n = argc > 1 ? atol(argv[1]) : 524288;
    char *src = malloc(n);
    memset(src, 1, n);
    double best = 1e30, total = 0;
    for (int i = 0; i < 50; i++) {
        double t0 = now_us();
        char *a = malloc(n), *b = malloc(n);
        memcpy(a, src, n);
        memset(b, 0, n);
        __asm__ volatile("" : : "r"(a), "r"(b) : "memory");
        free(a);
        free(b);
        double t = now_us() - t0;
        total += t;
        if (t < best) best = t;
    }
    printf("%ld bytes: best %.1f us mean %.1f us\n", n, best, total / 50);
    free(src);
    return 0;
}
