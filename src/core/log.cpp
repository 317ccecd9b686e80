// Shared sinks for the role loggers (see log.h).
#include "core/log.h"

#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/stdout_color_sinks.h>

#include <mutex>
#include <vector>

namespace k3c::log {
namespace {

// The sinks chosen by init(). Guarded by sinks_mu; read when a role logger is created.
std::mutex sinks_mu;
std::vector<spdlog::sink_ptr> sinks;
spdlog::level::level_enum level = spdlog::level::info;

}  // namespace

std::string init(const Options& options) {
  std::vector<spdlog::sink_ptr> chosen;
  chosen.push_back(std::make_shared<spdlog::sinks::stderr_color_sink_mt>());
  if (!options.file.empty()) {
    try {
      chosen.push_back(std::make_shared<spdlog::sinks::basic_file_sink_mt>(options.file));
    } catch (const spdlog::spdlog_ex& e) {
      return "cannot open log file " + options.file + ": " + e.what();
    }
  }
  std::lock_guard lock(sinks_mu);
  sinks = std::move(chosen);
  level = options.debug ? spdlog::level::debug : spdlog::level::info;
  spdlog::drop_all();
  return "";
}

std::shared_ptr<spdlog::logger> for_role(std::string_view role) {
  std::string name(role);
  std::lock_guard lock(sinks_mu);
  if (auto existing = spdlog::get(name)) return existing;
  if (sinks.empty()) {
    sinks.push_back(std::make_shared<spdlog::sinks::stderr_color_sink_mt>());
  }
  auto logger = std::make_shared<spdlog::logger>(name, sinks.begin(), sinks.end());
  logger->set_level(level);
  logger->set_pattern("%Y-%m-%dT%H:%M:%S.%e%z %^%l%$ [%n] %v");
  logger->flush_on(spdlog::level::warn);
  spdlog::register_logger(logger);
  return logger;
}

}  // namespace k3c::log
