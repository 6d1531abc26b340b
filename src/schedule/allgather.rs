//! Allgather schedules as Open MPI 4.1 and 5.0 run them
//! (`coll_base_allgather.c`): Bruck, recursive doubling, ring, neighbor
//! exchange, two_proc and (5.0) sparbit, with Open MPI's fallbacks.
//!
//! The buffer is the receive buffer of p blocks of `msg_bytes` each, block
//! r at `r · msg_bytes`; rank r starts holding its own block there and must
//! end holding all of them, each received once (the simulator proves it).
//! Open MPI's Bruck keeps its blocks rotated so that each message is
//! contiguous in its buffer; in the receive buffer's order a Bruck message
//! may wrap past the last block to the first: such a span ends beyond the
//! buffer, and its bytes continue from byte 0 (`Span::pieces`).
//!
//! `linear` is a gather to rank 0 then a broadcast from it, each through
//! the communicator's own (tuned's fixed) decision; without gather
//! schedules it is not scheduled here (Open MPI's forced `linear` is still
//! measured).

use super::{sendrecv, Op, Plan, Span, Spec};
use crate::data::Algorithm;

/// Allgather algorithms with a schedule (what `impl=own` can run).
pub const SCHEDULED: [Algorithm; 6] = [
    Algorithm::Bruck,
    Algorithm::RecursiveDoubling,
    Algorithm::Ring,
    Algorithm::Neighbor,
    Algorithm::TwoProc,
    Algorithm::Sparbit,
];

/// How an allgather runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum AllgatherShape {
    /// ⌈log₂ p⌉ steps: send the blocks held so far to rank − d, receive as
    /// many from rank + d, d = 1, 2, 4 … (the last step only what is
    /// missing).
    Bruck,
    /// log₂ p pairwise exchanges of everything held (powers of two only).
    RecursiveDoubling,
    /// p − 1 steps: pass the block received last to the right.
    Ring,
    /// p / 2 steps of pairwise exchanges with the left and right neighbour
    /// in turn, two blocks at a time after the first (even p only).
    Neighbor,
    /// One exchange (2 ranks only).
    TwoProc,
    /// Bruck's steps in reverse, d = 2^(⌈log₂ p⌉−1) … 1, each block sent on
    /// its own message, the blocks a rank would receive twice left out.
    Sparbit,
}

/// Allgather's schedules: p blocks, each rank starting with its own.
pub(super) struct AllgatherLayout;

impl super::Layout for AllgatherLayout {
    fn holds_at_start(&self, spec: &Spec, rank: u32, hold: &mut dyn FnMut(Span)) {
        hold(super::scatter::block(spec, rank))
    }

    // No tree: its steps are doublings or grow with the ranks.
    fn tree_depth(&self, _spec: &Spec) -> Option<u32> {
        None
    }
}

/// The allgather plan of `spec` (p > 1, a non-empty block).
pub(super) fn plan(spec: &Spec) -> Result<Plan, String> {
    let p = spec.procs;
    let shape = match spec.algorithm {
        Algorithm::Bruck => AllgatherShape::Bruck,
        Algorithm::RecursiveDoubling if p.is_power_of_two() => AllgatherShape::RecursiveDoubling,
        Algorithm::RecursiveDoubling => AllgatherShape::Bruck,
        Algorithm::Ring => AllgatherShape::Ring,
        Algorithm::Neighbor if p.is_multiple_of(2) => AllgatherShape::Neighbor,
        Algorithm::Neighbor => AllgatherShape::Ring,
        Algorithm::TwoProc if p == 2 => AllgatherShape::TwoProc,
        Algorithm::TwoProc => {
            return Err(format!(
                "two_proc runs on 2 ranks only (Open MPI fails the call on {p})"
            ))
        }
        Algorithm::Sparbit => AllgatherShape::Sparbit,
        other => {
            return Err(format!(
                "no allgather schedule for '{other}' (own allgather algorithms: {})",
                SCHEDULED.map(|a| a.name()).join(", ")
            ))
        }
    };
    Ok(Plan::Allgather(shape))
}

impl AllgatherShape {
    /// The algorithm that runs (recursive doubling off powers of two is
    /// Bruck, neighbor exchange on odd p the ring).
    pub(super) fn runs_as(self) -> Algorithm {
        match self {
            AllgatherShape::Bruck => Algorithm::Bruck,
            AllgatherShape::RecursiveDoubling => Algorithm::RecursiveDoubling,
            AllgatherShape::Ring => Algorithm::Ring,
            AllgatherShape::Neighbor => Algorithm::Neighbor,
            AllgatherShape::TwoProc => Algorithm::TwoProc,
            AllgatherShape::Sparbit => Algorithm::Sparbit,
        }
    }

    pub(super) fn note(self, spec: &Spec) -> Option<String> {
        (self.runs_as() != spec.algorithm).then(|| {
            format!(
                "{} on {} ranks runs as {} (Open MPI's fallback)",
                spec.algorithm,
                spec.procs,
                self.runs_as()
            )
        })
    }

    /// Whether the steps are doublings (log p of them) rather than grow
    /// with the ranks.
    pub(super) fn doubles(self) -> bool {
        match self {
            AllgatherShape::Bruck
            | AllgatherShape::RecursiveDoubling
            | AllgatherShape::Sparbit
            | AllgatherShape::TwoProc => true,
            AllgatherShape::Ring | AllgatherShape::Neighbor => false,
        }
    }

