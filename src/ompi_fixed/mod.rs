//! Open MPI's fixed decisions: what `default` runs when no rules file is
//! loaded, for each of the ten collectives ([`decision`]), from Open MPI's
//! `coll_tuned_decision_fixed.c` (broadcast's identical from 4.1.0 through
//! 6.0 and main; the reductions' on the commutative branch `MPI_SUM`
//! takes).

use crate::data::{Algorithm, Candidate, Collective, Impl};

const K: u64 = 1024;
const M: u64 = 1024 * 1024;

/// Open MPI id chosen for a communicator of `procs` ranks and `msg_bytes`.
/// Intervals are half-open [lo, hi).
pub fn bcast_algorithm_id(procs: u32, msg_bytes: u64) -> u8 {
    let m = msg_bytes;
    // Each row: (upper bound exclusive, algorithm); the last bound is u64::MAX.
    let table: &[(u64, u8)] = match procs {
        0..4 => &[
            (32, 3),
            (256, 5),
            (512, 3),
            (K, 7),
            (32 * K, 1),
            (128 * K, 5),
            (256 * K, 2),
            (512 * K, 1),
            (M, 6),
            (u64::MAX, 5),
        ],
        4..8 => &[
            (64, 5),
            (128, 6),
            (2 * K, 5),
            (8 * K, 6),
            (M, 1),
            (u64::MAX, 2),
        ],
        8..16 => &[
            (8, 7),
            (64, 5),
            (4 * K, 7),
            (16 * K, 5),
            (32 * K, 6),
            (u64::MAX, 1),
        ],
        16..32 => &[(4 * K, 7), (M, 6), (u64::MAX, 8)],
        32..64 => &[(2 * K, 6), (u64::MAX, 7)],
        64..128 => &[(u64::MAX, 7)],
        128..256 => &[(2, 6), (16 * K, 5), (32 * K, 1), (64 * K, 5), (u64::MAX, 7)],
        256..1024 => &[(16 * K, 7), (32 * K, 4), (u64::MAX, 7)],
        1024..2048 => &[(512 * K, 7), (u64::MAX, 8)],
        2048..4096 => &[(256 * K, 7), (u64::MAX, 8)],
        _ => &[(8 * K, 7), (16 * K, 5), (256 * K, 7), (u64::MAX, 8)],
    };
    table
        .iter()
        .find(|(hi, _)| m < *hi)
        .map_or(7, |(_, alg)| *alg)
}

/// The candidate the fixed decision runs, as it would appear in a benchmark
/// CSV: unsegmented and forced through the library (`impl=ompi`).
///
/// - It calls chain with fan-out 0, which Open MPI clamps to one chain: that
///   is an unsegmented pipeline, so it is reported as `pipeline`.
/// - scatter_allgather falls back to linear when the message has fewer bytes
///   than there are ranks (byte-sized elements).
/// - knomial uses the MCA default radix (4), reported as fan-out 4.
pub fn bcast_candidate(procs: u32, msg_bytes: u64) -> Candidate {
    let id = bcast_algorithm_id(procs, msg_bytes);
    let algorithm = match Collective::Bcast.describe().ompi.algorithms[usize::from(id)].algorithm {
        Algorithm::Chain => Algorithm::Pipeline,
        Algorithm::ScatterAllgather if msg_bytes < u64::from(procs) => Algorithm::Linear,
        a => a,
    };
    Candidate {
        algorithm,
        segsize: match algorithm {
            Algorithm::Linear => None,
            _ => Some(0),
        },
        fanout: (algorithm == Algorithm::Knomial).then_some(4),
        implementation: Impl::Ompi,
    }
}

