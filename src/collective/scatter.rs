//! MPI_Scatter: the root's p blocks reach their ranks, one each.

use super::{
    mpich, named, Algorithm::*, Description, Mpich, MpichAlgorithm, Ompi, Parameterized, Semantics,
};

pub(super) const DESCRIPTION: Description = Description {
    name: "scatter",
    function: "MPI_Scatter",
    aliases: &[],
    semantics: Semantics {
        rooted: true,
        combines: None,
        msg_size: "the bytes of each rank's block (the root sends p of them)",
        element_bytes: 1,
        sized: true,
        blocks: true,
    },
    ompi: Ompi {
        coll_id: 15,
        algorithms: &[
            named(Default, "ignore"),
            named(Linear, "basic_linear"),
            named(Binomial, "binomial"),
            named(LinearNb, "linear_nb"),
        ],
        knomial_radix: false,
        han: true,
        parameterized: Parameterized::Never,
    },
    two_ranks: &[],
    own: &[],
    measured_by_default: &[Linear, Binomial, LinearNb],
    sizes: "1:1M:x4",
    mpich: Mpich {
        inter: "MPIR_Scatter_inter_remote_send_local_scatter",
        // MPICH's binomial scatter sends down the same in-order binomial
        // tree, largest subtree first, each child its subtree's blocks in
        // one message, as Open MPI's does.
        equivalents: &[Binomial],
        algorithms: &[
            MpichAlgorithm {
                runs_as: Some((Binomial, 0)),
                ..mpich(Binomial)
            },
            mpich(Nb),
        ],
        by_total: true,
        noncommutative: None,
        in_place: None,
    },
    file_suffix: "-scatter",
};
