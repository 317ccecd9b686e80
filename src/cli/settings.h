// Settings: flag values as the sources give them (command line, environment, config file),
// each value remembering where it came from, before they are checked and turned into typed
// config (config.h). Layering them is where the precedence rule lives.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "cli/environment.h"
#include "cli/flag_table.h"
#include "core/status.h"

namespace k3c::cli {

struct SettingValue {
  std::string text;
  // Where it came from, for error messages: `flag --cluster-cidr`,
  // `config file /etc/k3c/config.yaml: key "cluster-cidr"`, `environment variable K3C_TOKEN`.
  std::string origin;
};

// One flag's values: exactly one for string and bool flags, any number for list flags.
using Setting = std::vector<SettingValue>;

// Settings by long flag name.
using Settings = std::map<std::string, Setting, std::less<>>;

// Splits "a, b,,c" into {"a", "b", "c"}: trimmed, empty pieces dropped.
std::vector<std::string> split_commas(std::string_view text);

// Returns `lower` overlaid with `higher`: a string or bool flag in `higher` replaces the
// value in `lower`; a list flag's values are appended after `lower`'s (as in k3s, where
// --node-label on the command line adds to the config file's labels).
Settings overlay(Settings lower, const Settings& higher);

// The settings bound to environment variables (K3C_TOKEN, ...) for flags `command` takes.
// Unset and empty variables are skipped.
Settings settings_from_environment(const Environment& env, Command command);

// Parses a config file's text. Keys are long flag names; values are scalars, or for list
// flags a sequence or a comma-separated scalar. Fails (kInvalid) on malformed YAML, an
// unknown key, a key only the other command takes, `config` itself, a list for a single-
// valued flag, nested maps, and repeated keys; each error names the file and the key.
Result<Settings> settings_from_yaml(std::string_view text, const std::string& path,
                                    Command command);

}  // namespace k3c::cli
