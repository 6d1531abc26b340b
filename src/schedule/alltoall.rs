//! Alltoall schedules as Open MPI 4.1 and 5.0 run them
//! (`coll_base_alltoall.c`): linear, linear_sync, pairwise and two_proc.
//!
//! The simulator's buffer holds every block of the job, ordered by
//! destination: the block rank s sends rank t at `(t·p + s) · msg_bytes`,
//! so that what rank t must end with is one span; rank s starts holding
//! its p blocks (one of them its own, already where it must end). Each
//! message is one block; [`local`] places a block in the rank's own memory
//! (blocks to send, then blocks received), where the harness keeps them.
//!
//! `modified_bruck` packs blocks of several sources into each message, and
//! is not scheduled here (Open MPI's forced `modified_bruck` is still
//! measured). With its default `max_requests` of 0, `linear_sync` posts
//! every request at once, as `linear` does.

use super::{Op, Plan, Span, Spec};
use crate::data::Algorithm;

/// Alltoall algorithms with a schedule (what `impl=own` can run).
pub const SCHEDULED: [Algorithm; 4] = [
    Algorithm::Linear,
    Algorithm::Pairwise,
    Algorithm::LinearSync,
    Algorithm::TwoProc,
];

/// How an alltoall runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Shape {
    /// Every receive posted (from rank + 1 up), then every send (to rank −
    /// 1 down), then all waited for.
    Linear,
    /// p − 1 steps: receive from rank − k while sending to rank + k.
    Pairwise,
}

/// The alltoall plan of `spec` (p > 1, a non-empty block).
pub(super) fn plan(spec: &Spec) -> Result<Plan, String> {
    let p = spec.procs;
    let shape = match spec.algorithm {
        Algorithm::Linear | Algorithm::LinearSync => Shape::Linear,
        Algorithm::Pairwise => Shape::Pairwise,
        // Two ranks exchange their blocks: pairwise's one step.
        Algorithm::TwoProc if p == 2 => Shape::Pairwise,
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

/// Where `rank` keeps a block of the simulator's buffer in its own memory
/// (p blocks to send, then p received): `None` for a block it neither
/// sends nor receives.
pub fn local(spec: &Spec, rank: u32, bytes: Span) -> Option<Span> {
    let (p, m) = (u64::from(spec.procs), spec.msg_bytes);
    if m == 0 {
        return Some(bytes);
    }
    let index = bytes.start / m;
    let (to, from) = (index / p, index % p);
    let slot = match (from == u64::from(rank), to == u64::from(rank)) {
        (_, true) => p + from,
        (true, false) => to,
        (false, false) => return None,
    };
    let start = slot * m + bytes.start % m;
    Some(Span {
        start,
        end: start + bytes.len(),
    })
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

impl Shape {
    pub(super) fn describe(self) -> String {
        match self {
            Shape::Linear => "linear: every rank posts a receive from each other rank and a \
                              send to each, then waits for all"
                .into(),
            Shape::Pairwise => "pairwise: p − 1 steps, at step k each rank sends to rank + k \
                                and receives from rank − k"
                .into(),
        }
    }

    /// Rank `rank`'s operations.
    pub(super) fn ops(self, spec: &Spec, rank: u32, ops: &mut Vec<Op>) {
        let p = spec.procs;
        match self {
            Shape::Linear => {
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
            Shape::Pairwise => {
                for k in 1..p {
                    let (to, from) = ((rank + k) % p, (rank + p - k) % p);
                    ops.push(Op::Irecv {
                        peer: from,
                        bytes: block(spec, from, rank),
                    });
                    ops.push(Op::Send {
                        peer: to,
                        bytes: block(spec, rank, to),
                    });
                    ops.push(Op::WaitRecv);
                }
            }
        }
    }
}
