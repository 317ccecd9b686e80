// Image records and config parsing (see image_record.h).
#include "runtime/image_record.h"

#include "runtime/digest.h"

namespace k3c::runtime {
namespace {

using nlohmann::json;

std::vector<std::string> strings_at(const json& object, const char* key) {
  std::vector<std::string> out;
  auto it = object.find(key);
  if (it == object.end() || !it->is_array()) return out;
  for (const json& item : *it) {
    if (item.is_string()) out.push_back(item.get<std::string>());
  }
  return out;
}

std::string string_at(const json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

ImageConfig config_from(const json& c) {
  ImageConfig config;
  if (!c.is_object()) return config;
  config.entrypoint = strings_at(c, "Entrypoint");
  config.cmd = strings_at(c, "Cmd");
  config.env = strings_at(c, "Env");
  config.user = string_at(c, "User");
  config.working_dir = string_at(c, "WorkingDir");
  config.stop_signal = string_at(c, "StopSignal");
  if (auto ports = c.find("ExposedPorts"); ports != c.end() && ports->is_object()) {
    for (const auto& [port, ignored] : ports->items()) config.exposed_ports.push_back(port);
  }
  if (auto labels = c.find("Labels"); labels != c.end() && labels->is_object()) {
    for (const auto& [key, value] : labels->items()) {
      if (value.is_string()) config.labels[key] = value.get<std::string>();
    }
  }
  return config;
}

json config_to_json(const ImageConfig& c) {
  return json{{"entrypoint", c.entrypoint},
              {"cmd", c.cmd},
              {"env", c.env},
              {"user", c.user},
              {"workingDir", c.working_dir},
              {"exposedPorts", c.exposed_ports},
              {"labels", c.labels},
              {"stopSignal", c.stop_signal}};
}

}  // namespace

Result<ParsedConfig> parse_image_config(std::string_view bytes) {
  json doc = json::parse(bytes, nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object()) return error(Code::kInvalid, "image config is not a JSON object");
  ParsedConfig parsed;
  parsed.os = string_at(doc, "os");
  parsed.architecture = string_at(doc, "architecture");
  parsed.variant = string_at(doc, "variant");
  if (parsed.os.empty() || parsed.architecture.empty()) {
    return error(Code::kInvalid, "image config lacks os or architecture");
  }
  if (auto c = doc.find("config"); c != doc.end()) parsed.config = config_from(*c);
  auto rootfs = doc.find("rootfs");
  if (rootfs == doc.end() || !rootfs->is_object()) {
    return error(Code::kInvalid, "image config lacks rootfs");
  }
  parsed.diff_ids = strings_at(*rootfs, "diff_ids");
  for (size_t i = 0; i < parsed.diff_ids.size(); ++i) {
    RETURN_IF_ERROR(
        check_digest(parsed.diff_ids[i], "image config diff_ids[" + std::to_string(i) + "]"));
  }
  return parsed;
}

nlohmann::json to_json(const ImageRecord& r) {
  json layers = json::array();
  for (const LayerInfo& l : r.layers) {
    layers.push_back({{"digest", l.digest},
                      {"diffID", l.diff_id},
                      {"mediaType", l.media_type},
                      {"size", l.size}});
  }
  return json{{"id", r.id},
              {"manifestDigest", r.manifest_digest},
              {"references", r.references},
              {"os", r.os},
              {"architecture", r.architecture},
              {"variant", r.variant},
              {"config", config_to_json(r.config)},
              {"layers", layers},
              {"size", r.size}};
}

Result<ImageRecord> image_record_from_json(const nlohmann::json& j) {
  if (!j.is_object()) return error(Code::kCorrupt, "image record is not an object");
  try {
    ImageRecord r;
    r.id = j.at("id").get<std::string>();
    r.manifest_digest = j.at("manifestDigest").get<std::string>();
    r.references = j.at("references").get<std::vector<std::string>>();
    r.os = j.at("os").get<std::string>();
    r.architecture = j.at("architecture").get<std::string>();
    r.variant = j.value("variant", "");
    const json& c = j.at("config");
    r.config.entrypoint = c.at("entrypoint").get<std::vector<std::string>>();
    r.config.cmd = c.at("cmd").get<std::vector<std::string>>();
    r.config.env = c.at("env").get<std::vector<std::string>>();
    r.config.user = c.at("user").get<std::string>();
    r.config.working_dir = c.at("workingDir").get<std::string>();
    r.config.exposed_ports = c.at("exposedPorts").get<std::vector<std::string>>();
    r.config.labels = c.at("labels").get<std::map<std::string, std::string>>();
    r.config.stop_signal = c.value("stopSignal", "");
    for (const json& l : j.at("layers")) {
      r.layers.push_back({l.at("digest").get<std::string>(), l.at("diffID").get<std::string>(),
                          l.at("mediaType").get<std::string>(), l.at("size").get<uint64_t>()});
    }
    r.size = j.at("size").get<uint64_t>();
    RETURN_IF_ERROR(check_digest(r.id, "image id"));
    for (const LayerInfo& l : r.layers) {
      RETURN_IF_ERROR(check_digest(l.digest, "layer digest"));
      RETURN_IF_ERROR(check_digest(l.diff_id, "layer diff_id"));
    }
    return r;
  } catch (const json::exception& e) {
    return error(Code::kCorrupt, std::string("image record: ") + e.what());
  }
}

}  // namespace k3c::runtime
