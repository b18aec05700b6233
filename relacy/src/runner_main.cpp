// SPDX-License-Identifier: MIT OR Apache-2.0
// wsstress-relacy: the Relacy models in a program of their own, run by
// wsstress (client.cpp) so that the tool builds without compiling a model.
//   wsstress-relacy list                                   the models, as JSON
//   wsstress-relacy run MODEL MUTANT SEARCH BOUND EXECUTIONS   one search's raw result
// (RunRequest, protocol.cpp, spells and reads the second form for both sides).
// Exit 0 with the answer on stdout, 2 on bad arguments. Not meant to be run by
// hand: `wsstress relacy` is the command.
#include <cstdio>
#include <string>
#include <vector>

#include "wsstress/relacy/models.hpp"

namespace rel = wsstress::relacy;

namespace {

int usage(const std::string& why) {
  std::fprintf(stderr,
               "wsstress-relacy: %s (usage: wsstress-relacy list | run MODEL MUTANT SEARCH BOUND EXECUTIONS; "
               "run it through `wsstress relacy`)\n",
               why.c_str());
  return 2;
}

int write_all(const std::string& text) {
  return std::fwrite(text.data(), 1, text.size(), stdout) == text.size() && std::fflush(stdout) == 0 ? 0 : 3;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string cmd = argc > 1 ? argv[1] : "";
  if (cmd == "list" && argc == 2) return write_all(rel::encode(rel::model_infos()));
  const auto request = rel::RunRequest::from_args(std::vector<std::string>(argv + 1, argv + argc));
  if (!request) return usage(request.error());
  return write_all(rel::encode(rel::run_entry_here(request->model, request->mutant, request->search)));
}
