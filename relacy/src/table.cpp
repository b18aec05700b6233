// The runner's side of the models (wsstress_relacy): the table of every
// (model, mutant) instantiation, each model's claim and configuration, and a
// search run in this process. wsstress-relacy (runner_main.cpp) serves them to
// the client (client.cpp), which wsstress links instead of the models.
#include <string>
#include <vector>

#include "wsstress/relacy/models.hpp"

namespace wsstress::relacy {

std::vector<ModelEntry> inject_entries();
std::vector<ModelEntry> latch_entries();
std::vector<ModelEntry> cross_entries();
std::vector<ModelEntry> cross_scope_entries();
std::vector<ModelEntry> broadcast_entries();
std::vector<ModelEntry> terminate_entries();
std::vector<ModelEntry> deque_entries();
std::vector<ModelEntry> handshake_entries();
std::vector<ModelEntry> protocol_entries();

const std::vector<ModelEntry>& model_table() {
  static const std::vector<ModelEntry> table = [] {
    std::vector<ModelEntry> t;
    for (auto f : {inject_entries, latch_entries, cross_entries, cross_scope_entries, broadcast_entries, terminate_entries,
                   deque_entries, handshake_entries, protocol_entries}) {
      for (const ModelEntry& e : f()) t.push_back(e);
    }
    return t;
  }();
  return table;
}

const std::vector<ModelInfo>& model_infos() {
  static const std::vector<ModelInfo> list = [] {
    // The CI searches are sized from measurements on 2 cores (README): the
    // registry-level models are too big for a context-bound search to finish
    // (bound 0 of latch or broadcast runs past 150 s), so they run a random
    // search of 10^5 executions, the second line; the deque and the handshake
    // models run the exhaustive context-bound search at the largest bound
    // that finishes in seconds (the README's table has the next bound's time).
    std::vector<ModelInfo> v = {
        {"inject",
         "outside installs race the worker's idle rounds and sleep gates: every install returns and the worker exits "
         "after the pool is dropped",
         "1 worker; 2 outside threads (one installs twice in a row); 1 idle round; 1-bit JEC",
         {}, {Search::Random, 0, 100000, 600}},
        {"latch",
         "join(a, b) inside an install on two workers, b slow enough for the joining worker to reach its sleep "
         "gates while the other steals it: the join returns both results",
         "2 workers; 1 outside thread; 1 idle round; 1-bit JEC", {}, {Search::Random, 0, 100000, 600}},
        {"cross",
         "pool A calls into pool B, which calls back into A (one worker each), then both are dropped, A first: "
         "the chain returns, both pools' workers exit, nothing touches A after it is freed",
         "2 pools x 1 worker; 1 outside thread; 1 idle round; 1-bit JEC", {}, {Search::Random, 0, 100000, 600}},
        {"cross_scope",
         "a job spawned into pool A opens a scope over pool B whose one job runs on B's worker, and A is dropped "
         "at once: the scope returns with its job run, both workers exit, nothing touches A after it is freed",
         "2 pools x 1 worker; 1 outside thread; 1 idle round; 1-bit JEC", {}, {Search::Random, 0, 100000, 600}},
        {"broadcast",
         "an outside broadcast into a two-worker pool whose workers are going to sleep: one result per worker, in "
         "index order, and both exit after the drop",
         "2 workers; 1 outside thread; 1 idle round; 1-bit JEC", {}, {Search::Random, 0, 100000, 600}},
        {"terminate",
         "a pool dropped right after a job, while its worker heads for sleep: the worker wakes and exits",
         "1 worker; 1 outside thread; 1 idle round; 1-bit JEC", {}, {Search::Random, 0, 100000, 600}},
        {"deque",
         "the owner pushes two jobs and pops until empty while a thief steals twice: every job taken exactly once",
         "the Chase-Lev deque alone; owner and one thief", {}, {Search::Bound, 3, 0, 600}},
        {"handshake_latch",
         "below the registry: worker 0 idles on its latch until worker 1, having written the result, sets it: worker "
         "0 returns and reads the result",
         "Sleep + queues of 2 workers; 1 idle round; 1-bit JEC", {}, {Search::Bound, 3, 0, 600}},
        {"handshake_internal",
         "below the registry: worker 1 pushes a job on its own deque and waits for it while worker 0 idles (it may "
         "steal the job or sleep through the push): the job runs exactly once and both return",
         "Sleep + queues of 2 workers; 1 idle round; 1-bit JEC", {}, {Search::Bound, 1, 0, 600}},
        {"handshake_inject",
         "below the registry: an outside thread injects a job for the one worker, which idles on its way to sleep: "
         "the worker runs the job and returns",
         "Sleep + queues of 1 worker; 1 idle round; 1-bit JEC, started active; Injector lap 4", {}, {Search::Bound, 2, 0, 600}},
        {"handshake_inject_rollover",
         "below the registry: an outside thread injects a job for worker 0 while worker 1's sleepy announce can roll "
         "the JEC back: worker 0 runs the job and returns",
         "Sleep + queues of 2 workers; 1 idle round; 1-bit JEC; Injector lap 4", {}, {Search::Bound, 1, 0, 600}},
        {"handshake_broadcast",
         "below the registry: an outside broadcast into a worker on its way to sleep: the worker runs its job and "
         "returns",
         "Sleep + queues of 1 worker; 1 idle round; 1-bit JEC", {}, {Search::Bound, 3, 0, 600}},
        {"handshake_terminate",
         "below the registry: the last terminate count dropped while the worker idles on its terminate latch: the "
         "worker returns",
         "Sleep + queues of 1 worker; 1 idle round; 1-bit JEC", {}, {Search::Bound, 4, 0, 600}},
        {"lock_latch",
         "in_worker_cold's thread-local LockLatch serving two cold calls in a row: each wait_and_reset returns only "
         "after that call's set, and the caller reads that call's result",
         "the LockLatch alone; the caller and one worker", {}, {Search::Full, 0, 0, 600}},
        {"count_lock_latch",
         "a scope opened outside the pool (CountLockLatch): two spawns counted up, two jobs on other threads count "
         "down; the owner's wait returns after both and reads both results",
         "the CountLockLatch alone; the owner and two job threads", {}, {Search::Bound, 5, 0, 600}},
        {"arc_job",
         "a job shared by two JobRefs (ArcJob over RefCount, as spawn_broadcast makes one), the creator dropping its "
         "reference while two threads run one JobRef each: both runs happen and the job is freed exactly once, after "
         "both",
         "the ArcJob alone; the creator and two runners", {}, {Search::Bound, 4, 0, 600}},
        {"scope_count",
         "a scope opened on a worker (CountLatch, set_and_tickle_one): two spawned jobs on the owner's deque, run "
         "by the owner in its idle loop or stolen by the other worker; the owner returns only after both ran, "
         "each exactly once, and reads both outputs; both workers return",
         "Sleep + queues of 2 workers; 1 idle round; 1-bit JEC", {}, {Search::Bound, 1, 0, 600}},
    };
    for (ModelInfo& m : v) {
      for (const ModelEntry& e : model_table()) {
        if (m.name == e.model && std::string(e.mutant) != "none") m.targets.push_back({e.mutant, e.expect_fail, e.note});
      }
    }
    return v;
  }();
  return list;
}

static const ModelEntry* find_entry(const std::string& model, const std::string& mutant) {
  for (const ModelEntry& e : model_table()) {
    if (model == e.model && mutant == e.mutant) return &e;
  }
  return nullptr;
}

RawResult run_entry_here(const std::string& model, const std::string& mutant, const SearchSpec& search) {
  const ModelEntry* e = find_entry(model, mutant);
  if (e == nullptr) return RawResult{false, "no such model", 0, ""};
  return e->run(search);
}

}  // namespace wsstress::relacy
