//! `train` then `predict`, through the real binary.

mod common;

use assert_cmd::Command;
use std::path::{Path, PathBuf};

fn bin() -> Command {
    Command::cargo_bin("collsel").unwrap()
}

/// The synthetic campaign ([`common::synthetic_campaign`]) written next to
/// `out`.
fn campaign(out: &Path) -> PathBuf {
    let csv = out.with_extension("csv");
    std::fs::write(&csv, common::synthetic_campaign()).unwrap();
    csv
}

/// Trains on the synthetic campaign into `out`.
fn train(out: &Path, extra: &[&str]) {
    let o = bin()
        .arg("train")
        .arg(campaign(out))
        .arg("--out")
        .arg(out)
        .args(extra)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// `train CSV --out OUT` with the default learners.
fn train_file(csv: &Path, out: &Path) -> std::process::Output {
    bin()
        .arg("train")
        .arg(csv)
        .arg("--out")
        .arg(out)
        .output()
        .unwrap()
}

/// Trains on a CSV holding `text`, in a temporary directory (the model is
/// `m` in it): the directory, stdout, stderr and the manifest.
fn train_text(text: &str) -> (tempfile::TempDir, String, String, serde_json::Value) {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("data.csv");
    std::fs::write(&csv, text).unwrap();
    let o = train_file(&csv, &dir.path().join("m"));
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let manifest =
        serde_json::from_slice(&std::fs::read(dir.path().join("m/manifest.json")).unwrap())
            .unwrap();
    let text = |b: Vec<u8>| String::from_utf8(b).unwrap();
    (dir, text(o.stdout), text(o.stderr), manifest)
}

fn predict(model: &Path, args: &[&str]) -> std::process::Output {
    bin()
        .args(["predict", "--model"])
        .arg(model)
        .args(args)
        .output()
        .unwrap()
}

/// The data rows of `predict --format csv` output, cells by column name.
fn csv_rows(stdout: &[u8]) -> Vec<std::collections::BTreeMap<String, String>> {
    common::csv_rows(std::str::from_utf8(stdout).unwrap())
}

#[test]
fn train_writes_a_model_that_predict_reads() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("m");
    train(&model, &[]);
    for f in [
        "manifest.json",
        "analytical.json",
        "knn.json",
        "gbm.json",
        "gam.json",
        "linear.json",
        "hybrid-knn.json",
        "hybrid-gbm.json",
        "hybrid-gam.json",
    ] {
        assert!(model.join(f).is_file(), "{f}");
    }
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(model.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(
        manifest["format_version"],
        collsel::train::store::FORMAT_VERSION
    );
    assert_eq!(
        manifest["target"], "ratio_to_default",
        "default measured everywhere"
    );
    assert_eq!(manifest["candidates"].as_array().unwrap().len(), 5);
    assert_eq!(
        manifest["cv"].as_array().unwrap().len(),
        9,
        "7 learners, analytical, nearest"
    );
    assert_eq!(manifest["training"]["rows"], 840);
    let auto = manifest["auto"]["inside"].as_str().unwrap().to_string();

    // Table: one line per range of sizes with the same choice.
    let o = predict(&model, &["--nodes", "1", "--ppn", "64"]);
    assert!(o.status.success());
    let text = String::from_utf8(o.stdout).unwrap();
    let header = text.lines().next().unwrap();
    assert!(
        header.starts_with(&format!(
            "MPI_Bcast decisions for 1 node(s) x 64 ranks (64 ranks, mapping core), learner {auto}"
        )) && header.contains("(auto)"),
        "{header}"
    );

    // CSV: one row per size, the choice predicted no slower than the
    // runner-up (but for what settling merges within 5%), unless `default`
    // was kept within the model's margin.
    let o = predict(
        &model,
        &[
            "--nodes", "1", "--ppn", "64", "--sizes", "1:1M:x4", "--format", "csv",
        ],
    );
    let rows = csv_rows(&o.stdout);
    assert_eq!(rows.len(), 11);
    // The decisions name the system they are for and the arrival pattern.
    assert!(rows.iter().all(|r| r["machine"] == "synthetic"
        && r["mpi"] == "openmpi-4.1.6"
        && r["arrival_pattern"] == "barrier"
        && r["imbalance"] == "0"));
    for r in &rows {
        let (best, runner): (f64, f64) = (
            r["predicted_us"].parse().unwrap(),
            r["runner_up_predicted_us"].parse().unwrap(),
        );
        assert!(
            best > 0.0 && (best <= 1.05 * runner || r["algorithm"] == "default"),
            "{r:?}"
        );
    }

    // JSON: ranges cover the sizes in order, without gaps.
    let o = predict(
        &model,
        &[
            "--nodes",
            "1",
            "--ppn",
            "64",
            "--learner",
            "gam",
            "--format",
            "json",
        ],
    );
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["learner"], "gam");
    let decisions = v["decisions"].as_array().unwrap();
    let ranges = v["ranges"].as_array().unwrap();
    assert_eq!(ranges[0]["first"], 0);
    assert_eq!(ranges.last().unwrap()["last"], decisions.len() - 1);
    for w in ranges.windows(2) {
        assert_eq!(w[1]["first"], w[0]["last"].as_u64().unwrap() + 1);
        assert_ne!(
            w[0]["candidate"], w[1]["candidate"],
            "adjacent ranges must differ"
        );
    }
}

