//===- CallDecision.h - Which path an interposed call takes -----*- C++ -*-===//
//
// Every rank of a call must take the same path, or the job hangs. So the
// choice depends only on what MPI guarantees is equal on every rank of a
// call: the communicator, the size in bytes of the type signature, the
// counts, the root, and for reductions the datatype and operator (a
// CallShape). The first call of each shape on a communicator looks its plan
// up on every rank, and the ranks agree on it with one allreduce of the
// plan's hash: all run it, all call PMPI_, or, when they found different
// plans (or one found none), all fail with a message naming both. The
// decision is kept per communicator, so a later call of that shape costs a
// map lookup (a key comparison when it repeats the communicator and shape
// of the call before it, and a comparison of its raw arguments when MPI's
// own collective served that call).
//
// COLLPLAN_VERBOSE=1 logs each decision (once per communicator and call
// shape), each reason for calling MPI's own collective once, and a summary
// per communicator when it is freed or at MPI_Finalize; COLLPLAN_VERBOSE=2
// logs every call. Nothing is formatted when logging is off.
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_RUNTIME_INTERPOSER_CALLDECISION_H
#define COLLPLAN_RUNTIME_INTERPOSER_CALLDECISION_H

#include "runtime/Executor.h"
#include "runtime/interposer/PlanDirectory.h"
#include "runtime/interposer/RepeatedCall.h"
#include "runtime/mpi/MpiTransport.h"

#include "llvm/ADT/STLFunctionalExtras.h"

#include <mpi.h>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace collplan::interposer {

using runtime::Executor;
using runtime::FoundPlan;
using runtime::MpiTransport;
using runtime::Transport;

/// What the ranks of a communicator agreed to do with calls of one shape.
struct Decision {
  std::optional<FoundPlan> Found; ///< Nothing: call PMPI_.
  /// Non-empty when the ranks found different plans: every such call fails.
  std::string Error;
  /// The executor of Found's plan once a call has run it (owned by
  /// CommState::Executors), so a repeated call skips that lookup.
  Executor *Ex = nullptr;
  /// Calls left to MPI because no plan fits, counted here rather than in
  /// CommState::Fallbacks (a string key on every call); summarize() adds
  /// them in.
  uint64_t NoPlanCalls = 0;
  /// Calls a library rule sent to MPI on purpose, counted the same way.
  uint64_t LibraryCalls = 0;
  /// fromAgreedPlan's back-off: agreed calls in a row that went to MPI, the
  /// calls still to send there without agreeing, the next such gap, and the
  /// calls it sent so. All follow from the agreements' results and the
  /// count of calls, which every rank sees alike.
  uint32_t AgreedToMpi = 0;
  uint64_t SkipCalls = 0, NextGap = 0, SkippedCalls = 0;
};

/// What a communicator keeps between calls: its decisions, the private
/// duplicate our messages travel on (made when the first plan runs, so they
/// never meet the application's), one executor per plan, staging areas, and
/// the counts the summary reports.
struct CommState {
  uint32_t Rank = 0, Size = 1;
  bool Inter = false;
  std::string Name;
  MPI_Comm Dup = MPI_COMM_NULL;
  std::unique_ptr<MpiTransport> Transport;
  std::map<CallShape, Decision> Decisions;
  /// The plan every call of the communicator's shapes runs, whatever the
  /// directory holds (pinPlan).
  std::optional<FoundPlan> Pinned;
  /// The entry of Decisions the last call used: an application repeats one
  /// call shape, and an equality test of the key is cheaper than a search
  /// of the map. Map entries never move, and are never erased.
  std::pair<const CallShape, Decision> *LastDecision = nullptr;
  std::map<const RankSlice *, std::unique_ptr<Executor>> Executors;
  std::vector<char> Staging, SendStaging;
  uint64_t FromPlans = 0;
  std::map<std::string, uint64_t> Fallbacks; ///< By reason.
  bool Summarized = false;
};

/// One interposed call, described independently of its MPI signature.
struct Call {
  const char *Function;
  MPI_Comm Comm;
  CallShape Key;
  /// Its raw arguments, when a repeat may skip the shape (RawCall).
  std::optional<RawCall> Raw;

  Call(const char *Function, MPI_Comm Comm, Collective Kind)
      : Function(Function), Comm(Comm) {
    Key.Kind = Kind;
  }

  /// Its decision holds for calls of every size (fromAgreedPlan's).
  bool AnySize = false;

  std::string describe(const CommState &S) const {
    return std::string(Function) + " of " +
           (AnySize ? std::string("any size")
                    : std::to_string(Key.Bytes) + " bytes") +
           " on " + std::to_string(S.Size) + " ranks";
  }
  std::string mpiFunction() const {
    return "PMPI_" + std::string(Function).substr(4);
  }
};

/// Leaves the call to MPI for a reason found before any plan lookup.
void refuse(const Call &C, const std::string &Reason);

/// How a plan runs one call: the executor, the transport, and the state
/// whose staging areas it may use.
using RunFn =
    llvm::function_ref<llvm::Error(Executor &, Transport &, CommState &)>;

/// The call's result when its ranks agreed on a plan and ran it; nothing when
/// they all go to PMPI_.
std::optional<int> fromPlan(Call &C, RunFn Run);

/// A rank's test of its own part of a call against a plan's header: the
/// vector's bytes the part implies (0: the part is empty at any size), or
/// nothing when the plan cannot serve it.
using PartFitFn = llvm::function_ref<std::optional<uint64_t>(const PlanHeader &,
                                                             uint32_t Rank)>;

/// For a call whose shape no rank knows whole (MPI_Alltoallv: each rank
/// knows its row and column of the counts): the communicator's ranks agree
/// once, as fromPlan does, on the directory's plan of C's collective for
/// their P (PlanDirectory::findForRanks), whatever its size and weights.
/// Then every call costs one more allreduce of three 64-bit integers: each
/// rank's PartFit verdict and size; the plan runs (C.Key.Bytes the agreed
/// size) only if every rank's part fits at one size within the plan's rule
/// ([min_bytes, max_bytes): a directory keeps the plan to the sizes where
/// it wins), else every rank goes to PMPI_, logged as "the ranks' counts
/// are not the plan's weights" or "outside the plan's sizes". With no such
/// plan for P, calls go to PMPI_ without the allreduce. After
/// AgreedToMpiRow agreed calls in a row went to PMPI_, the agreement backs
/// off: the next 1, 2, 4, ... up to MaxAgreementGap calls go to PMPI_ at
/// once, each gap followed by one agreed call; a call that runs the plan
/// ends the back-off. So a job whose alltoallv calls the plan does not
/// serve pays the agreement on at most one call in MaxAgreementGap
/// (docs: README, "Unmodified MPI programs").
std::optional<int> fromAgreedPlan(Call &C, PartFitFn PartFit, RunFn Run);
constexpr uint32_t AgreedToMpiRow = 4;
constexpr uint64_t MaxAgreementGap = 1024;

/// Serves every later call on Comm from Plan, the directory unread: how
/// collplan_tune_mpi times a plan along the path an interposed call takes.
/// Every rank of Comm pins the same plan; Plan's entry and slice must
/// outlive Comm.
void pinPlan(MPI_Comm Comm, const FoundPlan &Plan);

/// Prints the summaries of the communicators still alive (MPI_Finalize).
void summarizeAll();

} // namespace collplan::interposer

#endif // COLLPLAN_RUNTIME_INTERPOSER_CALLDECISION_H
