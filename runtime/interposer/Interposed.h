//===- Interposed.h - The interposed collectives, behind the ABI check ----===//
//
// EntryPoints.cpp exports the MPI_ symbols and, once it knows that this build
// may read the running library's handles (MpiAbi.h), calls these. Handles
// arrive as the machine words the caller passed, since the entry points must
// forward them intact to a library of either ABI; Interposer.cpp turns them
// back into its own mpi.h's types.
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_RUNTIME_INTERPOSER_INTERPOSED_H
#define COLLPLAN_RUNTIME_INTERPOSER_INTERPOSED_H

#include <cstdint>

namespace collplan::interposer {

/// An MPI handle (MPI_Comm, MPI_Datatype, MPI_Op) as passed in a register
/// or stack slot: a pointer under Open MPI, a 32-bit integer in the low
/// half under the MPICH ABI.
using HandleWord = uintptr_t;

int allreduce(const void *SendBuf, void *RecvBuf, int Count, HandleWord Type,
              HandleWord Op, HandleWord Comm);
int reduceScatterBlock(const void *SendBuf, void *RecvBuf, int RecvCount,
                       HandleWord Type, HandleWord Op, HandleWord Comm);
int reduce(const void *SendBuf, void *RecvBuf, int Count, HandleWord Type,
           HandleWord Op, int Root, HandleWord Comm);
int bcast(void *Buffer, int Count, HandleWord Type, int Root, HandleWord Comm);
int allgather(const void *SendBuf, int SendCount, HandleWord SendType,
              void *RecvBuf, int RecvCount, HandleWord RecvType,
              HandleWord Comm);
int allgatherv(const void *SendBuf, int SendCount, HandleWord SendType,
               void *RecvBuf, const int RecvCounts[], const int Displs[],
               HandleWord RecvType, HandleWord Comm);
int alltoall(const void *SendBuf, int SendCount, HandleWord SendType,
             void *RecvBuf, int RecvCount, HandleWord RecvType,
             HandleWord Comm);
int alltoallv(const void *SendBuf, const int SendCounts[],
              const int SendDispls[], HandleWord SendType, void *RecvBuf,
              const int RecvCounts[], const int RecvDispls[],
              HandleWord RecvType, HandleWord Comm);
/// Prints the summaries still due, then finalizes MPI.
int finalize();

} // namespace collplan::interposer

#endif // COLLPLAN_RUNTIME_INTERPOSER_INTERPOSED_H
