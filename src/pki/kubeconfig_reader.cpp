// read_kubeconfig: a client's credentials from a kubeconfig file (see pki.h).
#include <yaml-cpp/yaml.h>

#include "core/base64.h"
#include "pki/internal/files.h"
#include "pki/kubeconfig_reader.h"

namespace k3c::pki {
namespace {

// The entry of a named list (clusters, users, contexts) with that name; an undefined node
// when there is none.
YAML::Node named(const YAML::Node& list, const std::string& name, const char* field) {
  if (!list || !list.IsSequence()) return YAML::Node(YAML::NodeType::Undefined);
  for (const YAML::Node& entry : list) {
    if (entry.IsMap() && entry["name"] && entry["name"].as<std::string>() == name) {
      return entry[field];
    }
  }
  return YAML::Node(YAML::NodeType::Undefined);
}

std::string text(const YAML::Node& map, const char* key) {
  if (!map || !map.IsMap() || !map[key] || !map[key].IsScalar()) return "";
  return map[key].as<std::string>();
}

class Reader {
 public:
  explicit Reader(const std::string& path) : path_(path), dir_(internal::parent_dir(path)) {}

  Status bad(const std::string& why) const {
    return error(Code::kInvalid, "kubeconfig " + path_ + ": " + why);
  }

  // A credential given inline (`<data_key>`, base64) or as a file (`<file_key>`).
  Result<std::string> material(const YAML::Node& map, const char* data_key,
                               const char* file_key) const {
    if (std::string data = text(map, data_key); !data.empty()) {
      std::optional<std::string> bytes = base64_decode(data);
      if (!bytes) return bad(std::string(data_key) + " is not valid base64");
      return *bytes;
    }
    std::string file = text(map, file_key);
    if (file.empty()) return std::string();
    if (file.front() != '/') file = dir_ + "/" + file;
    ASSIGN_OR_RETURN(std::optional<std::string> bytes, internal::read_file_if_exists(file));
    if (!bytes) return error(Code::kNotFound, "kubeconfig " + path_ + ": " + file_key + " " +
                                                  file + " does not exist");
    return *bytes;
  }

  Result<KubeconfigCredentials> parse(const YAML::Node& root) const {
    if (!root.IsMap()) return bad("not a kubeconfig (a YAML map with clusters, users, contexts)");
    const std::string context_name = text(root, "current-context");
    if (context_name.empty()) return bad("no current-context");
    const YAML::Node context = named(root["contexts"], context_name, "context");
    if (!context.IsMap()) return bad("context \"" + context_name + "\" is not defined");
    const std::string cluster_name = text(context, "cluster");
    const YAML::Node cluster = named(root["clusters"], cluster_name, "cluster");
    if (!cluster.IsMap()) return bad("cluster \"" + cluster_name + "\" is not defined");
    const std::string user_name = text(context, "user");
    const YAML::Node user = named(root["users"], user_name, "user");
    if (!user.IsMap()) return bad("user \"" + user_name + "\" is not defined");
    KubeconfigCredentials out;
    out.server = text(cluster, "server");
    if (out.server.empty()) return bad("cluster \"" + cluster_name + "\" has no server");
    out.insecure_skip_tls_verify = text(cluster, "insecure-skip-tls-verify") == "true";
    ASSIGN_OR_RETURN(out.ca_pem,
                     material(cluster, "certificate-authority-data", "certificate-authority"));
    ASSIGN_OR_RETURN(out.client_cert_pem,
                     material(user, "client-certificate-data", "client-certificate"));
    ASSIGN_OR_RETURN(out.client_key_pem, material(user, "client-key-data", "client-key"));
    out.token = text(user, "token");
    if (out.client_cert_pem.empty() != out.client_key_pem.empty()) {
      return bad("user \"" + user_name + "\" has a client certificate without its key or "
                 "a key without its certificate");
    }
    return out;
  }

 private:
  const std::string path_;
  const std::string dir_;
};

}  // namespace

Result<KubeconfigCredentials> read_kubeconfig(const std::string& path) {
  ASSIGN_OR_RETURN(std::optional<std::string> bytes, internal::read_file_if_exists(path));
  if (!bytes) return error(Code::kNotFound, "kubeconfig " + path + " does not exist");
  const Reader reader(path);
  YAML::Node root;
  try {
    root = YAML::Load(*bytes);
    return reader.parse(root);
  } catch (const YAML::Exception& e) {
    return reader.bad(std::string("not valid YAML: ") + e.what());
  }
}

}  // namespace k3c::pki
