// wsstress-relacy: the Relacy models in a program of their own, run by
// wsstress (client.cpp) so that the tool builds without compiling a model.
//   wsstress-relacy list                                   the models, as JSON
//   wsstress-relacy run MODEL MUTANT SEARCH BOUND EXECUTIONS   one search's raw result
// Exit 0 with the answer on stdout, 2 on bad arguments. Not meant to be run by
// hand: `wsstress relacy` is the command.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "wsstress/relacy/models.hpp"

namespace rel = wsstress::relacy;

namespace {

int usage(const char* why) {
  std::fprintf(stderr, "wsstress-relacy: %s (usage: wsstress-relacy list | run MODEL MUTANT SEARCH BOUND EXECUTIONS; "
                       "run it through `wsstress relacy`)\n", why);
  return 2;
}

bool whole(const char* text, std::uint64_t& out) {
  char* end = nullptr;
  out = std::strtoull(text, &end, 10);
  return *text != '\0' && *end == '\0';
}

int write_all(const std::string& text) {
  return std::fwrite(text.data(), 1, text.size(), stdout) == text.size() && std::fflush(stdout) == 0 ? 0 : 3;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string cmd = argc > 1 ? argv[1] : "";
  if (cmd == "list" && argc == 2) return write_all(rel::encode(rel::model_infos()));
  if (cmd != "run" || argc != 7) return usage("expected 'list' or 'run' with five arguments");
  rel::SearchSpec search;
  const std::optional<rel::Search> kind = rel::parse_search(argv[4]);
  std::uint64_t bound = 0, executions = 0;
  if (!kind) return usage("unknown search");
  if (!whole(argv[5], bound) || !whole(argv[6], executions)) return usage("BOUND and EXECUTIONS are whole numbers");
  search.kind = *kind;
  search.context_bound = static_cast<unsigned>(bound);
  search.iterations = executions;
  return write_all(rel::encode(rel::run_entry_here(argv[2], argv[3], search)));
}
