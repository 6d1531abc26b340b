//! Barrier schedules as Open MPI 4.1 and 5.0 run them
//! (`coll_base_barrier.c`, the same in both): linear, double ring,
//! recursive doubling, Bruck (dissemination), two_proc and tree, every
//! message empty.
//!
//! The simulator proves a barrier by what each rank has heard of: a
//! message carries everything its sender heard of before sending it, and
//! every rank must end having heard, directly or not, from every rank,
//! that is, no rank leaves before every rank has entered.
//!
//! Open MPI sends the double ring's second round, and recursive doubling's
//! last message to the ranks beyond the power of two, synchronously (the
//! send completes once matched); ours are standard sends, which for empty
//! messages complete at once: the barrier holds either way, since every
//! rank leaves only after a message that follows every rank's entry.
//! Linear's root receives from `MPI_ANY_SOURCE`; ours names each rank in
//! turn and waits for all, which completes when the last one arrives, as
//! Open MPI's does.

use super::{sendrecv, Op, Plan, Span, Spec};
use crate::data::Algorithm;

/// Barrier algorithms with a schedule: all of Open MPI's.
pub const SCHEDULED: [Algorithm; 6] = [
    Algorithm::Linear,
    Algorithm::DoubleRing,
    Algorithm::RecursiveDoubling,
    Algorithm::Bruck,
    Algorithm::TwoProc,
    Algorithm::Tree,
];

/// How a barrier runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum BarrierShape {
    /// Every rank tells rank 0, which then tells every rank.
    Linear,
    /// A token from rank 0 around the ring, twice.
    DoubleRing,
    /// Pairwise exchanges at distances 1, 2, 4 … among the largest power
    /// of two of ranks; the others hand in first and are let out last.
    RecursiveDoubling,
    /// ⌈log₂ p⌉ rounds: tell rank + 2^i, hear from rank − 2^i.
    Bruck,
    /// One exchange (2 ranks only).
    TwoProc,
    /// Up a binomial tree over the next power of two, then down it.
    Tree,
}

/// Barrier's schedules: empty messages, nothing to hold.
pub(super) struct BarrierLayout;

impl super::Layout for BarrierLayout {
    // No tree: its steps are doublings or grow with the ranks.
    fn tree_depth(&self, _spec: &Spec) -> Option<u32> {
        None
    }
}

/// The barrier plan of `spec` (p > 1).
pub(super) fn plan(spec: &Spec) -> Result<Plan, String> {
    let shape = match spec.algorithm {
        Algorithm::Linear => BarrierShape::Linear,
        Algorithm::DoubleRing => BarrierShape::DoubleRing,
        Algorithm::RecursiveDoubling => BarrierShape::RecursiveDoubling,
        Algorithm::Bruck => BarrierShape::Bruck,
        Algorithm::TwoProc if spec.procs == 2 => BarrierShape::TwoProc,
        Algorithm::TwoProc => {
            return Err(format!(
                "two_proc runs on 2 ranks only (Open MPI fails the call on {})",
                spec.procs
            ))
        }
        Algorithm::Tree => BarrierShape::Tree,
        other => {
            return Err(format!(
                "no barrier schedule for '{other}' (own barrier algorithms: {})",
                SCHEDULED.map(|a| a.name()).join(", ")
            ))
        }
    };
    Ok(Plan::Barrier(shape))
}

/// The empty message.
const NOTHING: Span = Span { start: 0, end: 0 };

fn send(peer: u32) -> Op {
    Op::Send {
        peer,
        bytes: NOTHING,
    }
}

fn recv(peer: u32) -> Op {
    Op::Recv {
        peer,
        bytes: NOTHING,
    }
}

/// The largest power of two not above `p`.
fn pof2_below(p: u32) -> u32 {
    1 << p.ilog2()
}

