//! Reduce schedules as Open MPI 4.1 runs them (`coll_base_reduce.c`, its
//! commutative path, which `MPI_SUM` takes): the generic segmented tree
//! executor (chain, pipeline, binary, binomial, in-order binary), linear,
//! and Rabenseifner's reduce-scatter + gather.
//!
//! Data model: every rank starts with its own contribution as its partial
//! result ("the buffer"). A send passes bytes of the buffer on; a partial
//! result received to be combined lands in scratch memory
//! ([`Op::IrecvPartial`]) and [`Op::Combine`] folds it into the buffer; a
//! plain receive ([`Op::Irecv`], [`Op::Recv`]) writes finished bytes into
//! the buffer. The simulator proves that the root ends with every rank's
//! contribution combined exactly once.

use super::{Op, Plan, Segments, Span, Spec, Tree, Working, DEFAULT_FANOUT};
use crate::data::{element_bytes, Algorithm};

/// Reduce's schedules: one buffer, every rank's contribution followed
/// apart.
pub(super) struct ReduceLayout;

impl super::Layout for ReduceLayout {
    // A tree: its depth says how it grows, without building a schedule.
    fn doubles(&self, _spec: &Spec) -> Option<bool> {
        None
    }

    fn segment_bytes(&self, spec: &Spec) -> Option<u64> {
        Some(segments(spec.msg_bytes, spec.segsize).seg)
    }
}

/// The reduce plan of `spec` (p > 1, a non-empty message).
pub(super) fn plan(spec: &Spec) -> Result<Plan, String> {
    let (p, root, m) = (spec.procs, spec.root, spec.msg_bytes);
    let tree = |tree: Tree| Plan::ReduceTree {
        tree,
        segments: segments(m, spec.segsize),
        root,
    };
    Ok(match spec.algorithm {
        Algorithm::Linear => Plan::ReduceLinear,
        Algorithm::Chain => tree(Tree::chain(p, root, spec.fanout.unwrap_or(DEFAULT_FANOUT))),
        Algorithm::Pipeline => tree(Tree::chain(p, root, 1)),
        Algorithm::Binary => tree(Tree::kary(p, root, 2)),
        Algorithm::Binomial => tree(Tree::in_order_binomial(p, root)),
        Algorithm::InOrderBinary => tree(Tree::in_order_binary(p)),
        Algorithm::Rabenseifner if p.ilog2() >= 1 && m / element_bytes(m) >= 1 << p.ilog2() => {
            Plan::ReduceScatterGather
        }
        // Open MPI's own fallback: fewer floats than the power of two.
        Algorithm::Rabenseifner => Plan::ReduceLinear,
        other => {
            return Err(format!(
                "no reduce schedule for '{other}' (own reduce algorithms: {})",
                SCHEDULED.map(|a| a.name()).join(", ")
            ))
        }
    })
}

/// Reduce algorithms with a schedule (what `impl=own` can run).
pub const SCHEDULED: [Algorithm; 7] = [
    Algorithm::Linear,
    Algorithm::Chain,
    Algorithm::Pipeline,
    Algorithm::Binary,
    Algorithm::Binomial,
    Algorithm::InOrderBinary,
    Algorithm::Rabenseifner,
];

/// The buffers Open MPI's reduce allocates on `rank` every call, in
/// order (`coll_base_reduce.c`). The generic executor: an inner rank other
/// than the tree's top an accumulator of the whole message, every inner
/// rank one segment to receive into, and a second where there are several
/// segments or children; in-order binary's top, when it is not the root,
/// the whole message to hold the result before it hands it over. Linear:
/// the root the whole message to receive into. Rabenseifner: every rank
/// the whole message to receive into, every rank but the root a copy of
/// its send buffer to combine into.
pub(super) fn working_memory(plan: &Plan, spec: &Spec, rank: u32) -> Vec<Working> {
    let m = spec.msg_bytes;
    let mut out = Vec::new();
    match plan {
        Plan::ReduceTree {
            tree,
            segments,
            root,
        } => {
            if rank == tree.root && tree.root != *root {
                out.push(Working::written(m));
            }
            let kids = tree.children(rank).len();
            if kids > 0 {
                if rank != tree.root {
                    out.push(Working::written(m));
                }
                let segment = Working::written(segments.span(0).len());
                out.push(segment);
                if segments.count() > 1 || kids > 1 {
                    out.push(segment);
                }
            }
        }
        Plan::ReduceLinear if rank == spec.root => out.push(Working::written(m)),
        Plan::ReduceScatterGather => {
            out.push(Working::written(m));
            if rank != spec.root {
                out.push(Working::copy(m));
            }
        }
        _ => {}
    }
    out
}

