//! Scatter schedules as Open MPI 4.1 and 5.0 run them
//! (`coll_base_scatter.c`): basic_linear, binomial and linear_nb.
//!
//! The buffer is the root's send buffer of p blocks of `msg_bytes`, block
//! r at `r · msg_bytes`, the block rank r must end with. The root starts
//! holding all of them; every block reaches its rank once. Binomial works
//! on virtual ranks v = (rank − root) mod p and keeps its blocks in that
//! order, so a subtree's blocks are a run that may wrap past the last
//! block to the first: such a span ends beyond the buffer
//! ([`super::Span::pieces`]), as an allgather's may.
//!
//! `linear_nb` posts every send at once with Open MPI's default
//! `coll_tuned_scatter_algorithm_max_requests` of 0 (no blocking send
//! every so many).

use super::{Op, Plan, Span, Spec, Tree};
use crate::data::Algorithm;

/// Scatter algorithms with a schedule (what `impl=own` can run).
pub const SCHEDULED: [Algorithm; 3] = [Algorithm::Linear, Algorithm::Binomial, Algorithm::LinearNb];

/// How a scatter runs.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum ScatterShape {
    /// The root sends each rank its block in turn, blocking, in rank
    /// order.
    Linear,
    /// The root posts a non-blocking send to every rank, then waits.
    LinearNb,
    /// Down an in-order binomial tree: each rank receives its subtree's
    /// blocks from its parent, then sends each child its subtree's, the
    /// largest subtree first.
    Binomial(Tree),
}

/// Scatter's schedules: the root starts with the p blocks.
pub(super) struct ScatterLayout;

impl super::Layout for ScatterLayout {
    fn holds_at_start(&self, spec: &Spec, rank: u32, hold: &mut dyn FnMut(Span)) {
        let blocks = u64::from(spec.procs) * spec.msg_bytes;
        super::root_holds(spec, rank, blocks, hold)
    }

    fn needs_at_end(&self, spec: &Spec, rank: u32) -> Option<Span> {
        Some(block(spec, rank))
    }

    fn tree_depth(&self, spec: &Spec) -> Option<u32> {
        binomial_depth(spec)
    }

    /// The root's block from its place into its receive buffer.
    fn local_copy(&self, spec: &Spec, rank: u32) -> Option<(Span, Span)> {
        (rank == spec.root).then(|| (block(spec, rank), block(spec, spec.procs)))
    }

    // A tree: its depth says how it grows, without building a schedule.
    fn doubles(&self, _spec: &Spec) -> Option<bool> {
        None
    }
}

/// The depth of a binomial gather's or scatter's tree: an in-order
/// binomial tree's deepest rank has the most set bits below p, ⌊log₂ p⌋
/// of them; the linear algorithms have no tree.
pub(super) fn binomial_depth(spec: &Spec) -> Option<u32> {
    (spec.algorithm == Algorithm::Binomial).then(|| 31 - spec.procs.leading_zeros())
}

/// The scatter plan of `spec` (p > 1, a non-empty block).
pub(super) fn plan(spec: &Spec) -> Result<Plan, String> {
    let shape = match spec.algorithm {
        Algorithm::Linear => ScatterShape::Linear,
        Algorithm::LinearNb => ScatterShape::LinearNb,
        Algorithm::Binomial => {
            ScatterShape::Binomial(Tree::in_order_binomial(spec.procs, spec.root))
        }
        other => {
            return Err(format!(
                "no scatter schedule for '{other}' (own scatter algorithms: {})",
                SCHEDULED.map(|a| a.name()).join(", ")
            ))
        }
    };
    Ok(Plan::Scatter(shape))
}

/// The blocks of the ranks of `rank`'s subtree in an in-order binomial
/// tree rooted at `spec.root`: `rank`'s block and those of the virtual
/// ranks after it up to the next multiple of v's lowest set bit (all of
/// them for the root), wrapping past the last block.
pub(super) fn subtree(spec: &Spec, rank: u32) -> Span {
    let (p, m) = (spec.procs, spec.msg_bytes);
    let v = (rank + p - spec.root) % p;
    let size = if v == 0 {
        p
    } else {
        (1u32 << v.trailing_zeros()).min(p - v)
    };
    let start = u64::from(rank) * m;
    Span {
        start,
        end: start + u64::from(size) * m,
    }
}

/// The block rank `rank` ends with.
pub(super) fn block(spec: &Spec, rank: u32) -> Span {
    let start = u64::from(rank) * spec.msg_bytes;
    Span {
        start,
        end: start + spec.msg_bytes,
    }
}

impl ScatterShape {
    pub(super) fn tree(&self) -> Option<&Tree> {
        match self {
            ScatterShape::Binomial(tree) => Some(tree),
            ScatterShape::Linear | ScatterShape::LinearNb => None,
        }
    }

    pub(super) fn describe(&self, spec: &Spec) -> Option<String> {
        let root = spec.root;
        match self {
            ScatterShape::Linear => Some(format!(
                "flat: root {root} sends every other rank its block in turn, blocking"
            )),
            ScatterShape::LinearNb => Some(format!(
                "flat: root {root} posts a send of its block to every other rank, then waits"
            )),
            ScatterShape::Binomial(_) => None,
        }
    }

    /// Rank `rank`'s operations.
    pub(super) fn ops(&self, spec: &Spec, rank: u32, ops: &mut Vec<Op>) {
        let (p, root) = (spec.procs, spec.root);
        let others = (0..p).filter(|&r| r != root);
        match self {
            ScatterShape::Linear | ScatterShape::LinearNb if rank != root => ops.push(Op::Recv {
                peer: root,
                bytes: block(spec, rank),
            }),
            ScatterShape::Linear => ops.extend(others.map(|peer| Op::Send {
                peer,
                bytes: block(spec, peer),
            })),
            ScatterShape::LinearNb => {
                ops.extend(others.map(|peer| Op::Isend {
                    peer,
                    bytes: block(spec, peer),
                }));
                ops.push(Op::WaitSends);
            }
            ScatterShape::Binomial(tree) => {
                if let Some(parent) = tree.parent[rank as usize] {
                    ops.push(Op::Recv {
                        peer: parent,
                        bytes: subtree(spec, rank),
                    });
                }
                for &child in tree.children(rank).iter().rev() {
                    ops.push(Op::Send {
                        peer: child,
                        bytes: subtree(spec, child),
                    });
                }
            }
        }
    }
}