impl BarrierShape {
    pub(super) fn ops(&self, spec: &Spec, rank: u32, ops: &mut Vec<Op>) {
        let p = spec.procs;
        match self {
            BarrierShape::Linear if rank == 0 => {
                for peer in 1..p {
                    ops.push(Op::Irecv {
                        peer,
                        bytes: NOTHING,
                    });
                }
                ops.extend((1..p).map(|_| Op::WaitRecv));
                ops.extend((1..p).map(send));
            }
            BarrierShape::Linear => ops.extend([send(0), recv(0)]),
            BarrierShape::DoubleRing => {
                let (left, right) = ((rank + p - 1) % p, (rank + 1) % p);
                for _ in 0..2 {
                    if rank > 0 {
                        ops.push(recv(left));
                    }
                    ops.push(send(right));
                    if rank == 0 {
                        ops.push(recv(left));
                    }
                }
            }
            BarrierShape::RecursiveDoubling => {
                let adj = pof2_below(p);
                if rank >= adj {
                    sendrecv(ops, rank - adj, NOTHING, rank - adj, NOTHING);
                } else if rank < p - adj {
                    ops.push(recv(rank + adj));
                }
                if rank < adj {
                    let mut mask = 1;
                    while mask < adj {
                        let remote = rank ^ mask;
                        sendrecv(ops, remote, NOTHING, remote, NOTHING);
                        mask <<= 1;
                    }
                }
                if rank < p - adj {
                    ops.push(send(rank + adj));
                }
            }
            BarrierShape::Bruck => {
                let mut distance = 1;
                while distance < p {
                    let (to, from) = ((rank + distance) % p, (rank + p - distance) % p);
                    sendrecv(ops, to, NOTHING, from, NOTHING);
                    distance <<= 1;
                }
            }
            BarrierShape::TwoProc => sendrecv(ops, 1 - rank, NOTHING, 1 - rank, NOTHING),
            BarrierShape::Tree => {
                // The smallest power of two not below p
                // (`opal_next_poweroftwo_inclusive`).
                let depth = p.next_power_of_two();
                let partners = |jump: u32| {
                    let partner = rank ^ jump;
                    (partner & (jump - 1) == 0 && partner < p).then_some(partner)
                };
                let mut jump = 1;
                while jump < depth {
                    match partners(jump) {
                        Some(partner) if partner > rank => ops.push(recv(partner)),
                        Some(partner) => ops.push(send(partner)),
                        None => {}
                    }
                    jump <<= 1;
                }
                let mut jump = depth >> 1;
                while jump > 0 {
                    match partners(jump) {
                        Some(partner) if partner > rank => ops.push(send(partner)),
                        Some(partner) => ops.push(recv(partner)),
                        None => {}
                    }
                    jump >>= 1;
                }
            }
        }
    }

    /// See [`super::Schedule::doubles`]: the linear and ring barriers'
    /// steps grow with the ranks.
    pub(super) fn doubles(&self) -> bool {
        matches!(
            self,
            BarrierShape::RecursiveDoubling
                | BarrierShape::Bruck
                | BarrierShape::TwoProc
                | BarrierShape::Tree
        )
    }

    pub(super) fn describe(&self) -> String {
        match self {
            BarrierShape::Linear => {
                "linear: every rank tells rank 0, which then tells each in turn"
            }
            BarrierShape::DoubleRing => "double ring: a token from rank 0 around the ring, twice",
            BarrierShape::RecursiveDoubling => {
                "recursive doubling: pairwise exchanges at distances 1, 2, 4 ... among the \
                 largest power of two of ranks; the others hand in first and are let out last"
            }
            BarrierShape::Bruck => {
                "bruck (dissemination): in round i tell rank + 2^i, hear from rank - 2^i"
            }
            BarrierShape::TwoProc => "two_proc: one exchange",
            BarrierShape::Tree => {
                "tree: up a binomial tree over the next power of two, then down it"
            }
        }
        .into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::Collective;
    use crate::schedule::Schedule;

    fn ops(algorithm: Algorithm, procs: u32, rank: u32) -> Vec<Op> {
        Schedule::new(Spec {
            collective: Collective::Barrier,
            algorithm,
            procs,
            root: 0,
            msg_bytes: 0,
            segsize: 0,
            fanout: None,
        })
        .unwrap()
        .ops(rank)
    }

    #[test]
    fn tree_climbs_then_descends_over_the_next_power_of_two() {
        // 6 ranks over 8: rank 4 hears from 5, tells 0; later hears from 0,
        // tells 5.
        assert_eq!(
            ops(Algorithm::Tree, 6, 4),
            [recv(5), send(0), recv(0), send(5)]
        );
        // Rank 0 hears from 1, 2, 4, then tells 4, 2, 1.
        assert_eq!(
            ops(Algorithm::Tree, 6, 0),
            [recv(1), recv(2), recv(4), send(4), send(2), send(1)]
        );
    }

    #[test]
    fn recursive_doubling_folds_the_ranks_beyond_the_power_of_two() {
        // 5 ranks: rank 4 exchanges with 0, which lets it out last.
        assert_eq!(
            ops(Algorithm::RecursiveDoubling, 5, 4),
            [
                Op::Irecv {
                    peer: 0,
                    bytes: NOTHING
                },
                send(0),
                Op::WaitRecv
            ]
        );
        let zero = ops(Algorithm::RecursiveDoubling, 5, 0);
        assert_eq!(zero.first(), Some(&recv(4)));
        assert_eq!(zero.last(), Some(&send(4)));
        // Two exchanges among 0..4 between.
        assert_eq!(zero.len(), 2 + 2 * 3);
    }

    #[test]
    fn two_proc_needs_two_ranks() {
        let spec = |procs| Spec {
            collective: Collective::Barrier,
            algorithm: Algorithm::TwoProc,
            procs,
            root: 0,
            msg_bytes: 0,
            segsize: 0,
            fanout: None,
        };
        assert!(Schedule::new(spec(2)).is_ok());
        assert!(Schedule::new(spec(3)).is_err());
    }
}
