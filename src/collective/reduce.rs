//! MPI_Reduce: every rank's vector summed at the root (`MPI_SUM` over
//! `MPI_FLOAT`).

use super::{
    mpich, named, Algorithm::*, Combines, Description, Mpich, MpichAlgorithm, Ompi, Parameterized,
    Restriction::*, Semantics,
};

pub(super) const DESCRIPTION: Description = Description {
    name: "reduce",
    function: "MPI_Reduce",
    aliases: &[],
    semantics: Semantics {
        rooted: true,
        combines: Some(Combines::AtRoot),
        msg_size: "the bytes of each rank's vector, and of the root's result",
        element_bytes: 4,
        sized: true,
        blocks: false,
    },
    ompi: Ompi {
        coll_id: 11,
        // knomial (8) is Open MPI 6.0's.
        algorithms: &[
            named(Default, "ignore"),
            named(Linear, "linear"),
            named(Chain, "chain"),
            named(Pipeline, "pipeline"),
            named(Binary, "binary"),
            named(Binomial, "binomial"),
            named(InOrderBinary, "in-order_binary"),
            named(Rabenseifner, "rabenseifner"),
            named(Knomial, "knomial"),
        ],
        knomial_radix: false,
        han: true,
        parameterized: Parameterized::ByAlgorithm,
    },
    two_ranks: &[],
    own: &[],
    measured_by_default: &[
        Linear,
        Chain,
        Pipeline,
        Binary,
        Binomial,
        InOrderBinary,
        Rabenseifner,
    ],
    sizes: "4:4M:x4",
    mpich: Mpich {
        inter: "MPIR_Reduce_inter_local_reduce_remote_send",
        equivalents: &[Binomial, Rabenseifner],
        algorithms: &[
            MpichAlgorithm {
                runs_as: Some((Binomial, 0)),
                ..mpich(Binomial)
            },
            mpich(Nb),
            MpichAlgorithm {
                restrictions: &[ParentComm],
                ..mpich(Smp)
            },
            MpichAlgorithm {
                restrictions: &[CountAtLeastPof2],
                runs_as: Some((Rabenseifner, 0)),
                ..mpich(ReduceScatterGather)
            },
        ],
        by_total: false,
        noncommutative: None,
        in_place: None,
    },
    file_suffix: "-reduce",
};
