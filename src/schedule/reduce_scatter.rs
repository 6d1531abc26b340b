//! Reduce-scatter schedules as Open MPI 4.1 and 5.0 run them, for
//! MPI_Reduce_scatter with equal counts (`coll_base_reduce_scatter.c`:
//! non-overlapping, recursive halving, ring, butterfly) and
//! MPI_Reduce_scatter_block (`coll_base_reduce_scatter_block.c`:
//! basic_linear, recursive halving, butterfly), on the commutative path
//! `MPI_SUM` takes. With equal counts both files' recursive halving run the
//! same messages, and so do both butterflies on a number of ranks that is
//! not a power of two.
//!
//! The buffer is each rank's vector of p blocks of `msg_bytes`, block i at
//! `i · msg_bytes` (Open MPI's working copy of the send buffer); rank i must
//! end with every contribution combined once in its block, and may leave
//! partial results elsewhere (the simulator proves it). Reduce's data
//! model otherwise, with allreduce's copies: a send keeps what it sends, a
//! plain receive overwrites.
//!
//! reduce_scatter_block's butterfly on a power of two first permutes the
//! blocks (block i to place mirror(i), its bits reversed) and leaves each
//! rank's result at its mirrored place: the harness writes the vector in
//! that order ([`position`]), as it skips every algorithm's copy of the
//! send buffer into working memory.
//!
//! Open MPI's reduce-scatters also allocate working memory every call
//! (two copies of the vector for recursive halving and the butterfly, one
//! and two blocks for the ring, the root's result of the reduce for
//! non-overlapping and basic_linear) and copy the send buffer into it:
//! [`working_memory`] says how much, and the harness allocates, fills and
//! frees as much around each call of ours, as the allocator's page faults
//! on fresh memory cost Open MPI's (2.5x ours from 64 KiB blocks on the
//! development VM before the harness did so).
//!
//! reduce_scatter_block's recursive doubling sends, at each step, the
//! whole vector but the blocks of the sender's own subtree: the blocks
//! after that subtree and, past the vector's end, those before it (one
//! span that wraps, see [`Span`]). Off powers of two a rank without a
//! partner gets its partner's partial result, as it came, from a rank of
//! its subtree that has one ([`Op::SendPartial`]).

use super::reduce::exchange as exchange_partial;
use super::{Op, Plan, Schedule, Span, Spec, Working};
use crate::data::{Algorithm, Candidate, Collective};

/// MPI_Reduce_scatter's algorithms with a schedule: all of Open MPI's.
pub const SCHEDULED: [Algorithm; 4] = [
    Algorithm::Nonoverlapping,
    Algorithm::RecursiveHalving,
    Algorithm::Ring,
    Algorithm::Butterfly,
];

/// MPI_Reduce_scatter_block's algorithms with a schedule: all of Open
/// MPI's.
pub const SCHEDULED_BLOCK: [Algorithm; 4] = [
    Algorithm::Linear,
    Algorithm::RecursiveDoubling,
    Algorithm::RecursiveHalving,
    Algorithm::Butterfly,
];

/// How a reduce-scatter runs.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum ReduceScatterShape {
    /// A reduce of the whole vector to rank 0, then a scatter of its
    /// blocks from it.
    ReduceScatter(Box<[Schedule; 2]>),
    /// Fold to the power of two p' below p, halve the vector over log₂ p'
    /// exchanges, hand the folded ranks their blocks.
    RecursiveHalving,
    /// p − 1 steps around the ring, each passing on one block combined.
    Ring,
    /// Fold to p', log₂ p' exchanges of halves (the lower half first),
    /// then each rank's block to it along the mirror permutation.
    Butterfly,
    /// reduce_scatter_block's butterfly on a power of two: the same
    /// exchanges over blocks in mirrored order, no final exchange.
    MirroredButterfly,
    /// reduce_scatter_block's recursive doubling: ⌈log₂ p⌉ exchanges of
    /// all blocks but the own subtree's, partners' partial results handed
    /// on to ranks without one.
    RecursiveDoubling,
}

