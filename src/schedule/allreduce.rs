//! Allreduce schedules as Open MPI 4.1 and 5.0 run them
//! (`coll_base_allreduce.c`, identical in both apart from comments, on the
//! commutative path `MPI_SUM` takes): basic linear and non-overlapping as a
//! reduce to rank 0 followed by a broadcast from it, recursive doubling,
//! ring and segmented ring, and Rabenseifner's reduce-scatter + allgather,
//! each with Open MPI's fallbacks.
//!
//! The data model is reduce's (see [`super::reduce`]), except that every
//! rank keeps what it sends and a plain receive overwrites: the simulator
//! proves that every rank ends with every contribution combined exactly
//! once in every byte.

use super::reduce::{exchange, segments, Halving};
use super::{Op, Plan, Schedule, Segments, Span, Spec};
use crate::data::{element_bytes, Algorithm, Candidate, Collective};

/// Allreduce algorithms with a schedule (what `impl=own` can run): all of
/// Open MPI 4.1's and 5.0's.
pub const SCHEDULED: [Algorithm; 6] = [
    Algorithm::Linear,
    Algorithm::Nonoverlapping,
    Algorithm::RecursiveDoubling,
    Algorithm::Ring,
    Algorithm::SegmentedRing,
    Algorithm::Rabenseifner,
];

/// How an allreduce runs.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum AllreduceShape {
    /// A reduce to rank 0, then a broadcast from it.
    ReduceBcast(Box<[Schedule; 2]>),
    /// Every rank exchanges the whole vector with partners at distance 1,
    /// 2, 4 … of the largest power of two; the others fold in first.
    RecursiveDoubling,
    /// Reduce-scatter around the ring (each block in `phases` pieces), then
    /// an allgather of the blocks around it.
    Ring { phases: u64 },
    /// Recursive halving, then recursive doubling of the halves.
    Rabenseifner,
}

/// Allreduce's schedules: reduce's buffer, needed whole by every rank.
pub(super) struct AllreduceLayout;

impl super::Layout for AllreduceLayout {
    fn segment_bytes(&self, spec: &Spec) -> Option<u64> {
        Some(segments(spec.msg_bytes, spec.segsize).seg)
    }
}

/// The allreduce plan of `spec` (p > 1, a non-empty message).
pub(super) fn plan(spec: &Spec) -> Result<Plan, String> {
    let (p, m) = (spec.procs, spec.msg_bytes);
    let count = m / element_bytes(m);
    let linear = || reduce_bcast(spec, linear_candidate(), linear_candidate());
    let ring = || {
        if count < u64::from(p) {
            AllreduceShape::RecursiveDoubling
        } else {
            AllreduceShape::Ring { phases: 1 }
        }
    };
    let shape = match spec.algorithm {
        Algorithm::Linear => linear()?,
        Algorithm::Nonoverlapping => {
            // Open MPI calls the communicator's reduce and broadcast: with
            // no rules file, coll/tuned's fixed decisions.
            let fixed = |c| crate::ompi_fixed::decision(c, p, m);
            match (fixed(Collective::Reduce), fixed(Collective::Bcast)) {
                (Some(r), Some(b)) => reduce_bcast(spec, r, b).map_err(|e| {
                    format!(
                        "nonoverlapping at {p} ranks and {m} bytes runs Open MPI's fixed \
                         reduce ({}) and broadcast ({}): {e}",
                        r.algorithm, b.algorithm
                    )
                })?,
                _ => return Err("no fixed reduce or broadcast decision".into()),
            }
        }
        Algorithm::RecursiveDoubling => AllreduceShape::RecursiveDoubling,
        Algorithm::Ring => ring(),
        Algorithm::SegmentedRing => match ring_phases(p, m, spec.segsize) {
            Some(phases) => AllreduceShape::Ring { phases },
            None => ring(),
        },
        Algorithm::Rabenseifner if count >= 1 << p.ilog2() => AllreduceShape::Rabenseifner,
        Algorithm::Rabenseifner => linear()?,
        other => {
            return Err(format!(
                "no allreduce schedule for '{other}' (own allreduce algorithms: {})",
                SCHEDULED.map(|a| a.name()).join(", ")
            ))
        }
    };
    Ok(Plan::Allreduce(shape))
}

