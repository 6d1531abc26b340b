//! `model fit` through the real binary: what it reports of the analytical
//! model's per-algorithm terms.

use assert_cmd::Command;
use std::path::Path;

fn model_fit(file: &Path, format: &str) -> String {
    let done = Command::cargo_bin("collsel")
        .unwrap()
        .args(["model", "fit"])
        .arg(file)
        .args(["--format", format])
        .assert()
        .success();
    String::from_utf8(done.get_output().stdout.clone()).unwrap()
}

const DATA: &str = "data/local-2core.csv";

/// Every fitted row belongs to one algorithm's correction, each factor is
/// finite and positive, and no free per-algorithm constant is reported.
#[test]
fn corrections_account_for_every_fitted_row() {
    let fits: serde_json::Value =
        serde_json::from_str(&model_fit(Path::new(DATA), "json")).unwrap();
    let fit = &fits[0];
    let corrections = fit["corrections"].as_array().unwrap();
    assert!(corrections.len() >= 2, "{corrections:?}");
    let rows: u64 = corrections
        .iter()
        .map(|c| c["rows"].as_u64().unwrap())
        .sum();
    assert_eq!(rows, fit["summary"]["rows"].as_u64().unwrap());
    for c in corrections {
        for f in c["log_factor"].as_array().unwrap() {
            assert!(f.as_f64().unwrap().is_finite(), "{c}");
        }
    }
    assert!(fit.get("overheads").is_none());
    // The estimate behind the shrinkage is reported: a variance each.
    let shrinkage = &fit["summary"]["shrinkage"];
    for v in ["noise", "signal"] {
        let x = shrinkage[v].as_f64().unwrap();
        assert!(x.is_finite() && x >= 0.0, "{v}: {shrinkage}");
    }
}

/// The text report lists each algorithm with its rows and one factor per
/// message-size knot.
#[test]
fn the_report_lists_each_algorithms_factors() {
    let json: serde_json::Value =
        serde_json::from_str(&model_fit(Path::new(DATA), "json")).unwrap();
    let text = model_fit(Path::new(DATA), "text");
    for c in json[0]["corrections"].as_array().unwrap() {
        let name = c["algorithm"].as_str().unwrap();
        let implementation = c["impl"].as_str().unwrap();
        let rows = c["rows"].as_u64().unwrap().to_string();
        let line = text
            .lines()
            .find(|l| l.split_whitespace().take(2).eq([name, implementation]))
            .unwrap_or_else(|| panic!("no line for {name} {implementation}:\n{text}"));
        let fields: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(fields[2], rows, "{line}");
        let knots = c["log_factor"].as_array().unwrap().len();
        assert_eq!(fields.len(), 3 + knots, "{line}");
        for (f, l) in fields[3..].iter().zip(c["log_factor"].as_array().unwrap()) {
            let factor: f64 = f.parse().unwrap();
            assert!((factor - l.as_f64().unwrap().exp()).abs() < 1e-3, "{line}");
        }
    }
}

/// One row fits, and what it cannot say (R², ranking) is shown as `-`,
/// not NaN.
#[test]
fn one_row_is_fitted_and_says_what_it_cannot_tell() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("one.csv");
    std::fs::write(
        &csv,
        "algorithm,procs,msg_bytes,time_us\ndefault,4,1024,3.5\n",
    )
    .unwrap();
    let text = model_fit(&csv, "text");
    assert!(
        text.contains("R2 of ln(time) -; pairwise ranking accuracy -"),
        "{text}"
    );
    assert!(
        text.contains("linear baseline R2 per candidate: -"),
        "{text}"
    );
    assert!(!text.contains("NaN"), "{text}");
}
