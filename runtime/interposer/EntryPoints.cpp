//===- EntryPoints.cpp - The MPI_ symbols libcollplan_mpi*.so exports -----===//
//
// Every exported MPI_ function takes its handles as machine words
// (Interposed.h) and includes no mpi.h, so that when this build's ABI is not
// the running library's (MpiAbi.h) it can still pass each call on to that
// library's PMPI_ function bit for bit: the program then runs on the
// library's own collectives, as if nothing were preloaded. When the ABIs
// match, a call that repeats the last one MPI served goes straight back there
// (RepeatedCall.h), and any other to the interposer proper (Interposer.cpp).
//
//===----------------------------------------------------------------------===//

#include "runtime/interposer/Interposed.h"
#include "runtime/interposer/MpiAbi.h"
#include "runtime/interposer/RepeatedCall.h"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>

using namespace collplan;
using namespace collplan::runtime;
namespace interposer = collplan::interposer;
using interposer::HandleWord;
using interposer::RawCall;
using interposer::repeatsCallToMpi;

namespace {

/// Looks up the running library's PMPI_ function Name, once; out of line, so
/// that the entry points' common path saves no registers for it.
[[gnu::noinline, gnu::cold]] void *lookUpLibrary(const char *Name) {
  void *Fn = dlsym(RTLD_NEXT, Name);
  if (!Fn) {
    std::fprintf(stderr, "collplan: the MPI library has no %s\n", Name);
    std::abort();
  }
  return Fn;
}

/// The running library's PMPI_ function Name, which has the signature of
/// our entry point Self.
template <auto *Self> auto *library(const char *Name) {
  static decltype(Self) Fn = nullptr;
  if (__builtin_expect(!Fn, 0))
    Fn = reinterpret_cast<decltype(Self)>(lookUpLibrary(Name));
  return Fn;
}

} // namespace

