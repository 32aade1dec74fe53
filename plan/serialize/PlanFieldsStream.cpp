//===- PlanFieldsStream.cpp - Reading text plans as they are parsed -------===//
//
// The programs, their rounds and the rounds' operations are read one at a
// time from a TextPullParser; only the header's fields and one operation at
// a time become field trees, which PlanFieldTrees.h's readers check. So a
// text plan is read in memory proportional to the plan, not to its document
// tree (yaml-cpp's and llvm::json's trees took 50 to 140 times the file).
//
// The header is usually written before the programs. When it is not, a
// first pass reads the header and skips the programs, and a second pass
// reads the programs: twice the time, the same memory.
//
//===----------------------------------------------------------------------===//

#include "plan/ir/Error.h"
#include "plan/serialize/HeaderChecks.h"
#include "plan/serialize/PlanFieldTrees.h"
#include "plan/serialize/PlanFields.h"
#include "plan/serialize/TextPullParser.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

namespace collplan {

using llvm::Error;
using llvm::Expected;
using llvm::StringRef;
using llvm::Twine;
namespace json = llvm::json;
using Event = TextPullParser::Event;
using EventKind = TextPullParser::EventKind;

namespace {

/// The header fields the operations need (ranks, blocks, buffers) and those
/// checked with them; once all are read, the programs can be read as they
/// come.
constexpr StringRef RequiredHeaderFields[] = {
    "format",    "version", "collective", "ranks",   "topology",
    "algorithm", "params",  "blocks",     "buffers", "requires_commutative"};

class StreamReader {
public:
  StreamReader(StringRef Text, TextPullParser::Syntax S, StringRef Name)
      : Text(Text), Syntax(S), Name(Name), Parser(Text, S), In(Name),
        ProgramIn(Name) {}

  Expected<Plan> read();
  bool declined() const { return Parser.declined(); }

private:
  Error next(Event &E);
  Error syntaxError(size_t Offset, const Twine &Why) const;
  Error duplicateKey(const Event &Key) const;
  Expected<json::Value> tree(const Event &First);
  Error skip(const Event &First);
  json::Value scalarValue(const Event &E) const;
  json::Value shallow(const Event &E) const;
  StringRef describeEvent(const Event &E) const;

  Error readFields(const Event &First, llvm::ArrayRef<StringRef> Names,
                   llvm::function_ref<Error(size_t)> Field);
  Error readList(TreeReader &Where, StringRef Field,
                 llvm::function_ref<Error(size_t, const Event &)> Element);
  Error readRoot(Plan &P, bool HeaderKnown, bool &ProgramsSkipped);
  Error readPrograms(Plan &P);
  Expected<Program> readProgram(uint32_t Rank, const Event &First);
  Error readRound(Program &Prog, const Event &First);

