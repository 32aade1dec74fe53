//===- Hostfile.cpp - A job's rank -> node map from host names ------------===//

#include "plan/ir/Hostfile.h"
#include "plan/ir/Error.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/Twine.h"

#include <algorithm>

namespace collplan {

llvm::Expected<std::vector<uint32_t>> parseHostfile(llvm::StringRef Text,
                                                    llvm::StringRef Source) {
  std::vector<uint32_t> NodeOf;
  llvm::StringMap<uint32_t> NodeNamed;
  uint32_t LineNo = 0;
  auto Fail = [&](const llvm::Twine &Why) {
    return makeError(ErrorKind::Usage, "%s:%u: %s", Source.str().c_str(),
                     LineNo, Why.str().c_str());
  };
  while (!Text.empty()) {
    llvm::StringRef Line;
    std::tie(Line, Text) = Text.split('\n');
    ++LineNo;
    Line = Line.split('#').first.trim();
    if (Line.empty())
      continue;
    // Blanks of any kind part the name from "slots=N" (tabs too).
    size_t Blank = Line.find_first_of(" \t\r\v\f");
    llvm::StringRef Name = Line.substr(0, Blank);
    llvm::StringRef Rest = Line.substr(std::min(Blank, Line.size())).trim();
    uint64_t Slots = 1;
    if (!Rest.empty()) {
      // The Open MPI form: NAME slots=N (max_slots and the like are not a
      // rank count, so they are refused rather than guessed at).
      if (!Rest.consume_front("slots=") || Rest.getAsInteger(10, Slots) ||
          Slots == 0)
        return Fail(
            "expected a host name, or 'NAME slots=N' with N > 0; got '" + Line +
            "'");
    }
    if (NodeOf.size() + Slots > MaxRanks)
      return Fail("more than " + llvm::Twine(MaxRanks) + " ranks");
    uint32_t Node =
        NodeNamed.try_emplace(Name, uint32_t(NodeNamed.size())).first->second;
    NodeOf.insert(NodeOf.end(), Slots, Node);
  }
  if (NodeOf.empty())
    return makeError(ErrorKind::Usage,
                     "%s: lists no rank (expected one host name per rank, in "
                     "rank order)",
                     Source.str().c_str());
  return NodeOf;
}

llvm::Expected<Topology> topologyFromHostfile(llvm::StringRef Text,
                                              llvm::StringRef Source) {
  llvm::Expected<std::vector<uint32_t>> NodeOf = parseHostfile(Text, Source);
  if (!NodeOf)
    return NodeOf.takeError();
  if (llvm::Error E = Topology::checkExplicitNodes(*NodeOf))
    return std::move(E);
  return Topology::explicitNodes(std::move(*NodeOf));
}

} // namespace collplan
