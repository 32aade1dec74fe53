//===- BinaryLayout.h - The parts of .cplan other readers need --*- C++ -*-===//
//
// Internal to plan/serialize: the stored hash and the one-rank decoder of the
// binary form, whose layout BinaryPlan.cpp describes.
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_SERIALIZE_BINARYLAYOUT_H
#define COLLPLAN_SERIALIZE_BINARYLAYOUT_H

#include "plan/serialize/PlanCodecs.h"
#include "plan/serialize/RankSlice.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstddef>
#include <cstdint>

namespace collplan {

/// The stored hash: 8 bytes, little-endian, after the magic and the version
/// (one LEB128 byte while the version stays below 128).
constexpr size_t BinaryHashOffset = sizeof(BinaryPlanMagic) + 1;
constexpr size_t BinaryHashSize = 8;

/// The hash stored in an encoded plan (encodeBinaryPlan): the plan hash.
uint64_t storedBinaryHash(llvm::StringRef Bytes);

/// The header and Rank's program, decoded from the header, the table and
/// Rank's bytes only. Checks what the decoder sees and the hashes of what it
/// read (the header and table against the stored hash, the program against
/// its table entry), not the structure (checkRankStructure).
llvm::Expected<RankSlice> decodeBinaryRank(llvm::StringRef Bytes,
                                           llvm::StringRef Name, uint32_t Rank);

} // namespace collplan

#endif // COLLPLAN_SERIALIZE_BINARYLAYOUT_H
