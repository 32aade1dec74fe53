//===- MscclXmlImport.cpp - Simulating an MSCCL algorithm -----------------===//
//
// Runs the file's threadblocks with eager sends (a send never waits for its
// receiver, as with MSCCL's connection buffers): a step runs once its
// threadblock reached it, the step it depends on is done, and, to receive,
// a message is queued on its connection (sender, receiver, channel). Steps
// left blocked mean the file can deadlock.
//
// Along the way each chunk location carries the block it holds: the plan IR
// keeps a block at its index (Plan.h: operations name the same blocks at
// both ends), so a chunk that lands in a scratch slot, or in a data slot
// that is not its own, lives in a scratch buffer at its block's index. Each
// (gpu, location, block) gets its own scratch buffer, so no two live values
// share one.
//
//===----------------------------------------------------------------------===//

#include "plan/serialize/MscclXml.h"
#include "plan/serialize/MscclXmlImporter.h"
#include "plan/serialize/PlanFile.h"

#include "llvm/Support/Path.h"

namespace collplan {

using llvm::Error;
using llvm::Expected;
using llvm::StringRef;

namespace msccl {

Error Importer::setUp() {
  uint64_t P = uint64_t(A.Gpus);
  N = uint64_t(A.ChunksPerLoop);
  if (hasOwnedBlocks(A.Coll)) {
    if (N % P != 0)
      return makeError(ErrorKind::CannotCompile,
                       Name + ": an " + collectiveName(A.Coll) +
                           " needs nchunksperloop a multiple of ngpus (" +
                           llvm::Twine(N) + " chunks, " + llvm::Twine(P) +
                           " gpus)");
    K = N / P;
  }
  PlanHeader &H = S.Header;
  H.Kind = A.Coll;
  H.Ranks = uint32_t(P);
  H.Topo = Topology::flat(uint32_t(P));
  H.Algorithm = "msccl";
  H.Blocks = N;
  if (isPersonalised(A.Coll)) {
    // In place, a gpu's input chunk i and output chunk i would be one
    // location holding two blocks of the matrix.
    if (A.InPlace)
      return makeError(ErrorKind::CannotCompile,
                       Name + ": an in-place alltoall is not supported");
    H.Blocks = P * N;
  }
  H.RequiresCommutative = true;
  H.Params["msccl-name"] = A.Name;
  H.Params["msccl-proto"] = A.Protocol;
  H.Params["msccl-nchannels"] = std::to_string(A.Channels);
  H.Params["msccl-inplace"] = A.InPlace ? "1" : "0";
  if (A.MinBytes)
    H.Params["msccl-minbytes"] = std::to_string(*A.MinBytes);
  if (A.MaxBytes)
    H.Params["msccl-maxbytes"] = std::to_string(*A.MaxBytes);
  if (!A.InPlace) {
    S.OutBuffer = 1;
    H.Buffers.push_back("out");
    FirstScratch = 2;
  }
  // Broadcast and reduce files do not name their root: it is the one gpu
  // that never receives (broadcast) or never sends (reduce).
  if (hasRoot(A.Coll)) {
    bool Bcast = A.Coll == Collective::Broadcast;
    std::vector<uint32_t> Roots;
    for (const Gpu &G : A.GpuList) {
      bool Any = false;
      for (const Threadblock &Tb : G.Tbs)
        for (const Step &St : Tb.Steps)
          Any |= Bcast ? hasRecv(St.Type) : hasSend(St.Type);
      if (!Any)
        Roots.push_back(uint32_t(G.Id));
    }
    if (Roots.size() != 1)
      return makeError(ErrorKind::CannotCompile,
                       Name + ": cannot tell the " + collectiveName(A.Coll) +
                           "'s root: " + llvm::Twine(Roots.size()) +
                           " gpus never " + (Bcast ? "receive" : "send"));
    H.Root = Roots[0];
  }
  size_t G = A.GpuList.size();
  // Bounds the simulation's memory before it starts: a location table per
  // gpu, and about a hundred bytes per chunk a step moves (the accesses
  // each chunk records for ordering and races). A kilobyte file can ask for
  // 2^24-chunk steps; real ones move a few million chunks in all.
  uint64_t Locations = 0, Moves = 0;
  for (const Gpu &Gp : A.GpuList) {
    Locations += 2 * N + uint64_t(Gp.ScratchChunks);
    for (const Threadblock &Tb : Gp.Tbs)
      for (const Step &St : Tb.Steps)
        Moves += uint64_t(St.Count);
  }
  if (Locations > MaxLocations)
    return makeError(ErrorKind::CannotCompile,
                     Name + ": too large to import: " + llvm::Twine(Locations) +
                         " chunk locations over all gpus (at most 2^26)");
  if (Moves > MaxChunkMoves)
    return makeError(ErrorKind::CannotCompile,
                     Name + ": too large to import: its steps move " +
                         llvm::Twine(Moves) +
                         " chunks in all (the sum of cnt; at most 2^22)");
  Holds.resize(G);
  LastPhase.resize(G);
  StepPhase.resize(G);
  Pc.resize(G);
  TbIndex.resize(G);
  for (size_t I = 0; I < G; ++I) {
    const Gpu &Gp = A.GpuList[I];
    for (int Sp = 0; Sp < 3; ++Sp) {
      size_t Size = Sp == ScratchSpace ? size_t(Gp.ScratchChunks) : size_t(N);
      Holds[I][Sp].assign(Size, -1);
      if (Sp != ScratchSpace)
        for (size_t B = 0; B < Size; ++B)
          Holds[I][Sp][B] = int32_t(naturalBlock(uint32_t(I), Space(Sp), B));
    }
    LastPhase[I].assign(Gp.Tbs.size(), -1);
    StepPhase[I].resize(Gp.Tbs.size());
    Pc[I].assign(Gp.Tbs.size(), 0);
    for (size_t T = 0; T < Gp.Tbs.size(); ++T) {
      TbIndex[I][Gp.Tbs[T].Id] = T;
      StepPhase[I][T].resize(Gp.Tbs[T].Steps.size());
    }
    for (size_t T = 0; T < Gp.Tbs.size(); ++T)
      for (size_t St = 0; St < Gp.Tbs[T].Steps.size(); ++St) {
        const Step &Stp = Gp.Tbs[T].Steps[St];
        if (Stp.DepTb < 0)
          continue;
        auto It = TbIndex[I].find(Stp.DepTb);
        if (It == TbIndex[I].end() ||
            Stp.DepStep >= int64_t(Gp.Tbs[It->second].Steps.size()))
          return fail(ErrorKind::Usage, uint32_t(I), T, St,
                      "depends on threadblock " + llvm::Twine(Stp.DepTb) +
                          " step " + llvm::Twine(Stp.DepStep) +
                          ", which does not exist");
      }
  }
  return Error::success();
}

Error Importer::deadlock() {
  std::string Why;
  llvm::raw_string_ostream OS(Why);
  unsigned Blocked = 0;
  for (uint32_t G = 0; G < A.GpuList.size(); ++G)
    for (size_t T = 0; T < A.GpuList[G].Tbs.size(); ++T) {
      const Threadblock &Tb = A.GpuList[G].Tbs[T];
      if (Pc[G][T] >= Tb.Steps.size())
        continue;
      if (++Blocked > 4)
        continue;
      const Step &St = Tb.Steps[Pc[G][T]];
      OS << "\n  gpu " << G << ", threadblock " << Tb.Id << ", step "
         << Pc[G][T] << " (" << stepTypeName(St.Type) << ", line " << St.Line
         << ") waits for ";
      if (St.DepTb >= 0 && Pc[G][TbIndex[G][St.DepTb]] <= size_t(St.DepStep))
        OS << "threadblock " << St.DepTb << " step " << St.DepStep;
      else if (sendsLeft(uint32_t(Tb.RecvPeer), G, Tb.Channel))
        OS << "a message from gpu " << Tb.RecvPeer << " on channel "
           << Tb.Channel << ", which has yet to send it (it is blocked too)";
      else
        OS << "a message from gpu " << Tb.RecvPeer << " on channel "
           << Tb.Channel << " that no send provides in FIFO order";
    }
  if (Blocked > 4)
    OS << "\n  and " << (Blocked - 4) << " more threadblocks";
  return makeError(ErrorKind::Invalid, Name + ": the algorithm can deadlock: " +
                                           llvm::Twine(Blocked) +
                                           " threadblocks never finish:" + Why);
}

Expected<Schedule> Importer::run() {
  if (Error E = setUp())
    return E;
  for (bool Progress = true; Progress;) {
    Progress = false;
    for (uint32_t G = 0; G < A.GpuList.size(); ++G)
      for (size_t T = 0; T < A.GpuList[G].Tbs.size(); ++T)
        while (canRun(G, T)) {
          if (Error E = exec(G, T))
            return E;
          Progress = true;
        }
  }
  for (uint32_t G = 0; G < A.GpuList.size(); ++G)
    for (size_t T = 0; T < A.GpuList[G].Tbs.size(); ++T)
      if (Pc[G][T] < A.GpuList[G].Tbs[T].Steps.size())
        return deadlock();
  for (auto &[Key, Q] : Queues)
    if (!Q.empty()) {
      const PendingMessage &M = Q.front();
      return makeError(ErrorKind::Invalid,
                       Name + ": gpu " + llvm::Twine(M.Gpu) + ", threadblock " +
                           llvm::Twine(M.Tb) + ", step " + llvm::Twine(M.Step) +
                           " sends to gpu " + llvm::Twine(std::get<1>(Key)) +
                           " on channel " + llvm::Twine(std::get<2>(Key)) +
                           " but no receive takes the message");
    }
  if (TooManyBuffers)
    return makeError(ErrorKind::CannotCompile,
                     Name + ": more than 65280 scratch locations hold one "
                            "block on one gpu; the plan IR has fewer buffers");
  for (uint16_t I = 0; I < ScratchBuffers; ++I)
    S.Header.Buffers.push_back("scratch" + std::to_string(I + 1));
  return std::move(S);
}

} // namespace msccl

bool isMscclXmlPath(StringRef Path) {
  return llvm::sys::path::extension(Path).lower() == ".xml";
}

Expected<Plan> decodeMscclXml(StringRef Bytes, StringRef Name) {
  COLLPLAN_TRY(Algo, msccl::parseAlgorithm(Bytes, Name));
  msccl::Importer I(Algo, Name);
  COLLPLAN_TRY(Sched, I.run());
  return msccl::assemblePlan(std::move(Sched), Name);
}

Expected<Plan> readMscclXmlFile(StringRef Path) {
  COLLPLAN_TRY(Buffer, openPlanFile(Path));
  // The XML tree takes several times the file's size in memory.
  constexpr uint64_t MaxXmlBytes = uint64_t(256) << 20;
  if (Buffer->getBufferSize() > MaxXmlBytes)
    return makeError(ErrorKind::Usage,
                     Path + ": an MSCCL XML file larger than 256 MiB is "
                            "refused (the largest real ones take a few MB)");
  return decodeMscclXml(Buffer->getBuffer(), Path);
}

} // namespace collplan