/// Open MPI's reduce algorithm id for a commutative operation
/// (`ompi_coll_tuned_reduce_intra_dec_fixed`, identical in 4.1 and 5.0):
/// `msg_bytes` is the whole vector (count × type size). Non-commutative
/// operations take another branch; the harness and OSU sum floats.
pub fn reduce_algorithm_id(procs: u32, msg_bytes: u64) -> u8 {
    // (upper bound exclusive, algorithm) per communicator size.
    let table: &[(u64, u8)] = match procs {
        0..4 => &[
            (8, 7),
            (16, 4),
            (32, 3),
            (256 * K, 1),
            (512 * K, 3),
            (M, 2),
            (u64::MAX, 3),
        ],
        4..8 => &[
            (4 * K, 4),
            (64 * K, 2),
            (256 * K, 5),
            (512 * K, 1),
            (M, 5),
            (u64::MAX, 1),
        ],
        8..16 => &[(8 * K, 4), (u64::MAX, 5)],
        16..32 => &[(4 * K, 4), (u64::MAX, 5)],
        32..256 => &[(u64::MAX, 5)],
        256..512 => &[(8 * K, 5), (16 * K, 6), (u64::MAX, 5)],
        512..2048 => &[(u64::MAX, 5)],
        2048..4096 => &[(512, 5), (K, 6), (8 * K, 5), (16 * K, 6), (u64::MAX, 5)],
        _ => &[
            (16, 5),
            (32, 6),
            (K, 5),
            (2 * K, 6),
            (8 * K, 5),
            (16 * K, 6),
            (u64::MAX, 5),
        ],
    };
    table
        .iter()
        .find(|(hi, _)| msg_bytes < *hi)
        .map_or(5, |(_, alg)| *alg)
}

/// The candidate Open MPI's fixed reduce decision runs, as a benchmark CSV
/// names it: unsegmented (it passes segment size 0) and forced through the
/// library. Chain is called with fan-out 0, one chain: an unsegmented
/// pipeline.
pub fn reduce_candidate(procs: u32, msg_bytes: u64) -> Candidate {
    let id = reduce_algorithm_id(procs, msg_bytes);
    let algorithm = match Collective::Reduce.describe().ompi.algorithms[usize::from(id)].algorithm {
        Algorithm::Chain => Algorithm::Pipeline,
        a => a,
    };
    Candidate {
        algorithm,
        segsize: match algorithm {
            Algorithm::Linear | Algorithm::Rabenseifner => None,
            _ => Some(0),
        },
        fanout: None,
        implementation: Impl::Ompi,
    }
}

/// Open MPI's allreduce algorithm id for a commutative operation
/// (`ompi_coll_tuned_allreduce_intra_dec_fixed`, identical in 4.1 and
/// 5.0): `msg_bytes` is the whole vector (count × type size).
pub fn allreduce_algorithm_id(procs: u32, msg_bytes: u64) -> u8 {
    // (upper bound exclusive, algorithm) per communicator size.
    let table: &[(u64, u8)] = match procs {
        0..4 => &[
            (8, 4),
            (4 * K, 3),
            (8 * K, 4),
            (16 * K, 3),
            (64 * K, 4),
            (256 * K, 5),
            (u64::MAX, 6),
        ],
        4..8 => &[(16, 4), (8 * K, 3), (u64::MAX, 6)],
        8..16 => &[(8 * K, 3), (u64::MAX, 6)],
        16..32 => &[(64, 5), (4 * K, 3), (u64::MAX, 6)],
        32..64 => &[(128, 5), (u64::MAX, 6)],
        64..128 => &[(256 * K, 3), (u64::MAX, 6)],
        128..256 => &[(128 * K, 2), (256 * K, 3), (u64::MAX, 6)],
        256..512 => &[(4 * K, 2), (u64::MAX, 6)],
        512..2048 => &[(2 * K, 2), (16 * K, 3), (u64::MAX, 6)],
        2048..4096 => &[(2 * K, 2), (4 * K, 5), (16 * K, 3), (u64::MAX, 6)],
        _ => &[(2 * K, 2), (16 * K, 5), (32 * K, 3), (u64::MAX, 6)],
    };
    table
        .iter()
        .find(|(hi, _)| msg_bytes < *hi)
        .map_or(6, |(_, alg)| *alg)
}