/// The analytical selector and every hybrid learner predict on every
/// shipped dataset: a choice per size, each predicted no slower than its
/// runner-up (`default` aside, which a learner keeps within its margin).
#[test]
fn analytical_and_hybrid_selectors_work_on_every_dataset() {
    let dir = tempfile::tempdir().unwrap();
    let files = std::fs::read_dir("data")
        .unwrap()
        .map(|e| e.unwrap().path());
    // A file of several collectives (the MPICH campaign) is a model each.
    let mut models = Vec::new();
    for file in files.filter(|p| p.extension().is_some_and(|e| e == "csv")) {
        let before = models.len();
        for c in collsel::data::Collective::ALL {
            let collective = c.name();
            let stem = file.file_stem().unwrap().to_string_lossy();
            let model = dir.path().join(format!("{stem}-{collective}"));
            let o = bin()
                .arg("train")
                .arg(&file)
                .args([
                    "--learners",
                    "hybrid-knn,hybrid-gbm,hybrid-gam",
                    "--folds",
                    "2",
                    "--collective",
                    collective,
                ])
                .arg("--out")
                .arg(&model)
                .output()
                .unwrap();
            let err = String::from_utf8_lossy(&o.stderr);
            match o.status.success() {
                true => models.push((file.clone(), c, model)),
                false => assert!(err.contains("no rows"), "{}: {err}", file.display()),
            }
        }
        assert!(models.len() > before, "{} trains no model", file.display());
    }
    for (file, collective, model) in models {
        for learner in ["analytical", "hybrid-knn", "hybrid-gbm", "hybrid-gam"] {
            let o = predict(
                &model,
                &[
                    "--nodes",
                    "2",
                    "--ppn",
                    "4",
                    "--sizes",
                    "1:4M:x4",
                    "--format",
                    "csv",
                    "--learner",
                    learner,
                ],
            );
            let what = format!("{learner} on {}", file.display());
            assert!(
                o.status.success(),
                "{what}: {}",
                String::from_utf8_lossy(&o.stderr)
            );
            let rows = csv_rows(&o.stdout);
            // Twelve sizes asked; a barrier's only size is 0.
            let sizes = if collective.describe().semantics.sized {
                12
            } else {
                1
            };
            assert_eq!(rows.len(), sizes, "{what}");
            for r in &rows {
                let best: f64 = r["predicted_us"].parse().unwrap();
                // The analytical model cannot price MPICH's `default` (its
                // device layer's choice), which it then keeps, unpriced.
                let unpriced_default = best.is_nan()
                    && r["algorithm"] == "default"
                    && learner == "analytical"
                    && r["mpi"].starts_with("MPICH");
                assert!(
                    (best.is_finite() && best > 0.0) || unpriced_default,
                    "{what}: {r:?}"
                );
                // Settling may keep a neighbour's choice predicted up to 5%
                // slower (within noise).
                if let Ok(runner) = r["runner_up_predicted_us"].parse::<f64>() {
                    assert!(
                        best <= 1.05 * runner || r["algorithm"] == "default",
                        "{what}: {r:?}"
                    );
                }
            }
        }
    }
}

