//===- Hash.h - The 64-bit mixing function the libraries share --*- C++ -*-===//

#ifndef COLLPLAN_IR_HASH_H
#define COLLPLAN_IR_HASH_H

#include <cstdint>

namespace collplan {

/// splitmix64 (Steele, Lea, Flood 2014): a cheap, well-mixed 64-bit hash of
/// a counter, so that consecutive inputs give independent-looking values.
inline uint64_t splitmix64(uint64_t X) {
  X += 0x9e3779b97f4a7c15ULL;
  X = (X ^ (X >> 30)) * 0xbf58476d1ce4e5b9ULL;
  X = (X ^ (X >> 27)) * 0x94d049bb133111ebULL;
  return X ^ (X >> 31);
}

} // namespace collplan

#endif // COLLPLAN_IR_HASH_H