/// The candidate Open MPI's fixed allreduce decision runs, as a benchmark
/// CSV names what actually runs: the segmented ring is called with segment
/// size 0, which is the ring; the ring with fewer elements than ranks is
/// recursive doubling; Rabenseifner with fewer elements than the largest
/// power of two of ranks is linear (the schedules' fallbacks).
pub fn allreduce_candidate(procs: u32, msg_bytes: u64) -> Candidate {
    let id = allreduce_algorithm_id(procs, msg_bytes);
    let count = msg_bytes / crate::data::element_bytes(msg_bytes);
    unsegmented(match algorithm_of(Collective::Allreduce, id) {
        Algorithm::SegmentedRing | Algorithm::Ring if count < u64::from(procs) => {
            Algorithm::RecursiveDoubling
        }
        Algorithm::SegmentedRing => Algorithm::Ring,
        Algorithm::Rabenseifner if procs > 0 && count < 1 << procs.ilog2() => Algorithm::Linear,
        a => a,
    })
}

/// Open MPI's algorithm of `collective` with id `id` (the decisions here
/// only name ids Open MPI has).
fn algorithm_of(collective: Collective, id: u8) -> Algorithm {
    collective.describe().ompi.algorithms[usize::from(id)].algorithm
}

/// `algorithm` as the fixed decisions call it: no segments, the default
/// fan-out, Open MPI's.
fn unsegmented(algorithm: Algorithm) -> Candidate {
    Candidate {
        algorithm,
        segsize: None,
        fanout: None,
        implementation: Impl::Ompi,
    }
}

