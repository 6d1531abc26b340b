//! The `plan` verb, driven through the real binary: it chooses whole
//! configurations of the grid that the data has not measured, writes them
//! with the grid's own columns, and refuses bad input with a location.

use assert_cmd::Command;
use std::path::{Path, PathBuf};

fn bin() -> Command {
    Command::cargo_bin("collsel").unwrap()
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// Measured: default and binomial at every size of 4 and 16 ranks, linear
/// only at the smallest and largest sizes (where it clearly wins / loses).
/// Grid: linear at every size of 4, 8 and 16 ranks, with an extra column.
fn campaign(dir: &Path) -> (PathBuf, PathBuf) {
    let mut data = String::from("algorithm,procs,msg_bytes,time_us\n");
    let mut grid = String::from("procs,msg_bytes,algorithm,note\n");
    for procs in [4u32, 8, 16] {
        for e in 0..=20 {
            let m = 1u64 << e;
            let lp = f64::from(procs).log2();
            let lin = (2.0 + m as f64 * 1e-2) * lp;
            let bin = (6.0 + m as f64 * 2e-3) * lp;
            if procs != 8 {
                data.push_str(&format!("default,{procs},{m},{}\n", 1.05 * bin));
                data.push_str(&format!("binomial,{procs},{m},{bin}\n"));
                if !(4..=14).contains(&e) {
                    data.push_str(&format!("linear,{procs},{m},{lin}\n"));
                }
            }
            grid.push_str(&format!("{procs},{m},linear,\"row, {e}\"\n"));
        }
    }
    (write(dir, "data.csv", &data), write(dir, "grid.csv", &grid))
}

#[test]
fn chooses_unmeasured_grid_rows_as_the_grid_writes_them() {
    let dir = tempfile::tempdir().unwrap();
    let (data, grid) = campaign(dir.path());
    let next = dir.path().join("next.csv");
    let out = bin()
        .args(["plan", "--budget", "5", "--data"])
        .arg(&data)
        .arg("--grid")
        .arg(&grid)
        .arg("--out")
        .arg(&next)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let text = std::fs::read_to_string(&next).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "procs,msg_bytes,algorithm,note");
    assert_eq!(lines.len(), 6, "{text}");
    let grid_text = std::fs::read_to_string(&grid).unwrap();
    let measured = std::fs::read_to_string(&data).unwrap();
    for line in &lines[1..] {
        assert!(
            grid_text.lines().any(|g| g == *line),
            "{line} is not a grid row"
        );
        let fields: Vec<&str> = line.split(',').collect();
        let (procs, m) = (fields[0], fields[1]);
        assert!(
            !measured.contains(&format!("linear,{procs},{m},")),
            "{line} was measured already"
        );
    }
    assert!(stderr.contains("chose 5 of"), "{stderr}");
}

#[test]
fn a_budget_below_one_configuration_and_a_bad_grid_are_usage_errors() {
    let dir = tempfile::tempdir().unwrap();
    let (data, grid) = campaign(dir.path());
    let out = bin()
        .args(["plan", "--budget", "0", "--data"])
        .arg(&data)
        .arg("--grid")
        .arg(&grid)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--budget 0 is smaller"));

    let bad = write(
        dir.path(),
        "bad.csv",
        "procs,msg_bytes,algorithm\n4,1,linear\n4,-2,linear\n",
    );
    let out = bin()
        .args(["plan", "--budget", "4", "--data"])
        .arg(&data)
        .arg("--grid")
        .arg(&bad)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("bad.csv:3:2"), "{stderr}");

    // A grid of reduce points for broadcast data: another collective.
    let reduce = write(
        dir.path(),
        "reduce.csv",
        "collective,procs,msg_bytes,algorithm\nreduce,4,4,linear\n",
    );
    let out = bin()
        .args(["plan", "--budget", "4", "--data"])
        .arg(&data)
        .arg("--grid")
        .arg(&reduce)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("holds reduce points but the data are bcast's"),
        "{stderr}"
    );
}
