// SPDX-License-Identifier: MIT OR Apache-2.0
//! rayon-oracle: runs programs of wsstress's program language on real
//! rayon-core 1.10.1 pools and prints each run's canonical log, one fact a
//! line (`FACT xCOUNT`, sorted), for `wsstress oracle` and the differential
//! fuzz target (fuzz/oracle_fuzzer.cpp), which run the same program on the
//! port and compare. Only facts a correct pool makes deterministic are
//! logged: the callers' values and panics, every leaf's run count, the
//! broadcast and spawn_broadcast indices, each install's thread count, index
//! and name, the order a scope's jobs start in on a one-thread pool, whether
//! a scope returned before its jobs finished, detached spawns and their
//! panics, what each pool's panic handler got, and the workers started and
//! exited. The C++ side spells the same facts
//! (core/include/wsstress/core/program_log.hpp); the choice among several
//! panics that may propagate is left to the comparison, which knows the program.
//!
//! Usage: rayon-oracle FILE [HOOK] (FILE `-`: stdin): one program, its log,
//! exit 0. rayon-oracle --serve [HOOK]: many programs, kept alive between
//! them (the fuzz target's persistent child): each read from stdin as a
//! 4-byte little-endian length and that many bytes, each answered by its log
//! and an empty line; exit 0 at the end of stdin. Exit 2 on a bad command
//! line or an unreadable input. Test hooks (HOOK), to check the checker:
//! `--hang` blocks forever before running (the caller's watchdog must fire);
//! `--fifo-as-lifo` runs every scope_fifo as a scope, `--broadcast-skips-one`
//! leaves out a broadcast's last index (wrong pools the comparison must catch).
mod program;

use program::{Kind, Program};
use rayon_core::{ThreadPool, ThreadPoolBuilder};
use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::panic::{catch_unwind, panic_any, resume_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering::SeqCst};
use std::sync::{Arc, Mutex};

/// The `--fifo-as-lifo` and `--broadcast-skips-one` test hooks.
static FIFO_AS_LIFO: AtomicBool = AtomicBool::new(false);
static BROADCAST_SKIPS_ONE: AtomicBool = AtomicBool::new(false);
const HOOKS: [&str; 3] = ["--hang", "--fifo-as-lifo", "--broadcast-skips-one"];

/// What a Throw node panics with: the port's `Thrown{id}`.
struct Thrown(u32);

fn thrown_id(payload: &(dyn std::any::Any + Send)) -> String {
    match payload.downcast_ref::<Thrown>() {
        Some(t) => format!("#{}", t.0),
        None => "(not a Thrown)".to_string(),
    }
}

#[derive(Default)]
struct Log(Mutex<BTreeMap<String, u64>>);

impl Log {
    fn add(&self, fact: String) {
        *self.0.lock().unwrap().entry(fact).or_insert(0) += 1;
    }
}

/// One run of a program: its pools and what it saw.
struct Run {
    prog: Program,
    pools: Vec<ThreadPool>,
    log: Arc<Log>,
    runs: Vec<AtomicU64>,
    spawned: AtomicU64,
    spawns_done: AtomicU64,
    spawn_panics: AtomicU64,
}

/// The programs' workers are named pP-wI (pool P, index I), on both sides.
fn worker_name(pool: usize, index: usize) -> String {
    format!("p{pool}-w{index}")
}

fn leaf_work(work: u8) {
    if work == 4 {
        std::thread::sleep(std::time::Duration::from_micros(50));
        return;
    }
    let rounds = [0u64, 10, 100, 1000][usize::from(work % 4)];
    // A volatile sink, as the port's: the loop is not optimised away
    // (std::hint::black_box would need Rust 1.66; Debian 12 has 1.63).
    let mut sink = 0u64;
    for i in 0..rounds {
        // SAFETY: a plain local, read and written in place.
        unsafe {
            let v = std::ptr::read_volatile(&sink);
            std::ptr::write_volatile(&mut sink, v.wrapping_mul(31).wrapping_add(i));
        }
    }
}

