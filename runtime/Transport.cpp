//===- Transport.cpp - What every transport shares ------------------------===//

#include "runtime/Transport.h"
#include "plan/ir/Error.h"

#include <cinttypes>
#include <cstdio>
#include <string>
#include <vector>

namespace collplan::runtime {

static std::string hex(uint64_t H) {
  char Buf[17];
  std::snprintf(Buf, sizeof(Buf), "%016" PRIx64, H);
  return Buf;
}

llvm::Error checkSameHash(Transport &T, uint64_t Hash) {
  uint32_t P = T.size(), Me = T.rank();
  if (P <= 1)
    return llvm::Error::success();
  std::vector<uint64_t> Theirs(P, Hash);
  llvm::SmallVector<Message, 8> Sends, Receives;
  for (uint32_t Q = 0; Q < P; ++Q) {
    if (Q == Me)
      continue;
    Sends.push_back({Q, {{reinterpret_cast<char *>(&Hash), sizeof(Hash)}}});
    Receives.push_back(
        {Q, {{reinterpret_cast<char *>(&Theirs[Q]), sizeof(uint64_t)}}});
  }
  if (llvm::Error E = T.exchange(Sends, Receives))
    return E;
  for (uint32_t Q = 0; Q < P; ++Q)
    if (Theirs[Q] != Hash)
      return makeError(
          ErrorKind::Runtime,
          "ranks hold different plans: rank %u has plan %s, rank %u has plan "
          "%s",
          Me, hex(Hash).c_str(), Q, hex(Theirs[Q]).c_str());
  return llvm::Error::success();
}

} // namespace collplan::runtime