  StringRef Text;
  TextPullParser::Syntax Syntax;
  StringRef Name;
  TextPullParser Parser;
  /// The header's location is the plan; the programs' is their own.
  TreeReader In, ProgramIn;
  PlanHeader Header;
  llvm::StringMap<uint16_t> BufferIndex;
};

Error StreamReader::syntaxError(size_t Offset, const Twine &Why) const {
  auto [Line, Column] = Parser.lineAndColumn(Offset);
  return makeError(ErrorKind::Usage, Name + ": line " + Twine(Line) +
                                         ", column " + Twine(Column) + ": " +
                                         Why);
}

Error StreamReader::next(Event &E) {
  if (Parser.next(E))
    return Error::success();
  return syntaxError(Parser.problemOffset(), Parser.problem());
}

Error StreamReader::duplicateKey(const Event &Key) const {
  return syntaxError(Key.Offset, "duplicate key '" + Key.Text + "'");
}

json::Value StreamReader::scalarValue(const Event &E) const {
  json::Value V = typedScalar(E.Text, E.Quoted);
  // Text held by the parser lasts until its next event: own a copy.
  if (!E.Borrowed && V.kind() == json::Value::String)
    return json::Value(E.Text.str());
  return V;
}

/// E as a value to check a scalar field against: containers stand for
/// themselves, empty, since the field is refused without reading them.
json::Value StreamReader::shallow(const Event &E) const {
  if (E.Kind == EventKind::MapBegin)
    return json::Object();
  if (E.Kind == EventKind::ListBegin)
    return json::Array();
  return scalarValue(E);
}

StringRef StreamReader::describeEvent(const Event &E) const {
  return describe(shallow(E));
}

/// The value that starts with First, as a tree. The parser bounds its depth.
Expected<json::Value> StreamReader::tree(const Event &First) {
  Event E;
  if (First.Kind == EventKind::ListBegin) {
    json::Array A;
    while (true) {
      if (Error Err = next(E))
        return Err;
      if (E.Kind == EventKind::ListEnd)
        return json::Value(std::move(A));
      COLLPLAN_TRY(V, tree(E));
      A.push_back(std::move(V));
    }
  }
  if (First.Kind == EventKind::MapBegin) {
    json::Object O;
    while (true) {
      if (Error Err = next(E))
        return Err;
      if (E.Kind == EventKind::MapEnd)
        return json::Value(std::move(O));
      // Keys borrow the input where they can: an op's keys cost nothing.
      Event Key = E;
      json::ObjectKey K =
          E.Borrowed ? json::ObjectKey(E.Text) : json::ObjectKey(E.Text.str());
      Key.Text = K;
      if (Error Err = next(E))
        return Err;
      COLLPLAN_TRY(V, tree(E));
      if (!O.try_emplace(K, std::move(V)).second)
        return duplicateKey(Key);
    }
  }
  return scalarValue(First);
}

Error StreamReader::skip(const Event &First) {
  if (First.Kind != EventKind::MapBegin && First.Kind != EventKind::ListBegin)
    return Error::success();
  size_t Depth = 1;
  Event E;
  while (Depth > 0) {
    if (Error Err = next(E))
      return Err;
    if (E.Kind == EventKind::MapBegin || E.Kind == EventKind::ListBegin)
      ++Depth;
    else if (E.Kind == EventKind::MapEnd || E.Kind == EventKind::ListEnd)
      --Depth;
  }
  return Error::success();
}

/// The map whose first event is First, holding each of Names exactly once:
/// Field(I) reads the value of Names[I] (its events come next). Unknown,
/// repeated and missing fields are refused, as fields of ProgramIn.
Error StreamReader::readFields(const Event &First,
                               llvm::ArrayRef<StringRef> Names,
                               llvm::function_ref<Error(size_t)> Field) {
  if (First.Kind != EventKind::MapBegin)
    return ProgramIn.fail("", "expected a map, got " + describeEvent(First));
  llvm::SmallVector<bool, 2> Seen(Names.size(), false);
  Event E;
  while (true) {
    if (Error Err = next(E))
      return Err;
    if (E.Kind == EventKind::MapEnd)
      break;
    Event Key = E;
    std::string KeyText = E.Text.str();
    Key.Text = KeyText;
    const StringRef *Known = llvm::find(Names, KeyText);
    if (Known == Names.end())
      return ProgramIn.fail(KeyText, "unknown field; expected one of: " +
                                         llvm::join(Names, ", "));
    size_t I = Known - Names.begin();
    if (Seen[I])
      return duplicateKey(Key);
    Seen[I] = true;
    if (Error Err = Field(I))
      return Err;
  }
  for (size_t I = 0; I < Names.size(); ++I)
    if (!Seen[I])
      return ProgramIn.fail(Names[I], "missing");
  return Error::success();
}

Error StreamReader::readRound(Program &Prog, const Event &First) {
  Round Rd;
  Event E;
  if (Error Err = readFields(First, {"index", "ops"}, [&](size_t I) -> Error {
        if (I == 1)
          return readList(
              ProgramIn, "ops", [&](size_t K, const Event &Op) -> Error {
                ProgramIn.Where.Op = int64_t(K);
                COLLPLAN_TRY(OpTree, tree(Op));
                COLLPLAN_TRY(Operation,
                             readOp(ProgramIn, OpTree, Header, BufferIndex));
                Rd.Ops.push_back(std::move(Operation));
                return Error::success();
              });
        if (Error Err = next(E))
          return Err;
        COLLPLAN_TRY(Index,
                     ProgramIn.number(shallow(E), "index", 0, UINT32_MAX));
        ProgramIn.Where.RoundIndex = int64_t(Index);
        if (Error Err = checkRoundOrder(ProgramIn, Prog, Index))
          return Err;
        Rd.Index = uint32_t(Index);
        return Error::success();
      }))
    return Err;
  ProgramIn.Where.Op = -1;
  Prog.Rounds.push_back(std::move(Rd));
  return Error::success();
}

Expected<Program> StreamReader::readProgram(uint32_t Rank, const Event &First) {
  ProgramIn.Where.enterRank(Rank);
  Program Prog;
  Event E;
  if (Error Err = readFields(First, {"rank", "rounds"}, [&](size_t I) -> Error {
        if (I == 1) {
          if (Error Err =
                  readList(ProgramIn, "rounds", [&](size_t K, const Event &Rd) {
                    ProgramIn.Where.enterRound(int64_t(K));
                    return readRound(Prog, Rd);
                  }))
            return Err;
          ProgramIn.Where.enterRank(Rank);
          return Error::success();
        }
        if (Error Err = next(E))
          return Err;
        COLLPLAN_TRY(Label, ProgramIn.number(shallow(E), "rank", 0, MaxRanks));
        return checkRankLabel(ProgramIn, Rank, Label);
      }))
    return Err;
  return Prog;
}

/// The list that comes next, as field Field of Where: Element reads each
/// element from its first event, in order.
Error StreamReader::readList(
    TreeReader &Where, StringRef Field,
    llvm::function_ref<Error(size_t, const Event &)> Element) {
  Event E;
  if (Error Err = next(E))
    return Err;
  if (E.Kind != EventKind::ListBegin)
    return Where.fail(Field, "expected a list, got " + describeEvent(E));
  for (size_t I = 0;; ++I) {
    if (Error Err = next(E))
      return Err;
    if (E.Kind == EventKind::ListEnd)
      return Error::success();
    if (Error Err = Element(I, E))
      return Err;
  }
}

Error StreamReader::readPrograms(Plan &P) {
  BufferIndex = bufferIndex(Header);
  // Ranks may be large and the list short: no reserve. Programs past Ranks
  // are counted (not read) for the message.
  uint64_t Count = 0;
  if (Error Err =
          readList(In, "programs", [&](size_t I, const Event &First) -> Error {
            Count = I + 1;
            if (I >= Header.Ranks)
              return skip(First);
            COLLPLAN_TRY(Prog, readProgram(uint32_t(I), First));
            P.Programs.push_back(std::move(Prog));
            return Error::success();
          }))
    return Err;
  if (auto Problem = checkProgramCount(Count, Header.Ranks))
    return In.fail("programs", *Problem);
  return Error::success();
}

/// One pass over the document. HeaderKnown: a first pass read and checked
/// the header (in Header); this one reads only the programs.
Error StreamReader::readRoot(Plan &P, bool HeaderKnown, bool &ProgramsSkipped) {
  Event E;
  if (Error Err = next(E))
    return Err;
  if (E.Kind != EventKind::MapBegin)
    return In.fail("", "a plan must be a map, got " + describeEvent(E));
  json::Value Root = json::Object();
  json::Object &Fields = *Root.getAsObject();
  bool HasPrograms = false;
  while (true) {
    if (Error Err = next(E))
      return Err;
    if (E.Kind == EventKind::MapEnd)
      break;
    Event Key = E;
    std::string KeyText = E.Text.str();
    Key.Text = KeyText;
    if (KeyText == "programs") {
      if (HasPrograms)
        return duplicateKey(Key);
      HasPrograms = true;
      bool Ready = HeaderKnown ||
                   llvm::all_of(RequiredHeaderFields,
                                [&](StringRef F) { return Fields.get(F); });
      if (!Ready) {
        ProgramsSkipped = true;
        if (Error Err = next(E))
          return Err;
        if (Error Err = skip(E))
          return Err;
        continue;
      }
      if (!HeaderKnown) {
        COLLPLAN_TRY(H, readPlanHeader(In, Root));
        Header = std::move(H);
      }
      if (Error Err = readPrograms(P))
        return Err;
      continue;
    }
    if (Error Err = next(E))
      return Err;
    if (HeaderKnown) {
      if (Error Err = skip(E))
        return Err;
      continue;
    }
    COLLPLAN_TRY(V, tree(E));
    if (!Fields.try_emplace(KeyText, std::move(V)).second)
      return duplicateKey(Key);
  }
  if (Error Err = next(E))
    return Err;
  if (HeaderKnown)
    return Error::success();
  // Again, whole: fields after the programs (weights, root) count too.
  COLLPLAN_TRY(H, readPlanHeader(In, Root));
  Header = std::move(H);
  if (!HasPrograms)
    return In.fail("programs", "missing");
  return Error::success();
}

Expected<Plan> StreamReader::read() {
  Plan P;
  bool ProgramsSkipped = false;
  if (Error Err = readRoot(P, /*HeaderKnown=*/false, ProgramsSkipped))
    return Err;
  if (ProgramsSkipped) {
    Parser = TextPullParser(Text, Syntax);
    if (Error Err = readRoot(P, /*HeaderKnown=*/true, ProgramsSkipped))
      return Err;
  }
  P.Header = std::move(Header);
  return P;
}

} // namespace

Expected<Plan> readTextPlan(StringRef Text, StringRef Name, bool Json,
                            llvm::function_ref<Expected<Plan>()> ReadWhole) {
  StreamReader Reader(
      Text, Json ? TextPullParser::Syntax::Json : TextPullParser::Syntax::Yaml,
      Name);
  Expected<Plan> P = Reader.read();
  if (P || !Reader.declined())
    return P;
  if (Text.size() <= MaxWholeTextPlanBytes) {
    llvm::consumeError(P.takeError());
    return ReadWhole();
  }
  return makeError(ErrorKind::Usage,
                   llvm::toString(P.takeError()) + " (a text plan over " +
                       Twine(MaxWholeTextPlanBytes >> 20) +
                       " MiB is read as it is parsed, which takes JSON, and "
                       "YAML without anchors, aliases, tags, multi-line "
                       "scalars or complex keys)");
}

} // namespace collplan