fn linear_candidate() -> Candidate {
    Candidate {
        algorithm: Algorithm::Linear,
        ..Candidate::DEFAULT
    }
}

/// Reduce to rank 0 with `reduce`, then broadcast from it with `bcast`.
fn reduce_bcast(
    spec: &Spec,
    reduce: Candidate,
    bcast: Candidate,
) -> Result<AllreduceShape, String> {
    let phase = |collective, c: Candidate| {
        Schedule::new(Spec {
            collective,
            algorithm: c.algorithm,
            procs: spec.procs,
            root: 0,
            msg_bytes: spec.msg_bytes,
            segsize: c.segsize.unwrap_or(0),
            fanout: c.fanout,
        })
    };
    Ok(AllreduceShape::ReduceBcast(Box::new([
        phase(Collective::Reduce, reduce)?,
        phase(Collective::Bcast, bcast)?,
    ])))
}

/// The segmented ring's number of phases (`num_phases`), `None` where
/// Open MPI falls back to the plain ring: fewer elements than p segments
/// (which includes segment size 0, one segment of everything).
pub fn ring_phases(procs: u32, msg_bytes: u64, segsize: u64) -> Option<u64> {
    let e = element_bytes(msg_bytes);
    let count = msg_bytes / e;
    let segcount = segments(msg_bytes, segsize).seg / e;
    let round = u64::from(procs) * segcount;
    if count < round || round == 0 {
        return None;
    }
    let rest = count % round;
    Some(count / round + u64::from(rest >= u64::from(procs) && rest > round / 2))
}

/// `count` split into `blocks` blocks as `COLL_BASE_COMPUTE_BLOCKCOUNT`
/// does: the first `count % blocks` one element longer. Returns block
/// `b`'s (first element, elements).
fn block(count: u64, blocks: u64, b: u64) -> (u64, u64) {
    let (late, split) = (count / blocks, count % blocks);
    if b < split {
        (b * (late + 1), late + 1)
    } else {
        (b * late + split, late)
    }
}

impl AllreduceShape {
    pub(super) fn ops(&self, spec: &Spec, rank: u32, ops: &mut Vec<Op>) {
        match self {
            AllreduceShape::ReduceBcast(phases) => super::phased_ops(&phases[..], rank, ops),
            AllreduceShape::RecursiveDoubling => recursive_doubling_ops(spec, rank, ops),
            AllreduceShape::Ring { phases } => ring_ops(spec, *phases, rank, ops),
            AllreduceShape::Rabenseifner => rabenseifner_ops(spec, rank, ops),
        }
    }

    /// How deep a reduce + broadcast runs: its two trees' depths added (a
    /// flat phase counts its ranks); `None` for the others.
    pub(super) fn depth(&self) -> Option<u32> {
        let AllreduceShape::ReduceBcast(phases) = self else {
            return None;
        };
        Some(super::phased_depth(&phases[..]))
    }

    /// The algorithm that runs, fallbacks followed (see [`AllreduceShape::note`]).
    pub(super) fn runs_as(&self, spec: &Spec) -> Algorithm {
        match (spec.algorithm, self) {
            (Algorithm::Ring | Algorithm::SegmentedRing, AllreduceShape::RecursiveDoubling) => {
                Algorithm::RecursiveDoubling
            }
            (Algorithm::SegmentedRing, AllreduceShape::Ring { phases: 1 })
                if ring_phases(spec.procs, spec.msg_bytes, spec.segsize).is_none() =>
            {
                Algorithm::Ring
            }
            (Algorithm::Rabenseifner, AllreduceShape::ReduceBcast(_)) => Algorithm::Linear,
            (algorithm, _) => algorithm,
        }
    }

    /// See [`Schedule::doubles`].
    pub(super) fn doubles(&self) -> Option<bool> {
        match self {
            AllreduceShape::RecursiveDoubling | AllreduceShape::Rabenseifner => Some(true),
            AllreduceShape::Ring { .. } => Some(false),
            AllreduceShape::ReduceBcast(_) => None,
        }
    }

