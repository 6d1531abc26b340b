//! Training speed on a 36,000-row dataset (issue targets: all learners
//! < 10 s on 2 cores, release; `evaluate` of every selector < 60 s). The dataset is simulated: 8 own candidates
//! x 11 sizes (1 B - 1 MiB) x 3 mappings x procs 2..=138 on 32-core nodes,
//! plus `default` (a copy of binomial's rows).
//! Prints figures; asserts nothing. Run: cargo bench --bench train

use collsel::data::{Algorithm, Candidate, Dataset, Mapping, Measurement, Provenance};
use collsel::evaluate::{evaluate, split, Split};
use collsel::learn::LearnerKind;
use collsel::select::SelectorKind;
use collsel::sim::campaign::{run, Campaign};
use collsel::sim::{CostModel, Link};
use collsel::train::cv::cross_validate;
use collsel::train::samples::TrainingSet;
use collsel::train::TrainOptions;
use std::time::Instant;

fn main() {
    let campaign = Campaign {
        collective: collsel::data::Collective::Bcast,
        procs: (2..=138).step_by(1).take(137).collect(),
        cores_per_node: 32,
        mappings: vec![Mapping::Core, Mapping::Socket, Mapping::Node],
        sizes: (0..=20).step_by(2).map(|e| 1u64 << e).collect(),
        candidates: vec![
            (Algorithm::Linear, 0, None),
            (Algorithm::Chain, 65536, Some(4)),
            (Algorithm::Pipeline, 65536, None),
            (Algorithm::SplitBinary, 65536, None),
            (Algorithm::Binary, 65536, None),
            (Algorithm::Binomial, 0, None),
            (Algorithm::Binomial, 65536, None),
            (Algorithm::Knomial, 0, Some(4)),
        ],
        cost: CostModel {
            shm: Link::serialized(0.4, 0.0002),
            net: Link::serialized(2.0, 0.0008),
            combine_us_per_byte: 0.0,
        },
        noise: 0.05,
        seed: 1,
    };
    let start = Instant::now();
    let mut rows = run(&campaign).expect("simulated campaign");
    // The library's own choice, as `evaluate` needs: here binomial's times.
    let library: Vec<_> = rows
        .iter()
        .filter(|m| m.candidate.algorithm == Algorithm::Binomial && m.candidate.segsize == Some(0))
        .map(|m| Measurement {
            candidate: Candidate::DEFAULT,
            ..m.clone()
        })
        .collect();
    rows.extend(library);
    let data = Dataset::from_rows(rows, Provenance::default());
    println!(
        "simulated {} rows in {:.1} s",
        data.rows,
        start.elapsed().as_secs_f64()
    );
    let start = Instant::now();
    let set = TrainingSet::new(&data, true);
    println!(
        "  analytical models and hybrid features {:>6.2} s",
        start.elapsed().as_secs_f64()
    );
    for kind in LearnerKind::ALL {
        let t = Instant::now();
        set.fit(SelectorKind::Learner(kind)).expect("fit");
        println!("  fit {kind:<10} {:>6.2} s", t.elapsed().as_secs_f64());
    }
    println!(
        "fit all learners, every candidate: {:.2} s",
        start.elapsed().as_secs_f64()
    );
    let start = Instant::now();
    cross_validate(
        &data,
        &set.analytical,
        &SelectorKind::all(&LearnerKind::ALL),
        5,
        || {},
    )
    .expect("cv");
    println!(
        "cross-validation of every selector (5 folds and an extrapolating one): {:.2} s",
        start.elapsed().as_secs_f64()
    );
    let start = Instant::now();
    let (train, test) = split(
        &data,
        Split::Procs {
            fraction: 0.3,
            seed: 1,
        },
    )
    .expect("split");
    let options = TrainOptions {
        learners: LearnerKind::ALL.to_vec(),
        folds: 5,
        max_rows: 0,
    };
    let report = evaluate(&train, &test, &options, || {}).expect("evaluate");
    println!(
        "evaluate every selector ({} of them; train {} rows, test {} configurations): {:.2} s",
        report.selectors.len(),
        report.train_rows,
        report.test_configs,
        start.elapsed().as_secs_f64()
    );
}
