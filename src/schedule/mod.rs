//! The single description of every algorithm of every collective: for each
//! rank, the ordered point-to-point operations it performs. The MPI harness
//! executes these operations, the simulator prices and checks them, and the
//! analytical models read their stage structure; no other code knows tree
//! shapes. Each collective's plans are built in its own module (`bcast`,
//! `reduce`, ... `barrier`; the reduce-scatters' in `reduce_scatter`), as
//! Open MPI's coll/base and MPICH run them; `op` holds the operations.

pub mod allgather;
pub mod allreduce;
pub mod alltoall;
pub mod arrival_aware;
pub mod barrier;
pub mod bcast;
pub mod gather;
mod op;
pub mod reduce;
pub mod reduce_scatter;
pub mod scatter;
pub mod tree;

use crate::data::{Algorithm, Collective};
use op::sendrecv;
pub use op::{LocalOp, Op, Span, Working};
pub use tree::{Tree, MAX_FANOUT};

/// The operations of whole collectives run one after another on `rank`
/// (a reduce, then a broadcast or a scatter).
pub(super) fn phased_ops(phases: &[Schedule], rank: u32, ops: &mut Vec<Op>) {
    for phase in phases {
        phase.ops_into(rank, ops);
    }
}

/// How deep collectives run one after another: their trees' depths added
/// (a flat phase counts its ranks).
pub(super) fn phased_depth(phases: &[Schedule]) -> u32 {
    phases
        .iter()
        .map(|s| s.tree().map_or(s.spec.procs, |t| t.depth()))
        .sum()
}

/// A collective's schedules: which algorithms have one, how a plan is
/// built, the simulator's buffer, and what else differs in how it is laid
/// out ([`Layout`]).
struct Schedules {
    /// The algorithms with a schedule (what `impl=own` runs).
    scheduled: &'static [Algorithm],
    /// The plan of a spec on more than one rank with something to move.
    plan: fn(&Spec) -> Result<Plan, String>,
    buffer: Buffer,
    layout: &'static dyn Layout,
}

/// The simulator's buffer, in messages of `msg_bytes`.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Buffer {
    /// Nothing: every message is empty.
    Empty,
    /// One message.
    Message,
    /// p blocks, one per rank.
    Blocks,
    /// p blocks, a message's span possibly running past the last to the
    /// first (see [`Span::pieces`]).
    WrappingBlocks,
    /// p² blocks, p per rank.
    Square,
}

impl Schedules {
    fn buffer_bytes(&self, p: u64, m: u64) -> u64 {
        match self.buffer {
            Buffer::Empty => 0,
            Buffer::Message => m,
            Buffer::Blocks | Buffer::WrappingBlocks => p * m,
            Buffer::Square => p * p * m,
        }
    }

    fn needs_at_end(&self, spec: &Spec, rank: u32) -> Span {
        self.layout.needs_at_end(spec, rank).unwrap_or(Span {
            start: 0,
            end: self.buffer_bytes(spec.procs.into(), spec.msg_bytes),
        })
    }

    fn pieces(&self, spec: &Spec, total: u64, bytes: Span, each: &mut dyn FnMut(Span)) {
        match self.buffer {
            Buffer::WrappingBlocks => {
                let [first, wrapped] = bytes.pieces(total);
                each(first);
                if !wrapped.is_empty() {
                    each(wrapped)
                }
            }
            _ => self.layout.pieces(spec, bytes, each),
        }
    }
}

/// What else differs between collectives' schedules whatever the
/// algorithm: which bytes each rank holds, needs and copies, where it
/// keeps them, how the schedules grow. Each collective implements it in
/// its own module; the defaults are a single message buffer that every
/// rank needs whole, as a reduction's.
trait Layout: Sync {
    /// What `rank` holds before anything is sent, where data only moves.
    fn holds_at_start(&self, _spec: &Spec, _rank: u32, _hold: &mut dyn FnMut(Span)) {}

    /// What `rank` must hold at the end, where not the whole buffer.
    fn needs_at_end(&self, _spec: &Spec, _rank: u32) -> Option<Span> {
        None
    }

