/* Is the large-message state drawn with the buffers' memory? Times
 * MPI_Allreduce (MPI_SUM over MPI_FLOAT, BYTES per vector) in EPOCHS
 * epochs of one job, each about a tenth of a second, as an application
 * calls (rules_timer's APP=1: before each call every rank writes what it
 * sends and clears what it receives, after it reads what it received).
 * Each epoch runs on send and receive buffers newly mapped with mmap and
 * faulted in, the earlier ones kept mapped so that the kernel cannot hand
 * the same physical pages back; with KEEP=1 every epoch reuses the first
 * epoch's buffers (the control). Prints, on rank 0, one line per epoch:
 * "epoch E mean_us T". Usage: placement_epochs BYTES EPOCHS */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

static float *fresh(long bytes) {
    void *p = mmap(NULL, (size_t)bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        perror("mmap");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    memset(p, 0, (size_t)bytes);
    return p;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (argc != 3) {
        if (rank == 0) fprintf(stderr, "usage: placement_epochs BYTES EPOCHS\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    long bytes = atol(argv[1]);
    int epochs = atoi(argv[2]);
    const char *k = getenv("KEEP");
    int keep = k && k[0] == '1';
    int n = (int)(bytes / 4);
    float *a = fresh(bytes), *b = fresh(bytes);
    volatile float sink = 0;
    for (int e = 0; e < epochs; e++) {
        if (e > 0 && !keep) {
            a = fresh(bytes);
            b = fresh(bytes);
        }
        for (int i = 0; i < 2; i++)
            MPI_Allreduce(a, b, n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
        double total = 0;
        int iters = 0;
        double start = MPI_Wtime();
        int more = 1;
        while (more) {
            for (long j = 0; j < n; j++) a[j] = (float)((j + iters + rank) % 7);
            memset(b, 0, (size_t)bytes);
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            MPI_Allreduce(a, b, n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
            double t = MPI_Wtime() - t0;
            float s = 0;
            for (long j = 0; j < n; j++) s += b[j];
            sink += s;
            MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            total += t;
            iters++;
            more = MPI_Wtime() - start < 0.1;
            MPI_Bcast(&more, 1, MPI_INT, 0, MPI_COMM_WORLD);
        }
        if (rank == 0) printf("epoch %d mean_us %.4f\n", e, total / iters * 1e6);
    }
    MPI_Finalize();
    return 0;
}
