// SPDX-License-Identifier: MIT OR Apache-2.0
// parser_fuzzer: the tool's own parsers on any bytes, so a fuzz tool that asks
// to be trusted with findings cannot itself be crashed by its inputs: a
// reproducer file (sim::read_repro, what `wsstress replay` reads) and a
// program (Program::decode with its sequential interpreter and renderer, what
// --input and the program fuzzer read). Oracles: no crash, leak or sanitizer
// report; a refused reproducer says why; a reproducer that parses writes back
// to text that parses and writes back the same (the writer and the reader
// agree).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "wsstress/core/program.hpp"
#include "wsstress/sim/engine.hpp"

namespace {

void check_reproducer(const std::string& text) {
  using namespace wsstress;
  const auto repro = sim::read_repro(text);
  if (!repro) {
    if (repro.error().empty()) {
      std::fprintf(stderr, "parser_fuzzer: read_repro refused an input without saying why\n");
      std::abort();
    }
    return;
  }
  const std::string written = sim::write_repro(*repro);
  const auto again = sim::read_repro(written);
  if (!again || sim::write_repro(*again) != written) {
    std::fprintf(stderr, "parser_fuzzer: a parsed reproducer does not survive write and read: %s\n--\n%s--\n",
                 again ? "written differently" : again.error().c_str(), written.c_str());
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) { return 0; }

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  check_reproducer(std::string(reinterpret_cast<const char*>(data), size));
  wsstress::core::ByteSource src(data, size);
  const wsstress::core::Program p = wsstress::core::Program::decode(src);
  (void)p.expected();
  (void)p.render();
  return 0;
}