    /// The depth of the tree a valid `spec` runs on, if it has one.
    fn tree_depth(&self, spec: &Spec) -> Option<u32> {
        let schedule = Schedule::new(*spec).ok()?;
        match &schedule.plan {
            Plan::Allreduce(shape) => shape.depth(),
            Plan::ReduceScatter(shape) => shape.depth(),
            _ => Some(schedule.tree()?.depth()),
        }
    }

    /// The pieces of a buffer that does not wrap that a message of
    /// `bytes` carries, in order.
    fn pieces(&self, _spec: &Spec, bytes: Span, each: &mut dyn FnMut(Span)) {
        each(bytes)
    }

    /// Where `rank` keeps the buffer's `bytes` in its own memory.
    fn place(&self, _spec: &Spec, _rank: u32, bytes: Span) -> Option<Span> {
        Some(bytes)
    }

    /// A copy `rank` makes in its own memory besides the messages, (from, to).
    fn local_copy(&self, _spec: &Spec, _rank: u32) -> Option<(Span, Span)> {
        None
    }

    /// Whether a valid `spec`'s steps double (`Some(true)`) or grow with
    /// the ranks (`Some(false)`), fallbacks included; `None` where a tree's
    /// depth says it.
    fn doubles(&self, spec: &Spec) -> Option<bool> {
        Schedule::new(*spec).ok().and_then(|s| s.doubles())
    }

    /// The segment a pipelined algorithm of a valid `spec` cuts the
    /// message into, as its schedule rounds it; `None` where nothing is
    /// pipelined.
    fn segment_bytes(&self, _spec: &Spec) -> Option<u64> {
        None
    }
}

/// The root's part of [`Layout::holds_at_start`] where the root starts
/// with the whole buffer (a broadcast's message, a scatter's blocks).
fn root_holds(spec: &Spec, rank: u32, bytes: u64, hold: &mut dyn FnMut(Span)) {
    if rank == spec.root {
        hold(Span {
            start: 0,
            end: bytes,
        })
    }
}

/// The one place that maps a collective to its schedules.
fn schedules(collective: Collective) -> Schedules {
    let (scheduled, plan, buffer, layout): (_, fn(&Spec) -> _, _, &'static dyn Layout) =
        match collective {
            Collective::Bcast => (
                &bcast::SCHEDULED[..],
                bcast::plan,
                Buffer::Message,
                &bcast::BcastLayout,
            ),
            Collective::Reduce => (
                &reduce::SCHEDULED[..],
                reduce::plan,
                Buffer::Message,
                &reduce::ReduceLayout,
            ),
            Collective::Allreduce => (
                &allreduce::SCHEDULED[..],
                allreduce::plan,
                Buffer::Message,
                &allreduce::AllreduceLayout,
            ),
            Collective::Allgather => (
                &allgather::SCHEDULED[..],
                allgather::plan,
                Buffer::WrappingBlocks,
                &allgather::AllgatherLayout,
            ),
            Collective::Alltoall => (
                &alltoall::SCHEDULED[..],
                alltoall::plan,
                Buffer::Square,
                &alltoall::AlltoallLayout,
            ),
            Collective::Gather => (
                &gather::SCHEDULED[..],
                gather::plan,
                Buffer::WrappingBlocks,
                &gather::GatherLayout,
            ),
            Collective::Scatter => (
                &scatter::SCHEDULED[..],
                scatter::plan,
                Buffer::WrappingBlocks,
                &scatter::ScatterLayout,
            ),
            Collective::ReduceScatter => (
                &reduce_scatter::SCHEDULED[..],
                reduce_scatter::plan,
                Buffer::Blocks,
                &reduce_scatter::ReduceScatterLayout,
            ),
            Collective::ReduceScatterBlock => (
                &reduce_scatter::SCHEDULED_BLOCK[..],
                reduce_scatter::plan,
                Buffer::WrappingBlocks,
                &reduce_scatter::ReduceScatterLayout,
            ),
            Collective::Barrier => (
                &barrier::SCHEDULED[..],
                barrier::plan,
                Buffer::Empty,
                &barrier::BarrierLayout,
            ),
        };
    Schedules {
        scheduled,
        plan,
        buffer,
        layout,
    }
}

/// What to run, how.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Spec {
    pub collective: Collective,
    pub algorithm: Algorithm,
    pub procs: u32,
    pub root: u32,
    pub msg_bytes: u64,
    /// Segment size in bytes; 0 = unsegmented.
    pub segsize: u64,
    /// Chains for `chain`, radix for `knomial`; `None` = Open MPI's MCA
    /// default (4 for both). Ignored by the other algorithms.
    pub fanout: Option<u32>,
}

