//===- PlanIndex.cpp - A plan directory's index ---------------------------===//

#include "plan/dispatch/PlanIndex.h"

#include "plan/ir/Error.h"
#include "plan/ir/FileIo.h"
#include "plan/serialize/PlanFile.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <yaml-cpp/yaml.h>

using llvm::Error;
using llvm::Expected;
using llvm::StringRef;

namespace collplan {

void PlanIndex::put(DispatchRule E) {
  // A measured rule stands for its table from its first size on; the
  // model's rule for a file is the file's one unmeasured rule.
  auto Same = llvm::find_if(Plans, [&](const DispatchRule &Old) {
    if (E.measured() || Old.measured())
      return E.measured() && Old.measured() && tableOf(Old) == tableOf(E) &&
             Old.MinBytes == E.MinBytes;
    return Old.File == E.File;
  });
  if (Same != Plans.end())
    *Same = std::move(E);
  else
    Plans.push_back(std::move(E));
}

namespace {

/// An entry's fields, read with the reason when one is wrong.
class EntryReader {
public:
  EntryReader(const YAML::Node &N, std::string Where)
      : N(N), Where(std::move(Where)) {}

  Error fail(const std::string &Why) const {
    return makeError(ErrorKind::Usage, Where + ": " + Why);
  }

  template <typename T> Expected<T> required(const char *Key) const {
    if (!N[Key])
      return fail(std::string("no '") + Key + "'");
    return scalar<T>(Key);
  }

  template <typename T> Expected<T> scalar(const char *Key) const {
    try {
      return N[Key].as<T>();
    } catch (const YAML::Exception &) {
      return fail(std::string("'") + Key + "' is not what it should be");
    }
  }

  Expected<uint64_t> bytes(const char *Key, uint64_t Inf) const {
    Expected<std::string> S = required<std::string>(Key);
    if (!S)
      return S.takeError();
    if (Inf && *S == "inf")
      return Inf;
    uint64_t V = 0;
    if (StringRef(*S).getAsInteger(10, V))
      return fail(std::string("'") + Key + "' is not a byte count" +
                  (Inf ? " or inf" : ""));
    return V;
  }

