//===- RankEnvironment.h - A TCP rank from its environment ------*- C++ -*-===//
//
// A rank started by some other launcher learns who it is from the
// environment. COLLPLAN_* variables win; without them, the launcher's own:
//
//   rank, size (the first family with either variable set; both are then
//   required, so a rank never mixes one launcher's rank with another's size):
//   - COLLPLAN_RANK, COLLPLAN_SIZE (collplan);
//   - OMPI_COMM_WORLD_RANK, OMPI_COMM_WORLD_SIZE (Open MPI's mpirun);
//   - PMI_RANK, PMI_SIZE (MPICH/Hydra, srun --mpi=pmi2);
//   - SLURM_PROCID, SLURM_NTASKS (srun);
//   - RANK, WORLD_SIZE (torchrun).
//   rank 0's address: COLLPLAN_ADDR (host:port), else MASTER_ADDR with
//   MASTER_PORT (default 29500), else 127.0.0.1:29500. The host is an IPv4
//   address or a name resolved to one; IPv6 is refused.
//   COLLPLAN_LISTEN_ADDR: where a rank > 0 listens for higher ranks (an IPv4
//   address or name); unset: its address on the interface that reaches
//   rank 0.
//   COLLPLAN_TIMEOUT: seconds to wait for a peer to arrive or to make
//   progress before failing, 1..86400 (default 30).
//   COLLPLAN_SECRET: the job's secret (Rendezvous.h); unset: empty.
//
// Every problem is a usage error naming the variable.
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_RUNTIME_TCP_RANKENVIRONMENT_H
#define COLLPLAN_RUNTIME_TCP_RANKENVIRONMENT_H

#include "runtime/tcp/Rendezvous.h"

#include "llvm/Support/Error.h"

namespace collplan::runtime {

/// The configuration the environment describes; its Source says which
/// variables gave it.
llvm::Expected<TcpConfig> tcpConfigFromEnvironment();

/// Whether some family of variables above names this process's rank.
bool environmentNamesRank();

} // namespace collplan::runtime

#endif // COLLPLAN_RUNTIME_TCP_RANKENVIRONMENT_H
