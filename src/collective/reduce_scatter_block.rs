//! MPI_Reduce_scatter_block: every rank contributes p blocks; rank i ends
//! with block i of the sum (`MPI_SUM` over `MPI_FLOAT`).

use super::{
    mpich, named, Algorithm::*, Combines, Description, Mpich, MpichAlgorithm, Ompi, Parameterized,
    Restriction::*, Semantics,
};

/// MPICH's algorithms of both reduce-scatters (the same names and
/// restrictions in its `coll_algorithms.txt`).
pub(super) const MPICH_ALGORITHMS: &[MpichAlgorithm] = &[
    MpichAlgorithm {
        restrictions: &[PowerOfTwo],
        ..mpich(Noncommutative)
    },
    mpich(RecursiveDoubling),
    mpich(Pairwise),
    mpich(RecursiveHalving),
    mpich(Nb),
];

pub(super) const DESCRIPTION: Description = Description {
    name: "reduce_scatter_block",
    function: "MPI_Reduce_scatter_block",
    aliases: &[],
    semantics: Semantics {
        rooted: false,
        combines: Some(Combines::BlockAtEachRank),
        msg_size: "the bytes of each rank's block of the result (each rank contributes p blocks)",
        element_bytes: 4,
        sized: true,
        blocks: true,
    },
    ompi: Ompi {
        coll_id: 13,
        algorithms: &[
            named(Default, "ignore"),
            named(Linear, "basic_linear"),
            named(RecursiveDoubling, "recursive_doubling"),
            named(RecursiveHalving, "recursive_halving"),
            named(Butterfly, "butterfly"),
        ],
        knomial_radix: false,
        han: false,
        parameterized: Parameterized::Never,
    },
    two_ranks: &[],
    own: &[],
    measured_by_default: &[Linear, RecursiveDoubling, RecursiveHalving, Butterfly],
    sizes: "4:1M:x4",
    mpich: Mpich {
        inter: "MPIR_Reduce_scatter_block_inter_remote_reduce_local_scatter",
        // MPICH's algorithms of the same names are not Open MPI's schedules
        // (its recursive doubling exchanges whole halves, its halving folds
        // the extra ranks differently): none is priced as ours.
        equivalents: &[],
        algorithms: MPICH_ALGORITHMS,
        by_total: true,
        noncommutative: Some(RecursiveDoubling),
        in_place: None,
    },
    file_suffix: "-reduce_scatter_block",
};
