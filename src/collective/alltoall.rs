//! MPI_Alltoall: every rank sends a block of its own to every rank.

use super::{
    mpich, named, param, Algorithm::*, Description, Mpich, MpichAlgorithm, Ompi, Parameterized,
    Semantics,
};

pub(super) const DESCRIPTION: Description = Description {
    name: "alltoall",
    function: "MPI_Alltoall",
    aliases: &[],
    semantics: Semantics {
        rooted: false,
        combines: None,
        msg_size: "the bytes of each block one rank sends another (p blocks out, p in)",
        element_bytes: 1,
        sized: true,
        blocks: true,
    },
    ompi: Ompi {
        coll_id: 3,
        algorithms: &[
            named(Default, "ignore"),
            named(Linear, "linear"),
            named(Pairwise, "pairwise"),
            named(ModifiedBruck, "modified_bruck"),
            named(LinearSync, "linear_sync"),
            named(TwoProc, "two_proc"),
        ],
        knomial_radix: false,
        // coll/han has no alltoall in 5.0.
        han: false,
        parameterized: Parameterized::ByAlgorithm,
    },
    two_ranks: &[TwoProc],
    own: &[],
    measured_by_default: &[Linear, Pairwise, ModifiedBruck, LinearSync, TwoProc],
    sizes: "1:1M:x4",
    mpich: Mpich {
        inter: "MPIR_Alltoall_inter_pairwise_exchange",
        // MPICH's Bruck exchanges the same packed blocks with the same
        // peers as Open MPI's modified one. Its pairwise pairs ranks by xor
        // on powers of two, its scattered posts 32 requests at a time:
        // neither runs as an Open MPI algorithm does.
        equivalents: &[ModifiedBruck],
        // `pairwise_sendrecv_replace` runs in place only, which the
        // harness does not call.
        algorithms: &[
            MpichAlgorithm {
                runs_as: Some((ModifiedBruck, 0)),
                ..mpich(Brucks)
            },
            MpichAlgorithm {
                params: &[param("k", "BRUCKS_KVAL", "2")],
                ..mpich(KBrucks)
            },
            mpich(Nb),
            mpich(Pairwise),
            mpich(Scattered),
        ],
        by_total: false,
        noncommutative: None,
        in_place: Some("MPIR_Alltoall_intra_pairwise_sendrecv_replace"),
    },
    file_suffix: "-alltoall",
};
