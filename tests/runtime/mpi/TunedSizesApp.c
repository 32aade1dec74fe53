/* TunedSizesApp.c - a plain MPI program that knows nothing of collplan.
 *
 * For each byte size given on the command line it calls MPI_Allreduce
 * (int sum, a vector of that many bytes, rounded down to whole ints, at
 * least one) and MPI_Allgather (the gathered total that many bytes), and
 * checks every element against values computed here by hand. The tune tests
 * run it under the interposer with a tuned plan directory (a size in every
 * range) and under Open MPI with a tuned rules file. Exits 1 on a wrong
 * element. */

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int Failures = 0;

static void expect(int Ok, const char *What, long Bytes, int Rank, long I) {
  if (!Ok && Failures++ < 10)
    fprintf(stderr, "rank %d: %s of %ld bytes wrong at element %ld\n", Rank,
            What, Bytes, I);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int Rank, P;
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  for (int A = 1; A < argc; ++A) {
    long Bytes = atol(argv[A]);
    long N = Bytes / (long)sizeof(int);
    if (N < 1)
      N = 1;
    int *In = malloc(N * sizeof(int)), *Out = malloc(N * sizeof(int));
    for (long I = 0; I < N; ++I)
      In[I] = (int)((Rank + 1) * (I % 1000) + Rank);
    MPI_Allreduce(In, Out, (int)N, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    for (long I = 0; I < N; ++I)
      expect(Out[I] == (int)((I % 1000) * P * (P + 1) / 2 + P * (P - 1) / 2),
             "allreduce", Bytes, Rank, I);

    long Each = N / P < 1 ? 1 : N / P;
    int *Mine = malloc(Each * sizeof(int));
    int *All = malloc(Each * P * sizeof(int));
    for (long I = 0; I < Each; ++I)
      Mine[I] = (int)(Rank * 100000 + I);
    MPI_Allgather(Mine, (int)Each, MPI_INT, All, (int)Each, MPI_INT,
                  MPI_COMM_WORLD);
    for (long I = 0; I < Each * P; ++I)
      expect(All[I] == (int)((I / Each) * 100000 + I % Each), "allgather",
             Bytes, Rank, I);
    free(In), free(Out), free(Mine), free(All);
  }
  int Total = 0;
  MPI_Allreduce(&Failures, &Total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (Rank == 0)
    printf("%s: %d sizes\n", Total ? "FAILED" : "ok", argc - 1);
  MPI_Finalize();
  return Total ? 1 : 0;
}
