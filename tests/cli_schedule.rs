//! `schedule show` reproduces the reference trees (Open MPI 4.1's builders).

use assert_cmd::Command;
use std::collections::BTreeMap;

/// Runs `schedule show` with `args`.
fn show(args: &[&str]) -> std::process::Output {
    Command::cargo_bin("collsel")
        .unwrap()
        .args(["schedule", "show"])
        .args(args)
        .output()
        .unwrap()
}

/// Runs `schedule show` and returns rank -> children from its tree table.
fn children(args: &[&str]) -> BTreeMap<u32, Vec<u32>> {
    let out = show(args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    text.lines()
        .skip_while(|l| !l.contains("rank  parent  children"))
        .skip(1)
        .take_while(|l| !l.starts_with("stages"))
        .map(|l| {
            let mut fields = l.split_whitespace();
            let rank = fields.next().unwrap().parse().unwrap();
            let _parent = fields.next();
            (rank, fields.map(|f| f.parse().unwrap()).collect())
        })
        .collect()
}

fn non_leaves(tree: &BTreeMap<u32, Vec<u32>>) -> Vec<(u32, Vec<u32>)> {
    tree.iter()
        .filter(|(_, c)| !c.is_empty())
        .map(|(r, c)| (*r, c.clone()))
        .collect()
}

#[test]
fn chain_fanout_4_on_10_ranks() {
    let t = children(&["--algorithm", "chain", "--procs", "10", "--fanout", "4"]);
    assert_eq!(t.len(), 10);
    assert_eq!(t[&0], [1, 4, 6, 8]);
    assert_eq!(
        non_leaves(&t),
        [
            (0, vec![1, 4, 6, 8]),
            (1, vec![2]),
            (2, vec![3]),
            (4, vec![5]),
            (6, vec![7]),
            (8, vec![9])
        ]
    );
}

#[test]
fn binary_on_10_ranks() {
    let t = children(&["--algorithm", "binary", "--procs", "10"]);
    assert_eq!(
        non_leaves(&t),
        [
            (0, vec![1, 2]),
            (1, vec![3, 5]),
            (2, vec![4, 6]),
            (3, vec![7]),
            (4, vec![8]),
            (5, vec![9])
        ]
    );
}

#[test]
fn binomial_on_8_ranks() {
    let t = children(&["--algorithm", "6", "--procs", "8"]);
    assert_eq!(
        non_leaves(&t),
        [
            (0, vec![1, 2, 4]),
            (1, vec![3, 5]),
            (2, vec![6]),
            (3, vec![7])
        ]
    );
}

#[test]
fn knomial_radix_4_on_10_ranks() {
    let t = children(&["--algorithm", "knomial", "--procs", "10", "--fanout", "4"]);
    assert_eq!(
        non_leaves(&t),
        [(0, vec![4, 8, 1, 2, 3]), (4, vec![5, 6, 7]), (8, vec![9])]
    );
}

#[test]
fn stage_lines_report_cross_node_transfers() {
    let out = Command::cargo_bin("collsel")
        .unwrap()
        .args([
            "schedule",
            "show",
            "--algorithm",
            "binomial",
            "--procs",
            "8",
        ])
        .args(["--msg", "1K", "--nodes", "2", "--mapping", "block"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("stages: 3"), "{text}");
    assert!(
        text.contains("   1: 0 -> [1 2 4] (1 KiB, 1 across nodes)"),
        "{text}"
    );
}

#[test]
fn bad_requests_are_usage_errors() {
    for args in [
        vec!["--algorithm", "default", "--procs", "4"],
        vec!["--algorithm", "binomial", "--procs", "4", "--root", "4"],
        vec!["--algorithm", "knomial", "--procs", "4", "--fanout", "1"],
        vec!["--algorithm", "binomial", "--procs", "4", "--nodes", "5"],
        vec!["--algorithm", "binomial", "--procs", "4", "--msg", "lots"],
    ] {
        let out = show(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
    }
}

/// MPICH's algorithms have no schedule of their own: the error names the
/// one that runs as they do, where there is one.
#[test]
fn mpichs_algorithms_point_to_the_schedule_they_run_as() {
    let refused = |args: &[&str]| {
        let out = show(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let tree = refused(&["--algorithm", "pipelined_tree", "--procs", "4"]);
    assert!(tree.contains("--algorithm binary --segsize 8192"), "{tree}");
    let nb = refused(&["--algorithm", "nb", "--procs", "4"]);
    assert!(nb.contains("no schedule here runs as it does"), "{nb}");
}

/// Reduce's trees: the in-order binary tree rooted at p − 1 (whose top
/// then hands the result to the root), reduce's own binomial tree; a
/// broadcast-only algorithm is refused for reduce.
#[test]
fn reduce_trees_on_7_and_8_ranks() {
    let tree = children(&[
        "--collective",
        "reduce",
        "--algorithm",
        "in_order_binary",
        "--procs",
        "7",
    ]);
    assert_eq!(
        non_leaves(&tree),
        vec![(2, vec![1, 0]), (5, vec![4, 3]), (6, vec![5, 2])]
    );
    let tree = children(&[
        "--collective",
        "reduce",
        "--algorithm",
        "binomial",
        "--procs",
        "8",
    ]);
    assert_eq!(
        non_leaves(&tree),
        vec![
            (0, vec![1, 2, 4]),
            (2, vec![3]),
            (4, vec![5, 6]),
            (6, vec![7])
        ]
    );
    let out = Command::cargo_bin("collsel")
        .unwrap()
        .args(["schedule", "show", "--collective", "reduce"])
        .args(["--algorithm", "split_binary", "--procs", "4"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown reduce algorithm"));
}

/// Allreduce schedules say what their ranks do (no root, no tree), with
/// Open MPI's fallbacks noted, and the ring's pieces in the stages.
#[test]
fn allreduce_schedules_are_described() {
    let show = |args: &[&str]| {
        let out = Command::cargo_bin("collsel")
            .unwrap()
            .args(["schedule", "show", "--collective", "allreduce"])
            .args(args)
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned()
                + &String::from_utf8_lossy(&out.stderr),
        )
    };
    let (code, text) = show(&["--algorithm", "ring", "--procs", "6", "--msg", "8"]);
    assert_eq!(code, Some(0), "{text}");
    assert!(!text.contains("root"), "{text}");
    assert!(text.contains("runs as recursive_doubling"), "{text}");
    let (_, text) = show(&[
        "--algorithm",
        "segmented_ring",
        "--procs",
        "4",
        "--msg",
        "4096",
        "--segsize",
        "256",
    ]);
    assert!(text.contains("in 4 phase(s)"), "{text}");
    assert!(text.contains("16 segment(s) of 256 B"), "{text}");
    let (_, text) = show(&[
        "--algorithm",
        "nonoverlapping",
        "--procs",
        "6",
        "--msg",
        "64K",
    ]);
    assert!(text.contains("reduce to rank 0"), "{text}");
    let (code, text) = show(&["--algorithm", "binomial", "--procs", "4"]);
    assert_eq!(code, Some(2), "{text}");
    assert!(text.contains("unknown allreduce algorithm"), "{text}");
}