/// Open MPI's segment of whole elements (`COLL_BASE_COMPUTED_SEGCOUNT`):
/// `segsize` rounded to the nearest number of elements (a remainder of
/// exactly half an element rounds down), one segment when that is not
/// below the message.
pub fn segments(msg: u64, segsize: u64) -> Segments {
    let e = element_bytes(msg);
    let mut count = msg / e;
    if segsize >= e && segsize < msg {
        count = segsize / e;
        if segsize % e > e / 2 {
            count += 1;
        }
    }
    Segments::new(0, msg, count * e)
}

/// The generic executor's program for `rank` (`reduce_generic`, no limit
/// on outstanding sends, Open MPI's default): a leaf sends its segments
/// with blocking sends; an inner rank keeps receives from two children or
/// segments in flight, combines each child's segment after it arrived, and
/// sends a segment up once every child's part of it is combined. In-order
/// binary's tree is rooted at p − 1; that rank then hands the result to
/// the real root.
pub(super) fn tree_ops(tree: &Tree, segments: &Segments, root: u32, rank: u32, ops: &mut Vec<Op>) {
    let kids = tree.children(rank);
    let parent = tree.parent[rank as usize];
    let n = segments.count();
    if kids.is_empty() {
        if let Some(peer) = parent {
            ops.extend((0..n).map(|k| Op::Send {
                peer,
                bytes: segments.span(k),
            }));
        }
    } else {
        let k = kids.len();
        'segments: for s in 0..=n {
            for (i, &child) in kids.iter().enumerate() {
                if s < n {
                    ops.push(Op::IrecvPartial {
                        peer: child,
                        bytes: segments.span(s),
                    });
                }
                if s == 0 && i == 0 {
                    continue;
                }
                ops.push(Op::WaitRecv);
                if i > 0 {
                    ops.push(Op::Combine {
                        peer: kids[i - 1],
                        bytes: segments.span(s),
                    });
                } else {
                    let bytes = segments.span(s - 1);
                    ops.push(Op::Combine {
                        peer: kids[k - 1],
                        bytes,
                    });
                    if let Some(peer) = parent {
                        ops.push(Op::Send { peer, bytes });
                    }
                    if s == n {
                        break 'segments;
                    }
                }
            }
        }
    }
    let all = Span {
        start: 0,
        end: segments.total,
    };
    if tree.root != root && rank == tree.root {
        ops.push(Op::Send {
            peer: root,
            bytes: all,
        });
    } else if tree.root != root && rank == root {
        ops.push(Op::Recv {
            peer: tree.root,
            bytes: all,
        });
    }
}

/// Linear (`reduce_intra_basic_linear`): everyone sends to the root, which
/// receives from p − 1, then p − 2 down to 0, combining each in turn.
pub(super) fn linear_ops(spec: &Spec, rank: u32, ops: &mut Vec<Op>) {
    let (p, root) = (spec.procs, spec.root);
    let bytes = Span {
        start: 0,
        end: spec.msg_bytes,
    };
    if rank != root {
        ops.push(Op::Send { peer: root, bytes });
        return;
    }
    for peer in std::iter::once(p - 1)
        .chain((0..p - 1).rev())
        .filter(|&r| r != root)
    {
        ops.extend([
            Op::IrecvPartial { peer, bytes },
            Op::WaitRecv,
            Op::Combine { peer, bytes },
        ]);
    }
}

