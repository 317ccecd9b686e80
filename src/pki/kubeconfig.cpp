// write_kubeconfig: the admin kubeconfig in the shape k3s writes /etc/rancher/k3s/k3s.yaml
// (keys in kubectl's order, everything named "default"), with inline base64 credentials.
#include <yaml-cpp/yaml.h>

#include "core/base64.h"
#include "pki/internal/files.h"
#include "pki/pki.h"

namespace k3c::pki {
namespace {

// yaml-cpp's emitter reports errors through good()/GetLastError() rather than throwing.
Result<std::string> kubeconfig_yaml(const std::string& server_url, const std::string& ca_pem,
                                    const std::string& cert_pem, const std::string& key_pem) {
  YAML::Emitter out;
  out << YAML::BeginMap;
  out << YAML::Key << "apiVersion" << YAML::Value << "v1";
  out << YAML::Key << "clusters" << YAML::Value << YAML::BeginSeq << YAML::BeginMap;
  out << YAML::Key << "cluster" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "certificate-authority-data" << YAML::Value << base64_encode(ca_pem);
  out << YAML::Key << "server" << YAML::Value << server_url;
  out << YAML::EndMap;
  out << YAML::Key << "name" << YAML::Value << "default";
  out << YAML::EndMap << YAML::EndSeq;
  out << YAML::Key << "contexts" << YAML::Value << YAML::BeginSeq << YAML::BeginMap;
  out << YAML::Key << "context" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "cluster" << YAML::Value << "default";
  out << YAML::Key << "user" << YAML::Value << "default";
  out << YAML::EndMap;
  out << YAML::Key << "name" << YAML::Value << "default";
  out << YAML::EndMap << YAML::EndSeq;
  out << YAML::Key << "current-context" << YAML::Value << "default";
  out << YAML::Key << "kind" << YAML::Value << "Config";
  out << YAML::Key << "preferences" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::EndMap;
  out << YAML::Key << "users" << YAML::Value << YAML::BeginSeq << YAML::BeginMap;
  out << YAML::Key << "name" << YAML::Value << "default";
  out << YAML::Key << "user" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "client-certificate-data" << YAML::Value << base64_encode(cert_pem);
  out << YAML::Key << "client-key-data" << YAML::Value << base64_encode(key_pem);
  out << YAML::EndMap;
  out << YAML::EndMap << YAML::EndSeq;
  out << YAML::EndMap;
  if (!out.good()) return error(Code::kInternal, "kubeconfig YAML: " + out.GetLastError());
  return std::string(out.c_str()) + "\n";
}

}  // namespace

Status write_kubeconfig(const std::string& path, unsigned mode, const std::string& server_url,
                        const std::string& ca_pem, const std::string& client_cert_pem,
                        const std::string& client_key_pem) {
  if (path.empty()) return error(Code::kInvalid, "no kubeconfig path given");
  ASSIGN_OR_RETURN(std::string yaml,
                   kubeconfig_yaml(server_url, ca_pem, client_cert_pem, client_key_pem));
  RETURN_IF_ERROR(internal::make_dirs(internal::parent_dir(path), 0755));
  // The new file carries `mode` (set with fchmod, which the umask does not narrow) and
  // replaces any old one by rename, so an existing file's old mode does not survive.
  return internal::write_file_atomic(path, yaml, mode);
}

}  // namespace k3c::pki
