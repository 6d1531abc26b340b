//! MPI_Allgather: every rank's block reaches every rank, in rank order.

use super::{
    mpich, named, param, Algorithm::*, Description, Mpich, MpichAlgorithm, Ompi, Parameterized,
    Restriction::*, Semantics, RECEXCH,
};

pub(super) const DESCRIPTION: Description = Description {
    name: "allgather",
    function: "MPI_Allgather",
    aliases: &[],
    semantics: Semantics {
        rooted: false,
        combines: None,
        msg_size: "the bytes of each rank's block (every rank ends with p of them)",
        element_bytes: 1,
        sized: true,
        blocks: true,
    },
    ompi: Ompi {
        coll_id: 0,
        // sparbit (7) is Open MPI 5.0's; 4.1 stops at two_proc.
        algorithms: &[
            named(Default, "ignore"),
            named(Linear, "linear"),
            named(Bruck, "bruck"),
            named(RecursiveDoubling, "recursive_doubling"),
            named(Ring, "ring"),
            named(Neighbor, "neighbor"),
            named(TwoProc, "two_proc"),
            named(Sparbit, "sparbit"),
        ],
        knomial_radix: false,
        han: true,
        parameterized: Parameterized::ByAlgorithm,
    },
    two_ranks: &[TwoProc],
    own: &[],
    measured_by_default: &[Linear, Bruck, RecursiveDoubling, Ring, Neighbor, TwoProc],
    sizes: "1:1M:x4",
    mpich: Mpich {
        inter: "MPIR_Allgather_inter_local_gather_remote_bcast",
        equivalents: &[Bruck, RecursiveDoubling, Ring],
        algorithms: &[
            MpichAlgorithm {
                runs_as: Some((Bruck, 0)),
                ..mpich(Brucks)
            },
            MpichAlgorithm {
                params: &[param("k", "BRUCKS_KVAL", "2")],
                ..mpich(KBrucks)
            },
            mpich(Nb),
            MpichAlgorithm {
                restrictions: &[PowerOfTwo],
                runs_as: Some((RecursiveDoubling, 0)),
                ..mpich(RecursiveDoubling)
            },
            MpichAlgorithm {
                runs_as: Some((Ring, 0)),
                ..mpich(Ring)
            },
            MpichAlgorithm {
                params: RECEXCH,
                ..mpich(RecexchDoubling)
            },
            MpichAlgorithm {
                params: RECEXCH,
                ..mpich(RecexchHalving)
            },
        ],
        by_total: true,
        noncommutative: None,
        in_place: None,
    },
    file_suffix: "-allgather",
};
