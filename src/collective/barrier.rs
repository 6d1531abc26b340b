//! MPI_Barrier: no rank leaves before every rank has entered. No data:
//! its message size is 0 in every row, decisions are per job size.

use super::{
    mpich, named, param, Algorithm::*, Description, Mpich, MpichAlgorithm, Ompi, Parameterized,
    Restriction::*, Semantics, RECEXCH,
};

pub(super) const DESCRIPTION: Description = Description {
    name: "barrier",
    function: "MPI_Barrier",
    aliases: &[],
    semantics: Semantics {
        rooted: false,
        combines: None,
        msg_size: "none: a barrier carries no data (0 in every row)",
        element_bytes: 1,
        sized: false,
        blocks: false,
    },
    ompi: Ompi {
        coll_id: 6,
        algorithms: &[
            named(Default, "ignore"),
            named(Linear, "linear"),
            named(DoubleRing, "double_ring"),
            named(RecursiveDoubling, "recursive_doubling"),
            named(Bruck, "bruck"),
            named(TwoProc, "two_proc"),
            named(Tree, "tree"),
        ],
        knomial_radix: false,
        han: true,
        parameterized: Parameterized::Never,
    },
    two_ranks: &[TwoProc],
    own: &[],
    measured_by_default: &[Linear, DoubleRing, RecursiveDoubling, Bruck, TwoProc, Tree],
    sizes: "0",
    mpich: Mpich {
        inter: "MPIR_Barrier_inter_bcast",
        // MPICH's dissemination of radix 2 (its default) exchanges with
        // rank ± 2^i in each round, as Open MPI's bruck does.
        equivalents: &[Bruck],
        algorithms: &[
            MpichAlgorithm {
                params: &[param("k", "DISSEM_KVAL", "2")],
                runs_as: Some((Bruck, 0)),
                ..mpich(KDissemination)
            },
            MpichAlgorithm {
                params: RECEXCH,
                ..mpich(Recexch)
            },
            MpichAlgorithm {
                restrictions: &[ParentComm],
                ..mpich(Smp)
            },
            mpich(Nb),
        ],
        by_total: false,
        noncommutative: None,
        in_place: None,
    },
    file_suffix: "-barrier",
};
