//===- BinaryBytes.h - Bounded LEB128 reading and writing -------*- C++ -*-===//
//
// Internal to plan/serialize: the integers, bytes and strings of the binary
// form (BinaryPlan.cpp). The reader checks each value against a bound and the
// bytes left, so a hostile count fails before anything is reserved.
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_SERIALIZE_BINARYBYTES_H
#define COLLPLAN_SERIALIZE_BINARYBYTES_H

#include "plan/serialize/PlanFields.h"
#include "plan/serialize/PlanLocation.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/LEB128.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>

namespace collplan {

/// Writes what ByteReader reads.
class ByteWriter {
public:
  explicit ByteWriter(std::string &Out) : OS(Out) {}
  void uleb(uint64_t V) { llvm::encodeULEB128(V, OS); }
  void byte(uint8_t B) { OS << char(B); }
  void fixed64(uint64_t V) {
    char Bytes[8];
    llvm::support::endian::write64le(Bytes, V);
    OS.write(Bytes, sizeof(Bytes));
  }
  uint64_t size() const { return OS.tell(); }
  void string(llvm::StringRef S) {
    uleb(S.size());
    OS << S;
  }
  void flush() { OS.flush(); }

private:
  llvm::raw_string_ostream OS;
};

/// Reads LEB128 integers and strings, each checked against a bound and the
/// bytes left; errors name the file, the byte offset and the location. A
/// reader may cover part of a file (one rank's program, part()): it then
/// stops at the part's end, and its offsets remain the file's.
class ByteReader {
public:
  ByteReader(llvm::StringRef Bytes, llvm::StringRef Name)
      : Start(Bytes.bytes_begin()), Cur(Start), End(Bytes.bytes_end()),
        FileEnd(End), Name(Name) {}

  ReadLocation Where;

  /// A reader of bytes [Begin, Finish) of the same file, for rank Rank's
  /// program; the caller has checked the bounds (ProgramTable).
  ByteReader part(uint64_t Begin, uint64_t Finish, uint32_t Rank) const {
    ByteReader R = *this;
    R.Cur = Start + Begin;
    R.End = Start + Finish;
    R.PartRank = Rank;
    R.Where = ReadLocation();
    return R;
  }

  void skip(size_t N) { Cur += std::min(N, remaining()); }
  /// N bytes as they are; the caller has checked remaining().
  const uint8_t *take(size_t N) {
    const uint8_t *At = Cur;
    Cur += N;
    return At;
  }
  size_t remaining() const { return size_t(End - Cur); }
  /// Bytes [Begin, Finish) of the file; the caller has checked the bounds.
  llvm::StringRef bytes(uint64_t Begin, uint64_t Finish) const {
    return llvm::StringRef(reinterpret_cast<const char *>(Start + Begin),
                           size_t(Finish - Begin));
  }
  bool atEnd() const { return Cur == End; }
  uint64_t offset() const { return uint64_t(Cur - Start); }
  uint64_t fileSize() const { return uint64_t(FileEnd - Start); }

  llvm::Error fail(const llvm::Twine &Field, const llvm::Twine &Message) const {
    return failAt(offset(), Field, Message);
  }
  llvm::Error failAt(uint64_t Offset, const llvm::Twine &Field,
                     const llvm::Twine &Message) const {
    return readError(Name.str() + ": byte " + std::to_string(Offset), Where,
                     Field, Message);
  }

  llvm::Expected<uint64_t> uleb(const llvm::Twine &Field, uint64_t Min,
                                uint64_t Max) {
    if (Cur == End)
      return failEnd(Field);
    unsigned Length = 0;
    const char *Problem = nullptr;
    uint64_t V = llvm::decodeULEB128(Cur, &Length, End, &Problem);
    if (Problem)
      return fail(Field, Problem);
    if (V < Min || V > Max)
      return fail(Field, "expected an integer in [" + llvm::Twine(Min) + ", " +
                             llvm::Twine(Max) + "], got " + llvm::Twine(V));
    Cur += Length;
    return V;
  }

  /// A count of elements that take at least MinBytes each.
  llvm::Expected<uint64_t> count(const llvm::Twine &Field, uint64_t Max,
                                 size_t MinBytes) {
    auto N = uleb(Field, 0, Max);
    if (N && *N > remaining() / MinBytes)
      return fail(Field, "claims " + llvm::Twine(*N) + " elements but only " +
                             llvm::Twine(remaining()) + " bytes remain");
    return N;
  }

  llvm::Expected<uint8_t> byte(const llvm::Twine &Field) {
    if (Cur == End)
      return failEnd(Field);
    return *Cur++;
  }

  llvm::Expected<uint64_t> fixed64(const llvm::Twine &Field) {
    if (remaining() < 8)
      return failEnd(Field);
    return llvm::support::endian::read64le(take(8));
  }

  llvm::Expected<llvm::StringRef> string(const llvm::Twine &Field) {
    auto Size = count(Field, MaxNameLength, 1);
    if (!Size)
      return Size.takeError();
    llvm::StringRef S(reinterpret_cast<const char *>(Cur), *Size);
    if (!llvm::json::isUTF8(S))
      return fail(Field, "the string is not valid UTF-8");
    Cur += *Size;
    return S;
  }

private:
  llvm::Error failEnd(const llvm::Twine &Field) const {
    if (End == FileEnd)
      return fail(Field, "the file ends here (truncated)");
    return fail(Field, "rank " + llvm::Twine(*PartRank) +
                           "'s program ends here, where offsets[" +
                           llvm::Twine(*PartRank + 1) + "] starts the next");
  }

  const uint8_t *Start, *Cur, *End, *FileEnd;
  llvm::StringRef Name;
  std::optional<uint32_t> PartRank;
};

} // namespace collplan

#endif // COLLPLAN_SERIALIZE_BINARYBYTES_H
