// SPDX-License-Identifier: MIT OR Apache-2.0
// A driver for the fuzz targets where libFuzzer is not available (the g++
// builds): it replays files and folders given as arguments - the corpus
// regression tests - and, with -runs=N or -max_total_time=S, runs random and
// mutated inputs without coverage guidance. It speaks the subset of
// libFuzzer's interface that `wsstress fuzz` and ctest use (-runs, -seed,
// -max_len, -max_total_time, -artifact_prefix; other -flags are ignored, and
// so is everything after -ignore_remaining_args=1: the target's own options) and
// reports a crash the same way: the input goes to
// <artifact_prefix>crash-<hash> and "Test unit written to ..." to stderr.
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv);
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);
// A target's own mutator, where it has one (reads_from_fuzzer), as libFuzzer would use it.
extern "C" __attribute__((weak)) std::size_t LLVMFuzzerCustomMutator(std::uint8_t* data, std::size_t size,
                                                                     std::size_t max_size, unsigned seed);

namespace {

// The input being run, for the crash handler (which may only write).
const std::vector<std::uint8_t>* g_current = nullptr;
std::uint64_t g_executed = 0;  // inputs finished, for the crash report
char g_crash_path[4096];

std::uint64_t fnv1a(const std::vector<std::uint8_t>& d) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (std::uint8_t b : d) h = (h ^ b) * 0x100000001b3ull;
  return h;
}

void prepare_crash_path(const std::string& prefix, const std::vector<std::uint8_t>& input) {
  std::snprintf(g_crash_path, sizeof g_crash_path, "%scrash-%016llx", prefix.c_str(),
                static_cast<unsigned long long>(fnv1a(input)));
}

void on_crash(int sig) {
  if (g_current != nullptr) {
    const int fd = open(g_crash_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    // "#N" as libFuzzer's status lines have it: the inputs run so far.
    char num[32];
    int len = 0;
    std::uint64_t v = g_executed + 1;
    char rev[24];
    do {
      rev[len++] = static_cast<char>('0' + v % 10);
      v /= 10;
    } while (v > 0);
    num[0] = '#';
    for (int i = 0; i < len; ++i) num[1 + i] = rev[len - 1 - i];
    num[1 + len] = ' ';
    num[2 + len] = '\n';
    ssize_t w = write(2, num, static_cast<std::size_t>(len + 3));
    (void)w;
    if (fd >= 0) {
      const ssize_t n = write(fd, g_current->data(), g_current->size());
      (void)n;
      close(fd);
      const char head[] = "Test unit written to ";
      ssize_t m = write(2, head, sizeof head - 1);
      m = write(2, g_crash_path, std::strlen(g_crash_path));
      m = write(2, "\n", 1);
      (void)m;
    }
  }
  signal(sig, SIG_DFL);
  raise(sig);
}

bool read_file(const std::string& path, std::vector<std::uint8_t>& out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  out.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return true;
}

void collect(const std::string& path, std::vector<std::string>& files) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) {
    std::fprintf(stderr, "standalone fuzz driver: cannot read '%s': %s\n", path.c_str(), std::strerror(errno));
    std::exit(2);
  }
  if (!S_ISDIR(st.st_mode)) {
    files.push_back(path);
    return;
  }
  DIR* d = opendir(path.c_str());
  if (d == nullptr) return;
  while (dirent* e = readdir(d)) {
    if (e->d_name[0] == '.') continue;
    collect(path + "/" + e->d_name, files);
  }
  closedir(d);
}

}  // namespace

