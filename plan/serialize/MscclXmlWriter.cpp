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
// Alltoall is written out of place, as MSCCL's alltoall files are (the
// inverse of import's naming, README "MSCCL XML"): a gpu's own row is its
// `i` buffer, its column its `o` buffer (the diagonal copied from one to the
// other at the end), and every other block it holds on the way, in `data`
// or a scratch buffer, a scratch chunk of its own, numbered in the order the
// gpu first writes it (PersonalisedChunks).
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

/// Where a block of a plan buffer lies in one gpu's MSCCL buffers.
struct Chunk {
  char Buf;
  int64_t Off;
};

/// Alltoall's chunks: per gpu, the scratch chunk of every (buffer, block)
/// it holds other than its row and column in `data`, in the order the gpu
/// first receives or copies into it. Every gpu's is built before any is
/// written, since a send names where its receiver puts the block.
class PersonalisedChunks {
public:
  explicit PersonalisedChunks(const Plan &P)
      : H(P.Header), PerRow(H.Blocks / H.Ranks), PerPair(H.pairBlocks()),
        Scratch(H.Ranks), Count(H.Ranks, 0) {
    for (uint32_t R = 0; R < H.Ranks; ++R)
      for (const Round &Rd : P.Programs[R].Rounds)
        for (int Pass : {int(OpKind::Recv), int(OpKind::Local)})
          for (const Op &O : Rd.Ops)
            if (int(O.Kind) == Pass)
              O.Blocks.forEachBlock([&](uint64_t B) {
                if (!own(R, O.Buffer, B))
                  Scratch[R].try_emplace(key(O.Buffer, B), Count[R]++);
              });
  }

  Chunk at(uint32_t Rank, uint16_t Buffer, uint64_t Block) const {
    uint64_t Sender = Block / PerRow, Within = Block % PerRow;
    if (Buffer == DataBuffer && Sender == Rank)
      return {'i', int64_t(Within)};
    if (Buffer == DataBuffer && Within / PerPair == Rank)
      return {'o', int64_t(Sender * PerPair + Within % PerPair)};
    auto It = Scratch[Rank].find(key(Buffer, Block));
    // A block read where nothing put it (a plan the verifier refuses).
    return {'s', It == Scratch[Rank].end() ? -1 : int64_t(It->second)};
  }
  int64_t scratchChunks(uint32_t Rank) const { return Count[Rank]; }
  uint64_t perRow() const { return PerRow; }
  uint64_t perPair() const { return PerPair; }

private:
  const PlanHeader &H;
  uint64_t PerRow, PerPair;
  std::vector<llvm::DenseMap<uint64_t, uint64_t, PackedKeyInfo>> Scratch;
  std::vector<int64_t> Count;

  static uint64_t key(uint16_t Buffer, uint64_t Block) {
    return (uint64_t(Buffer) << 48) | Block;
  }
  /// Whether the block is in Rank's row or column of `data`.
  bool own(uint32_t Rank, uint16_t Buffer, uint64_t Block) const {
    return Buffer == DataBuffer &&
           (Block / PerRow == Rank || Block % PerRow / PerPair == Rank);
  }
};