    /// A note where the algorithm runs as another.
    pub(super) fn note(&self, spec: &Spec) -> Option<String> {
        match (spec.algorithm, self) {
            (Algorithm::Ring | Algorithm::SegmentedRing, AllreduceShape::RecursiveDoubling) => {
                Some("fewer elements than ranks: runs as recursive_doubling".into())
            }
            (Algorithm::SegmentedRing, AllreduceShape::Ring { phases: 1 }) => Some(
                "fewer elements than one segment per rank (or no segment size): runs as ring"
                    .into(),
            ),
            (Algorithm::Rabenseifner, AllreduceShape::ReduceBcast(_)) => {
                Some("fewer elements than the largest power of two of ranks: runs as linear".into())
            }
            _ => None,
        }
    }

    /// How the vector is cut: the ring's pieces (p blocks × phases), the
    /// phases' own cuts, or the whole vector.
    pub(super) fn segmentation(&self, spec: &Spec) -> Vec<Segments> {
        let m = spec.msg_bytes;
        match self {
            AllreduceShape::ReduceBcast(phases) => {
                phases.iter().flat_map(|s| s.segmentation()).collect()
            }
            AllreduceShape::Ring { phases } => {
                let e = element_bytes(m);
                let (_, block_len) = block(m / e, u64::from(spec.procs), 0);
                vec![Segments::new(0, m, block(block_len, *phases, 0).1 * e)]
            }
            _ => vec![Segments::new(0, m, 0)],
        }
    }

    /// What the ranks do, for people.
    pub(super) fn describe(&self) -> String {
        match self {
            AllreduceShape::ReduceBcast(phases) => format!(
                "reduce to rank 0 ({}), then broadcast from it ({})",
                describe_phase(&phases[0]),
                describe_phase(&phases[1])
            ),
            AllreduceShape::RecursiveDoubling => {
                "pairwise exchanges of the whole vector at distance 1, 2, 4, ...".into()
            }
            AllreduceShape::Ring { phases } => format!(
                "reduce-scatter around the ring in {phases} phase(s), then allgather around it"
            ),
            AllreduceShape::Rabenseifner => {
                "reduce-scatter by recursive halving, then allgather by recursive doubling".into()
            }
        }
    }
}

fn describe_phase(s: &Schedule) -> String {
    let seg = s.segmentation().first().map_or(0, |seg| seg.seg);
    if seg < s.spec.msg_bytes {
        format!("{}, {seg} B segments", s.spec.algorithm)
    } else {
        s.spec.algorithm.to_string()
    }
}

/// `allreduce_intra_recursivedoubling`: with p' the largest power of two
/// below p, the first 2(p − p') ranks pair up: the even one hands its
/// vector to the odd one and waits for the result. The p' others exchange
/// and combine the whole vector with partners at distance 1, 2, 4 ….
fn recursive_doubling_ops(spec: &Spec, rank: u32, ops: &mut Vec<Op>) {
    let p = spec.procs;
    let pof2 = 1u32 << p.ilog2();
    let extra = p - pof2;
    let all = Span {
        start: 0,
        end: spec.msg_bytes,
    };
    let folded = rank < 2 * extra;
    let newrank = if !folded {
        Some(rank - extra)
    } else if rank.is_multiple_of(2) {
        ops.push(Op::Send {
            peer: rank + 1,
            bytes: all,
        });
        None
    } else {
        let peer = rank - 1;
        ops.extend([
            Op::IrecvPartial { peer, bytes: all },
            Op::WaitRecv,
            Op::Combine { peer, bytes: all },
        ]);
        Some(rank / 2)
    };
    if let Some(newrank) = newrank {
        let mut distance = 1;
        while distance < pof2 {
            let v = newrank ^ distance;
            let remote = if v < extra { 2 * v + 1 } else { v + extra };
            exchange(ops, remote, all, all);
            distance <<= 1;
        }
    }
    if folded && rank.is_multiple_of(2) {
        ops.push(Op::Recv {
            peer: rank + 1,
            bytes: all,
        });
    } else if folded {
        ops.push(Op::Send {
            peer: rank - 1,
            bytes: all,
        });
    }
}

