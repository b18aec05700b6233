// SPDX-License-Identifier: MIT OR Apache-2.0
// Output files and the text stream. See output.hpp.
#include "output.hpp"
#include "wsstress/core/shown.hpp"

#include "exit_codes.hpp"

#include <fcntl.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace wsstress::cli {

namespace {

std::FILE* g_text = nullptr;

mode_t file_mode_mask() {
  static const mode_t mask = [] {
    const mode_t m = ::umask(022);
    ::umask(m);
    return m;
  }();
  return mask;
}

// The reason a write failed (errno's text), or success.
Result<void> write_all(int fd, const std::string& text) {
  for (std::size_t done = 0; done < text.size();) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return fail(std::strerror(n < 0 ? errno : EIO));
    done += static_cast<std::size_t>(n);
  }
  return {};
}

Result<void> cannot_write(const std::string& path, const std::string& why) {
  return fail("cannot write " + path + ": " + why);
}

// In place: a device, a FIFO, or what a symlink points to.
Result<void> write_in_place(const std::string& path, const std::string& text) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) return cannot_write(path, std::strerror(errno));
  Result<void> written = write_all(fd, text);
  if (::close(fd) != 0 && written) written = fail(std::strerror(errno));
  return written ? written : cannot_write(path, written.error());
}

// `existing`: the file being replaced, whose mode the new one keeps.
Result<void> write_replacing(const std::string& path, const std::string& text, const struct stat* existing) {
  std::string tmp = path + ".XXXXXX";
  const int fd = ::mkstemp(tmp.data());
  if (fd < 0) {
    // A writable file in a folder we cannot add to: write it in place.
    if (existing != nullptr && (errno == EACCES || errno == EROFS)) return write_in_place(path, text);
    return cannot_write(path, std::strerror(errno));
  }
  Result<void> written = write_all(fd, text);
  // mkstemp makes the file 0600: give it the replaced file's mode, or what
  // fopen would have (0666 less the umask).
  const mode_t mode = existing != nullptr ? existing->st_mode & 07777 : 0666 & ~file_mode_mask();
  if (written && ::fchmod(fd, mode) != 0) written = fail(std::strerror(errno));
  if (::close(fd) != 0 && written) written = fail(std::strerror(errno));
  if (written && std::rename(tmp.c_str(), path.c_str()) != 0) written = fail(std::strerror(errno));
  if (written) return written;
  ::unlink(tmp.c_str());
  return cannot_write(path, written.error());
}

}  // namespace

Result<void> write_output(const std::string& path, const std::string& text) {
  if (path == "-") {
    std::fflush(stdout);
    const Result<void> written = write_all(1, text);
    return written ? written : fail("cannot write to standard output: " + written.error());
  }
  struct stat link {
  }, target{}, out{};
  if (::lstat(path.c_str(), &link) != 0) return write_replacing(path, text, nullptr);
  const bool resolves = ::stat(path.c_str(), &target) == 0;
  if (resolves && S_ISDIR(target.st_mode)) return cannot_write(path, "it is a directory");
  // The file standard output already goes to (/dev/stdout, /proc/self/fd/1,
  // or its own name): append through fd 1 rather than truncate what is there.
  if (resolves && ::fstat(1, &out) == 0 && out.st_dev == target.st_dev && out.st_ino == target.st_ino) {
    return write_output("-", text);
  }
  if (S_ISLNK(link.st_mode) || !S_ISREG(link.st_mode)) return write_in_place(path, text);
  return write_replacing(path, text, &link);
}

int write_report(const char* option, const std::string& path, const std::string& text, int code) {
  const Result<void> written = write_output(path, text);
  if (written) return code;
  std::fprintf(stderr, "wsstress: error: %s: %s\n", option, written.error().c_str());
  return code == kOk ? kInternal : code;
}