/// Below a communicator size: (bytes below a bound, algorithm id) in order,
/// then the id of larger messages.
type SizeRule = (u32, &'static [(u64, u8)], u8);

/// A fixed decision written as rules per communicator size: the first
/// rule whose bound is above `procs` (else the last), then its first
/// (bound, id) whose bound is above `bytes` (else the rule's last id).
fn look_up(rules: &[SizeRule], procs: u32, bytes: u64) -> u8 {
    let (_, table, otherwise) = rules
        .iter()
        .find(|(below, ..)| procs < *below)
        .unwrap_or(&rules[rules.len() - 1]);
    table
        .iter()
        .find(|(below, _)| bytes < *below)
        .map_or(*otherwise, |(_, id)| *id)
}

/// Open MPI's fixed allgather decision
/// (`ompi_coll_tuned_allgather_intra_dec_fixed`, identical in 4.1 and 5.0):
/// the algorithm id for `procs` ranks and a block of `block_bytes` per rank.
fn allgather_algorithm_id(procs: u32, block_bytes: u64) -> u8 {
    if procs == 2 {
        return 6;
    }
    if procs < 32 {
        return 3;
    }
    const RULES: [SizeRule; 8] = [
        (64, &[(1024, 3), (65536, 5)], 4),
        (128, &[(512, 3), (65536, 5)], 4),
        (256, &[(512, 3), (131072, 5), (524288, 4), (1048576, 5)], 4),
        (
            512,
            &[
                (32, 3),
                (128, 2),
                (1024, 3),
                (131072, 5),
                (524288, 4),
                (1048576, 5),
            ],
            4,
        ),
        (1024, &[(64, 3), (256, 2), (2048, 3)], 5),
        (
            2048,
            &[
                (4, 3),
                (8, 2),
                (16, 3),
                (32, 2),
                (256, 3),
                (512, 2),
                (4096, 3),
            ],
            5,
        ),
        (4096, &[(32, 2), (128, 3), (512, 2), (4096, 3)], 5),
        (u32::MAX, &[(2, 3), (8, 2), (16, 3), (512, 2), (4096, 3)], 5),
    ];
    look_up(&RULES, procs, block_bytes)
}

/// The candidate Open MPI's fixed allgather decision runs, named as what
/// runs: recursive doubling off powers of two is Bruck, neighbor exchange
/// on an odd number of ranks the ring (the schedules' fallbacks).
pub fn allgather_candidate(procs: u32, block_bytes: u64) -> Candidate {
    let id = allgather_algorithm_id(procs, block_bytes);
    unsegmented(match algorithm_of(Collective::Allgather, id) {
        Algorithm::RecursiveDoubling if !procs.is_power_of_two() => Algorithm::Bruck,
        Algorithm::Neighbor if !procs.is_multiple_of(2) => Algorithm::Ring,
        a => a,
    })
}

/// Open MPI's fixed alltoall decision
/// (`ompi_coll_tuned_alltoall_intra_dec_fixed`, identical in 4.1 and 5.0):
/// the algorithm id for `procs` ranks and blocks of `block_bytes`.
fn alltoall_algorithm_id(procs: u32, block_bytes: u64) -> u8 {
    const RULES: [SizeRule; 12] = [
        (
            3,
            &[
                (2, 2),
                (4, 5),
                (16, 2),
                (64, 5),
                (256, 2),
                (4096, 5),
                (32768, 2),
                (262144, 4),
                (1048576, 5),
            ],
            2,
        ),
        (
            8,
            &[(8192, 4), (16384, 1), (65536, 4), (524288, 1), (1048576, 2)],
            1,
        ),
        (16, &[(262144, 4)], 1),
        (
            32,
            &[
                (4, 4),
                (512, 3),
                (8192, 4),
                (32768, 1),
                (262144, 4),
                (524288, 1),
            ],
            4,
        ),
        (64, &[(512, 3), (524288, 1)], 4),
        (128, &[(1024, 3), (2048, 1), (4096, 4), (262144, 1)], 2),
        (256, &[(1024, 3), (2048, 4), (262144, 1)], 2),
        (512, &[(1024, 3), (8192, 4), (32768, 1)], 2),
        (
            1024,
            &[(512, 3), (8192, 4), (16384, 1), (131072, 4), (262144, 1)],
            2,
        ),
        (
            2048,
            &[(512, 3), (1024, 4), (2048, 1), (16384, 4), (262144, 1)],
            4,
        ),
        (4096, &[(1024, 3), (4096, 4), (8192, 1), (131072, 4)], 1),
        (
            u32::MAX,
            &[(2048, 3), (8192, 4), (16384, 1), (32768, 4), (65536, 1)],
            4,
        ),
    ];
    look_up(&RULES, procs, block_bytes)
}

/// The candidate Open MPI's fixed alltoall decision runs.
pub fn alltoall_candidate(procs: u32, block_bytes: u64) -> Candidate {
    unsegmented(algorithm_of(
        Collective::Alltoall,
        alltoall_algorithm_id(procs, block_bytes),
    ))
}

/// Open MPI's fixed gather decision
/// (`ompi_coll_tuned_gather_intra_dec_fixed`, identical in 4.1 and 5.0):
/// the algorithm id for `procs` ranks and blocks of `block_bytes`.
fn gather_algorithm_id(procs: u32, block_bytes: u64) -> u8 {
    const RULES: [SizeRule; 5] = [
        (4, &[(2, 3), (4, 1), (32768, 2), (65536, 1), (131072, 2)], 3),
        (8, &[(1024, 2), (8192, 1), (32768, 2), (262144, 1)], 3),
        (256, &[], 2),
        (512, &[(2048, 2), (8192, 1)], 2),
        (u32::MAX, &[], 2),
    ];
    look_up(&RULES, procs, block_bytes)
}

/// Open MPI's fixed scatter decision
/// (`ompi_coll_tuned_scatter_intra_dec_fixed`, identical in 4.1 and 5.0):
/// the algorithm id for `procs` ranks and blocks of `block_bytes`.
fn scatter_algorithm_id(procs: u32, block_bytes: u64) -> u8 {
    const RULES: [SizeRule; 6] = [
        (4, &[(2, 3), (131072, 1), (262144, 3)], 1),
        (
            8,
            &[(2048, 2), (4096, 1), (8192, 2), (32768, 1), (1048576, 3)],
            1,
        ),
        (16, &[(16384, 2), (1048576, 3)], 1),
        (32, &[(16384, 2), (32768, 1)], 3),
        (64, &[(512, 2), (8192, 3), (16384, 2)], 3),
        (u32::MAX, &[(512, 2)], 3),
    ];
    look_up(&RULES, procs, block_bytes)
}

/// Open MPI's fixed barrier decision
/// (`ompi_coll_tuned_barrier_intra_dec_fixed`, identical in 4.1 and 5.0):
/// the algorithm id for `procs` ranks (a barrier has no message size).
fn barrier_algorithm_id(procs: u32) -> u8 {
    match procs {
        0..4 => 3,
        4..8 => 1,
        8..64 => 3,
        64..256 => 4,
        256..512 => 6,
        512..1024 => 4,
        1024..4096 => 6,
        _ => 4,
    }
}

/// Open MPI's fixed reduce_scatter decision for a commutative operation
/// (`ompi_coll_tuned_reduce_scatter_intra_dec_fixed`, identical in 4.1 and
/// 5.0): the algorithm id for `procs` ranks and `total_bytes`, the sum of
/// every rank's block.
fn reduce_scatter_algorithm_id(procs: u32, total_bytes: u64) -> u8 {
    const RULES: [SizeRule; 11] = [
        (4, &[(65536, 3), (131072, 4)], 3),
        (8, &[(8, 1), (262144, 2)], 3),
        (32, &[(262144, 2)], 3),
        (64, &[(64, 1), (2048, 2), (524288, 4)], 3),
        (128, &[(256, 1), (512, 2), (2048, 4), (4096, 2)], 4),
        (256, &[(256, 1), (512, 2)], 4),
        (512, &[(256, 1), (1024, 2)], 4),
        (1024, &[(512, 1), (2048, 2), (8192, 4), (16384, 2)], 4),
        (2048, &[(512, 1), (4096, 2), (16384, 4), (32768, 2)], 4),
        (4096, &[(512, 1), (4096, 2)], 4),
        (u32::MAX, &[(1024, 1), (8192, 2)], 4),
    ];
    look_up(&RULES, procs, total_bytes)
}

/// Open MPI's fixed reduce_scatter_block decision for a commutative
/// operation (`ompi_coll_tuned_reduce_scatter_block_intra_dec_fixed`,
/// identical in 4.1 and 5.0): the algorithm id for `procs` ranks and
/// blocks of `block_bytes` (unlike reduce_scatter's, keyed by one block).
fn reduce_scatter_block_algorithm_id(procs: u32, block_bytes: u64) -> u8 {
    const RULES: [SizeRule; 5] = [
        (
            4,
            &[
                (4, 2),
                (8, 4),
                (16, 3),
                (128, 4),
                (256, 3),
                (4096, 4),
                (8192, 3),
                (131072, 4),
            ],
            1,
        ),
        (
            8,
            &[
                (8, 3),
                (32, 2),
                (256, 4),
                (8192, 3),
                (16384, 4),
                (1048576, 3),
            ],
            1,
        ),
        (
            16,
            &[(4, 1), (32, 3), (128, 4), (524288, 3), (4194304, 1)],
            4,
        ),
        (32, &[(32, 1), (524288, 3), (2097152, 1), (4194304, 3)], 4),
        (u32::MAX, &[(4, 3), (16, 1), (65536, 4), (262144, 1)], 4),
    ];
    look_up(&RULES, procs, block_bytes)
}

/// What `default` runs for `collective` under Open MPI's fixed decision.
pub fn decision(collective: Collective, procs: u32, msg_bytes: u64) -> Option<Candidate> {
    match collective {
        Collective::Bcast => Some(bcast_candidate(procs, msg_bytes)),
        Collective::Reduce => Some(reduce_candidate(procs, msg_bytes)),
        Collective::Allreduce => Some(allreduce_candidate(procs, msg_bytes)),
        Collective::Allgather => Some(allgather_candidate(procs, msg_bytes)),
        Collective::Alltoall => Some(alltoall_candidate(procs, msg_bytes)),
        // linear_sync's first segment is the whole block (segment size 0).
        Collective::Gather => Some(unsegmented(algorithm_of(
            collective,
            gather_algorithm_id(procs, msg_bytes),
        ))),
        Collective::Scatter => Some(unsegmented(algorithm_of(
            collective,
            scatter_algorithm_id(procs, msg_bytes),
        ))),
        Collective::ReduceScatter => Some(unsegmented(algorithm_of(
            collective,
            reduce_scatter_algorithm_id(procs, u64::from(procs) * msg_bytes),
        ))),
        Collective::ReduceScatterBlock => Some(unsegmented(algorithm_of(
            collective,
            reduce_scatter_block_algorithm_id(procs, msg_bytes),
        ))),
        Collective::Barrier => Some(unsegmented(algorithm_of(
            collective,
            barrier_algorithm_id(procs),
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_rows_from_the_reference() {
        assert_eq!(bcast_algorithm_id(2, 31), 3);
        assert_eq!(bcast_algorithm_id(2, 32), 5);
        assert_eq!(bcast_algorithm_id(3, 600 * K), 6);
        assert_eq!(bcast_algorithm_id(3, M), 5);
        assert_eq!(bcast_algorithm_id(4, 63), 5);
        assert_eq!(bcast_algorithm_id(7, 8 * K), 1);
        assert_eq!(bcast_algorithm_id(7, M), 2);
        assert_eq!(bcast_algorithm_id(8, 7), 7);
        assert_eq!(bcast_algorithm_id(15, 32 * K), 1);
        assert_eq!(bcast_algorithm_id(16, M), 8);
        assert_eq!(bcast_algorithm_id(48, 2047), 6);
        assert_eq!(bcast_algorithm_id(48, 2048), 7);
        assert_eq!(bcast_algorithm_id(100, 1), 7);
        assert_eq!(bcast_algorithm_id(128, 1), 6);
        assert_eq!(bcast_algorithm_id(200, 20 * K), 1);
        assert_eq!(bcast_algorithm_id(300, 20 * K), 4);
        assert_eq!(bcast_algorithm_id(1500, 512 * K), 8);
        assert_eq!(bcast_algorithm_id(3000, 255 * K), 7);
        assert_eq!(bcast_algorithm_id(5000, 10 * K), 5);
        assert_eq!(bcast_algorithm_id(5000, 300 * K), 8);
    }

    #[test]
    fn candidates_report_what_actually_runs() {
        // Fixed chain = one chain = pipeline.
        assert_eq!(bcast_candidate(5, 2 * M).algorithm, Algorithm::Pipeline);
        assert_eq!(bcast_candidate(5, 2 * M).segsize, Some(0));
        // scatter_allgather with fewer bytes than ranks runs linear.
        assert_eq!(
            bcast_candidate(300_000, 256 * K).algorithm,
            Algorithm::Linear
        );
        assert_eq!(
            bcast_candidate(20, 2 * M).algorithm,
            Algorithm::ScatterAllgather
        );
        assert_eq!(
            bcast_candidate(5000, 300 * K).algorithm,
            Algorithm::ScatterAllgather
        );
        assert_eq!(bcast_candidate(8, 1).fanout, Some(4));
        assert_eq!(bcast_candidate(4, 10 * K).segsize, None);
    }

    #[test]
    fn reduce_table_rows_from_the_sources() {
        assert_eq!(reduce_algorithm_id(2, 4), 7);
        assert_eq!(reduce_algorithm_id(3, 8), 4);
        assert_eq!(reduce_algorithm_id(3, 64 * K), 1);
        assert_eq!(reduce_algorithm_id(2, 600 * K), 2);
        assert_eq!(reduce_algorithm_id(2, 4 * M), 3);
        assert_eq!(reduce_algorithm_id(4, 1024), 4);
        assert_eq!(reduce_algorithm_id(6, 300 * K), 1);
        assert_eq!(reduce_algorithm_id(7, 4 * M), 1);
        assert_eq!(reduce_algorithm_id(12, 8 * K), 5);
        assert_eq!(reduce_algorithm_id(20, 2 * K), 4);
        assert_eq!(reduce_algorithm_id(128, 4), 5);
        assert_eq!(reduce_algorithm_id(300, 8 * K), 6);
        assert_eq!(reduce_algorithm_id(3000, 600), 6);
        assert_eq!(reduce_algorithm_id(5000, 24), 6);
        assert_eq!(reduce_algorithm_id(5000, 1 << 30), 5);
        // Chain with fan-out 0 is one chain; Rabenseifner has no segments.
        assert_eq!(reduce_candidate(5, 10 * K).algorithm, Algorithm::Pipeline);
        assert_eq!(reduce_candidate(2, 4).segsize, None);
        assert_eq!(reduce_candidate(2, 4).algorithm, Algorithm::Rabenseifner);
        assert_eq!(
            decision(Collective::Reduce, 64, M).map(|c| c.algorithm),
            Some(Algorithm::Binomial)
        );
    }

    #[test]
    fn allreduce_table_rows_from_the_sources() {
        assert_eq!(allreduce_algorithm_id(2, 4), 4);
        assert_eq!(allreduce_algorithm_id(2, 8), 3);
        assert_eq!(allreduce_algorithm_id(3, 4 * K), 4);
        assert_eq!(allreduce_algorithm_id(3, 100 * K), 5);
        assert_eq!(allreduce_algorithm_id(3, 256 * K), 6);
        assert_eq!(allreduce_algorithm_id(4, 12), 4);
        assert_eq!(allreduce_algorithm_id(6, 8 * K), 6);
        assert_eq!(allreduce_algorithm_id(8, 8 * K - 4), 3);
        assert_eq!(allreduce_algorithm_id(20, 32), 5);
        assert_eq!(allreduce_algorithm_id(40, 128), 6);
        assert_eq!(allreduce_algorithm_id(100, 256 * K), 6);
        assert_eq!(allreduce_algorithm_id(200, 64 * K), 2);
        assert_eq!(allreduce_algorithm_id(256, 4 * K), 6);
        assert_eq!(allreduce_algorithm_id(1000, 4 * K), 3);
        assert_eq!(allreduce_algorithm_id(3000, 2 * K), 5);
        assert_eq!(allreduce_algorithm_id(5000, 20 * K), 3);
        assert_eq!(allreduce_algorithm_id(5000, M), 6);
        // Segmented ring without segments is the ring, which runs recursive
        // doubling below one float per rank; Rabenseifner below p' floats
        // runs linear.
        let run = |p, m| allreduce_candidate(p, m).algorithm;
        assert_eq!(run(3, 100 * K), Algorithm::Ring);
        assert_eq!(run(4, 8), Algorithm::RecursiveDoubling);
        assert_eq!(run(20, 32), Algorithm::RecursiveDoubling);
        assert_eq!(run(3, 4 * K), Algorithm::Ring);
        assert_eq!(run(2, 4), Algorithm::RecursiveDoubling);
        assert_eq!(run(256, 4 * K), Algorithm::Rabenseifner);
        assert_eq!(allreduce_candidate(3, 300 * K).segsize, None);
        assert_eq!(
            decision(Collective::Allreduce, 200, K).map(|c| c.algorithm),
            Some(Algorithm::Nonoverlapping)
        );
    }

    #[test]
    fn allgather_and_alltoall_follow_the_fixed_tables() {
        let ag = |p, m| allgather_candidate(p, m).algorithm;
        assert_eq!(ag(2, 1 << 20), Algorithm::TwoProc);
        assert_eq!(ag(8, 1), Algorithm::RecursiveDoubling);
        // Recursive doubling off powers of two runs Bruck.
        assert_eq!(ag(12, 1), Algorithm::Bruck);
        assert_eq!(ag(64, 1024), Algorithm::Neighbor);
        assert_eq!(ag(64, 65536), Algorithm::Ring);
        assert_eq!(ag(300, 64), Algorithm::Bruck);
        assert_eq!(ag(5000, 4), Algorithm::Bruck);
        assert_eq!(ag(5000, 1 << 20), Algorithm::Neighbor);
        let a2a = |p, m| alltoall_candidate(p, m).algorithm;
        assert_eq!(a2a(2, 1), Algorithm::Pairwise);
        assert_eq!(a2a(2, 2), Algorithm::TwoProc);
        assert_eq!(a2a(4, 100), Algorithm::LinearSync);
        assert_eq!(a2a(4, 600_000), Algorithm::Pairwise);
        assert_eq!(a2a(300, 100), Algorithm::ModifiedBruck);
        assert_eq!(a2a(300, 1 << 20), Algorithm::Pairwise);
        assert_eq!(a2a(3000, 5000), Algorithm::Linear);
        assert_eq!(a2a(5000, 100_000), Algorithm::LinearSync);
    }

    #[test]
    fn gather_and_scatter_follow_the_fixed_tables() {
        let gather = |p, m| decision(Collective::Gather, p, m).map(|c| c.algorithm);
        // Rows of `ompi_coll_tuned_gather_intra_dec_fixed`, each side of a
        // bound.
        assert_eq!(gather(2, 1), Some(Algorithm::LinearSync));
        assert_eq!(gather(3, 2), Some(Algorithm::Linear));
        assert_eq!(gather(3, 4), Some(Algorithm::Binomial));
        assert_eq!(gather(3, 32768), Some(Algorithm::Linear));
        assert_eq!(gather(3, 65536), Some(Algorithm::Binomial));
        assert_eq!(gather(3, 131072), Some(Algorithm::LinearSync));
        assert_eq!(gather(4, 1023), Some(Algorithm::Binomial));
        assert_eq!(gather(7, 8191), Some(Algorithm::Linear));
        assert_eq!(gather(7, 262144), Some(Algorithm::LinearSync));
        assert_eq!(gather(8, 1 << 20), Some(Algorithm::Binomial));
        assert_eq!(gather(300, 4096), Some(Algorithm::Linear));
        assert_eq!(gather(300, 8192), Some(Algorithm::Binomial));
        assert_eq!(gather(600, 4096), Some(Algorithm::Binomial));
        let scatter = |p, m| decision(Collective::Scatter, p, m).map(|c| c.algorithm);
        assert_eq!(scatter(2, 1), Some(Algorithm::LinearNb));
        assert_eq!(scatter(2, 2), Some(Algorithm::Linear));
        assert_eq!(scatter(3, 131072), Some(Algorithm::LinearNb));
        assert_eq!(scatter(3, 262144), Some(Algorithm::Linear));
        assert_eq!(scatter(4, 2047), Some(Algorithm::Binomial));
        assert_eq!(scatter(6, 4096), Some(Algorithm::Binomial));
        assert_eq!(scatter(6, 32768), Some(Algorithm::LinearNb));
        assert_eq!(scatter(6, 1 << 20), Some(Algorithm::Linear));
        assert_eq!(scatter(12, 1 << 20), Some(Algorithm::Linear));
        assert_eq!(scatter(20, 16384), Some(Algorithm::Linear));
        assert_eq!(scatter(20, 32768), Some(Algorithm::LinearNb));
        assert_eq!(scatter(40, 8192), Some(Algorithm::Binomial));
        assert_eq!(scatter(40, 16384), Some(Algorithm::LinearNb));
        assert_eq!(scatter(100, 511), Some(Algorithm::Binomial));
        assert_eq!(scatter(100, 512), Some(Algorithm::LinearNb));
    }
}