/// The parallel interpreter: ProgramScenarios::exec over rayon-core.
/// `pool`: the pool the node runs in (the nearest install's).
fn exec(r: &Arc<Run>, id: u16, pool: usize) -> u64 {
    let n = &r.prog.nodes[usize::from(id)];
    let kid = |i: usize| n.kids[i];
    match n.kind {
        Kind::Leaf => {
            r.runs[usize::from(id)].fetch_add(1, SeqCst);
            leaf_work(n.work);
            u64::from(n.value)
        }
        Kind::Throw => {
            r.runs[usize::from(id)].fetch_add(1, SeqCst);
            panic_any(Thrown(u32::from(id)))
        }
        Kind::Join => {
            let (a, b) = rayon_core::join(|| exec(r, kid(0), pool), || exec(r, kid(1), pool));
            a + b
        }
        Kind::Scope | Kind::ScopeFifo | Kind::InPlaceScope => scope_node(r, id, pool),
        Kind::Install => {
            let p = n.value as usize;
            r.pools[p].install(|| {
                let threads = rayon_core::current_num_threads();
                let index = match rayon_core::current_thread_index() {
                    Some(i) if i < threads => format!("below {threads}"),
                    Some(i) => format!("{i}"),
                    None => "none".to_string(),
                };
                let name = std::thread::current().name().unwrap_or("").to_string();
                let named = match rayon_core::current_thread_index() {
                    Some(i) if name == worker_name(p, i) => "named for it".to_string(),
                    _ => format!("named '{name}'"),
                };
                r.log.add(format!("install #{id}: p{p}, {threads} threads, index {index}, {named}"));
                exec(r, kid(0), p)
            })
        }
        Kind::Broadcast => {
            let values = rayon_core::broadcast(|ctx| {
                if BROADCAST_SKIPS_ONE.load(SeqCst) && ctx.index() + 1 == ctx.num_threads() {
                    return 0; // the wrong pool of the test hook
                }
                r.log.add(format!("broadcast #{id}: index {} of {}", ctx.index(), ctx.num_threads()));
                exec(r, kid(0), pool)
            });
            values.iter().sum()
        }
        Kind::Spawn => {
            r.spawned.fetch_add(1, SeqCst);
            let (r2, k) = (Arc::clone(r), kid(0));
            rayon_core::spawn(move || detached(&r2, id, k, pool, "spawn"));
            0
        }
        Kind::SpawnBroadcast => {
            // A copy per worker of the current pool, each a detached job.
            r.spawned.fetch_add(rayon_core::current_num_threads() as u64, SeqCst);
            let (r2, k) = (Arc::clone(r), kid(0));
            rayon_core::spawn_broadcast(move |ctx| {
                r2.log.add(format!("spawn_broadcast #{id}: index {} of {}", ctx.index(), ctx.num_threads()));
                detached(&r2, id, k, pool, "spawn_broadcast")
            });
            0
        }
    }
}

/// A detached job's body (a spawn, or a copy of a spawn_broadcast: `kind`):
/// kid `k` run, counted as done however it ends, its panic logged and
/// passed on to the pool's panic handler.
fn detached(r: &Arc<Run>, id: u16, k: u16, pool: usize, kind: &str) {
    match catch_unwind(AssertUnwindSafe(|| exec(r, k, pool))) {
        Ok(_) => {
            r.log.add(format!("{kind} #{id}: returned"));
            r.spawns_done.fetch_add(1, SeqCst);
        }
        Err(payload) => {
            r.log.add(format!("{kind} #{id}: panic {}", thrown_id(&*payload)));
            r.spawn_panics.fetch_add(1, SeqCst);
            r.spawns_done.fetch_add(1, SeqCst);
            resume_unwind(payload) // to the pool's panic handler
        }
    }
}

/// Counts a scope job as finished however it ends.
struct Finished<'a>(&'a AtomicUsize);
impl Drop for Finished<'_> {
    fn drop(&mut self) {
        self.0.fetch_add(1, SeqCst);
    }
}

