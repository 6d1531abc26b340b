//! Exported Open MPI rules files are accepted and applied by the installed
//! Open MPI (4.1 in CI): CSV -> train -> predict --format ompi-rules ->
//! mpirun with coll_tuned_dynamic_rules_filename.

mod common;

use assert_cmd::Command;
use std::path::{Path, PathBuf};
use std::process::Command as Process;

const RANKS: &str = "4";
const BIG: u64 = 4 << 20;

/// Compiles the timing program with mpicc.
fn timer(dir: &Path) -> PathBuf {
    let exe = dir.join("bcast_timer");
    let out = Process::new("mpicc")
        .args(["-O2", "-o"])
        .arg(&exe)
        .arg("tests/mpi/bcast_timer.c")
        .output()
        .expect("mpicc must be installed (openmpi-bin, libopenmpi-dev)");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    exe
}

/// Runs the program on 4 ranks, with a rules file if given. Returns its
/// stdout and whether it succeeded.
fn mpirun(exe: &Path, rules: Option<&Path>, bytes: u64, iters: u32) -> (String, bool) {
    let _one = common::mpirun_lock();
    let mut cmd = Process::new("mpirun");
    cmd.args(["-n", RANKS, "--oversubscribe"])
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .env("OMPI_MCA_rmaps_base_oversubscribe", "1");
    if let Some(rules) = rules {
        cmd.env("OMPI_MCA_coll_tuned_use_dynamic_rules", "1")
            .env("OMPI_MCA_coll_tuned_dynamic_rules_filename", rules);
    }
    let out = cmd
        .arg(exe)
        .args([bytes.to_string(), iters.to_string()])
        .output()
        .expect("mpirun must be installed");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        out.status.success(),
    )
}

fn min_us(stdout: &str) -> f64 {
    stdout
        .lines()
        .find_map(|l| l.strip_prefix("min_us "))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or_else(|| panic!("no timing in {stdout:?}"))
}

/// A model whose data say: at 4 ranks, pipeline with 1 KiB segments beats
/// everything at every size (several times slower than default in reality).
fn distinctive_model(dir: &Path) -> PathBuf {
    let csv = dir.join("fake.csv");
    let mut text = String::from("algorithm,procs,nodes,msg_bytes,time_us,segsize_bytes\n");
    for p in [2, 3, 4, 5, 6] {
        for e in (0..=22).step_by(2) {
            let m = 1u64 << e;
            let base = 1.0 + m as f64 / 1000.0;
            text += &format!("default,{p},1,{m},{},\n", 2.0 * base);
            text += &format!("binomial,{p},1,{m},{},0\n", 3.0 * base);
            text += &format!("pipeline,{p},1,{m},{},1024\n", base);
        }
    }
    std::fs::write(&csv, text).unwrap();
    let model = dir.join("model");
    let out = Command::cargo_bin("bcast-select")
        .unwrap()
        .arg("train")
        .arg(&csv)
        .arg("--out")
        .arg(&model)
        .args(["--learners", "linear"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    model
}

fn export(model: &Path, args: &[&str], out: &Path) -> String {
    let o = Command::cargo_bin("bcast-select")
        .unwrap()
        .args(["predict", "--model"])
        .arg(model)
        .args(["--nodes", "1", "--format", "ompi-rules", "--out"])
        .arg(out)
        .args(args)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    std::fs::read_to_string(out).unwrap()
}

#[test]
fn open_mpi_applies_the_exported_rules() {
    let dir = tempfile::tempdir().unwrap();
    let exe = timer(dir.path());
    let model = distinctive_model(dir.path());
    let rules = dir.path().join("rules.txt");
    let text = export(&model, &["--ppn", RANKS, "--sizes", "1,4M"], &rules);
    assert!(
        text.contains("\n0 3 0 1024 #"),
        "pipeline, 1 KiB segments, from 0 B:\n{text}"
    );

    let (plain, ok) = mpirun(&exe, None, BIG, 5);
    assert!(ok, "{plain}");
    let (ruled, ok) = mpirun(&exe, Some(&rules), BIG, 5);
    assert!(ok, "{ruled}");
    let (t_default, t_rules) = (min_us(&plain), min_us(&ruled));
    // The toolchain notes measured ~2.8x for this pair on this machine kind.
    assert!(
        t_rules > 1.5 * t_default,
        "rules not applied? default {t_default} us, with rules {t_rules} us"
    );
}

#[test]
fn every_generated_classic_file_is_accepted_and_a_broken_one_is_not() {
    let dir = tempfile::tempdir().unwrap();
    let exe = timer(dir.path());
    let model = distinctive_model(dir.path());
    let multi = dir.path().join("multi.txt");
    let text = export(&model, &["--procs", "2:8:x2", "--sizes", "1:4M:x4"], &multi);
    assert!(text.contains("6 # comm-size blocks"), "{text}");
    for bytes in [0, 1, 1000, 65536] {
        let (out, ok) = mpirun(&exe, Some(&multi), bytes, 2);
        assert!(ok && out.contains("min_us"), "{bytes} B: {out}");
    }
    // Acceptance is observable: the same file naming algorithm 99 makes
    // MPI_Bcast fail, so the file is read and its rules are used.
    let broken = dir.path().join("broken.txt");
    std::fs::write(&broken, text.replace("\n0 3 0 1024 #", "\n0 99 0 1024 #")).unwrap();
    let (out, ok) = mpirun(&exe, Some(&broken), 1000, 1);
    assert!(!ok && out.contains("bcast_error"), "{out}");
}