    pub(super) fn describe(self) -> String {
        match self {
            AllgatherShape::Bruck => {
                "Bruck: at step d = 1, 2, 4 … every rank sends the blocks it holds \
                             to rank − d and receives as many from rank + d"
                    .into()
            }
            AllgatherShape::RecursiveDoubling => {
                "recursive doubling: at step d = 1, 2, 4 … ranks r and r xor d exchange all \
                 they hold"
                    .into()
            }
            AllgatherShape::Ring => {
                "ring: p − 1 steps, each rank passes the block it received last \
                            to rank + 1"
                    .into()
            }
            AllgatherShape::Neighbor => "neighbor exchange: p / 2 steps, even ranks exchange with \
                                rank + 1 and rank − 1 in turn (two blocks after the first)"
                .into(),
            AllgatherShape::TwoProc => "two ranks exchange their blocks".into(),
            AllgatherShape::Sparbit => {
                "sparbit: at step d = 2^k … 1 every rank sends each block it \
                               holds to rank + d on a message of its own"
                    .into()
            }
        }
    }

    /// Rank `rank`'s operations.
    pub(super) fn ops(self, spec: &Spec, rank: u32, ops: &mut Vec<Op>) {
        let (p, m) = (spec.procs, spec.msg_bytes);
        // Blocks [first, first + count) in the receive buffer's order,
        // wrapping past the last block.
        let blocks = |first: u32, count: u32| Span {
            start: u64::from(first % p) * m,
            end: u64::from(first % p + count) * m,
        };
        match self {
            AllgatherShape::Bruck => {
                let mut d = 1;
                while d < p {
                    let count = if d <= p / 2 { d } else { p - d };
                    sendrecv(
                        ops,
                        (rank + p - d) % p,
                        blocks(rank, count),
                        (rank + d) % p,
                        blocks(rank + d, count),
                    );
                    d <<= 1;
                }
            }
            AllgatherShape::RecursiveDoubling => {
                // The blocks held start at `first` (aligned to the distance).
                let mut first = rank;
                let mut d = 1;
                while d < p {
                    let remote = rank ^ d;
                    let (send, recv) = if rank < remote {
                        (blocks(first, d), blocks(first + d, d))
                    } else {
                        first -= d;
                        (blocks(first + d, d), blocks(first, d))
                    };
                    sendrecv(ops, remote, send, remote, recv);
                    d <<= 1;
                }
            }
            AllgatherShape::Ring => {
                let (right, left) = ((rank + 1) % p, (rank + p - 1) % p);
                for i in 0..p - 1 {
                    sendrecv(
                        ops,
                        right,
                        blocks(rank + p - i, 1),
                        left,
                        blocks(rank + p - i - 1, 1),
                    );
                }
            }
            AllgatherShape::Neighbor => neighbor_ops(p, rank, blocks, ops),
            AllgatherShape::TwoProc => {
                let remote = rank ^ 1;
                sendrecv(ops, remote, blocks(rank, 1), remote, blocks(remote, 1));
            }
            AllgatherShape::Sparbit => sparbit_ops(p, rank, blocks, ops),
        }
    }
}

/// Neighbor exchange (even p): the first step swaps one block with
/// neighbour 0, then the steps alternate neighbours, each sending the two
/// blocks received the step before.
fn neighbor_ops(p: u32, rank: u32, blocks: impl Fn(u32, u32) -> Span, ops: &mut Vec<Op>) {
    let even = rank.is_multiple_of(2);
    let (right, left) = ((rank + 1) % p, (rank + p - 1) % p);
    let (neighbor, offset): ([u32; 2], [i64; 2]) = if even {
        ([right, left], [2, -2])
    } else {
        ([left, right], [-2, 2])
    };
    let mut recv_from = if even { [rank; 2] } else { [left; 2] };
    sendrecv(
        ops,
        neighbor[0],
        blocks(rank, 1),
        neighbor[0],
        blocks(neighbor[0], 1),
    );
    let mut send_from = if even { rank } else { recv_from[0] };
    for i in 1..p / 2 {
        let k = (i % 2) as usize;
        recv_from[k] = (i64::from(recv_from[k]) + offset[k]).rem_euclid(i64::from(p)) as u32;
        sendrecv(
            ops,
            neighbor[k],
            blocks(send_from, 2),
            neighbor[k],
            blocks(recv_from[k], 2),
        );
        send_from = recv_from[k];
    }
}

/// Sparbit (Open MPI 5.0): at distance d = 2^(⌈log₂ p⌉−1) down to 1, each
/// block held goes to rank + d on its own message (all posted, then all
/// waited for); a block the receiver would get twice is left out.
fn sparbit_ops(p: u32, rank: u32, blocks: impl Fn(u32, u32) -> Span, ops: &mut Vec<Op>) {
    let log = p.next_power_of_two().trailing_zeros();
    let mut d = 1u32 << (log - 1);
    let last_ignore = p.trailing_zeros();
    let ignore_steps = (!(p >> last_ignore) | 1) << last_ignore;
    let mut expected = 1u32;
    for _ in 0..log {
        let (to, from) = ((rank + d) % p, (rank + p - d) % p);
        let exclusion = u32::from(d & ignore_steps == d);
        let count = expected - exclusion;
        for t in 0..count {
            let send = (rank + p - (2 * t * d) % p) % p;
            let recv = (rank + p - ((2 * t + 1) * d) % p) % p;
            ops.push(Op::Isend {
                peer: to,
                bytes: blocks(send, 1),
            });
            ops.push(Op::Irecv {
                peer: from,
                bytes: blocks(recv, 1),
            });
        }
        for _ in 0..count {
            ops.push(Op::WaitRecv);
        }
        if count > 0 {
            ops.push(Op::WaitSends);
        }
        d >>= 1;
        expected = (expected << 1) - exclusion;
    }
}