/// A scope (or scope_fifo) spawning each kid: the sum of the kids that
/// returned, or the scope's panic. On a one-thread pool the order the jobs
/// start in is deterministic (LIFO for spawn, FIFO for spawn_fifo): logged.
fn scope_node(r: &Arc<Run>, id: u16, pool: usize) -> u64 {
    let n = &r.prog.nodes[usize::from(id)];
    let sum = AtomicU64::new(0);
    let finished = AtomicUsize::new(0);
    let order = Mutex::new(Vec::new());
    let one_thread = r.prog.pool_threads[pool] == 1;
    let job = |i: usize, k: u16| {
        if one_thread {
            order.lock().unwrap().push(i.to_string());
        }
        let _f = Finished(&finished);
        sum.fetch_add(exec(r, k, pool), SeqCst);
    };
    let job = &job;
    let result = catch_unwind(AssertUnwindSafe(|| {
        if n.kind == Kind::ScopeFifo && !FIFO_AS_LIFO.load(SeqCst) {
            rayon_core::scope_fifo(|s| {
                for (i, &k) in n.kids.iter().enumerate() {
                    s.spawn_fifo(move |_| job(i, k));
                }
            })
        } else if n.kind == Kind::InPlaceScope {
            rayon_core::in_place_scope(|s| {
                for (i, &k) in n.kids.iter().enumerate() {
                    s.spawn(move |_| job(i, k));
                }
            })
        } else {
            rayon_core::scope(|s| {
                for (i, &k) in n.kids.iter().enumerate() {
                    s.spawn(move |_| job(i, k));
                }
            })
        }
    }));
    let done = finished.load(SeqCst) == n.kids.len();
    r.log.add(format!("{} #{id}: {}", n.kind.name(), if done { "returned after its jobs" } else { "returned before a job finished" }));
    if one_thread {
        r.log.add(format!("{} #{id}: jobs started in order {}", n.kind.name(), order.lock().unwrap().join(",")));
    }
    match result {
        Ok(()) => sum.load(SeqCst),
        Err(payload) => resume_unwind(payload),
    }
}

/// Counts of a pool's start and exit handlers.
#[derive(Default)]
struct Workers {
    started: AtomicUsize,
    exited: AtomicUsize,
}

fn build_pools(prog: &Program, log: &Arc<Log>, workers: &[Arc<Workers>]) -> Vec<ThreadPool> {
    let mut pools = Vec::new();
    for (i, &threads) in prog.pool_threads.iter().enumerate() {
        let (log, w1, w2) = (Arc::clone(log), Arc::clone(&workers[i]), Arc::clone(&workers[i]));
        let pool = ThreadPoolBuilder::new()
            .num_threads(threads)
            .thread_name(move |w| worker_name(i, w))
            .panic_handler(move |payload| log.add(format!("handler p{i}: panic {}", thrown_id(&*payload))))
            .start_handler(move |_| {
                w1.started.fetch_add(1, SeqCst);
            })
            .exit_handler(move |_| {
                w2.exited.fetch_add(1, SeqCst);
            })
            .build()
            .unwrap_or_else(|e| {
                eprintln!("rayon-oracle: could not build pool p{i}: {e}");
                std::process::exit(3)
            });
        pools.push(pool);
    }
    pools
}

fn wait_until(cond: impl Fn() -> bool) {
    while !cond() {
        std::thread::sleep(std::time::Duration::from_micros(50));
    }
}

