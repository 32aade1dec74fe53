//===- JobSecret.cpp - The secret that admits a rank to a TCP job ---------===//

#include "runtime/tcp/JobSecret.h"
#include "plan/ir/Error.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/SHA256.h"

#include <sys/random.h>

#include <cerrno>
#include <cstring>

namespace collplan::runtime {

HelloMac helloMac(llvm::StringRef Key,
                  llvm::ArrayRef<llvm::ArrayRef<uint8_t>> Parts) {
  // RFC 2104: H((K ^ opad) || H((K ^ ipad) || message)), K padded to the
  // 64-byte block, hashed first if longer.
  constexpr size_t Block = 64;
  std::array<uint8_t, Block> K{};
  if (Key.size() > Block) {
    std::array<uint8_t, 32> H = llvm::SHA256::hash(llvm::ArrayRef<uint8_t>(
        reinterpret_cast<const uint8_t *>(Key.data()), Key.size()));
    std::memcpy(K.data(), H.data(), H.size());
  } else {
    std::memcpy(K.data(), Key.data(), Key.size());
  }
  std::array<uint8_t, Block> Inner, Outer;
  for (size_t I = 0; I < Block; ++I) {
    Inner[I] = K[I] ^ 0x36;
    Outer[I] = K[I] ^ 0x5c;
  }
  llvm::SHA256 In;
  In.update(Inner);
  for (llvm::ArrayRef<uint8_t> P : Parts)
    In.update(P);
  llvm::StringRef InnerHash = In.final();
  llvm::SHA256 Out;
  Out.update(Outer);
  Out.update(InnerHash);
  llvm::StringRef Digest = Out.final();
  HelloMac Mac;
  std::memcpy(Mac.data(), Digest.data(), Mac.size());
  return Mac;
}

bool sameMac(const HelloMac &A, const HelloMac &B) {
  uint8_t Diff = 0;
  for (size_t I = 0; I < A.size(); ++I)
    Diff |= A[I] ^ B[I];
  return Diff == 0;
}

llvm::Error randomBytes(uint8_t *Out, size_t Bytes) {
  while (Bytes) {
    ssize_t N = getrandom(Out, Bytes, 0);
    if (N < 0 && errno == EINTR)
      continue;
    if (N < 0)
      return makeError(ErrorKind::Runtime, "getrandom: %s",
                       std::strerror(errno));
    Out += N;
    Bytes -= size_t(N);
  }
  return llvm::Error::success();
}

llvm::Expected<std::string> newJobSecret() {
  uint8_t Raw[32];
  if (llvm::Error E = randomBytes(Raw, sizeof(Raw)))
    return E;
  return llvm::toHex(Raw, /*LowerCase=*/true);
}

} // namespace collplan::runtime
