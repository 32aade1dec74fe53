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

/// FNV-1a (64-bit) of every byte of a binary plan but the stored hash's
/// own: the plan hash (planHash) of the plan the bytes encode.
uint64_t binaryContentHash(llvm::StringRef Bytes);

/// The header and Rank's program, decoded from the header, the offset table
/// and Rank's bytes only. Checks what the decoder sees, not the structure
/// (checkRankStructure) nor the stored hash.
llvm::Expected<RankSlice> decodeBinaryRank(llvm::StringRef Bytes,
                                           llvm::StringRef Name, uint32_t Rank);

} // namespace collplan

#endif // COLLPLAN_SERIALIZE_BINARYLAYOUT_H
