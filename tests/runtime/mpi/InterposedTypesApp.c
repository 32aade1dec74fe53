/* InterposedTypesApp.c - legal MPI calls whose ranks describe the same bytes
 * differently, which must neither hang nor go wrong under the interposer.
 *
 *   1. MPI_Allgather: rank 1 receives pairs of ints (a contiguous derived
 *      type), rank 2 every other int of a strided buffer (a resized type),
 *      the others plain ints; one rank sends in place.
 *   2. MPI_Allgatherv: every rank lays its receive buffer out with its own
 *      displacements (parts in reverse order, with gaps).
 *   3. MPI_Bcast: the root sends 10 x N MPI_INT; receivers take N elements of
 *      a contiguous type of 10 ints, a struct of 10 ints, or a vector type
 *      with holes.
 *   4. MPI_Allreduce with a user-defined operator: MPI's own collective runs
 *      (the log must say why).
 * Every result is checked against values computed here. Exits 1 on the first
 * wrong element. */

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int Failures = 0;

static void expect(int Ok, const char *What, int Rank, long Index) {
  if (!Ok && Failures++ < 10)
    fprintf(stderr, "rank %d: %s wrong at element %ld\n", Rank, What, Index);
}

static void addInts(void *In, void *InOut, int *Len, MPI_Datatype *T) {
  (void)T;
  for (int I = 0; I < *Len; ++I)
    ((int *)InOut)[I] += ((int *)In)[I];
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int Rank, P;
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  const int K = 6; /* ints per rank in the allgather */

  /* 1. Allgather with different receive types. */
  {
    MPI_Datatype Pair, Strided;
    MPI_Type_contiguous(2, MPI_INT, &Pair);
    MPI_Type_commit(&Pair);
    MPI_Type_create_resized(MPI_INT, 0, 2 * sizeof(int), &Strided);
    MPI_Type_commit(&Strided);
    int *Send = malloc(K * sizeof(int));
    int *Recv = calloc(2 * K * P, sizeof(int));
    for (int I = 0; I < K; ++I)
      Send[I] = Rank * 100 + I;
    int Stride = 1;
    if (Rank == 1) {
      MPI_Allgather(Send, K, MPI_INT, Recv, K / 2, Pair, MPI_COMM_WORLD);
    } else if (Rank == 2) {
      Stride = 2;
      MPI_Allgather(Send, K, MPI_INT, Recv, K, Strided, MPI_COMM_WORLD);
    } else if (Rank == P - 1) {
      memcpy(Recv + Rank * K, Send, K * sizeof(int));
      MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, Recv, K, MPI_INT,
                    MPI_COMM_WORLD);
    } else {
      MPI_Allgather(Send, K, MPI_INT, Recv, K, MPI_INT, MPI_COMM_WORLD);
    }
    for (int I = 0; I < K * P; ++I)
      expect(Recv[I * Stride] == (I / K) * 100 + I % K,
             "allgather with derived receive types", Rank, I);
    if (Stride == 2)
      for (int I = 0; I < K * P; ++I)
        expect(Recv[2 * I + 1] == 0, "allgather wrote into a hole", Rank, I);
    free(Send);
    free(Recv);
    MPI_Type_free(&Pair);
    MPI_Type_free(&Strided);
  }

  /* 2. Allgatherv: rank j sends j + 1 ints; every rank places the parts in
   * reverse order with a gap of Rank + 1 ints before each. */
  {
    int *Counts = malloc(P * sizeof(int)), *Displs = malloc(P * sizeof(int));
    int At = 0;
    for (int J = P - 1; J >= 0; --J) {
      Counts[J] = J + 1;
      At += Rank + 1;
      Displs[J] = At;
      At += J + 1;
    }
    int *Recv = malloc(At * sizeof(int));
    for (int I = 0; I < At; ++I)
      Recv[I] = -1;
    int *Send = malloc((Rank + 1) * sizeof(int));
    for (int I = 0; I <= Rank; ++I)
      Send[I] = Rank * 1000 + I;
    if (Rank == 0) {
      Recv[Displs[0]] = 0;
      MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, Recv, Counts, Displs,
                     MPI_INT, MPI_COMM_WORLD);
    } else {
      MPI_Allgatherv(Send, Rank + 1, MPI_INT, Recv, Counts, Displs, MPI_INT,
                     MPI_COMM_WORLD);
    }
    for (int J = 0; J < P; ++J)
      for (int I = 0; I <= J; ++I)
        expect(Recv[Displs[J] + I] == J * 1000 + I,
               "allgatherv with rank-local displacements", Rank, J);
    for (int J = 0; J < P; ++J)
      expect(Recv[Displs[J] - 1] == -1, "allgatherv wrote into a gap", Rank,
             J);
    free(Counts);
    free(Displs);
    free(Recv);
    free(Send);
  }

  /* 3. Bcast of 10 x N ints from rank 0, received as N elements of three
   * different derived types. */
  {
    const int N = 7;
    MPI_Datatype Ten, Struct, Holes;
    MPI_Type_contiguous(10, MPI_INT, &Ten);
    MPI_Type_commit(&Ten);
    int Lengths[1] = {10};
    MPI_Aint Offsets[1] = {0};
    MPI_Datatype Types[1] = {MPI_INT};
    MPI_Type_create_struct(1, Lengths, Offsets, Types, &Struct);
    MPI_Type_commit(&Struct);
    /* 10 ints, each followed by a hole of one int. */
    MPI_Type_vector(10, 1, 2, MPI_INT, &Holes);
    MPI_Datatype HolesResized;
    MPI_Type_create_resized(Holes, 0, 20 * sizeof(int), &HolesResized);
    MPI_Type_commit(&HolesResized);
    int *Buf = malloc(20 * N * sizeof(int));
    for (int I = 0; I < 20 * N; ++I)
      Buf[I] = Rank == 0 ? I * 3 : -1;
    int Stride = 1;
    if (Rank == 0)
      MPI_Bcast(Buf, 10 * N, MPI_INT, 0, MPI_COMM_WORLD);
    else if (Rank % 3 == 1)
      MPI_Bcast(Buf, N, Ten, 0, MPI_COMM_WORLD);
    else if (Rank % 3 == 2)
      MPI_Bcast(Buf, N, Struct, 0, MPI_COMM_WORLD);
    else {
      Stride = 2;
      MPI_Bcast(Buf, N, HolesResized, 0, MPI_COMM_WORLD);
    }
    for (int I = 0; I < 10 * N; ++I)
      expect(Buf[I * Stride] == I * 3, "bcast with derived receive types",
             Rank, I);
    if (Stride == 2)
      for (int I = 0; I < 10 * N; ++I)
        expect(Buf[2 * I + 1] == -1, "bcast wrote into a hole", Rank, I);
    free(Buf);
    MPI_Type_free(&Ten);
    MPI_Type_free(&Struct);
    MPI_Type_free(&Holes);
    MPI_Type_free(&HolesResized);
  }

  /* 4. Allreduce with a user-defined operator. */
  {
    MPI_Op Add;
    MPI_Op_create(addInts, 1, &Add);
    int In[3] = {Rank, 2 * Rank, 3}, Out[3];
    MPI_Allreduce(In, Out, 3, MPI_INT, Add, MPI_COMM_WORLD);
    expect(Out[0] == P * (P - 1) / 2 && Out[1] == P * (P - 1) && Out[2] == 3 * P,
           "allreduce with a user-defined operator", Rank, 0);
    MPI_Op_free(&Add);
  }

  int AllFailures = 0;
  MPI_Reduce(&Failures, &AllFailures, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (Rank == 0)
    printf("interposed types app: %d wrong elements\n", AllFailures);
  MPI_Finalize();
  return Failures ? 1 : 0;
}