#[test]
fn retraining_reproduces_the_model_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    train(&a, &["--learners", "gbm,linear"]);
    train(&b, &["--learners", "gbm,linear"]);
    for f in ["gbm.json", "linear.json"] {
        assert_eq!(
            std::fs::read(a.join(f)).unwrap(),
            std::fs::read(b.join(f)).unwrap(),
            "{f}"
        );
    }
}

#[test]
fn predict_refuses_what_it_cannot_use() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("m");
    train(&model, &["--learners", "linear"]);
    let code = |o: std::process::Output| (o.status.code(), String::from_utf8(o.stderr).unwrap());

    let (c, e) = code(predict(
        &dir.path().join("none"),
        &["--nodes", "1", "--ppn", "4"],
    ));
    assert_eq!(c, Some(2), "{e}");
    let (c, e) = code(predict(
        &model,
        &["--nodes", "1", "--ppn", "4", "--learner", "knn"],
    ));
    assert_eq!(c, Some(2));
    assert!(e.contains("learner 'knn' was not trained"), "{e}");
    let (c, _) = code(predict(
        &model,
        &["--nodes", "1", "--ppn", "4", "--learner", "svm"],
    ));
    assert_eq!(c, Some(2));
    let (c, _) = code(predict(&model, &["--nodes", "0", "--ppn", "4"]));
    assert_eq!(c, Some(2));
    let (c, e) = code(predict(
        &model,
        &["--nodes", "1", "--ppn", "4", "--sizes", "8,1"],
    ));
    assert_eq!(c, Some(2));
    assert!(e.contains("sizes must increase"), "{e}");
    let (c, e) = code(predict(
        &model,
        &["--nodes", "1", "--ppn", "4", "--sizes", "0,1K"],
    ));
    assert_eq!(c, Some(2));
    assert!(e.contains("a collective of no data"), "{e}");
    let (c, e) = code(predict(&model, &["--nodes", "1", "--ppn", "1"]));
    assert_eq!(c, Some(2));
    assert!(e.contains("a job of 1 rank"), "{e}");
    // In a list, one rank is left out and the others decided.
    let o = predict(
        &model,
        &["--nodes", "1", "--procs", "1,4", "--format", "csv"],
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(csv_rows(&o.stdout).iter().all(|r| r["procs"] == "4"));
    let (c, _) = code(predict(
        &model,
        &["--nodes", "1", "--ppn", "4", "--procs", "4,8"],
    ));
    assert_eq!(c, Some(2), "--procs and --ppn conflict");
    let (c, _) = code(predict(
        &model,
        &[
            "--nodes",
            "1",
            "--procs",
            "4",
            "--format",
            "ompi-rules",
            "--rules-version",
            "3",
        ],
    ));
    assert_eq!(c, Some(2));

    let analytical = model.join("analytical.json");
    let kept = std::fs::read(&analytical).unwrap();
    std::fs::write(&analytical, "{\"shared\": 3}").unwrap();
    let (c, e) = code(predict(&model, &["--nodes", "1", "--ppn", "4"]));
    assert_eq!(c, Some(2));
    assert!(e.contains("analytical.json:1:"), "{e}");
    std::fs::write(&analytical, kept).unwrap();

    let manifest = model.join("manifest.json");
    let original = std::fs::read_to_string(&manifest).unwrap();
    let version = collsel::train::store::FORMAT_VERSION;
    std::fs::write(
        &manifest,
        original.replace(
            &format!("\"format_version\": {version}"),
            &format!("\"format_version\": {}", version + 1),
        ),
    )
    .unwrap();
    let (c, e) = code(predict(&model, &["--nodes", "1", "--ppn", "4"]));
    assert_eq!(c, Some(2));
    assert!(
        e.contains(&format!("model format version {}", version + 1)),
        "{e}"
    );

    std::fs::write(&manifest, original.replace("\"ppn\",", "\"cores\",")).unwrap();
    let (c, e) = code(predict(&model, &["--nodes", "1", "--ppn", "4"]));
    assert_eq!(c, Some(2));
    assert!(e.contains("model uses features"), "{e}");

    std::fs::write(&manifest, "{ not json").unwrap();
    let (c, e) = code(predict(&model, &["--nodes", "1", "--ppn", "4"]));
    assert_eq!(c, Some(2));
    assert!(e.contains("manifest.json:1:3: not valid JSON"), "{e}");
}

