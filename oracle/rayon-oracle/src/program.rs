// SPDX-License-Identifier: MIT OR Apache-2.0
//! The program language of wsstress (core/include/wsstress/core/program.hpp),
//! decoded from bytes exactly as `Program::decode` over a `ByteSource` does:
//! the same choices in the same order, so a file means the same program on
//! both sides. Any change to the C++ decoder must be made here too; the
//! `program:` and node facts of the log (`wsstress oracle`) catch a drift.

/// Bytes as bounded choices; past the end every choice is 0.
struct ByteSource<'a> {
    data: &'a [u8],
    pos: usize,
}

impl ByteSource<'_> {
    fn below(&mut self, n: u64) -> u64 {
        if n <= 1 {
            return 0;
        }
        let b = self.data.get(self.pos).copied().unwrap_or(0);
        self.pos += 1;
        u64::from(b) % n
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Kind {
    Leaf,
    Throw,
    Join,
    Scope,
    ScopeFifo,
    Install,
    Broadcast,
    Spawn,
    SpawnBroadcast,
    InPlaceScope,
}

/// Program::kFirstLaterKind: kind bytes from here name the later kinds.
const FIRST_LATER_KIND: u64 = 240;

impl Kind {
    fn from(n: u64) -> Kind {
        [Kind::Leaf, Kind::Throw, Kind::Join, Kind::Scope, Kind::ScopeFifo, Kind::Install, Kind::Broadcast, Kind::Spawn]
            [n as usize]
    }
    /// Program::kind_of: below 240 the first eight kinds (byte % 8, as before
    /// the later ones existed), 240-247 SpawnBroadcast, 248-255 InPlaceScope.
    fn of_byte(b: u64) -> Kind {
        if b < FIRST_LATER_KIND {
            Kind::from(b % 8)
        } else if b < FIRST_LATER_KIND + 8 {
            Kind::SpawnBroadcast
        } else {
            Kind::InPlaceScope
        }
    }
    /// Program::to_string's names.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Leaf => "leaf",
            Kind::Throw => "throw",
            Kind::Join => "join",
            Kind::Scope => "scope",
            Kind::ScopeFifo => "scope_fifo",
            Kind::Install => "install",
            Kind::Broadcast => "broadcast",
            Kind::Spawn => "spawn",
            Kind::SpawnBroadcast => "spawn_broadcast",
            Kind::InPlaceScope => "in_place_scope",
        }
    }
}

pub struct Node {
    pub kind: Kind,
    pub value: u32, // Leaf: the value; Install: the pool
    pub work: u8,   // Leaf only
    pub kids: Vec<u16>,
}

pub struct Program {
    pub pool_threads: Vec<usize>,
    pub callers: usize,
    pub nodes: Vec<Node>,
}

const MAX_POOLS: u64 = 3;
const MAX_THREADS: u64 = 3;
const MAX_NODES: usize = 48;
const MAX_DEPTH: i32 = 6;

struct Builder<'a, 'b> {
    src: &'b mut ByteSource<'a>,
    p: Program,
    reserve: usize,
}

impl Builder<'_, '_> {
    fn build(&mut self, depth: i32) -> u16 {
        let id = self.p.nodes.len();
        self.p.nodes.push(Node { kind: Kind::Leaf, value: 0, work: 0, kids: Vec::new() });
        // Room for this node's kids, leaving one node for each later sibling
        // of its ancestors: the program never exceeds MAX_NODES.
        let room = depth > 0 && self.p.nodes.len() + 2 + self.reserve <= MAX_NODES;
        let kind = if room { Kind::of_byte(self.src.below(256)) } else { Kind::from(self.src.below(2)) };
        self.p.nodes[id].kind = kind;
        match kind {
            Kind::Leaf => {
                self.p.nodes[id].value = self.src.below(256) as u32;
                self.p.nodes[id].work = self.src.below(5) as u8;
            }
            Kind::Throw => {}
            Kind::Join => {
                self.reserve += 1;
                let a = self.build(depth - 1);
                self.reserve -= 1;
                let b = self.build(depth - 1);
                self.p.nodes[id].kids = vec![a, b];
            }
            Kind::Scope | Kind::ScopeFifo | Kind::InPlaceScope => {
                let left = MAX_NODES - self.p.nodes.len() - self.reserve;
                let n = std::cmp::min(1 + self.src.below(4) as usize, left);
                self.reserve += n - 1;
                for i in 0..n {
                    let k = self.build(depth - 1);
                    self.p.nodes[id].kids.push(k);
                    if i + 1 < n {
                        self.reserve -= 1;
                    }
                }
            }
            Kind::Install => {
                self.p.nodes[id].value = self.src.below(self.p.pool_threads.len() as u64) as u32;
                let k = self.build(depth - 1);
                self.p.nodes[id].kids = vec![k];
            }
            Kind::Broadcast | Kind::Spawn | Kind::SpawnBroadcast => {
                let k = self.build(depth - 1);
                self.p.nodes[id].kids = vec![k];
            }
        }
        id as u16
    }
}

impl Program {
    pub fn decode(data: &[u8]) -> Program {
        let mut src = ByteSource { data, pos: 0 };
        let n_pools = 1 + src.below(MAX_POOLS);
        let pool_threads = (0..n_pools).map(|_| 1 + src.below(MAX_THREADS) as usize).collect();
        let callers = 1 + src.below(2) as usize;
        let root_pool = src.below(n_pools) as u32;
        let p = Program {
            pool_threads,
            callers,
            nodes: vec![Node { kind: Kind::Install, value: root_pool, work: 0, kids: Vec::new() }],
        };
        let mut b = Builder { src: &mut src, p, reserve: 0 };
        let body = b.build(MAX_DEPTH);
        b.p.nodes[0].kids.push(body);
        b.p
    }
}
