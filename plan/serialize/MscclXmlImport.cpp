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
#include "plan/serialize/MscclXmlModel.h"
#include "plan/serialize/MscclXmlRaces.h"
#include "plan/serialize/MscclXmlSchedule.h"
#include "plan/serialize/PlanFile.h"

#include "plan/ir/Error.h"
#include "plan/ir/Hash.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/Path.h"

#include <array>
#include <deque>
#include <map>
#include <tuple>

namespace collplan {

using llvm::Error;
using llvm::Expected;
using llvm::StringRef;

namespace msccl {
namespace {

enum Space : uint8_t { DataSpace, OutSpace, ScratchSpace, TempSpace };

constexpr uint64_t MaxLocations = uint64_t(1) << 26;
constexpr uint64_t MaxChunkMoves = uint64_t(1) << 22;

struct Loc {
  Space Sp;
  int64_t Index;
};

/// A chunk of a message: where the sender reads it, which block it is.
struct Piece {
  uint16_t SrcBuf;
  uint64_t Block;
};

struct PendingMessage {
  uint32_t Id;
  uint32_t Gpu, Tb, Step; ///< The sender's step, for messages.
  std::vector<Piece> Chunks;
  Clock SentAt; ///< The sender's clock (MscclXmlRaces.h).
};

class Importer {
public:
  Importer(const Algorithm &A, StringRef Name) : A(A), Name(Name), Races(A) {}
  Expected<Schedule> run();

private:
  const Algorithm &A;
  StringRef Name;
  RaceDetector Races;
  Schedule S;
  uint64_t N = 1, K = 1; ///< Blocks; chunks per rank (allgather, RS).
  uint16_t FirstScratch = 1;
  /// Which block each location holds: [gpu][space][index], -1 for none.
  std::vector<std::array<std::vector<int32_t>, 3>> Holds;
  /// Scratch buffer of (gpu, space, index, block), and the count per
  /// (gpu, block) that allocates them.
  std::map<std::tuple<uint32_t, uint8_t, int64_t, uint64_t>, uint16_t>
      ScratchOf;
  std::map<std::pair<uint32_t, uint64_t>, uint16_t> ScratchCount;
  uint16_t ScratchBuffers = 0;
  /// Per (gpu, buffer, block): the last phase that wrote it and the
  /// phases that read it since.
  struct Access {
    int64_t Writer = -1;
    std::vector<uint32_t> Readers;
  };
  llvm::DenseMap<uint64_t, Access, PackedKeyInfo> Accesses;
  std::map<std::tuple<int64_t, int64_t, int64_t>, std::deque<PendingMessage>>
      Queues;
  std::vector<std::vector<int64_t>> LastPhase; ///< [gpu][tb]
  /// [gpu][tb][step]: the step's last phase.
  std::vector<std::vector<std::vector<uint32_t>>> StepPhase;
  std::vector<std::vector<size_t>> Pc; ///< [gpu][tb]: next step.
  std::vector<std::map<int64_t, size_t>> TbIndex;