/// Open MPI's default for `coll_tuned_bcast_algorithm_chain_fanout` and
/// `..._knomial_radix`.
pub const DEFAULT_FANOUT: u32 = 4;

/// The message cut into equal segments, the last one carrying the remainder.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Segments {
    pub offset: u64,
    pub total: u64,
    pub seg: u64,
}

impl Segments {
    /// Open MPI's segmentation rule for byte buffers: segments of `segsize`
    /// when 1 ≤ segsize < total, otherwise one segment.
    pub fn new(offset: u64, total: u64, segsize: u64) -> Segments {
        let seg = if segsize >= 1 && segsize < total {
            segsize
        } else {
            total
        };
        Segments { offset, total, seg }
    }

    pub fn count(&self) -> u64 {
        if self.total == 0 {
            0
        } else {
            self.total.div_ceil(self.seg)
        }
    }

    pub fn span(&self, k: u64) -> Span {
        let start = self.offset + k * self.seg;
        Span {
            start,
            end: (start + self.seg).min(self.offset + self.total),
        }
    }

    fn spans(&self) -> impl Iterator<Item = Span> + '_ {
        (0..self.count()).map(|k| self.span(k))
    }
}

/// How the ranks' programs are generated.
#[derive(Clone, Debug, PartialEq)]
enum Plan {
    /// One rank or an empty message: MPI_Bcast returns at once.
    Nothing,
    /// Root posts p − 1 non-blocking sends of the whole message.
    Linear,
    /// Open MPI's generic pipelined tree executor.
    Pipelined { tree: Tree, segments: Segments },
    /// Blocking, unsegmented tree: receive everything, then send it to each
    /// child in turn (`sbbt`).
    Blocking { tree: Tree },
    /// Halves down the two subtrees of a binary tree, then pairwise exchange.
    SplitBinary { tree: Tree, halves: [Segments; 2] },
    /// Reduce's generic executor up `tree`; when the tree's root is not
    /// `root` (in-order binary), its top hands the result over.
    ReduceTree {
        tree: Tree,
        segments: Segments,
        root: u32,
    },
    /// Everyone sends to the root, which combines in turn.
    ReduceLinear,
    /// Rabenseifner: reduce-scatter by recursive halving, binomial gather.
    ReduceScatterGather,
    /// An allreduce.
    Allreduce(allreduce::AllreduceShape),
    /// An allgather.
    Allgather(allgather::AllgatherShape),
    /// An alltoall.
    Alltoall(alltoall::AlltoallShape),
    /// A gather.
    Gather(gather::GatherShape),
    /// A scatter.
    Scatter(scatter::ScatterShape),
    /// A reduce-scatter (either kind).
    ReduceScatter(reduce_scatter::ReduceScatterShape),
    /// A barrier.
    Barrier(barrier::BarrierShape),
}

/// A validated call of a collective: the rank programs on demand.
#[derive(Clone, Debug, PartialEq)]
pub struct Schedule {
    pub spec: Spec,
    plan: Plan,
}

impl Schedule {
    pub fn new(spec: Spec) -> Result<Schedule, String> {
        if spec.procs == 0 {
            return Err("procs must be at least 1".into());
        }
        if spec.root >= spec.procs {
            return Err(format!(
                "root {} is not a rank of a {}-rank communicator",
                spec.root, spec.procs
            ));
        }
        let plan = if spec.procs == 1 || spec.collective.returns_at_once(spec.msg_bytes) {
            Plan::Nothing
        } else {
            (schedules(spec.collective).plan)(&spec)?
        };
        Ok(Schedule { spec, plan })
    }

