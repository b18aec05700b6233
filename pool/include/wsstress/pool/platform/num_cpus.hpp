// SPDX-License-Identifier: MIT OR Apache-2.0
// SPDX-FileCopyrightText: Sean McArthur (num_cpus); The wsstress developers
// The default thread count: num_cpus::get() as rayon-core 1.10.1 calls it.
//
// rayon-core 1.10.1 asks for num_cpus "1.2"; Debian resolves that to 1.14.0,
// whose Linux code (src/linux.rs) this follows rule by rule: the CPUs in the
// affinity mask, capped by the cgroup CPU quota rounded up (v2 `cpu.max`, v1
// `cpu.cfs_quota_us` / `cpu.cfs_period_us`), the cgroup found through
// /proc/self/cgroup and /proc/self/mountinfo. Every path is read below a
// `root` prefix ("" in production) so tests can use a fake directory tree.
#pragma once

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "wsstress/pool/parse_usize.hpp"

namespace wsstress::pool::num_cpus {

enum class CgroupVersion { V1, V2 };

namespace detail {

// Rust's str::split(sep): every piece, empty ones included.
inline std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  for (;;) {
    const std::size_t at = s.find(sep);
    parts.push_back(s.substr(0, at));
    if (at == std::string_view::npos) return parts;
    s.remove_prefix(at + 1);
  }
}

inline bool contains(const std::vector<std::string_view>& parts, std::string_view want) {
  return std::find(parts.begin(), parts.end(), want) != parts.end();
}

using pool::parse_usize;

inline std::string_view trim(std::string_view s) {
  constexpr std::string_view ws = " \t\n\r\f\v";
  const std::size_t first = s.find_first_not_of(ws);
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(ws) - first + 1);
}

inline std::optional<std::string> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream out;
  out << in.rdbuf();
  if (in.bad()) return std::nullopt;
  return std::move(out).str();
}

// BufRead::lines(): split on '\n', each line without its "\n" or "\r\n".
inline std::vector<std::string> read_lines(const std::string& path) {
  std::vector<std::string> lines;
  std::ifstream in(path, std::ios::binary);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(std::move(line));
  }
  return lines;
}

// Path::components() as strip_prefix compares them: a leading "/" is a
// component of its own; empty and "." pieces are dropped.
inline std::vector<std::string_view> components(std::string_view path) {
  std::vector<std::string_view> out;
  if (!path.empty() && path.front() == '/') out.push_back("/");
  for (std::string_view part : split(path, '/')) {
    if (!part.empty() && part != ".") out.push_back(part);
  }
  return out;
}

}  // namespace detail

// A line of /proc/self/cgroup naming the cpu controller (num_cpus's Subsys).
struct Subsys {
  CgroupVersion version;
  std::string base;
};

// A cgroup mount from /proc/self/mountinfo (num_cpus's MountInfo).
struct MountInfo {
  CgroupVersion version;
  std::string root;
  std::string mount_point;
};

// "11:cpu,cpuacct:/docker/x" (v1, must list cpu) or "0::/x" (v2).
inline std::optional<Subsys> parse_subsys_line(std::string_view line) {
  const auto fields = detail::split(line, ':');
  if (fields.size() < 2) return std::nullopt;
  const CgroupVersion version = fields[1].empty() ? CgroupVersion::V2 : CgroupVersion::V1;
  if (version == CgroupVersion::V1 && !detail::contains(detail::split(fields[1], ','), "cpu")) return std::nullopt;
  if (fields.size() < 3) return std::nullopt;
  return Subsys{version, std::string(fields[2])};
}

// The last usable line wins, except that a v2 line never replaces a v1 line
// found earlier ("already-found v1 trumps v2 since it explicitly specifies its
// controllers").
inline std::optional<Subsys> load_subsys(const std::string& cgroup_proc) {
  std::optional<Subsys> found;
  for (const std::string& line : detail::read_lines(cgroup_proc)) {
    auto subsys = parse_subsys_line(line);
    if (!subsys || (found && subsys->version == CgroupVersion::V2)) continue;
    found = std::move(subsys);
  }
  return found;
}

// "36 25 0:31 / /sys/fs/cgroup/cpu rw,relatime shared:15 - cgroup cgroup rw,cpu":
// root and mount point are fields 4 and 5; after the "-" come the file system
// type (cgroup / cgroup2), the source and, for v1, options that must list cpu.
inline std::optional<MountInfo> parse_mountinfo_line(std::string_view line) {
  const auto fields = detail::split(line, ' ');
  if (fields.size() < 5) return std::nullopt;
  auto dash = std::find(fields.begin() + 5, fields.end(), std::string_view("-"));
  if (dash == fields.end() || ++dash == fields.end()) return std::nullopt;
  CgroupVersion version;
  if (*dash == "cgroup") {
    version = CgroupVersion::V1;
  } else if (*dash == "cgroup2") {
    version = CgroupVersion::V2;
  } else {
    return std::nullopt;
  }
  if (version == CgroupVersion::V1) {
    if (std::distance(dash, fields.end()) < 3) return std::nullopt;
    if (!detail::contains(detail::split(*(dash + 2), ','), "cpu")) return std::nullopt;
  }
  return MountInfo{version, std::string(fields[3]), std::string(fields[4])};
}

