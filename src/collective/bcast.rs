//! MPI_Bcast: the root's message reaches every rank.

use super::{
    mpich, named, param, Algorithm::*, Description, Mpich, MpichAlgorithm, Ompi, Parameterized,
    Restriction::*, Semantics,
};

pub(super) const DESCRIPTION: Description = Description {
    name: "bcast",
    function: "MPI_Bcast",
    aliases: &["broadcast"],
    semantics: Semantics {
        rooted: true,
        combines: None,
        msg_size: "the bytes the root sends, which every rank ends with",
        element_bytes: 1,
        sized: true,
        blocks: false,
    },
    ompi: Ompi {
        coll_id: 7,
        algorithms: &[
            named(Default, "ignore"),
            named(Linear, "basic_linear"),
            named(Chain, "chain"),
            named(Pipeline, "pipeline"),
            named(SplitBinary, "split_binary_tree"),
            named(Binary, "binary_tree"),
            named(Binomial, "binomial"),
            named(Knomial, "knomial"),
            named(ScatterAllgather, "scatter_allgather"),
            named(ScatterAllgatherRing, "scatter_allgather_ring"),
        ],
        knomial_radix: true,
        han: true,
        parameterized: Parameterized::ByAlgorithm,
    },
    two_ranks: &[],
    own: &[Sbbt, Arrival],
    measured_by_default: &[Linear, Chain, Pipeline, SplitBinary, Binary, Binomial],
    sizes: "1:4M:x4",
    mpich: Mpich {
        inter: "MPIR_Bcast_inter_remote_send_local_bcast",
        // sbbt is MPICH's binomial (blocking, unsegmented); pipeline, binary
        // and linear are its k-ary tree with k = 1, 2, p − 1.
        equivalents: &[
            Binomial,
            Sbbt,
            ScatterAllgather,
            ScatterAllgatherRing,
            Pipeline,
            Binary,
            Linear,
            Knomial,
        ],
        algorithms: &[
            MpichAlgorithm {
                runs_as: Some((Sbbt, 0)),
                ..mpich(Binomial)
            },
            mpich(Nb),
            MpichAlgorithm {
                restrictions: &[ParentComm],
                ..mpich(Smp)
            },
            mpich(ScatterRecursiveDoublingAllgather),
            mpich(ScatterRingAllgather),
            MpichAlgorithm {
                params: &[
                    param("tree_type", "TREE_TYPE", "kary"),
                    param("k", "TREE_KVAL", "2"),
                    param("is_non_blocking", "IS_NON_BLOCKING", "1"),
                    param("chunk_size", "TREE_PIPELINE_CHUNK_SIZE", "8192"),
                    param("recv_pre_posted", "RECV_PRE_POST", "0"),
                ],
                runs_as: Some((Binary, 8192)),
                ..mpich(PipelinedTree)
            },
            MpichAlgorithm {
                params: &[
                    param("tree_type", "TREE_TYPE", "kary"),
                    param("k", "TREE_KVAL", "2"),
                    param("is_non_blocking", "IS_NON_BLOCKING", "1"),
                ],
                runs_as: Some((Binary, 0)),
                ..mpich(Tree)
            },
        ],
        by_total: false,
        noncommutative: None,
        in_place: None,
    },
    file_suffix: "",
};