#[test]
fn train_rejects_bad_data_with_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.csv");
    std::fs::write(&bad, "algorithm,procs,msg_bytes,time_us\nlinear,4,8,-1\n").unwrap();
    let o = train_file(&bad, &dir.path().join("m"));
    assert_eq!(o.status.code(), Some(2));
    assert!(!dir.path().join("m").exists(), "no model from bad data");
}

#[test]
fn rare_candidates_are_left_out_and_one_procs_value_skips_cv() {
    let mut text = String::from("algorithm,procs,nodes,msg_bytes,time_us\n");
    for m in [1u64, 8, 64, 512, 4096] {
        for (a, base) in [("default", 1.0), ("binomial", 2.0), ("linear", 3.0)] {
            text += &format!("{a},4,1,{m},{}\n", base + m as f64 / 100.0);
        }
    }
    text += "pipeline,4,1,8,9.0\n";
    let (_dir, stdout, stderr, manifest) = train_text(&text);
    assert!(
        stderr.contains("candidate pipeline has only 1 measurement(s)"),
        "{stderr}"
    );
    assert!(stdout.contains("no cross-validation possible"), "{stdout}");
    assert_eq!(manifest["candidates"].as_array().unwrap().len(), 3);
    assert_eq!(manifest["cv"].as_array().unwrap().len(), 0);
    assert_eq!(
        manifest["auto"]["inside"], "analytical",
        "the first selector"
    );
}