/// `allreduce_intra_ring` and `_ring_segmented`: the vector is cut into p
/// blocks (the first `count % p` one element longer). In each phase every
/// rank sends its own block's piece to the right, then p − 2 times
/// receives the left neighbour's running piece, combines it and passes it
/// on, keeping two receives in flight; the last piece it combines (block
/// r + 1) is finished. Then p − 1 steps pass finished whole blocks around.
fn ring_ops(spec: &Spec, phases: u64, rank: u32, ops: &mut Vec<Op>) {
    let (p, m) = (spec.procs, spec.msg_bytes);
    let e = element_bytes(m);
    let count = m / e;
    let blocks = u64::from(p);
    let span = |(start, len): (u64, u64)| Span {
        start: start * e,
        end: (start + len) * e,
    };
    let at = |k: u32| (u64::from(rank) + blocks * 2 - u64::from(k)) % blocks;
    // Block b's piece in `phase` (`COLL_BASE_COMPUTE_BLOCKCOUNT` again,
    // inside the block).
    let piece = |b: u64, phase: u64| {
        let (start, len) = block(count, blocks, b);
        let (offset, n) = block(len, phases, phase);
        span((start + offset, n))
    };
    let (right, left) = ((rank + 1) % p, (rank + p - 1) % p);
    for phase in 0..phases {
        ops.push(Op::IrecvPartial {
            peer: left,
            bytes: piece(at(1), phase),
        });
        ops.push(Op::Send {
            peer: right,
            bytes: piece(at(0), phase),
        });
        for k in 2..p {
            let done = piece(at(k - 1), phase);
            ops.extend([
                Op::IrecvPartial {
                    peer: left,
                    bytes: piece(at(k), phase),
                },
                Op::WaitRecv,
                Op::Combine {
                    peer: left,
                    bytes: done,
                },
                Op::Send {
                    peer: right,
                    bytes: done,
                },
            ]);
        }
        ops.extend([
            Op::WaitRecv,
            Op::Combine {
                peer: left,
                bytes: piece(at(p - 1), phase),
            },
        ]);
    }
    for k in 0..p - 1 {
        ops.extend([
            Op::Irecv {
                peer: left,
                bytes: span(block(count, blocks, at(k))),
            },
            Op::Send {
                peer: right,
                bytes: span(block(count, blocks, (at(k) + 1) % blocks)),
            },
            Op::WaitRecv,
        ]);
    }
}