/// Rabenseifner's reduce (`reduce_intra_redscat_gather`): fold the
/// communicator to the power of two p' below p (the first 2(p − p') ranks
/// pair up, odd ones drop out), reduce-scatter by recursive halving, then
/// gather the p' blocks to the root along a binomial tree. Counts are in
/// elements, as Open MPI splits them.
pub(super) fn scatter_gather_ops(spec: &Spec, rank: u32, ops: &mut Vec<Op>) {
    let (p, root) = (spec.procs, spec.root);
    let halving = Halving::new(p, spec.msg_bytes);
    let (steps, rem) = (halving.steps, halving.rem);
    let real = |v: u32| halving.real(v);

    // Step 1: fold to p' ranks.
    let mut vrank = halving.fold(rank, ops);

    // Step 2: reduce-scatter. Every rank that takes part, and an odd root
    // that takes rank 0's place in the gather, needs the windows of its
    // virtual rank.
    let odd_root = root < 2 * rem && root % 2 == 1;
    let windows_of = if rank == root && odd_root {
        Some(0)
    } else {
        vrank
    };
    let (kept, gave) = windows_of.map_or_else(Default::default, |v| halving.windows(v));
    if let Some(v) = vrank {
        halving.reduce_scatter(v, &kept, &gave, ops);
    }
    let span = |(start, len): (u64, u64)| halving.span(start, len);

    // Step 3: gather to the root, doubling the blocks.
    let vroot = if odd_root {
        0
    } else if root < 2 * rem {
        root / 2
    } else {
        root - rem
    };
    if odd_root && rank == root {
        ops.push(Op::Recv {
            peer: 0,
            bytes: span(kept[steps as usize - 1]),
        });
        vrank = Some(0);
    } else if odd_root && vrank == Some(0) {
        ops.push(Op::Send {
            peer: root,
            bytes: span(kept[steps as usize - 1]),
        });
        vrank = None;
    }
    if let Some(v) = vrank {
        for j in (0..steps).rev() {
            let vdest = v ^ (1 << j);
            let dest = if vdest == 0 && odd_root {
                root
            } else {
                real(vdest)
            };
            if vdest >> j == vroot >> j {
                ops.push(Op::Send {
                    peer: dest,
                    bytes: span(kept[j as usize]),
                });
                break;
            }
            ops.push(Op::Recv {
                peer: dest,
                bytes: span(gave[j as usize]),
            });
        }
    }
}

/// Rabenseifner's recursive halving over the largest power of two p' of
/// ranks, shared by reduce and allreduce (`coll_base_reduce.c`,
/// `coll_base_allreduce.c` split the vector the same way): the first
/// 2(p − p') ranks fold pairwise first; counts are whole elements.
pub(super) struct Halving {
    /// log₂ p'.
    pub steps: u32,
    /// p − p': ranks that fold away.
    pub rem: u32,
    /// Elements in the vector, and bytes per element.
    count: u64,
    element: u64,
}

/// A window of the vector: (first element, elements).
pub(super) type Window = (u64, u64);

impl Halving {
    pub fn new(procs: u32, msg_bytes: u64) -> Halving {
        let steps = procs.ilog2();
        let element = element_bytes(msg_bytes);
        Halving {
            steps,
            rem: procs - (1 << steps),
            count: msg_bytes / element,
            element,
        }
    }

    /// The bytes of `len` elements from element `start`.
    pub fn span(&self, start: u64, len: u64) -> Span {
        Span {
            start: start * self.element,
            end: (start + len) * self.element,
        }
    }

    /// The real rank of virtual rank `v`.
    pub fn real(&self, v: u32) -> u32 {
        if v < self.rem {
            2 * v
        } else {
            v + self.rem
        }
    }

    /// Step 1: among the first 2(p − p') ranks, each odd rank swaps halves
    /// with its even neighbour, combines, and hands its combined half over;
    /// the even rank goes on with both halves. Returns `rank`'s virtual rank,
    /// `None` where it folded away.
    pub fn fold(&self, rank: u32, ops: &mut Vec<Op>) -> Option<u32> {
        if rank >= 2 * self.rem {
            return Some(rank - self.rem);
        }
        let left = self.count / 2;
        let (lo, hi) = (self.span(0, left), self.span(left, self.count - left));
        if rank % 2 == 1 {
            exchange(ops, rank - 1, lo, hi);
            ops.push(Op::Send {
                peer: rank - 1,
                bytes: hi,
            });
            None
        } else {
            exchange(ops, rank + 1, hi, lo);
            ops.push(Op::Recv {
                peer: rank + 1,
                bytes: hi,
            });
            Some(rank / 2)
        }
    }

