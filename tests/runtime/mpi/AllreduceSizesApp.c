/* AllreduceSizesApp.c - MPI_Allreduce alone, at the byte sizes given.
 *
 * An int sum of a vector of each size (rounded down to whole ints, at least
 * one), every element checked against a value computed here by hand; exit
 * 1 on a wrong one. Nothing but MPI_Allreduce, since MPICH under a
 * selection file holding allreduce rules alone stops at any other
 * collective. */

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int Rank, P, Wrong = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  for (int A = 1; A < argc; ++A) {
    long N = atol(argv[A]) / (long)sizeof(int);
    if (N < 1)
      N = 1;
    int *In = malloc(N * sizeof(int)), *Out = malloc(N * sizeof(int));
    for (long I = 0; I < N; ++I)
      In[I] = (int)((Rank + 1) * (I % 1000) + Rank);
    MPI_Allreduce(In, Out, (int)N, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    for (long I = 0; I < N; ++I)
      Wrong += Out[I] != (int)((I % 1000) * P * (P + 1) / 2 + P * (P - 1) / 2);
    free(In);
    free(Out);
  }
  if (Wrong)
    fprintf(stderr, "rank %d: %d wrong elements\n", Rank, Wrong);
  else if (Rank == 0)
    printf("ok\n");
  MPI_Finalize();
  return Wrong != 0;
}
