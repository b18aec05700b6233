// SPDX-License-Identifier: MIT OR Apache-2.0
// The default thread count follows num_cpus 1.14.0 (what rayon-core 1.10.1's
// "num_cpus 1.2" resolves to): the cgroup CPU quota, rounded up, caps the
// CPUs in the affinity mask. Each test writes a fake /proc and /sys tree under
// a temporary root and points the reader at it.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "test_support.hpp"
#include "wsstress/pool/platform/num_cpus.hpp"

namespace {
namespace fs = std::filesystem;
using namespace wsstress::pool::num_cpus;

// A temporary root holding a fake file system; removed at the end of the test.
class FakeRoot {
 public:
  FakeRoot() {
    std::string tmpl = (fs::temp_directory_path() / "wsstress-num-cpus-XXXXXX").string();
    if (mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    root_ = tmpl;
  }
  ~FakeRoot() { fs::remove_all(root_); }
  FakeRoot(const FakeRoot&) = delete;
  FakeRoot& operator=(const FakeRoot&) = delete;

  void write(const std::string& path, const std::string& text) const {
    const fs::path file = root_ + path;
    fs::create_directories(file.parent_path());
    std::ofstream(file) << text;
  }
  const std::string& path() const { return root_; }

  // A cgroup v2 process in `group` under the usual /sys/fs/cgroup mount.
  void v2(const std::string& group, const std::string& cpu_max) const {
    write("/proc/self/cgroup", "0::" + group + "\n");
    write("/proc/self/mountinfo",
          "24 30 0:22 / /sys rw,nosuid shared:7 - sysfs sysfs rw\n"
          "30 24 0:26 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:4 - cgroup2 cgroup2 rw\n");
    write("/sys/fs/cgroup" + group + "/cpu.max", cpu_max);
  }

  // A cgroup v1 process whose cpu controller is mounted with cpuacct.
  void v1(const std::string& quota, const std::string& period) const {
    write("/proc/self/cgroup", "12:memory:/x\n4:cpu,cpuacct:/docker/abc\n0::/\n");
    write("/proc/self/mountinfo",
          "31 30 0:27 /docker/abc /sys/fs/cgroup/cpu,cpuacct rw,nosuid shared:9 shared:10 - cgroup cgroup "
          "rw,cpu,cpuacct\n"
          "32 30 0:28 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n");
    write("/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us", quota);
    write("/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us", period);
  }

 private:
  std::string root_;
};

std::size_t cpus_under(const FakeRoot& root, std::size_t logical) {
  return limit_by_quota(cgroups_cpu_quota(root.path()), logical);
}

TEST(NumCpus, V2MaxMeansNoLimit) {
  FakeRoot root;
  root.v2("/user.slice", "max 100000\n");
  EXPECT_EQ(cgroups_cpu_quota(root.path()), std::nullopt);
  EXPECT_EQ(cpus_under(root, 8), 8u);
}

TEST(NumCpus, V2QuotaIsRoundedUpAndCapsTheLogicalCount) {
  FakeRoot root;
  root.v2("/user.slice/app.scope", "150000 100000\n");
  EXPECT_EQ(cgroups_cpu_quota(root.path()), 2u);  // 1.5 CPUs: ceil, so both can be saturated
  EXPECT_EQ(cpus_under(root, 8), 2u);
  EXPECT_EQ(cpus_under(root, 1), 1u);  // never more than the affinity mask allows
}

TEST(NumCpus, V2ExactAndZeroQuotas) {
  FakeRoot root;
  root.v2("/", "600000 100000");
  EXPECT_EQ(cgroups_cpu_quota(root.path()), 6u);
  root.v2("/", "0 100000\n");
  EXPECT_EQ(cgroups_cpu_quota(root.path()), 0u);
  EXPECT_EQ(cpus_under(root, 8), 8u) << "a zero quota is no limit";
  root.v2("/", "100000 0\n");
  EXPECT_EQ(cgroups_cpu_quota(root.path()), std::nullopt) << "a zero period is no limit";
}

TEST(NumCpus, V1QuotaAndPeriodFiles) {
  FakeRoot root;
  root.v1("250000\n", " 100000 \n");
  EXPECT_EQ(cgroups_cpu_quota(root.path()), 3u);
  EXPECT_EQ(cpus_under(root, 8), 3u);
  root.v1("-1\n", "100000\n");
  EXPECT_EQ(cgroups_cpu_quota(root.path()), std::nullopt) << "-1 is v1's no limit";
  EXPECT_EQ(cpus_under(root, 8), 8u);
}

TEST(NumCpus, MissingFilesMeanTheCpuCount) {
  FakeRoot root;
  EXPECT_EQ(cgroups_cpu_quota(root.path()), std::nullopt);
  EXPECT_EQ(cpus_under(root, 5), 5u);
  root.v2("/a", "150000 100000\n");
  fs::remove(root.path() + "/sys/fs/cgroup/a/cpu.max");
  EXPECT_EQ(cpus_under(root, 5), 5u);
}

TEST(NumCpus, SubsysLinesFollowNumCpus) {
  // v1 names its controllers; a v2 line never replaces a v1 line found earlier.
  EXPECT_EQ(parse_subsys_line("4:cpu,cpuacct:/docker/abc")->base, "/docker/abc");
  EXPECT_EQ(parse_subsys_line("3:cpuacct:/"), std::nullopt);
  EXPECT_EQ(parse_subsys_line("0::/user.slice")->version, CgroupVersion::V2);
  EXPECT_EQ(parse_subsys_line("garbage"), std::nullopt);
  FakeRoot root;
  root.write("/proc/self/cgroup", "1:cpu:/one\n0::/two\n");
  EXPECT_EQ(load_subsys(root.path() + "/proc/self/cgroup")->base, "/one");
  root.write("/proc/self/cgroup", "0::/two\n1:cpu:/one\n");
  EXPECT_EQ(load_subsys(root.path() + "/proc/self/cgroup")->base, "/one");
}

TEST(NumCpus, MountinfoLinesFollowNumCpus) {
  // Zero or more optional fields before the "-"; v1 options must list cpu.
  auto m = parse_mountinfo_line("7 5 0:6 / /sys/fs/cgroup/cpu,cpuacct rw - cgroup cgroup rw,cpu,cpuacct");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->mount_point, "/sys/fs/cgroup/cpu,cpuacct");
  EXPECT_TRUE(parse_mountinfo_line("7 5 0:6 / /c rw shared:7 master:1 - cgroup cgroup rw,cpu"));
  EXPECT_FALSE(parse_mountinfo_line("7 5 0:6 / /c rw - cgroup cgroup rw,cpuacct"));
  EXPECT_FALSE(parse_mountinfo_line("7 5 0:6 / /c rw - tmpfs tmpfs rw"));
  EXPECT_FALSE(parse_mountinfo_line("7 5 0:6 / /c rw cgroup2"));
}

TEST(NumCpus, TheCgroupDirectoryIsTheSubsysPathBelowTheMountRoot) {
  // num_cpus's own test_cgroup_mount cases (Path::strip_prefix semantics).
  auto dir = [](const char* root, const char* subsys) {
    return cgroup_dir(MountInfo{CgroupVersion::V1, root, "/sys/fs/cgroup/cpu"}, Subsys{CgroupVersion::V1, subsys});
  };
  EXPECT_EQ(dir("/", "/"), "/sys/fs/cgroup/cpu");
  EXPECT_EQ(dir("/docker/01abcd", "/docker/01abcd"), "/sys/fs/cgroup/cpu");
  EXPECT_EQ(dir("/docker/01abcd", "/docker/01abcd/"), "/sys/fs/cgroup/cpu");
  EXPECT_EQ(dir("/docker/01abcd", "/docker/01abcd/large"), "/sys/fs/cgroup/cpu/large");
  EXPECT_EQ(dir("/docker/01abcd", "/"), std::nullopt);
  EXPECT_EQ(dir("/docker/01abcd", "/docker"), std::nullopt);
  EXPECT_EQ(dir("/docker/01abcd", "/elsewhere"), std::nullopt);
  EXPECT_EQ(dir("/docker/01abcd", "/docker/01abcd-other-dir"), std::nullopt);
}

TEST(NumCpus, TheDefaultThreadCountIsNumCpusOfThisProcess) {
  // This machine's own /proc and /sys, read the same two ways.
  const std::size_t expected = limit_by_quota(cgroups_cpu_quota(), logical_cpus());
  EXPECT_EQ(wsstress::pool::StdPlatform::default_num_threads(), expected);
  EXPECT_EQ(get(), expected);
  EXPECT_GE(expected, 1u);
}

}  // namespace
