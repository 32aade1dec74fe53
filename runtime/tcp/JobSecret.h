//===- JobSecret.h - The secret that admits a rank to a TCP job -*- C++ -*-===//
//
// Ranks prove they belong to the job without sending the secret, both
// ways: the listener sends a fresh random nonce, the connecting rank answers
// with HMAC-SHA256(secret, nonce || hello), its hello carrying a nonce of
// its own, and the listener admits it with HMAC-SHA256(secret, "admit" ||
// rank's nonce || listener's nonce) (RFC 2104 over LLVM Support's SHA256,
// already linked: no crypto library needed). The nonces make a recorded
// message useless on another connection; the label keeps a hello's MAC from
// ever serving as an admission. This keeps strangers and stale
// ranks of other jobs out; it does not encrypt the data that follows.
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_RUNTIME_TCP_JOBSECRET_H
#define COLLPLAN_RUNTIME_TCP_JOBSECRET_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

namespace collplan::runtime {

using HelloMac = std::array<uint8_t, 32>;

/// HMAC-SHA256 of the concatenation of Parts under Key.
HelloMac helloMac(llvm::StringRef Key,
                  llvm::ArrayRef<llvm::ArrayRef<uint8_t>> Parts);

/// Compares in time independent of where A and B differ.
bool sameMac(const HelloMac &A, const HelloMac &B);

/// Fills Out with bytes from the kernel's random source (getrandom).
llvm::Error randomBytes(uint8_t *Out, size_t Bytes);

/// A fresh secret for one job: 32 random bytes in hex.
llvm::Expected<std::string> newJobSecret();

} // namespace collplan::runtime

#endif // COLLPLAN_RUNTIME_TCP_JOBSECRET_H
