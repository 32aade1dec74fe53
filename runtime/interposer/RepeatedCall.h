//===- RepeatedCall.h - A call that repeats the last one MPI served ----*- C++
//-*-===//
//
// An application repeats one call, and when MPI's own collective serves it
// (a library rule, or no plan fits) whatever the interposer does on top of
// Open MPI's 0.1-0.2 us small collective shows as a loss: building the call's
// shape and finding its decision again cost some 250 instructions per call,
// and the call chain from the exported symbol to that check another 100
// (callgrind). So the exported entry points (EntryPoints.cpp) compare the
// call's raw arguments with those of the last call MPI served, inline and
// before anything else, and a repeat goes straight to the library's PMPI_
// function. Includes no mpi.h: the entry points must not.
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_RUNTIME_INTERPOSER_REPEATEDCALL_H
#define COLLPLAN_RUNTIME_INTERPOSER_REPEATEDCALL_H

#include "plan/ir/Collective.h"
#include "runtime/interposer/Interposed.h"

#include <cstdint>

namespace collplan::interposer {

/// A handle word as this build compares it: whole under Open MPI (a
/// pointer), its low half under the MPICH ABI (an int; the caller leaves
/// the upper half unspecified).
inline HandleWord handleBits(HandleWord W) {
#if defined(COLLPLAN_MPI_ABI_MPICH)
  return static_cast<uint32_t>(W);
#else
  return W;
#endif
}

/// The arguments that fix a call's shape, its communicator given. Op is 0
/// for a collective without one. Kept only for predefined datatypes, whose
/// handles never change meaning.
struct RawCall {
  Collective Kind = Collective::Allreduce;
  int Count = 0;
  int Root = 0;
  HandleWord Comm = 0, Type = 0, Op = 0;

  RawCall() = default;
  RawCall(Collective Kind, HandleWord Comm, int Count, HandleWord Type,
          HandleWord Op, int Root)
      : Kind(Kind), Count(Count), Root(Root), Comm(handleBits(Comm)),
        Type(handleBits(Type)), Op(handleBits(Op)) {}

  bool operator==(const RawCall &O) const {
    return Kind == O.Kind && Count == O.Count && Root == O.Root &&
           Comm == O.Comm && Type == O.Type && Op == O.Op;
  }
};

/// The last call MPI's own collective served, and the count of its
/// decision that its repeats add to (none: no call to repeat).
struct LastCallToMpi {
  RawCall Call;
  uint64_t *Repeats = nullptr;
};
extern LastCallToMpi LastToMpi;

/// Whether R repeats the last call MPI's own collective served: then it
/// goes there again, counted as its decision counts.
inline bool repeatsCallToMpi(const RawCall &R) {
  if (!LastToMpi.Repeats || !(R == LastToMpi.Call))
    return false;
  ++*LastToMpi.Repeats;
  return true;
}

} // namespace collplan::interposer

#endif // COLLPLAN_RUNTIME_INTERPOSER_REPEATEDCALL_H
