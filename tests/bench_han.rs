//! `bench` where coll/han serves `MPI_Bcast`, as it does in Open MPI 5 on
//! every communicator that spans nodes: two nodes faked on this machine
//! (`tests/fake-ssh` runs each node's daemon under its own hostname; root
//! only) with the installed Open MPI 4.1, whose coll/han is built in but
//! ranks below tuned unless its priority is raised — raised here above
//! tuned's, as in 5.0. A row labelled with a forced tuned algorithm must
//! time that algorithm, not HAN's broadcast. (Loopback TCP between fake
//! nodes is no network: these timings show which code ran, not its speed.)

mod common;

use std::path::Path;
use std::process::Command;

/// Whether this process may make UTS namespaces (the fake nodes need it).
fn can_fake_nodes() -> bool {
    Command::new("unshare")
        .args(["--uts", "true"])
        .status()
        .is_ok_and(|s| s.success())
}

#[test]
fn forced_algorithms_are_timed_on_tuned_where_han_serves_bcast() {
    if !can_fake_nodes() {
        eprintln!("skipped: `unshare --uts` is not permitted here (needs root)");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("han.csv");
    let agent = Path::new("tests/fake-ssh").canonicalize().unwrap();
    let out = {
        let _one = common::mpirun_lock();
        Command::new("mpirun")
            .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
            .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
            .args([
                "--host",
                "127.0.0.2:2,127.0.0.3:2",
                "--mca",
                "plm_rsh_agent",
            ])
            .arg(&agent)
            .args([
                "--mca",
                "btl",
                "self,vader,tcp",
                "--mca",
                "btl_tcp_if_include",
                "lo",
            ])
            .args(["--mca", "coll_han_priority", "40", "-n", "4"])
            .arg(env!("CARGO_BIN_EXE_bcast-select"))
            .args(["bench", "--out"])
            .arg(&csv)
            .args([
                "--sizes",
                "4M",
                "--algorithms",
                "default,tuned,pipeline,binomial",
            ])
            .args([
                "--segsizes",
                "0",
                "--impl",
                "ompi",
                "--min-reps",
                "3",
                "--max-seconds",
                "2",
            ])
            .output()
            .expect("mpirun must be installed (openmpi-bin)")
    };
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let data = bcast_select::data::load::load_file(&csv).unwrap().dataset;
    let time = |name: &str| {
        let m = data
            .measurements()
            .iter()
            .find(|m| m.candidate.algorithm.name() == name)
            .unwrap_or_else(|| panic!("no {name} row: {stderr}"));
        assert_eq!((m.config.nodes, m.config.ppn), (2, 2), "two nodes detected");
        m.time_us
    };
    // HAN's 4 MiB broadcast over the fake nodes takes about half a second,
    // tuned's algorithms tens of milliseconds; a forced row measured on a
    // communicator HAN serves times HAN (the bug this guards against: all
    // three rows within 10% of each other).
    let han = time("default");
    // `tuned`: tuned's own decision, HAN left out.
    for forced in ["tuned", "pipeline", "binomial"] {
        let t = time(forced);
        assert!(
            t < han / 5.0,
            "{forced} {t:.0} us against default (HAN) {han:.0} us: the forced row timed HAN"
        );
    }
    // Each row says which component ran it.
    let served = components(&csv);
    assert_eq!(served["default"], "han", "{served:?}");
    for forced in ["tuned", "pipeline", "binomial"] {
        assert_eq!(served[forced], "tuned", "{served:?}");
    }
}

/// Algorithm -> the `component` column, of every row of a bench CSV.
fn components(csv: &Path) -> std::collections::BTreeMap<String, String> {
    let text = std::fs::read_to_string(csv).unwrap();
    let mut lines = text.lines();
    let header = common::cells(lines.next().unwrap());
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    lines
        .map(common::cells)
        .map(|c| (c[col("algorithm")].clone(), c[col("component")].clone()))
        .collect()
}

/// Within one node HAN steps aside, whatever its priority: `default` is
/// tuned's there.
#[test]
fn within_a_node_default_is_tuned_even_with_han_ranked_first() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("one-node.csv");
    let out = {
        let _one = common::mpirun_lock();
        Command::new("mpirun")
            .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
            .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
            .args([
                "-n",
                "2",
                "--oversubscribe",
                "--mca",
                "coll_han_priority",
                "40",
            ])
            .arg(env!("CARGO_BIN_EXE_bcast-select"))
            .args(["bench", "--out"])
            .arg(&csv)
            .args([
                "--sizes",
                "1K",
                "--algorithms",
                "default,binomial",
                "--impl",
                "ompi,own",
            ])
            .args(["--segsizes", "0", "--min-reps", "3", "--max-seconds", "0.5"])
            .output()
            .expect("mpirun must be installed (openmpi-bin)")
    };
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&csv).unwrap();
    let mut lines = text.lines();
    let header = common::cells(lines.next().unwrap());
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    let rows: Vec<Vec<String>> = lines.map(common::cells).collect();
    assert_eq!(rows.len(), 3, "{text}");
    for r in &rows {
        let expected = if r[col("impl")] == "own" { "" } else { "tuned" };
        assert_eq!(r[col("component")], expected, "{r:?}");
    }
}