// The first mount of the controller's cgroup version.
inline std::optional<MountInfo> load_mountinfo(const std::string& mountinfo_proc, CgroupVersion version) {
  for (const std::string& line : detail::read_lines(mountinfo_proc)) {
    auto info = parse_mountinfo_line(line);
    if (info && info->version == version) return info;
  }
  return std::nullopt;
}

// The cgroup's directory: the mount point joined with the subsystem path
// relative to the mount's root (Cgroup::translate); nullopt if the path is not
// under that root.
inline std::optional<std::string> cgroup_dir(const MountInfo& mount, const Subsys& subsys) {
  const auto base = detail::components(subsys.base);
  const auto root = detail::components(mount.root);
  if (root.size() > base.size() || !std::equal(root.begin(), root.end(), base.begin())) return std::nullopt;
  std::string dir = mount.mount_point;
  for (auto it = base.begin() + static_cast<std::ptrdiff_t>(root.size()); it != base.end(); ++it) {
    dir += '/';
    dir += *it;
  }
  return dir;
}

// Whole CPUs the quota allows, rounded up "since we want to be able to
// saturate the available CPUs" (Rust: `(quota as f64 / period as f64).ceil()
// as usize`, which saturates); nullopt for a zero period.
inline std::optional<std::size_t> quota_to_cpus(std::size_t quota_us, std::size_t period_us) {
  if (period_us == 0) return std::nullopt;
  const double cpus = std::ceil(static_cast<double>(quota_us) / static_cast<double>(period_us));
  if (cpus >= 18446744073709551616.0) return SIZE_MAX;
  return static_cast<std::size_t>(cpus);
}

// v1: two files of one number each (surrounding whitespace allowed); "-1"
// (no quota) does not parse, so there is no limit.
inline std::optional<std::size_t> v1_quota(const std::string& dir) {
  auto quota = detail::read_file(dir + "/cpu.cfs_quota_us");
  auto period = detail::read_file(dir + "/cpu.cfs_period_us");
  if (!quota || !period) return std::nullopt;
  auto q = detail::parse_usize(detail::trim(*quota));
  auto p = detail::parse_usize(detail::trim(*period));
  if (!q || !p) return std::nullopt;
  return quota_to_cpus(*q, *p);
}

// v2: the first line of cpu.max, "QUOTA PERIOD"; "max" does not parse, so
// there is no limit.
inline std::optional<std::size_t> v2_quota(const std::string& dir) {
  auto max = detail::read_file(dir + "/cpu.max");
  if (!max) return std::nullopt;
  std::string_view first = std::string_view(*max).substr(0, max->find('\n'));
  if (!first.empty() && first.back() == '\r') first.remove_suffix(1);
  const auto fields = detail::split(first, ' ');
  if (fields.size() < 2) return std::nullopt;
  auto q = detail::parse_usize(fields[0]);
  auto p = detail::parse_usize(fields[1]);
  if (!q || !p) return std::nullopt;
  return quota_to_cpus(*q, *p);
}

// num_cpus's load_cgroups: the quota in whole CPUs, or nullopt when any step
// fails (no cpu controller, no mount, unreadable or unlimited quota).
inline std::optional<std::size_t> cgroups_cpu_quota(const std::string& root = "") {
  auto subsys = load_subsys(root + "/proc/self/cgroup");
  if (!subsys) return std::nullopt;
  auto mount = load_mountinfo(root + "/proc/self/mountinfo", subsys->version);
  if (!mount) return std::nullopt;
  auto dir = cgroup_dir(*mount, *subsys);
  if (!dir) return std::nullopt;
  return subsys->version == CgroupVersion::V1 ? v1_quota(root + *dir) : v2_quota(root + *dir);
}

// The CPUs in this thread's affinity mask; if the mask cannot be read (more
// than CPU_SETSIZE CPUs), the online CPUs, at least 1.
inline std::size_t logical_cpus() noexcept {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) return static_cast<std::size_t>(CPU_COUNT(&set));
  const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  return cpus < 1 ? 1 : static_cast<std::size_t>(cpus);
}

// The quota caps the logical count; a quota of 0 is no limit (init_cgroups).
inline std::size_t limit_by_quota(std::optional<std::size_t> quota, std::size_t logical) noexcept {
  if (!quota || *quota == 0) return logical;
  return std::min(*quota, logical);
}

// num_cpus::get(). Like num_cpus, the cgroup limit is computed once per
// process (it caches min(quota, logical) at that moment); without a limit the
// affinity mask is read on every call.
inline std::size_t get() {
  static const std::size_t cgroup_cpus = [] {
    auto quota = cgroups_cpu_quota();
    return quota && *quota > 0 ? limit_by_quota(quota, logical_cpus()) : 0;
  }();
  return cgroup_cpus > 0 ? cgroup_cpus : logical_cpus();
}

}  // namespace wsstress::pool::num_cpus
