//===- TextPullParser.cpp - JSON and plain YAML, one event at a time ------===//
//
// The YAML here follows the YAML 1.2 spec's productions for block and flow
// collections (chapters 7 and 8), restricted to one-line scalars and simple
// keys. Where that subset and full YAML could disagree on what a document
// means, the parser declines instead of guessing. Scalars are in
// TextPullParserScalars.cpp.
//
//===----------------------------------------------------------------------===//

#include "plan/serialize/TextPullParser.h"
#include "plan/serialize/PlanFields.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/Twine.h"

namespace collplan {

using llvm::StringRef;

std::pair<size_t, size_t> TextPullParser::lineAndColumn(size_t Offset) const {
  StringRef Before = In.take_front(Offset);
  size_t Line = 1 + Before.count('\n');
  size_t LastBreak = Before.find_last_of('\n');
  size_t Column =
      LastBreak == StringRef::npos ? Offset : Offset - LastBreak - 1;
  return {Line, Column + 1};
}

bool TextPullParser::decline(const llvm::Twine &Message) {
  Why = Message.str();
  WhyOffset = Pos;
  Declined = Failed = true;
  return false;
}

bool TextPullParser::malformed(const llvm::Twine &Message) {
  Why = Message.str();
  WhyOffset = Pos;
  Failed = true;
  Declined = false;
  return false;
}

TextPullParser::Event TextPullParser::nullAt(size_t Offset) const {
  Event E;
  E.Kind = EventKind::Scalar;
  E.Offset = Offset;
  return E;
}

bool TextPullParser::push(FrameKind K, size_t Indent, bool ExpectValue) {
  // The stack is explicit, so depth costs no recursion; the bound keeps the
  // limit every plan reader has had, and the fallback parsers recurse.
  if (Stack.size() >= MaxTextNesting)
    return malformed("nesting deeper than " + llvm::Twine(MaxTextNesting) +
                     " levels; not a plan");
  Frame F{K, Indent};
  F.ExpectValue = ExpectValue;
  Stack.push_back(F);
  return true;
}

//===----------------------------------------------------------------------===//
// Space, comments and lines
//===----------------------------------------------------------------------===//

void TextPullParser::newline() {
  if (In[Pos] == '\r' && at(Pos + 1) == '\n')
    ++Pos;
  ++Pos;
  LineStart = Pos;
  TabInIndent = false;
}

bool TextPullParser::atDocumentMarker() const {
  return Pos == LineStart && Mode == Syntax::Yaml &&
         (In.substr(Pos).startswith("---") ||
          In.substr(Pos).startswith("...")) &&
         isBlankOrBreak(Pos + 3);
}

/// A comment starts at '#' after a space or at the start of a line.
static bool startsComment(StringRef In, size_t Pos, size_t LineStart) {
  return In[Pos] == '#' &&
         (Pos == LineStart || In[Pos - 1] == ' ' || In[Pos - 1] == '\t');
}

void TextPullParser::skipLineSpace() {
  while (!atEnd() && (In[Pos] == ' ' || In[Pos] == '\t'))
    ++Pos;
  if (!atEnd() && Mode == Syntax::Yaml && startsComment(In, Pos, LineStart))
    while (!isBreak(Pos))
      ++Pos;
}

void TextPullParser::skipFlowSpace() {
  while (!atEnd()) {
    char C = In[Pos];
    if (C == ' ' || C == '\t')
      ++Pos;
    else if (C == '\n' || C == '\r')
      newline();
    else if (Mode == Syntax::Yaml && startsComment(In, Pos, LineStart))
      while (!isBreak(Pos))
        ++Pos;
    else
      return;
  }
}

void TextPullParser::skipBlockSpace() {
  while (!atEnd()) {
    char C = In[Pos];
    if (C == ' ') {
      ++Pos;
    } else if (C == '\t') {
      if (llvm::all_of(In.slice(LineStart, Pos),
                       [](char X) { return X == ' '; }))
        TabInIndent = true;
      ++Pos;
    } else if (C == '\n' || C == '\r') {
      newline();
    } else if (startsComment(In, Pos, LineStart)) {
      while (!isBreak(Pos))
        ++Pos;
    } else {
      return;
    }
  }
}

/// After a scalar or a flow collection in block context: nothing but a
/// comment may follow on its line.
bool TextPullParser::finishLine() {
  skipLineSpace();
  if (isBreak(Pos))
    return true;
  if (peek() == ':')
    return decline("a key that is not a plain or quoted scalar");
  return decline("unexpected text after a value");
}

//===----------------------------------------------------------------------===//
// Collections
//===----------------------------------------------------------------------===//

bool TextPullParser::flowNode(Event &E) {
  E = Event();
  E.Offset = Pos;
  char C = peek();
  if (C == '[' || C == '{') {
    bool IsMap = C == '{';
    E.Kind = IsMap ? EventKind::MapBegin : EventKind::ListBegin;
    ++Pos;
    return push(IsMap ? FrameKind::FlowMap : FrameKind::FlowSeq, 0);
  }
  if (atEnd())
    return decline("the document ends inside a collection");
  return scalar(E, /*Flow=*/true);
}

/// A node in block context at the current position. Compact: a block
/// collection may start here (not on the line of its parent's key).
bool TextPullParser::blockNode(Event &E, bool Compact) {
  E = Event();
  E.Offset = Pos;
  size_t Column = column();
  char C = peek();
  if (TabInIndent)
    return decline("a tab in indentation");
  if (C == '[' || C == '{')
    return flowNode(E);
  if (C == '-' && isBlankOrBreak(Pos + 1)) {
    if (!Compact)
      return decline("a list entry on the line of its key");
    E.Kind = EventKind::ListBegin;
    return push(FrameKind::BlockSeq, Column);
  }
  if (!scalar(E, /*Flow=*/false))
    return false;
  size_t AfterScalar = Pos;
  skipLineSpace();
  if (peek() == ':' && isBlankOrBreak(Pos + 1)) {
    if (!Compact)
      return decline("a map on the line of its key");
    ++Pos;
    // The key's text may live in Storage; nothing parses before it is read.
    Pending = E;
    E = Event();
    E.Kind = EventKind::MapBegin;
    E.Offset = Pending->Offset;
    return push(FrameKind::BlockMap, Column, /*ExpectValue=*/true);
  }
  Pos = AfterScalar;
  return finishLine();
}

bool TextPullParser::afterFlowClose() {
  if (Mode == Syntax::Json)
    return true;
  if (!Stack.empty() && (Stack.back().Kind == FrameKind::FlowMap ||
                         Stack.back().Kind == FrameKind::FlowSeq))
    return true;
  return finishLine();
}

bool TextPullParser::nextInFlowSeq(Event &E) {
  skipFlowSpace();
  if (atDocumentMarker())
    return decline("a document marker inside a collection");
  if (peek() == ']') {
    E = Event();
    E.Kind = EventKind::ListEnd;
    E.Offset = Pos++;
    pop();
    return afterFlowClose();
  }
  Frame &F = Stack.back();
  if (!F.First) {
    if (peek() != ',')
      return decline("expected ',' or ']' in a list");
    ++Pos;
    skipFlowSpace();
    if (peek() == ']')
      return decline("a comma before ']'");
  }
  F.First = false;
  if (!flowNode(E))
    return false;
  if (E.Kind == EventKind::Scalar) {
    skipFlowSpace();
    if (peek() == ':')
      return decline("a key: value pair inside a list");
  }
  return true;
}

bool TextPullParser::nextInFlowMap(Event &E) {
  Frame &F = Stack.back();
  skipFlowSpace();
  if (atDocumentMarker())
    return decline("a document marker inside a collection");
  if (F.ExpectValue) {
    F.ExpectValue = false;
    if (peek() != ':') {
      if (Mode == Syntax::Yaml && (peek() == ',' || peek() == '}')) {
        E = nullAt(Pos);
        return true;
      }
      return decline("expected ':' after a key");
    }
    ++Pos;
    skipFlowSpace();
    if (Mode == Syntax::Yaml && (peek() == ',' || peek() == '}')) {
      E = nullAt(Pos);
      return true;
    }
    return flowNode(E);
  }
  if (peek() == '}') {
    E = Event();
    E.Kind = EventKind::MapEnd;
    E.Offset = Pos++;
    pop();
    return afterFlowClose();
  }
  if (!F.First) {
    if (peek() != ',')
      return decline("expected ',' or '}' in a map");
    ++Pos;
    skipFlowSpace();
    if (peek() == '}')
      return decline("a comma before '}'");
  }
  F.First = false;
  char C = peek();
  if (C == '[' || C == '{')
    return decline("a key that is not a plain or quoted scalar");
  if (atEnd())
    return decline("the document ends inside a collection");
  if (Mode == Syntax::Json && C != '"')
    return decline("a JSON key must be a string");
  F.ExpectValue = true;
  return scalar(E, /*Flow=*/true);
}

bool TextPullParser::nextInBlockSeq(Event &E) {
  size_t Indent = Stack.back().Indent;
  skipBlockSpace();
  E = Event();
  E.Offset = Pos;
  if (atEnd() || column() < Indent) {
    E.Kind = EventKind::ListEnd;
    pop();
    return true;
  }
  if (atDocumentMarker())
    return decline("several YAML documents");
  if (column() > Indent)
    return decline("a line indented past its list's entries");
  if (peek() != '-' || !isBlankOrBreak(Pos + 1)) {
    // "key:\n- a\nnext:": the list may sit at its key's indentation.
    if (Stack.size() >= 2 &&
        Stack[Stack.size() - 2].Kind == FrameKind::BlockMap &&
        Stack[Stack.size() - 2].Indent == Indent) {
      E.Kind = EventKind::ListEnd;
      pop();
      return true;
    }
    return decline("expected a list entry '- '");
  }
  if (TabInIndent)
    return decline("a tab in indentation");
  ++Pos;
  skipLineSpace();
  if (!isBreak(Pos))
    return blockNode(E, /*Compact=*/true);
  size_t Entry = Pos;
  skipBlockSpace();
  if (atEnd() || column() <= Indent || atDocumentMarker()) {
    E = nullAt(Entry);
    return true;
  }
  return blockNode(E, /*Compact=*/true);
}

bool TextPullParser::nextInBlockMap(Event &E) {
  Frame &F = Stack.back();
  size_t Indent = F.Indent;
  if (F.ExpectValue) {
    F.ExpectValue = false;
    skipLineSpace();
    if (!isBreak(Pos))
      return blockNode(E, /*Compact=*/false);
    size_t Value = Pos;
    skipBlockSpace();
    if (atEnd() || atDocumentMarker() || column() < Indent) {
      E = nullAt(Value);
      return true;
    }
    if (column() > Indent)
      return blockNode(E, /*Compact=*/true);
    if (peek() == '-' && isBlankOrBreak(Pos + 1)) {
      E = Event();
      E.Kind = EventKind::ListBegin;
      E.Offset = Pos;
      return push(FrameKind::BlockSeq, Indent);
    }
    E = nullAt(Value);
    return true;
  }
  skipBlockSpace();
  if (atEnd() || column() < Indent) {
    E = Event();
    E.Kind = EventKind::MapEnd;
    E.Offset = Pos;
    pop();
    return true;
  }
  if (atDocumentMarker())
    return decline("several YAML documents");
  if (column() > Indent)
    return decline("a line indented past its map's keys (a scalar that "
                   "spans lines?)");
  if (TabInIndent)
    return decline("a tab in indentation");
  char C = peek();
  if (C == '[' || C == '{')
    return decline("a key that is not a plain or quoted scalar");
  if (C == '-' && isBlankOrBreak(Pos + 1))
    return decline("a list entry among a map's keys");
  if (!scalar(E, /*Flow=*/false))
    return false;
  skipLineSpace();
  if (peek() != ':' || !isBlankOrBreak(Pos + 1))
    return decline("expected ':' after a key");
  ++Pos;
  Stack.back().ExpectValue = true;
  return true;
}

bool TextPullParser::atDocumentEnd(Event &E) {
  if (Mode == Syntax::Json)
    skipFlowSpace();
  else
    skipBlockSpace();
  if (!atEnd())
    return decline(atDocumentMarker() ? "several YAML documents"
                                      : "text after the document");
  Done = true;
  E = Event();
  E.Offset = Pos;
  return true;
}

bool TextPullParser::next(Event &E) {
  if (Failed)
    return false;
  if (Pending) {
    E = *Pending;
    Pending.reset();
    return true;
  }
  if (Done) {
    E = Event();
    E.Offset = In.size();
    return true;
  }
  if (!Started) {
    Started = true;
    if (Mode == Syntax::Json) {
      skipFlowSpace();
      return flowNode(E);
    }
    skipBlockSpace();
    if (peek() == '%' && Pos == LineStart)
      return decline("YAML directives");
    if (atDocumentMarker() && In.substr(Pos).startswith("---")) {
      Pos += 3;
      skipBlockSpace();
    }
    if (atEnd() || atDocumentMarker()) {
      E = nullAt(Pos);
      return true;
    }
    return blockNode(E, /*Compact=*/true);
  }
  if (Stack.empty())
    return atDocumentEnd(E);
  switch (Stack.back().Kind) {
  case FrameKind::FlowSeq:
    return nextInFlowSeq(E);
  case FrameKind::FlowMap:
    return nextInFlowMap(E);
  case FrameKind::BlockSeq:
    return nextInBlockSeq(E);
  case FrameKind::BlockMap:
    return nextInBlockMap(E);
  }
  return decline("unreachable");
}

} // namespace collplan
