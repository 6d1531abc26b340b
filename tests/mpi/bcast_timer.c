/* Times MPI_Bcast of one size and checks the payload; used by
 * tests/ompi_rules.rs to observe which rules Open MPI applied.
 * Usage: bcast_timer BYTES ITERATIONS
 * Prints "min_us <t>" (rank 0), or "bcast_error <code>" and exits 3 when
 * MPI_Bcast fails (e.g. a rule names an invalid algorithm). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    long bytes = argc > 1 ? atol(argv[1]) : 1024;
    int iters = argc > 2 ? atoi(argv[2]) : 5;
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    unsigned char *buf = malloc(bytes > 0 ? bytes : 1);
    double best = 1e30;
    for (int it = 0; it <= iters; it++) {
        for (long i = 0; i < bytes; i++)
            buf[i] = rank == 0 ? (unsigned char)(i * 7 + it) : 0;
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        int rc = MPI_Bcast(buf, (int)bytes, MPI_BYTE, 0, MPI_COMM_WORLD);
        double t = MPI_Wtime() - t0;
        if (rc != MPI_SUCCESS) {
            printf("bcast_error %d\n", rc);
            fflush(stdout);
            MPI_Abort(MPI_COMM_WORLD, 3);
        }
        for (long i = 0; i < bytes; i++) {
            if (buf[i] != (unsigned char)(i * 7 + it)) {
                printf("bad_payload rank %d offset %ld\n", rank, i);
                fflush(stdout);
                MPI_Abort(MPI_COMM_WORLD, 4);
            }
        }
        double slowest;
        MPI_Reduce(&t, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        if (it > 0 && slowest < best) best = slowest; /* iteration 0 warms up */
    }
    if (rank == 0) printf("min_us %.1f\n", best * 1e6);
    free(buf);
    MPI_Finalize();
    return 0;
}
