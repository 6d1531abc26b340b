//! `evaluate` through the real binary: the contract of its JSON
//! (docs/formats.md, "`evaluate` output").

mod common;

use assert_cmd::Command;
use std::collections::{BTreeMap, BTreeSet};

fn evaluate(args: &[&str]) -> std::process::Output {
    Command::cargo_bin("collsel")
        .unwrap()
        .arg("evaluate")
        .args(args)
        .output()
        .unwrap()
}

const SELECTOR_FIELDS: [&str; 9] = [
    "name",
    "evaluated_configs",
    "unmeasured_configs",
    "geomean_speedup_vs_default",
    "mean_speedup_vs_default",
    "geomean_slowdown_vs_best",
    "best_rate",
    "within_5pct_rate",
    "worse_than_default_10pct_rate",
];

#[test]
fn json_has_the_design_fields_and_the_ranking() {
    let o = evaluate(&["--train", "data/local-2core.csv", "--format", "json"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let top: BTreeSet<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(
        top,
        BTreeSet::from([
            "train_rows",
            "test_rows",
            "test_configs",
            "selectors",
            "analytical_ranking"
        ]),
        "the JSON contract plus the analytical model's pairwise ranking accuracy"
    );
    let ranking = &v["analytical_ranking"]["all"];
    assert!(ranking["pairs"].as_u64().unwrap() > 0);
    assert!((0.0..=1.0).contains(&ranking["accuracy"].as_f64().unwrap()));
    let selectors = v["selectors"].as_array().unwrap();
    let names: Vec<&str> = selectors
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "oracle",
            "default",
            "ompi-fixed",
            "naive",
            "analytical",
            "knn",
            "gbm",
            "gam",
            "linear",
            "hybrid-knn",
            "hybrid-gbm",
            "hybrid-gam",
            "nearest",
            "auto"
        ]
    );
    for s in selectors {
        let keys: BTreeSet<&str> = s.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(keys, BTreeSet::from(SELECTOR_FIELDS));
        for rate in [
            "best_rate",
            "within_5pct_rate",
            "worse_than_default_10pct_rate",
        ] {
            let r = s[rate].as_f64().unwrap();
            assert!((0.0..=1.0).contains(&r), "{rate} = {r}");
        }
    }
    let oracle = &selectors[0];
    let default = &selectors[1];
    let configs = v["test_configs"].as_u64().unwrap();
    assert_eq!(oracle["evaluated_configs"].as_u64().unwrap(), configs);
    assert_eq!(oracle["geomean_slowdown_vs_best"], 1.0);
    assert_eq!(default["geomean_speedup_vs_default"], 1.0);
    // No selector beats the oracle.
    let best = oracle["geomean_speedup_vs_default"].as_f64().unwrap();
    for s in selectors {
        if s["unmeasured_configs"] == 0 {
            assert!(s["geomean_speedup_vs_default"].as_f64().unwrap() <= best + 1e-12);
        }
    }
}

#[test]
fn split_keeps_test_procs_out_of_training() {
    let o = evaluate(&[
        "--train",
        "data/local-2core.csv",
        "--format",
        "csv",
        "--test-fraction",
        "0.4",
        "--seed",
        "3",
        "--learners",
        "linear",
    ]);
    assert!(o.status.success());
    let text = String::from_utf8(o.stdout).unwrap();
    let tested: BTreeSet<u32> = text
        .lines()
        .skip(1)
        .map(|l| l.split(',').next().unwrap().parse().unwrap())
        .collect();
    // 7 procs values, 40% held out -> 3 (rounded), all from the data.
    assert_eq!(tested.len(), 3, "{tested:?}");
    assert!(tested.iter().all(|p| (2..=8).contains(p)), "{tested:?}");

    // The markdown report of the same split has the summary and the
    // per-configuration table.
    let md = evaluate(&[
        "--train",
        "data/local-2core.csv",
        "--test-fraction",
        "0.4",
        "--seed",
        "3",
        "--learners",
        "linear",
    ]);
    let md = String::from_utf8(md.stdout).unwrap();
    assert!(md.contains("| auto |"), "{md}");
    assert!(md.contains("## Per configuration"));
}

