//! What the simulator executes: each rank's program of operations, from a
//! [`Schedule`] or the arrival-aware broadcast's rounds, and what a
//! reduction combines.

use crate::collective::Combines;
use crate::data::{Algorithm, Collective};
use crate::schedule::{Op, Schedule, Span};

/// Rank programs to execute: a [`Schedule`], or in tests a hand-made one.
pub trait Programs {
    fn procs(&self) -> u32;
    fn root(&self) -> u32;
    /// The bytes of the buffer, in which every rank must end with its
    /// part ([`Programs::needs_at_end`]).
    fn msg_bytes(&self) -> u64;
    /// Hands `hold` what `rank` holds before anything is sent, where data
    /// only moves: by default the root the whole buffer (a broadcast).
    fn holds_at_start(&self, rank: u32, hold: &mut dyn FnMut(Span)) {
        if rank == self.root() {
            hold(Span {
                start: 0,
                end: self.msg_bytes(),
            });
        }
    }
    /// What `rank` must hold at the end, where data only moves: by default
    /// the whole buffer.
    fn needs_at_end(&self, _rank: u32) -> Span {
        Span {
            start: 0,
            end: self.msg_bytes(),
        }
    }
    /// Hands `each` the pieces of the buffer a message of `bytes` carries:
    /// by default the span, its part past the buffer's end continuing from
    /// byte 0 (an allgather's Bruck, see [`Schedule::pieces`]).
    fn pieces(&self, bytes: Span, each: &mut dyn FnMut(Span)) {
        let [first, wrapped] = bytes.pieces(self.msg_bytes());
        each(first);
        if !wrapped.is_empty() {
            each(wrapped)
        }
    }
    /// Appends `rank`'s operations to `ops`.
    fn ops_into(&self, rank: u32, ops: &mut Vec<Op>);
    /// `Some` for a reduction (every rank starts with its contribution, the
    /// root must end with all of them), `None` for a broadcast.
    fn reduction(&self) -> Option<Reduction> {
        None
    }
    /// Whether it is a barrier: every rank starts, and must end having
    /// heard, through a chain of messages, from every rank.
    fn synchronizes(&self) -> bool {
        false
    }
}

/// How a reduction must combine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reduction {
    /// Every combination keeps rank order (what a non-commutative operation
    /// needs).
    pub ordered: bool,
    /// Where the result must end. At every rank (allreduce) or its block
    /// at each (reduce-scatter): a send copies what it passes on, a plain
    /// receive overwrites, and bytes outside a rank's block may hold
    /// anything at the end. At the root (reduce): a send moves the partial
    /// result, a plain receive fills empty bytes, and only the root ends
    /// holding anything.
    pub result: Combines,
}

impl Reduction {
    /// Whether a send keeps a copy of what it sends (and a plain receive
    /// overwrites).
    pub(super) fn keeps(&self) -> bool {
        self.result != Combines::AtRoot
    }
}

impl Programs for Schedule {
    fn procs(&self) -> u32 {
        self.spec.procs
    }
    fn root(&self) -> u32 {
        self.spec.root
    }
    fn msg_bytes(&self) -> u64 {
        self.buffer_bytes()
    }
    fn holds_at_start(&self, rank: u32, hold: &mut dyn FnMut(Span)) {
        Schedule::holds_at_start(self, rank, hold)
    }
    fn needs_at_end(&self, rank: u32) -> Span {
        Schedule::needs_at_end(self, rank)
    }
    fn pieces(&self, bytes: Span, each: &mut dyn FnMut(Span)) {
        Schedule::pieces(self, bytes, each)
    }
    fn ops_into(&self, rank: u32, ops: &mut Vec<Op>) {
        Schedule::ops_into(self, rank, ops)
    }
    fn synchronizes(&self) -> bool {
        self.spec.collective == Collective::Barrier
    }
    fn reduction(&self) -> Option<Reduction> {
        let result = self.spec.collective.describe().semantics.combines?;
        Some(Reduction {
            // Only a reduce's in-order binary tree keeps the ranks' order.
            ordered: self.spec.algorithm == Algorithm::InOrderBinary,
            result,
        })
    }
}

/// The arrival algorithm's rounds: the root runs them in turn, each
/// receiver only its own.
impl Programs for crate::schedule::arrival_aware::Rounds {
    fn procs(&self) -> u32 {
        self.procs
    }
    fn root(&self) -> u32 {
        self.root
    }
    fn msg_bytes(&self) -> u64 {
        self.msg_bytes
    }
    fn ops_into(&self, rank: u32, ops: &mut Vec<Op>) {
        for g in &self.groups {
            ops.extend(g.ops(rank, self.msg_bytes, self.segsize));
        }
    }
}
