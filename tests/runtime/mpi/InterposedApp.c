/* InterposedApp.c - a plain MPI program that knows nothing of collplan.
 *
 * It calls MPI_Allreduce (out of place and in place, int sum and double
 * max), MPI_Reduce_scatter_block, MPI_Allgather, MPI_Allgatherv, MPI_Alltoall,
 * MPI_Bcast and MPI_Reduce (from two roots), and checks each result against values computed here by hand.
 * run_interposer.sh runs it with libcollplan_mpi.so preloaded. Exits 1 on
 * the first wrong element. */

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int Failures = 0;

static void expect(int Ok, const char *What, int Rank, long Index) {
  if (!Ok && Failures++ < 10)
    fprintf(stderr, "rank %d: %s wrong at element %ld\n", Rank, What, Index);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int Rank, P;
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  const int N = 1003; /* not a multiple of P */

  /* Allreduce, int sum, out of place; twice (the plan is cached). */
  int *In = malloc(N * sizeof(int)), *Out = malloc(N * sizeof(int));
  for (int Call = 0; Call < 2; ++Call) {
    for (int I = 0; I < N; ++I)
      In[I] = Rank * 1000 + I + Call;
    MPI_Allreduce(In, Out, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    for (int I = 0; I < N; ++I)
      expect(Out[I] == 1000 * P * (P - 1) / 2 + P * (I + Call),
             "allreduce int sum", Rank, I);
  }

  /* Allreduce, double max, in place. */
  double *D = malloc(N * sizeof(double));
  for (int I = 0; I < N; ++I)
    D[I] = (double)((Rank * 7 + I) % P) - 0.5;
  MPI_Allreduce(MPI_IN_PLACE, D, N, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  for (int I = 0; I < N; ++I)
    expect(D[I] == P - 1.5, "allreduce double max in place", Rank, I);

  /* Reduce_scatter_block: rank r gets elements [r*K, (r+1)*K) summed. */
  const int K = 5;
  int *Full = malloc(K * P * sizeof(int)), *Mine = malloc(K * sizeof(int));
  for (int I = 0; I < K * P; ++I)
    Full[I] = I * (Rank + 1);
  MPI_Reduce_scatter_block(Full, Mine, K, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  for (int I = 0; I < K; ++I)
    expect(Mine[I] == (Rank * K + I) * P * (P + 1) / 2, "reduce_scatter_block",
           Rank, I);

  /* Allgather of K floats per rank. */
  float *Part = malloc(K * sizeof(float)), *All = malloc(K * P * sizeof(float));
  for (int I = 0; I < K; ++I)
    Part[I] = (float)(Rank * 100 + I);
  MPI_Allgather(Part, K, MPI_FLOAT, All, K, MPI_FLOAT, MPI_COMM_WORLD);
  for (int I = 0; I < K * P; ++I)
    expect(All[I] == (float)((I / K) * 100 + I % K), "allgather", Rank, I);

  /* Allgatherv: rank r contributes r + 1 ints, packed in rank order. */
  int *Counts = malloc(P * sizeof(int)), *Displs = malloc(P * sizeof(int));
  int Total = 0;
  for (int R = 0; R < P; ++R) {
    Counts[R] = R + 1;
    Displs[R] = Total;
    Total += R + 1;
  }
  int *Mine2 = malloc((Rank + 1) * sizeof(int)),
      *Gathered = malloc(Total * sizeof(int));
  for (int I = 0; I <= Rank; ++I)
    Mine2[I] = Rank * 10 + I;
  MPI_Allgatherv(Mine2, Rank + 1, MPI_INT, Gathered, Counts, Displs, MPI_INT,
                 MPI_COMM_WORLD);
  for (int R = 0; R < P; ++R)
    for (int I = 0; I <= R; ++I)
      expect(Gathered[Displs[R] + I] == R * 10 + I, "allgatherv", Rank,
             Displs[R] + I);

  /* Alltoall: rank s sends rank d the three ints s*1000 + d*10 + t, out of
   * place and then in place. */
  int *ToAll = malloc(3 * P * sizeof(int)), *FromAll = malloc(3 * P * sizeof(int));
  for (int D = 0; D < P; ++D)
    for (int T = 0; T < 3; ++T)
      ToAll[D * 3 + T] = Rank * 1000 + D * 10 + T;
  MPI_Alltoall(ToAll, 3, MPI_INT, FromAll, 3, MPI_INT, MPI_COMM_WORLD);
  for (int S = 0; S < P; ++S)
    for (int T = 0; T < 3; ++T)
      expect(FromAll[S * 3 + T] == S * 1000 + Rank * 10 + T, "alltoall", Rank,
             S * 3 + T);
  MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, ToAll, 3, MPI_INT,
               MPI_COMM_WORLD);
  for (int S = 0; S < P; ++S)
    for (int T = 0; T < 3; ++T)
      expect(ToAll[S * 3 + T] == S * 1000 + Rank * 10 + T,
             "alltoall in place", Rank, S * 3 + T);

  /* Bcast from rank 0. */
  long *B = malloc(N * sizeof(long));
  for (int I = 0; I < N; ++I)
    B[I] = Rank == 0 ? 3L * I + 1 : -1;
  MPI_Bcast(B, N, MPI_LONG, 0, MPI_COMM_WORLD);
  for (int I = 0; I < N; ++I)
    expect(B[I] == 3L * I + 1, "bcast", Rank, I);

  /* Reduce to the last rank, int sum, in place at the root. */
  int Root = P - 1;
  int *Mine3 = malloc(N * sizeof(int));
  for (int I = 0; I < N; ++I)
    Mine3[I] = Rank + I;
  MPI_Reduce(Rank == Root ? MPI_IN_PLACE : Mine3, Rank == Root ? Mine3 : NULL,
             N, MPI_INT, MPI_SUM, Root, MPI_COMM_WORLD);
  if (Rank == Root)
    for (int I = 0; I < N; ++I)
      expect(Mine3[I] == P * (P - 1) / 2 + P * I, "reduce in place", Rank, I);

  /* Reduce to rank 0, double max, out of place; the other ranks' receive
   * buffers must stay untouched. */
  double *Send4 = malloc(N * sizeof(double)), *Recv4 = malloc(N * sizeof(double));
  for (int I = 0; I < N; ++I) {
    Send4[I] = (double)((Rank * 5 + I) % P) + 0.25;
    Recv4[I] = -7;
  }
  MPI_Reduce(Send4, Recv4, N, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  for (int I = 0; I < N; ++I)
    expect(Recv4[I] == (Rank == 0 ? P - 0.75 : -7), "reduce out of place",
           Rank, I);

  int AllFailures = 0;
  MPI_Reduce(&Failures, &AllFailures, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (Rank == 0)
    printf("interposed app: %d wrong elements\n", AllFailures);
  MPI_Finalize();
  return Failures ? 1 : 0;
}
