//===- MpiAbi.cpp - Which MPI ABI the interposer was built for and runs in ===//

#include "runtime/interposer/MpiAbi.h"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace collplan::runtime {

MpiAbi builtForAbi() {
#if defined(COLLPLAN_MPI_ABI_OPENMPI)
  return MpiAbi::OpenMpi;
#elif defined(COLLPLAN_MPI_ABI_MPICH)
  return MpiAbi::Mpich;
#else
#error "the build system must say which MPI ABI this interposer is built for"
#endif
}

const char *abiName(MpiAbi Abi) {
  return Abi == MpiAbi::OpenMpi ? "Open MPI" : "MPICH";
}

RunningMpi runningMpi() {
  RunningMpi R;
  // The next PMPI_Init after this library is the one every PMPI_ call of
  // ours reaches, whichever other MPI a wrong preload dragged in beside it.
  void *Init = dlsym(RTLD_NEXT, "PMPI_Init");
  Dl_info Info{};
  if (!Init || !dladdr(Init, &Info) || !Info.dli_fname) {
    R.Library = "(no MPI library found)";
    R.Abi = builtForAbi() == MpiAbi::OpenMpi ? MpiAbi::Mpich : MpiAbi::OpenMpi;
    return R;
  }
  R.Library = Info.dli_fname;
  // Search only that library (and what it depends on), not the whole
  // process: the other MPI may be loaded too.
  void *Library = dlopen(Info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
  bool OpenMpi =
      dlsym(Library ? Library : RTLD_DEFAULT, "ompi_mpi_comm_world") != nullptr;
  if (Library)
    dlclose(Library);
  R.Abi = OpenMpi ? MpiAbi::OpenMpi : MpiAbi::Mpich;
  return R;
}

signed char ServesRunningMpi = -1;

bool decideServesRunningMpi() {
  ServesRunningMpi = runningMpi().Abi == builtForAbi();
  return ServesRunningMpi;
}

/// The launcher's rank of this process, or -1 when no launcher says.
static int launcherRank() {
  for (const char *Name :
       {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "SLURM_PROCID"})
    if (const char *Value = std::getenv(Name))
      return std::atoi(Value);
  return -1;
}

void reportAbiMismatch() {
  static bool Reported = false;
  if (Reported || servesRunningMpi())
    return;
  Reported = true;
  if (launcherRank() > 0)
    return;
  RunningMpi Running = runningMpi();
  MpiAbi Built = builtForAbi();
  std::fprintf(stderr,
               "collplan: this interposer is built for %s, but the program "
               "runs %s (%s): every collective goes to the library's own; "
               "preload %s instead\n",
               abiName(Built), abiName(Running.Abi), Running.Library.c_str(),
               Running.Abi == MpiAbi::OpenMpi ? "libcollplan_mpi.so"
                                              : "libcollplan_mpich.so");
}

} // namespace collplan::runtime
