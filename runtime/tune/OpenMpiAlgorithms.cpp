//===- OpenMpiAlgorithms.cpp - Open MPI's own algorithms, one at a time --===//

#include "runtime/tune/OpenMpiAlgorithms.h"
#include "runtime/tune/ControlVariables.h"

#include "plan/ir/Error.h"

#include <optional>
#include <string>

namespace collplan {

namespace {

/// The coll_tuned variable forcing Kind's algorithm, for the call
/// collplan_tune_mpi makes (MPI_Reduce_scatter_block for reduce-scatter).
std::optional<std::string> variableFor(Collective Kind) {
  switch (Kind) {
  case Collective::Allreduce:
    return "coll_tuned_allreduce_algorithm";
  case Collective::Allgather:
    return "coll_tuned_allgather_algorithm";
  case Collective::Broadcast:
    return "coll_tuned_bcast_algorithm";
  case Collective::Reduce:
    return "coll_tuned_reduce_algorithm";
  case Collective::ReduceScatter:
    return "coll_tuned_reduce_scatter_block_algorithm";
  default:
    return std::nullopt;
  }
}

/// One communicator per algorithm, made while its value was forced.
class OpenMpiAlgorithms : public LibraryAlgorithms {
public:
  ~OpenMpiAlgorithms() override {
    for (MPI_Comm &C : Comms)
      MPI_Comm_free(&C);
  }
  MPI_Comm force(size_t I) override { return Comms[I]; }

  void add(LibraryAlgorithm A, MPI_Comm C) {
    Algorithms.push_back(std::move(A));
    Comms.push_back(C);
  }

private:
  std::vector<MPI_Comm> Comms;
};

#ifdef MPI_T_ENUM_NULL

llvm::Expected<std::unique_ptr<LibraryAlgorithms>>
forceWithToolInterface(const std::string &Name) {
  std::optional<ControlVariable> Dynamic =
      ControlVariable::find("coll_tuned_use_dynamic_rules");
  std::optional<ControlVariable> Force = ControlVariable::find(Name);
  int On = 0;
  if (!Dynamic || !Force || Force->Enum == MPI_T_ENUM_NULL)
    return makeError(ErrorKind::Usage,
                     "this MPI has no " + Name +
                         " (Open MPI's coll_tuned) to force algorithms with");
  if (!Dynamic->read(On) || !On)
    return makeError(ErrorKind::Usage,
                     "Open MPI's coll_tuned dynamic rules are off: forced "
                     "algorithms would be ignored (set " +
                         std::string(OpenMpiDynamicRulesVariable) + "=1)");
  int Items = 0, NameLength = 0;
  MPI_T_enum_get_info(Force->Enum, &Items, nullptr, &NameLength);
  auto Out = std::make_unique<OpenMpiAlgorithms>();
  for (int I = 0; I < Items; ++I) {
    char Text[256];
    int Length = sizeof Text, Value = 0;
    if (MPI_T_enum_get_item(Force->Enum, I, &Value, Text, &Length) !=
            MPI_SUCCESS ||
        Value == 0) // 0: "ignore", Open MPI's own decision.
      continue;
    // Every rank lists the same algorithms in the same order, so the
    // duplications below pair up across ranks.
    if (!Force->write(Value))
      return makeError(ErrorKind::Usage,
                       "cannot write " + Name + " through MPI_T");
    MPI_Comm C;
    MPI_Comm_dup(MPI_COMM_WORLD, &C);
    // An algorithm that cannot serve this communicator (Open MPI's
    // two-process ones on more ranks) fails the call, not the job.
    MPI_Comm_set_errhandler(C, MPI_ERRORS_RETURN);
    Out->add({Value, Text}, C);
  }
  Force->write(0);
  return Out;
}

#endif // MPI_T_ENUM_NULL

} // namespace

llvm::Expected<std::unique_ptr<LibraryAlgorithms>>
forceOpenMpiAlgorithms(Collective Kind) {
  std::optional<std::string> Name = variableFor(Kind);
  if (!Name)
    return makeError(ErrorKind::Usage, "Open MPI's rules files have no " +
                                           std::string(collectiveName(Kind)) +
                                           " rules");
#ifndef MPI_T_ENUM_NULL
  return makeError(ErrorKind::Usage,
                   "this MPI has no tool interface (MPI_T) to force " + *Name);
#else
  if (!startToolInterface())
    return makeError(ErrorKind::Usage, "the MPI tool interface did not start");
  return forceWithToolInterface(*Name);
#endif
}

} // namespace collplan
