//! Every algorithm the product knows, of any collective, by its canonical
//! name. Which collective has which, under which id and spelling, is the
//! collective's description ([`super::Description`]).

use super::Collective;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// An algorithm of one or more collectives: Open MPI's, where it has it
/// (ids per collective in the descriptions), only this project's
/// (`impl=own`), or MPICH's (`impl=mpich`: the same name under MPICH is
/// MPICH's algorithm, listed in the description's MPICH table).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
pub enum Algorithm {
    /// Leave the choice to the library (id 0).
    Default,
    Linear,
    /// `fanout` chains hanging off the root.
    Chain,
    /// One chain (Open MPI's `pipeline`; the model paper's "chain").
    Pipeline,
    SplitBinary,
    Binary,
    Binomial,
    Knomial,
    ScatterAllgather,
    ScatterAllgatherRing,
    /// Blocking, unsegmented balanced binomial tree (Cordeiro & Zola).
    Sbbt,
    /// Arrival-aware: the root broadcasts down a pipelined chain to each
    /// group of receivers that announced their arrival (Patarasuk & Yuan's
    /// arrival_b).
    Arrival,
    /// Open MPI's coll/tuned with its own fixed decision (id 0 there), on a
    /// communicator where components that outrank tuned are left out: the
    /// alternative to coll/han where HAN serves `default` (Open MPI 5
    /// across nodes). Elsewhere the same broadcast as `default`.
    Tuned,
    /// Reduce: a binary tree combining in rank order (for operations
    /// that do not commute).
    InOrderBinary,
    /// Reduce and allreduce: reduce-scatter by recursive halving, then
    /// gather (reduce) or allgather (allreduce).
    Rabenseifner,
    /// Allreduce: a reduce, then a broadcast.
    Nonoverlapping,
    /// Allreduce: recursive doubling.
    RecursiveDoubling,
    /// Allreduce: a ring reduce-scatter then allgather.
    Ring,
    /// Allreduce: the ring, segmented.
    SegmentedRing,
    /// Allreduce: an allgather of every vector, then a local reduction.
    AllgatherReduce,
    /// Allgather: Bruck's log-step exchange.
    Bruck,
    /// Allgather: neighbor exchange (even ranks).
    Neighbor,
    /// Allgather: the exchange of two ranks.
    TwoProc,
    /// Allgather: Bruck's steps in reverse, a message per block (Open MPI 5.0).
    Sparbit,
    /// Barrier: a token twice around the ring.
    DoubleRing,
    /// Reduce-scatter: the vector halved at each of log₂ p steps.
    RecursiveHalving,
    /// Reduce-scatter: Träff's butterfly, for any number of ranks.
    Butterfly,
    /// Alltoall: p − 1 exchanges with the ranks at distance 1, 2, … .
    Pairwise,
    /// Alltoall: Bruck's log-step exchange of packed blocks.
    ModifiedBruck,
    /// Alltoall: linear with a bound on the requests in flight.
    LinearSync,
    LinearNb,
    // MPICH's algorithms under MPICH's names, where no name above is
    // MPICH's own (rows of `impl=mpich` name MPICH's algorithms only).
    /// MPICH: the blocking call as its nonblocking one and a wait.
    Nb,
    /// MPICH: within each node, then across the nodes' leaders.
    Smp,
    /// MPICH's broadcast: binomial scatter, recursive-doubling allgather.
    ScatterRecursiveDoublingAllgather,
    /// MPICH's broadcast: binomial scatter, ring allgather.
    ScatterRingAllgather,
    /// MPICH's broadcast: a k-ary or k-nomial tree, in chunks.
    PipelinedTree,
    /// MPICH: a k-ary or k-nomial tree.
    Tree,
    /// MPICH's reduce: recursive-halving reduce-scatter, then a binomial gather.
    ReduceScatterGather,
    /// MPICH's allreduce: recursive doubling of radix k.
    RecursiveMultiplying,
    /// MPICH's allreduce: recursive-halving reduce-scatter, recursive-doubling allgather.
    ReduceScatterAllgather,
    /// MPICH's allreduce: recursive exchange of radix k.
    Recexch,
    /// MPICH's allreduce: reduce-scatter and allgather by recursive exchange of radix k.
    KReduceScatterAllgather,
    /// MPICH: Bruck's log-step exchange.
    Brucks,
    /// MPICH: Bruck's exchange of radix k.
    KBrucks,
    /// MPICH's allgather: recursive exchange, distances doubling.
    RecexchDoubling,
    /// MPICH's allgather: recursive exchange, distances halving.
    RecexchHalving,
    /// MPICH's alltoall: nonblocking exchanges, a bounded number in flight.
    Scattered,
    /// MPICH's reduce-scatter for operations that do not commute.
    Noncommutative,
    /// MPICH's barrier: dissemination of radix k.
    KDissemination,
}

