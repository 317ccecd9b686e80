// `k3c images ...` (see images_command.h).
#include "cli/images_command.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>

#include "cli/config.h"
#include "cli/registry_transport.h"
#include "cli/subcommand_parse.h"
#include "runtime/image_store.h"
#include "runtime/linux/records.h"
#include "runtime/reference.h"

namespace k3c::cli {
namespace {

struct Row {
  std::string repository;
  std::string tag;
  std::string id;
  std::string size;
};

std::vector<Row> rows_of(const std::vector<runtime::ImageRecord>& images) {
  std::vector<Row> rows;
  for (const runtime::ImageRecord& image : images) {
    // crictl shows the first 13 hex digits of the image id.
    const std::string id = image.id.substr(7, 13);
    const std::string size = human_size(image.size);
    if (image.references.empty()) rows.push_back({"<none>", "<none>", id, size});
    // As crictl: a digest reference ("repo@sha256:...", recorded by pulls) gets a row of its
    // own only when the image has no tag.
    const bool tagged = std::any_of(image.references.begin(), image.references.end(),
                                    [](const std::string& r) { return r.find('@') == r.npos; });
    for (const std::string& ref : image.references) {
      if (tagged && ref.find('@') != std::string::npos) continue;
      Result<runtime::Reference> parsed = runtime::parse_reference(ref);
      if (!parsed.is_ok()) continue;
      rows.push_back(
          {parsed->repository(), parsed->tag.empty() ? "<none>" : parsed->tag, id, size});
    }
  }
  std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
    return std::tie(a.repository, a.tag) < std::tie(b.repository, b.tag);
  });
  return rows;
}

Result<std::string> data_dir_of(const std::string& flag, const Environment& env) {
  std::string data_dir = flag.empty() ? env.get("K3C_DATA_DIR") : flag;
  if (data_dir.empty()) return default_data_dir(env);
  return data_dir;
}

struct Options {
  std::string data_dir;
  std::vector<std::string> files;
  std::vector<std::string> refs;
  std::string ref;
  std::string private_registry = "/etc/k3c/registries.yaml";
  std::string creds;
  unsigned timeout_seconds = 30;
};

CommandOutcome fail(std::string_view command, const Status& status) {
  return {1, "", "k3c images " + std::string(command) + ": " + status.message() + "\n"};
}

CommandOutcome do_import(runtime::ImageStore& store, const Options& o) {
  CommandOutcome outcome;
  for (const std::string& file : o.files) {
    auto imported = store.import_file(file);
    if (!imported.is_ok()) {
      outcome.exit_code = 1;
      outcome.err += "k3c images import: " + imported.status().message() + "\n";
      continue;
    }
    for (const runtime::ImageRecord& image : *imported) {
      if (image.references.empty()) outcome.out += "imported <none> " + image.id + "\n";
      for (const std::string& ref : image.references) {
        outcome.out += "imported " + ref + " " + image.id + "\n";
      }
    }
  }
  return outcome;
}

// As the runtime's remove_image: an image a container (running or not) uses stays, also when
// the server runs next to this command.
CommandOutcome do_remove(runtime::ImageStore& store, const Options& o,
                         const std::string& data_dir) {
  CommandOutcome outcome;
  for (const std::string& ref : o.refs) {
    if (auto image = store.find(ref); image.is_ok()) {
      const std::string id =
          runtime::container_using_image(runtime::runtime_state_root(data_dir), image->id);
      if (!id.empty()) {
        outcome.exit_code = 1;
        outcome.err +=
            "k3c images rm: image " + ref + " is in use by container " + id.substr(0, 13) + "\n";
        continue;
      }
    }
    auto removed = store.remove(ref);
    if (!removed.is_ok()) {
      outcome.exit_code = 1;
      outcome.err += "k3c images rm: " + removed.status().message() + "\n";
      continue;
    }
    for (const std::string& name : *removed) outcome.out += "Deleted: " + name + "\n";
  }
  return outcome;
}

CommandOutcome do_pull(runtime::ImageStore& store, const Options& o) {
  std::optional<runtime::RegistryAuth> auth;
  if (!o.creds.empty()) {
    const size_t colon = o.creds.find(':');
    auth = runtime::RegistryAuth{o.creds.substr(0, colon),
                                 colon == std::string::npos ? "" : o.creds.substr(colon + 1), ""};
  }
  runtime::registry::PullOptions options;
  options.request_timeout = std::chrono::seconds(o.timeout_seconds);
  options.idle_timeout = std::chrono::seconds(o.timeout_seconds);
  auto puller = make_puller(o.private_registry, options);
  if (!puller.is_ok()) return fail("pull", puller.status());
  auto image = (*puller)->pull(store, o.ref, auth);
  if (!image.is_ok()) return fail("pull", image.status());
  CommandOutcome outcome;
  for (const std::string& ref : image->references) {
    outcome.out += "pulled " + ref + " " + image->id + "\n";
  }
  return outcome;
}

}  // namespace

