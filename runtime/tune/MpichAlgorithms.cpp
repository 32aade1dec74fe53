//===- MpichAlgorithms.cpp - MPICH's own algorithms, one at a time -------===//

#include "runtime/tune/MpichAlgorithms.h"
#include "runtime/tune/ControlVariables.h"

#include "compiler/tuning/TuningFiles.h"
#include "plan/ir/Error.h"

#include "llvm/ADT/StringExtras.h"

#include <optional>
#include <string>
#include <vector>

namespace collplan {

namespace {

/// MPICH 4.0's values of MPIR_CVAR_<COLLECTIVE>_INTRA_ALGORITHM, in order
/// (value 0, "auto", is MPICH's own decision), for the call
/// collplan_tune_mpi makes (MPI_Reduce_scatter_block for reduce-scatter).
std::vector<llvm::StringRef> valuesFor(Collective Kind) {
  switch (Kind) {
  case Collective::Allreduce:
    return {"auto", "nb", "smp", "recursive_doubling",
            "reduce_scatter_allgather"};
  case Collective::Allgather:
    return {"auto", "brucks", "nb", "recursive_doubling", "ring"};
  case Collective::Broadcast:
    return {"auto",
            "binomial",
            "nb",
            "smp",
            "scatter_recursive_doubling_allgather",
            "scatter_ring_allgather"};
  case Collective::Reduce:
    return {"auto", "binomial", "nb", "smp", "reduce_scatter_gather"};
  case Collective::ReduceScatter:
    return {"auto",     "noncommutative",    "recursive_doubling",
            "pairwise", "recursive_halving", "nb"};
  default:
    return {};
  }
}

constexpr const char *FallbackVariable = "MPIR_CVAR_COLLECTIVE_FALLBACK";
/// Its values: 0 error, 1 print, 2 silent.
const llvm::StringRef FallbackValues[] = {"error", "print", "silent"};

#ifdef MPI_T_ENUM_NULL

/// The variable Name, if it lists Values.
llvm::Expected<ControlVariable>
checkedVariable(const std::string &Name,
                llvm::ArrayRef<llvm::StringRef> Values) {
  std::optional<ControlVariable> V = ControlVariable::find(Name);
  if (!V)
    return makeError(ErrorKind::Usage, "this MPI has no " + Name +
                                           " (MPICH's) to force algorithms "
                                           "with");
  if (!listsValues(V->Description, Values))
    return makeError(ErrorKind::Usage,
                     "this MPICH's " + Name +
                         " does not list the values collplan knows (MPICH "
                         "4.0's: " +
                         llvm::join(Values, ", ") +
                         "); its description: " + V->Description);
  return *V;
}

class MpichAlgorithms : public LibraryAlgorithms {
public:
  MpichAlgorithms(ControlVariable Force, ControlVariable Fallback,
                  int OwnFallback)
      : Force(std::move(Force)), Fallback(std::move(Fallback)),
        OwnFallback(OwnFallback) {
    MPI_Comm_dup(MPI_COMM_WORLD, &Comm);
    MPI_Comm_set_errhandler(Comm, MPI_ERRORS_RETURN);
  }
  ~MpichAlgorithms() override {
    release();
    MPI_Comm_free(&Comm);
  }
  void add(LibraryAlgorithm A) { Algorithms.push_back(std::move(A)); }

  MPI_Comm force(size_t I) override {
    Fallback.write(0); // error
    Force.write(Algorithms[I].Id);
    return Comm;
  }
  void release() override {
    Force.write(0); // auto
    Fallback.write(OwnFallback);
  }

private:
  ControlVariable Force, Fallback;
  int OwnFallback;
  MPI_Comm Comm = MPI_COMM_NULL;
};

#endif // MPI_T_ENUM_NULL

} // namespace

bool listsValues(llvm::StringRef Description,
                 llvm::ArrayRef<llvm::StringRef> Names) {
  // The number of "NAME<spaces>- " items.
  size_t Items = 0;
  for (size_t At = Description.find("- "); At != llvm::StringRef::npos;
       At = Description.find("- ", At + 1))
    Items += At > 0 && Description[At - 1] == ' ';
  if (Items != Names.size())
    return false;
  size_t From = 0;
  for (llvm::StringRef Name : Names) {
    for (;;) {
      size_t At = Description.find(Name, From);
      if (At == llvm::StringRef::npos)
        return false;
      llvm::StringRef After = Description.drop_front(At + Name.size());
      llvm::StringRef Rest = After.ltrim(' ');
      From = At + 1;
      if (Rest.size() < After.size() && Rest.startswith("- ")) {
        From = At + Name.size();
        break;
      }
    }
  }
  return true;
}

llvm::Expected<std::unique_ptr<LibraryAlgorithms>>
forceMpichAlgorithms(Collective Kind) {
  std::vector<llvm::StringRef> Values = valuesFor(Kind);
  std::optional<std::string> Collective = mpichCollectiveName(Kind);
  if (Values.empty() || !Collective)
    return makeError(ErrorKind::Usage, "MPICH's selection files get no " +
                                           std::string(collectiveName(Kind)) +
                                           " rules from collplan");
  std::string Name =
      "MPIR_CVAR_" + llvm::StringRef(*Collective).upper() + "_INTRA_ALGORITHM";
#ifndef MPI_T_ENUM_NULL
  return makeError(ErrorKind::Usage,
                   "this MPI has no tool interface (MPI_T) to force " + Name);
#else
  if (!startToolInterface())
    return makeError(ErrorKind::Usage, "the MPI tool interface did not start");
  llvm::Expected<ControlVariable> Force = checkedVariable(Name, Values);
  if (!Force)
    return Force.takeError();
  llvm::Expected<ControlVariable> Fallback =
      checkedVariable(FallbackVariable, FallbackValues);
  if (!Fallback)
    return Fallback.takeError();
  int OwnFallback = 0, Own = 0;
  if (!Fallback->read(OwnFallback) || !Force->read(Own) || Own != 0)
    return makeError(ErrorKind::Usage,
                     Name + " is set (" + std::to_string(Own) +
                         "): MPICH's own decision cannot be timed; unset it");
  auto Out = std::make_unique<MpichAlgorithms>(
      std::move(*Force), std::move(*Fallback), OwnFallback);
  // Not "nb": MPICH's blocking call then runs the nonblocking collective,
  // whose algorithm the same selection tree chooses (its
  // collective=i<collective> entries), so a file naming it would have to
  // choose that one too, unmeasured; MPICH asserts on a tree without it.
  for (size_t I = 1; I < Values.size(); ++I)
    if (Values[I] != "nb")
      Out->add({int(I), Values[I].str()});
  return Out;
#endif
}

} // namespace collplan