/// Both reduce-scatters' layout: each rank needs its block of the
/// vector (where [`position`] puts it).
pub(super) struct ReduceScatterLayout;

impl super::Layout for ReduceScatterLayout {
    fn needs_at_end(&self, spec: &Spec, rank: u32) -> Option<Span> {
        Some(position(spec, rank))
    }
}

/// The reduce-scatter plan of `spec` (p > 1, a non-empty block).
pub(super) fn plan(spec: &Spec) -> Result<Plan, String> {
    let p = spec.procs;
    let block = spec.collective == Collective::ReduceScatterBlock;
    let scheduled: &[Algorithm] = if block { &SCHEDULED_BLOCK } else { &SCHEDULED };
    let shape = match spec.algorithm {
        a if !scheduled.contains(&a) => {
            return Err(format!(
                "no {} schedule for '{a}' (own algorithms: {})",
                spec.collective,
                scheduled
                    .iter()
                    .map(|a| a.name())
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        }
        Algorithm::Nonoverlapping | Algorithm::Linear => reduce_then_scatter(spec)?,
        Algorithm::RecursiveHalving => ReduceScatterShape::RecursiveHalving,
        Algorithm::RecursiveDoubling => ReduceScatterShape::RecursiveDoubling,
        Algorithm::Ring => ReduceScatterShape::Ring,
        Algorithm::Butterfly if block && p.is_power_of_two() => {
            ReduceScatterShape::MirroredButterfly
        }
        _ => ReduceScatterShape::Butterfly,
    };
    Ok(Plan::ReduceScatter(shape))
}

/// Open MPI calls the communicator's reduce of the whole vector to rank 0
/// (with no rules file, tuned's fixed decision), then MPI_Reduce_scatter
/// coll/basic's linear scatterv (tuned has none), MPI_Reduce_scatter_block
/// the communicator's scatter (tuned's fixed decision).
fn reduce_then_scatter(spec: &Spec) -> Result<ReduceScatterShape, String> {
    let (p, m) = (spec.procs, spec.msg_bytes);
    let whole = u64::from(p) * m;
    let reduce = crate::ompi_fixed::decision(Collective::Reduce, p, whole)
        .ok_or("no fixed reduce decision")?;
    let scatter = if spec.collective == Collective::ReduceScatterBlock {
        crate::ompi_fixed::decision(Collective::Scatter, p, m).ok_or("no fixed scatter decision")?
    } else {
        Candidate {
            algorithm: Algorithm::Linear,
            ..Candidate::DEFAULT
        }
    };
    let phase = |collective, c: Candidate, msg_bytes| {
        Schedule::new(Spec {
            collective,
            algorithm: c.algorithm,
            procs: p,
            root: 0,
            msg_bytes,
            segsize: c.segsize.unwrap_or(0),
            fanout: c.fanout,
        })
        .map_err(|e| {
            format!(
                "{} at {p} ranks and {m} bytes runs a {collective} by {}: {e}",
                spec.algorithm, c.algorithm
            )
        })
    };
    Ok(ReduceScatterShape::ReduceScatter(Box::new([
        phase(Collective::Reduce, reduce, whole)?,
        phase(Collective::Scatter, scatter, m)?,
    ])))
}

/// The buffers Open MPI's algorithm allocates on `rank` every call, in
/// order (see the module docs): a copy of the send buffer and what it
/// receives into; rank 0's result of the reduce, then the reduce's own,
/// for the two that reduce first.
pub(super) fn working_memory(shape: &ReduceScatterShape, spec: &Spec, rank: u32) -> Vec<Working> {
    let (p, m) = (u64::from(spec.procs), spec.msg_bytes);
    match shape {
        ReduceScatterShape::RecursiveHalving
        | ReduceScatterShape::Butterfly
        | ReduceScatterShape::MirroredButterfly
        | ReduceScatterShape::RecursiveDoubling => {
            vec![Working::copy(p * m), Working::written(p * m)]
        }
        ReduceScatterShape::Ring if p > 2 => vec![
            Working::copy(p * m),
            Working::written(m),
            Working::written(m),
        ],
        ReduceScatterShape::Ring => vec![Working::copy(p * m), Working::written(m)],
        ReduceScatterShape::ReduceScatter(phases) => {
            let mut out = Vec::new();
            if rank == 0 {
                out.push(Working::written(p * m));
            }
            out.extend(phases[0].working_memory(rank));
            out
        }
    }
}

/// Where block `block` lies in the vector (see the module docs).
pub(super) fn position(spec: &Spec, block: u32) -> Span {
    let m = spec.msg_bytes;
    let p = spec.procs;
    let at = if spec.collective == Collective::ReduceScatterBlock
        && spec.algorithm == Algorithm::Butterfly
        && p.is_power_of_two()
        && p > 1
    {
        mirror(block, p.ilog2())
    } else {
        block
    };
    Span {
        start: u64::from(at) * m,
        end: u64::from(at + 1) * m,
    }
}

/// `v`'s lowest `bits` bits reversed (`ompi_mirror_perm`).
fn mirror(v: u32, bits: u32) -> u32 {
    if bits == 0 {
        v
    } else {
        v.reverse_bits() >> (32 - bits)
    }
}

/// The fold to a power of two shared by recursive halving and the
/// butterfly: the first 2·rem ranks pair up, the even one of each pair
/// sends its vector to the odd one and drops out.
struct Fold {
    /// p', the largest power of two not above p.
    pof2: u32,
    /// p − p'.
    rem: u32,
    /// Bytes per block.
    m: u64,
}

impl Fold {
    fn new(spec: &Spec) -> Fold {
        let pof2 = 1 << spec.procs.ilog2();
        Fold {
            pof2,
            rem: spec.procs - pof2,
            m: spec.msg_bytes,
        }
    }

    /// The real rank of virtual rank `v`.
    fn real(&self, v: u32) -> u32 {
        if v < self.rem {
            2 * v + 1
        } else {
            v + self.rem
        }
    }

    /// The first real block of virtual block `v` (a folded pair's two).
    fn first_block(&self, v: u32) -> u32 {
        if v < self.rem {
            2 * v
        } else {
            v + self.rem
        }
    }

    /// The bytes of virtual blocks `from..to`.
    fn span(&self, from: u32, to: u32) -> Span {
        Span {
            start: u64::from(self.first_block(from)) * self.m,
            end: u64::from(self.first_block(to)) * self.m,
        }
    }

    /// The fold's messages; `rank`'s virtual rank, `None` once it dropped
    /// out.
    fn fold(&self, rank: u32, all: Span, ops: &mut Vec<Op>) -> Option<u32> {
        if rank >= 2 * self.rem {
            return Some(rank - self.rem);
        }
        if rank.is_multiple_of(2) {
            ops.push(Op::Send {
                peer: rank + 1,
                bytes: all,
            });
            return None;
        }
        ops.extend([
            Op::IrecvPartial {
                peer: rank - 1,
                bytes: all,
            },
            Op::WaitRecv,
            Op::Combine {
                peer: rank - 1,
                bytes: all,
            },
        ]);
        Some(rank / 2)
    }
}

impl ReduceScatterShape {
    pub(super) fn ops(&self, spec: &Spec, rank: u32, ops: &mut Vec<Op>) {
        match self {
            ReduceScatterShape::ReduceScatter(phases) => super::phased_ops(&phases[..], rank, ops),
            ReduceScatterShape::RecursiveHalving => recursive_halving_ops(spec, rank, ops),
            ReduceScatterShape::Ring => ring_ops(spec, rank, ops),
            ReduceScatterShape::Butterfly => butterfly_ops(spec, rank, ops),
            ReduceScatterShape::MirroredButterfly => mirrored_butterfly_ops(spec, rank, ops),
            ReduceScatterShape::RecursiveDoubling => recursive_doubling_ops(spec, rank, ops),
        }
    }

    /// See [`Schedule::doubles`].
    pub(super) fn doubles(&self) -> Option<bool> {
        match self {
            ReduceScatterShape::RecursiveHalving
            | ReduceScatterShape::Butterfly
            | ReduceScatterShape::MirroredButterfly
            | ReduceScatterShape::RecursiveDoubling => Some(true),
            ReduceScatterShape::Ring => Some(false),
            ReduceScatterShape::ReduceScatter(_) => None,
        }
    }

    /// How deep a reduce + scatter runs: its two trees' depths added (a
    /// flat phase counts its ranks); `None` for the others.
    pub(super) fn depth(&self) -> Option<u32> {
        let ReduceScatterShape::ReduceScatter(phases) = self else {
            return None;
        };
        Some(super::phased_depth(&phases[..]))
    }

    pub(super) fn describe(&self, spec: &Spec) -> String {
        match self {
            ReduceScatterShape::ReduceScatter(phases) => format!(
                "a reduce of the p blocks to rank 0 ({}), then a scatter of them from it ({})",
                phases[0].runs_as(),
                phases[1].runs_as()
            ),
            ReduceScatterShape::RecursiveHalving => {
                "recursive halving: the first 2(p - p') ranks fold in \
                 pairs, log2 p' exchanges of halves of the vector, the folded ranks get their \
                 blocks last"
                    .into()
            }
            ReduceScatterShape::Ring => format!(
                "ring: {} steps, each passing one block, combined, to the right",
                spec.procs - 1
            ),
            ReduceScatterShape::Butterfly => {
                "butterfly: the first 2(p - p') ranks fold in pairs, log2 p' \
                 exchanges of halves, then each block to its rank along the mirror permutation"
                    .into()
            }
            ReduceScatterShape::MirroredButterfly => {
                "butterfly over blocks in mirrored order: log2 p \
                 exchanges of halves, each rank's block ends in place"
                    .into()
            }
            ReduceScatterShape::RecursiveDoubling => {
                "recursive doubling: ceil(log2 p) exchanges of every \
                 block but those of the rank's own subtree, a partner's partial result handed \
                 on to the ranks of the subtree that have no partner"
                    .into()
            }
        }
    }
}

/// Recursive halving (`reduce_scatter_intra_basic_recursivehalving`,
/// `reduce_scatter_block_intra_recursivehalving`).
fn recursive_halving_ops(spec: &Spec, rank: u32, ops: &mut Vec<Op>) {
    let fold = Fold::new(spec);
    let all = fold.span(0, fold.pof2);
    if let Some(v) = fold.fold(rank, all, ops) {
        let (mut send, mut recv, mut last) = (0, 0, fold.pof2);
        let mut mask = fold.pof2 >> 1;
        while mask > 0 {
            let peer = fold.real(v ^ mask);
            let (sent, received) = if v < v ^ mask {
                send = recv + mask;
                (fold.span(send, last), fold.span(recv, send))
            } else {
                recv = send + mask;
                (fold.span(send, recv), fold.span(recv, last))
            };
            exchange_partial(ops, peer, sent, received);
            send = recv;
            last = recv + mask;
            mask >>= 1;
        }
    }
    if rank < 2 * fold.rem {
        let block = |r: u32| position(spec, r);
        ops.push(if rank.is_multiple_of(2) {
            Op::Recv {
                peer: rank + 1,
                bytes: block(rank),
            }
        } else {
            Op::Send {
                peer: rank - 1,
                bytes: block(rank - 1),
            }
        });
    }
}

/// The ring (`reduce_scatter_intra_ring`): rank r sends block r − 1 to
/// r + 1, then p − 2 times receives the next block from r − 1, combines it
/// and passes it on, two receives posted ahead; its own block comes last.
fn ring_ops(spec: &Spec, rank: u32, ops: &mut Vec<Op>) {
    let p = spec.procs;
    let (to, from) = ((rank + 1) % p, (rank + p - 1) % p);
    let block = |back: u32| position(spec, (rank + p - back % p) % p);
    ops.extend([
        Op::IrecvPartial {
            peer: from,
            bytes: block(2),
        },
        Op::Send {
            peer: to,
            bytes: block(1),
        },
    ]);
    for k in 2..p {
        ops.extend([
            Op::IrecvPartial {
                peer: from,
                bytes: block(k + 1),
            },
            Op::WaitRecv,
            Op::Combine {
                peer: from,
                bytes: block(k),
            },
            Op::Send {
                peer: to,
                bytes: block(k),
            },
        ]);
    }
    ops.extend([
        Op::WaitRecv,
        Op::Combine {
            peer: from,
            bytes: block(0),
        },
    ]);
}

/// The butterfly (`reduce_scatter_intra_butterfly`, and
/// `reduce_scatter_block_intra_butterfly` off powers of two).
fn butterfly_ops(spec: &Spec, rank: u32, ops: &mut Vec<Op>) {
    let fold = Fold::new(spec);
    let bits = fold.pof2.ilog2();
    let block = |r: u32| position(spec, r);
    let Some(v) = fold.fold(rank, fold.span(0, fold.pof2), ops) else {
        let from = fold.real(mirror(rank.div_ceil(2), bits));
        ops.push(Op::Recv {
            peer: from,
            bytes: block(rank),
        });
        return;
    };
    let (mut blocks, mut send, mut recv) = (fold.pof2, 0, 0);
    let mut mask = 1;
    while mask < fold.pof2 {
        blocks /= 2;
        if v & mask == 0 {
            send += blocks;
        } else {
            recv += blocks;
        }
        let peer = fold.real(v ^ mask);
        exchange_partial(
            ops,
            peer,
            fold.span(send, send + blocks),
            fold.span(recv, recv + blocks),
        );
        send = recv;
        mask <<= 1;
    }
    // The rank holds virtual block `send`, the result of virtual rank
    // mirror(v): its real ranks' blocks, a folded pair's two.
    let w = mirror(v, bits);
    let peer = fold.real(w);
    let mut held = fold.first_block(send);
    if w < fold.rem {
        ops.push(Op::Send {
            peer: peer - 1,
            bytes: block(held),
        });
        held += 1;
    }
    if w != v {
        ops.extend([
            Op::Irecv {
                peer,
                bytes: block(rank),
            },
            Op::Send {
                peer,
                bytes: block(held),
            },
            Op::WaitRecv,
        ]);
    }
}

/// reduce_scatter_block's butterfly on a power of two
/// (`reduce_scatter_block_intra_butterfly_pof2`), over mirrored places.
fn mirrored_butterfly_ops(spec: &Spec, rank: u32, ops: &mut Vec<Op>) {
    let p = spec.procs;
    let m = spec.msg_bytes;
    let span = |from: u32, len: u32| Span {
        start: u64::from(from) * m,
        end: u64::from(from + len) * m,
    };
    let (mut blocks, mut send, mut recv) = (p, 0, 0);
    let mut mask = 1;
    while mask < p {
        blocks /= 2;
        if rank & mask == 0 {
            send += blocks;
        } else {
            recv += blocks;
        }
        exchange_partial(ops, rank ^ mask, span(send, blocks), span(recv, blocks));
        send = recv;
        mask <<= 1;
    }
}

/// reduce_scatter_block's recursive doubling
/// (`reduce_scatter_block_intra_recursivedoubling`): at step `mask` the
/// rank exchanges with rank ^ mask every block but those of its own
/// subtree (the `mask` ranks from rank rounded down to `mask`); where the
/// partner's subtree runs past p, the ranks of the own subtree that have
/// a partner hand its partial result on, by recursive halving, to those
/// that have none. Every rank combines what it got once the step's
/// messages are done.
fn recursive_doubling_ops(spec: &Spec, rank: u32, ops: &mut Vec<Op>) {
    let p = spec.procs;
    let m = spec.msg_bytes;
    // Every block but those of the subtree from `root`: the ones after it,
    // then (wrapping) the ones before it.
    let others = |root: u32, mask: u32| {
        if root + mask >= p {
            Span {
                start: 0,
                end: u64::from(root) * m,
            }
        } else {
            Span {
                start: u64::from(root + mask) * m,
                end: u64::from(p + root) * m,
            }
        }
    };
    let mut mask = 1;
    while mask < p {
        let remote = rank ^ mask;
        let root = rank & !(mask - 1);
        let remote_root = remote & !(mask - 1);
        let received = others(remote_root, mask);
        // Whom the partial result of this step comes from.
        let mut from = None;
        if remote < p {
            ops.extend([
                Op::IrecvPartial {
                    peer: remote,
                    bytes: received,
                },
                Op::Send {
                    peer: remote,
                    bytes: others(root, mask),
                },
                Op::WaitRecv,
            ]);
            from = Some(remote);
        }
        if remote_root + mask > p {
            // The own subtree's ranks that have a partner: the first
            // `with` of it, as many as the partner's subtree has ranks
            // (none or fewer than none where it has none).
            let with = i64::from(p) - i64::from(root + mask);
            let mut half = mask >> 1;
            while half > 0 {
                let other = rank ^ half;
                let has = |r: u32| i64::from(r) < i64::from(rank & !(2 * half - 1)) + with;
                if other > rank && has(rank) && !has(other) {
                    ops.push(Op::SendPartial {
                        peer: other,
                        bytes: received,
                    });
                } else if other < rank && has(other) && !has(rank) {
                    ops.extend([
                        Op::IrecvPartial {
                            peer: other,
                            bytes: received,
                        },
                        Op::WaitRecv,
                    ]);
                    from = Some(other);
                }
                half >>= 1;
            }
        }
        if let Some(peer) = from {
            ops.push(Op::Combine {
                peer,
                bytes: received,
            });
        }
        mask <<= 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schedule(collective: Collective, algorithm: Algorithm, procs: u32) -> Schedule {
        Schedule::new(Spec {
            collective,
            algorithm,
            procs,
            root: 0,
            msg_bytes: 4,
            segsize: 0,
            fanout: None,
        })
        .unwrap()
    }

    fn block(i: u64) -> Span {
        Span {
            start: 4 * i,
            end: 4 * i + 4,
        }
    }

    /// The example in `coll_base_reduce_scatter.c`: 6 ranks, one float
    /// each, ranks 0 and 2 fold into 1 and 3; at the end rank 4 sends
    /// rank 2 its result and swaps with rank 3, rank 5 keeps its own.
    #[test]
    fn butterfly_on_six_ranks_is_open_mpis_example() {
        let s = schedule(Collective::ReduceScatter, Algorithm::Butterfly, 6);
        let all = Span { start: 0, end: 24 };
        assert_eq!(
            s.ops(0),
            [
                Op::Send {
                    peer: 1,
                    bytes: all
                },
                Op::Recv {
                    peer: 1,
                    bytes: block(0)
                }
            ]
        );
        assert_eq!(
            s.ops(2)[1],
            Op::Recv {
                peer: 4,
                bytes: block(2)
            }
        );
        let four = s.ops(4);
        assert_eq!(
            four[four.len() - 4..],
            [
                Op::Send {
                    peer: 2,
                    bytes: block(2)
                },
                Op::Irecv {
                    peer: 3,
                    bytes: block(4)
                },
                Op::Send {
                    peer: 3,
                    bytes: block(3)
                },
                Op::WaitRecv,
            ]
        );
        // Two exchanges of four operations, nothing after: 5 keeps block 5.
        assert_eq!(s.ops(5).len(), 8);
    }

    /// Open MPI's recursive doubling on 6 ranks, 4-byte blocks: rank 2's
    /// messages wrap past the vector's end, and at distance 4, where rank
    /// 6 does not exist, rank 0 hands it rank 4's partial result as it
    /// came.
    #[test]
    fn recursive_doubling_wraps_and_hands_on_a_partners_partial() {
        let s = schedule(
            Collective::ReduceScatterBlock,
            Algorithm::RecursiveDoubling,
            6,
        );
        let span = |start, end| Span { start, end };
        let exchange = |peer, recv: Span, send: Span| {
            [
                Op::IrecvPartial { peer, bytes: recv },
                Op::Send { peer, bytes: send },
                Op::WaitRecv,
                Op::Combine { peer, bytes: recv },
            ]
        };
        let mut rank2: Vec<Op> = Vec::new();
        // Distance 1: blocks 4, 5, 0, 1, 2 in, 3, 4, 5, 0, 1 out.
        rank2.extend(exchange(3, span(16, 36), span(12, 32)));
        // Distance 2: blocks 2-5 in, 4, 5, 0, 1 out.
        rank2.extend(exchange(0, span(8, 24), span(16, 32)));
        // Distance 4: blocks 0-3 of ranks 4 and 5, from rank 0.
        rank2.extend([
            Op::IrecvPartial {
                peer: 0,
                bytes: span(0, 16),
            },
            Op::WaitRecv,
            Op::Combine {
                peer: 0,
                bytes: span(0, 16),
            },
        ]);
        assert_eq!(s.ops(2), rank2);
        assert_eq!(
            s.ops(0)[8..],
            [
                Op::IrecvPartial {
                    peer: 4,
                    bytes: span(0, 16)
                },
                Op::Send {
                    peer: 4,
                    bytes: span(16, 24)
                },
                Op::WaitRecv,
                Op::SendPartial {
                    peer: 2,
                    bytes: span(0, 16)
                },
                Op::Combine {
                    peer: 4,
                    bytes: span(0, 16)
                },
            ]
        );
    }

    #[test]
    fn ring_passes_the_block_behind_it_and_combines_its_own_last() {
        let s = schedule(Collective::ReduceScatter, Algorithm::Ring, 3);
        assert_eq!(
            s.ops(1),
            [
                Op::IrecvPartial {
                    peer: 0,
                    bytes: block(2)
                },
                Op::Send {
                    peer: 2,
                    bytes: block(0)
                },
                Op::IrecvPartial {
                    peer: 0,
                    bytes: block(1)
                },
                Op::WaitRecv,
                Op::Combine {
                    peer: 0,
                    bytes: block(2)
                },
                Op::Send {
                    peer: 2,
                    bytes: block(2)
                },
                Op::WaitRecv,
                Op::Combine {
                    peer: 0,
                    bytes: block(1)
                },
            ]
        );
    }

    #[test]
    fn only_the_block_butterfly_on_powers_of_two_mirrors_its_blocks() {
        let place = |c, a, p, b| position(&schedule(c, a, p).spec, b);
        use Algorithm::{Butterfly, RecursiveHalving};
        use Collective::{ReduceScatter, ReduceScatterBlock};
        // 8 ranks: block 1 (001) lies at 4 (100), block 6 (110) at 3 (011).
        assert_eq!(place(ReduceScatterBlock, Butterfly, 8, 1), block(4));
        assert_eq!(place(ReduceScatterBlock, Butterfly, 8, 6), block(3));
        assert_eq!(place(ReduceScatterBlock, Butterfly, 6, 1), block(1));
        assert_eq!(place(ReduceScatter, Butterfly, 8, 1), block(1));
        assert_eq!(place(ReduceScatterBlock, RecursiveHalving, 8, 1), block(1));
    }

    #[test]
    fn reduce_then_scatter_runs_the_fixed_decisions_and_scatterv_is_linear() {
        // 4 ranks, one float each: the 16-byte vector reduced as the fixed
        // reduce decision says, then scattered (scatterv: linear; the
        // block's: as the fixed scatter decision says).
        let rs = schedule(Collective::ReduceScatter, Algorithm::Nonoverlapping, 4);
        let Plan::ReduceScatter(ReduceScatterShape::ReduceScatter(phases)) = &rs.plan else {
            panic!("{:?}", rs.plan)
        };
        assert_eq!(phases[0].spec.collective, Collective::Reduce);
        assert_eq!(phases[0].spec.msg_bytes, 16);
        assert_eq!(phases[1].spec.algorithm, Algorithm::Linear);
        let block = schedule(Collective::ReduceScatterBlock, Algorithm::Linear, 4);
        let Plan::ReduceScatter(ReduceScatterShape::ReduceScatter(phases)) = &block.plan else {
            panic!("{:?}", block.plan)
        };
        let fixed = crate::ompi_fixed::decision(Collective::Scatter, 4, 4).unwrap();
        assert_eq!(phases[1].spec.algorithm, fixed.algorithm);
        assert_eq!(
            phases[0].spec.algorithm,
            crate::ompi_fixed::decision(Collective::Reduce, 4, 16)
                .unwrap()
                .algorithm
        );
    }
}

#[cfg(test)]
mod working_memory_tests {
    use super::*;

    #[test]
    fn open_mpis_allocations_per_call() {
        let memory = |collective, algorithm, procs, rank| {
            let s = Schedule::new(Spec {
                collective,
                algorithm,
                procs,
                root: 0,
                msg_bytes: 100,
                segsize: 0,
                fanout: None,
            })
            .unwrap();
            s.working_memory(rank)
        };
        let (copy, written) = (Working::copy, Working::written);
        use Algorithm::*;
        use Collective::{ReduceScatter as Rs, ReduceScatterBlock as Rsb};
        // A copy of the 4-block vector and a vector to receive into; the
        // ring one block or two.
        assert_eq!(
            memory(Rs, RecursiveHalving, 4, 3),
            [copy(400), written(400)]
        );
        assert_eq!(memory(Rsb, Butterfly, 4, 1), [copy(400), written(400)]);
        assert_eq!(
            memory(Rsb, RecursiveDoubling, 5, 4),
            [copy(500), written(500)]
        );
        assert_eq!(
            memory(Rs, Ring, 4, 2),
            [copy(400), written(100), written(100)]
        );
        assert_eq!(memory(Rs, Ring, 2, 1), [copy(200), written(100)]);
        // Rank 0 keeps the reduce's result apart, then the reduce (the
        // fixed decision at 4 ranks and 400 B) allocates its own.
        let reduce = Schedule::new(Spec {
            collective: Collective::Reduce,
            algorithm: crate::ompi_fixed::decision(Collective::Reduce, 4, 400)
                .unwrap()
                .algorithm,
            procs: 4,
            root: 0,
            msg_bytes: 400,
            segsize: 0,
            fanout: None,
        })
        .unwrap();
        for rank in 0..4 {
            let mut expected = reduce.working_memory(rank);
            if rank == 0 {
                expected.insert(0, written(400));
            }
            assert_eq!(memory(Rs, Nonoverlapping, 4, rank), expected);
        }
        assert!(!memory(Rs, Nonoverlapping, 4, 0).is_empty());
        // Not modelled for the other collectives.
        assert!(memory(Collective::Allreduce, Ring, 4, 2).is_empty());
    }
}
