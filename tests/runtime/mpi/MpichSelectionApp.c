/* MpichSelectionApp builtin|user DIR COUNT... — MPI_Allreduce under MPICH.
 *
 * Sums COUNT doubles per call, with MPI_SUM (builtin) or a user-defined
 * commutative sum (user), whose every invocation by MPICH's algorithm is
 * logged: recursive doubling combines whole vectors, log2 P times on every
 * rank. Each rank writes DIR/rank-R one line per count, "COUNT: LEN LEN ..."
 * (user: the lengths in call order; a file per rank, as the launcher would
 * interleave their output), and checks the sums (exit 1 if one is wrong).
 * Plain C, so the test builds it with mpicc.mpich. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MaxCalls = 64 };
static int Lengths[MaxCalls];
static int Calls;

static void sum(void *In, void *InOut, int *Len, MPI_Datatype *Type) {
  (void)Type;
  if (Calls < MaxCalls)
    Lengths[Calls] = *Len;
  ++Calls;
  for (int I = 0; I < *Len; ++I)
    ((double *)InOut)[I] += ((double *)In)[I];
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int Rank, Size, Wrong = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  MPI_Comm_size(MPI_COMM_WORLD, &Size);
  int User = argc > 1 && strcmp(argv[1], "user") == 0;
  MPI_Op Op = MPI_SUM;
  if (User)
    MPI_Op_create(sum, 1, &Op);
  char Path[4096];
  snprintf(Path, sizeof Path, "%s/rank-%d", argc > 2 ? argv[2] : ".", Rank);
  FILE *Log = fopen(Path, "w");
  if (!Log) {
    perror(Path);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  for (int A = 3; A < argc; ++A) {
    int Count = atoi(argv[A]);
    double *In = malloc(sizeof(double) * Count);
    double *Out = malloc(sizeof(double) * Count);
    for (int I = 0; I < Count; ++I)
      In[I] = Rank + I % 7;
    Calls = 0;
    MPI_Allreduce(In, Out, Count, MPI_DOUBLE, Op, MPI_COMM_WORLD);
    for (int I = 0; I < Count; ++I)
      Wrong += Out[I] != Size * (Size - 1) / 2.0 + Size * (I % 7);
    fprintf(Log, "%d:", Count);
    for (int C = 0; C < Calls && C < MaxCalls; ++C)
      fprintf(Log, " %d", Lengths[C]);
    fprintf(Log, "\n");
    fflush(Log);
    free(In);
    free(Out);
  }
  if (User)
    MPI_Op_free(&Op);
  fclose(Log);
  if (Wrong)
    fprintf(stderr, "rank %d: %d wrong sums\n", Rank, Wrong);
  MPI_Finalize();
  return Wrong != 0;
}