/// A barrier measured at two communicator sizes has two rows per
/// candidate: `train` models the candidates from them (saying so) rather
/// than refusing, `predict` decides by the measurements where they are and
/// keeps `default` beyond them, where nothing shows a difference.
#[test]
fn candidates_measured_twice_each_still_train() {
    let mut text = String::from("collective,algorithm,procs,nodes,msg_bytes,time_us\n");
    for p in [2u32, 4] {
        for (a, t) in [("default", 2.0), ("bruck", 1.0), ("linear", 3.0)] {
            text += &format!("barrier,{a},{p},1,0,{}\n", t * f64::from(p));
        }
    }
    text += "barrier,tree,4,1,0,9.0\n";
    let (dir, _, stderr, manifest) = train_text(&text);
    assert!(
        stderr.contains("no candidate has 3 or more measurements: those with 2 are modelled"),
        "{stderr}"
    );
    assert!(
        stderr.contains("candidate tree has only 1 measurement(s) (at least 2 needed)"),
        "{stderr}"
    );
    assert_eq!(manifest["candidates"].as_array().unwrap().len(), 3);
    let model = dir.path().join("m");
    let choice = |ppn: &str| {
        let o = predict(&model, &["--nodes", "1", "--ppn", ppn, "--format", "csv"]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let rows = csv_rows(&o.stdout);
        assert_eq!(rows.len(), 1, "{rows:?}");
        rows[0]["algorithm"].clone()
    };
    assert_eq!(choice("4"), "bruck", "measured twice as fast as default");
    assert_eq!(choice("16"), "default", "beyond what was measured");
}

/// One measurement trains a model `predict` reads back: the analytical
/// fit's R² is undefined there (the times do not vary) and must be stored
/// as such, not as a number JSON cannot hold.
#[test]
fn a_single_measurement_trains_a_model_predict_reads() {
    let (dir, _, _, manifest) =
        train_text("algorithm,procs,nodes,msg_bytes,time_us\nlinear,4,1,8,2.0\n");
    assert_eq!(manifest["candidates"].as_array().unwrap().len(), 1);
    let o = predict(&dir.path().join("m"), &["--nodes", "1", "--ppn", "4"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stdout).contains("linear"));
}

/// `default` measured at one size of five: the learners fit times, and
/// `train` says so; `predict` reads the model and decides every size.
#[test]
fn a_rarely_measured_default_is_said_and_times_are_fitted() {
    let mut text = String::from("algorithm,procs,nodes,msg_bytes,time_us\n");
    for p in [2u32, 4, 8] {
        for m in [1u64, 8, 64, 512, 4096] {
            text += &format!("binomial,{p},1,{m},{}\n", 2.0 + m as f64 / 100.0);
            text += &format!("linear,{p},1,{m},{}\n", 3.0 + m as f64 / 50.0);
        }
        text += &format!("default,{p},1,1,1.0\n");
    }
    let (dir, _, stderr, manifest) = train_text(&text);
    assert!(
        stderr.contains("`default` measured at only 3 of 15 configurations"),
        "{stderr}"
    );
    assert_eq!(manifest["target"], "time");
    let model = dir.path().join("m");
    let o = predict(&model, &["--nodes", "1", "--ppn", "4", "--format", "csv"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(csv_rows(&o.stdout).len(), 5);
}

/// Data of a single candidate, over several procs values: nothing to choose
/// between, so no cross-validation figures, a warning, and a model that
/// `predict` reads and that always picks that candidate.
#[test]
fn one_candidate_trains_without_cv_and_predicts_it() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("one.csv");
    let mut text = String::from("algorithm,procs,nodes,msg_bytes,time_us\n");
    for p in [2u32, 4, 8, 16] {
        for m in [1u64, 64, 4096, 65536] {
            text += &format!("binomial,{p},1,{m},{}\n", f64::from(p) + m as f64 / 100.0);
        }
    }
    std::fs::write(&csv, text).unwrap();
    let model = dir.path().join("m");
    let o = train_file(&csv, &model);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let stderr = String::from_utf8(o.stderr).unwrap();
    assert!(stderr.contains("only one candidate (binomial"), "{stderr}");
    let stdout = String::from_utf8(o.stdout).unwrap();
    assert!(stdout.contains("no cross-validation possible"), "{stdout}");
    let o = predict(&model, &["--nodes", "1", "--ppn", "8", "--format", "csv"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let rows = csv_rows(&o.stdout);
    assert!(!rows.is_empty());
    assert!(
        rows.iter().all(|r| r["algorithm"] == "binomial"),
        "{rows:?}"
    );
}

/// Imbalance is a feature: a model trained on `bench --imbalance` data
/// (experiments/imbalance.sh) predicts differently per factor and pattern;
/// a model without such data says its predictions extrapolate.
#[test]
fn predict_accounts_for_imbalance() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("m");
    let data = "experiments/results/imbalance";
    let o = bin()
        .arg("train")
        .args(
            ["uniform-4.csv", "uniform-8.csv", "late-4.csv", "late-8.csv"]
                .map(|f| format!("{data}/{f}")),
        )
        .args(["--learners", "knn", "--out"])
        .arg(&model)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let predict = |extra: &[&str]| {
        let o = bin()
            .args([
                "predict", "--nodes", "1", "--ppn", "8", "--sizes", "1M", "--format", "csv",
                "--model",
            ])
            .arg(&model)
            .args(extra)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let stderr = String::from_utf8_lossy(&o.stderr).into_owned();
        assert!(!stderr.contains("extrapolate"), "{stderr}");
        String::from_utf8(o.stdout).unwrap()
    };
    let balanced_x = predict(&["--imbalance", "0"]);
    let late = predict(&["--imbalance", "64", "--late-fraction", "0.2"]);
    let uniform = predict(&["--imbalance", "64"]);
    assert_ne!(balanced_x, uniform);
    assert_ne!(uniform, late);

    let o = bin()
        .args([
            "predict",
            "--model",
            "trained/default",
            "--nodes",
            "1",
            "--ppn",
            "8",
            "--sizes",
            "1M",
        ])
        .args(["--imbalance", "4"])
        .output()
        .unwrap();
    assert!(o.status.success());
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(stderr.contains("no arrival pattern uniform"), "{stderr}");
    let table = String::from_utf8_lossy(&o.stdout);
    assert!(
        table.contains("for arrival pattern uniform with imbalance factor 4"),
        "{table}"
    );
}

/// A damaged model file of any kind is refused on load with exit 2, the
/// file and what is wrong — not a panic, a hang or an index out of bounds
/// in `predict`.
#[test]
fn damaged_model_files_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("m");
    train(&model, &["--learners", "knn,gbm,gam,linear,hybrid-gbm"]);
    type Damage = fn(&mut serde_json::Value);
    let cases: [(&str, &str, Damage); 6] = [
        ("gbm", "gbm.json", |v| {
            // A split whose left child is itself: a walk would never end.
            let node = &mut v["models"][0]["trees"][0][0];
            node[2] = serde_json::json!(0);
            node[0] = serde_json::json!(0);
        }),
        ("hybrid-gbm", "hybrid-gbm.json", |v| {
            // A split on a feature past the row.
            let node = &mut v["models"][1]["trees"][0][0];
            node[0] = serde_json::json!(99);
        }),
        ("gam", "gam.json", |v| {
            v["models"][0]["coef"].as_array_mut().unwrap().pop();
        }),
        ("linear", "linear.json", |v| {
            v["models"][0]["groups"] = serde_json::json!([]);
        }),
        ("knn", "knn.json", |v| {
            v["models"][0]["columns"][0] = serde_json::json!(99);
        }),
        ("analytical", "analytical.json", |v| {
            v["platform"]["shm"][0]["send_us"] = serde_json::json!(-1.0);
        }),
    ];
    for (learner, file, damage) in cases {
        let path = model.join(file);
        let kept = std::fs::read(&path).unwrap();
        let mut v: serde_json::Value = serde_json::from_slice(&kept).unwrap();
        damage(&mut v);
        std::fs::write(&path, v.to_string()).unwrap();
        let o = predict(
            &model,
            &["--nodes", "1", "--ppn", "4", "--learner", learner],
        );
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{learner}: {stderr}");
        assert!(stderr.contains(file), "{learner}: {stderr}");
        assert!(
            stderr.contains("damaged") || stderr.contains("cost parameter"),
            "{learner}: {stderr}"
        );
        std::fs::write(&path, kept).unwrap();
    }
    // A file of another learner under this one's name.
    std::fs::copy(model.join("knn.json"), model.join("gbm.json")).unwrap();
    let o = predict(&model, &["--nodes", "1", "--ppn", "4", "--learner", "gbm"]);
    assert_eq!(o.status.code(), Some(2));
}

/// MPICH has no chain: the MPICH export decides among the candidates it has
/// (and says which it left out) where the other formats pick chain.
#[test]
fn mpich_json_decides_among_mpich_algorithms() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("m");
    train(&model, &["--learners", "knn"]);
    let job = ["--nodes", "1", "--ppn", "8", "--learner", "knn"];
    let csv = predict(&model, &[&job[..], &["--format", "csv"]].concat());
    assert!(csv.status.success());
    let rows = csv_rows(&csv.stdout);
    assert!(
        rows.iter().any(|r| r["algorithm"] == "chain"),
        "the test needs a table that picks chain somewhere: {rows:?}"
    );
    // Without the user's MPICH selection file: refused, saying why.
    let o = predict(&model, &[&job[..], &["--format", "mpich-json"]].concat());
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--mpich-base"));
    let base = dir.path().join("generic.json");
    std::fs::write(
        &base,
        r#"{"collective=bcast": {"algorithm=MPIR_Bcast_intra_smp": {}},
            "collective=allreduce": {"algorithm=MPIR_Allreduce_intra_ring": {}}}"#,
    )
    .unwrap();
    let base = base.to_str().unwrap();
    let o = predict(
        &model,
        &[&job[..], &["--format", "mpich-json", "--mpich-base", base]].concat(),
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        stderr.contains("MPICH has no bcast equivalent of chain"),
        "{stderr}"
    );
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let text = json.to_string();
    assert!(text.contains("algorithm=MPIR_Bcast_intra"), "{text}");
    assert!(!text.contains("MPIR_Bcast_intra_smp"), "{text}");
    assert!(text.contains("MPIR_Allreduce_intra_ring"), "{text}");
}

