// The one description of every k3c flag: its long and short names, kind, help group, help
// text, default, environment variable and the commands that take it. The CLI11 definitions,
// the config file's keys and the environment bindings are all derived from this table.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace k3c::cli {

enum class Command : uint8_t { kServer, kAgent };

std::string_view command_name(Command command);

enum class FlagKind : uint8_t {
  kString,  // one value; the last one given wins
  kBool,    // --flag on the command line, true/false in the config file
  kList,    // repeatable; a comma-separated value is split into several
};

struct FlagSpec {
  std::string_view name;        // long name without "--"; also the config file key
  std::string_view short_name;  // one letter without "-", or ""
  FlagKind kind;
  std::string_view group;         // help section
  std::string_view value_name;    // shown in help ("CIDR", "PATH"); "" for booleans
  std::string_view default_text;  // shown in help; the real default lives in config.cpp
  std::string_view env;           // bound environment variable, or ""
  bool server;                    // `k3c server` takes it
  bool agent;                     // `k3c agent` takes it
  std::string_view help;

  bool taken_by(Command command) const { return command == Command::kServer ? server : agent; }
};

// Every flag, in help order.
std::span<const FlagSpec> all_flags();

// The flag whose long name is `name`, or nullptr.
const FlagSpec* find_flag(std::string_view name);

// The packaged components --disable accepts.
std::span<const std::string_view> disableable_components();

}  // namespace k3c::cli
