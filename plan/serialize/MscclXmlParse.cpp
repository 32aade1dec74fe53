//===- MscclXmlParse.cpp - Reading MSCCL XML's elements -------------------===//
//
// tinyxml2 does the XML; this file checks the elements and attributes the
// format has and reports each problem with its line. Semantics (matching,
// deadlock, rounds) are MscclXmlImport.cpp's.
//
//===----------------------------------------------------------------------===//

#include "plan/serialize/MscclXml.h"
#include "plan/serialize/MscclXmlModel.h"

#include "plan/ir/Error.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"

#include <tinyxml2.h>

#include <map>

namespace collplan::msccl {

using llvm::Error;
using llvm::Expected;
using llvm::StringRef;

llvm::StringRef stepTypeName(StepType T) {
  static const char *Names[] = {"s",   "r",   "re",  "cpy", "nop",
                                "rcs", "rrs", "rrc", "rrcs"};
  return Names[static_cast<int>(T)];
}

std::optional<StepType> parseStepType(StringRef Name) {
  return llvm::StringSwitch<std::optional<StepType>>(Name)
      .Case("s", StepType::Send)
      .Case("r", StepType::Recv)
      .Case("re", StepType::Reduce)
      .Case("cpy", StepType::Copy)
      .Case("nop", StepType::Nop)
      .Case("rcs", StepType::RecvCopySend)
      .Case("rrs", StepType::RecvReduceSend)
      .Case("rrc", StepType::RecvReduceCopy)
      .Case("rrcs", StepType::RecvReduceCopySend)
      .Default(std::nullopt);
}

namespace {

/// Reads attributes of one element, reporting the first problem with the
/// element's line.
class Attrs {
public:
  Attrs(const tinyxml2::XMLElement &E, StringRef Name) : E(E), Name(Name) {}

  Error fail(const llvm::Twine &Message, ErrorKind K = ErrorKind::Usage) const {
    return makeError(K, Name + ":" + llvm::Twine(E.GetLineNum()) + ": <" +
                            E.Name() + ">: " + Message);
  }

  Expected<std::string> str(const char *Attr) const {
    const char *V = E.Attribute(Attr);
    if (!V)
      return fail(llvm::Twine("missing attribute '") + Attr + "'");
    return std::string(V);
  }

  Expected<int64_t> integer(const char *Attr, int64_t Min, int64_t Max) const {
    COLLPLAN_TRY(Text, str(Attr));
    int64_t V = 0;
    if (StringRef(Text).trim().getAsInteger(10, V) || V < Min || V > Max)
      return fail(llvm::Twine("attribute ") + Attr + "=\"" + Text +
                  "\" is not an integer in [" + llvm::Twine(Min) + ", " +
                  llvm::Twine(Max) + "]");
    return V;
  }

  Expected<std::optional<int64_t>>
  optionalInteger(const char *Attr, int64_t Min, int64_t Max) const {
    if (!E.Attribute(Attr))
      return std::optional<int64_t>();
    COLLPLAN_TRY(V, integer(Attr, Min, Max));
    return std::optional<int64_t>(V);
  }

