//! The `data` and `import` verbs, driven through the real binary.

use assert_cmd::Command;
use std::path::{Path, PathBuf};

fn bin() -> Command {
    Command::cargo_bin("collsel").unwrap()
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

/// Runs `data summary` on a file with `content`; returns stderr after
/// checking the exit code is 2 and the message is one located line.
fn rejected(content: &[u8]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "bad.csv", content);
    let out = bin().args(["data", "summary"]).arg(&path).output().unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(2), "stderr: {stderr}");
    assert!(out.stdout.is_empty(), "no partial output expected");
    assert_eq!(stderr.lines().count(), 1, "one message expected: {stderr}");
    let located = stderr
        .strip_prefix("error: ")
        .and_then(|s| s.strip_prefix(path.to_str().unwrap()))
        .unwrap_or_else(|| panic!("message must start with the file: {stderr}"));
    located.to_string()
}

const HEADER: &str = "algorithm,procs,msg_bytes,time_us\n";

fn body(rows: &str) -> Vec<u8> {
    format!("{HEADER}{rows}").into_bytes()
}

#[test]
fn missing_file() {
    let out = bin()
        .args(["data", "summary", "no/such/file.csv"])
        .output()
        .unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr.starts_with("error: no/such/file.csv:1:1: cannot read file"),
        "{stderr}"
    );
}

#[test]
fn empty_file() {
    let e = rejected(b"");
    assert!(e.starts_with(":1:1: empty file; expected a header"), "{e}");
}

#[test]
fn header_only() {
    let e = rejected(HEADER.as_bytes());
    assert!(e.starts_with(":2:1: header only"), "{e}");
}

#[test]
fn missing_required_column() {
    let e = rejected(b"algorithm,procs,time_us\nlinear,2,1.0\n");
    assert!(
        e.starts_with(":1:1: missing required column 'msg_bytes'"),
        "{e}"
    );
}

#[test]
fn non_numeric_value() {
    let e = rejected(&body("linear,2,8,1.0\nlinear,two,8,1.0\n"));
    assert_eq!(
        e,
        ":3:2: column 'procs': expected a whole number >= 1, found \"two\"\n"
    );
}

#[test]
fn bad_times() {
    for bad in ["-1.5", "0", "NaN", "inf", "-inf"] {
        let e = rejected(&body(&format!("linear,2,8,{bad}\n")));
        assert_eq!(
            e,
            format!(":2:4: column 'time_us': expected a finite number > 0, found \"{bad}\"\n")
        );
    }
}

#[test]
fn procs_below_one() {
    let e = rejected(&body("linear,0,8,1.0\n"));
    assert!(
        e.starts_with(":2:2: column 'procs': expected a whole number >= 1"),
        "{e}"
    );
}

#[test]
fn negative_message_size() {
    let e = rejected(&body("linear,2,-8,1.0\n"));
    assert!(
        e.starts_with(":2:3: column 'msg_bytes': expected a whole number >= 0"),
        "{e}"
    );
}

#[test]
fn unknown_algorithm() {
    let e = rejected(&body("linear,2,8,1.0\nhypercube,2,8,1.0\n"));
    assert!(
        e.starts_with(":3:1: column 'algorithm': expected a bcast algorithm: default, linear"),
        "{e}"
    );
    assert!(e.contains("found \"hypercube\""), "{e}");
}

#[test]
fn ragged_row() {
    let e = rejected(&body("linear,2,8,1.0\nlinear,2,8\n"));
    assert!(e.starts_with(":3:4: ragged row: expected 4 fields"), "{e}");
    let e = rejected(&body("linear,2,8,1.0,9\n"));
    assert!(e.starts_with(":2:5: ragged row"), "{e}");
}

#[test]
fn invalid_utf8() {
    let mut bytes = body("linear,2,8,1.0\nlin");
    bytes.extend_from_slice(b"\xc3\x28ar,2,8,1.0\n");
    let e = rejected(&bytes);
    assert!(e.starts_with(":3:1: invalid UTF-8"), "{e}");
}

