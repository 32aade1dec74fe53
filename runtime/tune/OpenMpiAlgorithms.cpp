//===- OpenMpiAlgorithms.cpp - Open MPI's own algorithms, one at a time --===//

#include "runtime/tune/OpenMpiAlgorithms.h"

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

// SimGrid's SMPI, which builds this file for the simulated collplan_tune_mpi,
// has no tool interface: there, no algorithm can be forced.
#ifdef MPI_T_ENUM_NULL

/// A control variable by name: its index and enumeration.
struct Variable {
  int Index = -1;
  MPI_T_enum Enum = MPI_T_ENUM_NULL;
};

std::optional<Variable> findVariable(const std::string &Name) {
  int Count = 0;
  MPI_T_cvar_get_num(&Count);
  for (int I = 0; I < Count; ++I) {
    char Text[256];
    int Length = sizeof Text, Verbosity, Bind, Scope;
    MPI_Datatype Type;
    Variable V;
    if (MPI_T_cvar_get_info(I, Text, &Length, &Verbosity, &Type, &V.Enum,
                            nullptr, nullptr, &Bind, &Scope) != MPI_SUCCESS)
      continue;
    if (Name == Text) {
      V.Index = I;
      return V;
    }
  }
  return std::nullopt;
}

/// Reads (Write null) or writes an int control variable.
bool accessInt(const Variable &V, int *Read, const int *Write) {
  MPI_T_cvar_handle Handle;
  int Count = 0;
  if (MPI_T_cvar_handle_alloc(V.Index, nullptr, &Handle, &Count) != MPI_SUCCESS)
    return false;
  bool Ok = Write ? MPI_T_cvar_write(Handle, Write) == MPI_SUCCESS
                  : MPI_T_cvar_read(Handle, Read) == MPI_SUCCESS;
  MPI_T_cvar_handle_free(&Handle);
  return Ok;
}

llvm::Expected<std::vector<ForcedAlgorithm>>
forceWithToolInterface(Collective Kind, const std::string &Name) {
  std::optional<Variable> Dynamic =
      findVariable("coll_tuned_use_dynamic_rules");
  std::optional<Variable> Force = findVariable(Name);
  int On = 0;
  if (!Dynamic || !Force || Force->Enum == MPI_T_ENUM_NULL)
    return makeError(ErrorKind::Usage,
                     "this MPI has no " + Name +
                         " (Open MPI's coll_tuned) to force algorithms with");
  if (!accessInt(*Dynamic, &On, nullptr) || !On)
    return makeError(ErrorKind::Usage,
                     "Open MPI's coll_tuned dynamic rules are off: forced "
                     "algorithms would be ignored (set " +
                         std::string(OpenMpiDynamicRulesVariable) + "=1)");
  int Items = 0, NameLength = 0;
  MPI_T_enum_get_info(Force->Enum, &Items, nullptr, &NameLength);
  std::vector<ForcedAlgorithm> Out;
  for (int I = 0; I < Items; ++I) {
    char Text[256];
    int Length = sizeof Text, Value = 0;
    if (MPI_T_enum_get_item(Force->Enum, I, &Value, Text, &Length) !=
            MPI_SUCCESS ||
        Value == 0) // 0: "ignore", Open MPI's own decision.
      continue;
    // Every rank lists the same algorithms in the same order, so the
    // duplications below pair up across ranks.
    if (!accessInt(*Force, nullptr, &Value))
      return makeError(ErrorKind::Usage,
                       "cannot write " + Name + " through MPI_T");
    ForcedAlgorithm &F = Out.emplace_back();
    F.Algorithm = {Value, Text};
    MPI_Comm_dup(MPI_COMM_WORLD, &F.Comm);
    // An algorithm that cannot serve this communicator (Open MPI's
    // two-process ones on more ranks) fails the call, not the job.
    MPI_Comm_set_errhandler(F.Comm, MPI_ERRORS_RETURN);
  }
  int Ignore = 0;
  accessInt(*Force, nullptr, &Ignore);
  return Out;
}

#endif // MPI_T_ENUM_NULL

} // namespace

llvm::Expected<std::vector<ForcedAlgorithm>>
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
  int Provided = 0;
  if (MPI_T_init_thread(MPI_THREAD_SINGLE, &Provided) != MPI_SUCCESS)
    return makeError(ErrorKind::Usage, "the MPI tool interface did not start");
  llvm::Expected<std::vector<ForcedAlgorithm>> Out =
      forceWithToolInterface(Kind, *Name);
  MPI_T_finalize();
  return Out;
#endif
}

void freeForcedAlgorithms(std::vector<ForcedAlgorithm> &Algorithms) {
  for (ForcedAlgorithm &F : Algorithms)
    MPI_Comm_free(&F.Comm);
  Algorithms.clear();
}

} // namespace collplan