    /// The tree the algorithm uses, if it uses one.
    pub fn tree(&self) -> Option<&Tree> {
        match &self.plan {
            Plan::Pipelined { tree, .. }
            | Plan::Blocking { tree }
            | Plan::SplitBinary { tree, .. }
            | Plan::ReduceTree { tree, .. } => Some(tree),
            Plan::Gather(shape) => shape.tree(),
            Plan::Scatter(shape) => shape.tree(),
            Plan::Nothing
            | Plan::Linear
            | Plan::ReduceLinear
            | Plan::ReduceScatterGather
            | Plan::Allreduce(_)
            | Plan::Allgather(_)
            | Plan::Alltoall(_)
            | Plan::ReduceScatter(_)
            | Plan::Barrier(_) => None,
        }
    }

    /// The bytes of the simulator's buffer, in which every rank must end
    /// with its part: the message, the p blocks of an allgather, gather or
    /// scatter, a reduce-scatter's vector of p blocks, an alltoall's p²
    /// (see [`alltoall`]).
    pub fn buffer_bytes(&self) -> u64 {
        schedules(self.spec.collective).buffer_bytes(self.spec.procs.into(), self.spec.msg_bytes)
    }

    /// What `rank` holds before anything is sent, where data only moves:
    /// the root the whole buffer (a broadcast, a scatter), its block
    /// (allgather, gather), the blocks it sends (alltoall); nothing in a
    /// reduction (its contribution is followed apart, see [`crate::sim`]).
    pub fn holds_at_start(&self, rank: u32, hold: &mut dyn FnMut(Span)) {
        schedules(self.spec.collective)
            .layout
            .holds_at_start(&self.spec, rank, hold)
    }

    /// What `rank` must hold at the end: the whole buffer (a gather's
    /// root; a gather's other ranks their own block), a scatter's block to
    /// it, an alltoall's blocks to it; in a reduce-scatter its block, every
    /// contribution combined.
    pub fn needs_at_end(&self, rank: u32) -> Span {
        schedules(self.spec.collective).needs_at_end(&self.spec, rank)
    }

    /// The depth of the tree `Schedule::new(spec)` runs on, without building
    /// it (pricing a job of thousands of ranks asks for it for every row);
    /// `None` where the schedule has no tree or `spec` is invalid. The test
    /// `tree_depth_is_the_built_trees` holds it to the builders.
    pub fn tree_depth(spec: &Spec) -> Option<u32> {
        let p = spec.procs;
        if p == 0 || spec.root >= p || p == 1 || spec.collective.returns_at_once(spec.msg_bytes) {
            return None;
        }
        schedules(spec.collective).layout.tree_depth(spec)
    }

    /// [`Schedule::doubles`] without building the schedule where the
    /// collective runs on trees (their depth says how they grow: see
    /// [`Schedule::tree_depth`]).
    pub fn doubles_of(spec: &Spec) -> Option<bool> {
        schedules(spec.collective).layout.doubles(spec)
    }

    /// The segment size `spec`'s pipelined algorithm cuts its message into
    /// (a reduction's whole elements), without building the schedule;
    /// `None` for a collective that is not pipelined.
    pub fn segment_of(spec: &Spec) -> Option<u64> {
        schedules(spec.collective).layout.segment_bytes(spec)
    }

    /// The tree and segments when the algorithm runs on Open MPI's generic
    /// pipelined executor (see `pipelined_ops`).
    pub fn pipelined(&self) -> Option<(&Tree, Segments)> {
        match &self.plan {
            Plan::Pipelined { tree, segments } => Some((tree, *segments)),
            _ => None,
        }
    }

    /// How the message is cut (per half for split-binary).
    pub fn segmentation(&self) -> Vec<Segments> {
        match &self.plan {
            Plan::Pipelined { segments, .. } | Plan::ReduceTree { segments, .. } => {
                vec![*segments]
            }
            Plan::SplitBinary { halves, .. } => halves.to_vec(),
            Plan::Allreduce(shape) => shape.segmentation(&self.spec),
            Plan::Linear
            | Plan::Blocking { .. }
            | Plan::ReduceLinear
            | Plan::ReduceScatterGather
            | Plan::Allgather(_)
            | Plan::Alltoall(_)
            | Plan::Gather(_)
            | Plan::Scatter(_)
            | Plan::ReduceScatter(_)
            | Plan::Barrier(_) => {
                vec![Segments::new(0, self.spec.msg_bytes, 0)]
            }
            Plan::Nothing => vec![],
        }
    }