void reserve_standard_streams() {
  for (int fd = 0; fd <= 2; ++fd) {
    if (::fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;
    const int got = ::open("/dev/null", fd == 2 ? O_WRONLY : O_RDONLY);
    if (got >= 0 && got != fd) {
      ::dup2(got, fd);
      ::close(got);
    }
  }
}

int text_report_code(int code) {
  errno = 0;
  const bool flushed = std::fflush(stdout) == 0;
  const int err = errno;
  if (flushed && std::ferror(stdout) == 0) return code;
  std::clearerr(stdout);
  std::fprintf(stderr, "wsstress: error: cannot write the text report to standard output (%s): it is lost\n",
               err != 0 ? std::strerror(err) : "a write failed");
  return code == kOk ? kInternal : code;
}

namespace {
// A kernel interface (/proc, /sys): it takes writes as commands, not reports.
bool in_kernel_fs(const std::string& path) {
  struct statfs fs {};
  if (::statfs(path.c_str(), &fs) != 0) return false;
  return fs.f_type == PROC_SUPER_MAGIC || fs.f_type == SYSFS_MAGIC;
}
}  // namespace

std::string output_path_refusal(const std::string& path) {
  if (path.empty()) return "an empty path (use - for standard output)";
  if (path == "-") return {};
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) return shown(path) + " is a directory";
    if (in_kernel_fs(path)) return shown(path) + " is in a kernel file system (/proc, /sys), not a file for a report";
    if (::access(path.c_str(), W_OK) != 0) return shown(path) + " cannot be written (" + std::strerror(errno) + ")";
    return {};
  }
  const int err = errno;
  if (err == ENAMETOOLONG) return shown(path) + ": the name is too long for the file system";
  if (err == ELOOP) return shown(path) + " is a loop of symbolic links";
  struct stat link {};
  if (::lstat(path.c_str(), &link) == 0 && S_ISLNK(link.st_mode)) {
    // Written through (the link stays): its target's folder must take the file.
    std::error_code ec;
    const std::filesystem::path target = std::filesystem::read_symlink(path, ec);
    const std::filesystem::path full =
        target.is_absolute() ? target : std::filesystem::path(path).parent_path() / target;
    const std::string folder = full.parent_path().empty() ? "." : full.parent_path().string();
    if (ec || ::access(folder.c_str(), W_OK) != 0) {
      return shown(path) + " is a symbolic link to nothing that can be written (folder " + shown(folder) + ")";
    }
    return {};
  }
  const auto slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
  if (in_kernel_fs(dir)) return "folder " + shown(dir) + " is in a kernel file system (/proc, /sys)";
  if (::access(dir.c_str(), W_OK) != 0) return "folder " + shown(dir) + " does not exist or is not writable";
  const long name_max = ::pathconf(dir.c_str(), _PC_NAME_MAX);
  const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  // The temporary file beside it adds a suffix: leave room for it.
  if (name_max > 0 && name.size() + 16 > static_cast<std::size_t>(name_max)) {
    return shown(path) + ": the name is too long for the file system";
  }
  return {};
}

CLI::Validator output_path() {
  return CLI::Validator([](std::string& path) -> std::string { return output_path_refusal(path); }, "FILE");
}

std::FILE* text_out() { return g_text != nullptr ? g_text : stdout; }

namespace {
// Where a write of `path` lands, as one absolute name: its folder made
// absolute and canonical (symlinks and `..` resolved), then its name; a
// symlink, even to a file not made yet, is written through, so its target
// (`n.json` and `../out/n.json` from `out`, before either
// exists). Empty if it cannot be worked out.
std::filesystem::path written_path(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path p = fs::absolute(path, ec);
  if (ec) return {};
  for (int hops = 0; hops < 40 && fs::is_symlink(fs::symlink_status(p, ec)); ++hops) {
    const fs::path target = fs::read_symlink(p, ec);
    if (ec) return {};
    p = target.is_absolute() ? target : p.parent_path() / target;
  }
  const fs::path name = p.filename();
  if (name.empty() || name == "." || name == "..") return fs::weakly_canonical(p, ec);
  const fs::path folder = fs::weakly_canonical(p.parent_path(), ec);
  return ec ? fs::path() : folder / name;
}

// Whether two output paths name one file: the same path once normalized
// (written_path), or one inode.
bool same_file(const std::string& a, const std::string& b) {
  if (a == b) return true;
  const std::filesystem::path na = written_path(a), nb = written_path(b);
  if (!na.empty() && na == nb) return true;
  struct stat sa {
  }, sb{};
  return ::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}
}  // namespace

Result<void> claim_stdout(std::initializer_list<OutputFlag> outputs) {
  int dashes = 0;
  for (const OutputFlag& o : outputs) dashes += *o.path == "-";
  if (dashes > 1) return fail("only one output can be standard output ('-')");
  for (auto a = outputs.begin(); a != outputs.end(); ++a) {
    for (auto b = a + 1; b != outputs.end(); ++b) {
      if (a->path->empty() || b->path->empty() || *a->path == "-" || *b->path == "-") continue;
      if (same_file(*a->path, *b->path)) {
        return fail(std::string(a->option) + " and " + b->option + " name the same file " + shown(*b->path) +
                    ": one would replace the other; give each its own path");
      }
    }
  }
  if (dashes == 1) g_text = stderr;
  file_mode_mask();  // read the umask now, before any thread starts
  return {};
}

}  // namespace wsstress::cli