int main(int argc, char** argv) {
  std::uint64_t runs = 0, seed = 1;
  std::size_t max_len = 4096;
  double max_time = 0;
  std::string prefix = "./";
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "-ignore_remaining_args=1") break;  // the rest is the target's (target_env.hpp)
    auto val = [&](const char* flag) -> const char* {
      const std::size_t n = std::strlen(flag);
      return a.compare(0, n, flag) == 0 ? a.c_str() + n : nullptr;
    };
    if (const char* v = val("-runs=")) runs = std::strtoull(v, nullptr, 10);
    else if (const char* v = val("-seed=")) seed = std::strtoull(v, nullptr, 10);
    else if (const char* v = val("-max_len=")) max_len = std::strtoull(v, nullptr, 10);
    else if (const char* v = val("-max_total_time=")) max_time = std::strtod(v, nullptr);
    else if (const char* v = val("-artifact_prefix=")) prefix = v;
    else if (a.size() > 1 && a[0] == '-') continue;  // libFuzzer flags this driver does not implement
    else collect(a, files);
  }
  std::fprintf(stderr, "INFO: standalone driver (random inputs, no coverage guidance), seed %llu\n",
               static_cast<unsigned long long>(seed));
  LLVMFuzzerInitialize(&argc, &argv);
  signal(SIGABRT, on_crash);
  signal(SIGSEGV, on_crash);
  signal(SIGBUS, on_crash);
  signal(SIGFPE, on_crash);

  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  std::uint64_t executed = 0;
  std::vector<std::vector<std::uint8_t>> corpus;
  auto run_one = [&](const std::vector<std::uint8_t>& input) {
    prepare_crash_path(prefix, input);
    g_current = &input;
    LLVMFuzzerTestOneInput(input.data(), input.size());
    g_current = nullptr;
    g_executed = ++executed;
    if ((executed & (executed - 1)) == 0 && executed >= 16) {
      const double t = elapsed();
      std::fprintf(stderr, "#%llu\tpulse  exec/s: %.0f\n", static_cast<unsigned long long>(executed),
                   t > 0 ? static_cast<double>(executed) / t : 0.0);
    }
  };
  for (const std::string& f : files) {
    std::vector<std::uint8_t> input;
    if (!read_file(f, input)) {
      std::fprintf(stderr, "standalone fuzz driver: cannot read '%s'\n", f.c_str());
      return 2;
    }
    std::fprintf(stderr, "Running: %s\n", f.c_str());
    run_one(input);
    corpus.push_back(std::move(input));
  }
  // Random inputs: half fresh bytes, half a corpus entry with a few bytes
  // changed, inserted or erased; with the target's own mutator, a corpus
  // entry mutated by it.
  std::mt19937_64 rng(seed);
  const bool timed = max_time > 0;
  for (std::uint64_t k = 0; (runs > 0 && k < runs) || (timed && runs == 0); ++k) {
    if (timed && elapsed() >= max_time) break;
    std::vector<std::uint8_t> input;
    if (!corpus.empty() && LLVMFuzzerCustomMutator != nullptr) {
      input = corpus[rng() % corpus.size()];
      const std::size_t size = input.size();
      input.resize(std::max(size, max_len));
      input.resize(LLVMFuzzerCustomMutator(input.data(), size, input.size(), static_cast<unsigned>(rng())));
    } else if (!corpus.empty() && rng() % 2 == 0) {
      input = corpus[rng() % corpus.size()];
      const unsigned edits = 1 + rng() % 4;
      for (unsigned e = 0; e < edits; ++e) {
        const unsigned op = rng() % 3;
        if (op == 0 && !input.empty()) input[rng() % input.size()] = static_cast<std::uint8_t>(rng());
        else if (op == 1 && input.size() < max_len)
          input.insert(input.begin() + static_cast<std::ptrdiff_t>(rng() % (input.size() + 1)),
                       static_cast<std::uint8_t>(rng()));
        else if (!input.empty()) input.erase(input.begin() + static_cast<std::ptrdiff_t>(rng() % input.size()));
      }
    } else {
      input.resize(rng() % (max_len + 1));
      for (auto& b : input) b = static_cast<std::uint8_t>(rng());
    }
    run_one(input);
  }
  const double secs = elapsed();
  std::fprintf(stderr, "stat::number_of_executed_units: %llu\n", static_cast<unsigned long long>(executed));
  std::fprintf(stderr, "Done %llu runs in %.0f second(s) (standalone driver, no coverage guidance)\n",
               static_cast<unsigned long long>(executed), secs);
  return 0;
}
