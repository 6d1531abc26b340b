//! Property: every scheduled algorithm delivers every byte exactly once to
//! every rank, for any job shape, root, size, segment size and fan-out.

use bcast_select::data::{NodeOrder, Placement};
use bcast_select::schedule::{Schedule, Spec, SCHEDULED};
use bcast_select::sim::{simulate, CostModel, Link};
use proptest::prelude::*;

const COST: CostModel = CostModel {
    shm: Link::serialized(0.5, 0.0002),
    net: Link::serialized(3.0, 0.001),
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
            let spec = Spec { algorithm, procs, root, msg_bytes: msg, segsize, fanout: Some(fanout) };
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
