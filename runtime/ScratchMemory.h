//===- ScratchMemory.h - Where the executor's own buffers come from -*- C++ -*-//
//
// The executor keeps a few buffers of its own between calls (scratch
// buffers, the staging area of reducing receives, a work vector). They come
// from the heap, unless the caller says otherwise: a simulator that runs
// every rank in one process (SimGrid's SMPI) hands all ranks one shared
// region, so that a thousand simulated ranks of a 64 MiB allreduce fit in
// memory; the timing holds, the data does not.
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_RUNTIME_SCRATCHMEMORY_H
#define COLLPLAN_RUNTIME_SCRATCHMEMORY_H

#include <cstddef>
#include <cstdlib>

namespace collplan::runtime {

struct MemorySource {
  void *(*Allocate)(size_t Bytes) = std::malloc;
  void (*Release)(void *) = std::free;
};

/// A byte buffer that grows on demand and does not keep its contents when
/// it grows (the executor refills it every call).
class ScratchBuffer {
public:
  explicit ScratchBuffer(MemorySource Source) : Source(Source) {}
  ScratchBuffer(const ScratchBuffer &) = delete;
  ScratchBuffer &operator=(const ScratchBuffer &) = delete;
  ~ScratchBuffer() { Source.Release(Bytes); }

  /// At least Size bytes; null only when the allocation fails.
  char *reserve(size_t Size) {
    if (Size > Capacity) {
      Source.Release(Bytes);
      Bytes = static_cast<char *>(Source.Allocate(Size));
      Capacity = Bytes ? Size : 0;
    }
    return Bytes;
  }

private:
  MemorySource Source;
  char *Bytes = nullptr;
  size_t Capacity = 0;
};

} // namespace collplan::runtime

#endif // COLLPLAN_RUNTIME_SCRATCHMEMORY_H
