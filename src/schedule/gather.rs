//! Gather schedules as Open MPI 4.1 and 5.0 run them
//! (`coll_base_gather.c`): basic_linear, binomial and linear_sync.
//!
//! The buffer is the root's receive buffer of p blocks of `msg_bytes`,
//! block r at `r · msg_bytes`; rank r starts holding its block there, and
//! the root must end holding all of them, each received once. Binomial's
//! subtrees are runs of virtual ranks, as a scatter's
//! ([`super::scatter::subtree`]).
//!
//! `linear_sync`'s root asks each rank in turn for its block with an
//! empty message and receives its first segment (`segsize`; all of it
//! when 0, as the fixed decision and an unset
//! `coll_tuned_gather_algorithm_segmentsize` run it), then the rest. Open
//! MPI posts the receive of the first segment before the empty message
//! and that of the rest before waiting for the first; here the first is
//! a blocking receive after the empty send (the rank cannot send before
//! the empty message reaches it) and the rest is posted once the first
//! arrived, so that receives are waited for in the order posted.

use super::scatter::{block, subtree};
use super::{Op, Plan, Segments, Span, Spec, Tree};
use crate::data::Algorithm;

/// Gather algorithms with a schedule (what `impl=own` can run).
pub const SCHEDULED: [Algorithm; 3] = [
    Algorithm::Linear,
    Algorithm::Binomial,
    Algorithm::LinearSync,
];

/// How a gather runs.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum GatherShape {
    /// Every rank sends the root its block; the root receives them in
    /// rank order, blocking.
    Linear,
    /// The root asks each rank in turn (an empty message) and receives
    /// its block in two messages: the first segment, then the rest.
    LinearSync,
    /// Up an in-order binomial tree: each rank receives its children's
    /// subtrees' blocks, the smallest first, then sends its own subtree's
    /// to its parent.
    Binomial(Tree),
}

/// Gather's schedules: the root's p blocks, each rank starting with its
/// own.
pub(super) struct GatherLayout;

impl super::Layout for GatherLayout {
    fn holds_at_start(&self, spec: &Spec, rank: u32, hold: &mut dyn FnMut(Span)) {
        hold(block(spec, rank))
    }

    /// The root needs every block, the others keep their own.
    fn needs_at_end(&self, spec: &Spec, rank: u32) -> Option<Span> {
        (rank != spec.root).then(|| block(spec, rank))
    }

    fn tree_depth(&self, spec: &Spec) -> Option<u32> {
        super::scatter::binomial_depth(spec)
    }

    /// The root's block from its send buffer into place, and a binomial
    /// gather's every even rank counted from the root's too (Open MPI
    /// gathers its subtree's blocks behind its own there).
    fn local_copy(&self, spec: &Spec, rank: u32) -> Option<(Span, Span)> {
        let (root, p) = (spec.root, spec.procs);
        let inner = ((rank + p - root) % p).is_multiple_of(2);
        let binomial_inner = spec.algorithm == Algorithm::Binomial && inner;
        (rank == root || binomial_inner).then(|| (block(spec, p), block(spec, rank)))
    }

    // A tree: its depth says how it grows, without building a schedule.
    fn doubles(&self, _spec: &Spec) -> Option<bool> {
        None
    }
}

/// The gather plan of `spec` (p > 1, a non-empty block).
pub(super) fn plan(spec: &Spec) -> Result<Plan, String> {
    let shape = match spec.algorithm {
        Algorithm::Linear => GatherShape::Linear,
        Algorithm::LinearSync => GatherShape::LinearSync,
        Algorithm::Binomial => {
            GatherShape::Binomial(Tree::in_order_binomial(spec.procs, spec.root))
        }
        other => {
            return Err(format!(
                "no gather schedule for '{other}' (own gather algorithms: {})",
                SCHEDULED.map(|a| a.name()).join(", ")
            ))
        }
    };
    Ok(Plan::Gather(shape))
}

impl GatherShape {
    pub(super) fn tree(&self) -> Option<&Tree> {
        match self {
            GatherShape::Binomial(tree) => Some(tree),
            GatherShape::Linear | GatherShape::LinearSync => None,
        }
    }

    pub(super) fn describe(&self, spec: &Spec) -> Option<String> {
        let root = spec.root;
        match self {
            GatherShape::Linear => Some(format!(
                "flat: every other rank sends root {root} its block; the root receives them \
                 in rank order"
            )),
            GatherShape::LinearSync => Some(format!(
                "flat: root {root} asks each rank in turn with an empty message and receives \
                 its block's first segment, then the rest"
            )),
            GatherShape::Binomial(_) => None,
        }
    }

    /// The two messages of `rank`'s block under linear_sync: its first
    /// segment and the rest (empty when the segment is the whole block).
    fn halves(spec: &Spec, rank: u32) -> [Span; 2] {
        let own = block(spec, rank);
        let first = Segments::new(own.start, own.len(), spec.segsize).span(0);
        [
            first,
            Span {
                start: first.end,
                end: own.end,
            },
        ]
    }

    /// Rank `rank`'s operations.
    pub(super) fn ops(&self, spec: &Spec, rank: u32, ops: &mut Vec<Op>) {
        let (p, root) = (spec.procs, spec.root);
        let others = (0..p).filter(|&r| r != root);
        let ask = |at: u32| Span {
            start: u64::from(at) * spec.msg_bytes,
            end: u64::from(at) * spec.msg_bytes,
        };
        match self {
            GatherShape::Linear if rank != root => ops.push(Op::Send {
                peer: root,
                bytes: block(spec, rank),
            }),
            GatherShape::Linear => ops.extend(others.map(|peer| Op::Recv {
                peer,
                bytes: block(spec, peer),
            })),
            GatherShape::LinearSync if rank != root => {
                let [first, rest] = GatherShape::halves(spec, rank);
                ops.extend([
                    Op::Recv {
                        peer: root,
                        bytes: ask(rank),
                    },
                    Op::Send {
                        peer: root,
                        bytes: first,
                    },
                    Op::Send {
                        peer: root,
                        bytes: rest,
                    },
                ]);
            }
            GatherShape::LinearSync => {
                for peer in others.clone() {
                    let [first, rest] = GatherShape::halves(spec, peer);
                    ops.extend([
                        Op::Send {
                            peer,
                            bytes: ask(peer),
                        },
                        Op::Recv { peer, bytes: first },
                        Op::Irecv { peer, bytes: rest },
                    ]);
                }
                ops.extend(others.map(|_| Op::WaitRecv));
            }
            GatherShape::Binomial(tree) => {
                for &child in tree.children(rank) {
                    ops.push(Op::Recv {
                        peer: child,
                        bytes: subtree(spec, child),
                    });
                }
                if let Some(parent) = tree.parent[rank as usize] {
                    ops.push(Op::Send {
                        peer: parent,
                        bytes: subtree(spec, rank),
                    });
                }
            }
        }
    }
}
