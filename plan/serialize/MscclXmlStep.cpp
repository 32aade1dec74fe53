//===- MscclXmlStep.cpp - One step of an MSCCL algorithm, simulated -------===//
//
// What a step does to the chunk locations it reads and writes (each carries
// the block it holds: MscclXmlImport.cpp), and the phases and plan
// operations it becomes: a send's pieces wait on their connection for the
// receive that takes them, in FIFO order per (sender, receiver, channel).
//
//===----------------------------------------------------------------------===//

#include "plan/serialize/MscclXmlImporter.h"

namespace collplan::msccl {

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

} // namespace collplan::msccl
