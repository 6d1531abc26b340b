//! Simulator speed (issue target: binomial and pipeline, P = 1024, 4 MiB in
//! 8 KiB segments = 512 segments, < 100 ms each in release). Prints figures.
//! Run: cargo bench --bench simulate

use bcast_select::data::{Algorithm, NodeOrder, Placement};
use bcast_select::schedule::{Schedule, Spec};
use bcast_select::sim::{simulate, stage_structure, CostModel, Link};
use std::time::Instant;

fn main() {
    let cost = CostModel {
        shm: Link::serialized(0.5, 0.0002),
        net: Link::serialized(3.0, 0.001),
    };
    let placement = Placement::new(1024, 32, 32, NodeOrder::Block).unwrap();
    for algorithm in [Algorithm::Binomial, Algorithm::Pipeline] {
        let schedule = Schedule::new(Spec {
            algorithm,
            procs: 1024,
            root: 0,
            msg_bytes: 4 << 20,
            segsize: 8 << 10,
            fanout: None,
        })
        .unwrap();
        let time = |f: &dyn Fn()| {
            let mut t: Vec<f64> = (0..7)
                .map(|_| {
                    let start = Instant::now();
                    f();
                    start.elapsed().as_secs_f64() * 1e3
                })
                .collect();
            t.sort_by(f64::total_cmp);
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
}