#[test]
fn separate_test_file_and_small_train() {
    let o = evaluate(&[
        "--train",
        "data/local-2core.csv",
        "--test",
        "data/local-2core.csv",
        "--small-train",
        "--learners",
        "gam,linear",
        "--format",
        "json",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    // Every third of 7 procs values (2, 5, 8) trains: 3 x 396 rows.
    assert_eq!(v["train_rows"], 3 * 396);
    assert_eq!(v["test_rows"], 2772);
}

#[test]
fn bad_options_exit_2() {
    for args in [
        vec!["--train", "data/local-2core.csv", "--test-fraction", "1.5"],
        vec![
            "--train",
            "data/local-2core.csv",
            "--split",
            "nodes",
            "--test-fraction",
            "0.1",
            "--seed",
            "1",
            "--learners",
            "svm",
        ],
        vec!["--train", "missing.csv"],
    ] {
        assert_eq!(evaluate(&args).status.code(), Some(2), "{args:?}");
    }
}

/// Figures are taken against the measured `default`: test data
/// without it is refused with the reason, before anything is trained.
#[test]
fn test_data_without_default_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("forced.csv");
    let mut text = String::from("algorithm,procs,nodes,msg_bytes,time_us\n");
    for p in [2u32, 4, 8, 16, 32] {
        for m in [1u64, 1024, 65536] {
            for (a, c) in [("binomial", 1.0), ("linear", 2.0)] {
                text += &format!("{a},{p},1,{m},{}\n", c * f64::from(p) + m as f64 / 100.0);
            }
        }
    }
    std::fs::write(&csv, text).unwrap();
    let o = evaluate(&["--train", csv.to_str().unwrap(), "--split", "procs"]);
    assert_eq!(o.status.code(), Some(2));
    let stderr = String::from_utf8(o.stderr).unwrap();
    assert!(stderr.contains("nothing to evaluate"), "{stderr}");
    assert!(stderr.contains("(0 have a `default` row)"), "{stderr}");
}

/// The `mpi` column of `data/local-2core.csv`.
const LOCAL_MPI: &str =
    "\"Open MPI v4.1.4, package: Debian OpenMPI, ident: 4.1.4, repo rev: v4.1.4, May 26, 2022\"";

/// Rows of two MPI libraries with the same job sizes are scored each on
/// their own, never combined; `train` on them asks which one.
#[test]
fn systems_are_evaluated_apart_and_train_asks_which() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string("data/local-2core.csv").unwrap();
    let mut lines = text.lines();
    let mut two = format!("{}\n", lines.next().unwrap());
    for line in lines {
        two.push_str(line);
        two.push('\n');
        // The same rows again, as measured with another MPI library.
        two.push_str(&line.replace(LOCAL_MPI, "openmpi-5.0.5"));
        two.push('\n');
    }
    let path = dir.path().join("two.csv");
    std::fs::write(&path, two).unwrap();

    let o = Command::cargo_bin("collsel")
        .unwrap()
        .args(["train"])
        .arg(&path)
        .arg("--out")
        .arg(dir.path().join("m"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(stderr.contains("2 machine/MPI combinations"), "{stderr}");

    let json = |extra: &[&str]| -> serde_json::Value {
        let o = Command::cargo_bin("collsel")
            .unwrap()
            .args([
                "evaluate",
                "--format",
                "json",
                "--learners",
                "knn",
                "--train",
            ])
            .arg(&path)
            .args(extra)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        serde_json::from_slice(&o.stdout).unwrap()
    };
    let both = json(&[]);
    let one = json(&["--mpi", "openmpi-5.0.5"]);
    // Each system is split and scored apart: twice the rows of one, not
    // one set of rows combined by median.
    assert_eq!(both["test_rows"], 2 * one["test_rows"].as_u64().unwrap());
    assert_eq!(both["train_rows"], 2 * one["train_rows"].as_u64().unwrap());
}

/// What `evaluate` scores for `auto` is what `predict` ships: at every
/// test configuration, evaluate's pick is the decision `predict` writes
/// for that job and message size, trained on the same data. On these
/// held-out sizes the settled table differs from each size's own ranking,
/// so scoring the per-size picks would fail here.
#[test]
fn evaluate_scores_the_decisions_predict_writes() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string("data/local-2core.csv").unwrap();
    let mut lines = text.lines();
    let header = lines.next().unwrap();
    let held = [4u32, 7];
    let (mut train, mut test) = (format!("{header}\n"), format!("{header}\n"));
    for line in lines {
        let procs: u32 = line.split(',').nth(1).unwrap().parse().unwrap();
        let part = if held.contains(&procs) {
            &mut test
        } else {
            &mut train
        };
        part.push_str(line);
        part.push('\n');
    }
    let (train_csv, test_csv) = (dir.path().join("train.csv"), dir.path().join("test.csv"));
    std::fs::write(&train_csv, train).unwrap();
    std::fs::write(&test_csv, test).unwrap();
    let run = |args: &[&std::ffi::OsStr]| {
        let o = Command::cargo_bin("collsel")
            .unwrap()
            .args(args)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8(o.stdout).unwrap()
    };
    // The candidate of a CSV row, by column name.
    let candidate = |r: &BTreeMap<String, String>| {
        ["algorithm", "segsize_bytes", "fanout", "impl"].map(|c| r[c].clone())
    };
    let report = run(&[
        "evaluate".as_ref(),
        "--format".as_ref(),
        "csv".as_ref(),
        "--train".as_ref(),
        train_csv.as_os_str(),
        "--test".as_ref(),
        test_csv.as_os_str(),
    ]);
    let picks: BTreeMap<(u32, u64), [String; 4]> = common::csv_rows(&report)
        .iter()
        .filter(|r| r["selector"] == "auto")
        .map(|r| {
            (
                (r["procs"].parse().unwrap(), r["msg_bytes"].parse().unwrap()),
                candidate(r),
            )
        })
        .collect();
    assert_eq!(picks.len(), 2 * 12, "every test configuration");
    let model = dir.path().join("m");
    run(&[
        "train".as_ref(),
        train_csv.as_os_str(),
        "--out".as_ref(),
        model.as_os_str(),
    ]);
    for procs in held {
        let sizes: Vec<String> = picks
            .keys()
            .filter(|(p, _)| *p == procs)
            .map(|(_, m)| m.to_string())
            .collect();
        let (ppn, sizes) = (procs.to_string(), sizes.join(","));
        let table = run(&[
            "predict".as_ref(),
            "--model".as_ref(),
            model.as_os_str(),
            "--nodes".as_ref(),
            "1".as_ref(),
            "--ppn".as_ref(),
            ppn.as_ref(),
            "--format".as_ref(),
            "csv".as_ref(),
            "--sizes".as_ref(),
            sizes.as_ref(),
        ]);
        let decisions = common::csv_rows(&table);
        assert_eq!(decisions.len(), 12);
        for d in &decisions {
            let size: u64 = d["msg_bytes"].parse().unwrap();
            assert_eq!(
                picks[&(procs, size)],
                candidate(d),
                "{procs} ranks, {size} B"
            );
        }
    }
}
