//===- MscclXmlWriter.cpp - A plan as an MSCCL XML algorithm --------------===//
//
// Every rank gets one threadblock per (peer, channel) that both sends to and
// receives from that peer, and one threadblock for local operations; the
// k-th message of a pair goes on channel k mod N, so both ends agree on the
// connection. Steps follow the plan's order (rounds; in a round sends, then
// receives, then local operations), which is also the order of every
// connection's FIFO. Where a step needs another threadblock's result (it
// reads what that one wrote, or overwrites what it reads or writes), it
// depends on that step; a step with several such dependencies is preceded
// by nop steps that carry the others, as MSCCLang writes them.
//
//===----------------------------------------------------------------------===//

#include "plan/serialize/MscclXml.h"

#include "plan/ir/Error.h"
#include "plan/ir/Hash.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <map>

namespace collplan {

using llvm::Expected;

namespace {

struct XmlStep {
  const char *Type;
  char SrcBuf = 'i', DstBuf = 'o';
  int64_t SrcOff = -1, DstOff = -1, Count = 0;
  int64_t DepTb = -1, DepStep = -1;
  bool HasDep = false;
};

struct XmlTb {
  int64_t Send = -1, Recv = -1, Channel = 0;
  std::vector<XmlStep> Steps;
};

/// A step's place: threadblock index and step index.
struct StepId {
  uint32_t Tb;
  uint32_t Step;
};

class RankWriter {
public:
  RankWriter(const Plan &P, uint32_t Rank, const MscclExportOptions &O)
      : P(P), Rank(Rank), O(O) {}
  llvm::Error run();
  std::vector<XmlTb> Tbs;
  int64_t ScratchChunks = 0;

private:
  const Plan &P;
  uint32_t Rank;
  const MscclExportOptions &O;
  std::map<std::pair<int64_t, int64_t>, uint32_t> TbOf; ///< (peer, chan)
  std::map<uint32_t, uint64_t> SentTo, ReceivedFrom;    ///< pieces per peer
  struct Access {
    std::optional<StepId> Writer;
    std::vector<StepId> Readers;
  };
  llvm::DenseMap<uint64_t, Access, PackedKeyInfo> Accesses;

