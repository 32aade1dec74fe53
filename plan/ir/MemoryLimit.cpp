//===- MemoryLimit.cpp - The memory this process may use ------------------===//

#include "plan/ir/MemoryLimit.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>

#include <sys/resource.h>
#include <unistd.h>

namespace collplan {
namespace {

/// A cgroup limit file's number; "max" (v2) or a missing file is no limit.
std::optional<uint64_t> cgroupLimit(const std::string &Path) {
  auto Buffer = llvm::MemoryBuffer::getFileAsStream(Path);
  if (!Buffer)
    return std::nullopt;
  uint64_t V = 0;
  if (llvm::StringRef((*Buffer)->getBuffer()).trim().getAsInteger(10, V))
    return std::nullopt;
  return V;
}

/// This process's cgroup v2 path ("0::/job.slice/..."), or "/".
std::string cgroupV2Path() {
  auto Buffer = llvm::MemoryBuffer::getFileAsStream("/proc/self/cgroup");
  if (!Buffer)
    return "/";
  llvm::StringRef Rest = (*Buffer)->getBuffer();
  while (!Rest.empty()) {
    llvm::StringRef Line;
    std::tie(Line, Rest) = Rest.split('\n');
    if (Line.consume_front("0::"))
      return Line.trim().str();
  }
  return "/";
}

MemoryLimit findLimit() {
  MemoryLimit L;
  L.Bytes = uint64_t(sysconf(_SC_PHYS_PAGES)) * uint64_t(sysconf(_SC_PAGESIZE));
  L.Source = "physical memory";
  auto Lower = [&](std::optional<uint64_t> V, const char *Source) {
    if (V && *V > 0 && *V < L.Bytes) {
      L.Bytes = *V;
      L.Source = Source;
    }
  };
  std::string V2 = cgroupV2Path();
  Lower(cgroupLimit("/sys/fs/cgroup" + (V2 == "/" ? "" : V2) + "/memory.max"),
        "cgroup memory.max");
  Lower(cgroupLimit("/sys/fs/cgroup/memory/memory.limit_in_bytes"),
        "cgroup memory.limit_in_bytes");
  for (auto [Resource, Source] :
       {std::pair{RLIMIT_AS, "RLIMIT_AS (ulimit -v)"},
        std::pair{RLIMIT_DATA, "RLIMIT_DATA (ulimit -d)"}}) {
    struct rlimit R;
    if (getrlimit(Resource, &R) == 0 && R.rlim_cur != RLIM_INFINITY)
      Lower(uint64_t(R.rlim_cur), Source);
  }
  return L;
}

} // namespace

std::string MemoryLimit::str() const {
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  OS << llvm::format("%.1f GiB", double(Bytes) / double(1ULL << 30)) << " ("
     << Source << ")";
  return Out;
}

const MemoryLimit &memoryLimit() {
  static const MemoryLimit L = findLimit();
  return L;
}

} // namespace collplan
