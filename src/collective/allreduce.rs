//! MPI_Allreduce: every rank's vector summed at every rank (`MPI_SUM` over
//! `MPI_FLOAT`).

use super::{
    mpich, named, param, Algorithm::*, Combines, Description, Mpich, MpichAlgorithm, Ompi,
    Parameterized, Restriction::*, Semantics, RECEXCH,
};

pub(super) const DESCRIPTION: Description = Description {
    name: "allreduce",
    function: "MPI_Allreduce",
    aliases: &[],
    semantics: Semantics {
        rooted: false,
        combines: Some(Combines::AtEveryRank),
        msg_size: "the bytes of each rank's vector, and of the result every rank ends with",
        element_bytes: 4,
        sized: true,
        blocks: false,
    },
    ompi: Ompi {
        coll_id: 2,
        // allgather_reduce (7) is Open MPI 6.0's.
        algorithms: &[
            named(Default, "ignore"),
            named(Linear, "basic_linear"),
            named(Nonoverlapping, "nonoverlapping"),
            named(RecursiveDoubling, "recursive_doubling"),
            named(Ring, "ring"),
            named(SegmentedRing, "segmented_ring"),
            named(Rabenseifner, "rabenseifner"),
            named(AllgatherReduce, "allgather_reduce"),
        ],
        knomial_radix: false,
        han: true,
        parameterized: Parameterized::ByAlgorithm,
    },
    two_ranks: &[],
    own: &[],
    measured_by_default: &[
        Linear,
        Nonoverlapping,
        RecursiveDoubling,
        Ring,
        SegmentedRing,
        Rabenseifner,
    ],
    sizes: "4:4M:x4",
    mpich: Mpich {
        inter: "MPIR_Allreduce_inter_reduce_exchange_bcast",
        // Both rings reduce-scatter then allgather p blocks around the ring.
        equivalents: &[RecursiveDoubling, Ring, Rabenseifner],
        // `ccl` (NCCL, RCCL or oneCCL underneath) is left out.
        algorithms: &[
            mpich(Nb),
            MpichAlgorithm {
                restrictions: &[ParentComm],
                ..mpich(Smp)
            },
            MpichAlgorithm {
                runs_as: Some((RecursiveDoubling, 0)),
                ..mpich(RecursiveDoubling)
            },
            MpichAlgorithm {
                params: &[param("k", "RECURSIVE_MULTIPLYING_KVAL", "2")],
                ..mpich(RecursiveMultiplying)
            },
            MpichAlgorithm {
                restrictions: &[CountAtLeastPof2],
                runs_as: Some((Rabenseifner, 0)),
                ..mpich(ReduceScatterAllgather)
            },
            MpichAlgorithm {
                params: &[
                    param("tree_type", "TREE_TYPE", "knomial_1"),
                    param("k", "TREE_KVAL", "2"),
                    param("chunk_size", "TREE_PIPELINE_CHUNK_SIZE", "0"),
                    param("buffer_per_child", "TREE_BUFFER_PER_CHILD", "0"),
                ],
                ..mpich(Tree)
            },
            MpichAlgorithm {
                params: RECEXCH,
                ..mpich(Recexch)
            },
            MpichAlgorithm {
                runs_as: Some((Ring, 0)),
                ..mpich(Ring)
            },
            MpichAlgorithm {
                params: RECEXCH,
                ..mpich(KReduceScatterAllgather)
            },
        ],
        by_total: false,
        noncommutative: None,
        in_place: None,
    },
    file_suffix: "-allreduce",
};