std::string human_size(uint64_t bytes) {
  static constexpr const char* kUnits[] = {"B", "kB", "MB", "GB", "TB", "PB"};
  double value = static_cast<double>(bytes);
  size_t unit = 0;
  // 999.5 and up would print as "1e+03" with three digits: that is the next unit's 1.
  while (value >= 999.5 && unit + 1 < std::size(kUnits)) {
    value /= 1000;
    ++unit;
  }
  char text[32];
  std::snprintf(text, sizeof text, "%.3g%s", value, kUnits[unit]);
  return text;
}

std::string image_table(const std::vector<runtime::ImageRecord>& images) {
  std::vector<Row> rows = rows_of(images);
  rows.insert(rows.begin(), Row{"REPOSITORY", "TAG", "IMAGE ID", "SIZE"});
  size_t widths[3] = {0, 0, 0};
  for (const Row& row : rows) {
    widths[0] = std::max(widths[0], row.repository.size());
    widths[1] = std::max(widths[1], row.tag.size());
    widths[2] = std::max(widths[2], row.id.size());
  }
  std::string text;
  for (const Row& row : rows) {
    auto cell = [](const std::string& value, size_t width) {
      return value + std::string(width - value.size() + 3, ' ');
    };
    text += cell(row.repository, widths[0]) + cell(row.tag, widths[1]) + cell(row.id, widths[2]) +
            row.size + "\n";
  }
  return text;
}

CommandOutcome run_images(const std::vector<std::string>& args, const Environment& env) {
  CLI::App app("Manage the images of this node's image store", "k3c images");
  app.require_subcommand(1, 1);
  Options o;
  app.add_option("-d,--data-dir", o.data_dir,
                 "Data directory (default $K3C_DATA_DIR, else /var/lib/k3c as root or "
                 "$HOME/.k3c)");
  CLI::App* import = app.add_subcommand(
      "import", "Import docker-archive or OCI layout tarballs (.tar, .tar.gz, .tar.zst)");
  import->add_option("FILE", o.files, "Tarballs to import")->required();
  CLI::App* ls = app.add_subcommand("ls", "List images");
  app.add_subcommand("list", "List images (same as ls)");
  CLI::App* rm = app.add_subcommand("rm", "Remove images (with all their tags) by reference or id");
  rm->add_option("REF", o.refs, "Image references or ids")->required();
  CLI::App* pull = app.add_subcommand("pull", "Pull an image from a registry");
  pull->add_option("REF", o.ref, "Image reference")->required();
  pull->add_option("--private-registry", o.private_registry,
                   "Registry configuration (k3s's registries.yaml format)")
      ->capture_default_str();
  pull->add_option("--creds", o.creds, "Credentials for the image's registry: USER[:PASSWORD]");
  pull->add_option("--timeout", o.timeout_seconds,
                   "Seconds a registry may take to answer (manifests, tokens) or stay silent "
                   "(blobs)")
      ->check(CLI::Range(1u, 3600u))
      ->capture_default_str();
  CLI::App* unpack = app.add_subcommand(
      "unpack", "Unpack an image's layers (once) and print the root filesystem's directory");
  unpack->add_option("REF", o.ref, "Image reference or id")->required();
  for (CLI::App* sub : app.get_subcommands({})) sub->fallthrough();

  if (auto outcome = parse_subcommand(app, args)) return *outcome;
  auto data_dir = data_dir_of(o.data_dir, env);
  if (!data_dir.is_ok()) return fail("", data_dir.status());
  auto store = runtime::ImageStore::open(*data_dir);
  if (!store.is_ok()) return fail("", store.status());
  if (pull->parsed()) return do_pull(**store, o);
  if (import->parsed()) return do_import(**store, o);
  if (rm->parsed()) return do_remove(**store, o, *data_dir);
  if (unpack->parsed()) {
    auto root = (*store)->unpack(o.ref);
    if (!root.is_ok()) return fail("unpack", root.status());
    return {0, *root + "\n", ""};
  }
  (void)ls;  // ls and list
  auto images = (*store)->list();
  if (!images.is_ok()) return fail("ls", images.status());
  return {0, image_table(*images), ""};
}

}  // namespace k3c::cli