class RankWriter {
public:
  RankWriter(const Plan &P, uint32_t Rank, const MscclExportOptions &O,
             const PersonalisedChunks *Chunks)
      : P(P), Rank(Rank), O(O), Chunks(Chunks) {}
  llvm::Error run();
  std::vector<XmlTb> Tbs;
  int64_t ScratchChunks = 0;

private:
  const Plan &P;
  uint32_t Rank;
  const MscclExportOptions &O;
  const PersonalisedChunks *Chunks;                     ///< Alltoall only.
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
  /// Where Block of Buffer lies at gpu At.
  Chunk chunkOf(uint32_t At, uint16_t Buffer, uint64_t Block) const {
    if (Chunks)
      return Chunks->at(At, Buffer, Block);
    return {bufferOf(Buffer),
            Buffer == DataBuffer
                ? int64_t(Block)
                : int64_t((Buffer - 1) * P.Header.Blocks + Block)};
  }
  /// R cut where the chunks at either end stop being consecutive: alltoall's
  /// blocks of one range may lie in different buffers.
  std::vector<BlockRange> runs(BlockRange R, uint32_t At, uint16_t Buffer,
                               uint32_t OtherAt, uint16_t Other) const {
    if (!Chunks)
      return {R};
    std::vector<BlockRange> Out;
    for (uint64_t B = R.Begin; B < R.End; ++B) {
      auto Next = [&](uint32_t G, uint16_t Buf) {
        Chunk Prev = chunkOf(G, Buf, B - 1), Here = chunkOf(G, Buf, B);
        return Prev.Buf == Here.Buf && Prev.Off + 1 == Here.Off;
      };
      if (B > R.Begin && Next(At, Buffer) && Next(OtherAt, Other))
        Out.back().End = B + 1;
      else
        Out.push_back({B, B + 1});
    }
    return Out;
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
        bool IsSend = Operation.Kind == OpKind::Send;
        size_t K =
            IsSend ? Nth[Operation.Peer].first : Nth[Operation.Peer].second;
        // The buffer at the other end: the peer's matched operation's, or
        // a local operation's source.
        uint32_t OtherAt =
            Operation.Kind == OpKind::Local ? Rank : Operation.Peer;
        uint16_t Other = Operation.Kind == OpKind::Local
                             ? Operation.Source
                             : peerBuffer(Rd.Index, Operation.Peer, K,
                                          IsSend ? OpKind::Recv : OpKind::Send);
        std::vector<BlockRange> Cut;
        for (BlockRange Piece : Pieces(Operation.Blocks))
          for (BlockRange Run :
               runs(Piece, Rank, Operation.Buffer, OtherAt, Other))
            Cut.push_back(Run);
        for (BlockRange R : Cut) {
          XmlStep S{"s"};
          S.Count = int64_t(R.size());
          if (Operation.Kind == OpKind::Local) {
            if (LocalTb == UINT32_MAX) {
              LocalTb = uint32_t(Tbs.size());
              Tbs.push_back(XmlTb());
            }
            S.Type = Operation.Mode == Combine::Reduce ? "re" : "cpy";
            Chunk From = chunkOf(Rank, Operation.Source, R.Begin);
            Chunk To = chunkOf(Rank, Operation.Buffer, R.Begin);
            S.SrcBuf = From.Buf;
            S.SrcOff = From.Off;
            S.DstBuf = To.Buf;
            S.DstOff = To.Off;
            std::vector<std::pair<uint16_t, BlockRange>> Reads = {
                {Operation.Source, R}};
            if (Operation.Mode == Combine::Reduce)
              Reads.push_back({Operation.Buffer, R});
            emit(LocalTb, S, Reads, {{Operation.Buffer, R}});
            continue;
          }
          uint64_t &Count = (IsSend ? SentTo : ReceivedFrom)[Operation.Peer];
          uint32_t Tb = tbFor(Operation.Peer, int64_t(Count++ % Channels));
          Chunk Mine = chunkOf(Rank, Operation.Buffer, R.Begin);
          if (IsSend) {
            // dstbuf/dstoff say where the receiver puts it.
            Chunk Dst = chunkOf(Operation.Peer, Other, R.Begin);
            S.SrcBuf = Mine.Buf;
            S.SrcOff = Mine.Off;
            S.DstBuf = Dst.Buf;
            S.DstOff = Dst.Off;
            emit(Tb, S, {{Operation.Buffer, R}}, {});
            continue;
          }
          // A receive that reduces: rrc with the destination as its source.
          bool Reduce = Operation.Mode == Combine::Reduce;
          S.Type = Reduce ? "rrc" : "r";
          S.DstBuf = Mine.Buf;
          S.DstOff = Mine.Off;
          // An rrc's source is its destination; an r's is the sender's.
          Chunk Src = Reduce ? Mine : chunkOf(Operation.Peer, Other, R.Begin);
          S.SrcBuf = Src.Buf;
          S.SrcOff = Src.Off;
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
  if (Chunks) {
    // Out of place, the diagonal goes from the row to the column.
    if (LocalTb == UINT32_MAX) {
      LocalTb = uint32_t(Tbs.size());
      Tbs.push_back(XmlTb());
    }
    uint64_t K = Chunks->perPair(), Diagonal = Rank * Chunks->perRow();
    BlockRange Own{Diagonal + Rank * K, Diagonal + (Rank + 1) * K};
    XmlStep Copy{"cpy"};
    Copy.SrcBuf = 'i';
    Copy.DstBuf = 'o';
    Copy.SrcOff = Copy.DstOff = int64_t(Rank * K);
    Copy.Count = int64_t(K);
    emit(LocalTb, Copy, {{DataBuffer, Own}}, {});
    ScratchChunks = Chunks->scratchChunks(Rank);
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
  if (H.Kind == Collective::Allgatherv || !H.Weights.empty())
    return refuse("MSCCL's chunks are all the same size; a plan with block "
                  "weights (allgatherv, alltoallv) has no MSCCL form");
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
  bool Personalised = isPersonalised(H.Kind);
  std::optional<PersonalisedChunks> Chunks;
  if (Personalised)
    Chunks.emplace(P);
  std::vector<RankWriter> Ranks;
  Ranks.reserve(H.Ranks);
  for (uint32_t R = 0; R < H.Ranks; ++R) {
    Ranks.emplace_back(P, R, O, Chunks ? &*Chunks : nullptr);
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
     << " plan, "
     << (Personalised ? "out of place: a gpu's row in i, its column in o"
                      : "the user's buffer used in place")
     << ". -->\n";
  // An alltoall's loop is a gpu's row; any other's the whole vector.
  uint64_t Loop = Personalised ? H.Blocks / H.Ranks : H.Blocks;
  OS << "<algo name=\"";
  escape(OS, H.Algorithm.empty() ? "collplan" : H.Algorithm);
  OS << "\" proto=\"" << O.Protocol << "\" nchannels=\"" << O.Channels
     << "\" nchunksperloop=\"" << Loop << "\" ngpus=\"" << H.Ranks
     << "\" coll=\"" << Coll << "\" inplace=\"" << (Personalised ? 0 : 1)
     << "\"";
  if (Rccl)
    OS << " outofplace=\"" << (Personalised ? 1 : 0)
       << "\" minBytes=\"0\" maxBytes=\"" << INT64_MAX << "\"";
  OS << ">\n";
  bool Gather = H.Kind == Collective::Allgather;
  for (uint32_t R = 0; R < H.Ranks; ++R) {
    const RankWriter &W = Ranks[R];
    OS << "  <gpu id=\"" << R << "\" i_chunks=\"" << (Gather ? 0 : Loop)
       << "\" o_chunks=\""
       << (Gather         ? H.Blocks
           : Personalised ? Loop
                          : 0)
       << "\" s_chunks=\"" << W.ScratchChunks << "\">\n";
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
