//! Broadcast schedules as Open MPI 4.1 runs them (`coll_base_bcast.c`):
//! the generic pipelined executor (chain, pipeline, binary, binomial,
//! knomial), split-binary with its blocking sends and half exchange, linear
//! with p − 1 outstanding sends, plus `sbbt`.

use super::{Op, Plan, Segments, Span, Spec, Tree, DEFAULT_FANOUT, MAX_FANOUT};
use crate::data::Algorithm;

/// Broadcast's schedules: the root holds the message.
pub(super) struct BcastLayout;

impl super::Layout for BcastLayout {
    fn holds_at_start(&self, spec: &Spec, rank: u32, hold: &mut dyn FnMut(Span)) {
        super::root_holds(spec, rank, spec.msg_bytes, hold)
    }

    fn tree_depth(&self, spec: &Spec) -> Option<u32> {
        tree_depth(spec)
    }

    // A tree: its depth says how it grows, without building a schedule.
    fn doubles(&self, _spec: &Spec) -> Option<bool> {
        None
    }

    fn segment_bytes(&self, spec: &Spec) -> Option<u64> {
        Some(spec.segsize)
    }
}

/// The broadcast plan of `spec` (p > 1, a non-empty message).
pub(super) fn plan(spec: &Spec) -> Result<Plan, String> {
    let (p, root, m) = (spec.procs, spec.root, spec.msg_bytes);
    let fanout = spec.fanout.unwrap_or(DEFAULT_FANOUT);
    let pipelined = |tree: Tree| Plan::Pipelined {
        tree,
        segments: Segments::new(0, m, spec.segsize),
    };
    Ok(match spec.algorithm {
        Algorithm::Linear => Plan::Linear,
        Algorithm::Chain => pipelined(Tree::chain(p, root, fanout)),
        Algorithm::Pipeline => pipelined(Tree::chain(p, root, 1)),
        Algorithm::Binary => pipelined(Tree::kary(p, root, 2)),
        Algorithm::Binomial => pipelined(Tree::binomial(p, root)),
        Algorithm::Knomial if fanout < 2 => {
            return Err(format!("knomial radix must be at least 2, got {fanout}"))
        }
        Algorithm::Knomial => pipelined(Tree::knomial(p, root, fanout)),
        Algorithm::Sbbt => Plan::Blocking {
            tree: Tree::binomial(p, root),
        },
        Algorithm::SplitBinary => split_binary(p, root, m, spec.segsize)
            .unwrap_or_else(|| pipelined(Tree::chain(p, root, 1))),
        Algorithm::Arrival => {
            return Err(
                "'arrival' has no fixed schedule: its rounds depend on the order \
                 in which ranks arrive (see schedule::arrival)"
                    .into(),
            )
        }
        other @ (Algorithm::Default
        | Algorithm::Tuned
        | Algorithm::ScatterAllgather
        | Algorithm::ScatterAllgatherRing
        | Algorithm::InOrderBinary
        | Algorithm::Rabenseifner
        | Algorithm::Nonoverlapping
        | Algorithm::RecursiveDoubling
        | Algorithm::Ring
        | Algorithm::SegmentedRing
        | Algorithm::AllgatherReduce
        | Algorithm::Bruck
        | Algorithm::Neighbor
        | Algorithm::TwoProc
        | Algorithm::Sparbit
        | Algorithm::RecursiveHalving
        | Algorithm::Butterfly
        | Algorithm::Pairwise
        | Algorithm::ModifiedBruck
        | Algorithm::LinearSync
        | Algorithm::LinearNb
        | Algorithm::Nb
        | Algorithm::Smp
        | Algorithm::ScatterRecursiveDoublingAllgather
        | Algorithm::ScatterRingAllgather
        | Algorithm::PipelinedTree
        | Algorithm::Tree
        | Algorithm::ReduceScatterGather
        | Algorithm::RecursiveMultiplying
        | Algorithm::ReduceScatterAllgather
        | Algorithm::Recexch
        | Algorithm::KReduceScatterAllgather
        | Algorithm::Brucks
        | Algorithm::KBrucks
        | Algorithm::RecexchDoubling
        | Algorithm::RecexchHalving
        | Algorithm::Scattered
        | Algorithm::Noncommutative
        | Algorithm::DoubleRing
        | Algorithm::KDissemination) => {
            return Err(format!(
                "no schedule for '{other}': it is not re-implemented here \
                 (own algorithms: {})",
                SCHEDULED.map(|a| a.name()).join(", ")
            ))
        }
    })
}

/// [`super::Schedule::tree_depth`] of a broadcast (p > 1, a non-empty
/// message), without building the tree where its shape says it.
pub(super) fn tree_depth(spec: &Spec) -> Option<u32> {
    let p = spec.procs;
    // Binary (level order) and binomial trees: ⌊log₂ p⌋ levels below the
    // root (the deepest binomial rank has the most set bits below p).
    let log2 = 31 - p.leading_zeros();
    let chains = |k: u32| (p - 1).div_ceil(k.clamp(1, MAX_FANOUT).min(p - 1));
    match spec.algorithm {
        Algorithm::Chain => Some(chains(spec.fanout.unwrap_or(DEFAULT_FANOUT))),
        Algorithm::Pipeline => Some(p - 1),
        Algorithm::Binary | Algorithm::Binomial | Algorithm::Sbbt => Some(log2),
        Algorithm::SplitBinary => Some(match split_halves(spec.msg_bytes, spec.segsize) {
            Some(_) => log2,
            None => p - 1,
        }),
        Algorithm::Knomial => Some(super::Schedule::new(*spec).ok()?.tree()?.depth()),
        _ => None,
    }
}