  Error fail(ErrorKind K, uint32_t G, size_t T, size_t St,
             const llvm::Twine &Message) const {
    const Threadblock &Tb = A.GpuList[G].Tbs[T];
    return makeError(K, Name + ":" + llvm::Twine(Tb.Steps[St].Line) + ": gpu " +
                            llvm::Twine(G) + ", threadblock " +
                            llvm::Twine(Tb.Id) + ", step " + llvm::Twine(St) +
                            " (" + stepTypeName(Tb.Steps[St].Type) +
                            "): " + Message);
  }
  Expected<Loc> locate(uint32_t G, char Buf, int64_t Off, size_t T, size_t St);
  int32_t &holds(uint32_t G, Loc L) { return Holds[G][L.Sp][L.Index]; }
  /// The block gpu G's data or output location Index holds before the run
  /// (data) or must hold after it (output): Index itself, but for alltoall,
  /// whose plan names blocks by (sender, receiver) (CollectiveContract.h):
  /// G's input chunk i is its run K for gpu i / K, its output chunk i the
  /// run gpu i / K sent it.
  uint64_t naturalBlock(uint32_t G, Space Sp, int64_t Index) const {
    if (!isPersonalised(A.Coll))
      return uint64_t(Index);
    uint64_t I = uint64_t(Index);
    return Sp == DataSpace ? G * N + I : I / K * N + G * K + I % K;
  }
  uint16_t buffer(uint32_t G, Loc L, uint64_t Block);
  uint32_t newPhase(PhaseKind Kind, uint32_t G, size_t T, size_t St);
  void read(uint32_t P, uint16_t Buf, uint64_t Block);
  void write(uint32_t P, uint16_t Buf, uint64_t Block);
  Error setUp();
  bool canRun(uint32_t G, size_t T);
  Error exec(uint32_t G, size_t T);
  Error deadlock();
  /// Whether gpu From has steps not yet run that send to To on Channel.
  bool sendsLeft(uint32_t From, uint32_t To, int64_t Channel) const {
    const Gpu &G = A.GpuList[From];
    for (size_t T = 0; T < G.Tbs.size(); ++T)
      if (G.Tbs[T].SendPeer == To && G.Tbs[T].Channel == Channel)
        for (size_t St = Pc[From][T]; St < G.Tbs[T].Steps.size(); ++St)
          if (hasSend(G.Tbs[T].Steps[St].Type))
            return true;
    return false;
  }
  bool TooManyBuffers = false;
};

uint64_t accessKey(uint32_t G, uint16_t Buf, uint64_t Block) {
  return (uint64_t(G) << 48) | (uint64_t(Buf) << 32) | Block;
}

Expected<Loc> Importer::locate(uint32_t G, char Buf, int64_t Off, size_t T,
                               size_t St) {
  // The user's vector in NCCL's layout: in place, an allgather's input and
  // a reduce-scatter's output sit at the rank's share of the whole vector.
  bool Shared =
      A.Coll == Collective::Allgather || A.Coll == Collective::ReduceScatter;
  bool Partial =
      Shared && (Buf == (A.Coll == Collective::Allgather ? 'i' : 'o'));
  int64_t Size = Buf == 's' ? A.GpuList[G].ScratchChunks
                            : (Partial ? int64_t(K) : int64_t(N));
  if (Off < 0 || Off >= Size)
    return fail(ErrorKind::Usage, G, T, St,
                llvm::Twine("offset ") + llvm::Twine(Off) + " of buffer " +
                    llvm::Twine(Buf) + " outside its " + llvm::Twine(Size) +
                    " chunks");
  if (Buf == 's')
    return Loc{ScratchSpace, Off};
  int64_t Index = Partial ? int64_t(G * K) + Off : Off;
  bool Output = Buf == 'o';
  return Loc{(A.InPlace || !Output) ? DataSpace : OutSpace, Index};
}

uint16_t Importer::buffer(uint32_t G, Loc L, uint64_t Block) {
  if (L.Sp == DataSpace && naturalBlock(G, L.Sp, L.Index) == Block)
    return DataBuffer;
  if (L.Sp == OutSpace && naturalBlock(G, L.Sp, L.Index) == Block)
    return *S.OutBuffer;
  auto [It, New] = ScratchOf.try_emplace({G, L.Sp, L.Index, Block}, 0);
  if (New) {
    uint16_t &Count = ScratchCount[{G, Block}];
    // Past this the buffer index would not fit; refused after the run.
    if (Count >= 0xff00) {
      TooManyBuffers = true;
      return FirstScratch;
    }
    It->second = FirstScratch + Count++;
    ScratchBuffers = std::max(ScratchBuffers, Count);
  }
  return It->second;
}

uint32_t Importer::newPhase(PhaseKind Kind, uint32_t G, size_t T, size_t St) {
  Phase P;
  P.Kind = Kind;
  P.Gpu = G;
  P.Tb = uint32_t(A.GpuList[G].Tbs[T].Id);
  P.Step = uint32_t(St);
  uint32_t Index = uint32_t(S.Phases.size());
  if (LastPhase[G][T] >= 0)
    P.Preds.push_back({uint32_t(LastPhase[G][T]), false});
  const Step &Stp = A.GpuList[G].Tbs[T].Steps[St];
  if (Stp.DepTb >= 0) {
    size_t DT = TbIndex[G].at(Stp.DepTb);
    P.Preds.push_back({StepPhase[G][DT][size_t(Stp.DepStep)], false});
  }
  S.Phases.push_back(std::move(P));
  LastPhase[G][T] = Index;
  return Index;
}

void Importer::read(uint32_t P, uint16_t Buf, uint64_t Block) {
  Access &Ac = Accesses[accessKey(S.Phases[P].Gpu, Buf, Block)];
  if (Ac.Writer >= 0 && uint32_t(Ac.Writer) != P)
    S.Phases[P].Preds.push_back({uint32_t(Ac.Writer), false});
  Ac.Readers.push_back(P);
}

void Importer::write(uint32_t P, uint16_t Buf, uint64_t Block) {
  Access &Ac = Accesses[accessKey(S.Phases[P].Gpu, Buf, Block)];
  if (Ac.Writer >= 0 && uint32_t(Ac.Writer) != P)
    S.Phases[P].Preds.push_back({uint32_t(Ac.Writer), false});
  for (uint32_t R : Ac.Readers)
    if (R != P)
      S.Phases[P].Preds.push_back({R, S.Phases[R].Kind == PhaseKind::Send});
  Ac.Readers.clear();
  Ac.Writer = P;
}

/// Appends Operation to Ops, merged into the last one when it continues it.
void appendMerged(std::vector<Op> &Ops, const Op &Operation) {
  if (!Ops.empty()) {
    Op &Last = Ops.back();
    BlockRange R = Operation.Blocks.ranges()[0];
    if (Last.Kind == Operation.Kind && Last.Mode == Operation.Mode &&
        Last.Buffer == Operation.Buffer && Last.Source == Operation.Source &&
        Last.Peer == Operation.Peer && Last.Blocks.upperBound() == R.Begin) {
      Last.Blocks.insert(R);
      return;
    }
  }
  Ops.push_back(Operation);
}

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

bool Importer::canRun(uint32_t G, size_t T) {
  const Threadblock &Tb = A.GpuList[G].Tbs[T];
  if (Pc[G][T] >= Tb.Steps.size())
    return false;
  const Step &St = Tb.Steps[Pc[G][T]];
  if (St.DepTb >= 0 && Pc[G][TbIndex[G][St.DepTb]] <= size_t(St.DepStep))
    return false;
  if (hasRecv(St.Type)) {
    auto It = Queues.find({Tb.RecvPeer, int64_t(G), Tb.Channel});
    return It != Queues.end() && !It->second.empty();
  }
  return true;
}

Error Importer::exec(uint32_t G, size_t T) {
  const Threadblock &Tb = A.GpuList[G].Tbs[T];
  size_t St = Pc[G][T];
  const Step &Stp = Tb.Steps[St];
  StepType Ty = Stp.Type;
  auto Fail = [&](ErrorKind K, const llvm::Twine &M) {
    return fail(K, G, T, St, M);
  };
  auto Src = [&](int64_t J) {
    return locate(G, Stp.SrcBuf, Stp.SrcOff + J, T, St);
  };
  auto Dst = [&](int64_t J) {
    return locate(G, Stp.DstBuf, Stp.DstOff + J, T, St);
  };
  // What the send part of the step sends: one piece per chunk.
  std::vector<Piece> Out;
  const Clock *Received = nullptr;
  if (hasRecv(Ty))
    Received = &Queues[{Tb.RecvPeer, int64_t(G), Tb.Channel}].front().SentAt;
  Races.begin(G, T, St, Received);
  auto Touch = [&](Loc L, bool Write) -> Error {
    if (L.Sp != TempSpace)
      if (std::optional<std::string> Race = Races.access(L.Sp, L.Index, Write))
        return Fail(ErrorKind::Invalid, *Race);
    return Error::success();
  };

  if (Ty == StepType::Nop) {
    newPhase(PhaseKind::Nop, G, T, St);
  } else if (Ty == StepType::Send) {
    newPhase(PhaseKind::Send, G, T, St);
    for (int64_t J = 0; J < Stp.Count; ++J) {
      COLLPLAN_TRY(L, Src(J));
      if (Error E = Touch(L, false))
        return E;
      int64_t B = holds(G, L);
      if (B < 0)
        return Fail(ErrorKind::Invalid, "sends scratch chunk " +
                                            llvm::Twine(L.Index) +
                                            ", which was never written");
      Out.push_back({buffer(G, L, uint64_t(B)), uint64_t(B)});
    }
  } else if (Ty == StepType::Reduce || Ty == StepType::Copy) {
    uint32_t P = newPhase(PhaseKind::Local, G, T, St);
    for (int64_t J = 0; J < Stp.Count; ++J) {
      COLLPLAN_TRY(SL, Src(J));
      COLLPLAN_TRY(DL, Dst(J));
      if (Error E = Touch(SL, false))
        return E;
      if (Error E = Touch(DL, true))
        return E;
      int64_t B = holds(G, SL);
      if (B < 0)
        return Fail(ErrorKind::Invalid, "reads scratch chunk " +
                                            llvm::Twine(SL.Index) +
                                            ", which was never written");
      if (Ty == StepType::Reduce && holds(G, DL) != B)
        return Fail(
            ErrorKind::Invalid,
            "combines block " + llvm::Twine(B) + " into a chunk holding " +
                (holds(G, DL) < 0 ? llvm::Twine("nothing")
                                  : "block " + llvm::Twine(holds(G, DL))) +
                "; no collective result mixes blocks");
      uint16_t SB = buffer(G, SL, uint64_t(B)), DB = buffer(G, DL, uint64_t(B));
      holds(G, DL) = int32_t(B);
      if (SB == DB) {
        if (Ty == StepType::Reduce)
          return Fail(ErrorKind::Invalid, "reduces a chunk into itself");
        continue; // A copy onto itself: in place, i and o are one buffer.
      }
      read(P, SB, uint64_t(B));
      write(P, DB, uint64_t(B));
      appendMerged(S.Phases[P].Locals,
                   Op::local(SB, DB, BlockSet::single(uint64_t(B)),
                             Ty == StepType::Reduce ? Combine::Reduce
                                                    : Combine::Replace));
    }
  } else {
    // A step that receives: take the connection's oldest message.
    auto &Q = Queues[{Tb.RecvPeer, int64_t(G), Tb.Channel}];
    PendingMessage M = std::move(Q.front());
    Q.pop_front();
    if (int64_t(M.Chunks.size()) != Stp.Count)
      return Fail(ErrorKind::Invalid,
                  "receives " + llvm::Twine(Stp.Count) +
                      " chunks but the message it matches (gpu " +
                      llvm::Twine(M.Gpu) + ", threadblock " +
                      llvm::Twine(M.Tb) + ", step " + llvm::Twine(M.Step) +
                      ") carries " + llvm::Twine(M.Chunks.size()));
    uint32_t P = newPhase(PhaseKind::Recv, G, T, St);
    S.Phases[P].Msg = M.Id;
    S.Messages[M.Id].RecvPhase = P;
    Phase &SendP = S.Phases[S.Messages[M.Id].SendPhase];
    bool Reduces = Ty == StepType::RecvReduceSend ||
                   Ty == StepType::RecvReduceCopy ||
                   Ty == StepType::RecvReduceCopySend;
    for (int64_t J = 0; J < Stp.Count; ++J) {
      uint64_t B = M.Chunks[J].Block;
      uint16_t SrcB = 0;
      if (Reduces) {
        COLLPLAN_TRY(SL, Src(J));
        if (Error E = Touch(SL, false))
          return E;
        if (holds(G, SL) != int64_t(B))
          return Fail(ErrorKind::Invalid,
                      "combines the incoming block " + llvm::Twine(B) +
                          " with a chunk holding " +
                          (holds(G, SL) < 0
                               ? llvm::Twine("nothing")
                               : "block " + llvm::Twine(holds(G, SL))) +
                          "; no collective result mixes blocks");
        SrcB = buffer(G, SL, B);
      }
      // rrs stores nothing: the sum goes through a buffer of its own.
      Loc DL{TempSpace, int64_t(T)};
      if (Ty != StepType::RecvReduceSend) {
        COLLPLAN_TRY(L, Dst(J));
        DL = L;
        if (Error E = Touch(DL, true))
          return E;
      }
      uint16_t DstB = buffer(G, DL, B);
      bool InPlaceReduce = Reduces && SrcB == DstB;
      if (Reduces)
        read(P, SrcB, B);
      write(P, DstB, B);
      if (DL.Sp != TempSpace)
        holds(G, DL) = int32_t(B);
      BlockSet One = BlockSet::single(B);
      appendMerged(SendP.Transfers, Op::send(G, One, M.Chunks[J].SrcBuf));
      appendMerged(S.Phases[P].Transfers,
                   Op::recv(M.Gpu, One,
                            InPlaceReduce ? Combine::Reduce : Combine::Replace,
                            DstB));
      if (Reduces && !InPlaceReduce)
        appendMerged(S.Phases[P].Locals,
                     Op::local(SrcB, DstB, One, Combine::Reduce));
      if (hasSend(Ty))
        Out.push_back({DstB, B});
    }
    if (hasSend(Ty))
      newPhase(PhaseKind::Send, G, T, St);
  }

  uint32_t Last = uint32_t(LastPhase[G][T]);
  StepPhase[G][T][St] = Last;
  if (hasSend(Ty)) {
    // The send reads its chunks now: later writes wait for it.
    for (const Piece &Pi : Out)
      read(Last, Pi.SrcBuf, Pi.Block);
    uint32_t Id = uint32_t(S.Messages.size());
    S.Messages.push_back({Last, 0});
    S.Phases[Last].Msg = Id;
    Queues[{int64_t(G), Tb.SendPeer, Tb.Channel}].push_back(
        {Id, G, uint32_t(Tb.Id), uint32_t(St), std::move(Out),
         Races.current()});
  }
  Races.end();
  ++Pc[G][T];
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

} // namespace
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
