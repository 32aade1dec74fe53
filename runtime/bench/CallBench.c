/* CallBench.c - time per call of one MPI collective, as an application sees
 * it (IMB-style, for runs with and without the interposer preloaded):
 *
 *   mpirun -n P collplan_bench_calls [--pmpi] COLLECTIVE BYTES...
 *
 * COLLECTIVE: allreduce, allgather, bcast, reduce, reduce_scatter, alltoall or
 * alltoallv. For each
 * size: 20 repetitions of up to 200 calls (fewer for large sizes: about
 * 64 MiB moved per repetition, at least 4 calls), after warm-up calls, each
 * repetition timed on every rank; prints "BYTES MICROSECONDS" per line, the
 * median over repetitions of the slowest rank's time per call. Allreduce,
 * reduce (to rank 0) and reduce-scatter (BYTES / P each, whole floats) sum
 * floats; allgather gathers BYTES in total (BYTES / P per rank); bcast sends
 * from rank 0; alltoall and alltoallv send BYTES to each rank (OSU's size a
 * pair: P BYTES a rank each way), alltoallv with every count BYTES and the
 * displacements packed. tools/bench-interposer.sh and tools/bench-tune.sh run
 * it with and without the interposer.
 *
 * --pmpi: each repetition is followed by one of the same calls to the
 * PMPI_ entry points, which with the interposer preloaded are the MPI
 * library's own collective; prints "BYTES MPI_US PMPI_US RATIO Q1 Q3": the
 * two medians, and the median and quartiles of the per-repetition ratios
 * MPI_ / PMPI_. Both run in one job, so what varies from job to job (where
 * the ranks and their buffers land: at 1 KiB this machine's calls take
 * 0.9 or 1.9 us depending on the job) hits both alike. */

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int compareDoubles(const void *A, const void *B) {
  double X = *(const double *)A, Y = *(const double *)B;
  return (X > Y) - (X < Y);
}

/* Alltoallv's counts and displacements: BYTES to and from every rank. */
static int *Counts, *Displs;

/* MPI's function F, or its profiling entry PMPI_F when Pmpi is set: with
 * the interposer preloaded, the library's own collective in the same job. */
#define MPI_OR_PMPI(F, ...) (Pmpi ? P##F(__VA_ARGS__) : F(__VA_ARGS__))

