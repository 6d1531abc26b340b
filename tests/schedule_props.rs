//! Properties: every broadcast algorithm delivers every byte exactly once to
//! every rank, every reduce algorithm combines every contribution once at
//! the root, and every allreduce algorithm on every rank, for any job
//! shape, root, size, segment size and fan-out.

use collsel::data::{Collective, NodeOrder, Placement};
use collsel::schedule::{bcast::SCHEDULED, scheduled, Schedule, Spec};
use collsel::sim::{simulate, CostModel, Link};
use proptest::prelude::*;

const COST: CostModel = CostModel {
    shm: Link::serialized(0.5, 0.0002),
    net: Link::serialized(3.0, 0.001),
    combine_us_per_byte: 0.0,
};

/// Message sizes spread over 0..=4 MiB on a log scale, rarely multiples of
/// the segment size.
fn msg_bytes() -> impl Strategy<Value = u64> {
    prop_oneof![
        Just(0u64),
        Just(4u64 << 20),
        (0u32..=22, 0u64..1000).prop_map(|(e, r)| ((1u64 << e) + r).min(4 << 20)),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn every_algorithm_delivers(
        procs in 1u32..=300,
        root_frac in 0.0f64..1.0,
        msg in msg_bytes(),
        segsize in prop::sample::select(vec![0u64, 1024, 8192, 65536]),
        fanout in 1u32..=32,
        nodes_wanted in 1u32..=8,
        extra_ppn in 0u32..=3,
        cyclic in any::<bool>(),
    ) {
        let root = ((procs as f64 * root_frac) as u32).min(procs - 1);
        let nodes = nodes_wanted.min(procs);
        let ppn = (procs.div_ceil(nodes) + extra_ppn).min(procs);
        let order = if cyclic { NodeOrder::Cyclic } else { NodeOrder::Block };
        let placement = Placement::new(procs, nodes, ppn, order).unwrap();
        for algorithm in SCHEDULED {
            let fanout = if algorithm.name() == "knomial" { fanout.max(2) } else { fanout };
            let spec = Spec { collective: collsel::data::Collective::Bcast, algorithm, procs, root, msg_bytes: msg, segsize, fanout: Some(fanout) };
            let schedule = Schedule::new(spec).unwrap();
            let outcome = simulate(&schedule, &placement, &COST);
            prop_assert!(outcome.is_ok(), "{:?}: {}", spec, outcome.unwrap_err());
            let outcome = outcome.unwrap();
            prop_assert_eq!(outcome.completion_us.len(), procs as usize);
            if msg > 0 && procs > 1 {
                prop_assert!(outcome.makespan_us() > 0.0);
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Every reduce algorithm leaves the root with every rank's
    /// contribution combined exactly once, in every byte (in rank order
    /// for in-order binary), and nothing behind on the other ranks.
    #[test]
    fn every_reduce_algorithm_combines_each_contribution_once(
        procs in 1u32..=150,
        root_frac in 0.0f64..1.0,
        msg in msg_bytes(),
        segsize in prop::sample::select(vec![0u64, 1000, 8192, 65536]),
        fanout in 1u32..=32,
        nodes_wanted in 1u32..=4,
        cyclic in any::<bool>(),
    ) {
        let root = ((procs as f64 * root_frac) as u32).min(procs - 1);
        let nodes = nodes_wanted.min(procs);
        let order = if cyclic { NodeOrder::Cyclic } else { NodeOrder::Block };
        let placement = Placement::new(procs, nodes, procs.div_ceil(nodes), order).unwrap();
        // At most 256 KiB (the grid in the simulator's unit tests covers
        // tiny segments); any byte count (elements of 4, 2 or 1 bytes).
        let msg = msg.min(1 << 18);
        for &algorithm in scheduled(Collective::Reduce) {
            let spec = Spec { collective: Collective::Reduce, algorithm, procs, root, msg_bytes: msg, segsize, fanout: Some(fanout) };
            let schedule = Schedule::new(spec).unwrap();
            let outcome = simulate(&schedule, &placement, &REDUCE_COST);
            prop_assert!(outcome.is_ok(), "{:?}: {}", spec, outcome.unwrap_err());
            if msg > 0 && procs > 1 {
                prop_assert!(outcome.unwrap().makespan_us() > 0.0);
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Every allreduce algorithm leaves every rank with every rank's
    /// contribution combined exactly once, in every byte.
    #[test]
    fn every_allreduce_algorithm_gives_every_rank_each_contribution_once(
        procs in 1u32..=150,
        msg in msg_bytes(),
        segsize in prop::sample::select(vec![0u64, 4, 1000, 8192, 65536]),
        nodes_wanted in 1u32..=4,
        cyclic in any::<bool>(),
    ) {
        let nodes = nodes_wanted.min(procs);
        let order = if cyclic { NodeOrder::Cyclic } else { NodeOrder::Block };
        let placement = Placement::new(procs, nodes, procs.div_ceil(nodes), order).unwrap();
        let msg = msg.min(1 << 18);
        for &algorithm in scheduled(Collective::Allreduce) {
            let spec = Spec { collective: Collective::Allreduce, algorithm, procs, root: 0, msg_bytes: msg, segsize, fanout: None };
            let schedule = Schedule::new(spec).unwrap();
            let outcome = simulate(&schedule, &placement, &REDUCE_COST);
            prop_assert!(outcome.is_ok(), "{:?}: {}", spec, outcome.unwrap_err());
            if msg > 0 && procs > 1 {
                prop_assert!(outcome.unwrap().makespan_us() > 0.0);
            }
        }
    }
}

const REDUCE_COST: CostModel = CostModel {
    combine_us_per_byte: 0.0005,
    ..COST
};

/// Every scheduled algorithm of a collective that moves blocks, on
/// `procs` ranks over up to 4 nodes: every rank ends with what it must,
/// once; two_proc exists on 2 ranks only.
fn block_algorithms_deliver(
    collective: Collective,
    procs: u32,
    block: u64,
    nodes_wanted: u32,
    cyclic: bool,
) -> Result<(), TestCaseError> {
    let nodes = nodes_wanted.min(procs);
    let order = if cyclic {
        NodeOrder::Cyclic
    } else {
        NodeOrder::Block
    };
    let placement = Placement::new(procs, nodes, procs.div_ceil(nodes), order).unwrap();
    for &algorithm in scheduled(collective) {
        let spec = Spec {
            collective,
            algorithm,
            procs,
            root: 0,
            msg_bytes: block,
            segsize: 0,
            fanout: None,
        };
        let Ok(schedule) = Schedule::new(spec) else {
            prop_assert!(
                algorithm == collsel::data::Algorithm::TwoProc && procs > 2,
                "{:?}",
                spec
            );
            continue;
        };
        let outcome = simulate(&schedule, &placement, &COST);
        prop_assert!(outcome.is_ok(), "{:?}: {}", spec, outcome.unwrap_err());
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]

    /// Every allgather and alltoall algorithm leaves every rank with the
    /// blocks it must hold, each exactly once.
    #[test]
    fn every_allgather_and_alltoall_algorithm_delivers_each_block_once(
        procs in 1u32..=150,
        block in prop::sample::select(vec![0u64, 1, 7, 100, 4096]),
        nodes_wanted in 1u32..=4,
        cyclic in any::<bool>(),
    ) {
        for collective in [Collective::Allgather, Collective::Alltoall] {
            block_algorithms_deliver(collective, procs, block, nodes_wanted, cyclic)?;
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]

    /// Every gather and scatter algorithm, from or to any root, leaves
    /// every rank with the blocks it must hold (the gather's root all of
    /// them), each exactly once.
    #[test]
    fn every_gather_and_scatter_algorithm_delivers_each_block_once(
        procs in 1u32..=150,
        root_seed in any::<u32>(),
        block in prop::sample::select(vec![0u64, 1, 7, 100, 4096]),
        segsize in prop::sample::select(vec![0u64, 1, 64, 5000]),
        nodes_wanted in 1u32..=4,
    ) {
        let nodes = nodes_wanted.min(procs);
        let placement = Placement::new(procs, nodes, procs.div_ceil(nodes), NodeOrder::Cyclic).unwrap();
        for collective in [Collective::Gather, Collective::Scatter] {
            for &algorithm in scheduled(collective) {
                let spec = Spec { collective, algorithm, procs, root: root_seed % procs, msg_bytes: block, segsize, fanout: None };
                let schedule = Schedule::new(spec).unwrap();
                let outcome = simulate(&schedule, &placement, &COST);
                prop_assert!(outcome.is_ok(), "{:?}: {}", spec, outcome.unwrap_err());
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]

    /// Every reduce_scatter and reduce_scatter_block algorithm leaves each
    /// rank with its block holding every contribution exactly once.
    #[test]
    fn every_reduce_scatter_algorithm_gives_each_rank_its_block_once(
        procs in 1u32..=150,
        floats in prop::sample::select(vec![0u64, 1, 3, 256]),
        nodes_wanted in 1u32..=4,
    ) {
        let nodes = nodes_wanted.min(procs);
        let placement = Placement::new(procs, nodes, procs.div_ceil(nodes), NodeOrder::Cyclic).unwrap();
        for collective in [Collective::ReduceScatter, Collective::ReduceScatterBlock] {
            for &algorithm in scheduled(collective) {
                let spec = Spec { collective, algorithm, procs, root: 0, msg_bytes: 4 * floats, segsize: 0, fanout: None };
                let schedule = Schedule::new(spec).unwrap();
                let outcome = simulate(&schedule, &placement, &COST);
                prop_assert!(outcome.is_ok(), "{:?}: {}", spec, outcome.unwrap_err());
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]

    /// Every barrier keeps every rank in until it has heard, through some
    /// chain of messages, from every rank.
    #[test]
    fn every_barrier_keeps_every_rank_until_all_entered(
        procs in 1u32..=300,
        nodes_wanted in 1u32..=4,
    ) {
        let nodes = nodes_wanted.min(procs);
        let placement = Placement::new(procs, nodes, procs.div_ceil(nodes), NodeOrder::Cyclic).unwrap();
        for &algorithm in scheduled(Collective::Barrier) {
            let spec = Spec { collective: Collective::Barrier, algorithm, procs, root: 0, msg_bytes: 0, segsize: 0, fanout: None };
            let Ok(schedule) = Schedule::new(spec) else {
                prop_assert!(algorithm == collsel::data::Algorithm::TwoProc && procs > 2);
                continue;
            };
            let outcome = simulate(&schedule, &placement, &COST);
            prop_assert!(outcome.is_ok(), "{:?}: {}", spec, outcome.unwrap_err());
        }
    }
}
