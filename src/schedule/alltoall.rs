//! Alltoall schedules as Open MPI 4.1 and 5.0 run them
//! (`coll_base_alltoall.c`): linear, linear_sync, pairwise, modified_bruck
//! and two_proc.
//!
//! The simulator's buffer holds every block of the job, ordered by
//! destination: the block rank s sends rank t at `(t·p + s) · msg_bytes`,
//! so that what rank t must end with is one span; rank s starts holding
//! its p blocks (one of them its own, already where it must end). A
//! message of linear or pairwise is one block. A modified Bruck message
//! packs blocks of several sources and destinations, which no span of
//! that buffer names: it is named by a span past the buffer's end, one
//! per step and sender ([`packed`]), whose blocks [`packed_blocks`] lists.
//! [`local`] places a block in the rank's own memory, where the harness
//! keeps it: blocks to send, blocks received, and blocks passing through.
//!
//! With its default `max_requests` of 0, `linear_sync` posts every
//! request at once, as `linear` does.

use super::{sendrecv, Op, Plan, Span, Spec};
use crate::data::Algorithm;

/// Alltoall algorithms with a schedule (what `impl=own` can run).
pub const SCHEDULED: [Algorithm; 5] = [
    Algorithm::Linear,
    Algorithm::Pairwise,
    Algorithm::ModifiedBruck,
    Algorithm::LinearSync,
    Algorithm::TwoProc,
];

/// How an alltoall runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum AlltoallShape {
    /// Every receive posted (from rank + 1 up), then every send (to rank −
    /// 1 down), then all waited for.
    Linear,
    /// p − 1 steps: receive from rank − k while sending to rank + k.
    Pairwise,
    /// ⌈log₂ p⌉ steps, d = 1, 2, 4 …: send to rank + d every block whose
    /// distance to its destination (destination − rank, rotated as the
    /// block moves) has bit d set, receive as many from rank − d.
    ModifiedBruck,
}

/// Alltoall's schedules: p² blocks ordered by destination (see the module
/// documentation).
pub(super) struct AlltoallLayout;

impl super::Layout for AlltoallLayout {
    fn holds_at_start(&self, spec: &Spec, rank: u32, hold: &mut dyn FnMut(Span)) {
        for to in 0..spec.procs {
            hold(block(spec, rank, to));
        }
    }

    fn needs_at_end(&self, spec: &Spec, rank: u32) -> Option<Span> {
        let row = u64::from(spec.procs) * spec.msg_bytes;
        Some(Span {
            start: u64::from(rank) * row,
            end: u64::from(rank + 1) * row,
        })
    }

    // No tree: its steps are doublings or grow with the ranks.
    fn tree_depth(&self, _spec: &Spec) -> Option<u32> {
        None
    }

    fn pieces(&self, spec: &Spec, bytes: Span, each: &mut dyn FnMut(Span)) {
        if !packed_blocks(spec, bytes, each) {
            each(bytes)
        }
    }

    fn place(&self, spec: &Spec, rank: u32, bytes: Span) -> Option<Span> {
        local(spec, rank, bytes)
    }

    fn local_copy(&self, spec: &Spec, rank: u32) -> Option<(Span, Span)> {
        Some(own_copy(spec, rank))
    }
}

/// The alltoall plan of `spec` (p > 1, a non-empty block).
pub(super) fn plan(spec: &Spec) -> Result<Plan, String> {
    let p = spec.procs;
    let shape = match spec.algorithm {
        Algorithm::Linear | Algorithm::LinearSync => AlltoallShape::Linear,
        Algorithm::Pairwise => AlltoallShape::Pairwise,
        Algorithm::ModifiedBruck => AlltoallShape::ModifiedBruck,
        // Two ranks exchange their blocks: pairwise's one step.
        Algorithm::TwoProc if p == 2 => AlltoallShape::Pairwise,
        Algorithm::TwoProc => {
            return Err(format!(
                "two_proc runs on 2 ranks only (Open MPI fails the call on {p})"
            ))
        }
        other => {
            return Err(format!(
                "no alltoall schedule for '{other}' (own alltoall algorithms: {})",
                SCHEDULED.map(|a| a.name()).join(", ")
            ))
        }
    };
    Ok(Plan::Alltoall(shape))
}

/// The block `from` sends `to` in the simulator's buffer.
pub(super) fn block(spec: &Spec, from: u32, to: u32) -> Span {
    let (p, m) = (u64::from(spec.procs), spec.msg_bytes);
    let start = (u64::from(to) * p + u64::from(from)) * m;
    Span {
        start,
        end: start + m,
    }
}

/// Where `rank` keeps bytes of one block of the simulator's buffer in its
/// own memory (`Collective::local_bytes`): a block it sends at its destination's slot,
/// one it receives at its source's, one of others passing through (a
/// modified Bruck's) at the slot of its distance, destination − source,
/// as Open MPI's rotated buffer keeps it. `None` for bytes of no block.
pub fn local(spec: &Spec, rank: u32, bytes: Span) -> Option<Span> {
    let (p, m) = (u64::from(spec.procs), spec.msg_bytes);
    if m == 0 {
        return Some(bytes);
    }
    let index = bytes.start / m;
    if index >= p * p || (bytes.end - 1) / m != index {
        return None;
    }
    let (to, from) = (index / p, index % p);
    let slot = match (from == u64::from(rank), to == u64::from(rank)) {
        (_, true) => p + from,
        (true, false) => to,
        (false, false) => 2 * p + (to + p - from) % p,
    };
    let start = slot * m + bytes.start % m;
    Some(Span {
        start,
        end: start + bytes.len(),
    })
}