/// Runs the program: its callers, then its detached spawns to the end, then
/// the pools' drop and their workers' exit. Returns the log.
fn run(prog: Program) -> BTreeMap<String, u64> {
    let log = Arc::new(Log::default());
    let workers: Vec<Arc<Workers>> = prog.pool_threads.iter().map(|_| Arc::default()).collect();
    let pools = build_pools(&prog, &log, &workers);
    log.add(format!(
        "program: pools {}, {} callers, {} nodes",
        prog.pool_threads.iter().map(|t| t.to_string()).collect::<Vec<_>>().join(","),
        prog.callers,
        prog.nodes.len()
    ));
    let runs = prog.nodes.iter().map(|_| AtomicU64::new(0)).collect();
    let callers = prog.callers;
    let r = Arc::new(Run {
        prog,
        pools,
        log: Arc::clone(&log),
        runs,
        spawned: AtomicU64::new(0),
        spawns_done: AtomicU64::new(0),
        spawn_panics: AtomicU64::new(0),
    });
    let threads: Vec<_> = (0..callers)
        .map(|_| {
            let r = Arc::clone(&r);
            std::thread::spawn(move || match catch_unwind(AssertUnwindSafe(|| exec(&r, 0, 0))) {
                Ok(v) => r.log.add(format!("caller: value {v}")),
                Err(payload) => r.log.add(format!("caller: panic {}", thrown_id(&*payload))),
            })
        })
        .collect();
    for t in threads {
        t.join().expect("a caller thread died");
    }
    let handled = || log.0.lock().unwrap().iter().filter(|(k, _)| k.starts_with("handler ")).map(|(_, v)| *v).sum::<u64>();
    wait_until(|| r.spawns_done.load(SeqCst) == r.spawned.load(SeqCst) && handled() == r.spawn_panics.load(SeqCst));
    for (i, node) in r.prog.nodes.iter().enumerate() {
        if matches!(node.kind, Kind::Leaf | Kind::Throw) {
            log.0.lock().unwrap().insert(format!("ran #{i} ({})", node.kind.name()), r.runs[i].load(SeqCst));
        }
    }
    // Every spawned job's closure (and its Arc) is gone soon after it ends.
    wait_until(|| Arc::strong_count(&r) == 1);
    let run = Arc::try_unwrap(r).unwrap_or_else(|_| unreachable!());
    let threads: Vec<usize> = run.prog.pool_threads.clone();
    drop(run.pools); // in order p0, p1, ... as the port's pools.clear()
    for (i, w) in workers.iter().enumerate() {
        wait_until(|| w.exited.load(SeqCst) == threads[i]);
        log.add(format!("pool p{i}: workers started {}, exited {}", w.started.load(SeqCst), w.exited.load(SeqCst)));
    }
    let facts = log.0.lock().unwrap().clone();
    facts
}

/// A log's text: `FACT xCOUNT` lines, in the map's (sorted) order.
fn log_text(facts: BTreeMap<String, u64>) -> String {
    let mut out = String::new();
    for (fact, count) in facts {
        out += &format!("{fact} x{count}\n");
    }
    out
}

fn fail(what: String) -> ! {
    eprintln!("rayon-oracle: {what}");
    std::process::exit(2)
}

/// --serve: length-prefixed programs from stdin, each answered by its log
/// and an empty line, flushed, until stdin ends.
fn serve() {
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let stdout = std::io::stdout();
    loop {
        let mut len = [0u8; 4];
        if let Err(e) = input.read_exact(&mut len) {
            if e.kind() == std::io::ErrorKind::UnexpectedEof {
                return;
            }
            fail(format!("cannot read stdin: {e}"));
        }
        let mut bytes = vec![0u8; u32::from_le_bytes(len) as usize];
        if let Err(e) = input.read_exact(&mut bytes) {
            fail(format!("cannot read a program of {} bytes from stdin: {e}", bytes.len()));
        }
        let out = log_text(run(Program::decode(&bytes))) + "\n";
        let mut o = stdout.lock();
        if o.write_all(out.as_bytes()).and_then(|_| o.flush()).is_err() {
            return; // the reader is gone
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (path, hook) = match args.as_slice() {
        [p] => (p.clone(), ""),
        [p, h] if HOOKS.contains(&h.as_str()) => (p.clone(), h.as_str()),
        _ => fail("usage: rayon-oracle FILE|-|--serve [--hang | --fifo-as-lifo | --broadcast-skips-one]".to_string()),
    };
    FIFO_AS_LIFO.store(hook == "--fifo-as-lifo", SeqCst);
    BROADCAST_SKIPS_ONE.store(hook == "--broadcast-skips-one", SeqCst);
    if hook == "--hang" {
        loop {
            std::thread::park();
        }
    }
    // Panics are the program's own (Thrown), caught and logged: not printed.
    std::panic::set_hook(Box::new(|_| {}));
    if path == "--serve" {
        return serve();
    }
    let read = if path == "-" {
        let mut b = Vec::new();
        std::io::stdin().read_to_end(&mut b).map(|_| b)
    } else {
        std::fs::read(&path)
    };
    let bytes = read.unwrap_or_else(|e| fail(format!("cannot read '{path}': {e}")));
    print!("{}", log_text(run(Program::decode(&bytes))));
}
