//===- PlanDirectory.cpp - Finding the plan for a collective call ---------===//

#include "runtime/interposer/PlanDirectory.h"

#include "plan/ir/Error.h"
#include "plan/serialize/PlanFile.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <set>

namespace collplan::runtime {

bool hasPlanExtension(llvm::StringRef FileName) {
  llvm::StringRef Ext = llvm::sys::path::extension(FileName);
  return Ext == ".cplan" || Ext == ".yaml" || Ext == ".yml" || Ext == ".json";
}

static llvm::Error misnamed(const char *Why, llvm::StringRef What = "") {
  return makeError(
      ErrorKind::Usage,
      "%s%s (plan files are named "
      "<collective>-p<P>-<min>-<max>[-<op>].<cplan|yaml|yml|json>)",
      What.str().c_str(), Why);
}

llvm::Expected<PlanKey> parsePlanFileName(llvm::StringRef FileName) {
  if (!hasPlanExtension(FileName))
    return misnamed("not a plan file extension");
  llvm::StringRef Stem =
      FileName.drop_back(llvm::sys::path::extension(FileName).size());
  // The collective's name may contain '-' (reduce-scatter): match it first.
  PlanKey Key;
  bool Found = false;
  for (Collective C : allCollectives()) {
    llvm::StringRef Name = collectiveName(C);
    if (Stem.startswith(Name) &&
        Stem.drop_front(Name.size()).startswith("-p")) {
      Key.Kind = C;
      Stem = Stem.drop_front(Name.size() + 2);
      Found = true;
      break;
    }
  }
  if (!Found)
    return misnamed("does not start with a collective's name and -p");
  llvm::SmallVector<llvm::StringRef, 4> Parts;
  Stem.split(Parts, '-');
  if (Parts.size() != 3 && Parts.size() != 4)
    return misnamed("expected P, min, max and an optional operator");
  if (Parts[0].getAsInteger(10, Key.Ranks) || Key.Ranks == 0)
    return misnamed(": not a communicator size of at least 1", Parts[0]);
  if (Parts[1].getAsInteger(10, Key.MinBytes))
    return misnamed(": not a byte count (plain bytes, no unit)", Parts[1]);
  if (Parts[2] != "inf" && Parts[2].getAsInteger(10, Key.MaxBytes))
    return misnamed(": not a byte count or inf (plain bytes, no unit)",
                    Parts[2]);
  if (Key.MaxBytes <= Key.MinBytes)
    return misnamed("the byte range [min, max) is empty");
  if (Parts.size() == 4) {
    Key.Op = parseReduceOp(Parts[3]);
    if (!Key.Op)
      return misnamed(": not an operator (sum, prod, min, max, band, bor, "
                      "bxor, land, lor or lxor, in lower case)",
                      Parts[3]);
  }
  return Key;
}

/// Adds the index's entries to D; Listed gets their file names.
static void addIndexed(const std::string &Dir,
                       std::vector<std::unique_ptr<PlanEntry>> &Entries,
                       std::vector<std::string> &Misnamed,
                       std::set<std::string> &Listed) {
  llvm::Expected<PlanIndex> Index = readPlanIndex(Dir);
  if (!Index) {
    Misnamed.push_back("ignoring " + llvm::toString(Index.takeError()));
    return;
  }
  for (PlanIndexEntry &I : Index->Plans) {
    Listed.insert(I.File);
    llvm::SmallString<256> Path(Dir);
    llvm::sys::path::append(Path, I.File);
    auto E = std::make_unique<PlanEntry>();
    E->Path = Path.str().str();
    if (!llvm::sys::fs::exists(E->Path)) {
      Misnamed.push_back("ignoring the index's entry for " + E->Path +
                         ": no such file");
      continue;
    }
    if (!I.Op.empty()) {
      E->Key.Op = parseReduceOp(I.Op);
      if (!E->Key.Op) {
        Misnamed.push_back("ignoring the index's entry for " + E->Path + ": " +
                           I.Op + " is not an operator");
        continue;
      }
    }
    E->Key.Kind = I.Kind;
    E->Key.Ranks = I.Ranks;
    E->Key.MinBytes = I.MinBytes;
    E->Key.MaxBytes = I.MaxBytes;
    E->Indexed = std::move(I);
    Entries.push_back(std::move(E));
  }
}

llvm::Expected<PlanDirectory> PlanDirectory::open(const std::string &Dir) {
  PlanDirectory D;
  std::set<std::string> Listed;
  addIndexed(Dir, D.Entries, D.Misnamed, Listed);
  std::error_code EC;
  for (llvm::sys::fs::directory_iterator It(Dir, EC), End; It != End && !EC;
       It.increment(EC)) {
    llvm::StringRef Name = llvm::sys::path::filename(It->path());
    if (!hasPlanExtension(Name) || Listed.count(Name.str()))
      continue;
    llvm::Expected<PlanKey> Key = parsePlanFileName(Name);
    if (!Key) {
      D.Misnamed.push_back("ignoring " + It->path() + ": " +
                           llvm::toString(Key.takeError()));
      continue;
    }
    auto E = std::make_unique<PlanEntry>();
    E->Key = *Key;
    E->Path = It->path();
    D.Entries.push_back(std::move(E));
  }
  if (EC)
    return llvm::createStringError(EC, "cannot list plan directory '%s': %s",
                                   Dir.c_str(), EC.message().c_str());
  // Most specific first: operator-specific, root-specific, counts-specific,
  // narrowest range, then by name.
  auto HasRoot = [](const PlanEntry &E) {
    return E.Indexed && E.Indexed->Root;
  };
  auto HasCounts = [](const PlanEntry &E) {
    return E.Indexed && E.Indexed->Counts;
  };
  std::sort(D.Entries.begin(), D.Entries.end(),
            [&](const std::unique_ptr<PlanEntry> &A,
                const std::unique_ptr<PlanEntry> &B) {
              if (A->Key.Op.has_value() != B->Key.Op.has_value())
                return A->Key.Op.has_value();
              if (HasRoot(*A) != HasRoot(*B))
                return HasRoot(*A);
              if (HasCounts(*A) != HasCounts(*B))
                return HasCounts(*A);
              uint64_t WA = A->Key.MaxBytes - A->Key.MinBytes;
              uint64_t WB = B->Key.MaxBytes - B->Key.MinBytes;
              if (WA != WB)
                return WA < WB;
              return A->Path < B->Path;
            });
  return D;
}

std::optional<FoundPlan>
PlanDirectory::find(Collective Kind, uint32_t Ranks, uint32_t Rank,
                    uint64_t Bytes, std::optional<ReduceOp> Op,
                    const std::function<bool(const PlanHeader &)> &Accept,
                    const std::function<void(const std::string &)> &Warn,
                    std::optional<uint32_t> Root,
                    llvm::ArrayRef<uint64_t> Counts) {
  for (std::unique_ptr<PlanEntry> &E : Entries) {
    const PlanKey &K = E->Key;
    if (K.Kind != Kind || K.Ranks != Ranks || Bytes < K.MinBytes ||
        Bytes >= K.MaxBytes || (K.Op && K.Op != Op) || E->Failed)
      continue;
    if (E->Indexed && ((E->Indexed->Root && E->Indexed->Root != Root) ||
                       !E->Indexed->servesCounts(Counts)))
      continue;
    std::unique_ptr<RankSlice> &Slice = E->Slices[Rank];
    if (!Slice) {
      // The name promises P = Ranks: a plan for fewer ranks has no program
      // for Rank, which the reader reports as such.
      llvm::Expected<RankSlice> S = readRankSlice(E->Path, Rank);
      if (!S) {
        Warn("ignoring " + E->Path + ": " + llvm::toString(S.takeError()));
        E->Slices.erase(Rank);
        E->Failed = true;
        continue;
      }
      bool RootDiffers =
          E->Indexed && E->Indexed->Root && S->Header.Root != E->Indexed->Root;
      if (S->Header.Kind != Kind || S->Header.Ranks != Ranks || RootDiffers) {
        Warn("ignoring " + E->Path + ": it holds a " +
             collectiveName(S->Header.Kind).str() +
             " plan for P = " + std::to_string(S->Header.Ranks) +
             (S->Header.Root ? " from root " + std::to_string(*S->Header.Root)
                             : "") +
             ", not what its " + (E->Indexed ? "index entry" : "name") +
             " says");
        E->Slices.erase(Rank);
        E->Failed = true;
        continue;
      }
      if (!TrustUnverified)
        if (llvm::Error Err = checkStamp(S->Header, S->Hash, E->Path)) {
          Warn("ignoring " + llvm::toString(std::move(Err)));
          E->Slices.erase(Rank);
          E->Failed = true;
          continue;
        }
      Slice = std::make_unique<RankSlice>(std::move(*S));
    }
    if (Accept(Slice->Header))
      return FoundPlan{E.get(), Slice.get()};
  }
  return std::nullopt;
}

} // namespace collplan::runtime