static void call(const char *What, char *In, char *Out, long Bytes, int P,
                 int Pmpi) {
  if (!strcmp(What, "allreduce"))
    MPI_OR_PMPI(MPI_Allreduce, In, Out, (int)(Bytes / 4), MPI_FLOAT, MPI_SUM,
                MPI_COMM_WORLD);
  else if (!strcmp(What, "allgather"))
    MPI_OR_PMPI(MPI_Allgather, In, (int)(Bytes / P), MPI_BYTE, Out,
                (int)(Bytes / P), MPI_BYTE, MPI_COMM_WORLD);
  else if (!strcmp(What, "reduce"))
    MPI_OR_PMPI(MPI_Reduce, In, Out, (int)(Bytes / 4), MPI_FLOAT, MPI_SUM, 0,
                MPI_COMM_WORLD);
  else if (!strcmp(What, "alltoall"))
    MPI_OR_PMPI(MPI_Alltoall, In, (int)Bytes, MPI_BYTE, Out, (int)Bytes,
                MPI_BYTE, MPI_COMM_WORLD);
  else if (!strcmp(What, "alltoallv"))
    MPI_OR_PMPI(MPI_Alltoallv, In, Counts, Displs, MPI_BYTE, Out, Counts,
                Displs, MPI_BYTE, MPI_COMM_WORLD);
  else if (!strcmp(What, "reduce_scatter"))
    MPI_OR_PMPI(MPI_Reduce_scatter_block, In, Out, (int)(Bytes / 4 / P),
                MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  else
    MPI_OR_PMPI(MPI_Bcast, Out, (int)Bytes, MPI_BYTE, 0, MPI_COMM_WORLD);
}

static void quartiles(double *V, int N, double *Q1, double *Median,
                      double *Q3) {
  qsort(V, (size_t)N, sizeof(double), compareDoubles);
  *Q1 = V[N / 4];
  *Median = V[N / 2];
  *Q3 = V[(3 * N) / 4];
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int Rank, P;
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  const char *Program = argv[0];
  int Pair = argc >= 2 && !strcmp(argv[1], "--pmpi");
  argv += Pair;
  argc -= Pair;
  const char *Known[] = {"allreduce",      "allgather", "bcast",    "reduce",
                         "reduce_scatter", "alltoall",  "alltoallv"};
  int Ok = 0;
  for (int K = 0; argc >= 3 && K < 7; ++K)
    Ok |= !strcmp(argv[1], Known[K]);
  if (!Ok) {
    if (Rank == 0)
      fprintf(stderr,
              "usage: %s [--pmpi] allreduce|allgather|bcast|reduce|"
              "reduce_scatter|alltoall|alltoallv BYTES...\n",
              Program);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  enum { Reps = 20, PairReps = 41, MaxCalls = 200, MinCalls = 4 };
  int N = Pair ? PairReps : Reps;
  Counts = calloc((size_t)P, sizeof(int));
  Displs = calloc((size_t)P, sizeof(int));
  /* A personalised exchange moves P BYTES a rank each way. */
  int Personal = !strncmp(argv[1], "alltoall", 8);
  for (int A = 2; A < argc; ++A) {
    long Bytes = atol(argv[A]);
    long Buffer = Personal ? Bytes * P : Bytes;
    for (int R = 0; R < P; ++R) {
      Counts[R] = (int)Bytes;
      Displs[R] = (int)(Bytes * R);
    }
    long Fit = (64L << 20) / (Buffer > 0 ? Buffer : 1);
    int Calls = Fit > MaxCalls   ? MaxCalls
                : Fit < MinCalls ? MinCalls
                                 : (int)Fit;
    int WarmUp = Calls / 4 + 1;
    /* Written, as an application's are: calloc's untouched pages all map
     * the one zero page, whose reads always hit the cache (a 4 MiB reduce
     * at P = 4 then took half the time it takes on data). */
    char *In = malloc((size_t)Buffer + 1), *Out = malloc((size_t)Buffer + 1);
    for (long I = 0; I + 4 <= Buffer; I += 4)
      memcpy(In + I, &(float){(float)(Rank + 1)}, 4);
    memset(Out, 0, (size_t)Buffer + 1);
    for (int Pmpi = 0; Pmpi <= Pair; ++Pmpi)
      for (int I = 0; I < WarmUp; ++I)
        call(argv[1], In, Out, Bytes, P, Pmpi);
    double Times[2][PairReps], Ratios[PairReps];
    for (int R = 0; R < N; ++R)
      for (int Pmpi = 0; Pmpi <= Pair; ++Pmpi) {
        PMPI_Barrier(MPI_COMM_WORLD);
        double T0 = MPI_Wtime();
        for (int I = 0; I < Calls; ++I)
          call(argv[1], In, Out, Bytes, P, Pmpi);
        double Mine = (MPI_Wtime() - T0) / Calls;
        PMPI_Reduce(&Mine, &Times[Pmpi][R], 1, MPI_DOUBLE, MPI_MAX, 0,
                    MPI_COMM_WORLD);
      }
    if (Rank == 0 && !Pair) {
      qsort(Times[0], (size_t)N, sizeof(double), compareDoubles);
      printf("%ld %.3f\n", Bytes, Times[0][N / 2] * 1e6);
    } else if (Rank == 0) {
      for (int R = 0; R < N; ++R)
        Ratios[R] = Times[0][R] / Times[1][R];
      double Q1, Median, Q3, Unused, Mpi, Pmpi;
      quartiles(Ratios, N, &Q1, &Median, &Q3);
      quartiles(Times[0], N, &Unused, &Mpi, &Unused);
      quartiles(Times[1], N, &Unused, &Pmpi, &Unused);
      printf("%ld %.3f %.3f %.3f %.3f %.3f\n", Bytes, Mpi * 1e6, Pmpi * 1e6,
             Median, Q1, Q3);
    }
    free(In);
    free(Out);
  }
  free(Counts);
  free(Displs);
  MPI_Finalize();
  return 0;
}