  const YAML::Node &N;
  std::string Where;
};

Expected<DispatchRule> parseEntry(const YAML::Node &N,
                                  const std::string &Where) {
  if (!N.IsMap())
    return makeError(ErrorKind::Usage, Where + ": not a mapping");
  EntryReader In(N, Where);
  DispatchRule E;
  E.FromIndex = true;
  if (N["library"]) {
    // A measured decision to call the library's own collective: no file.
    Expected<bool> Library = In.scalar<bool>("library");
    if (!Library)
      return Library.takeError();
    if (!*Library || N["file"])
      return In.fail("'library: true' stands instead of a 'file'");
    E.Library = true;
  } else {
    Expected<std::string> File = In.required<std::string>("file");
    if (!File)
      return File.takeError();
    if (!isPathInside(*File))
      return In.fail("'file' must name a file in the index's directory or "
                     "below it (a relative path without '.' or '..')");
    E.File = *File;
  }
  Expected<std::string> Kind = In.required<std::string>("collective");
  if (!Kind)
    return Kind.takeError();
  std::optional<Collective> C = parseCollective(*Kind);
  if (!C)
    return In.fail("'" + *Kind + "' is not a collective");
  E.Kind = *C;
  Expected<uint32_t> Ranks = In.required<uint32_t>("ranks");
  if (!Ranks)
    return Ranks.takeError();
  if (*Ranks == 0)
    return In.fail("'ranks' must be at least 1");
  E.Ranks = *Ranks;
  Expected<uint64_t> Min = In.bytes("min_bytes", 0);
  Expected<uint64_t> Max = In.bytes("max_bytes", UINT64_MAX);
  if (!Min)
    return Min.takeError();
  if (!Max)
    return Max.takeError();
  if (*Max <= *Min)
    return In.fail("the byte range [min_bytes, max_bytes) is empty");
  E.MinBytes = *Min;
  E.MaxBytes = *Max;
  if (N["op"]) {
    Expected<std::string> Op = In.scalar<std::string>("op");
    if (!Op)
      return Op.takeError();
    E.Op = parseReduceOp(*Op);
    if (!E.Op)
      return In.fail("'" + *Op + "' is not an operator (" + reduceOpChoices() +
                     ")");
  }
  if (N["root"]) {
    Expected<uint32_t> Root = In.scalar<uint32_t>("root");
    if (!Root)
      return Root.takeError();
    E.Root = *Root;
  }
  if (const YAML::Node &Counts = N["counts"]) {
    E.Counts.emplace();
    if (Counts.IsScalar() && Counts.Scalar() == "equal") {
    } else if (Counts.IsSequence() && Counts.size() == E.Ranks) {
      Expected<std::vector<uint64_t>> List =
          In.scalar<std::vector<uint64_t>>("counts");
      if (!List)
        return List.takeError();
      E.Counts = std::move(*List);
    } else {
      return In.fail("'counts' must be equal or one weight per rank");
    }
  }
  for (auto [Key, Field] :
       {std::pair("algorithm", &E.Algorithm), std::pair("why", &E.Why)})
    if (N[Key]) {
      Expected<std::string> S = In.scalar<std::string>(Key);
      if (!S)
        return S.takeError();
      *Field = *S;
    }
  if (N["measured"]) {
    Expected<std::map<std::string, double>> Measured =
        In.scalar<std::map<std::string, double>>("measured");
    if (!Measured)
      return Measured.takeError();
    E.Measured = std::move(*Measured);
    Expected<uint64_t> At = In.bytes("measured_bytes", 0);
    if (!At)
      return At.takeError();
    E.MeasuredBytes = *At;
  }
  if (N["params"]) {
    Expected<std::map<std::string, std::string>> Params =
        In.scalar<std::map<std::string, std::string>>("params");
    if (!Params)
      return Params.takeError();
    E.Params = std::move(*Params);
  }
  return E;
}

} // namespace

Expected<PlanIndex> parsePlanIndex(StringRef Text, StringRef Name) {
  YAML::Node Root;
  try {
    Root = YAML::Load(Text.str());
  } catch (const YAML::Exception &X) {
    return makeError(ErrorKind::Usage, Name + ": not YAML (" + X.what() + ")");
  }
  if (!Root.IsMap() || !Root["plans"] || !Root["plans"].IsSequence())
    return makeError(ErrorKind::Usage,
                     Name + ": expected a mapping with a list 'plans'");
  if (!Root["version"] || Root["version"].Scalar() != "1")
    return makeError(ErrorKind::Usage,
                     Name + ": expected 'version: 1' (a newer collplan may "
                            "have written it)");
  PlanIndex Index;
  if (const YAML::Node R = Root["rounding"]) {
    std::optional<Rounding> Parsed =
        R.IsScalar() ? parseRounding(R.Scalar()) : std::nullopt;
    if (!Parsed)
      return makeError(ErrorKind::Usage,
                       Name + ": 'rounding' is identical, rank-dependent or "
                              "reproducible");
    Index.ChosenRounding = Parsed;
  }
  llvm::StringSet<> Files;
  Index.Plans.reserve(Root["plans"].size());
  size_t I = 0;
  // Iterators, not Plans[I]: yaml-cpp finds an index by walking the list.
  for (const YAML::Node &N : Root["plans"]) {
    Expected<DispatchRule> E =
        parseEntry(N, Name.str() + ": plan " + std::to_string(++I));
    if (!E)
      return E.takeError();
    if (!E->measured() && !Files.insert(E->File).second)
      return makeError(ErrorKind::Usage,
                       Name + ": '" + E->File + "' is listed twice");
    Index.Plans.push_back(std::move(*E));
  }
  return Index;
}

std::string planIndexPath(StringRef Dir) {
  llvm::SmallString<256> Path(Dir);
  llvm::sys::path::append(Path, PlanIndexName);
  return Path.str().str();
}

Expected<PlanIndex> readPlanIndex(StringRef Dir) {
  std::string Path = planIndexPath(Dir);
  if (!llvm::sys::fs::exists(Path))
    return PlanIndex();
  // Every rank under the interposer reads it: a FIFO or a device there must
  // not stop them.
  Expected<std::string> Text =
      readBoundedFile(Path, MaxPlanIndexBytes, "plan index");
  if (!Text)
    return Text.takeError();
  return parsePlanIndex(*Text, Path);
}

std::string planIndexText(const PlanIndex &Index, StringRef Preamble) {
  YAML::Emitter Out;
  std::string Comment =
      "Which plan of this directory serves which calls (collplan's plan "
      "index,\nread by the interposer). A range [min_bytes, max_bytes) counts "
      "the call's\nwhole vector; max_bytes inf: no bound. Written by collplan "
      "tune and\ncollplan index.";
  if (!Preamble.empty())
    Comment += "\n" + Preamble.str();
  Out << YAML::Comment(Comment) << YAML::Newline;
  Out << YAML::BeginMap << YAML::Key << "version" << YAML::Value << 1;
  if (Index.ChosenRounding)
    Out << YAML::Key << "rounding" << YAML::Value
        << roundingName(*Index.ChosenRounding).str();
  Out << YAML::Key << "plans" << YAML::Value << YAML::BeginSeq;
  for (const DispatchRule &E : Index.Plans) {
    Out << YAML::BeginMap;
    if (E.Library)
      Out << YAML::Key << "library" << YAML::Value << true;
    else
      Out << YAML::Key << "file" << YAML::Value << YAML::DoubleQuoted << E.File;
    Out << YAML::Key << "collective" << YAML::Value
        << collectiveName(E.Kind).str();
    Out << YAML::Key << "ranks" << YAML::Value << E.Ranks;
    Out << YAML::Key << "min_bytes" << YAML::Value << E.MinBytes;
    Out << YAML::Key << "max_bytes" << YAML::Value;
    if (E.MaxBytes == UINT64_MAX)
      Out << "inf";
    else
      Out << E.MaxBytes;
    if (E.Op)
      Out << YAML::Key << "op" << YAML::Value << reduceOpName(*E.Op).str();
    if (E.Root)
      Out << YAML::Key << "root" << YAML::Value << *E.Root;
    if (E.Counts) {
      Out << YAML::Key << "counts" << YAML::Value;
      if (E.Counts->empty())
        Out << "equal";
      else
        Out << YAML::Flow << *E.Counts;
    }
    if (!E.Algorithm.empty())
      Out << YAML::Key << "algorithm" << YAML::Value << E.Algorithm;
    if (!E.Algorithm.empty() || !E.Params.empty())
      Out << YAML::Key << "params" << YAML::Value << YAML::Flow << E.Params;
    if (!E.Why.empty())
      Out << YAML::Key << "why" << YAML::Value << YAML::DoubleQuoted << E.Why;
    if (!E.Measured.empty()) {
      Out << YAML::Key << "measured_bytes" << YAML::Value << E.MeasuredBytes;
      Out << YAML::Key << "measured" << YAML::Value << YAML::Flow << E.Measured;
    }
    Out << YAML::EndMap;
  }
  Out << YAML::EndSeq << YAML::EndMap;
  return std::string(Out.c_str()) + "\n";
}

Error writePlanIndex(StringRef Dir, const PlanIndex &Index,
                     StringRef Preamble) {
  return writeFileAtomically(planIndexPath(Dir), planIndexText(Index, Preamble),
                             "plan index");
}

} // namespace collplan
