/* ReproducibleSumApp.c - an unmodified MPI program that sums the same data
 * with calls of different sizes, as a training job does when its buckets
 * change shape (the RCCL report behind reproducible reductions: rows of 64
 * floats, a call of 1664 rows against one of 2048, here scaled down).
 *
 * Every call reduces a prefix of one vector of floats (then of doubles) of
 * widely spread magnitudes with MPI_SUM. Checks every element against the
 * sum computed here in long double (a relative error bound), then counts
 * the elements whose bits differ from the largest call's (across sizes) and
 * from rank 0's (across ranks, through an allgather of the bits). Prints
 * both counts per type; exits 1 on a wrong element. */

#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { Rows = 32, Width = 64, N = Rows * Width };

/* Element counts of the calls: prefixes of the vector, from a few elements
 * (block boundaries in other places) to the whole. */
static const int Sizes[] = {7, 200, 26 * Width, N};
enum { NumSizes = sizeof Sizes / sizeof Sizes[0] };

static double valueOf(int Rank, int I) {
  double Mantissa = 1.0 + (double)((Rank * 7919 + I * 104729) % 1000) / 1000.0;
  int Exponent = (Rank * 31 + I * 17) % 40 - 20;
  return ((Rank + I) % 3 ? 1.0 : -1.0) * ldexp(Mantissa, Exponent);
}

/* Sums the prefixes of one vector of Type (Size bytes an element) and
 * returns the number of wrong elements; prints the counts of differing
 * bits. */
static long check(MPI_Datatype Type, int Size, const char *Name, int Rank,
                  int P) {
  char *In = malloc((size_t)N * Size), *Out = malloc((size_t)N * Size);
  char *Whole = malloc((size_t)N * Size);
  char *All = malloc((size_t)P * N * Size);
  for (int I = 0; I < N; ++I) {
    if (Size == 4) {
      float V = (float)valueOf(Rank, I);
      memcpy(In + (size_t)I * 4, &V, 4);
    } else {
      double V = valueOf(Rank, I);
      memcpy(In + (size_t)I * 8, &V, 8);
    }
  }
  long Wrong = 0, AcrossSizes = 0, AcrossRanks = 0;
  /* The largest call first: the others are compared with it. */
  for (int K = NumSizes - 1; K >= 0; --K) {
    int Count = Sizes[K];
    MPI_Allreduce(In, Out, Count, Type, MPI_SUM, MPI_COMM_WORLD);
    if (K == NumSizes - 1)
      memcpy(Whole, Out, (size_t)N * Size);
    for (int I = 0; I < Count; ++I) {
      long double Exact = 0, Scale = 0;
      for (int R = 0; R < P; ++R) {
        double V = Size == 4 ? (double)(float)valueOf(R, I) : valueOf(R, I);
        Exact += V;
        Scale += fabs(V);
      }
      double Got;
      if (Size == 4) {
        float F;
        memcpy(&F, Out + (size_t)I * 4, 4);
        Got = F;
      } else {
        memcpy(&Got, Out + (size_t)I * 8, 8);
      }
      Wrong += fabsl(Got - Exact) > (Size == 4 ? 1e-5 : 1e-13) * Scale;
      AcrossSizes += memcmp(Out + (size_t)I * Size, Whole + (size_t)I * Size,
                            Size) != 0;
    }
    MPI_Allgather(Out, Count * Size, MPI_BYTE, All, Count * Size, MPI_BYTE,
                  MPI_COMM_WORLD);
    for (int R = 1; R < P; ++R)
      for (int I = 0; I < Count; ++I)
        AcrossRanks += memcmp(All + ((size_t)R * Count + I) * Size,
                              All + (size_t)I * Size, Size) != 0;
  }
  long AnyRank = 0;
  MPI_Allreduce(&AcrossSizes, &AnyRank, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (Rank == 0)
    printf("%s sums: %ld elements differ across sizes; %ld differ across "
           "ranks\n",
           Name, AnyRank, AcrossRanks);
  free(In);
  free(Out);
  free(Whole);
  free(All);
  return Wrong;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int Rank, P;
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  long Wrong = check(MPI_FLOAT, 4, "float", Rank, P) +
               check(MPI_DOUBLE, 8, "double", Rank, P);
  long AllWrong = 0;
  MPI_Allreduce(&Wrong, &AllWrong, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (Rank == 0)
    printf("%ld wrong elements\n", AllWrong);
  MPI_Finalize();
  return AllWrong ? 1 : 0;
}
