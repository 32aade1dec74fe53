//===- MemoryLimit.h - The memory this process may use ----------*- C++ -*-===//
//
// Sizing limits from the whole machine's memory is wrong in a container, a
// batch job or under `ulimit -v`: the kernel kills the process (cgroup) or an
// allocation fails (rlimit) long before the machine is full. The smallest of
// the limits that apply is the one to plan against, and the one to name
// when memory runs out.
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_IR_MEMORYLIMIT_H
#define COLLPLAN_IR_MEMORYLIMIT_H

#include <cstdint>
#include <string>

namespace collplan {

struct MemoryLimit {
  uint64_t Bytes = 0;
  /// Where the limit comes from: "physical memory", "cgroup memory.max",
  /// "RLIMIT_AS (ulimit -v)", ...
  std::string Source;
  /// "16.0 GiB (RLIMIT_AS (ulimit -v))".
  std::string str() const;
};

/// The smallest of physical memory, the cgroup's memory limit (v2
/// memory.max or v1 memory.limit_in_bytes) and RLIMIT_AS / RLIMIT_DATA,
/// read once.
const MemoryLimit &memoryLimit();

} // namespace collplan

#endif // COLLPLAN_IR_MEMORYLIMIT_H