    /// A note when the algorithm behaves as another (split-binary's
    /// fallback, p = 1, empty messages).
    pub fn note(&self) -> Option<String> {
        match &self.plan {
            Plan::Nothing => Some(format!(
                "nothing to send: {} returns at once",
                self.spec.collective.function()
            )),
            Plan::Allreduce(shape) => shape.note(&self.spec),
            Plan::Allgather(shape) => shape.note(&self.spec),
            Plan::ReduceLinear if self.spec.algorithm == Algorithm::Rabenseifner => {
                Some("fewer floats than the largest power of two of ranks: runs as linear".into())
            }
            Plan::Pipelined { .. } if self.spec.algorithm == Algorithm::SplitBinary => Some(
                "message too small to split into segments of both halves: runs as pipeline".into(),
            ),
            _ => None,
        }
    }

    /// For an allreduce or allgather that runs by pairwise doubling or
    /// halving steps (recursive doubling, Rabenseifner, Bruck):
    /// `Some(true)`; by steps that grow with the ranks (ring, a flat
    /// phase): `Some(false)`; `None` for a reduce + broadcast of trees and
    /// the other collectives (their trees say it, see
    /// [`Schedule::tree_depth`]).
    pub fn doubles(&self) -> Option<bool> {
        match &self.plan {
            Plan::Allreduce(shape) => shape.doubles(),
            Plan::Allgather(shape) => Some(shape.doubles()),
            Plan::Alltoall(shape) => Some(*shape == alltoall::AlltoallShape::ModifiedBruck),
            Plan::ReduceScatter(shape) => shape.doubles(),
            Plan::Barrier(shape) => Some(shape.doubles()),
            _ => None,
        }
    }

    /// The algorithm that actually runs: another where the algorithm falls
    /// back (allreduce's ring below one element per rank runs recursive
    /// doubling, ...), itself otherwise.
    pub fn runs_as(&self) -> Algorithm {
        match &self.plan {
            Plan::Allreduce(shape) => shape.runs_as(&self.spec),
            Plan::Allgather(shape) => shape.runs_as(),
            _ => self.spec.algorithm,
        }
    }

    /// What the ranks do, for people, where no tree says it.
    pub fn describe(&self) -> Option<String> {
        let root = self.spec.root;
        match &self.plan {
            Plan::Allreduce(shape) => Some(shape.describe()),
            Plan::Allgather(shape) => Some(shape.describe()),
            Plan::Alltoall(shape) => Some(shape.describe()),
            Plan::Gather(shape) => shape.describe(&self.spec),
            Plan::Scatter(shape) => shape.describe(&self.spec),
            Plan::ReduceScatter(shape) => Some(shape.describe(&self.spec)),
            Plan::Barrier(shape) => Some(shape.describe()),
            Plan::Linear => Some(format!("flat: root {root} sends to every other rank")),
            Plan::ReduceLinear => Some(format!(
                "flat: every other rank sends to root {root}, which combines them in turn"
            )),
            Plan::ReduceScatterGather => Some(format!(
                "reduce-scatter by recursive halving, then a binomial gather to root {root}"
            )),
            _ => None,
        }
    }

    /// Hands `each` the pieces of the simulator's buffer that a message
    /// of `bytes` carries, in order: the span itself; for an allgather's
    /// (gather's, scatter's, reduce_scatter_block's) span past the
    /// buffer's end its part up to the end, then the part
    /// from byte 0; a modified Bruck's packed message's blocks.
    pub fn pieces(&self, bytes: Span, each: &mut dyn FnMut(Span)) {
        let schedules = schedules(self.spec.collective);
        let total = schedules.buffer_bytes(self.spec.procs.into(), self.spec.msg_bytes);
        schedules.pieces(&self.spec, total, bytes, each)
    }

