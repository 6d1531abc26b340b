//! Simulator speed (issue target: binomial and pipeline, P = 1024, 4 MiB in
//! 8 KiB segments = 512 segments, < 100 ms each in release). Prints figures.
//! Also the analytical model's price of one broadcast (plain and
//! symbolic, as the fit runs it) on jobs up to 24,576 ranks.
//! Run: cargo bench --bench simulate

use collsel::analytical::platform::Platform;
use collsel::analytical::price::{price, price_terms, Statistic};
use collsel::data::{
    Algorithm, Arrival, Candidate, Collective, Config, Impl, Mapping, NodeOrder, Placement,
};
use collsel::schedule::{Schedule, Spec};
use collsel::sim::{simulate, stage_structure, CostModel, Link};
use std::time::Instant;

fn main() {
    let cost = CostModel {
        shm: Link::serialized(0.5, 0.0002),
        net: Link::serialized(3.0, 0.001),
        combine_us_per_byte: 0.0,
    };
    let placement = Placement::new(1024, 32, 32, NodeOrder::Block).unwrap();
    for algorithm in [Algorithm::Binomial, Algorithm::Pipeline] {
        let schedule = Schedule::new(Spec {
            collective: Collective::Bcast,
            algorithm,
            procs: 1024,
            root: 0,
            msg_bytes: 4 << 20,
            segsize: 8 << 10,
            fanout: None,
        })
        .unwrap();
        let time = |f: &dyn Fn()| {
            let t = sorted_ms(7, f);
            (t[3], t[0])
        };
        let (median, min) = time(&|| {
            simulate(&schedule, &placement, &cost).unwrap();
        });
        let makespan = simulate(&schedule, &placement, &cost)
            .unwrap()
            .makespan_us();
        println!(
            "simulate {algorithm} P=1024 4 MiB / 8 KiB (512 segments): median {median:.1} ms, min {min:.1} ms (makespan {makespan:.0} us)"
        );
        let (median, min) = time(&|| {
            stage_structure(&schedule, &placement).unwrap();
        });
        let stages = stage_structure(&schedule, &placement).unwrap().len();
        println!(
            "stages   {algorithm} P=1024 4 MiB / 8 KiB: median {median:.1} ms, min {min:.1} ms ({stages} stages)"
        );
    }
    prices(&cost);
}

/// Median time of pricing one broadcast, plain and symbolic.
fn prices(cost: &CostModel) {
    let platform = Platform::uniform(cost.shm, cost.net);
    for (nodes, ppn) in [(16, 64), (64, 64), (256, 96)] {
        for algorithm in [
            Algorithm::Pipeline,
            Algorithm::Binomial,
            Algorithm::SplitBinary,
        ] {
            let config = Config {
                procs: nodes * ppn,
                nodes,
                ppn,
                mapping: Mapping::Core,
                msg_bytes: 1 << 20,
                imbalance: 0.0,
                arrival: Arrival::Barrier,
            };
            let candidate = Candidate {
                algorithm,
                segsize: Some(8 << 10),
                fanout: None,
                implementation: Impl::Own,
            };
            let median = |f: &dyn Fn()| sorted_ms(5, f)[2];
            let plain = median(&|| {
                price(
                    Collective::Bcast,
                    &config,
                    &candidate,
                    &platform,
                    Statistic::Slowest,
                )
                .unwrap();
            });
            let symbolic = median(&|| {
                price_terms(
                    Collective::Bcast,
                    &config,
                    &candidate,
                    &platform,
                    Statistic::Slowest,
                )
                .unwrap();
            });
            println!(
                "price    {algorithm} {} ranks ({nodes}x{ppn}) 1 MiB / 8 KiB: {plain:.2} ms, symbolic {symbolic:.2} ms",
                nodes * ppn
            );
        }
    }
}

/// Wall times of `runs` calls of `f`, in ms, fastest first.
fn sorted_ms(runs: usize, f: &dyn Fn()) -> Vec<f64> {
    let mut t: Vec<f64> = (0..runs)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    t.sort_by(f64::total_cmp);
    t
}
