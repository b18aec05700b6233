// SPDX-License-Identifier: MIT OR Apache-2.0
// The running executable's GNU build id (the linker's NT_GNU_BUILD_ID note),
// which a reproducer records: a replay that does not reproduce can then say
// whether another build of the pool wrote it.
#include <elf.h>
#include <link.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "wsstress/sim/engine.hpp"

namespace wsstress::sim {

namespace {

// The build id in one PT_NOTE segment, or "".
std::string note_build_id(const char* p, std::size_t size) {
  std::size_t off = 0;
  while (off + sizeof(ElfW(Nhdr)) <= size) {
    ElfW(Nhdr) n;
    std::memcpy(&n, p + off, sizeof n);
    const std::size_t name_at = off + sizeof n;
    const std::size_t desc_at = name_at + ((n.n_namesz + 3) & ~3u);
    off = desc_at + ((n.n_descsz + 3) & ~3u);
    if (off > size) break;
    if (n.n_type == NT_GNU_BUILD_ID && n.n_namesz == 4 && std::memcmp(p + name_at, "GNU", 4) == 0) {
      std::string hex;
      for (std::size_t i = 0; i < n.n_descsz; ++i) {
        char b[3];
        std::snprintf(b, sizeof b, "%02x", static_cast<unsigned char>(p[desc_at + i]));
        hex += b;
      }
      return hex;
    }
  }
  return "";
}

int find_in_main_program(dl_phdr_info* info, std::size_t, void* out) {
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_NOTE) continue;
    std::string id = note_build_id(reinterpret_cast<const char*>(info->dlpi_addr + ph.p_vaddr), ph.p_memsz);
    if (!id.empty()) {
      *static_cast<std::string*>(out) = id;
      break;
    }
  }
  return 1;  // the first object is the main program: stop there
}

}  // namespace

const std::string& build_id() {
  static const std::string id = [] {
    std::string found;
    dl_iterate_phdr(&find_in_main_program, &found);
    return found.empty() ? std::string("unknown") : found;
  }();
  return id;
}

}  // namespace wsstress::sim
