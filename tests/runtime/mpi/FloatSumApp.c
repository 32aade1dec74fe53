/* FloatSumApp.c - an unmodified MPI program whose float sums round
 * differently when ranks combine in different orders.
 *
 * MPI_Allreduce of 4096 floats of widely spread magnitudes (MPI_SUM), then
 * of 4096 ints. Checks every float against the sum computed here in double
 * (relative error below 1e-5) and every int exactly, and prints how many
 * floats differ bitwise from rank 0's result (compared through an
 * allgather of the bits). Exits 1 on a wrong element. */

#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { N = 4096 };

static float valueOf(int Rank, int I) {
  float Mantissa = 1.0f + (float)((Rank * 7919 + I * 104729) % 1000) / 1000.0f;
  int Exponent = (Rank * 31 + I * 17) % 40 - 20;
  return ((Rank + I) % 3 ? 1.0f : -1.0f) * ldexpf(Mantissa, Exponent);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int Rank, P;
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  float *In = malloc(N * sizeof(float)), *Out = malloc(N * sizeof(float));
  for (int I = 0; I < N; ++I)
    In[I] = valueOf(Rank, I);
  MPI_Allreduce(In, Out, N, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  long Wrong = 0;
  for (int I = 0; I < N; ++I) {
    double Exact = 0, Scale = 0;
    for (int R = 0; R < P; ++R) {
      Exact += valueOf(R, I);
      Scale += fabs(valueOf(R, I));
    }
    Wrong += fabs(Out[I] - Exact) > 1e-5 * Scale;
  }
  /* Every rank's bits beside rank 0's. */
  float *All = malloc((size_t)P * N * sizeof(float));
  MPI_Allgather(Out, N, MPI_FLOAT, All, N, MPI_FLOAT, MPI_COMM_WORLD);
  long Differ = 0;
  for (int R = 1; R < P; ++R)
    for (int I = 0; I < N; ++I)
      Differ += memcmp(&All[(size_t)R * N + I], &All[I], sizeof(float)) != 0;

  int *IntIn = malloc(N * sizeof(int)), *IntOut = malloc(N * sizeof(int));
  for (int I = 0; I < N; ++I)
    IntIn[I] = Rank * 1000 + I;
  MPI_Allreduce(IntIn, IntOut, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  for (int I = 0; I < N; ++I)
    Wrong += IntOut[I] != 1000 * P * (P - 1) / 2 + P * I;

  long AllWrong = 0;
  MPI_Allreduce(&Wrong, &AllWrong, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (Rank == 0)
    printf("float sums: %ld wrong elements; %ld floats differ from rank 0's "
           "bits\n",
           AllWrong, Differ);
  MPI_Finalize();
  return AllWrong ? 1 : 0;
}