/// `allreduce_intra_redscat_allgather`: fold to the largest power of two
/// p' (as reduce's Rabenseifner), reduce-scatter by recursive halving,
/// allgather the windows back by recursive doubling, and hand the result
/// to the ranks that folded away.
fn rabenseifner_ops(spec: &Spec, rank: u32, ops: &mut Vec<Op>) {
    let halving = Halving::new(spec.procs, spec.msg_bytes);
    if let Some(v) = halving.fold(rank, ops) {
        let (kept, gave) = halving.windows(v);
        halving.reduce_scatter(v, &kept, &gave, ops);
        for j in (0..halving.steps).rev() {
            let peer = halving.real(v ^ (1 << j));
            let (k, g) = (kept[j as usize], gave[j as usize]);
            ops.extend([
                Op::Irecv {
                    peer,
                    bytes: halving.span(g.0, g.1),
                },
                Op::Send {
                    peer,
                    bytes: halving.span(k.0, k.1),
                },
                Op::WaitRecv,
            ]);
        }
    }
    if rank < 2 * halving.rem {
        let all = Span {
            start: 0,
            end: spec.msg_bytes,
        };
        if rank % 2 == 1 {
            ops.push(Op::Recv {
                peer: rank - 1,
                bytes: all,
            });
        } else {
            ops.push(Op::Send {
                peer: rank + 1,
                bytes: all,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schedule(algorithm: Algorithm, procs: u32, msg: u64, segsize: u64) -> Schedule {
        Schedule::new(Spec {
            collective: Collective::Allreduce,
            algorithm,
            procs,
            root: 0,
            msg_bytes: msg,
            segsize,
            fanout: None,
        })
        .unwrap()
    }

    fn peers(ops: &[Op]) -> Vec<u32> {
        ops.iter()
            .filter_map(|op| match op {
                Op::Send { peer, .. } => Some(*peer),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn recursive_doubling_folds_even_ranks_into_odd_ones() {
        // 6 ranks: p' = 4, ranks 0 and 2 fold into 1 and 3; virtual ranks
        // 0..4 are real 1, 3, 4, 5.
        let s = schedule(Algorithm::RecursiveDoubling, 6, 64, 0);
        assert_eq!(peers(&s.ops(0)), [1]);
        assert_eq!(peers(&s.ops(1)), [3, 4, 0]);
        assert_eq!(peers(&s.ops(5)), [4, 3]);
        assert!(matches!(s.ops(0).last(), Some(Op::Recv { peer: 1, .. })));
    }

    #[test]
    fn ring_sends_right_and_receives_left() {
        let s = schedule(Algorithm::Ring, 4, 64, 0);
        // p − 1 pieces in the reduce-scatter, p − 1 blocks in the allgather.
        assert_eq!(peers(&s.ops(2)), [3; 6]);
        let sends: Vec<Span> = s
            .ops(2)
            .iter()
            .filter_map(|op| match op {
                Op::Send { bytes, .. } => Some(*bytes),
                _ => None,
            })
            .collect();
        // Own block (2) first; the allgather starts with block r + 1 = 3.
        assert_eq!(sends[0], Span { start: 32, end: 48 });
        assert_eq!(sends[3], Span { start: 48, end: 64 });
    }

    #[test]
    fn segmented_ring_phases_follow_open_mpi() {
        // 1024 floats, 4 ranks, 64-byte segments (16 floats): 1024 / 64 = 16.
        assert_eq!(ring_phases(4, 4096, 64), Some(16));
        // A remainder over half a round and at least p elements adds one.
        assert_eq!(ring_phases(4, 4 * (64 + 40), 64), Some(2));
        assert_eq!(ring_phases(4, 4 * (64 + 30), 64), Some(1));
        // Segment size 0 or fewer elements than p segments: the plain ring.
        assert_eq!(ring_phases(4, 4096, 0), None);
        assert_eq!(ring_phases(4, 4 * 60, 64), None);
        let s = schedule(Algorithm::SegmentedRing, 4, 4096, 0);
        assert_eq!(s.ops(1), schedule(Algorithm::Ring, 4, 4096, 0).ops(1));
        assert!(s.note().unwrap().contains("ring"));
    }

    #[test]
    fn fallbacks_below_p_elements() {
        // 3 floats over 4 ranks: ring runs recursive doubling; Rabenseifner
        // runs linear (fewer than p' = 4 elements).
        let ring = schedule(Algorithm::Ring, 4, 12, 0);
        assert_eq!(
            ring.ops(3),
            schedule(Algorithm::RecursiveDoubling, 4, 12, 0).ops(3)
        );
        let rab = schedule(Algorithm::Rabenseifner, 5, 12, 0);
        assert_eq!(rab.ops(4), schedule(Algorithm::Linear, 5, 12, 0).ops(4));
        assert!(rab.note().is_some());
    }

    #[test]
    fn nonoverlapping_runs_the_fixed_reduce_then_the_fixed_broadcast() {
        let s = schedule(Algorithm::Nonoverlapping, 8, 1 << 20, 0);
        let Plan::Allreduce(AllreduceShape::ReduceBcast(phases)) = &s.plan else {
            panic!("a reduce and a broadcast")
        };
        let fixed = |c| crate::ompi_fixed::decision(c, 8, 1 << 20).unwrap();
        assert_eq!(
            phases[0].spec.algorithm,
            fixed(Collective::Reduce).algorithm
        );
        assert_eq!(phases[1].spec.algorithm, fixed(Collective::Bcast).algorithm);
        let linear = schedule(Algorithm::Linear, 16, 1 << 20, 0);
        // Linear: rank 5 sends to 0 and receives from it.
        assert_eq!(peers(&linear.ops(5)), [0]);
        assert!(matches!(
            linear.ops(5).last(),
            Some(Op::Recv { peer: 0, .. })
        ));
        // At 16 ranks and 1 MiB the fixed broadcast is scatter_allgather,
        // which has no schedule here: said, not guessed.
        let spec = Spec {
            procs: 16,
            ..s.spec
        };
        let err = Schedule::new(spec).unwrap_err();
        assert!(err.contains("scatter_allgather"), "{err}");
    }
}
