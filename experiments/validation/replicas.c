/* What varies between jobs, and what one job can re-draw: times `default`
 * (Open MPI's own choice), `default` again on another communicator (the A/A
 * arm) and one forced algorithm, in paired interleaved rounds, over several
 * replicas per job. What a replica re-draws is the MODE:
 *   same  the same three communicators and buffers every replica (a repeat:
 *         what drifts within the job)
 *   dup   fresh duplicates of MPI_COMM_WORLD per replica
 *   buf   fresh buffers per replica, at a fresh address and page offset
 *   perm  all of that, and the ranks' order permuted onto the cores
 *         (MPI_Comm_split with a random key: the root lands on another core)
 * Separate jobs of this program give the between-job spread of the same
 * figures (experiments/validation/replicas.py runs and reads both).
 *
 * Usage: replicas MODES REPLICAS ROUNDS ITEM...
 *   MODES     comma-separated, e.g. same,perm
 *   ITEM      COLL:BYTES:ALG[:SEG]  (coll_tuned_<COLL>_algorithm ALG, its
 *             segment size SEG; bcast, reduce, allreduce, gather, scatter,
 *             allgather, alltoall; BYTES as coll_sweep.c counts them)
 * Needs --mca coll_tuned_use_dynamic_rules 1 (Open MPI reads a forced
 * algorithm only then) and no rules file. Rank 0 prints, per round,
 *   MODE COLL BYTES ALG replica round default_us default2_us forced_us
 * each the mean over a block of calls (barrier, one call, slowest rank). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int rank, size;

static void die(const char *what) {
    if (rank == 0) fprintf(stderr, "replicas: %s\n", what);
    MPI_Abort(MPI_COMM_WORLD, 2);
}

/* Writes an integer control variable of coll/tuned. */
static void cvar(const char *name, int value) {
    int index, count;
    MPI_T_cvar_handle handle;
    if (MPI_T_cvar_get_index(name, &index) != MPI_SUCCESS) die(name);
    if (MPI_T_cvar_handle_alloc(index, NULL, &handle, &count) != MPI_SUCCESS) die(name);
    if (MPI_T_cvar_write(handle, &value) != MPI_SUCCESS) die(name);
    MPI_T_cvar_handle_free(&handle);
}

typedef struct {
    char coll[16];
    long bytes;
    int alg, seg;
} Item;

typedef struct {
    unsigned char *s, *r;          /* where the calls read and write */
    unsigned char *s0, *r0, *block; /* what was allocated */
} Buffers;

static void release(Buffers *b) {
    free(b->s0);
    free(b->r0);
    free(b->block);
}

/* Buffers at a fresh address: a block of random size allocated before them
 * (and kept while they live), and a random offset, a multiple of 64 bytes,
 * into their allocation. */
static Buffers fresh(long bytes) {
    Buffers b;
    long n = (bytes > 0 ? bytes : 1) * size + 4096;
    b.block = malloc(1 + (rand() % 64) * 4096);
    b.s0 = malloc(n + 4096);
    b.r0 = malloc(n + 4096);
    memset(b.s0, 1, n + 4096);
    memset(b.r0, 0, n + 4096);
    b.s = b.s0 + (rand() % 64) * 64;
    b.r = b.r0 + (rand() % 64) * 64;
    return b;
}

static void call(const Item *it, MPI_Comm comm, unsigned char *s, unsigned char *r) {
    const char *c = it->coll;
    int n = (int)it->bytes;
    if (!strcmp(c, "bcast")) MPI_Bcast(s, n, MPI_BYTE, 0, comm);
    else if (!strcmp(c, "reduce")) MPI_Reduce(s, r, n / 4, MPI_FLOAT, MPI_SUM, 0, comm);
    else if (!strcmp(c, "allreduce")) MPI_Allreduce(s, r, n / 4, MPI_FLOAT, MPI_SUM, comm);
    else if (!strcmp(c, "gather")) MPI_Gather(s, n, MPI_BYTE, r, n, MPI_BYTE, 0, comm);
    else if (!strcmp(c, "scatter")) MPI_Scatter(s, n, MPI_BYTE, r, n, MPI_BYTE, 0, comm);
    else if (!strcmp(c, "allgather")) MPI_Allgather(s, n, MPI_BYTE, r, n, MPI_BYTE, comm);
    else if (!strcmp(c, "alltoall")) MPI_Alltoall(s, n, MPI_BYTE, r, n, MPI_BYTE, comm);
    else die("unknown collective");
}

/* Mean time of `iters` calls (barrier, one call, slowest rank's time). */
static double block(const Item *it, MPI_Comm comm, Buffers *b, int iters) {
    double total = 0;
    for (int i = 0; i < iters; i++) {
        MPI_Barrier(comm);
        double t0 = MPI_Wtime();
        call(it, comm, b->s, b->r);
        double t = MPI_Wtime() - t0;
        MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, comm);
        total += t;
    }
    return total / iters * 1e6;
}

