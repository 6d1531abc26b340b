//! MPI_Gather: every rank's block reaches the root, in rank order.

use super::{
    mpich, named, Algorithm::*, Description, Mpich, MpichAlgorithm, Ompi, Parameterized, Semantics,
};

pub(super) const DESCRIPTION: Description = Description {
    name: "gather",
    function: "MPI_Gather",
    aliases: &[],
    semantics: Semantics {
        rooted: true,
        combines: None,
        msg_size: "the bytes of each rank's block (the root ends with p of them)",
        element_bytes: 1,
        sized: true,
        blocks: true,
    },
    ompi: Ompi {
        coll_id: 9,
        algorithms: &[
            named(Default, "ignore"),
            named(Linear, "basic_linear"),
            named(Binomial, "binomial"),
            named(LinearSync, "linear_sync"),
        ],
        knomial_radix: false,
        han: true,
        parameterized: Parameterized::OnlySegmentOf(LinearSync),
    },
    two_ranks: &[],
    own: &[],
    measured_by_default: &[Linear, Binomial, LinearSync],
    sizes: "1:1M:x4",
    mpich: Mpich {
        inter: "MPIR_Gather_inter_local_gather_remote_send",
        // MPICH's binomial gather receives from the same children of the
        // same in-order binomial tree, smallest subtree first, as Open
        // MPI's does, and sends its subtree's blocks up in one message.
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
    file_suffix: "-gather",
};
