#include "runtime/linux/user_lookup.h"

#include <algorithm>
#include <charconv>

namespace k3c::runtime {
namespace {

struct Entry {
  std::string name;
  uint32_t id = 0;
  uint32_t gid = 0;                  // passwd: the primary group
  std::vector<std::string> members;  // group: the member user names
};

std::vector<std::string_view> split(std::string_view text, char sep) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (true) {
    size_t end = text.find(sep, start);
    parts.push_back(text.substr(start, end - start));
    if (end == std::string_view::npos) return parts;
    start = end + 1;
  }
}

std::optional<uint32_t> number(std::string_view text) {
  uint32_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

// passwd lines have 7 fields (name:pw:uid:gid:gecos:home:shell), group lines 4
// (name:pw:gid:members). Malformed lines are skipped, as libc does.
std::vector<Entry> parse(std::string_view file, bool is_group) {
  std::vector<Entry> entries;
  for (std::string_view line : split(file, '\n')) {
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty() || line.front() == '#') continue;
    auto fields = split(line, ':');
    if (fields.size() < (is_group ? 4u : 7u)) continue;
    auto id = number(fields[2]);
    if (!id) continue;
    Entry entry{std::string(fields[0]), *id, 0, {}};
    if (is_group) {
      for (std::string_view member : split(fields[3], ','))
        if (!member.empty()) entry.members.emplace_back(member);
    } else {
      auto gid = number(fields[3]);
      if (!gid) continue;
      entry.gid = *gid;
    }
    entries.push_back(std::move(entry));
  }
  return entries;
}

const Entry* by_name(const std::vector<Entry>& entries, std::string_view name) {
  for (const Entry& e : entries)
    if (e.name == name) return &e;
  return nullptr;
}

const Entry* by_id(const std::vector<Entry>& entries, uint32_t id) {
  for (const Entry& e : entries)
    if (e.id == id) return &e;
  return nullptr;
}

Result<uint32_t> id_from(int64_t value, std::string_view what) {
  if (value < 0 || value > int64_t{UINT32_MAX - 1})
    return error(Code::kInvalid,
                 std::string(what) + " " + std::to_string(value) + " is out of range");
  return static_cast<uint32_t>(value);
}

}  // namespace

Result<UserIdentity> resolve_user(const UserRequest& request, std::string_view passwd_file,
                                  std::string_view group_file) {
  const std::vector<Entry> users = parse(passwd_file, false);
  const std::vector<Entry> groups = parse(group_file, true);
  UserIdentity identity;
  std::string user_name;  // known when the user has a passwd entry

  // runAsUser replaces the image's USER entirely (group part included), as in containerd.
  std::string_view user_part = request.image_user;
  std::string_view group_part;
  if (auto colon = user_part.find(':'); colon != std::string_view::npos) {
    group_part = user_part.substr(colon + 1);
    user_part = user_part.substr(0, colon);
  }
  if (request.run_as_user) {
    auto uid = id_from(*request.run_as_user, "runAsUser");
    if (!uid.is_ok()) return uid.status();
    identity.uid = *uid;
    group_part = {};
    if (const Entry* e = by_id(users, identity.uid)) {
      identity.gid = e->gid;
      user_name = e->name;
    }
  } else if (!user_part.empty()) {
    if (auto uid = number(user_part)) {
      identity.uid = *uid;
      if (const Entry* e = by_id(users, *uid)) {
        identity.gid = e->gid;
        user_name = e->name;
      }
    } else if (const Entry* e = by_name(users, user_part)) {
      identity.uid = e->id;
      identity.gid = e->gid;
      user_name = e->name;
    } else {
      return error(Code::kInvalid, "unable to find user " + std::string(user_part) +
                                       ": no matching entries in passwd file");
    }
  } else if (const Entry* root = by_id(users, 0)) {
    user_name = root->name;
  }
  if (!group_part.empty()) {
    if (auto gid = number(group_part)) {
      identity.gid = *gid;
    } else if (const Entry* g = by_name(groups, group_part)) {
      identity.gid = g->id;
    } else {
      return error(Code::kInvalid, "unable to find group " + std::string(group_part) +
                                       ": no matching entries in group file");
    }
  }
  if (request.run_as_group) {
    auto gid = id_from(*request.run_as_group, "runAsGroup");
    if (!gid.is_ok()) return gid.status();
    identity.gid = *gid;
  }

  auto add = [&](uint32_t gid) {
    if (std::find(identity.additional_gids.begin(), identity.additional_gids.end(), gid) ==
        identity.additional_gids.end())
      identity.additional_gids.push_back(gid);
  };
  if (!user_name.empty()) {
    for (const Entry& g : groups)
      if (std::find(g.members.begin(), g.members.end(), user_name) != g.members.end()) add(g.id);
  }
  for (int64_t extra : request.supplemental_groups) {
    auto gid = id_from(extra, "supplementalGroups entry");
    if (!gid.is_ok()) return gid.status();
    add(*gid);
  }
  return identity;
}

}  // namespace k3c::runtime
