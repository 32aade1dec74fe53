//===- TextPullParser.h - JSON and YAML, an event at a time ---*- C++ -*-===//
//
// Reads a JSON or YAML document as a stream of events (where maps and lists
// begin and end, and each scalar) holding only the stack of open
// collections, so that a text plan of any size is read without a tree of the
// whole document (yaml-cpp's tree and llvm::json's take 50 to 140 times the
// file's size, llvm::yaml::Stream keeps every node until the document ends).
//
// It reads JSON, and the YAML plans are written in and people write by
// hand: block and flow collections, plain and quoted one-line scalars,
// comments, one document. The rest of YAML (anchors, aliases, tags, block
// and multi-line scalars, complex keys, several documents) it declines
// rather than misreads: the caller may then read the file with a full YAML
// parser. Decoders give escapes JSON's meaning; YAML's other escapes are
// declined too.
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_SERIALIZE_TEXTPULLPARSER_H
#define COLLPLAN_SERIALIZE_TEXTPULLPARSER_H

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/JSON.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace collplan {

class TextPullParser {
public:
  enum class Syntax : uint8_t { Json, Yaml };

  enum class EventKind : uint8_t {
    MapBegin,
    MapEnd,
    ListBegin,
    ListEnd,
    /// A map key or a value; a missing value is an empty plain scalar.
    Scalar,
    /// The document is complete; every later call returns End again.
    End,
  };

  struct Event {
    EventKind Kind = EventKind::End;
    bool Quoted = false;
    /// Text points into the input (so it lives as long as the input),
    /// rather than into the parser (until the next call), which holds
    /// scalars that had escapes.
    bool Borrowed = true;
    llvm::StringRef Text;
    /// Where the event starts in the input.
    size_t Offset = 0;
  };

  TextPullParser(llvm::StringRef Input, Syntax S) : In(Input), Mode(S) {}

  /// The next event; false if the input is malformed or beyond this parser.
  bool next(Event &E);

  /// After next() returned false: why, and where.
  const std::string &problem() const { return Why; }
  size_t problemOffset() const { return WhyOffset; }
  /// Whether a full YAML (or JSON) parser might read what this one did not;
  /// false when the input is malformed beyond doubt (nested too deep).
  bool declined() const { return Declined; }

  /// 1-based line and column of Offset, for messages.
  std::pair<size_t, size_t> lineAndColumn(size_t Offset) const;

private:
  enum class FrameKind : uint8_t { BlockMap, BlockSeq, FlowMap, FlowSeq };
  struct Frame {
    FrameKind Kind;
    /// Block collections: the column of their keys or '-' entries.
    size_t Indent = 0;
    bool First = true;
    /// Maps: a key was read, its value comes next.
    bool ExpectValue = false;
  };

  bool nextInFlowSeq(Event &E);
  bool nextInFlowMap(Event &E);
  bool nextInBlockSeq(Event &E);
  bool nextInBlockMap(Event &E);
  bool atDocumentEnd(Event &E);

  bool flowNode(Event &E);
  bool blockNode(Event &E, bool Compact);
  bool scalar(Event &E, bool Flow);
  bool doubleQuoted(Event &E);
  bool singleQuoted(Event &E);
  bool plain(Event &E, bool Flow);
  bool jsonLiteral(Event &E);
  bool afterFlowClose();
  bool finishLine();
  bool push(FrameKind K, size_t Indent, bool ExpectValue = false);
  void pop() { Stack.pop_back(); }

  void skipFlowSpace();
  void skipBlockSpace();
  void skipLineSpace();
  bool atDocumentMarker() const;
  void newline();

  char at(size_t P) const { return P < In.size() ? In[P] : '\0'; }
  char peek() const { return at(Pos); }
  bool atEnd() const { return Pos >= In.size(); }
  bool isBreak(size_t P) const {
    return P >= In.size() || In[P] == '\n' || In[P] == '\r';
  }
  bool isBlankOrBreak(size_t P) const {
    return isBreak(P) || In[P] == ' ' || In[P] == '\t';
  }
  size_t column() const { return Pos - LineStart; }

  Event nullAt(size_t Offset) const;
  bool decline(const llvm::Twine &Message);
  bool malformed(const llvm::Twine &Message);

  llvm::StringRef In;
  Syntax Mode;
  size_t Pos = 0;
  size_t LineStart = 0;
  /// A tab in the current line's indentation (YAML forbids it).
  bool TabInIndent = false;
  bool Started = false, Done = false, Failed = false;
  llvm::SmallVector<Frame, 16> Stack;
  std::optional<Event> Pending;
  std::string Storage;

  std::string Why;
  size_t WhyOffset = 0;
  bool Declined = false;
};

/// A scalar typed as JSON would type it, for YAML's plain scalars: integers,
/// booleans and null; any other text, and every quoted scalar, is a string.
/// (YAML 1.1's yes/no/on/off stay strings, as in yaml-cpp.) The value may
/// borrow Text.
llvm::json::Value typedScalar(llvm::StringRef Text, bool Quoted);

} // namespace collplan

#endif // COLLPLAN_SERIALIZE_TEXTPULLPARSER_H