/* The three arms' communicators over `base`: default, default again, and
 * the forced algorithm (written before the duplicate that reads it). */
static void arms(const Item *it, MPI_Comm base, MPI_Comm out[3]) {
    char name[64];
    snprintf(name, sizeof name, "coll_tuned_%s_algorithm", it->coll);
    cvar(name, 0);
    MPI_Comm_dup(base, &out[0]);
    MPI_Comm_dup(base, &out[1]);
    cvar(name, it->alg);
    if (it->seg >= 0) {
        snprintf(name, sizeof name, "coll_tuned_%s_algorithm_segmentsize", it->coll);
        cvar(name, it->seg);
    }
    MPI_Comm_dup(base, &out[2]);
    snprintf(name, sizeof name, "coll_tuned_%s_algorithm", it->coll);
    cvar(name, 0);
    if (it->seg >= 0) {
        snprintf(name, sizeof name, "coll_tuned_%s_algorithm_segmentsize", it->coll);
        cvar(name, 0);
    }
}

/* A communicator over all ranks in a random order (rank 0 draws it). */
static MPI_Comm permuted(void) {
    int *order = malloc(sizeof(int) * size), key;
    if (rank == 0) {
        for (int i = 0; i < size; i++) order[i] = i;
        for (int i = size - 1; i > 0; i--) {
            int j = rand() % (i + 1), t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
    }
    MPI_Bcast(order, size, MPI_INT, 0, MPI_COMM_WORLD);
    key = order[rank];
    free(order);
    MPI_Comm comm;
    MPI_Comm_split(MPI_COMM_WORLD, 0, key, &comm);
    return comm;
}

int main(int argc, char **argv) {
    int provided;
    MPI_Init(&argc, &argv);
    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 5) die("usage: replicas MODES REPLICAS ROUNDS COLL:BYTES:ALG[:SEG]...");
    srand((unsigned)time(NULL) * 2654435761u + rank);
    int replicas = atoi(argv[2]), rounds = atoi(argv[3]);
    char modes[256];
    snprintf(modes, sizeof modes, "%s", argv[1]);
    for (char *mode = strtok(modes, ","); mode; mode = strtok(NULL, ",")) {
        int redraw_comm = strcmp(mode, "same") && strcmp(mode, "buf");
        int redraw_buf = !strcmp(mode, "buf") || !strcmp(mode, "perm");
        int permute = !strcmp(mode, "perm");
        if (strcmp(mode, "same") && strcmp(mode, "dup") && strcmp(mode, "buf") && permute == 0)
            die("a mode is same, dup, buf or perm");
        for (int k = 4; k < argc; k++) {
            Item it = {.seg = -1};
            if (sscanf(argv[k], "%15[a-z]:%ld:%d:%d", it.coll, &it.bytes, &it.alg, &it.seg) < 3)
                die("an item is COLL:BYTES:ALG[:SEG]");
            Buffers b;
            MPI_Comm comms[3], base = MPI_COMM_NULL;
            for (int rep = 0; rep < replicas; rep++) {
                if (rep == 0 || redraw_comm) {
                    if (rep > 0) {
                        for (int a = 0; a < 3; a++) MPI_Comm_free(&comms[a]);
                        if (base != MPI_COMM_WORLD) MPI_Comm_free(&base);
                    }
                    base = permute ? permuted() : MPI_COMM_WORLD;
                    arms(&it, base, comms);
                }
                if (rep == 0 || redraw_buf) {
                    if (rep > 0) release(&b);
                    b = fresh(it.bytes);
                }
                /* Warm every arm, then size a block to about 5 ms. */
                for (int a = 0; a < 3; a++) block(&it, comms[a], &b, 2);
                double t0 = MPI_Wtime();
                for (int a = 0; a < 3; a++) block(&it, comms[a], &b, 2);
                double one = (MPI_Wtime() - t0) / 6;
                MPI_Allreduce(MPI_IN_PLACE, &one, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
                int iters = (int)(0.005 / (one > 1e-7 ? one : 1e-7));
                if (iters < 1) iters = 1;
                if (iters > 2000) iters = 2000;
                for (int round = 0; round < rounds; round++) {
                    double t[3];
                    for (int j = 0; j < 3; j++) {
                        int a = (round + j) % 3;
                        t[a] = block(&it, comms[a], &b, iters);
                    }
                    if (rank == 0)
                        printf("%s %s %ld %d:%d %d %d %.4f %.4f %.4f\n", mode, it.coll, it.bytes,
                               it.alg, it.seg, rep, round, t[0], t[1], t[2]);
                }
            }
            for (int a = 0; a < 3; a++) MPI_Comm_free(&comms[a]);
            if (base != MPI_COMM_WORLD) MPI_Comm_free(&base);
            release(&b);
        }
    }
    fflush(stdout);
    MPI_T_finalize();
    MPI_Finalize();
    return 0;
}