#[test]
fn summary_of_shipped_data_reports_headroom() {
    let out = bin()
        .args([
            "data",
            "summary",
            "data/local-2core.csv",
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let s = &json["data/local-2core.csv"];
    assert_eq!(s["rows"], 2772);
    assert_eq!(s["procs"].as_array().unwrap().len(), 7);
    let h = &s["headroom"];
    let share = h["default_not_best_rate"].as_f64().unwrap();
    let geomean = h["geomean_default_over_best"].as_f64().unwrap();
    // data/SOURCES.md: every configuration, geometric mean 2.035.
    assert_eq!(share, 1.0);
    assert!((geomean - 2.035).abs() < 0.001, "{geomean}");
}

#[test]
fn summary_text_names_every_file() {
    let dir = tempfile::tempdir().unwrap();
    let small = dir.path().join("small.csv");
    std::fs::write(
        &small,
        "algorithm,procs,msg_bytes,time_us\ndefault,4,8,2.0\nlinear,4,8,1.0\nlinear,4,16,1.5\n",
    )
    .unwrap();
    let out = bin()
        .args(["data", "summary", "data/local-2core.csv"])
        .arg(&small)
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("data/local-2core.csv\n  rows             2772"),
        "{text}"
    );
    assert!(
        text.contains(&format!("{}\n  rows             3", small.display())),
        "{text}"
    );
    assert!(
        text.contains("geometric mean of t_default / t_best = 2.035"),
        "{text}"
    );
}

#[test]
fn import_osu_full_and_truncated_runs_then_load_back() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("osu.csv");
    let full = bin()
        .args(["import", "osu", "tests/fixtures/osu_bcast_full.txt"])
        .args([
            "--algorithm",
            "binomial",
            "--procs",
            "8",
            "--nodes",
            "2",
            "--segsize",
            "8K",
        ])
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert!(
        full.status.success(),
        "{}",
        String::from_utf8_lossy(&full.stderr)
    );
    let truncated = bin()
        .args(["import", "osu", "tests/fixtures/osu_bcast_truncated.txt"])
        .args([
            "--algorithm",
            "0",
            "--procs",
            "8",
            "--nodes",
            "2",
            "--mapping",
            "cyclic",
        ])
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert!(truncated.status.success());
    let stderr = String::from_utf8(truncated.stderr).unwrap();
    assert!(
        stderr.contains("osu_bcast_truncated.txt:16: last measurement line is incomplete"),
        "{stderr}"
    );
    assert!(stderr.contains("ignored 3 line(s)"), "{stderr}");

    let csv = std::fs::read_to_string(&out).unwrap();
    assert_eq!(
        csv.lines().count(),
        1 + 21 + 13,
        "header + 21 full + 13 complete lines"
    );
    assert!(
        csv.contains("\nbinomial,8,2,4,core,1048576,1241.03,1071.44,1453.86,,100,8192,,ompi,0,")
    );
    assert!(csv.contains("\ndefault,8,2,4,node,4096,19.33,,,,,,,ompi,0,"));

    let summary = bin().args(["data", "summary"]).arg(&out).output().unwrap();
    assert!(summary.status.success());
    let text = String::from_utf8(summary.stdout).unwrap();
    assert!(text.contains("rows             34"), "{text}");
}

#[test]
fn import_refuses_impossible_jobs_and_foreign_outputs() {
    let dir = tempfile::tempdir().unwrap();
    let out = bin()
        .args([
            "import",
            "osu",
            "tests/fixtures/osu_bcast_full.txt",
            "--algorithm",
            "linear",
        ])
        .args(["--procs", "4", "--nodes", "8", "--out"])
        .arg(dir.path().join("x.csv"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let foreign = write(dir.path(), "foreign.csv", b"a,b\n1,2\n");
    let out = bin()
        .args([
            "import",
            "osu",
            "tests/fixtures/osu_bcast_full.txt",
            "--algorithm",
            "linear",
        ])
        .args(["--procs", "4", "--out"])
        .arg(&foreign)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        std::fs::read(&foreign).unwrap(),
        b"a,b\n1,2\n",
        "file untouched"
    );
}

#[test]
fn unknown_algorithm_on_the_command_line_is_a_usage_error() {
    let out = bin()
        .args([
            "import",
            "osu",
            "x.txt",
            "--algorithm",
            "ring",
            "--procs",
            "4",
            "--out",
            "y.csv",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown algorithm"));
}

const ARRIVAL_ROWS: &str =
    "algorithm,procs,msg_bytes,time_us,time_max_us,impl,segsize_bytes,imbalance,arrival_pattern\n\
linear,8,1048576,1400,3600,own,,0,uniform\n\
linear,8,1048576,2300,5800,own,,16,uniform\n\
arrival,8,1048576,2300,4300,own,0,0,uniform\n\
arrival,8,1048576,2100,4100,own,0,16,uniform\n\
arrival,8,1048576,3100,9000,own,0,16,late:0.2\n\
linear,8,1048576,900,900,own,,0,\n";

#[test]
fn data_arrival_tables_and_plots() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "imb.csv", ARRIVAL_ROWS.as_bytes());
    let plots = dir.path().join("plots");
    let out = bin()
        .args(["data", "arrival"])
        .arg(&path)
        .arg("--plots")
        .arg(&plots)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let md = String::from_utf8(out.stdout).unwrap();
    // Two panels (uniform, late:0.2); the barrier row has none.
    assert_eq!(md.matches("### 8 ranks").count(), 2, "{md}");
    assert!(
        md.contains("| linear (own) | **1400** (3600) | 2300 (5800) |"),
        "{md}"
    );
    assert!(
        md.contains("| arrival seg=0 (own) | 2300 (4300) | **2100** (4100) |"),
        "{md}"
    );
    for ext in ["png", "svg"] {
        for stem in ["uniform", "late0.2"] {
            let f = plots.join(format!("arrival_{stem}_8p_1n_core_1048576.{ext}"));
            assert!(f.metadata().unwrap().len() > 1000, "{}", f.display());
        }
    }
    // The summary names the patterns.
    let out = bin().args(["data", "summary"]).arg(&path).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("arrivals         barrier, uniform X=0-16, late:0.2 X=16"),
        "{text}"
    );
}

#[test]
fn data_arrival_without_patterns_and_bad_patterns_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "flat.csv", &body("linear,4,8,1.0\n"));
    let out = bin().args(["data", "arrival"]).arg(&path).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("bench --imbalance"));

    let bad =
        "algorithm,procs,msg_bytes,time_us,imbalance,arrival_pattern\nlinear,4,8,1.0,2,early\n";
    let located = rejected(bad.as_bytes());
    assert!(located.starts_with(":2:6:"), "{located}");
    assert!(located.contains("barrier, uniform or late:F"), "{located}");
    let barrier =
        "algorithm,procs,msg_bytes,time_us,imbalance,arrival_pattern\nlinear,4,8,1.0,2,barrier\n";
    let located = rejected(barrier.as_bytes());
    assert!(
        located.contains("a barrier start has no imbalance"),
        "{located}"
    );
}
