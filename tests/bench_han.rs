//! `bench` where coll/han serves `MPI_Bcast`, as it does in Open MPI 5 on
//! every communicator that spans nodes: two nodes faked on this machine
//! (`tests/fake-ssh` runs each node's daemon under its own hostname; root
//! only) with the installed Open MPI 4.1, whose coll/han is built in but
//! ranks below tuned unless its priority is raised — raised here above
//! tuned's, as in 5.0. A row labelled with a forced tuned algorithm must
//! time that algorithm, not HAN's broadcast, and every row names the
//! component that served it. (Loopback TCP between fake nodes is no
//! network: these timings show which code ran, not its speed.)

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Runs `bench` with `args` under the installed `mpirun` with `launch`
/// (placement and MCA settings), HAN ranked above tuned; its CSV.
fn bench(dir: &Path, launch: &[&str], args: &[&str]) -> PathBuf {
    let csv = dir.join("rows.csv");
    let out = {
        let _one = common::mpirun_lock();
        Command::new("mpirun")
            .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
            .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
            .args(launch)
            .args(["--mca", "coll_han_priority", "40"])
            .arg(env!("CARGO_BIN_EXE_collsel"))
            .args(["bench", "--out"])
            .arg(&csv)
            .args(args)
            .args(["--impl", "ompi", "--min-reps", "3", "--max-seconds", "2"])
            .output()
            .expect("mpirun must be installed (openmpi-bin)")
    };
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    csv
}

/// Every row of a bench CSV, cells by column name.
fn rows(csv: &Path) -> Vec<BTreeMap<String, String>> {
    common::csv_rows(&std::fs::read_to_string(csv).unwrap())
}

#[test]
fn forced_algorithms_are_timed_on_tuned_where_han_serves_bcast() {
    if !common::can_fake_nodes() {
        eprintln!("skipped: `unshare --uts` is not permitted here (needs root)");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let agent = Path::new("tests/fake-ssh").canonicalize().unwrap();
    let agent = agent.to_str().unwrap();
    let launch = [
        "--host",
        "127.0.0.2:2,127.0.0.3:2",
        "--mca",
        "plm_rsh_agent",
        agent,
        "--mca",
        "btl",
        "self,vader,tcp",
        "--mca",
        "btl_tcp_if_include",
        "lo",
        "-n",
        "4",
    ];
    let args = [
        "--sizes",
        "4M",
        "--algorithms",
        "default,tuned,pipeline,binomial",
        "--segsizes",
        "0",
    ];
    let rows = rows(&bench(dir.path(), &launch, &args));
    let row = |name: &str| {
        let r = rows
            .iter()
            .find(|r| r["algorithm"] == name)
            .unwrap_or_else(|| panic!("no {name} row: {rows:?}"));
        assert_eq!((&r["nodes"][..], &r["ppn"][..]), ("2", "2"), "two nodes");
        r
    };
    let time = |name: &str| -> f64 { row(name)["time_us"].parse().unwrap() };
    // HAN's 4 MiB broadcast over the fake nodes takes about half a second,
    // tuned's unsegmented algorithms tens of milliseconds; a forced row
    // measured on a communicator HAN serves times HAN (the bug this guards
    // against: all rows within 10% of each other).
    let han = time("default");
    assert_eq!(row("default")["component"], "han");
    // `tuned`: tuned's own decision, HAN left out.
    for forced in ["tuned", "pipeline", "binomial"] {
        let t = time(forced);
        assert!(
            t < han / 5.0,
            "{forced} {t:.0} us against default (HAN) {han:.0} us: the forced row timed HAN"
        );
        assert_eq!(row(forced)["component"], "tuned");
    }
}

/// Within one node HAN steps aside, whatever its priority: `default` is
/// tuned's there.
#[test]
fn within_a_node_default_is_tuned_even_with_han_ranked_first() {
    let dir = tempfile::tempdir().unwrap();
    let launch = ["-n", "2", "--oversubscribe"];
    let args = [
        "--sizes",
        "1K",
        "--algorithms",
        "default,binomial",
        "--segsizes",
        "0",
    ];
    let rows = rows(&bench(dir.path(), &launch, &args));
    assert_eq!(rows.len(), 2, "{rows:?}");
    assert!(rows.iter().all(|r| r["component"] == "tuned"), "{rows:?}");
}
