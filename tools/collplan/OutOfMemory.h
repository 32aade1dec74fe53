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

namespace collplan::cli {

/// Installs the handlers for this process; call once, early in main.
void installOutOfMemoryHandlers();

} // namespace collplan::cli

#endif // COLLPLAN_TOOLS_OUTOFMEMORY_H
