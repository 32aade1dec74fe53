//===- OutOfMemory.cpp - Running out of memory is a message ---------------===//

#include "tools/collplan/OutOfMemory.h"
#include "tools/collplan/Commands.h"

#include "plan/ir/MemoryLimit.h"

#include "llvm/Support/ErrorHandling.h"

#include <new>
#include <string>

#include <unistd.h>

namespace collplan::cli {
namespace {

/// Composed up front: there is no memory to compose it with when needed.
std::string Message;

[[noreturn]] void outOfMemory() {
  // write(2) and _exit: nothing that allocates, and no unwinding through
  // threads that may hold locks.
  ssize_t Ignored = ::write(2, Message.data(), Message.size());
  (void)Ignored;
  ::_exit(ExitCannotCompile);
}

void llvmOutOfMemory(void *, const char *, bool) { outOfMemory(); }

} // namespace

void installOutOfMemoryHandlers() {
  Message = "collplan: error: out of memory: collplan may use " +
            memoryLimit().str() +
            "; ask for fewer ranks, an algorithm with fewer rounds, or more "
            "memory\n";
  std::set_new_handler(outOfMemory);
  llvm::install_bad_alloc_error_handler(llvmOutOfMemory);
}

} // namespace collplan::cli
