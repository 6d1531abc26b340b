/* Times a list of collective calls on MPI_COMM_WORLD, each for about a
 * tenth of a second, and prints the mean per call: the program an
 * independent rules-on / rules-off comparison runs twice per round (once
 * with Open MPI's rules variables, once without), apart from collsel.
 * Usage: rules_timer COLLECTIVE:BYTES...  (bcast, reduce, allreduce,
 * gather, scatter, allgather, alltoall, reduce_scatter,
 * reduce_scatter_block, barrier; BYTES as collsel counts a message:
 * the vector of a reduce or allreduce, each rank's block otherwise; MPI_SUM
 * over MPI_FLOAT for the reductions, root 0). Prints, on rank 0, one line
 * "COLLECTIVE BYTES mean_us T" per item. With REFILL=1 in the environment
 * every rank writes its send buffer before each call (as collsel's
 * harness fills its payload), to see what that costs each algorithm;
 * with CHECK=1 every rank reads its receive buffer after each call,
 * untimed (as collsel's harness checks the result); with DUP=1 the calls
 * run on a duplicate of MPI_COMM_WORLD (as collsel's harness runs them).
 * APP=1 times as an application calls, and as ../shared/tools/coll_sweep.c
 * does: before each call every rank writes what it sends (new values each
 * call) and clears what it receives, and after it reads what it received;
 * only the bytes the call sends and receives. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int size;
static MPI_Comm w;
static int *counts; /* reduce_scatter's: every rank's block the same */

/* The bytes a call reads from `a` and writes to `b` on every rank (the
 * root's, where they differ; bcast's message is `a` both ways). */
static void extent(const char *name, long bytes, long *send, long *recv) {
    long p = size;
    *send = bytes;
    *recv = bytes;
    if (!strcmp(name, "gather") || !strcmp(name, "allgather")) *recv = bytes * p;
    if (!strcmp(name, "scatter") || !strcmp(name, "reduce_scatter")
        || !strcmp(name, "reduce_scatter_block")) *send = bytes * p;
    if (!strcmp(name, "alltoall")) *send = *recv = bytes * p;
    if (!strcmp(name, "bcast")) *recv = 0;
    if (!strcmp(name, "barrier")) *send = *recv = 0;
}

static int call(const char *name, void *a, void *b, long bytes) {
    int n = (int)bytes, f = (int)(bytes / 4);
    if (!strcmp(name, "bcast")) return MPI_Bcast(a, n, MPI_BYTE, 0, w);
    if (!strcmp(name, "reduce")) return MPI_Reduce(a, b, f, MPI_FLOAT, MPI_SUM, 0, w);
    if (!strcmp(name, "allreduce")) return MPI_Allreduce(a, b, f, MPI_FLOAT, MPI_SUM, w);
    if (!strcmp(name, "gather")) return MPI_Gather(a, n, MPI_BYTE, b, n, MPI_BYTE, 0, w);
    if (!strcmp(name, "scatter")) return MPI_Scatter(a, n, MPI_BYTE, b, n, MPI_BYTE, 0, w);
    if (!strcmp(name, "allgather")) return MPI_Allgather(a, n, MPI_BYTE, b, n, MPI_BYTE, w);
    if (!strcmp(name, "alltoall")) return MPI_Alltoall(a, n, MPI_BYTE, b, n, MPI_BYTE, w);
    if (!strcmp(name, "reduce_scatter_block"))
        return MPI_Reduce_scatter_block(a, b, f, MPI_FLOAT, MPI_SUM, w);
    if (!strcmp(name, "reduce_scatter")) {
        for (int i = 0; i < size; i++) counts[i] = f;
        return MPI_Reduce_scatter(a, b, counts, MPI_FLOAT, MPI_SUM, w);
    }
    if (!strcmp(name, "barrier")) return MPI_Barrier(w);
    fprintf(stderr, "unknown collective %s\n", name);
    MPI_Abort(w, 2);
    return 0;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    counts = malloc(sizeof(int) * size);
    const char *r = getenv("REFILL");
    int refill = r && r[0] == '1';
    const char *c = getenv("CHECK");
    int check = c && c[0] == '1';
    const char *d = getenv("DUP");
    w = MPI_COMM_WORLD;
    if (d && d[0] == '1') MPI_Comm_dup(MPI_COMM_WORLD, &w);
    volatile float sink = 0;
    const char *ap = getenv("APP");
    int app = ap && ap[0] == '1';
    for (int k = 1; k < argc; k++) {
        char name[32];
        long bytes = 0;
        if (sscanf(argv[k], "%31[a-z_]:%ld", name, &bytes) != 2) {
            if (rank == 0) fprintf(stderr, "bad item %s\n", argv[k]);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        /* Room for p blocks each way (and one more). */
        long floats = (bytes / 4 + 1) * (size + 1);
        float *a = calloc(floats, sizeof(float));
        float *b = calloc(floats, sizeof(float));
        /* Warm up, then size the loop to about 0.1 s by one timed call. */
        for (int i = 0; i < 2; i++) call(name, a, b, bytes);
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        call(name, a, b, bytes);
        double one = MPI_Wtime() - t0;
        MPI_Allreduce(MPI_IN_PLACE, &one, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        int iters = (int)(0.1 / (one > 1e-7 ? one : 1e-7));
        if (iters < 3) iters = 3;
        if (iters > 20000) iters = 20000;
        double total = 0;
        long send, recv;
        extent(name, bytes, &send, &recv);
        for (int i = 0; i < iters; i++) {
            if (app) {
                for (long j = 0; j < send / 4; j++) a[j] = (float)((j + i + rank) % 7);
                memset(b, 0, (size_t)recv);
            }
            if (refill) memset(a, 1 + (i & 1), (size_t)floats * sizeof(float));
            MPI_Barrier(MPI_COMM_WORLD);
            t0 = MPI_Wtime();
            call(name, a, b, bytes);
            double t = MPI_Wtime() - t0;
            if (app) {
                float s = 0;
                for (long j = 0; j < recv / 4; j++) s += b[j];
                sink += s;
            }
            if (check) {
                float s = 0;
                for (long j = 0; j < floats; j++) s += b[j];
                sink += s;
            }
            MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            total += t;
        }
        if (rank == 0) printf("%s %ld mean_us %.4f\n", name, bytes, total / iters * 1e6);
        free(a);
        free(b);
    }
    MPI_Finalize();
    return 0;
}