  Expected<char> buffer(const char *Attr) const {
    COLLPLAN_TRY(Text, str(Attr));
    if (Text != "i" && Text != "o" && Text != "s")
      return fail(llvm::Twine("attribute ") + Attr + "=\"" + Text +
                  "\" is not a buffer (i, o or s)");
    return Text[0];
  }

private:
  const tinyxml2::XMLElement &E;
  StringRef Name;
};

// Bounds far above any real file that keep the import's arithmetic small.
const int64_t MaxGpus = MscclLimits().MaxGpus;
constexpr int64_t MaxChunks = int64_t(1) << 24, MaxId = int64_t(1) << 20;

Expected<Step> parseStep(const tinyxml2::XMLElement &E, StringRef Name) {
  Attrs A(E, Name);
  Step S;
  S.Line = E.GetLineNum();
  COLLPLAN_TRY(Type, A.str("type"));
  std::optional<StepType> T = parseStepType(Type);
  if (!T)
    return A.fail("step type '" + Type +
                      "' is not one collplan models (s, r, re, cpy, nop, "
                      "rcs, rrs, rrc, rrcs)",
                  ErrorKind::CannotCompile);
  S.Type = *T;
  COLLPLAN_TRY(SrcBuf, A.buffer("srcbuf"));
  COLLPLAN_TRY(DstBuf, A.buffer("dstbuf"));
  COLLPLAN_TRY(SrcOff, A.integer("srcoff", -1, MaxChunks));
  COLLPLAN_TRY(DstOff, A.integer("dstoff", -1, MaxChunks));
  COLLPLAN_TRY(Count, A.integer("cnt", 0, MaxChunks));
  COLLPLAN_TRY(DepTb, A.integer("depid", -1, MaxId));
  COLLPLAN_TRY(DepStep, A.integer("deps", -1, MaxId));
  S.SrcBuf = SrcBuf;
  S.DstBuf = DstBuf;
  S.SrcOff = SrcOff;
  S.DstOff = DstOff;
  S.Count = Count;
  S.DepTb = DepTb;
  S.DepStep = DepStep;
  if ((DepTb < 0) != (DepStep < 0))
    return A.fail("depid and deps must both be -1 or both name a step");
  if (S.Type != StepType::Nop && Count < 1)
    return A.fail("a " + stepTypeName(S.Type) +
                  " step moves at least one "
                  "chunk (cnt >= 1)");
  bool ReadsSrc = S.Type == StepType::Send || S.Type == StepType::Reduce ||
                  S.Type == StepType::Copy ||
                  S.Type == StepType::RecvReduceSend ||
                  S.Type == StepType::RecvReduceCopy ||
                  S.Type == StepType::RecvReduceCopySend;
  bool WritesDst = S.Type != StepType::Send && S.Type != StepType::Nop &&
                   S.Type != StepType::RecvReduceSend;
  if ((ReadsSrc && SrcOff < 0) || (WritesDst && DstOff < 0))
    return A.fail("a " + stepTypeName(S.Type) +
                  " step needs srcoff and dstoff of its buffers (not -1)");
  return S;
}

Expected<Threadblock> parseTb(const tinyxml2::XMLElement &E, StringRef Name) {
  Attrs A(E, Name);
  Threadblock Tb;
  Tb.Line = E.GetLineNum();
  COLLPLAN_TRY(Id, A.integer("id", 0, MaxId));
  COLLPLAN_TRY(Send, A.integer("send", -1, MaxGpus));
  COLLPLAN_TRY(Recv, A.integer("recv", -1, MaxGpus));
  COLLPLAN_TRY(Chan, A.integer("chan", 0, MaxId));
  Tb.Id = Id;
  Tb.SendPeer = Send;
  Tb.RecvPeer = Recv;
  Tb.Channel = Chan;
  for (const tinyxml2::XMLElement *S = E.FirstChildElement(); S;
       S = S->NextSiblingElement()) {
    if (StringRef(S->Name()) != "step")
      return Attrs(*S, Name).fail("expected <step> inside <tb>");
    COLLPLAN_TRY(St, parseStep(*S, Name));
    Attrs SA(*S, Name);
    COLLPLAN_TRY(Index, SA.integer("s", 0, MaxId));
    if (Index != int64_t(Tb.Steps.size()))
      return SA.fail("step s=\"" + llvm::Twine(Index) + "\" out of order (" +
                     llvm::Twine(Tb.Steps.size()) + " expected)");
    if (hasSend(St.Type) && Tb.SendPeer < 0)
      return SA.fail("a " + stepTypeName(St.Type) +
                     " step in a threadblock with send=\"-1\"");
    if (hasRecv(St.Type) && Tb.RecvPeer < 0)
      return SA.fail("a " + stepTypeName(St.Type) +
                     " step in a threadblock with recv=\"-1\"");
    Tb.Steps.push_back(St);
  }
  return Tb;
}

/// MSCCL's elements have about ten attributes each; this leaves room for
/// any a newer tool adds.
constexpr unsigned MaxAttributes = 256;

/// Refuses an element with more than MaxAttributes attributes before
/// tinyxml2 reads it: tinyxml2 looks for a duplicate among the attributes
/// read so far for every attribute it reads, quadratic in their number (a
/// 2 MB element of 100,000 attributes takes a minute). A lexical scan:
/// comments, CDATA, declarations and quoted values are skipped; each '='
/// of a start tag is an attribute.
Error checkAttributeCounts(StringRef Bytes, StringRef Name) {
  int Line = 1;
  auto SkipTo = [&](size_t &I, StringRef End) {
    size_t J = Bytes.find(End, I);
    J = J == StringRef::npos ? Bytes.size() : J + End.size();
    Line += Bytes.slice(I, J).count('\n');
    I = J;
  };
  for (size_t I = 0; I < Bytes.size();) {
    char C = Bytes[I];
    if (C != '<') {
      Line += C == '\n';
      ++I;
      continue;
    }
    StringRef Rest = Bytes.drop_front(I);
    if (Rest.startswith("<!--")) {
      SkipTo(I, "-->");
    } else if (Rest.startswith("<![CDATA[")) {
      SkipTo(I, "]]>");
    } else if (Rest.startswith("<?")) {
      SkipTo(I, "?>");
    } else if (Rest.startswith("<!") || Rest.startswith("</")) {
      SkipTo(I, ">");
    } else {
      int TagLine = Line;
      unsigned Count = 0;
      char Quote = 0;
      for (++I; I < Bytes.size() && (Quote || Bytes[I] != '>'); ++I) {
        char D = Bytes[I];
        Line += D == '\n';
        if (Quote)
          Quote = D == Quote ? 0 : Quote;
        else if (D == '"' || D == '\'')
          Quote = D;
        else if (D == '=' && ++Count > MaxAttributes)
          return makeError(ErrorKind::Usage,
                           Name + ":" + llvm::Twine(TagLine) +
                               ": an element with more than " +
                               llvm::Twine(MaxAttributes) + " attributes");
      }
    }
  }
  return Error::success();
}

} // namespace

Expected<Algorithm> parseAlgorithm(StringRef Bytes, StringRef Name) {
  if (Error E = checkAttributeCounts(Bytes, Name))
    return std::move(E);
  tinyxml2::XMLDocument Doc;
  if (Doc.Parse(Bytes.data(), Bytes.size()) != tinyxml2::XML_SUCCESS)
    return makeError(ErrorKind::Usage,
                     Name + ":" + llvm::Twine(Doc.ErrorLineNum()) +
                         ": malformed XML: " + Doc.ErrorStr());
  const tinyxml2::XMLElement *Root = Doc.RootElement();
  if (!Root || StringRef(Root->Name()) != "algo")
    return makeError(ErrorKind::Usage,
                     Name + ": not an MSCCL algorithm (no <algo> element)");
  Attrs A(*Root, Name);
  // tinyxml2 reads a document of several root elements; which one is the
  // algorithm would be a guess.
  if (const tinyxml2::XMLElement *Second = Root->NextSiblingElement())
    return Attrs(*Second, Name)
        .fail("a second root element: an MSCCL file holds one <algo>");
  Algorithm Algo;
  COLLPLAN_TRY(AlgoName, A.str("name"));
  COLLPLAN_TRY(Proto, A.str("proto"));
  COLLPLAN_TRY(Coll, A.str("coll"));
  COLLPLAN_TRY(Channels, A.integer("nchannels", 1, MaxId));
  COLLPLAN_TRY(Gpus, A.integer("ngpus", 1, MaxGpus));
  COLLPLAN_TRY(InPlace, A.integer("inplace", 0, 1));
  Algo.Name = AlgoName;
  Algo.Protocol = Proto;
  Algo.CollName = Coll;
  Algo.Channels = Channels;
  Algo.Gpus = Gpus;
  Algo.InPlace = InPlace;
  // Newer files may leave nchunksperloop out; older runtimes need it.
  COLLPLAN_TRY(Chunks, A.optionalInteger("nchunksperloop", 1, MaxChunks));
  COLLPLAN_TRY(OutOfPlace, A.optionalInteger("outofplace", 0, 1));
  if (OutOfPlace && *OutOfPlace == InPlace)
    return A.fail("inplace and outofplace contradict each other");
  COLLPLAN_TRY(MinBytes, A.optionalInteger("minBytes", 0, INT64_MAX));
  COLLPLAN_TRY(MaxBytes, A.optionalInteger("maxBytes", 0, INT64_MAX));
  Algo.MinBytes = MinBytes;
  Algo.MaxBytes = MaxBytes;
  std::optional<Collective> C =
      llvm::StringSwitch<std::optional<Collective>>(Coll)
          .Case("allreduce", Collective::Allreduce)
          .Cases("reduce_scatter", "reducescatter", Collective::ReduceScatter)
          .Cases("allgather", "all_gather", Collective::Allgather)
          .Case("broadcast", Collective::Broadcast)
          .Case("reduce", Collective::Reduce)
          .Cases("alltoall", "all_to_all", Collective::Alltoall)
          .Default(std::nullopt);
  if (!C)
    return A.fail("collective '" + Coll +
                      "' is not one collplan models (allreduce, "
                      "reduce_scatter/reducescatter, allgather, broadcast, "
                      "reduce, alltoall)",
                  ErrorKind::CannotCompile);
  Algo.Coll = *C;

  std::map<int64_t, Gpu> ById;
  int64_t MaxBufferChunks = 0;
  for (const tinyxml2::XMLElement *G = Root->FirstChildElement(); G;
       G = G->NextSiblingElement()) {
    Attrs GA(*G, Name);
    if (StringRef(G->Name()) != "gpu")
      return GA.fail("expected <gpu> inside <algo>");
    Gpu Gp;
    Gp.Line = G->GetLineNum();
    COLLPLAN_TRY(Id, GA.integer("id", 0, Gpus - 1));
    COLLPLAN_TRY(I, GA.integer("i_chunks", 0, MaxChunks));
    COLLPLAN_TRY(O, GA.integer("o_chunks", 0, MaxChunks));
    COLLPLAN_TRY(S, GA.integer("s_chunks", 0, MaxChunks));
    Gp.Id = Id;
    Gp.InputChunks = I;
    Gp.OutputChunks = O;
    Gp.ScratchChunks = S;
    MaxBufferChunks = std::max({MaxBufferChunks, I, O});
    std::map<int64_t, bool> Ids;
    for (const tinyxml2::XMLElement *T = G->FirstChildElement(); T;
         T = T->NextSiblingElement()) {
      if (StringRef(T->Name()) != "tb")
        return Attrs(*T, Name).fail("expected <tb> inside <gpu>");
      COLLPLAN_TRY(Tb, parseTb(*T, Name));
      if (Tb.SendPeer == Id || Tb.RecvPeer == Id || Tb.SendPeer >= Gpus ||
          Tb.RecvPeer >= Gpus)
        return Attrs(*T, Name).fail("send/recv peer is this gpu or past "
                                    "ngpus");
      if (!Ids.emplace(Tb.Id, true).second)
        return Attrs(*T, Name).fail("threadblock id " + llvm::Twine(Tb.Id) +
                                    " repeated");
      Gp.Tbs.push_back(std::move(Tb));
    }
    if (!ById.emplace(Id, std::move(Gp)).second)
      return GA.fail("gpu id " + llvm::Twine(Id) + " repeated");
  }
  if (int64_t(ById.size()) != Gpus)
    return A.fail("ngpus=\"" + llvm::Twine(Gpus) + "\" but " +
                  llvm::Twine(ById.size()) + " <gpu> elements");
  Algo.ChunksPerLoop = Chunks ? *Chunks : MaxBufferChunks;
  if (Algo.ChunksPerLoop < 1)
    return A.fail("no nchunksperloop and no buffer sizes to infer it from");
  for (auto &[Id, Gp] : ById)
    Algo.GpuList.push_back(std::move(Gp));
  return Algo;
}

} // namespace collplan::msccl
