//! Prediction speed with the shipped model (issue targets: one configuration
//! over all candidates with the `auto` learner < 20 us; a 30-size decision
//! table < 50 ms). Prints figures; asserts nothing.
//! Run: cargo bench --bench predict

use bcast_select::data::Mapping;
use bcast_select::decision::{DecisionTable, Job};
use bcast_select::model_dir::{load_learner, load_manifest};
use bcast_select::select::Selector;
use bcast_select::train::default_margin;
use std::path::Path;
use std::time::Instant;

fn main() {
    let dir = Path::new("trained/default");
    let start = Instant::now();
    let manifest = load_manifest(dir).expect("trained/default must load");
    let models = load_learner(dir, &manifest, manifest.auto).expect("auto learner must load");
    println!(
        "load trained/default ({} learner, {} candidates): {:.1} ms",
        manifest.auto,
        models.candidates.len(),
        start.elapsed().as_secs_f64() * 1e3
    );
    let selector = Selector {
        candidates: &models.candidates,
        models: &models.models,
        mappings: &manifest.candidate_mappings,
        default_margin: default_margin(&manifest.cv, manifest.auto),
    };
    let job = |ppn: u32| Job {
        nodes: 2,
        ppn,
        procs: 2 * ppn,
        mapping: Mapping::Core,
    };
    let n = 20_000;
    let start = Instant::now();
    let mut checksum = 0.0;
    for i in 0..n {
        let config = job(1 + (i % 64) as u32).config(1 << (i % 21));
        checksum += selector.rank(&config, None)[0].predicted_us;
    }
    let per = start.elapsed().as_secs_f64() * 1e6 / f64::from(n);
    println!(
        "select one configuration over all candidates ({}): {per:.2} us (mean of {n}; checksum {checksum:.0})",
        manifest.auto
    );
    let sizes: Vec<u64> = (0..30).map(|i| 1u64 << (i % 23) | i).collect();
    let mut times: Vec<f64> = (0..21)
        .map(|_| {
            let start = Instant::now();
            let t = DecisionTable::new(&selector, job(24), manifest.auto.to_string(), &sizes);
            assert_eq!(t.decisions.len(), 30);
            start.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    times.sort_by(f64::total_cmp);
    println!(
        "30-size decision table: median {:.3} ms, max {:.3} ms",
        times[10], times[20]
    );
}
