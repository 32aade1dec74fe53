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

/// DenseMap key information for 64-bit keys packed from several fields
/// ((gpu << 48) | (buffer << 32) | chunk): LLVM's own hash of an integer,
/// Val * 37 truncated to 32 bits, ignores the high half, so keys that differ
/// only there all collide and the map turns quadratic. ~0 and ~0 - 1 are
/// reserved.
struct PackedKeyInfo {
  static uint64_t getEmptyKey() { return ~uint64_t(0); }
  static uint64_t getTombstoneKey() { return ~uint64_t(0) - 1; }
  static unsigned getHashValue(uint64_t Key) {
    return unsigned(splitmix64(Key));
  }
  static bool isEqual(uint64_t A, uint64_t B) { return A == B; }
};

} // namespace collplan

#endif // COLLPLAN_IR_HASH_H