    /// [`Schedule::ops`] as the harness runs them on `rank`, each with its
    /// bytes in the rank's own memory: the simulator's spans, except an
    /// alltoall's ([`alltoall::local`]); a message whose bytes lie in
    /// several places there goes through scratch memory.
    pub fn local_ops(&self, rank: u32) -> Result<Vec<LocalOp>, String> {
        let layout = schedules(self.spec.collective).layout;
        let place = |bytes: Span| layout.place(&self.spec, rank, bytes);
        self.ops(rank)
            .into_iter()
            .map(|op| {
                let Some(bytes) = op.bytes() else {
                    return Ok(op.into());
                };
                // The message's places, neighbours joined.
                let mut places: Vec<Span> = Vec::new();
                let mut missing = None;
                self.pieces(bytes, &mut |piece| match place(piece) {
                    Some(at) => match places.last_mut() {
                        Some(last) if last.end == at.start => last.end = at.end,
                        _ => places.push(at),
                    },
                    None => missing = Some(piece),
                });
                if let Some(piece) = missing {
                    return Err(format!("rank {rank} has no place for {piece} of {op:?}"));
                }
                // `pieces` hands over at least one piece (an empty one for
                // an empty message).
                Ok(match places.as_slice() {
                    [one] => op.with_bytes(|_| Some(*one)),
                    _ => None,
                }
                .map_or(
                    LocalOp {
                        op,
                        pieces: Some(places),
                    },
                    LocalOp::from,
                ))
            })
            .collect()
    }

    /// A copy `rank` makes in its own memory besides the schedule's
    /// messages, before them, (from, to): an alltoall's block to itself; a
    /// gather's root's block from its send buffer into place (and a
    /// binomial gather's every even rank counted from the root: Open MPI
    /// gathers its subtree's blocks behind its own there), a scatter's
    /// root's from its place into its receive buffer (both every algorithm
    /// of Open MPI's does; the buffer apart is block p of the rank's memory,
    /// `Collective::local_bytes`). A binomial scatter's inner ranks copy
    /// their block out after receiving their subtree's: not modelled.
    pub fn local_copy(&self, rank: u32) -> Option<(Span, Span)> {
        schedules(self.spec.collective)
            .layout
            .local_copy(&self.spec, rank)
    }

    /// The buffers Open MPI's algorithm allocates on `rank` every call
    /// besides what the operations name, in order (a reduce's accumulator
    /// and segments, see [`reduce::working_memory`]; a reduce-scatter's
    /// copies of the vector, see [`reduce_scatter::working_memory`]);
    /// empty where not modelled.
    pub fn working_memory(&self, rank: u32) -> Vec<Working> {
        match &self.plan {
            Plan::ReduceTree { .. } | Plan::ReduceLinear | Plan::ReduceScatterGather => {
                reduce::working_memory(&self.plan, &self.spec, rank)
            }
            Plan::ReduceScatter(shape) => reduce_scatter::working_memory(shape, &self.spec, rank),
            _ => Vec::new(),
        }
    }

    /// The operations `rank` performs, in order.
    pub fn ops(&self, rank: u32) -> Vec<Op> {
        let mut ops = Vec::new();
        self.ops_into(rank, &mut ops);
        ops
    }

