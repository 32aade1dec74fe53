/* MpichSendSpy.c - the messages MPICH's MPI_Allreduce sends.
 *
 * Preloaded into an MPICH 4.0 job of the ch4:ucx device (Debian's), where
 * every message between ranks, on one node too, leaves through UCX's
 * ucp_tag_send_nbx (or its synchronous twin), which libmpich calls through
 * the PLT. It marks each MPI_Allreduce ("mpich-spy: allreduce COUNT", then
 * "mpich-spy: end") and logs each message sent in between with its bytes
 * and its MPI tag (the tag's low 16 bits: MPICH puts the MPI tag in the low
 * bits of UCX's). An algorithm shows in its messages: recursive doubling
 * sends the whole vector log2 P times under MPIR_ALLREDUCE_TAG (14),
 * reduce-scatter + allgather halves of it, and the nonblocking algorithm
 * sends under its schedule's tag. Plain C, no MPI header: MPICH's handles
 * are ints. */

#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

typedef void *(*Send)(void *, const void *, size_t, uint64_t, const void *);
typedef int (*Allreduce)(const void *, void *, int, int, int, int);

static void *forward(int Sync, void *E, const void *B, size_t N, uint64_t T,
                     const void *P) {
  static Send Real[2];
  if (!Real[Sync])
    Real[Sync] = (Send)dlsym(RTLD_NEXT, Sync ? "ucp_tag_send_sync_nbx"
                                             : "ucp_tag_send_nbx");
  fprintf(stderr, "mpich-spy: %d send %zu tag %u\n", (int)getpid(), N,
          (unsigned)(T & 0xffff));
  return Real[Sync](E, B, N, T, P);
}

void *ucp_tag_send_nbx(void *E, const void *B, size_t N, uint64_t T,
                       const void *P) {
  return forward(0, E, B, N, T, P);
}

void *ucp_tag_send_sync_nbx(void *E, const void *B, size_t N, uint64_t T,
                            const void *P) {
  return forward(1, E, B, N, T, P);
}

int MPI_Allreduce(const void *S, void *R, int Count, int Type, int Op,
                  int Comm) {
  static Allreduce Real;
  if (!Real)
    Real = (Allreduce)dlsym(RTLD_NEXT, "PMPI_Allreduce");
  fprintf(stderr, "mpich-spy: %d allreduce %d\n", (int)getpid(), Count);
  int Code = Real(S, R, Count, Type, Op, Comm);
  fprintf(stderr, "mpich-spy: %d end\n", (int)getpid());
  return Code;
}