#[test]
fn max_rows_thins_evenly_and_keeps_the_measured_range() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = |name: &str, extra: &[&str]| {
        let model = dir.path().join(name);
        let o = bin()
            .arg("train")
            .arg(campaign(&model))
            .args(["--learners", "linear"])
            .args(extra)
            .arg("--out")
            .arg(&model)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let stderr = String::from_utf8(o.stderr).unwrap();
        let m: serde_json::Value =
            serde_json::from_slice(&std::fs::read(model.join("manifest.json")).unwrap()).unwrap();
        (m, stderr)
    };
    let (all, said) = manifest("all", &[]);
    assert!(!said.contains("fitting on"), "{said}");
    let (thin, said) = manifest("thin", &["--max-rows", "200"]);
    assert!(
        said.contains("fitting on 200 of the 840 measurements"),
        "{said}"
    );
    assert_eq!(thin["training"]["rows"], 200);
    assert_eq!(thin["training"]["procs"], all["training"]["procs"]);
    assert_eq!(
        thin["training"]["candidates"],
        all["training"]["candidates"]
    );
    assert_eq!(thin["range"], all["range"]);
    // ... and so do the measured configurations `auto` decides by.
    let measured = |name: &str| std::fs::read(dir.path().join(name).join("measured.json")).unwrap();
    assert_eq!(measured("thin"), measured("all"));
}