    /// [`Schedule::ops`] appended to `ops` (a simulation reuses one buffer
    /// per rank from run to run).
    pub fn ops_into(&self, rank: u32, ops: &mut Vec<Op>) {
        let (p, root) = (self.spec.procs, self.spec.root);
        let all = Span {
            start: 0,
            end: self.spec.msg_bytes,
        };
        // Room for every op up front: a long pipeline's rank has thousands,
        // and growing the vector step by step showed in the fit's profile.
        let children = self.tree().map_or(p as usize, |t| t.children(rank).len());
        let segments = match &self.plan {
            Plan::Pipelined { segments, .. } | Plan::ReduceTree { segments, .. } => {
                segments.count()
            }
            Plan::SplitBinary { halves, .. } => halves[0].count(),
            _ => 1,
        };
        ops.reserve(segments as usize * (children + 3) + 4);
        match &self.plan {
            Plan::Nothing => {}
            Plan::Linear if rank == root => {
                for peer in (0..p).filter(|&r| r != root) {
                    ops.push(Op::Isend { peer, bytes: all });
                }
                ops.push(Op::WaitSends);
            }
            Plan::Linear => ops.push(Op::Recv {
                peer: root,
                bytes: all,
            }),
            Plan::Pipelined { tree, segments } => bcast::pipelined_ops(tree, segments, rank, ops),
            Plan::Blocking { tree } => {
                if let Some(parent) = tree.parent[rank as usize] {
                    ops.push(Op::Recv {
                        peer: parent,
                        bytes: all,
                    });
                }
                for &peer in tree.children(rank) {
                    ops.push(Op::Send { peer, bytes: all });
                }
            }
            Plan::SplitBinary { tree, halves } => bcast::split_binary_ops(tree, halves, rank, ops),
            Plan::ReduceTree {
                tree,
                segments,
                root,
            } => reduce::tree_ops(tree, segments, *root, rank, ops),
            Plan::ReduceLinear => reduce::linear_ops(&self.spec, rank, ops),
            Plan::ReduceScatterGather => reduce::scatter_gather_ops(&self.spec, rank, ops),
            Plan::Allreduce(shape) => shape.ops(&self.spec, rank, ops),
            Plan::Allgather(shape) => shape.ops(&self.spec, rank, ops),
            Plan::Alltoall(shape) => shape.ops(&self.spec, rank, ops),
            Plan::Gather(shape) => shape.ops(&self.spec, rank, ops),
            Plan::Scatter(shape) => shape.ops(&self.spec, rank, ops),
            Plan::ReduceScatter(shape) => shape.ops(&self.spec, rank, ops),
            Plan::Barrier(shape) => shape.ops(&self.spec, rank, ops),
        }
    }
}