extern "C" {

COLLPLAN_EXPORT int MPI_Init(int *Argc, char ***Argv) {
  int Code = library<&MPI_Init>("PMPI_Init")(Argc, Argv);
  reportAbiMismatch();
  return Code;
}

COLLPLAN_EXPORT int MPI_Init_thread(int *Argc, char ***Argv, int Required,
                                    int *Provided) {
  int Code = library<&MPI_Init_thread>("PMPI_Init_thread")(Argc, Argv, Required,
                                                           Provided);
  reportAbiMismatch();
  return Code;
}

COLLPLAN_EXPORT int MPI_Allreduce(const void *SendBuf, void *RecvBuf, int Count,
                                  HandleWord Type, HandleWord Op,
                                  HandleWord Comm) {
  if (servesRunningMpi()) {
    if (!repeatsCallToMpi(
            RawCall(Collective::Allreduce, Comm, Count, Type, Op, 0)))
      return interposer::allreduce(SendBuf, RecvBuf, Count, Type, Op, Comm);
  }
  return library<&MPI_Allreduce>("PMPI_Allreduce")(SendBuf, RecvBuf, Count,
                                                   Type, Op, Comm);
}

COLLPLAN_EXPORT int MPI_Reduce_scatter_block(const void *SendBuf, void *RecvBuf,
                                             int RecvCount, HandleWord Type,
                                             HandleWord Op, HandleWord Comm) {
  if (servesRunningMpi()) {
    if (!repeatsCallToMpi(
            RawCall(Collective::ReduceScatter, Comm, RecvCount, Type, Op, 0)))
      return interposer::reduceScatterBlock(SendBuf, RecvBuf, RecvCount, Type,
                                            Op, Comm);
  }
  return library<&MPI_Reduce_scatter_block>("PMPI_Reduce_scatter_block")(
      SendBuf, RecvBuf, RecvCount, Type, Op, Comm);
}

COLLPLAN_EXPORT int MPI_Reduce(const void *SendBuf, void *RecvBuf, int Count,
                               HandleWord Type, HandleWord Op, int Root,
                               HandleWord Comm) {
  if (servesRunningMpi()) {
    if (!repeatsCallToMpi(
            RawCall(Collective::Reduce, Comm, Count, Type, Op, Root)))
      return interposer::reduce(SendBuf, RecvBuf, Count, Type, Op, Root, Comm);
  }
  return library<&MPI_Reduce>("PMPI_Reduce")(SendBuf, RecvBuf, Count, Type, Op,
                                             Root, Comm);
}

COLLPLAN_EXPORT int MPI_Bcast(void *Buffer, int Count, HandleWord Type,
                              int Root, HandleWord Comm) {
  if (servesRunningMpi()) {
    if (!repeatsCallToMpi(
            RawCall(Collective::Broadcast, Comm, Count, Type, 0, Root)))
      return interposer::bcast(Buffer, Count, Type, Root, Comm);
  }
  return library<&MPI_Bcast>("PMPI_Bcast")(Buffer, Count, Type, Root, Comm);
}

COLLPLAN_EXPORT int MPI_Allgather(const void *SendBuf, int SendCount,
                                  HandleWord SendType, void *RecvBuf,
                                  int RecvCount, HandleWord RecvType,
                                  HandleWord Comm) {
  if (servesRunningMpi()) {
    // The shape is the receive signature's, which MPI requires every rank's
    // send signature to match.
    if (!repeatsCallToMpi(
            RawCall(Collective::Allgather, Comm, RecvCount, RecvType, 0, 0)))
      return interposer::allgather(SendBuf, SendCount, SendType, RecvBuf,
                                   RecvCount, RecvType, Comm);
  }
  return library<&MPI_Allgather>("PMPI_Allgather")(
      SendBuf, SendCount, SendType, RecvBuf, RecvCount, RecvType, Comm);
}

COLLPLAN_EXPORT int MPI_Allgatherv(const void *SendBuf, int SendCount,
                                   HandleWord SendType, void *RecvBuf,
                                   const int RecvCounts[], const int Displs[],
                                   HandleWord RecvType, HandleWord Comm) {
  if (!servesRunningMpi())
    return library<&MPI_Allgatherv>("PMPI_Allgatherv")(
        SendBuf, SendCount, SendType, RecvBuf, RecvCounts, Displs, RecvType,
        Comm);
  return interposer::allgatherv(SendBuf, SendCount, SendType, RecvBuf,
                                RecvCounts, Displs, RecvType, Comm);
}

COLLPLAN_EXPORT int MPI_Alltoall(const void *SendBuf, int SendCount,
                                 HandleWord SendType, void *RecvBuf,
                                 int RecvCount, HandleWord RecvType,
                                 HandleWord Comm) {
  if (servesRunningMpi()) {
    // The receive signature, as allgather's.
    if (!repeatsCallToMpi(
            RawCall(Collective::Alltoall, Comm, RecvCount, RecvType, 0, 0)))
      return interposer::alltoall(SendBuf, SendCount, SendType, RecvBuf,
                                  RecvCount, RecvType, Comm);
  }
  return library<&MPI_Alltoall>("PMPI_Alltoall")(
      SendBuf, SendCount, SendType, RecvBuf, RecvCount, RecvType, Comm);
}

COLLPLAN_EXPORT int MPI_Alltoallv(const void *SendBuf, const int SendCounts[],
                                  const int SendDispls[], HandleWord SendType,
                                  void *RecvBuf, const int RecvCounts[],
                                  const int RecvDispls[], HandleWord RecvType,
                                  HandleWord Comm) {
  if (!servesRunningMpi())
    return library<&MPI_Alltoallv>("PMPI_Alltoallv")(
        SendBuf, SendCounts, SendDispls, SendType, RecvBuf, RecvCounts,
        RecvDispls, RecvType, Comm);
  return interposer::alltoallv(SendBuf, SendCounts, SendDispls, SendType,
                               RecvBuf, RecvCounts, RecvDispls, RecvType, Comm);
}

COLLPLAN_EXPORT int MPI_Finalize(void) {
  if (!servesRunningMpi())
    return library<&MPI_Finalize>("PMPI_Finalize")();
  return interposer::finalize();
}

} // extern "C"
