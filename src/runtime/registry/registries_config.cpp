// Parsing registries.yaml (see registries_config.h).
#include "runtime/registry/registries_config.h"

#include <sys/stat.h>

#include "core/base64.h"
#include "core/yaml_json.h"
#include "runtime/files.h"

namespace k3c::runtime::registry {
namespace {

using nlohmann::json;

constexpr size_t kFileLimit = 1 << 20;

class Parser {
 public:
  explicit Parser(const std::string& file) : file_(file) {}

  Status bad(const std::string& key, const std::string& why) const {
    return error(Code::kInvalid, file_ + ": " + key + ": " + why);
  }

  Result<std::string> text(const json& node, const std::string& key) const {
    if (node.is_string()) return node.get<std::string>();
    if (node.is_number() || node.is_boolean()) return node.dump();
    return bad(key, "must be a string");
  }

  Status expect_object(const json& node, const std::string& key) const {
    if (!node.is_object() && !node.is_null()) return bad(key, "must be a mapping");
    return Status::ok();
  }

  Status only_keys(const json& node, const std::string& key,
                   std::initializer_list<std::string_view> allowed) const {
    for (const auto& [name, value] : node.items()) {
      bool known = false;
      for (std::string_view a : allowed) known = known || name == a;
      if (!known) return bad(key + "." + name, "unknown key");
    }
    return Status::ok();
  }

  Result<Mirror> mirror(const json& node, const std::string& key) const {
    RETURN_IF_ERROR(expect_object(node, key));
    Mirror m;
    if (node.is_null()) return m;
    RETURN_IF_ERROR(only_keys(node, key, {"endpoint", "rewrite"}));
    if (auto it = node.find("endpoint"); it != node.end() && !it->is_null()) {
      if (!it->is_array()) return bad(key + ".endpoint", "must be a list of URLs");
      for (size_t i = 0; i < it->size(); ++i) {
        const std::string where = key + ".endpoint[" + std::to_string(i) + "]";
        ASSIGN_OR_RETURN(std::string url, text((*it)[i], where));
        if (url.empty()) return bad(where, "must not be empty");
        const size_t scheme = url.find("://");
        if (scheme != std::string::npos && !url.starts_with("http://") &&
            !url.starts_with("https://")) {
          return bad(where, "scheme must be http or https");
        }
        m.endpoints.push_back(std::move(url));
      }
    }
    if (auto it = node.find("rewrite"); it != node.end() && !it->is_null()) {
      if (!it->is_object())
        return bad(key + ".rewrite", "must be a mapping of pattern: replacement");
      for (const auto& [pattern, value] : it->items()) {
        const std::string where = key + ".rewrite." + pattern;
        ASSIGN_OR_RETURN(std::string replacement, text(value, where));
        auto regex = Regex::compile(pattern);
        if (!regex.is_ok()) {
          return bad(where, "bad regular expression: " + regex.status().message());
        }
        m.rewrites.push_back({std::move(*regex), replacement});
      }
    }
    return m;
  }

  Result<HostConfig> host(const json& node, const std::string& key) const {
    RETURN_IF_ERROR(expect_object(node, key));
    HostConfig c;
    if (node.is_null()) return c;
    RETURN_IF_ERROR(only_keys(node, key, {"auth", "tls"}));
    if (auto it = node.find("auth"); it != node.end() && !it->is_null()) {
      ASSIGN_OR_RETURN(c.auth, auth(*it, key + ".auth"));
    }
    if (auto it = node.find("tls"); it != node.end() && !it->is_null()) {
      const std::string where = key + ".tls";
      RETURN_IF_ERROR(expect_object(*it, where));
      RETURN_IF_ERROR(
          only_keys(*it, where, {"ca_file", "cert_file", "key_file", "insecure_skip_verify"}));
      for (auto [name, field] :
           {std::pair{"ca_file", &c.tls.ca_file}, std::pair{"cert_file", &c.tls.cert_file},
            std::pair{"key_file", &c.tls.key_file}}) {
        if (auto f = it->find(name); f != it->end() && !f->is_null()) {
          ASSIGN_OR_RETURN(*field, text(*f, where + "." + name));
        }
      }
      if (c.tls.cert_file.empty() != c.tls.key_file.empty()) {
        return bad(where, "cert_file and key_file go together");
      }
      if (auto f = it->find("insecure_skip_verify"); f != it->end() && !f->is_null()) {
        if (!f->is_boolean()) return bad(where + ".insecure_skip_verify", "must be true or false");
        c.tls.insecure_skip_verify = f->get<bool>();
      }
    }
    return c;
  }

  Result<RegistryAuth> auth(const json& node, const std::string& key) const {
    if (!node.is_object()) return bad(key, "must be a mapping");
    RETURN_IF_ERROR(only_keys(node, key, {"username", "password", "auth", "identitytoken"}));
    RegistryAuth a;
    for (auto [name, field] :
         {std::pair{"username", &a.username}, std::pair{"password", &a.password},
          std::pair{"identitytoken", &a.identity_token}}) {
      if (auto f = node.find(name); f != node.end() && !f->is_null()) {
        ASSIGN_OR_RETURN(*field, text(*f, key + "." + name));
      }
    }
    if (auto f = node.find("auth"); f != node.end() && !f->is_null()) {
      ASSIGN_OR_RETURN(std::string encoded, text(*f, key + ".auth"));
      std::optional<std::string> decoded = base64_decode(encoded);
      const size_t colon = decoded ? decoded->find(':') : std::string::npos;
      if (colon == std::string::npos) {
        return bad(key + ".auth", "must be base64 of \"username:password\"");
      }
      a.username = decoded->substr(0, colon);
      a.password = decoded->substr(colon + 1);
    }
    return a;
  }

 private:
  const std::string& file_;
};

}  // namespace

Result<RegistriesConfig> parse_registries(std::string_view yaml, const std::string& file) {
  Result<json> doc = yaml_to_json(yaml, 20);
  if (!doc.is_ok()) return error(Code::kInvalid, file + ": " + doc.status().message());
  const Parser p(file);
  RegistriesConfig config;
  if (doc->is_null()) return config;
  if (!doc->is_object()) return p.bad("(top level)", "must be a mapping with mirrors and configs");
  RETURN_IF_ERROR(p.only_keys(*doc, "(top level)", {"mirrors", "configs"}));
  if (auto it = doc->find("mirrors"); it != doc->end() && !it->is_null()) {
    if (!it->is_object()) return p.bad("mirrors", "must be a mapping of registry names");
    for (const auto& [name, node] : it->items()) {
      if (name.empty()) return p.bad("mirrors", "a registry name must not be empty");
      ASSIGN_OR_RETURN(config.mirrors[name], p.mirror(node, "mirrors." + name));
    }
  }
  if (auto it = doc->find("configs"); it != doc->end() && !it->is_null()) {
    if (!it->is_object()) return p.bad("configs", "must be a mapping of registry hosts");
    for (const auto& [name, node] : it->items()) {
      if (name.empty()) return p.bad("configs", "a registry host must not be empty");
      ASSIGN_OR_RETURN(config.configs[name], p.host(node, "configs." + name));
    }
  }
  return config;
}

Result<RegistriesConfig> load_registries(const std::string& path) {
  struct stat info;
  if (stat(path.c_str(), &info) != 0 && errno == ENOENT) return RegistriesConfig{};
  ASSIGN_OR_RETURN(std::string text, read_file(path, kFileLimit));
  return parse_registries(text, path);
}

}  // namespace k3c::runtime::registry
