//! MPI_Reduce_scatter with equal counts: every rank contributes p blocks;
//! rank i ends with block i of the sum (`MPI_SUM` over `MPI_FLOAT`).

use super::{named, Algorithm::*, Combines, Description, Mpich, Ompi, Parameterized, Semantics};

pub(super) const DESCRIPTION: Description = Description {
    name: "reduce_scatter",
    function: "MPI_Reduce_scatter",
    aliases: &[],
    semantics: Semantics {
        rooted: false,
        combines: Some(Combines::BlockAtEachRank),
        msg_size: "the bytes of each rank's block of the result (every count equal; each rank \
                   contributes p blocks)",
        element_bytes: 4,
        sized: true,
        blocks: true,
    },
    ompi: Ompi {
        coll_id: 12,
        algorithms: &[
            named(Default, "ignore"),
            named(Nonoverlapping, "non-overlapping"),
            named(RecursiveHalving, "recursive_halving"),
            named(Ring, "ring"),
            named(Butterfly, "butterfly"),
        ],
        knomial_radix: false,
        han: false,
        parameterized: Parameterized::Never,
    },
    two_ranks: &[],
    own: &[],
    measured_by_default: &[Nonoverlapping, RecursiveHalving, Ring, Butterfly],
    sizes: "4:1M:x4",
    mpich: Mpich {
        inter: "MPIR_Reduce_scatter_inter_remote_reduce_local_scatter",
        // As for reduce_scatter_block: none of MPICH's is priced as ours.
        equivalents: &[],
        algorithms: super::reduce_scatter_block::MPICH_ALGORITHMS,
        by_total: true,
        noncommutative: Some(RecursiveDoubling),
        in_place: None,
    },
    file_suffix: "-reduce_scatter",
};
