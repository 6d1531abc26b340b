//! What `predict` shows is a time the model can stand behind, for any job
//! and message size: never zero, infinite or NaN (a candidate the selector
//! cannot price is `default` alone, shown as unpriced), never below the
//! fastest time the training data measured at that message size, with
//! finite margins — from 2 to 10^6 ranks, 1 B to 1 GiB, under every
//! selector of the shipped model (trained on `data/local-2core.csv`, 2 to
//! 8 ranks).

use collsel::data::{Arrival, Mapping};
use collsel::select::decision::{Choice, DecisionTable, Job};
use collsel::train::{store, SelectorChoice as Decide};
use std::collections::BTreeMap;
use std::path::Path;

const MODEL: &str = "trained/default";

/// The fastest time of any candidate on any job at each message size of
/// the model's training data, read from the data itself.
fn fastest_measured() -> BTreeMap<u64, f64> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let loaded =
        collsel::data::load::load_files(&[root.join("data/local-2core.csv")], &Default::default())
            .unwrap();
    let mut fastest = BTreeMap::new();
    for m in loaded.dataset.measurements() {
        let t = fastest.entry(m.config.msg_bytes).or_insert(f64::INFINITY);
        *t = m.time_us.min(*t);
    }
    fastest
}

fn job((nodes, ppn): (u32, u32)) -> Job {
    Job {
        nodes,
        ppn,
        procs: nodes * ppn,
        mapping: Mapping::Core,
        imbalance: 0.0,
        arrival: Arrival::Barrier,
    }
}

#[test]
fn predictions_are_bounded_times_for_every_job_size_and_selector() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(MODEL);
    let fastest = fastest_measured();
    let sizes = [1, 4, 1024, 65536, 1 << 20, 64 << 20, 1 << 30];
    // (nodes, ranks per node): 2 to about 10^6 ranks.
    let jobs = [
        (1, 2),
        (1, 3),
        (1, 8),
        (1, 64),
        (8, 125),
        (64, 128),
        (782, 128),
        (7813, 128),
    ];
    let all = store::load(&dir, Decide::Auto).unwrap();
    let mut choices = vec![Decide::Auto];
    choices.extend(all.selectors().into_iter().map(Decide::One));
    assert!(choices.len() >= 9, "{choices:?}");
    let mut floored = 0;
    for decide in choices {
        let trained = store::load(&dir, decide).unwrap();
        let decider = trained.decider(decide).unwrap();
        for &shape in &jobs {
            let job = job(shape);
            let p = job.procs;
            let table = DecisionTable::new(&decider, job, String::new(), &sizes, None).unwrap();
            for d in &table.decisions {
                let shown = |c: &Choice| {
                    let t = c.predicted_us;
                    if t.is_nan() {
                        // Unpriced: only `default`, which the policy keeps.
                        return c.candidate.is_default();
                    }
                    let floor = fastest
                        .get(&d.msg_bytes)
                        .copied()
                        .unwrap_or(f64::MIN_POSITIVE);
                    t.is_finite() && t > 0.0 && t >= floor
                };
                let at = format!("{decide:?} at {p} ranks, {} B: {d:?}", d.msg_bytes);
                assert!(shown(&d.choice), "{at}");
                assert!(d.runner_up.as_ref().is_none_or(shown), "{at}");
                assert!(d.margin.is_none_or(f64::is_finite), "{at}");
                floored += usize::from(d.at_floor);
            }
        }
    }
    // Far beyond the trained 8 ranks some model does fall below the floor:
    // the bound is at work, not vacuous.
    assert!(floored > 0);
}

/// A rules file for a job larger than every trained one marks its rules
/// and says how to confirm them; one for a trained size does not; both
/// still read as Open MPI reads them.
#[test]
fn rules_beyond_the_trained_sizes_are_marked() {
    let rules = |nodes: &str, ppn: &str| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_collsel"))
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .args(["predict", "--model", MODEL, "--format", "ompi-rules"])
            .args(["--nodes", nodes, "--ppn", ppn])
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        let text = String::from_utf8(out.stdout).unwrap();
        collsel::verify::files::read_tuned(text.as_bytes(), false).unwrap();
        text
    };
    let beyond = rules("64", "128");
    assert!(
        beyond.contains("# NOTE: rules marked EXTRAPOLATED"),
        "{beyond}"
    );
    assert!(beyond.contains("collsel verify"), "{beyond}");
    let marked = beyond.lines().filter(|l| l.ends_with(" EXTRAPOLATED"));
    assert_eq!(
        marked.count(),
        beyond.lines().filter(|l| l.contains("# from ")).count()
    );
    let inside = rules("1", "8");
    assert!(!inside.contains("EXTRAPOLATED"), "{inside}");
}
