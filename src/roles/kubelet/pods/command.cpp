// Container argv rules (see command.h).
#include "roles/kubelet/pods/command.h"

#include "roles/kubelet/pods/expansion.h"

namespace k3c::kubelet {

using nlohmann::json;

namespace {

// The strings of container[field], expanded; absent or not a list = none.
std::vector<std::string> expanded_list(const json& container, const char* field,
                                       const VarLookup& lookup) {
  std::vector<std::string> out;
  auto it = container.find(field);
  if (it == container.end() || !it->is_array()) return out;
  for (const auto& item : *it) {
    if (item.is_string()) out.push_back(expand_vars(item.get<std::string>(), lookup));
  }
  return out;
}

}  // namespace

Result<std::vector<std::string>> container_argv(const json& container,
                                                const std::vector<std::string>& image_entrypoint,
                                                const std::vector<std::string>& image_cmd,
                                                const std::map<std::string, std::string>& env) {
  VarLookup lookup = [&env](std::string_view name) -> std::optional<std::string> {
    auto it = env.find(std::string(name));
    if (it == env.end()) return std::nullopt;
    return it->second;
  };
  const json& c = container.is_object() ? container : json::object();
  std::vector<std::string> command = expanded_list(c, "command", lookup);
  std::vector<std::string> args = expanded_list(c, "args", lookup);
  std::vector<std::string> argv;
  if (!command.empty()) {
    argv = std::move(command);
  } else {
    if (args.empty()) args = image_cmd;
    // An entrypoint of one empty string means "reset" (`ENTRYPOINT [""]`), as in Docker.
    if (!(image_entrypoint.size() == 1 && image_entrypoint[0].empty())) argv = image_entrypoint;
  }
  argv.insert(argv.end(), args.begin(), args.end());
  if (argv.empty()) return error(Code::kInvalid, "no command specified");
  return argv;
}

}  // namespace k3c::kubelet
