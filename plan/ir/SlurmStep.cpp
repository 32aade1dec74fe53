//===- SlurmStep.cpp - A Slurm job step's rank -> node map ----------------===//

#include "plan/ir/SlurmStep.h"
#include "plan/ir/Error.h"
#include "plan/ir/Topology.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/Twine.h"

namespace collplan {
namespace {

llvm::Error badHostlist(llvm::StringRef List, const llvm::Twine &Why) {
  return makeError(ErrorKind::Usage, "host list '" + List + "': " + Why);
}

/// Appends Prefix + each number of Ranges ("1-3,07") + Suffix to Out.
llvm::Error expandRanges(llvm::StringRef List, llvm::StringRef Prefix,
                         llvm::StringRef Ranges, llvm::StringRef Suffix,
                         std::vector<std::string> &Out) {
  llvm::SmallVector<llvm::StringRef, 8> Parts;
  Ranges.split(Parts, ',');
  for (llvm::StringRef Part : Parts) {
    auto [Lo, Hi] = Part.split('-');
    if (Hi.empty())
      Hi = Lo;
    uint64_t First, Last;
    if (Lo.empty() || Lo.getAsInteger(10, First) || Hi.getAsInteger(10, Last) ||
        Last < First || !llvm::all_of(Lo, llvm::isDigit) ||
        !llvm::all_of(Hi, llvm::isDigit))
      return badHostlist(List, "'[" + Ranges + "]' is not a list of ranges");
    if (Out.size() + (Last - First) >= MaxRanks)
      return badHostlist(List, "more than " + llvm::Twine(MaxRanks) + " hosts");
    for (uint64_t N = First; N <= Last; ++N) {
      std::string Digits = std::to_string(N);
      if (Digits.size() < Lo.size())
        Digits.insert(0, Lo.size() - Digits.size(), '0');
      Out.push_back((Prefix + Digits + Suffix).str());
    }
  }
  return llvm::Error::success();
}

} // namespace

llvm::Expected<std::vector<std::string>>
expandSlurmHostlist(llvm::StringRef List) {
  std::vector<std::string> Hosts;
  llvm::StringRef Rest = List.trim();
  if (Rest.empty())
    return badHostlist(List, "no host");
  while (!Rest.empty()) {
    // One item: a name with at most one bracketed range list, up to the
    // next comma outside brackets.
    size_t Open = Rest.find_first_of("[,");
    if (Open == llvm::StringRef::npos || Rest[Open] == ',') {
      llvm::StringRef Name = Rest.substr(0, Open);
      if (Name.empty())
        return badHostlist(List, "an empty host name");
      Hosts.push_back(Name.str());
      Rest = Open == llvm::StringRef::npos ? "" : Rest.substr(Open + 1);
      continue;
    }
    size_t Close = Rest.find(']', Open);
    if (Close == llvm::StringRef::npos)
      return badHostlist(List, "a '[' without its ']'");
    size_t End = Rest.find(',', Close);
    llvm::StringRef Suffix = Rest.slice(Close + 1, End);
    if (Suffix.contains('[') || Suffix.contains(']'))
      return badHostlist(List, "more than one bracketed range in a name");
    if (llvm::Error E =
            expandRanges(List, Rest.substr(0, Open),
                         Rest.slice(Open + 1, Close), Suffix, Hosts))
      return E;
    Rest = End == llvm::StringRef::npos ? "" : Rest.substr(End + 1);
  }
  return Hosts;
}

llvm::Expected<std::vector<uint64_t>>
parseSlurmTasksPerNode(llvm::StringRef Text) {
  std::vector<uint64_t> Tasks;
  llvm::SmallVector<llvm::StringRef, 8> Items;
  Text.trim().split(Items, ',');
  for (llvm::StringRef Item : Items) {
    uint64_t Count, Repeat = 1;
    auto [Value, Times] = Item.split('(');
    bool Bad = Value.getAsInteger(10, Count) || Count == 0;
    if (!Times.empty() || Item.contains('('))
      Bad = Bad || !Times.consume_front("x") || !Times.consume_back(")") ||
            Times.getAsInteger(10, Repeat) || Repeat == 0;
    if (Bad)
      return makeError(ErrorKind::Usage,
                       "tasks per node '" + Text +
                           "': expected counts such as 2(x3),1");
    if (Tasks.size() + Repeat > MaxRanks)
      return makeError(ErrorKind::Usage, "tasks per node '" + Text +
                                             "': more nodes than ranks allow");
    Tasks.insert(Tasks.end(), Repeat, Count);
  }
  return Tasks;
}

llvm::Expected<std::vector<uint32_t>>
slurmNodeOfRank(llvm::ArrayRef<uint64_t> Tasks, llvm::StringRef Distribution,
                uint64_t PlaneSize) {
  uint64_t Ranks = 0;
  for (uint64_t T : Tasks)
    Ranks += T;
  if (Ranks == 0 || Ranks > MaxRanks)
    return makeError(ErrorKind::Usage, "a step of %llu tasks",
                     (unsigned long long)Ranks);
  // The distribution over nodes is the part before ':' (the rest places
  // tasks on sockets and cores) and before ',' (Pack, NoPack).
  llvm::StringRef Over = Distribution.split(':').first.split(',').first;
  uint64_t Chunk; // Consecutive ranks given to a node in its turn.
  if (Over.empty() || Over == "block" || Over == "*")
    Chunk = Ranks;
  else if (Over == "cyclic")
    Chunk = 1;
  else if (Over == "plane" || Over.consume_front("plane=")) {
    if (Over != "plane" && (Over.getAsInteger(10, PlaneSize)))
      PlaneSize = 0;
    if (PlaneSize == 0)
      return makeError(ErrorKind::Usage,
                       "distribution '" + Distribution +
                           "': no plane size (SLURM_DIST_PLANESIZE)");
    Chunk = PlaneSize;
  } else {
    return makeError(ErrorKind::Usage,
                     "distribution '" + Distribution +
                         "': collplan reads block, cyclic and plane");
  }
  // Deal Chunk ranks to each node in turn, passing over full nodes.
  std::vector<uint32_t> NodeOf;
  NodeOf.reserve(Ranks);
  std::vector<uint64_t> Left(Tasks.begin(), Tasks.end());
  while (NodeOf.size() < Ranks)
    for (size_t N = 0; N < Left.size(); ++N) {
      uint64_t Take = std::min(Chunk, Left[N]);
      NodeOf.insert(NodeOf.end(), Take, uint32_t(N));
      Left[N] -= Take;
    }
  return NodeOf;
}

} // namespace collplan
