//! Prediction speed with the shipped model (issue targets: one configuration
//! over all candidates with the `auto` learner < 20 us; a 30-size decision
//! table < 50 ms), for `auto` and every other selector the model offers.
//! Prints figures; asserts nothing. Run: cargo bench --bench predict

use collsel::analytical::price::price;
use collsel::data::Mapping;
use collsel::learn::features;
use collsel::learn::LearnerKind;
use collsel::select::decision::{DecisionTable, Job};
use collsel::select::SelectorKind;
use collsel::train::store::{load, load_manifest};
use collsel::train::{SelectorChoice, Trained};
use std::path::Path;
use std::time::Instant;

fn main() {
    // MODEL=dir benchmarks another model directory.
    let dir = std::env::var("MODEL").unwrap_or_else(|_| "trained/default".into());
    let dir = Path::new(&dir);
    let start = Instant::now();
    let all = load_manifest(dir).expect("the model must load");
    println!(
        "load {} manifest ({} learners, {} candidates; auto = {}): {:.1} ms",
        dir.display(),
        all.learners.len(),
        all.candidates.len(),
        all.auto,
        start.elapsed().as_secs_f64() * 1e3
    );
    let job = |ppn: u32| Job {
        nodes: 2,
        ppn,
        procs: 2 * ppn,
        mapping: Mapping::Core,
        imbalance: 0.0,
        arrival: collsel::data::Arrival::Barrier,
    };
    println!(
        "selector           one config (us)  30-size table (ms): cold  warm median\n\
         (cold: first table, analytical prices not yet computed; they are remembered)"
    );
    let mut choices = vec![
        SelectorChoice::Auto,
        SelectorChoice::One(SelectorKind::Analytical),
    ];
    choices.extend(
        all.learners
            .iter()
            .map(|&k| SelectorChoice::One(SelectorKind::Learner(k))),
    );
    for choice in choices {
        // Each selector loads its own model, whose memo of analytical
        // prices starts empty: its first table is cold.
        let trained = load(dir, choice).expect("the model must load");
        let decider = trained.decider(choice).expect("a selector");
        let name = trained.label(choice);
        let sizes: Vec<u64> = (0..30).map(|i| 1u64 << (i % 23) | i).collect();
        let table = || {
            let start = Instant::now();
            let t = DecisionTable::new(&decider, job(24), name.clone(), &sizes, None)
                .expect("every size decided");
            assert_eq!(t.decisions.len(), 30);
            start.elapsed().as_secs_f64() * 1e3
        };
        let cold = table();
        let mut warm: Vec<f64> = (0..11).map(|_| table()).collect();
        warm.sort_by(f64::total_cmp);
        // 1,344 distinct configurations: two thirds of the calls price
        // cold.
        let n = 2_000;
        let start = Instant::now();
        let mut checksum = 0.0;
        for i in 0..n {
            let config = job(1 + (i % 64) as u32).config(1 << (i % 21));
            checksum += decider.rank(&config, None)[0].predicted_us;
        }
        let per = start.elapsed().as_secs_f64() * 1e6 / f64::from(n);
        println!(
            "{name:<18} {per:>15.2}  {cold:>22.3}  {:>11.3}   (checksum {checksum:.0})",
            warm[5]
        );
    }
    let knn = SelectorChoice::One(SelectorKind::Learner(LearnerKind::Knn));
    per_candidate(&load(dir, knn).expect("the model must load"), job);
}

/// Where a selection's time goes, per candidate over the same 1,344
/// configurations: the analytical price computed cold (a simulation of the
/// schedule) and one KNN query.
fn per_candidate(trained: &Trained, job: impl Fn(u32) -> Job) {
    let (manifest, analytical) = (&trained.manifest, &trained.analytical);
    let configs: Vec<_> = (1..=64)
        .flat_map(|ppn| (0..21).map(move |e| (ppn, 1u64 << e)))
        .map(|(ppn, m)| job(ppn).config(m))
        .collect();
    let knn = trained.learners.first();
    println!("\ncandidate                     cold price (us)  knn query (us)");
    for (i, candidate) in manifest.candidates.iter().enumerate() {
        let start = Instant::now();
        let priced = configs
            .iter()
            .filter_map(|c| analytical.runs(c, candidate).map(|runs| (c, runs)))
            .filter(|(c, runs)| {
                let platform = analytical.platform.as_ref();
                platform.is_some_and(|p| {
                    price(analytical.collective, c, runs, p, analytical.statistic).is_some()
                })
            })
            .count();
        let shape = start.elapsed().as_secs_f64() * 1e6 / configs.len() as f64;
        let query = knn.map_or(f64::NAN, |models| {
            let start = Instant::now();
            let sum: f64 = configs
                .iter()
                .map(|c| models.models[i].predict(&features::base(c)))
                .sum();
            assert!(sum.is_finite());
            start.elapsed().as_secs_f64() * 1e6 / configs.len() as f64
        });
        let shape = if priced > 0 {
            format!("{shape:.2}")
        } else {
            "-".into()
        };
        println!("{:<30} {shape:>15}  {query:>14.2}", candidate.to_string());
    }
}
