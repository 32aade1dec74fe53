//===- MpiCompare.cpp - Our plans against Open MPI's own collectives ------===//
//
// Run under mpirun with P ranks. For every registered algorithm and
// collective it compiles the plan for P (deterministic, so every rank builds
// the same), runs it through the executor over MpiTransport on generated
// data, runs Open MPI's own collective on the same data, and compares the
// bytes. Types, operators, counts and in-place calls rotate so that every
// algorithm meets several of each while the run stays short. Exits non-zero
// when any rank saw a difference.
//
//===----------------------------------------------------------------------===//

#include "../Oracle.h"

#include "compiler/algorithms/Algorithm.h"
#include "plan/ir/BlockLayout.h"
#include "runtime/Executor.h"
#include "runtime/mpi/MpiTransport.h"

#include <mpi.h>

#include <cstdio>
#include <string>
#include <vector>

using namespace collplan;
using namespace collplan::runtime;
using namespace collplan::runtime::test;

namespace {

MPI_Datatype mpiType(Datatype T) {
  switch (T) {
  case Datatype::Int8:
    return MPI_INT8_T;
  case Datatype::Int16:
    return MPI_INT16_T;
  case Datatype::Int32:
    return MPI_INT32_T;
  case Datatype::Int64:
    return MPI_INT64_T;
  case Datatype::UInt8:
    return MPI_UINT8_T;
  case Datatype::UInt16:
    return MPI_UINT16_T;
  case Datatype::UInt32:
    return MPI_UINT32_T;
  case Datatype::UInt64:
    return MPI_UINT64_T;
  case Datatype::Float:
    return MPI_FLOAT;
  case Datatype::Double:
    return MPI_DOUBLE;
  }
  return MPI_BYTE;
}

MPI_Op mpiOp(ReduceOp Op) {
  switch (Op) {
  case ReduceOp::Sum:
    return MPI_SUM;
  case ReduceOp::Prod:
    return MPI_PROD;
  case ReduceOp::Min:
    return MPI_MIN;
  case ReduceOp::Max:
    return MPI_MAX;
  case ReduceOp::Band:
    return MPI_BAND;
  case ReduceOp::Bor:
    return MPI_BOR;
  case ReduceOp::Bxor:
    return MPI_BXOR;
  case ReduceOp::Land:
    return MPI_LAND;
  case ReduceOp::Lor:
    return MPI_LOR;
  case ReduceOp::Lxor:
    return MPI_LXOR;
  }
  return MPI_SUM;
}

/// Open MPI's result for the same call, in our output layout.
std::vector<char> referenceResult(const PlanHeader &H, int Rank,
                                  const std::vector<char> &Input,
                                  uint64_t Count, Datatype T, ReduceOp Op) {
  size_t ES = sizeOf(T);
  int P = int(H.Ranks);
  BlockLayout L(H, Count);
  std::vector<int> Counts(P), Displs(P);
  if (hasOwnedBlocks(H.Kind) && !isPersonalised(H.Kind))
    for (int R = 0; R < P; ++R) {
      BlockSet Own = H.ownedBy(R);
      Displs[R] = int(L.begin(Own.ranges()[0].Begin));
      Counts[R] = int(L.size(Own));
    }
  std::vector<char> Out(Count * ES);
  MPI_Datatype MT = mpiType(T);
  switch (H.Kind) {
  case Collective::Allreduce:
    MPI_Allreduce(Input.data(), Out.data(), int(Count), MT, mpiOp(Op),
                  MPI_COMM_WORLD);
    break;
  case Collective::Reduce:
    MPI_Reduce(Input.data(), Out.data(), int(Count), MT, mpiOp(Op),
               int(*H.Root), MPI_COMM_WORLD);
    if (Rank != int(*H.Root))
      Out.clear();
    break;
  case Collective::ReduceScatter:
    MPI_Reduce_scatter(Input.data(), Out.data(), Counts.data(), MT, mpiOp(Op),
                       MPI_COMM_WORLD);
    Out.resize(size_t(Counts[Rank]) * ES);
    break;
  case Collective::Allgather:
  case Collective::Allgatherv:
    MPI_Allgatherv(Input.data(), Counts[Rank], MT, Out.data(), Counts.data(),
                   Displs.data(), MT, MPI_COMM_WORLD);
    break;
  case Collective::Broadcast:
    if (Rank == int(*H.Root))
      Out = Input;
    MPI_Bcast(Out.data(), int(Count), MT, int(*H.Root), MPI_COMM_WORLD);
    break;
  case Collective::Alltoall:
  case Collective::Alltoallv: {
    // The matrix's pair (s, d) is block s*P + d (one block per pair): the
    // row's pairs are this rank's sends, the column's its receives.
    uint64_t Pairs = uint64_t(P) * P;
    if (H.Kind == Collective::Alltoall && Count % Pairs == 0) {
      MPI_Alltoall(Input.data(), int(Count / Pairs), MT, Out.data(),
                   int(Count / Pairs), MT, MPI_COMM_WORLD);
      Out.resize(Count / P * ES);
      break;
    }
    std::vector<int> SendCounts(P), SendDispls(P), RecvCounts(P), RecvDispls(P);
    uint64_t RowBegin = L.begin(uint64_t(Rank) * P);
    int Received = 0;
    for (int Q = 0; Q < P; ++Q) {
      uint64_t Send = uint64_t(Rank) * P + Q, Recv = uint64_t(Q) * P + Rank;
      SendCounts[Q] = int(L.size(Send));
      SendDispls[Q] = int(L.begin(Send) - RowBegin);
      RecvCounts[Q] = int(L.size(Recv));
      RecvDispls[Q] = Received;
      Received += RecvCounts[Q];
    }
    MPI_Alltoallv(Input.data(), SendCounts.data(), SendDispls.data(), MT,
                  Out.data(), RecvCounts.data(), RecvDispls.data(), MT,
                  MPI_COMM_WORLD);
    Out.resize(size_t(Received) * ES);
    break;
  }
  }
  return Out;
}

CompileRequest requestFor(Collective K, uint32_t P, uint32_t Variant) {
  CompileRequest Req;
  Req.Kind = K;
  Req.Topo = Topology::flat(P);
  Req.Bytes = Variant % 2 ? 1 << 10 : 1 << 20;
  if (hasRoot(K))
    Req.Root = Variant % P;
  // Allgatherv's ranks, alltoallv's pairs.
  for (uint64_t R = 0; R < weightCount(K, P); ++R)
    Req.Weights.push_back((R * 5 + Variant) % 3 + (R == 0));
  return Req;
}

} // namespace