/// At a benchmarked job `auto` decides by what was measured there: the
/// fastest candidate where it beat `default` by more than the inside
/// margin, `default` elsewhere. A damaged `measured.json` is refused.
#[test]
fn measured_jobs_follow_their_measurements() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("m");
    train(&model, &[]);
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(model.join("manifest.json")).unwrap()).unwrap();
    let inside = manifest["auto"]["inside"].as_str().unwrap();
    let margin = manifest["cv"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["selector"] == inside)
        .unwrap()["policy"]["margin"]
        .as_f64()
        .unwrap();
    // The measured times of the 1 x 8 job, by size and algorithm.
    let text = common::synthetic_campaign();
    let mut lines = text.lines();
    let header = common::cells(lines.next().unwrap());
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    let mut times: std::collections::BTreeMap<u64, Vec<(String, f64)>> = Default::default();
    for l in lines {
        let c = common::cells(l);
        if c[col("procs")] == "8" && c[col("nodes")] == "1" {
            times
                .entry(c[col("msg_bytes")].parse().unwrap())
                .or_default()
                .push((
                    c[col("algorithm")].clone(),
                    c[col("time_us")].parse().unwrap(),
                ));
        }
    }
    assert!(times.len() >= 10, "{} sizes", times.len());
    let sizes: Vec<String> = times.keys().map(|s| s.to_string()).collect();
    let o = predict(
        &model,
        &[
            "--nodes",
            "1",
            "--ppn",
            "8",
            "--format",
            "csv",
            "--sizes",
            &sizes.join(","),
        ],
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let (mut switched, mut kept) = (0, 0);
    for row in csv_rows(&o.stdout) {
        let measured = &times[&row["msg_bytes"].parse::<u64>().unwrap()];
        let t_default = measured.iter().find(|(a, _)| a == "default").unwrap().1;
        let (best, t_best) = measured.iter().min_by(|a, b| a.1.total_cmp(&b.1)).unwrap();
        let expected = if *t_best < (1.0 - margin) * t_default {
            switched += 1;
            best.as_str()
        } else {
            kept += 1;
            "default"
        };
        assert_eq!(
            row["algorithm"], expected,
            "{} B: {measured:?}",
            row["msg_bytes"]
        );
        assert_eq!(
            row["predicted_us"].parse::<f64>().unwrap(),
            measured
                .iter()
                .find(|(a, _)| a == &row["algorithm"])
                .unwrap()
                .1,
            "{row:?}"
        );
    }
    assert!(switched > 0 && kept > 0, "{switched} switched, {kept} kept");

    let path = model.join("measured.json");
    let mut v: serde_json::Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    v[0]["times"][0][0] = serde_json::json!(99);
    std::fs::write(&path, v.to_string()).unwrap();
    let o = predict(&model, &["--nodes", "1", "--ppn", "8"]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("measured.json") && stderr.contains("entry 1"),
        "{stderr}"
    );
    // Every selector's predictions keep above the floor measured.json
    // gives: a broken one is refused under any learner.
    let o = predict(&model, &["--nodes", "1", "--ppn", "8", "--learner", "knn"]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("measured.json"), "{stderr}");
}

