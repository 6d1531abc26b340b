//! Collectives other than broadcast in the data: the `collective` column,
//! each collective's own algorithm names and ids, and rows of two
//! collectives never combined.

use assert_cmd::Command;

fn bin() -> Command {
    Command::cargo_bin("collsel").unwrap()
}

/// Broadcast and reduce rows of the same jobs: for each, `default` and
/// one algorithm written by its Open MPI id (4: split-binary for
/// broadcast, binary for reduce) that beats it by half at every size.
fn mixed() -> String {
    let mut csv = String::from("collective,algorithm,procs,nodes,msg_bytes,time_us\n");
    for p in [2u32, 4, 8, 16, 32] {
        for e in (0..=20).step_by(4) {
            let m = 1u64 << e;
            let t = (1.0 + m as f64 / 1000.0) * f64::from(p).log2();
            for collective in ["bcast", "reduce"] {
                csv.push_str(&format!("{collective},default,{p},1,{m},{t}\n"));
                csv.push_str(&format!("{collective},4,{p},1,{m},{}\n", t / 2.0));
            }
        }
    }
    csv
}

#[test]
fn collectives_are_kept_apart_and_each_reads_its_own_ids() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("mixed.csv");
    std::fs::write(&csv, mixed()).unwrap();
    let model = dir.path().join("m");

    // Rows of two collectives are never combined: train asks which.
    let o = bin()
        .arg("train")
        .arg(&csv)
        .arg("--out")
        .arg(&model)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(stderr.contains("--collective"), "{stderr}");
    assert!(stderr.contains("MPI_Reduce"), "{stderr}");

    let o = bin()
        .arg("train")
        .arg(&csv)
        .args(["--collective", "reduce", "--learners", "knn", "--out"])
        .arg(&model)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let predict = |format: &str| {
        bin()
            .args(["predict", "--model"])
            .arg(&model)
            .args(["--nodes", "1", "--ppn", "8", "--format", format])
            .output()
            .unwrap()
    };
    let o = predict("table");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let table = String::from_utf8(o.stdout).unwrap();
    assert!(table.starts_with("MPI_Reduce decisions"), "{table}");
    // Reduce's id 4 is binary (broadcast's is split-binary).
    assert!(
        table.contains("binary") && !table.contains("split_binary"),
        "{table}"
    );
    // Reduce's rules go into coll/tuned's reduce section (id 11), with
    // reduce's algorithm ids, and HAN's routing file routes reduce (id 11).
    let o = predict("ompi-rules");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let rules = String::from_utf8(o.stdout).unwrap();
    assert!(
        rules.contains("\n1 # collectives in this file\n11 # collective id: reduce"),
        "{rules}"
    );
    assert!(!rules.contains("collective id: bcast"), "{rules}");
    let o = predict("ompi-han");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let han = String::from_utf8(o.stdout).unwrap();
    assert!(
        han.contains("\n1 # collectives in this file\n11 # collective id: reduce"),
        "{han}"
    );

    // A broadcast-only name in a reduce row is refused where it stands.
    let bad = dir.path().join("bad.csv");
    std::fs::write(
        &bad,
        "collective,algorithm,procs,msg_bytes,time_us\nreduce,default,4,8,1.0\nreduce,split_binary,4,8,1.0\n",
    )
    .unwrap();
    let o = bin().args(["data", "summary"]).arg(&bad).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(stderr.contains("bad.csv:3:2"), "{stderr}");
    assert!(stderr.contains("a reduce algorithm"), "{stderr}");
    assert!(stderr.contains("in-order_binary"), "{stderr}");
}

/// `bench --help` gives every collective's default sizes and algorithms,
/// read from the collective's description (so a new collective shows up
/// without anyone editing the help).
#[test]
#[cfg(feature = "mpi")]
fn bench_help_names_every_collectives_defaults() {
    let o = bin().args(["bench", "--help"]).output().unwrap();
    assert!(o.status.success());
    // clap wraps the help; words are what matters.
    let text = String::from_utf8_lossy(&o.stdout)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    for c in collsel::data::Collective::ALL {
        let d = c.describe();
        let algorithms: Vec<&str> = d.measured_by_default.iter().map(|a| a.name()).collect();
        let expected = format!("{} default,{}", c.name(), algorithms.join(","));
        assert!(text.contains(&expected), "{expected}: {text}");
        assert!(
            text.contains(&format!("{} {}", c.name(), d.sizes)),
            "{text}"
        );
    }
}

/// Every option that takes a collective names all of them in `--help`
/// (generated from `Collective::ALL`), and `schedule show --help` each
/// collective's schedules.
#[test]
fn help_names_every_collective_where_one_is_asked_for() {
    let help = |args: &[&str]| {
        let o = bin().args(args).arg("--help").output().unwrap();
        assert!(o.status.success(), "{args:?}");
        String::from_utf8_lossy(&o.stdout)
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    };
    let mut commands = vec![vec!["schedule", "show"], vec!["train"]];
    if cfg!(feature = "mpi") {
        commands.extend([vec!["bench"], vec!["tune"], vec!["verify"]]);
    }
    let names: Vec<&str> = collsel::data::Collective::ALL
        .iter()
        .map(|c| c.name())
        .collect();
    let listed = format!("[collectives: {}]", names.join(", "));
    for args in &commands {
        let text = help(args);
        assert!(text.contains(&listed), "{args:?}: {text}");
    }
    let text = help(&["schedule", "show"]);
    for c in collsel::data::Collective::ALL {
        let scheduled: Vec<&str> = collsel::schedule::scheduled(c)
            .iter()
            .map(|a| a.name())
            .collect();
        let expected = format!("{} {}", c.name(), scheduled.join(","));
        assert!(text.contains(&expected), "{expected}: {text}");
    }
}

/// `verify --rounds` takes two rounds at least (an interval needs two) and
/// is refused beside `--confirm`, whose rounds are the validation's; both
/// before any MPI start-up, naming the option.
#[cfg(feature = "mpi")]
#[test]
fn verify_rounds_are_checked_before_anything_runs() {
    let refused = |args: &[&str], expected: &str| {
        let o = bin().arg("verify").args(args).output().unwrap();
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(
            stderr.contains("--rounds") && stderr.contains(expected),
            "{args:?}: {stderr}"
        );
    };
    refused(&["--rounds", "1"], "1 is not in 2..");
    refused(
        &["--rounds", "2", "--confirm", "tuned"],
        "cannot be used with",
    );
}
