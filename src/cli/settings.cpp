// Layering of settings and the environment and config file sources (see settings.h).
#include "cli/settings.h"

#include <yaml-cpp/yaml.h>

#include <set>

namespace k3c::cli {

std::vector<std::string> split_commas(std::string_view text) {
  std::vector<std::string> pieces;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    if (comma == std::string_view::npos) comma = text.size();
    std::string_view piece = text.substr(start, comma - start);
    while (!piece.empty() && (piece.front() == ' ' || piece.front() == '\t'))
      piece.remove_prefix(1);
    while (!piece.empty() && (piece.back() == ' ' || piece.back() == '\t')) piece.remove_suffix(1);
    if (!piece.empty()) pieces.emplace_back(piece);
    start = comma + 1;
  }
  return pieces;
}

Settings overlay(Settings lower, const Settings& higher) {
  for (const auto& [name, setting] : higher) {
    const FlagSpec* spec = find_flag(name);
    Setting& target = lower[name];
    if (spec != nullptr && spec->kind == FlagKind::kList) {
      target.insert(target.end(), setting.begin(), setting.end());
    } else {
      target = setting;
    }
  }
  return lower;
}

Settings settings_from_environment(const Environment& env, Command command) {
  Settings settings;
  for (const FlagSpec& spec : all_flags()) {
    if (spec.env.empty() || !spec.taken_by(command)) continue;
    std::string value = env.get(spec.env);
    if (value.empty()) continue;
    settings[std::string(spec.name)] = {{value, "environment variable " + std::string(spec.env)}};
  }
  return settings;
}

namespace {

// Checks one key against the flag table and the command.
Status check_key(const std::string& key, const std::string& origin, Command command) {
  const FlagSpec* spec = find_flag(key);
  if (spec == nullptr) return error(Code::kInvalid, origin + ": unknown setting");
  if (spec->name == "config") {
    return error(Code::kInvalid, origin + ": a config file cannot name another config file");
  }
  if (!spec->taken_by(command)) {
    const Command other = command == Command::kServer ? Command::kAgent : Command::kServer;
    return error(Code::kInvalid, origin + ": only `k3c " + std::string(command_name(other)) +
                                     "` takes this setting, not `k3c " +
                                     std::string(command_name(command)) + "`");
  }
  return Status::ok();
}

// The values of one key: a scalar, or a sequence of scalars for list flags.
Result<Setting> values_of(const YAML::Node& value, const FlagSpec& spec,
                          const std::string& origin) {
  Setting setting;
  if (value.IsScalar()) {
    if (spec.kind != FlagKind::kList) return Setting{{value.Scalar(), origin}};
    for (std::string& piece : split_commas(value.Scalar())) {
      setting.push_back({std::move(piece), origin});
    }
    return setting;
  }
  if (value.IsSequence() && spec.kind == FlagKind::kList) {
    for (const YAML::Node& item : value) {
      if (!item.IsScalar()) return error(Code::kInvalid, origin + ": list items must be scalars");
      for (std::string& piece : split_commas(item.Scalar())) {
        setting.push_back({std::move(piece), origin});
      }
    }
    return setting;
  }
  if (value.IsSequence()) {
    return error(Code::kInvalid, origin + ": takes a single value, not a list");
  }
  if (value.IsNull()) return error(Code::kInvalid, origin + ": has no value");
  return error(Code::kInvalid,
               origin + ": must be a scalar" + (spec.kind == FlagKind::kList ? " or a list" : ""));
}

Result<Settings> settings_from_map(const YAML::Node& root, const std::string& path,
                                   Command command) {
  Settings settings;
  std::set<std::string> seen;
  for (const auto& entry : root) {
    if (!entry.first.IsScalar()) {
      return error(Code::kInvalid, "config file " + path + ": keys must be flag names");
    }
    const std::string key = entry.first.Scalar();
    const std::string origin = "config file " + path + ": key \"" + key + "\"";
    RETURN_IF_ERROR(check_key(key, origin, command));
    if (!seen.insert(key).second) return error(Code::kInvalid, origin + ": given twice");
    ASSIGN_OR_RETURN(Setting setting, values_of(entry.second, *find_flag(key), origin));
    settings[key] = std::move(setting);
  }
  return settings;
}

}  // namespace

Result<Settings> settings_from_yaml(std::string_view text, const std::string& path,
                                    Command command) {
  // yaml-cpp reports errors by throwing; they stop here.
  try {
    YAML::Node root = YAML::Load(std::string(text));
    if (root.IsNull()) return Settings{};  // an empty file sets nothing
    if (!root.IsMap()) {
      return error(Code::kInvalid,
                   "config file " + path + ": must be a map of flag names to values");
    }
    return settings_from_map(root, path, command);
  } catch (const YAML::Exception& e) {
    return error(Code::kInvalid, "config file " + path + ": invalid YAML: " + e.what());
  }
}

}  // namespace k3c::cli