/// A model of `tune` carries its validation: `predict` keeps `default` on
/// the tuned job sizes where a switch did not prove faster, and says so;
/// other job sizes decide as the model does.
#[test]
fn predict_keeps_default_where_tunes_validation_reverted() {
    use collsel::bench::stats::Speedup;
    use collsel::data::Collective;
    use collsel::select::validation::Validation;
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("model");
    train(&model, &["--learners", "linear"]);
    let choice = |procs: &str, out: &std::process::Output| -> String {
        csv_rows(&out.stdout)
            .into_iter()
            .find(|r| r["procs"] == procs && r["msg_bytes"] == "4096")
            .unwrap()["algorithm"]
            .clone()
    };
    let args = ["--nodes", "1", "--procs", "8,12", "--format", "csv"];
    let before = predict(&model, &args);
    assert_eq!(choice("8", &before), "chain");
    assert_eq!(choice("12", &before), "chain");
    let chain = collsel::data::Candidate {
        algorithm: collsel::data::Algorithm::Chain,
        segsize: None,
        fanout: None,
        implementation: collsel::data::Impl::Ompi,
    };
    let slower = Validation {
        collective: Collective::Bcast,
        procs: 8,
        msg_bytes: 4096,
        decision: chain,
        speedup: Some(Speedup {
            speedup: 0.5,
            low: 0.45,
            high: 0.55,
            rounds: 8,
            replicas: 0,
            weakest: None,
            disturbed: None,
        }),
        times_us: Some((1.0, 2.0)),
        discovered: true,
        across_jobs: None,
    };
    std::fs::write(
        model.join("validation.json"),
        serde_json::to_string(&[slower]).unwrap(),
    )
    .unwrap();
    let after = predict(&model, &args);
    assert!(after.status.success());
    assert_eq!(choice("8", &after), "default", "8 ranks were tuned");
    assert_eq!(choice("12", &after), "chain", "12 ranks were not");
    assert!(String::from_utf8_lossy(&after.stderr).contains("kept default"));
}
