//===- TunedCall.h - One call collplan_tune_mpi times, both ways ---------===//
//
// One call of a plan directory's table (collective, root) at one size, as
// the MPI library and as the interposer serve it: the buffers and arguments
// for both, and the call shape the plan is chosen by.
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_RUNTIME_TUNE_TUNEDCALL_H
#define COLLPLAN_RUNTIME_TUNE_TUNEDCALL_H

#include "plan/dispatch/CallShape.h"

#include <mpi.h>

#include <optional>
#include <vector>

namespace collplan {

class TunedCall {
public:
  TunedCall(Collective Kind, std::optional<uint32_t> Root, uint64_t Bytes,
            int Rank, int Size);

  const CallShape &shape() const { return Shape; }

  /// The library's call on Comm; its error code (MPI_ERRORS_RETURN).
  int library(MPI_Comm Comm = MPI_COMM_WORLD);

  /// The same call through the interposer's own path (Interposed.h), as an
  /// interposed program makes it: on a communicator whose plan is pinned
  /// (CallDecision.h, pinPlan), that plan runs, and its time includes what
  /// the interposer does around it.
  int interposed(MPI_Comm Comm);

private:
  /// The call made with Api's functions, which take MPI's arguments.
  template <typename Api> int call(MPI_Comm Comm);

  Collective Kind;
  uint32_t Root;
  CallShape Shape;
  uint64_t Elements = 0, Part = 0;
  std::vector<int> Counts, Displs;
  std::vector<char> Send, Recv;
};

} // namespace collplan

#endif // COLLPLAN_RUNTIME_TUNE_TUNEDCALL_H