/// The algorithms of `collective` with a schedule (what `impl=own` runs).
pub fn scheduled(collective: Collective) -> &'static [Algorithm] {
    schedules(collective).scheduled
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(algorithm: Algorithm, procs: u32, msg: u64, segsize: u64) -> Spec {
        Spec {
            collective: Collective::Bcast,
            algorithm,
            procs,
            root: 0,
            msg_bytes: msg,
            segsize,
            fanout: None,
        }
    }

    #[test]
    fn segmentation_rule() {
        let s = Segments::new(0, 1000, 300);
        assert_eq!(s.count(), 4);
        assert_eq!(
            s.span(3),
            Span {
                start: 900,
                end: 1000
            }
        );
        assert_eq!(Segments::new(0, 1000, 0).count(), 1);
        assert_eq!(Segments::new(0, 1000, 1000).count(), 1);
        assert_eq!(Segments::new(0, 1000, 4096).count(), 1);
        assert_eq!(Segments::new(0, 0, 64).count(), 0);
    }

    #[test]
    fn generic_executor_keeps_two_receives_posted() {
        let s = Schedule::new(spec(Algorithm::Pipeline, 3, 30, 10)).unwrap();
        let seg = |k: u64| Span {
            start: 10 * k,
            end: 10 * k + 10,
        };
        assert_eq!(
            s.ops(1),
            vec![
                Op::Irecv {
                    peer: 0,
                    bytes: seg(0)
                },
                Op::Irecv {
                    peer: 0,
                    bytes: seg(1)
                },
                Op::WaitRecv,
                Op::Isend {
                    peer: 2,
                    bytes: seg(0)
                },
                Op::WaitSends,
                Op::Irecv {
                    peer: 0,
                    bytes: seg(2)
                },
                Op::WaitRecv,
                Op::Isend {
                    peer: 2,
                    bytes: seg(1)
                },
                Op::WaitSends,
                Op::WaitRecv,
                Op::Isend {
                    peer: 2,
                    bytes: seg(2)
                },
                Op::WaitSends,
            ]
        );
        assert_eq!(s.ops(0).len(), 6);
    }

    #[test]
    fn linear_root_sends_to_everyone_in_rank_order() {
        let s = Schedule::new(Spec {
            root: 2,
            ..spec(Algorithm::Linear, 4, 8, 0)
        })
        .unwrap();
        let peers: Vec<u32> = s
            .ops(2)
            .iter()
            .filter_map(|op| match op {
                Op::Isend { peer, .. } => Some(*peer),
                _ => None,
            })
            .collect();
        assert_eq!(peers, [0, 1, 3]);
        assert_eq!(
            s.ops(0),
            [Op::Recv {
                peer: 2,
                bytes: Span { start: 0, end: 8 }
            }]
        );
    }

    #[test]
    fn tree_depth_is_the_built_trees() {
        for algorithm in bcast::SCHEDULED {
            for procs in (1..=70).chain([127, 128, 129, 1000, 1024, 1025]) {
                for (msg, seg) in [(0, 0), (1, 0), (1000, 600), (1000, 100), (1 << 20, 8192)] {
                    for fanout in [None, Some(1), Some(3), Some(40)] {
                        let spec = Spec {
                            collective: Collective::Bcast,
                            algorithm,
                            procs,
                            root: procs / 3,
                            msg_bytes: msg,
                            segsize: seg,
                            fanout,
                        };
                        let built = Schedule::new(spec)
                            .ok()
                            .and_then(|s| s.tree().map(Tree::depth));
                        assert_eq!(Schedule::tree_depth(&spec), built, "{spec:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn rooted_tree_depth_is_the_built_trees() {
        for collective in [Collective::Gather, Collective::Scatter] {
            for &algorithm in scheduled(collective) {
                for procs in (1..=70).chain([127, 128, 129, 1000, 1024, 1025]) {
                    let spec = Spec {
                        collective,
                        root: procs / 3,
                        ..spec(algorithm, procs, 100, 0)
                    };
                    let built = Schedule::new(spec)
                        .ok()
                        .and_then(|s| s.tree().map(Tree::depth));
                    assert_eq!(Schedule::tree_depth(&spec), built, "{spec:?}");
                }
            }
        }
    }

    #[test]
    fn split_binary_falls_back_to_pipeline_for_small_messages() {
        let s = Schedule::new(spec(Algorithm::SplitBinary, 5, 1000, 600)).unwrap();
        assert!(s.note().unwrap().contains("pipeline"));
        assert_eq!(s.tree().unwrap().children(0), [1]);
        let s = Schedule::new(spec(Algorithm::SplitBinary, 5, 1, 0)).unwrap();
        assert!(s.note().is_some());
        let s = Schedule::new(spec(Algorithm::SplitBinary, 5, 1000, 100)).unwrap();
        assert_eq!(s.note(), None);
        assert_eq!(s.segmentation()[1].offset, 500);
    }

    #[test]
    fn split_binary_even_procs_last_rank_gets_second_half_from_root() {
        let s = Schedule::new(spec(Algorithm::SplitBinary, 4, 10, 0)).unwrap();
        assert_eq!(
            s.ops(0).last(),
            Some(&Op::Send {
                peer: 3,
                bytes: Span { start: 5, end: 10 }
            })
        );
        assert_eq!(
            s.ops(3).last(),
            Some(&Op::Recv {
                peer: 0,
                bytes: Span { start: 5, end: 10 }
            })
        );
    }

    #[test]
    fn bad_specs_are_refused() {
        assert!(Schedule::new(spec(Algorithm::Default, 4, 8, 0)).is_err());
        assert!(Schedule::new(Spec {
            root: 4,
            ..spec(Algorithm::Linear, 4, 8, 0)
        })
        .is_err());
        assert!(Schedule::new(Spec {
            fanout: Some(1),
            ..spec(Algorithm::Knomial, 4, 8, 0)
        })
        .is_err());
    }

    #[test]
    fn empty_messages_and_single_ranks_do_nothing() {
        for s in [
            spec(Algorithm::Binomial, 8, 0, 0),
            spec(Algorithm::Linear, 1, 64, 0),
        ] {
            let s = Schedule::new(s).unwrap();
            assert!((0..s.spec.procs).all(|r| s.ops(r).is_empty()));
        }
    }
}