  uint32_t tbFor(int64_t Peer, int64_t Channel);
  /// The buffer of the K-th operation of kind Kind with this rank at Peer
  /// in round Index: the other end of this rank's K-th send or receive
  /// (Plan.h's matching).
  uint16_t peerBuffer(uint32_t Index, uint32_t Peer, size_t K,
                      OpKind Kind) const {
    const std::vector<Round> &Rounds = P.Programs[Peer].Rounds;
    auto It = std::lower_bound(
        Rounds.begin(), Rounds.end(), Index,
        [](const Round &Rd, uint32_t I) { return Rd.Index < I; });
    if (It != Rounds.end() && It->Index == Index)
      for (const Op &Operation : It->Ops)
        if (Operation.Kind == Kind && Operation.Peer == Rank && K-- == 0)
          return Operation.Buffer;
    return DataBuffer;
  }
  char bufferOf(uint16_t Buffer) const;
  int64_t offsetOf(uint16_t Buffer, uint64_t Block) const {
    return Buffer == DataBuffer
               ? int64_t(Block)
               : int64_t((Buffer - 1) * P.Header.Blocks + Block);
  }
  void emit(uint32_t Tb, XmlStep S,
            const std::vector<std::pair<uint16_t, BlockRange>> &Reads,
            const std::vector<std::pair<uint16_t, BlockRange>> &Writes);
};

uint32_t RankWriter::tbFor(int64_t Peer, int64_t Channel) {
  auto [It, New] = TbOf.try_emplace({Peer, Channel}, uint32_t(Tbs.size()));
  if (New) {
    XmlTb Tb;
    Tb.Send = Tb.Recv = Peer;
    Tb.Channel = Channel;
    Tbs.push_back(Tb);
  }
  return It->second;
}

char RankWriter::bufferOf(uint16_t Buffer) const {
  if (Buffer != DataBuffer)
    return 's';
  // The data buffer is the user's whole vector: MSCCL's output buffer for
  // an in-place allgather, its input buffer otherwise.
  return P.Header.Kind == Collective::Allgather ? 'o' : 'i';
}

void RankWriter::emit(
    uint32_t Tb, XmlStep S,
    const std::vector<std::pair<uint16_t, BlockRange>> &Reads,
    const std::vector<std::pair<uint16_t, BlockRange>> &Writes) {
  // The latest step of each other threadblock this one must wait for.
  std::map<uint32_t, uint32_t> Deps;
  auto Need = [&](StepId D) {
    if (D.Tb == Tb)
      return; // Its own earlier steps: program order.
    uint32_t &Latest = Deps.try_emplace(D.Tb, D.Step).first->second;
    Latest = std::max(Latest, D.Step);
  };
  auto Key = [](uint16_t Buffer, uint64_t Block) {
    return (uint64_t(Buffer) << 48) | Block;
  };
  for (auto &[Buffer, R] : Reads)
    for (uint64_t B = R.Begin; B < R.End; ++B)
      if (auto &W = Accesses[Key(Buffer, B)].Writer)
        Need(*W);
  for (auto &[Buffer, R] : Writes)
    for (uint64_t B = R.Begin; B < R.End; ++B) {
      Access &A = Accesses[Key(Buffer, B)];
      if (A.Writer)
        Need(*A.Writer);
      for (StepId Reader : A.Readers)
        Need(Reader);
    }
  std::vector<XmlStep> &Steps = Tbs[Tb].Steps;
  bool First = true;
  for (auto &[DepTb, DepStep] : Deps) {
    Tbs[DepTb].Steps[DepStep].HasDep = true;
    if (First) {
      S.DepTb = DepTb;
      S.DepStep = DepStep;
      First = false;
      continue;
    }
    XmlStep Nop{"nop"};
    Nop.DepTb = DepTb;
    Nop.DepStep = DepStep;
    Steps.push_back(Nop);
  }
  StepId Me{Tb, uint32_t(Steps.size())};
  Steps.push_back(S);
  for (auto &[Buffer, R] : Reads)
    for (uint64_t B = R.Begin; B < R.End; ++B)
      Accesses[Key(Buffer, B)].Readers.push_back(Me);
  for (auto &[Buffer, R] : Writes)
    for (uint64_t B = R.Begin; B < R.End; ++B) {
      Access &A = Accesses[Key(Buffer, B)];
      A.Writer = Me;
      A.Readers.clear();
    }
  if (S.SrcBuf == 's' && S.SrcOff >= 0)
    ScratchChunks = std::max(ScratchChunks, S.SrcOff + S.Count);
  if (S.DstBuf == 's' && S.DstOff >= 0)
    ScratchChunks = std::max(ScratchChunks, S.DstOff + S.Count);
}

llvm::Error RankWriter::run() {
  const unsigned Channels = std::max(1u, O.Channels);
  uint32_t LocalTb = UINT32_MAX;
  // Pieces of at most MaxCount chunks, one per contiguous range.
  auto Pieces = [&](const BlockSet &Blocks) {
    std::vector<BlockRange> Out;
    for (BlockRange R : Blocks.ranges())
      for (uint64_t B = R.Begin; B < R.End; B += O.Limits.MaxCount)
        Out.push_back({B, std::min<uint64_t>(R.End, B + O.Limits.MaxCount)});
    return Out;
  };
  for (const Round &Rd : P.Programs[Rank].Rounds) {
    // This round's sends and receives so far, per peer.
    std::map<uint32_t, std::pair<size_t, size_t>> Nth;
    for (int Pass = 0; Pass < 3; ++Pass)
      for (const Op &Operation : Rd.Ops) {
        // A round's sends read first, then receives land, then local
        // operations run in order (Plan.h).
        if (int(Operation.Kind) != Pass)
          continue;
        for (BlockRange R : Pieces(Operation.Blocks)) {
          XmlStep S{"s"};
          S.Count = int64_t(R.size());
          if (Operation.Kind == OpKind::Local) {
            if (LocalTb == UINT32_MAX) {
              LocalTb = uint32_t(Tbs.size());
              Tbs.push_back(XmlTb());
            }
            S.Type = Operation.Mode == Combine::Reduce ? "re" : "cpy";
            S.SrcBuf = bufferOf(Operation.Source);
            S.SrcOff = offsetOf(Operation.Source, R.Begin);
            S.DstBuf = bufferOf(Operation.Buffer);
            S.DstOff = offsetOf(Operation.Buffer, R.Begin);
            std::vector<std::pair<uint16_t, BlockRange>> Reads = {
                {Operation.Source, R}};
            if (Operation.Mode == Combine::Reduce)
              Reads.push_back({Operation.Buffer, R});
            emit(LocalTb, S, Reads, {{Operation.Buffer, R}});
            continue;
          }
          bool IsSend = Operation.Kind == OpKind::Send;
          uint64_t &Count = (IsSend ? SentTo : ReceivedFrom)[Operation.Peer];
          uint32_t Tb = tbFor(Operation.Peer, int64_t(Count++ % Channels));
          char Buf = bufferOf(Operation.Buffer);
          int64_t Off = offsetOf(Operation.Buffer, R.Begin);
          if (IsSend) {
            // dstbuf/dstoff say where the receiver puts it.
            uint16_t Dst = peerBuffer(Rd.Index, Operation.Peer,
                                      Nth[Operation.Peer].first, OpKind::Recv);
            S.SrcBuf = Buf;
            S.SrcOff = Off;
            S.DstBuf = bufferOf(Dst);
            S.DstOff = offsetOf(Dst, R.Begin);
            emit(Tb, S, {{Operation.Buffer, R}}, {});
            continue;
          }
          // A receive that reduces: rrc with the destination as its source.
          bool Reduce = Operation.Mode == Combine::Reduce;
          S.Type = Reduce ? "rrc" : "r";
          S.DstBuf = Buf;
          S.DstOff = Off;
          // An rrc's source is its destination; an r's is the sender's.
          uint16_t Src =
              Reduce ? Operation.Buffer
                     : peerBuffer(Rd.Index, Operation.Peer,
                                  Nth[Operation.Peer].second, OpKind::Send);
          S.SrcBuf = bufferOf(Src);
          S.SrcOff = offsetOf(Src, R.Begin);
          std::vector<std::pair<uint16_t, BlockRange>> Reads;
          if (Reduce)
            Reads.push_back({Operation.Buffer, R});
          emit(Tb, S, Reads, {{Operation.Buffer, R}});
        }
        if (Operation.Kind == OpKind::Send)
          ++Nth[Operation.Peer].first;
        if (Operation.Kind == OpKind::Recv)
          ++Nth[Operation.Peer].second;
      }
  }
  // A threadblock names only the connections it uses.
  for (XmlTb &Tb : Tbs) {
    bool Sends = false, Receives = false;
    for (const XmlStep &S : Tb.Steps) {
      Sends |= llvm::StringRef(S.Type) == "s";
      Receives |= S.Type[0] == 'r' && llvm::StringRef(S.Type) != "re";
    }
    if (!Sends)
      Tb.Send = -1;
    if (!Receives)
      Tb.Recv = -1;
  }
  return llvm::Error::success();
}

void escape(llvm::raw_ostream &OS, llvm::StringRef Text) {
  for (char C : Text)
    switch (C) {
    case '&':
      OS << "&amp;";
      break;
    case '<':
      OS << "&lt;";
      break;
    case '>':
      OS << "&gt;";
      break;
    case '"':
      OS << "&quot;";
      break;
    default:
      OS << C;
    }
}

llvm::Error refuse(const llvm::Twine &Why) {
  return makeError(ErrorKind::CannotCompile,
                   "cannot export to MSCCL XML: " + Why);
}

} // namespace

Expected<std::string> encodeMscclXml(const Plan &P,
                                     const MscclExportOptions &O) {
  const PlanHeader &H = P.Header;
  if (isPersonalised(H.Kind))
    return refuse("exporting " + collectiveName(H.Kind) +
                  " is not implemented (MSCCL's alltoall files are read by "
                  "import)");
  if (H.Kind == Collective::Allgatherv || !H.Weights.empty())
    return refuse("MSCCL's chunks are all the same size; a plan with block "
                  "weights (allgatherv) has no MSCCL form");
  if (O.Dialect != "msccl" && O.Dialect != "rccl")
    return makeError(ErrorKind::Usage, "--dialect must be msccl or rccl");
  if (O.Protocol != "Simple" && O.Protocol != "LL" && O.Protocol != "LL128")
    return makeError(ErrorKind::Usage,
                     "--protocol must be Simple, LL or LL128");
  if (O.Channels < 1)
    return makeError(ErrorKind::Usage, "--channels must be at least 1");
  // Checked before lowering, not found when the file fails to import back.
  if (H.Ranks > O.Limits.MaxGpus)
    return refuse(llvm::Twine(H.Ranks) +
                  " ranks: an MSCCL file holds at most " +
                  llvm::Twine(O.Limits.MaxGpus) + " gpus");
  if (H.Blocks > O.Limits.MaxOffset + 1)
    return refuse(llvm::Twine(H.Blocks) +
                  " blocks: offsets must fit in 16 bits (at most " +
                  llvm::Twine(O.Limits.MaxOffset + 1) + " chunks)");
  std::vector<RankWriter> Ranks;
  Ranks.reserve(H.Ranks);
  for (uint32_t R = 0; R < H.Ranks; ++R) {
    Ranks.emplace_back(P, R, O);
    if (llvm::Error E = Ranks.back().run())
      return E;
    RankWriter &W = Ranks.back();
    if (W.ScratchChunks > int64_t(O.Limits.MaxOffset) + 1)
      return refuse("rank " + llvm::Twine(R) + " needs " +
                    llvm::Twine(W.ScratchChunks) +
                    " scratch chunks: offsets must fit in 16 bits");
    std::map<int64_t, unsigned> PerChannel;
    for (size_t T = 0; T < W.Tbs.size(); ++T) {
      if (W.Tbs[T].Steps.size() > O.Limits.StepsPerThreadblock)
        return refuse("rank " + llvm::Twine(R) + ", threadblock " +
                      llvm::Twine(T) + " needs " +
                      llvm::Twine(W.Tbs[T].Steps.size()) +
                      " steps, past the limit of " +
                      llvm::Twine(O.Limits.StepsPerThreadblock) +
                      " steps per threadblock (more --channels spread them)");
      if (++PerChannel[W.Tbs[T].Channel] > O.Limits.ThreadblocksPerChannel)
        return refuse("rank " + llvm::Twine(R) + " needs more than " +
                      llvm::Twine(O.Limits.ThreadblocksPerChannel) +
                      " threadblocks on channel " +
                      llvm::Twine(W.Tbs[T].Channel) +
                      ", the limit per channel");
    }
  }

  bool Rccl = O.Dialect == "rccl";
  const char *Coll = "allreduce";
  switch (H.Kind) {
  case Collective::Allreduce:
    break;
  case Collective::ReduceScatter:
    Coll = Rccl ? "reducescatter" : "reduce_scatter";
    break;
  case Collective::Allgather:
  case Collective::Allgatherv:
    Coll = "allgather";
    break;
  case Collective::Broadcast:
    Coll = "broadcast";
    break;
  case Collective::Reduce:
    Coll = "reduce";
    break;
  case Collective::Alltoall:
  case Collective::Alltoallv:
    Coll = "alltoall";
    break;
  }
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  OS << "<!-- Written by collplan export: " << collectiveName(H.Kind)
     << " plan, the user's buffer used in place. -->\n";
  OS << "<algo name=\"";
  escape(OS, H.Algorithm.empty() ? "collplan" : H.Algorithm);
  OS << "\" proto=\"" << O.Protocol << "\" nchannels=\"" << O.Channels
     << "\" nchunksperloop=\"" << H.Blocks << "\" ngpus=\"" << H.Ranks
     << "\" coll=\"" << Coll << "\" inplace=\"1\"";
  if (Rccl)
    OS << " outofplace=\"0\" minBytes=\"0\" maxBytes=\"" << INT64_MAX << "\"";
  OS << ">\n";
  bool Gather = H.Kind == Collective::Allgather;
  for (uint32_t R = 0; R < H.Ranks; ++R) {
    const RankWriter &W = Ranks[R];
    OS << "  <gpu id=\"" << R << "\" i_chunks=\"" << (Gather ? 0 : H.Blocks)
       << "\" o_chunks=\"" << (Gather ? H.Blocks : 0) << "\" s_chunks=\""
       << W.ScratchChunks << "\">\n";
    for (size_t T = 0; T < W.Tbs.size(); ++T) {
      const XmlTb &Tb = W.Tbs[T];
      OS << "    <tb id=\"" << T << "\" send=\"" << Tb.Send << "\" recv=\""
         << Tb.Recv << "\" chan=\"" << Tb.Channel << "\">\n";
      for (size_t S = 0; S < Tb.Steps.size(); ++S) {
        const XmlStep &St = Tb.Steps[S];
        OS << "      <step s=\"" << S << "\" type=\"" << St.Type
           << "\" srcbuf=\"" << St.SrcBuf << "\" srcoff=\"" << St.SrcOff
           << "\" dstbuf=\"" << St.DstBuf << "\" dstoff=\"" << St.DstOff
           << "\" cnt=\"" << St.Count << "\" depid=\"" << St.DepTb
           << "\" deps=\"" << St.DepStep << "\" hasdep=\""
           << (St.HasDep ? 1 : 0) << "\"/>\n";
      }
      OS << "    </tb>\n";
    }
    OS << "  </gpu>\n";
  }
  OS << "</algo>\n";
  return Out;
}

} // namespace collplan
