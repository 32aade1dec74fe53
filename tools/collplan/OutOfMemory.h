//===- OutOfMemory.h - Running out of memory is a message -------*- C++ -*-===//
//
// A failed allocation (operator new, or LLVM's containers, which report
// through their own handler) would otherwise abort with a core dump. The
// size guards (maxPlanOps) keep the plans collplan builds within the memory
// it may use; these handlers catch what slips past them: a message naming
// the limit, and exit 3 (the request cannot be done here).
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_TOOLS_OUTOFMEMORY_H
#define COLLPLAN_TOOLS_OUTOFMEMORY_H

#include <new>

namespace collplan::cli {

/// Installs the handlers for this process; call once, early in main.
void installOutOfMemoryHandlers();

/// While alive, a failed operator new throws std::bad_alloc again instead
/// of ending the process: for allocations whose size the user chose (run's
/// buffers, --bytes), whose failure the caller reports better than "out of
/// memory".
class AllocationsThrow {
public:
  AllocationsThrow() : Saved(std::set_new_handler(nullptr)) {}
  ~AllocationsThrow() { std::set_new_handler(Saved); }
  AllocationsThrow(const AllocationsThrow &) = delete;
  AllocationsThrow &operator=(const AllocationsThrow &) = delete;

private:
  std::new_handler Saved;
};

} // namespace collplan::cli

#endif // COLLPLAN_TOOLS_OUTOFMEMORY_H
