/* AlltoallvApp.c - a plain MPI program that knows nothing of collplan.
 *
 * It calls MPI_Alltoallv with per-pair counts K * w(s, d), w(s, d) =
 * (s + 2d) % 3 + 1 (the weights run_interposer_alltoallv.sh compiles its
 * plan for), packed and then with gaps between the blocks; then with one
 * pair's count doubled (only its two ranks see it: the others' own counts
 * still fit the plan). Every result is compared with the library's own
 * PMPI_Alltoallv on the same input: the oracle. Exits 1 on the first
 * wrong element.
 *
 * With the argument "backoff": 20 calls of K = 1 (a small matrix, below
 * the plan's range in run_interposer_alltoallv.sh) and then 3 of K = 101,
 * for the interposer's back-off of its agreement. */

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int Failures = 0;

static int weight(int S, int D) { return (S + 2 * D) % 3 + 1; }

/* One call of counts K * w(s, d) (pair (1, 2) times Odd), blocks Gap ints
 * apart, against PMPI_Alltoallv. */
static void exchange(int Rank, int P, int K, int Gap, int Odd,
                     const char *What) {
  int *SendCounts = malloc(P * sizeof(int)),
      *RecvCounts = malloc(P * sizeof(int));
  int *SendDispls = malloc(P * sizeof(int)),
      *RecvDispls = malloc(P * sizeof(int));
  int SendTotal = 0, RecvTotal = 0;
  for (int Peer = 0; Peer < P; ++Peer) {
    SendCounts[Peer] =
        K * weight(Rank, Peer) * (Rank == 1 && Peer == 2 ? Odd : 1);
    RecvCounts[Peer] =
        K * weight(Peer, Rank) * (Peer == 1 && Rank == 2 ? Odd : 1);
    SendDispls[Peer] = SendTotal;
    RecvDispls[Peer] = RecvTotal;
    SendTotal += SendCounts[Peer] + Gap;
    RecvTotal += RecvCounts[Peer] + Gap;
  }
  int *Send = malloc((SendTotal + 1) * sizeof(int));
  int *Got = malloc((RecvTotal + 1) * sizeof(int));
  int *Want = malloc((RecvTotal + 1) * sizeof(int));
  for (int I = 0; I < SendTotal; ++I)
    Send[I] = Rank * 100000 + I;
  /* The gaps must come back untouched. */
  for (int I = 0; I < RecvTotal; ++I)
    Got[I] = Want[I] = -1;
  MPI_Alltoallv(Send, SendCounts, SendDispls, MPI_INT, Got, RecvCounts,
                RecvDispls, MPI_INT, MPI_COMM_WORLD);
  PMPI_Alltoallv(Send, SendCounts, SendDispls, MPI_INT, Want, RecvCounts,
                 RecvDispls, MPI_INT, MPI_COMM_WORLD);
  for (int I = 0; I < RecvTotal; ++I)
    if (Got[I] != Want[I] && Failures++ < 10)
      fprintf(stderr, "rank %d: %s wrong at element %d: %d, not %d\n", Rank,
              What, I, Got[I], Want[I]);
  free(SendCounts);
  free(RecvCounts);
  free(SendDispls);
  free(RecvDispls);
  free(Send);
  free(Got);
  free(Want);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int Rank, P;
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  if (argc > 1 && !strcmp(argv[1], "backoff")) {
    for (int I = 0; I < 20; ++I)
      exchange(Rank, P, 1, 0, 1, "alltoallv, small");
    for (int I = 0; I < 3; ++I)
      exchange(Rank, P, 101, 0, 1, "alltoallv, large");
  } else {
    exchange(Rank, P, 7, 0, 1, "alltoallv, packed");
    exchange(Rank, P, 101, 3, 1, "alltoallv, with gaps");
    exchange(Rank, P, 7, 0, 2, "alltoallv, one pair off the weights");
  }
  int Any = 0;
  PMPI_Allreduce(&Failures, &Any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (Rank == 0 && !Any)
    printf("alltoallv: every result matches the library's\n");
  MPI_Finalize();
  return Any ? 1 : 0;
}