/// The blocks a modified Bruck sends at step `d` (a power of two below
/// p): those whose distance i (the slot of Open MPI's rotated buffer,
/// 1 ≤ i < p) has bit d set, in increasing i: runs of d slots from d, every
/// 2d.
fn step_slots(p: u64, d: u64) -> impl Iterator<Item = u64> {
    (d..p).filter(move |i| i & d != 0)
}

/// The span naming the message `sender` sends at step `d` of a modified
/// Bruck: past the simulator's buffer of p² blocks, p blocks' room for each
/// step and sender; as long as the blocks it packs.
pub(super) fn packed(spec: &Spec, d: u32, sender: u32) -> Span {
    let (p, m) = (u64::from(spec.procs), spec.msg_bytes);
    let step = u64::from(d.trailing_zeros());
    let start = p * p * m + (step * p + u64::from(sender)) * p * m;
    Span {
        start,
        end: start + step_slots(p, u64::from(d)).count() as u64 * m,
    }
}

/// Hands `each` the blocks (spans of the simulator's buffer) that the
/// bytes of a packed message carry, in the order packed; `false` for
/// bytes that are not a packed message's. At step d, sender s, slot i
/// holds the block from s − (i mod d) to s − (i mod d) + i: a block's slot
/// is its distance, and the bits of it below d have moved it that far
/// from its source already.
pub(super) fn packed_blocks(spec: &Spec, bytes: Span, each: &mut dyn FnMut(Span)) -> bool {
    let (p, m) = (u64::from(spec.procs), spec.msg_bytes);
    let Some(offset) = bytes.start.checked_sub(p * p * m).filter(|_| m > 0) else {
        return false;
    };
    let (message, first) = (offset / (p * m), (offset % (p * m)) / m);
    let (step, sender) = (message / p, message % p);
    let d = 1u64 << step;
    let count = bytes.len().div_ceil(m);
    for i in step_slots(p, d).skip(first as usize).take(count as usize) {
        let from = (sender + p - i % d) % p;
        let to = (from + i) % p;
        each(block(spec, from as u32, to as u32));
    }
    true
}

/// Where `rank` keeps its block to itself before and after the
/// collective (send slot, receive slot): a copy in its own memory.
pub(super) fn own_copy(spec: &Spec, rank: u32) -> (Span, Span) {
    let own = block(spec, rank, rank);
    let place = |slot: u64| Span {
        start: slot * spec.msg_bytes,
        end: (slot + 1) * spec.msg_bytes,
    };
    // `local` places a block a rank both sends and receives where it is
    // received; it is sent from its send slot.
    let received = local(spec, rank, own).unwrap_or(own);
    (place(u64::from(rank)), received)
}

impl AlltoallShape {
    pub(super) fn describe(self) -> String {
        match self {
            AlltoallShape::Linear => {
                "linear: every rank posts a receive from each other rank and a \
                              send to each, then waits for all"
                    .into()
            }
            AlltoallShape::Pairwise => {
                "pairwise: p − 1 steps, at step k each rank sends to rank + k \
                                and receives from rank − k"
                    .into()
            }
            AlltoallShape::ModifiedBruck => {
                "modified Bruck: ⌈log₂ p⌉ steps, at step d = 1, 2, 4 … each \
                                     rank sends to rank + d the blocks whose distance to their \
                                     destination has bit d, and receives as many from rank − d"
                    .into()
            }
        }
    }

    /// Rank `rank`'s operations.
    pub(super) fn ops(self, spec: &Spec, rank: u32, ops: &mut Vec<Op>) {
        let p = spec.procs;
        match self {
            AlltoallShape::Linear => {
                for k in 1..p {
                    let from = (rank + k) % p;
                    ops.push(Op::Irecv {
                        peer: from,
                        bytes: block(spec, from, rank),
                    });
                }
                for k in 1..p {
                    let to = (rank + p - k) % p;
                    ops.push(Op::Isend {
                        peer: to,
                        bytes: block(spec, rank, to),
                    });
                }
                ops.extend((1..p).map(|_| Op::WaitRecv));
                ops.push(Op::WaitSends);
            }
            AlltoallShape::Pairwise => {
                for k in 1..p {
                    let (to, from) = ((rank + k) % p, (rank + p - k) % p);
                    let (send, recv) = (block(spec, rank, to), block(spec, from, rank));
                    sendrecv(ops, to, send, from, recv);
                }
            }
            AlltoallShape::ModifiedBruck => {
                let mut d = 1;
                while d < p {
                    let (to, from) = ((rank + d) % p, (rank + p - d) % p);
                    sendrecv(ops, to, packed(spec, d, rank), from, packed(spec, d, from));
                    d *= 2;
                }
            }
        }
    }
}