    /// The windows virtual rank `v` keeps and gives away at each halving
    /// step: the lower rank of a pair keeps the lower half.
    pub fn windows(&self, v: u32) -> (Vec<Window>, Vec<Window>) {
        let (mut kept, mut gave) = (Vec::new(), Vec::new());
        let (mut start, mut size) = (0u64, self.count);
        for j in 0..self.steps {
            let (low, high) = ((start, size / 2), (start + size / 2, size - size / 2));
            let (r, s) = if v < v ^ (1 << j) {
                (low, high)
            } else {
                (high, low)
            };
            kept.push(r);
            gave.push(s);
            (start, size) = r;
        }
        (kept, gave)
    }

    /// Step 2: at step j, virtual rank `v` swaps with v xor 2^j, sending
    /// the window it gives away and combining the one it keeps.
    pub fn reduce_scatter(&self, v: u32, kept: &[Window], gave: &[Window], ops: &mut Vec<Op>) {
        for (j, (r, s)) in kept.iter().zip(gave).enumerate() {
            let peer = self.real(v ^ (1 << j));
            exchange(ops, peer, self.span(s.0, s.1), self.span(r.0, r.1));
        }
    }
}

/// Open MPI's sendrecv of a partial result: post the receive, send, wait,
/// then combine what arrived.
pub(super) fn exchange(ops: &mut Vec<Op>, peer: u32, send: Span, recv: Span) {
    ops.extend([
        Op::IrecvPartial { peer, bytes: recv },
        Op::Send { peer, bytes: send },
        Op::WaitRecv,
        Op::Combine { peer, bytes: recv },
    ]);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::Collective;
    use crate::schedule::Schedule;

    fn spec(algorithm: Algorithm, procs: u32, root: u32, msg: u64, segsize: u64) -> Spec {
        Spec {
            collective: Collective::Reduce,
            algorithm,
            procs,
            root,
            msg_bytes: msg,
            segsize,
            fanout: None,
        }
    }

    /// Open MPI's reduce allocations: inner ranks of a tree an accumulator
    /// (not the top) and one or two segments; in-order binary's top its
    /// result when not the root; linear's root the message;
    /// Rabenseifner's every rank a receive buffer and a copy (not the
    /// root).
    #[test]
    fn working_memory_is_open_mpis_per_rank() {
        let memory = |algorithm, procs, msg, segsize, rank| {
            Schedule::new(spec(algorithm, procs, 0, msg, segsize))
                .unwrap()
                .working_memory(rank)
        };
        let (copy, written) = (Working::copy, Working::written);
        // Binomial on 8 ranks: 0 has children 4, 2, 1; 4 has 6, 5; 1 none.
        assert_eq!(
            memory(Algorithm::Binomial, 8, 4000, 0, 0),
            [written(4000); 2]
        );
        assert_eq!(
            memory(Algorithm::Binomial, 8, 4000, 0, 4),
            [written(4000); 3]
        );
        assert!(memory(Algorithm::Binomial, 8, 4000, 0, 1).is_empty());
        // A pipeline of 1000-byte segments: one child, several segments.
        assert_eq!(
            memory(Algorithm::Pipeline, 4, 4000, 1000, 2),
            [written(4000), written(1000), written(1000)]
        );
        // One segment and one child: one receive buffer.
        assert_eq!(
            memory(Algorithm::Pipeline, 4, 4000, 0, 2),
            [written(4000), written(4000)]
        );
        // In-order binary on 4 ranks rooted at 3, result to root 0.
        assert_eq!(
            memory(Algorithm::InOrderBinary, 4, 4000, 0, 3),
            [written(4000); 3]
        );
        assert!(memory(Algorithm::Linear, 4, 4000, 0, 2).is_empty());
        assert_eq!(memory(Algorithm::Linear, 4, 4000, 0, 0), [written(4000)]);
        assert_eq!(
            memory(Algorithm::Rabenseifner, 4, 4000, 0, 2),
            [written(4000), copy(4000)]
        );
        assert_eq!(
            memory(Algorithm::Rabenseifner, 4, 4000, 0, 0),
            [written(4000)]
        );
    }

    #[test]
    fn segments_are_whole_floats_rounded_to_nearest() {
        assert_eq!(segments(100, 11).seg, 12);
        assert_eq!(segments(100, 10).seg, 8);
        assert_eq!(segments(100, 9).seg, 8);
        assert_eq!(segments(100, 0).seg, 100);
        assert_eq!(segments(100, 3).seg, 100);
        assert_eq!(segments(100, 100).seg, 100);
    }

    #[test]
    fn pipeline_receives_combines_and_forwards_each_segment() {
        let s = Schedule::new(spec(Algorithm::Pipeline, 3, 0, 16, 8)).unwrap();
        let seg = |k: u64| Span {
            start: 8 * k,
            end: 8 * k + 8,
        };
        assert_eq!(
            s.ops(1),
            [
                Op::IrecvPartial {
                    peer: 2,
                    bytes: seg(0)
                },
                Op::IrecvPartial {
                    peer: 2,
                    bytes: seg(1)
                },
                Op::WaitRecv,
                Op::Combine {
                    peer: 2,
                    bytes: seg(0)
                },
                Op::Send {
                    peer: 0,
                    bytes: seg(0)
                },
                Op::WaitRecv,
                Op::Combine {
                    peer: 2,
                    bytes: seg(1)
                },
                Op::Send {
                    peer: 0,
                    bytes: seg(1)
                },
            ]
        );
        assert_eq!(
            s.ops(2),
            [
                Op::Send {
                    peer: 1,
                    bytes: seg(0)
                },
                Op::Send {
                    peer: 1,
                    bytes: seg(1)
                }
            ]
        );
    }

    #[test]
    fn linear_root_takes_the_last_rank_first_then_counts_down() {
        let s = Schedule::new(spec(Algorithm::Linear, 5, 2, 8, 0)).unwrap();
        let peers: Vec<u32> = s
            .ops(2)
            .iter()
            .filter_map(|op| match op {
                Op::IrecvPartial { peer, .. } => Some(*peer),
                _ => None,
            })
            .collect();
        assert_eq!(peers, [4, 3, 1, 0]);
    }

    #[test]
    fn rabenseifner_falls_back_to_linear_below_one_float_per_rank() {
        let few = Schedule::new(spec(Algorithm::Rabenseifner, 8, 0, 4 * 7, 0)).unwrap();
        let linear = Schedule::new(spec(Algorithm::Linear, 8, 0, 4 * 7, 0)).unwrap();
        assert_eq!(few.ops(0), linear.ops(0));
        let enough = Schedule::new(spec(Algorithm::Rabenseifner, 8, 0, 4 * 8, 0)).unwrap();
        assert_ne!(enough.ops(0), linear.ops(0));
    }

    #[test]
    fn elements_are_floats_where_the_bytes_allow_and_broadcast_algorithms_are_refused() {
        assert_eq!(element_bytes(12), 4);
        assert_eq!(element_bytes(10), 2);
        assert_eq!(element_bytes(7), 1);
        // 10 bytes in 2-byte elements: segments of 4 bytes round to 2
        // elements; Rabenseifner over 4 ranks needs 4 elements.
        assert_eq!(segments(10, 5).seg, 4);
        let odd = Schedule::new(spec(Algorithm::Rabenseifner, 4, 0, 6, 0)).unwrap();
        assert!(odd.note().is_some(), "3 elements for 4 ranks: linear");
        assert!(Schedule::new(spec(Algorithm::SplitBinary, 4, 0, 16, 0)).is_err());
        assert!(Schedule::new(spec(Algorithm::Sbbt, 4, 0, 16, 0)).is_err());
    }
}