impl Algorithm {
    /// Every algorithm this tool knows: Open MPI's broadcasts, then our
    /// own, tuned's own decision, those of the other collectives, then
    /// MPICH's (the order of tables and plots).
    pub const ALL: [Algorithm; 49] = [
        Algorithm::Default,
        Algorithm::Linear,
        Algorithm::Chain,
        Algorithm::Pipeline,
        Algorithm::SplitBinary,
        Algorithm::Binary,
        Algorithm::Binomial,
        Algorithm::Knomial,
        Algorithm::ScatterAllgather,
        Algorithm::ScatterAllgatherRing,
        Algorithm::Sbbt,
        Algorithm::Arrival,
        Algorithm::Tuned,
        Algorithm::InOrderBinary,
        Algorithm::Rabenseifner,
        Algorithm::Nonoverlapping,
        Algorithm::RecursiveDoubling,
        Algorithm::Ring,
        Algorithm::SegmentedRing,
        Algorithm::AllgatherReduce,
        Algorithm::Bruck,
        Algorithm::Neighbor,
        Algorithm::TwoProc,
        Algorithm::Sparbit,
        Algorithm::DoubleRing,
        Algorithm::RecursiveHalving,
        Algorithm::Butterfly,
        Algorithm::Pairwise,
        Algorithm::ModifiedBruck,
        Algorithm::LinearSync,
        Algorithm::LinearNb,
        Algorithm::Nb,
        Algorithm::Smp,
        Algorithm::ScatterRecursiveDoublingAllgather,
        Algorithm::ScatterRingAllgather,
        Algorithm::PipelinedTree,
        Algorithm::Tree,
        Algorithm::ReduceScatterGather,
        Algorithm::RecursiveMultiplying,
        Algorithm::ReduceScatterAllgather,
        Algorithm::Recexch,
        Algorithm::KReduceScatterAllgather,
        Algorithm::Brucks,
        Algorithm::KBrucks,
        Algorithm::RecexchDoubling,
        Algorithm::RecexchHalving,
        Algorithm::Scattered,
        Algorithm::Noncommutative,
        Algorithm::KDissemination,
    ];

    /// The canonical name used in CSV files and reports.
    pub fn name(self) -> &'static str {
        match self {
            Algorithm::Default => "default",
            Algorithm::Linear => "linear",
            Algorithm::Chain => "chain",
            Algorithm::Pipeline => "pipeline",
            Algorithm::SplitBinary => "split_binary",
            Algorithm::Binary => "binary",
            Algorithm::Binomial => "binomial",
            Algorithm::Knomial => "knomial",
            Algorithm::ScatterAllgather => "scatter_allgather",
            Algorithm::ScatterAllgatherRing => "scatter_allgather_ring",
            Algorithm::Sbbt => "sbbt",
            Algorithm::Arrival => "arrival",
            Algorithm::Tuned => "tuned",
            Algorithm::InOrderBinary => "in-order_binary",
            Algorithm::Rabenseifner => "rabenseifner",
            Algorithm::Nonoverlapping => "nonoverlapping",
            Algorithm::RecursiveDoubling => "recursive_doubling",
            Algorithm::Ring => "ring",
            Algorithm::SegmentedRing => "segmented_ring",
            Algorithm::AllgatherReduce => "allgather_reduce",
            Algorithm::Bruck => "bruck",
            Algorithm::Neighbor => "neighbor",
            Algorithm::TwoProc => "two_proc",
            Algorithm::Sparbit => "sparbit",
            Algorithm::DoubleRing => "double_ring",
            Algorithm::RecursiveHalving => "recursive_halving",
            Algorithm::Butterfly => "butterfly",
            Algorithm::Pairwise => "pairwise",
            Algorithm::ModifiedBruck => "modified_bruck",
            Algorithm::LinearSync => "linear_sync",
            Algorithm::LinearNb => "linear_nb",
            Algorithm::Nb => "nb",
            Algorithm::Smp => "smp",
            Algorithm::ScatterRecursiveDoublingAllgather => "scatter_recursive_doubling_allgather",
            Algorithm::ScatterRingAllgather => "scatter_ring_allgather",
            Algorithm::PipelinedTree => "pipelined_tree",
            Algorithm::Tree => "tree",
            Algorithm::ReduceScatterGather => "reduce_scatter_gather",
            Algorithm::RecursiveMultiplying => "recursive_multiplying",
            Algorithm::ReduceScatterAllgather => "reduce_scatter_allgather",
            Algorithm::Recexch => "recexch",
            Algorithm::KReduceScatterAllgather => "k_reduce_scatter_allgather",
            Algorithm::Brucks => "brucks",
            Algorithm::KBrucks => "k_brucks",
            Algorithm::RecexchDoubling => "recexch_doubling",
            Algorithm::RecexchHalving => "recexch_halving",
            Algorithm::Scattered => "scattered",
            Algorithm::Noncommutative => "noncommutative",
            Algorithm::KDissemination => "k_dissemination",
        }
    }
}

impl fmt::Display for Algorithm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Parses a canonical name or an Open MPI spelling (case-insensitive);
/// numeric ids are a collective's ([`Collective::algorithm`]).
impl FromStr for Algorithm {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let lower = s.trim().to_ascii_lowercase();
        Self::ALL
            .iter()
            .copied()
            .find(|a| a.name() == lower)
            .or_else(|| alias(&lower))
            .ok_or_else(|| format!("unknown algorithm {s:?}"))
    }
}

impl From<Algorithm> for String {
    fn from(a: Algorithm) -> String {
        a.name().to_string()
    }
}

impl TryFrom<String> for Algorithm {
    type Error = String;
    fn try_from(s: String) -> Result<Self, String> {
        s.parse()
    }
}

/// An algorithm by a spelling other than its canonical name: Open MPI's
/// name of it in any collective (`basic_linear`, `ignore`, ...), or
/// `in_order_binary` (what people type for `in-order_binary`).
pub(super) fn alias(lower: &str) -> Option<Algorithm> {
    if lower == "in_order_binary" {
        return Some(Algorithm::InOrderBinary);
    }
    Collective::ALL
        .iter()
        .flat_map(|c| c.describe().ompi.algorithms)
        .find(|a| a.name == lower)
        .map(|a| a.algorithm)
}
