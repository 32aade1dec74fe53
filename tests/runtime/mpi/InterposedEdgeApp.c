/* InterposedEdgeApp.c - an unmodified MPI program exercising edge cases.
 *
 * Run on 4 ranks by run_interposer_edges.sh with the interposer preloaded:
 * count 0, MPI_IN_PLACE for every interposed function that takes it,
 * repeated calls, calls whose sizes pick different plans, communicators
 * from MPI_Comm_split (created, used and freed twice), a broadcast from a
 * root no plan serves, a datatype of size 0. Every result is checked
 * against values computed here, as is an allgatherv on an
 * intercommunicator (MPI's own). Exits 1 on a wrong element. */

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int Failures = 0;

static void expect(int Ok, const char *What, int Rank, long Index) {
  if (!Ok && Failures++ < 10)
    fprintf(stderr, "rank %d: %s wrong at element %ld\n", Rank, What, Index);
}

/* Allreduce (int sum) of N elements on Comm, in place or not, Calls times. */
static void allreduce(MPI_Comm Comm, int N, int InPlace, int Calls,
                      const char *What) {
  int Rank, P;
  MPI_Comm_rank(Comm, &Rank);
  MPI_Comm_size(Comm, &P);
  int *In = malloc((N + 1) * sizeof(int)), *Out = malloc((N + 1) * sizeof(int));
  for (int Call = 0; Call < Calls; ++Call) {
    for (int I = 0; I <= N; ++I) {
      In[I] = Rank * 3 + I + Call;
      Out[I] = InPlace ? In[I] : -7;
    }
    MPI_Allreduce(InPlace ? MPI_IN_PLACE : In, Out, N, MPI_INT, MPI_SUM, Comm);
    for (int I = 0; I < N; ++I)
      expect(Out[I] == 3 * P * (P - 1) / 2 + P * (I + Call), What, Rank, I);
    /* Past the count nothing may be written. */
    expect(Out[N] == (InPlace ? In[N] : -7), What, Rank, N);
  }
  free(In);
  free(Out);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int Rank, P;
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  MPI_Comm_size(MPI_COMM_WORLD, &P);

  /* Count 0, both ways; then small and large calls (different plans),
   * repeated and interleaved. */
  allreduce(MPI_COMM_WORLD, 0, 0, 2, "allreduce count 0");
  allreduce(MPI_COMM_WORLD, 0, 1, 2, "allreduce count 0 in place");
  for (int Rep = 0; Rep < 2; ++Rep) {
    allreduce(MPI_COMM_WORLD, 3, 0, 2, "allreduce small");
    allreduce(MPI_COMM_WORLD, 5000, 0, 2, "allreduce large");
    allreduce(MPI_COMM_WORLD, 5000, 1, 1, "allreduce large in place");
    allreduce(MPI_COMM_WORLD, 7, 1, 1, "allreduce small in place");
  }

  /* Reduce_scatter_block in place: the whole vector is in RecvBuf. */
  for (int K = 0; K <= 3; K += 3) {
    int *V = malloc((K * P + 1) * sizeof(int));
    for (int I = 0; I < K * P; ++I)
      V[I] = I * (Rank + 1);
    MPI_Reduce_scatter_block(MPI_IN_PLACE, V, K, MPI_INT, MPI_SUM,
                             MPI_COMM_WORLD);
    for (int I = 0; I < K; ++I)
      expect(V[I] == (Rank * K + I) * P * (P + 1) / 2,
             "reduce_scatter_block in place", Rank, I);
    free(V);
  }

  /* Allgather in place, and of 0 elements. */
  for (int K = 0; K <= 4; K += 4) {
    float *All = malloc((K * P + 1) * sizeof(float));
    for (int I = 0; I < K * P; ++I)
      All[I] = I / K == Rank ? (float)(Rank * 100 + I % K) : -1.0f;
    MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, All, K, MPI_FLOAT,
                  MPI_COMM_WORLD);
    for (int I = 0; I < K * P; ++I)
      expect(All[I] == (float)((I / K) * 100 + I % K), "allgather in place",
             Rank, I);
    free(All);
  }

  /* Allgatherv in place: rank r's r + 1 ints already sit at Displs[r]. */
  {
    int *Counts = malloc(P * sizeof(int)), *Displs = malloc(P * sizeof(int));
    int Total = 0;
    for (int R = 0; R < P; ++R) {
      Counts[R] = R + 1;
      Displs[R] = Total;
      Total += R + 1;
    }
    int *G = malloc(Total * sizeof(int));
    for (int I = 0; I < Total; ++I)
      G[I] = -1;
    for (int I = 0; I <= Rank; ++I)
      G[Displs[Rank] + I] = Rank * 10 + I;
    MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, G, Counts, Displs,
                   MPI_INT, MPI_COMM_WORLD);
    for (int R = 0; R < P; ++R)
      for (int I = 0; I <= R; ++I)
        expect(G[Displs[R] + I] == R * 10 + I, "allgatherv in place", Rank,
               Displs[R] + I);
    free(G);
    free(Counts);
    free(Displs);
  }

  /* Bcast from rank 1 (a plan) and rank 0 (no plan), of 0 and 100 longs. */
  for (int Root = 0; Root < 2; ++Root)
    for (int N = 0; N <= 100; N += 100) {
      long B[101];
      for (int I = 0; I <= N; ++I)
        B[I] = Rank == Root ? 3L * I + Root : -1;
      MPI_Bcast(B, N, MPI_LONG, Root, MPI_COMM_WORLD);
      for (int I = 0; I < N; ++I)
        expect(B[I] == 3L * I + Root, "bcast", Rank, I);
      expect(B[N] == (Rank == Root ? 3L * N + Root : -1), "bcast", Rank, N);
    }

  /* Sub-communicators: split, use, free, twice. Their P (2) has an
   * allreduce plan, and an allgather file whose plan is for another P. */
  for (int Round = 0; Round < 2; ++Round) {
    MPI_Comm Half;
    MPI_Comm_split(MPI_COMM_WORLD, Rank % 2, P - Rank, &Half);
    allreduce(Half, 1000, Round, 2, "allreduce on a split communicator");
    int HRank, HP;
    MPI_Comm_rank(Half, &HRank);
    MPI_Comm_size(Half, &HP);
    int Mine[2] = {HRank, HRank + 50}, All[8];
    MPI_Allgather(Mine, 2, MPI_INT, All, 2, MPI_INT, Half);
    for (int I = 0; I < 2 * HP; ++I)
      expect(All[I] == I / 2 + 50 * (I % 2), "allgather on a split comm", Rank,
             I);
    MPI_Comm_free(&Half);
  }
  /* An intercommunicator between world rank 0 and the 3 others: always
   * MPI's own collective, even with a plan for the local group's size. */
  {
    MPI_Comm Local, Inter;
    int Color = Rank == 0;
    MPI_Comm_split(MPI_COMM_WORLD, Color, Rank, &Local);
    MPI_Intercomm_create(Local, 0, MPI_COMM_WORLD, Color ? 1 : 0, 77, &Inter);
    int RSize;
    MPI_Comm_remote_size(Inter, &RSize);
    int *Cnt = malloc(RSize * sizeof(int)), *Dsp = malloc(RSize * sizeof(int));
    int *Got = malloc(RSize * sizeof(int));
    for (int R = 0; R < RSize; ++R) {
      Cnt[R] = 1;
      Dsp[R] = R;
      Got[R] = -1;
    }
    int Mine = Rank * 11;
    MPI_Allgatherv(&Mine, 1, MPI_INT, Got, Cnt, Dsp, MPI_INT, Inter);
    for (int R = 0; R < RSize; ++R)
      expect(Got[R] == (Color ? R + 1 : 0) * 11, "allgatherv on an intercomm",
             Rank, R);
    free(Cnt);
    free(Dsp);
    free(Got);
    MPI_Comm_free(&Inter);
    MPI_Comm_free(&Local);
  }

  /* A datatype of size 0 (MPICH's coll suite has such broadcasts): 10 of
   * them move no byte, so nothing may be written and nothing may abort,
   * with a plan for these calls (broadcast from rank 1, allgather,
   * allgatherv of equal weights: 0 bytes is in every plan's range). */
  {
    MPI_Datatype Empty;
    MPI_Type_contiguous(0, MPI_INT, &Empty);
    MPI_Type_commit(&Empty);
    int Buffer[4 * 10], Mine[10], Counts[4], Displs[4];
    for (int I = 0; I < 40; ++I)
      Buffer[I] = -5;
    for (int I = 0; I < 10; ++I)
      Mine[I] = Rank;
    for (int R = 0; R < 4; ++R) {
      Counts[R] = 10;
      Displs[R] = 10 * R;
    }
    MPI_Bcast(Buffer, 10, Empty, 1, MPI_COMM_WORLD);
    MPI_Allgather(Mine, 10, Empty, Buffer, 10, Empty, MPI_COMM_WORLD);
    MPI_Allgatherv(Mine, 10, Empty, Buffer, Counts, Displs, Empty,
                   MPI_COMM_WORLD);
    for (int I = 0; I < 40; ++I)
      expect(Buffer[I] == -5, "a zero-size datatype", Rank, I);
    MPI_Type_free(&Empty);
  }

  /* And the world still works after all that. */
  allreduce(MPI_COMM_WORLD, 5000, 0, 1, "allreduce after the splits");

  int AllFailures = 0;
  MPI_Allreduce(&Failures, &AllFailures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (Rank == 0)
    printf("interposed edge app: %d wrong elements\n", AllFailures);
  MPI_Finalize();
  return AllFailures ? 1 : 0;
}