int main(int Argc, char **Argv) {
  MPI_Init(&Argc, &Argv);
  int Rank = 0, P = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  MPI_Comm Comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &Comm);
  MpiTransport Transport(Comm);
  int Failures = 0, Runs = 0;
  auto Fail = [&](const std::string &What) {
    ++Failures;
    std::fprintf(stderr, "rank %d: FAIL %s\n", Rank, What.c_str());
  };

  // The largest count makes messages of several MpiTransport pieces, so
  // reducing receives are combined piece by piece as they arrive.
  const uint64_t Counts[] = {0,     1,     uint64_t(P) - 1 + 2, 7, 64, 1001,
                             65537, 400009};
  uint32_t Variant = uint32_t(P) * 7;
  for (const Algorithm *A : allAlgorithms())
    for (Collective K : A->collectives()) {
      llvm::Expected<Plan> Pl = compilePlan(*A, requestFor(K, P, Variant));
      if (!Pl) {
        llvm::consumeError(Pl.takeError());
        continue;
      }
      const PlanHeader &H = Pl->Header;
      Executor Ex(H, Pl->Programs[Rank], Rank);
      for (uint64_t Count : Counts) {
        ++Variant;
        Datatype T = allDatatypes()[Variant % allDatatypes().size()];
        ReduceOp Op = allReduceOps()[(Variant / 2) % allReduceOps().size()];
        if (!supports(T, Op))
          Op = ReduceOp::Max;
        bool InPlace = Variant % 3 == 0;
        size_t ES = sizeOf(T);
        std::vector<char> Input = oracleInputBuffer(H, Rank, Count, T, Op);
        std::vector<char> Output(Count * ES, char(0x33));
        CallArgs Args;
        Args.Input = Input.data();
        Args.Output = Output.data();
        Args.Count = Count;
        Args.Type = T;
        Args.Op = Operator::predefined(Op);
        if (InPlace) {
          Args.Input = nullptr;
          size_t Offset = 0;
          if (K == Collective::Allgather || K == Collective::Allgatherv)
            Offset =
                BlockLayout(H, Count).begin(H.ownedBy(Rank).ranges()[0].Begin) *
                ES;
          std::copy(Input.begin(), Input.end(), Output.begin() + Offset);
        }
        std::string What =
            A->name().str() + " " + collectiveName(K).str() +
            " P=" + std::to_string(P) + " count=" + std::to_string(Count) +
            " " + datatypeName(T).str() + " " + reduceOpName(Op).str() +
            (InPlace ? " in-place" : "");
        ++Runs;
        if (llvm::Error E = Ex.run(Transport, Args)) {
          Fail(What + ": " + llvm::toString(std::move(E)));
          MPI_Abort(MPI_COMM_WORLD, 1); // The others would wait forever.
        }
        std::vector<char> Want = referenceResult(H, Rank, Input, Count, T, Op);
        Output.resize(Want.size());
        if (Output != Want) {
          size_t I = 0;
          while (Output[I] == Want[I])
            ++I;
          Fail(What + ": differs from Open MPI at byte " + std::to_string(I) +
               ": " + std::to_string(int(Output[I])) + " vs " +
               std::to_string(int(Want[I])));
        }
      }
    }

  // Different plans on different ranks: every rank must fail, naming both.
  if (P > 1) {
    uint64_t Hash = Rank == 0 ? 0x1111 : 0x2222;
    llvm::Error E = checkSameHash(Transport, Hash);
    std::string Message = E ? llvm::toString(std::move(E)) : "";
    if (Message.find("0000000000001111") == std::string::npos ||
        Message.find("0000000000002222") == std::string::npos)
      Fail("plan-hash mismatch not reported: '" + Message + "'");
    if (llvm::Error Same = checkSameHash(Transport, 42))
      Fail("equal hashes rejected: " + llvm::toString(std::move(Same)));
  }

  int Total = 0;
  MPI_Allreduce(&Failures, &Total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (Rank == 0)
    std::printf("P=%d: %d runs per rank, %d failures\n", P, Runs, Total);
  MPI_Comm_free(&Comm);
  MPI_Finalize();
  return Total == 0 ? 0 : 1;
}
