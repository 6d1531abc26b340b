/* Prints, every half second for SECONDS, the mean time of MPI_Bcast of
 * BYTES (the algorithm the job forces) and of a 1-byte ping-pong. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank; MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    double seconds = argc > 1 ? atof(argv[1]) : 60;
    int bytes = argc > 2 ? atoi(argv[2]) : 4096;
    char *buf = calloc(bytes + 1, 1);
    for (int i = 0; i < bytes; i++) buf[i] = (char)i;
    double start = MPI_Wtime();
    while (1) {
        double tb = 0; long n = 0;
        for (int k = 0; k < 20000; k++) {
            MPI_Barrier(MPI_COMM_WORLD);
            double a = MPI_Wtime();
            MPI_Bcast(buf, bytes, MPI_BYTE, 0, MPI_COMM_WORLD);
            tb += MPI_Wtime() - a; n++;
        }
        double t1 = MPI_Wtime(); long m = 0;
        for (int k = 0; k < 20000; k++) {
            if (rank == 0) { MPI_Send(buf, 1, MPI_BYTE, 1, 0, MPI_COMM_WORLD); MPI_Recv(buf, 1, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); }
            else if (rank == 1) { MPI_Recv(buf, 1, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); MPI_Send(buf, 1, MPI_BYTE, 0, 0, MPI_COMM_WORLD); }
            m++;
        }
        double pp = (MPI_Wtime() - t1) / m / 2;
        double stop = MPI_Wtime() - start >= seconds;
        MPI_Bcast(&stop, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        if (rank == 0) { printf("%.1f bcast_us %.3f pingpong_half_us %.3f\n", MPI_Wtime() - start, tb / n * 1e6, pp * 1e6); fflush(stdout); }
        if (stop) break;
    }
    MPI_Finalize();
}