/// Broadcast algorithms with a schedule (what `impl=own` can run).
pub const SCHEDULED: [Algorithm; 8] = [
    Algorithm::Linear,
    Algorithm::Chain,
    Algorithm::Pipeline,
    Algorithm::SplitBinary,
    Algorithm::Binary,
    Algorithm::Binomial,
    Algorithm::Knomial,
    Algorithm::Sbbt,
];

/// Open MPI's generic executor: the root sends each segment to all children
/// and waits for those sends; others keep up to two receives posted, forward
/// segment k − 1 to all children once it arrives, and wait for those sends.
pub(super) fn pipelined_ops(tree: &Tree, segments: &Segments, rank: u32, ops: &mut Vec<Op>) {
    let children = tree.children(rank);
    let forward = |ops: &mut Vec<Op>, bytes: Span| {
        if !children.is_empty() {
            ops.extend(children.iter().map(|&peer| Op::Isend { peer, bytes }));
            ops.push(Op::WaitSends);
        }
    };
    let Some(parent) = tree.parent[rank as usize] else {
        for bytes in segments.spans() {
            forward(ops, bytes);
        }
        return;
    };
    receive_and_forward(parent, segments, ops, forward);
}

/// A non-root rank's receive loop, shared by the generic executor and
/// split-binary: keep two receives posted (segment k posted before waiting
/// for k − 1), forward each segment once it arrived.
fn receive_and_forward(
    parent: u32,
    segments: &Segments,
    ops: &mut Vec<Op>,
    forward: impl Fn(&mut Vec<Op>, Span),
) {
    let n = segments.count();
    ops.push(Op::Irecv {
        peer: parent,
        bytes: segments.span(0),
    });
    for k in 1..n {
        ops.push(Op::Irecv {
            peer: parent,
            bytes: segments.span(k),
        });
        ops.push(Op::WaitRecv);
        forward(ops, segments.span(k - 1));
    }
    ops.push(Op::WaitRecv);
    forward(ops, segments.span(n - 1));
}

/// Split-binary's plan, or `None` when Open MPI falls back to a pipeline.
fn split_binary(procs: u32, root: u32, msg: u64, segsize: u64) -> Option<Plan> {
    Some(Plan::SplitBinary {
        tree: Tree::kary(procs, root, 2),
        halves: split_halves(msg, segsize)?,
    })
}

/// How split-binary cuts `msg` bytes: the two halves (the first one byte
/// longer when `msg` is odd), each in segments of `segsize` (0: one
/// segment). `None` when Open MPI falls back to a pipeline instead: either
/// half empty, or a segment larger than a half.
pub fn split_halves(msg: u64, segsize: u64) -> Option<[Segments; 2]> {
    let first = msg.div_ceil(2);
    let second = msg - first;
    if first == 0 || second == 0 || segsize > first || segsize > second {
        return None;
    }
    // Unlike the generic rule, a segment equal to a half still counts as one.
    let half = |offset, total| Segments {
        offset,
        total,
        seg: if segsize == 0 { total } else { segsize },
    };
    Some([half(0, first), half(first, second)])
}

/// Split-binary: odd virtual ranks form the left subtree and carry the first
/// half, even ones (and the root) the second. Sends are blocking. Afterwards
/// odd v swaps halves with v + 1 and even v with v − 1; with an even number
/// of ranks, the last rank (odd, no partner) gets the second half from the
/// root instead.
pub(super) fn split_binary_ops(tree: &Tree, halves: &[Segments; 2], rank: u32, ops: &mut Vec<Op>) {
    let p = tree.procs();
    let v = (rank + p - tree.root) % p;
    let children = tree.children(rank);
    let whole = |s: &Segments| Span {
        start: s.offset,
        end: s.offset + s.total,
    };
    let lr = ((v + 1) % 2) as usize;
    match tree.parent[rank as usize] {
        None => {
            for k in 0..halves[0].count() {
                for (i, &peer) in children.iter().enumerate().take(2) {
                    if k < halves[i].count() {
                        ops.push(Op::Send {
                            peer,
                            bytes: halves[i].span(k),
                        });
                    }
                }
            }
        }
        Some(parent) if !children.is_empty() => {
            receive_and_forward(parent, &halves[lr], ops, |ops, bytes| {
                ops.extend(children.iter().map(|&peer| Op::Send { peer, bytes }));
            });
        }
        Some(parent) => {
            for bytes in halves[lr].spans() {
                ops.push(Op::Recv {
                    peer: parent,
                    bytes,
                });
            }
        }
    }
    // Exchange phase.
    let last = (tree.root + p - 1) % p;
    if p.is_multiple_of(2) && rank == tree.root {
        ops.push(Op::Send {
            peer: last,
            bytes: whole(&halves[1]),
        });
    } else if p.is_multiple_of(2) && rank == last {
        ops.push(Op::Recv {
            peer: tree.root,
            bytes: whole(&halves[1]),
        });
    } else if rank != tree.root {
        let pair = if lr == 0 {
            (rank + 1) % p
        } else {
            (rank + p - 1) % p
        };
        ops.push(Op::Irecv {
            peer: pair,
            bytes: whole(&halves[1 - lr]),
        });
        ops.push(Op::Send {
            peer: pair,
            bytes: whole(&halves[lr]),
        });
        ops.push(Op::WaitRecv);
    }
}
