/* Times MPI_Bcast (or MPI_Reduce, MPI_Allreduce, MPI_Allgather,
 * MPI_Alltoall, MPI_Gather, MPI_Scatter, MPI_Reduce_scatter,
 * MPI_Reduce_scatter_block, MPI_Barrier) of one size and checks the result;
 * used by tests/ompi_rules.rs, tests/mpich_rules.rs and tests/tune_mpi.rs to
 * observe which rules the MPI library applied.
 * Usage: coll_timer BYTES ITERATIONS
 *        [bcast|reduce|allreduce|allgather|alltoall|gather|scatter|
 *         reduce_scatter|reduce_scatter_block|barrier]
 * bcast: MPI_BYTE from rank 0, payload checked on every rank. reduce:
 * MPI_SUM of BYTES/4 MPI_FLOATs to rank 0, the exact sum checked there;
 * allreduce: the same sum, checked on every rank. allgather: BYTES of
 * MPI_BYTE from every rank, every block checked on every rank; alltoall:
 * BYTES of MPI_BYTE from every rank to every rank, every block checked;
 * gather: BYTES of MPI_BYTE from every rank to rank 0, every block checked
 * there; scatter: BYTES of MPI_BYTE from rank 0 to every rank, checked on
 * every rank; reduce_scatter (equal counts) and reduce_scatter_block:
 * MPI_SUM of size blocks of BYTES/4 MPI_FLOATs, each rank's block of the
 * exact sum checked on it; barrier: BYTES ignored, the call's return code
 * checked.
 * Prints "min_us <t>" (rank 0), or "<collective>_error <code>" and exits 3
 * when the call fails (e.g. a rule names an invalid algorithm). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    long bytes = argc > 1 ? atol(argv[1]) : 1024;
    int iters = argc > 2 ? atoi(argv[2]) : 5;
    const char *name = argc > 3 ? argv[3] : "bcast";
    int all = strcmp(name, "allreduce") == 0;
    int reduce = all || strcmp(name, "reduce") == 0;
    int gather = strcmp(name, "allgather") == 0;
    int a2a = strcmp(name, "alltoall") == 0;
    int to_root = strcmp(name, "gather") == 0;
    int from_root = strcmp(name, "scatter") == 0;
    int rs_block = strcmp(name, "reduce_scatter_block") == 0;
    int rs = rs_block || strcmp(name, "reduce_scatter") == 0;
    int barrier = strcmp(name, "barrier") == 0;
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long floats = bytes / 4;
    unsigned char *buf = malloc(bytes > 0 ? bytes : 1);
    unsigned char *blocks = malloc((gather || a2a || to_root) && bytes > 0 ? bytes * size : 1);
    unsigned char *out = malloc((a2a || from_root) && bytes > 0 ? bytes * size : 1);
    float *mine = malloc(floats > 0 ? floats * sizeof(float) * (rs ? size : 1) : 1);
    int *counts = malloc(size * sizeof(int));
    for (int r = 0; r < size; r++) counts[r] = (int)floats;
    float *sum = malloc(floats > 0 ? floats * sizeof(float) : 1);
    double best = 1e30;
    for (int it = 0; it <= iters; it++) {
        int rc;
        double t0, t;
        if (barrier) {
            MPI_Barrier(MPI_COMM_WORLD);
            t0 = MPI_Wtime();
            rc = MPI_Barrier(MPI_COMM_WORLD);
            t = MPI_Wtime() - t0;
        } else if (rs) {
            for (long i = 0; i < floats * size; i++)
                mine[i] = (float)((i + it) % 16 + rank);
            MPI_Barrier(MPI_COMM_WORLD);
            t0 = MPI_Wtime();
            rc = rs_block ? MPI_Reduce_scatter_block(mine, sum, (int)floats, MPI_FLOAT, MPI_SUM,
                                                     MPI_COMM_WORLD)
                          : MPI_Reduce_scatter(mine, sum, counts, MPI_FLOAT, MPI_SUM,
                                               MPI_COMM_WORLD);
            t = MPI_Wtime() - t0;
        } else if (reduce) {
            /* Small whole numbers: every sum is exact in any order. */
            for (long i = 0; i < floats; i++)
                mine[i] = (float)((i + it) % 16 + rank);
            MPI_Barrier(MPI_COMM_WORLD);
            t0 = MPI_Wtime();
            rc = all ? MPI_Allreduce(mine, sum, (int)floats, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD)
                     : MPI_Reduce(mine, sum, (int)floats, MPI_FLOAT, MPI_SUM, 0, MPI_COMM_WORLD);
            t = MPI_Wtime() - t0;
        } else if (a2a) {
            for (long r = 0; r < size; r++)
                for (long i = 0; i < bytes; i++)
                    out[r * bytes + i] = (unsigned char)(i * 7 + it + 31 * rank + 11 * r);
            MPI_Barrier(MPI_COMM_WORLD);
            t0 = MPI_Wtime();
            rc = MPI_Alltoall(out, (int)bytes, MPI_BYTE, blocks, (int)bytes, MPI_BYTE,
                              MPI_COMM_WORLD);
            t = MPI_Wtime() - t0;
        } else if (to_root) {
            for (long i = 0; i < bytes; i++)
                buf[i] = (unsigned char)(i * 7 + it + 31 * rank);
            MPI_Barrier(MPI_COMM_WORLD);
            t0 = MPI_Wtime();
            rc = MPI_Gather(buf, (int)bytes, MPI_BYTE, blocks, (int)bytes, MPI_BYTE, 0,
                            MPI_COMM_WORLD);
            t = MPI_Wtime() - t0;
        } else if (from_root) {
            for (long r = 0; rank == 0 && r < size; r++)
                for (long i = 0; i < bytes; i++)
                    out[r * bytes + i] = (unsigned char)(i * 7 + it + 31 * r);
            MPI_Barrier(MPI_COMM_WORLD);
            t0 = MPI_Wtime();
            rc = MPI_Scatter(out, (int)bytes, MPI_BYTE, buf, (int)bytes, MPI_BYTE, 0,
                             MPI_COMM_WORLD);
            t = MPI_Wtime() - t0;
        } else if (gather) {
            for (long i = 0; i < bytes; i++)
                buf[i] = (unsigned char)(i * 7 + it + 31 * rank);
            MPI_Barrier(MPI_COMM_WORLD);
            t0 = MPI_Wtime();
            rc = MPI_Allgather(buf, (int)bytes, MPI_BYTE, blocks, (int)bytes, MPI_BYTE,
                               MPI_COMM_WORLD);
            t = MPI_Wtime() - t0;
        } else {
            for (long i = 0; i < bytes; i++)
                buf[i] = rank == 0 ? (unsigned char)(i * 7 + it) : 0;
            MPI_Barrier(MPI_COMM_WORLD);
            t0 = MPI_Wtime();
            rc = MPI_Bcast(buf, (int)bytes, MPI_BYTE, 0, MPI_COMM_WORLD);
            t = MPI_Wtime() - t0;
        }
        if (rc != MPI_SUCCESS) {
            printf("%s_error %d\n", name, rc);
            fflush(stdout);
            MPI_Abort(MPI_COMM_WORLD, 3);
        }
        if (reduce && (rank == 0 || all)) {
            for (long i = 0; i < floats; i++) {
                float want = (float)(size * ((i + it) % 16) + size * (size - 1) / 2);
                if (sum[i] != want) {
                    printf("bad_sum rank %d float %ld is %g, expected %g\n", rank, i, sum[i], want);
                    fflush(stdout);
                    MPI_Abort(MPI_COMM_WORLD, 4);
                }
            }
        }
        for (long i = 0; rs && i < floats; i++) {
            long at = rank * floats + i;
            float want = (float)(size * ((at + it) % 16) + size * (size - 1) / 2);
            if (sum[i] != want) {
                printf("bad_sum rank %d float %ld is %g, expected %g\n", rank, at, sum[i], want);
                fflush(stdout);
                MPI_Abort(MPI_COMM_WORLD, 4);
            }
        }
        for (long r = 0; (gather || (to_root && rank == 0)) && r < size; r++) {
            for (long i = 0; i < bytes; i++) {
                if (blocks[r * bytes + i] != (unsigned char)(i * 7 + it + 31 * r)) {
                    printf("bad_block rank %d block %ld offset %ld\n", rank, r, i);
                    fflush(stdout);
                    MPI_Abort(MPI_COMM_WORLD, 4);
                }
            }
        }
        for (long r = 0; a2a && r < size; r++) {
            for (long i = 0; i < bytes; i++) {
                if (blocks[r * bytes + i] != (unsigned char)(i * 7 + it + 31 * r + 11 * rank)) {
                    printf("bad_block rank %d from %ld offset %ld\n", rank, r, i);
                    fflush(stdout);
                    MPI_Abort(MPI_COMM_WORLD, 4);
                }
            }
        }
        for (long i = 0; from_root && i < bytes; i++) {
            if (buf[i] != (unsigned char)(i * 7 + it + 31 * rank)) {
                printf("bad_block rank %d offset %ld\n", rank, i);
                fflush(stdout);
                MPI_Abort(MPI_COMM_WORLD, 4);
            }
        }
        for (long i = 0; !reduce && !rs && !barrier && !gather && !a2a && !to_root && !from_root && i < bytes; i++) {
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
    free(blocks);
    free(out);
    free(mine);
    free(sum);
    free(counts);
    MPI_Finalize();
    return 0;
}
