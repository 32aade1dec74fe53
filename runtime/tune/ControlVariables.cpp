//===- ControlVariables.cpp - The MPI library's control variables --------===//

#include "runtime/tune/ControlVariables.h"

#ifdef MPI_T_ENUM_NULL

namespace collplan {

bool startToolInterface() {
  static const bool Started = [] {
    int Provided = 0;
    return MPI_T_init_thread(MPI_THREAD_SINGLE, &Provided) == MPI_SUCCESS;
  }();
  return Started;
}

std::optional<ControlVariable> ControlVariable::find(llvm::StringRef Name) {
  int Count = 0;
  MPI_T_cvar_get_num(&Count);
  for (int I = 0; I < Count; ++I) {
    char Text[256], Description[8192];
    int Length = sizeof Text, DescriptionLength = sizeof Description;
    int Verbosity, Bind, Scope;
    MPI_Datatype Type;
    ControlVariable V;
    if (MPI_T_cvar_get_info(I, Text, &Length, &Verbosity, &Type, &V.Enum,
                            Description, &DescriptionLength, &Bind,
                            &Scope) != MPI_SUCCESS ||
        Name != Text)
      continue;
    V.Index = I;
    V.Description = Description;
    return V;
  }
  return std::nullopt;
}

namespace {

/// Reads (Write null) or writes the int control variable Index.
bool access(int Index, int *Read, const int *Write) {
  MPI_T_cvar_handle Handle;
  int Count = 0;
  if (MPI_T_cvar_handle_alloc(Index, nullptr, &Handle, &Count) != MPI_SUCCESS)
    return false;
  bool Ok = Write ? MPI_T_cvar_write(Handle, Write) == MPI_SUCCESS
                  : MPI_T_cvar_read(Handle, Read) == MPI_SUCCESS;
  MPI_T_cvar_handle_free(&Handle);
  return Ok;
}

} // namespace

bool ControlVariable::read(int &Value) const {
  return access(Index, &Value, nullptr);
}

bool ControlVariable::write(int Value) const {
  return access(Index, nullptr, &Value);
}

} // namespace collplan

#endif // MPI_T_ENUM_NULL
