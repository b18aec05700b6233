//! rayon-oracle: runs one program file of wsstress's program language on
//! real rayon-core 1.10.1 pools and prints the run's canonical log, one fact
//! a line (`FACT xCOUNT`, sorted), for `wsstress oracle`, which runs the same
//! file on the port and compares. Only facts a correct pool makes
//! deterministic are logged: the callers' values and panics, every leaf's run
//! count, the broadcast indices, each install's thread count, index and name, the
//! order a scope's jobs start in on a one-thread pool, whether a scope
//! returned before its jobs finished, detached spawns and their panics, what
//! each pool's panic handler got, and the workers started and exited. The
//! C++ side spells the same facts (stress/include/wsstress/stress/program_log.hpp);
//! the choice among several panics that may propagate is left to the
//! comparison, which knows the program.
//!
//! Usage: rayon-oracle FILE [--hang | --fifo-as-lifo] (FILE `-`: stdin).
//! Exit 0 with the log on stdout; 2 on a bad command line or an unreadable
//! file. Test hooks, to check the checker: `--hang` blocks forever before
//! running (the caller's watchdog must fire); `--fifo-as-lifo` runs every
//! scope_fifo as a scope (a wrong pool the comparison must catch).
mod program;

use program::{Kind, Program};
use rayon_core::{ThreadPool, ThreadPoolBuilder};
use std::collections::BTreeMap;
use std::panic::{catch_unwind, panic_any, resume_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering::SeqCst};
use std::sync::{Arc, Mutex};

/// The `--fifo-as-lifo` test hook.
static FIFO_AS_LIFO: AtomicBool = AtomicBool::new(false);

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
        Kind::Scope | Kind::ScopeFifo => scope_node(r, id, pool),
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
                r.log.add(format!("broadcast #{id}: index {} of {}", ctx.index(), ctx.num_threads()));
                exec(r, kid(0), pool)
            });
            values.iter().sum()
        }
        Kind::Spawn => {
            r.spawned.fetch_add(1, SeqCst);
            let r2 = Arc::clone(r);
            let k = kid(0);
            rayon_core::spawn(move || {
                let result = catch_unwind(AssertUnwindSafe(|| exec(&r2, k, pool)));
                match result {
                    Ok(_) => {
                        r2.log.add(format!("spawn #{id}: returned"));
                        r2.spawns_done.fetch_add(1, SeqCst);
                    }
                    Err(payload) => {
                        r2.log.add(format!("spawn #{id}: panic {}", thrown_id(&*payload)));
                        r2.spawn_panics.fetch_add(1, SeqCst);
                        r2.spawns_done.fetch_add(1, SeqCst);
                        resume_unwind(payload) // to the pool's panic handler
                    }
                }
            });
            0
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

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (path, hook) = match args.as_slice() {
        [p] => (p.clone(), ""),
        [p, h] if h == "--hang" || h == "--fifo-as-lifo" => (p.clone(), h.as_str()),
        _ => {
            eprintln!("rayon-oracle: usage: rayon-oracle FILE|- [--hang | --fifo-as-lifo]");
            std::process::exit(2)
        }
    };
    let read = if path == "-" {
        let mut b = Vec::new();
        std::io::Read::read_to_end(&mut std::io::stdin(), &mut b).map(|_| b)
    } else {
        std::fs::read(&path)
    };
    let bytes = read.unwrap_or_else(|e| {
        eprintln!("rayon-oracle: cannot read '{path}': {e}");
        std::process::exit(2)
    });
    FIFO_AS_LIFO.store(hook == "--fifo-as-lifo", SeqCst);
    if hook == "--hang" {
        loop {
            std::thread::park();
        }
    }
    // Panics are the program's own (Thrown), caught and logged: not printed.
    std::panic::set_hook(Box::new(|_| {}));
    let facts = run(Program::decode(&bytes));
    let mut out = String::new();
    for (fact, count) in facts {
        out += &format!("{fact} x{count}\n");
    }
    print!("{out}");
}
