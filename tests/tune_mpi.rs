//! `tune` under mpirun: seed, plan/bench rounds and training in one job,
//! for broadcast, reduce and allreduce together, ending in one rules file that the
//! installed Open MPI reads and applies to each.

mod common;

use std::path::Path;
use std::process::{Command, Output};

/// `tune ARGS` into `dir` on 4 ranks, with no font reachable (a compute
/// node or container without fonts): fontconfig is given an empty
/// configuration, so only a font the binary carries can draw the plots.
fn tune(dir: &Path, args: &[&str]) -> Output {
    let _one = common::mpirun_lock();
    let fonts = tempfile::tempdir().unwrap();
    let config = fonts.path().join("fonts.conf");
    std::fs::write(
        &config,
        "<?xml version=\"1.0\"?>\n<fontconfig></fontconfig>\n",
    )
    .unwrap();
    Command::new("mpirun")
        .args(["-n", "4", "--oversubscribe"])
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .env("FONTCONFIG_FILE", &config)
        .env("FONTCONFIG_PATH", fonts.path())
        .env("XDG_DATA_HOME", fonts.path())
        .arg(env!("CARGO_BIN_EXE_collsel"))
        .args(["tune", "--out-dir"])
        .arg(dir)
        .args(args)
        .output()
        .expect("mpirun must be installed (openmpi-bin)")
}

/// Checks the shape of a tune's report against what a person reads first:
/// the summary table and the deploy block in the first 40 lines, before
/// any collective's detail, and the same summary as the last thing `tune`
/// printed; every picture it links exists, and a collective that keeps a
/// switch links one; the models' evaluation comes after every collective's
/// detail. Returns the summary.
fn report_shape<'a>(report: &'a str, stderr: &str, dir: &Path) -> &'a str {
    let first = report.find("\n## MPI_").expect("a section per collective");
    let summary = &report[..first];
    assert!(summary.starts_with("# collsel tune: "), "{summary}");
    // Nothing of tune's after it (the launcher may still add its own).
    let printed = stderr
        .rfind(summary)
        .map(|at| &stderr[at + summary.len()..]);
    assert!(
        printed.is_some_and(|rest| !rest.contains("tune:")),
        "tune's last lines are not the report's summary:\n{stderr}\n---\n{summary}"
    );
    let lines: Vec<&str> = summary.lines().collect();
    let table = lines.iter().position(|l| l.starts_with("| collective"));
    let deploy = lines.iter().position(|l| *l == "## Deploy");
    let end = lines
        .iter()
        .position(|l| l.contains("collsel verify") || l.starts_with("Nothing to deploy"));
    assert!(
        matches!((table, deploy, end), (Some(t), Some(d), Some(e)) if t < d && d < e && e < 40),
        "{summary}"
    );
    let appendix = report.find("\n## Appendix").expect("an appendix");
    assert!(report.rfind("\n## MPI_").unwrap() < appendix, "{report}");
    assert!(
        report
            .find("Selector evaluation")
            .is_none_or(|e| e > appendix),
        "{report}"
    );
    let details = &report[first..appendix];
    let links = |text: &str| -> Vec<String> {
        let targets = text.split("![").skip(1);
        targets
            .filter_map(|l| Some(l.split("](").nth(1)?.split(')').next()?.to_string()))
            .collect()
    };
    for link in links(details) {
        assert!(dir.join(&link).is_file(), "{link} missing: {report}");
    }
    // Where the summary's `kept` column says "k of n" with k > 0, the
    // collective's detail shows a picture.
    for row in lines.iter().filter(|l| l.starts_with("| MPI_")) {
        let cells: Vec<&str> = row.split('|').map(str::trim).collect();
        let kept: u32 = cells[4].split(' ').next().unwrap().parse().unwrap_or(0);
        let heading = format!("\n## {}\n", cells[1]);
        let at = details.find(&heading).expect("a section per row");
        let section = details[at + 1..].split("\n## ").next().unwrap();
        if kept > 0 {
            assert!(!links(section).is_empty(), "no picture: {section}");
        }
    }
    summary
}

/// Runs the timing program on 4 ranks with `rules`; its stdout and status.
fn with_rules(exe: &Path, rules: &Path, bytes: u64) -> (String, bool) {
    timed(exe, rules, bytes, "bcast")
}

/// [`with_rules`] timing `collective` (bcast or reduce).
fn timed(exe: &Path, rules: &Path, bytes: u64, collective: &str) -> (String, bool) {
    let _one = common::mpirun_lock();
    let out = Command::new("mpirun")
        .args(["-n", "4", "--oversubscribe"])
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .env("OMPI_MCA_coll_tuned_use_dynamic_rules", "1")
        .env("OMPI_MCA_coll_tuned_dynamic_rules_filename", rules)
        .arg(exe)
        .args([bytes.to_string(), "2".to_string(), collective.to_string()])
        .output()
        .unwrap();
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        out.status.success(),
    )
}

#[test]
fn tune_measures_trains_and_writes_rules_open_mpi_reads() {
    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().join("tuned");
    let args = [
        "--time-budget",
        "60s",
        "--procs",
        "2,3,4",
        "--sizes",
        "1,1K,64K",
        "--algorithms",
        "binomial,pipeline,binary,recursive_doubling,ring,bruck,pairwise,recursive_halving",
        "--segsizes",
        "0,8K",
        "--collectives",
        "all",
    ];
    let started = std::time::Instant::now();
    let out = tune(&out_dir, &args);
    // The budget bounds the whole run, report included, within 10% (the
    // launch of the job counted too).
    let wall = started.elapsed().as_secs_f64();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(wall <= 66.0, "a 60 s budget took {wall:.1} s: {stderr}");
    assert!(stderr.contains("tune: first pass:"), "{stderr}");
    // The first pass fits the budget; whether rounds follow it depends on
    // the machine's speed (under a loaded test run they did not).
    assert!(
        !stderr.contains("the budget ran out in the first pass"),
        "{stderr}"
    );
    let report = std::fs::read_to_string(out_dir.join("report.md")).unwrap();
    let summary = report_shape(&report, &stderr, &out_dir);
    // A row per collective, each explored on every communicator size.
    for c in collsel::data::Collective::ALL {
        let row = summary
            .lines()
            .find(|l| l.starts_with(&format!("| {} ", c.function())))
            .unwrap_or_else(|| panic!("no row for {c:?}: {summary}"));
        let cells: Vec<&str> = row.split('|').map(str::trim).collect();
        assert_eq!(cells[2..4], ["4, 3, 2", "explored"], "{row}");
    }
    for name in [
        "data.csv",
        "model/manifest.json",
        "model-reduce/manifest.json",
        "model-allreduce/manifest.json",
        "model-allgather/manifest.json",
        "model-alltoall/manifest.json",
        "model-gather/manifest.json",
        "model-scatter/manifest.json",
        "model-reduce_scatter/manifest.json",
        "model-reduce_scatter_block/manifest.json",
        "model-barrier/manifest.json",
        "rules",
        "han.rules",
        "report.md",
        // Three communicator sizes: a held-out evaluation, drawn without
        // any installed font.
        "plots/decision_map.png",
        "plots/speedup_by_size.svg",
        "plots-barrier/predicted_vs_measured.png",
    ] {
        assert!(out_dir.join(name).exists(), "{name} missing: {stderr}");
    }
    assert!(!stderr.contains("warning: no plots"), "{stderr}");
    assert!(
        report.contains("MPI_Bcast decisions for 1 node(s) x 4 ranks"),
        "{report}"
    );
    // The rules' validated effect: one table per collective, a row per
    // tuned size.
    let effects: Vec<&str> = report.split("### Validated effect").skip(1).collect();
    assert_eq!(effects.len(), 10, "{report}");
    for (effect, procs) in effects.iter().flat_map(|e| [(e, "2"), (e, "4")]) {
        assert!(
            effect
                .lines()
                .any(|l| l.starts_with(&format!("| {procs} |"))),
            "no row for {procs} ranks: {report}"
        );
    }
    // Every switch validated, none kept unless proved faster, and the
    // rules switch only where a kept row says so.
    let validation = std::fs::read_to_string(out_dir.join("validation.csv")).unwrap();
    assert!(
        validation.starts_with(
            "collective,procs,msg_bytes,decision,speedup,low,high,kept,across,across_low,\
             across_high,next_low,next_high\n"
        ),
        "{validation}"
    );
    let rows = common::csv_rows(&validation);
    // The deploy block checks exactly the collectives that switch somewhere.
    let mut switching: Vec<&str> = Vec::new();
    for c in collsel::data::Collective::ALL {
        if rows
            .iter()
            .any(|r| r["collective"] == c.name() && r["kept"] == "true")
        {
            switching.push(c.name());
        }
    }
    match switching.is_empty() {
        true => assert!(summary.contains("Nothing to deploy"), "{summary}"),
        false => assert!(
            summary.contains(&format!(
                "collsel verify --collectives {} --sizes 1,1024,65536 --procs 2,3,4\n",
                switching.join(",")
            )),
            "{switching:?}: {summary}"
        ),
    }
    for row in &rows {
        if row["kept"] == "true" {
            let low: f64 = row["low"].parse().unwrap();
            assert!(low > 1.0, "{row:?}");
        }
    }
    let rules_text = std::fs::read(out_dir.join("rules")).unwrap();
    let rules = collsel::verify::files::read_tuned(&rules_text, false).unwrap();
    // (name, coll id, sizes, whether the file's size is the block × p)
    for (name, id, sizes, per_block) in [
        ("bcast", 7, &[1u64, 1024, 65536][..], false),
        ("reduce", 11, &[1024, 65536], false),
        ("allreduce", 2, &[1024, 65536], false),
        ("allgather", 0, &[1, 1024, 65536], true),
        ("alltoall", 3, &[1, 1024, 65536], true),
        ("gather", 9, &[1, 1024, 65536], true),
        ("scatter", 15, &[1, 1024, 65536], true),
        ("reduce_scatter", 12, &[1024, 65536], true),
        ("reduce_scatter_block", 13, &[1024, 65536], true),
        ("barrier", 6, &[0], false),
    ] {
        for procs in [2u64, 4] {
            for &m in sizes {
                let at = if per_block { m * procs } else { m };
                let kept = rows.iter().any(|r| {
                    r["collective"] == name
                        && r["procs"] == procs.to_string()
                        && r["msg_bytes"] == m.to_string()
                        && r["kept"] == "true"
                });
                // A collective the file leaves out keeps the library's
                // choice everywhere: nothing of it was kept.
                let switches = rules.lookup(id, procs, at).is_some_and(|r| r.alg != 0);
                assert_eq!(
                    switches, kept,
                    "{name} {procs} ranks {m} B: the file switches ({switches}) where a \
                     validation was kept ({kept}): {validation}"
                );
            }
        }
    }
    for function in [
        "MPI_Reduce",
        "MPI_Allreduce",
        "MPI_Allgather",
        "MPI_Alltoall",
    ] {
        assert!(
            report.contains(&format!("{function} decisions for 1 node(s) x 4 ranks")),
            "{report}"
        );
    }
    let load = |collective| {
        let choice = collsel::data::load::SystemFilter {
            collective: Some(collective),
            ..Default::default()
        };
        collsel::data::load::load_files(&[out_dir.join("data.csv")], &choice)
            .unwrap()
            .dataset
    };
    // Every default point is in the seed: 3 communicator sizes x 3
    // message sizes, x 2 for the reductions (1 byte is no whole float),
    // x 1 for the barrier (no message size).
    for (collective, expected) in [
        (collsel::data::Collective::Bcast, 9),
        (collsel::data::Collective::Reduce, 6),
        (collsel::data::Collective::Allreduce, 6),
        (collsel::data::Collective::Allgather, 9),
        (collsel::data::Collective::Alltoall, 9),
        (collsel::data::Collective::Barrier, 3),
    ] {
        let data = load(collective);
        let defaults = data
            .measurements()
            .iter()
            .filter(|m| m.candidate.is_default())
            .count();
        assert_eq!(defaults, expected, "{collective:?}: {stderr}");
    }

    // `predict` from tune's models ships the same validated rules.
    let numbers = |text: &str| -> Vec<String> {
        text.lines()
            .filter(|l| !l.starts_with('#'))
            .map(|l| l.split('#').next().unwrap().trim().to_string())
            .collect()
    };
    let predicted = Command::new(env!("CARGO_BIN_EXE_collsel"))
        .arg("predict")
        .args(
            [
                "model",
                "model-reduce",
                "model-allreduce",
                "model-allgather",
                "model-alltoall",
                "model-gather",
                "model-scatter",
                "model-reduce_scatter",
                "model-reduce_scatter_block",
                "model-barrier",
            ]
            .iter()
            .flat_map(|m| {
                [
                    "--model".to_string(),
                    out_dir.join(m).to_string_lossy().into_owned(),
                ]
            }),
        )
        .args(["--nodes", "1", "--procs", "2,3,4", "--format", "ompi-rules"])
        .output()
        .unwrap();
    assert!(predicted.status.success(), "{predicted:?}");
    let shipped = std::fs::read_to_string(out_dir.join("rules")).unwrap();
    assert_eq!(
        numbers(&String::from_utf8_lossy(&predicted.stdout)),
        numbers(&shipped)
    );

    let exe = common::compile_timer(Path::new("mpicc"), dir.path());
    let rules = out_dir.join("rules");
    let text = std::fs::read_to_string(&rules).unwrap();
    // The file names exactly the collectives with a kept switch: the
    // others keep the fixed decision everywhere, and naming them would
    // cost each of their calls a rules lookup.
    let ids = [
        ("allgather", 0),
        ("allreduce", 2),
        ("alltoall", 3),
        ("barrier", 6),
        ("bcast", 7),
        ("gather", 9),
        ("reduce", 11),
        ("reduce_scatter", 12),
        ("reduce_scatter_block", 13),
        ("scatter", 15),
    ];
    let mut named = 0;
    for (name, id) in ids {
        let kept = rows
            .iter()
            .any(|r| r["collective"] == name && r["kept"] == "true");
        let here = text.contains(&format!("\n{id} # collective id: {name}\n"));
        assert_eq!(here, kept, "{name}: {text}\n{validation}");
        named += usize::from(here);
    }
    assert!(
        text.contains(&format!("\n{named} # collectives in this file\n")),
        "{text}"
    );
    // HAN's routing (Open MPI 5 across nodes) for each it serves (not
    // alltoall).
    let han = std::fs::read_to_string(out_dir.join("han.rules")).unwrap();
    assert!(han.contains("7 # collectives in this file"), "{han}");
    for bytes in [1, 1000, 65536] {
        let (out, ok) = with_rules(&exe, &rules, bytes);
        assert!(ok && out.contains("min_us"), "{bytes} B: {out}");
    }
    for collective in [
        "reduce",
        "allreduce",
        "allgather",
        "alltoall",
        "gather",
        "scatter",
        "reduce_scatter",
        "reduce_scatter_block",
        "barrier",
    ] {
        for bytes in [1000, 65536] {
            let (out, ok) = timed(&exe, &rules, bytes, collective);
            assert!(
                ok && out.contains("min_us"),
                "{collective} {bytes} B: {out}"
            );
        }
    }
    // The files are read: one naming algorithm 99 for the broadcast fails.
    let broken = dir.path().join("broken");
    std::fs::write(&broken, "1\n7\n1\n2\n1\n0 99 0 0\n").unwrap();
    let (out, ok) = with_rules(&exe, &broken, 1000);
    assert!(!ok && out.contains("bcast_error"), "{out}");

    // Resumed: everything measured is kept, nothing measured again (the
    // second look, where the first run took one, is not taken twice).
    let before: std::collections::HashMap<_, (usize, usize)> = collsel::data::Collective::ALL
        .into_iter()
        .map(|c| {
            let d = load(c);
            (c, (d.measurements().len(), d.duplicate_rows()))
        })
        .collect();
    let again = tune(&out_dir, &args);
    assert!(again.status.success());
    for collective in collsel::data::Collective::ALL {
        let (measured, duplicates) = before[&collective];
        let rerun = load(collective);
        assert_eq!(rerun.duplicate_rows(), duplicates, "{collective:?}");
        assert!(rerun.measurements().len() >= measured, "{collective:?}");
    }
}

/// A barrier's grid is one configuration per communicator size, and Open
/// MPI's two-rank algorithm runs on 2 ranks only: tune must neither plan
/// it where bench leaves it out (round after round) nor leave the other
/// sizes' algorithms unmeasured.
#[test]
fn tune_measures_every_barrier_algorithm_on_every_size() {
    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().join("tuned");
    let out = tune(
        &out_dir,
        &["--time-budget", "20s", "--collectives", "barrier"],
    );
    let (stderr, data) = refused_nothing(&out, &out_dir, collsel::data::Collective::Barrier);
    use collsel::data::Algorithm;
    for procs in 2..=4 {
        let mut measured: Vec<_> = data
            .measurements()
            .iter()
            .filter(|m| m.config.procs == procs)
            .map(|m| m.candidate.algorithm)
            .collect();
        measured.sort();
        let mut expected = vec![
            Algorithm::Default,
            Algorithm::Linear,
            Algorithm::DoubleRing,
            Algorithm::RecursiveDoubling,
            Algorithm::Bruck,
            Algorithm::Tree,
        ];
        if procs == 2 {
            expected.push(Algorithm::TwoProc);
        }
        expected.sort();
        assert_eq!(measured, expected, "{procs} ranks: {stderr}");
    }
}

/// A barrier tuned at one communicator size (one row per algorithm) is
/// decided by its measurements and validated like the rest, not left out
/// for having too few rows to model.
#[test]
fn tune_decides_a_barrier_measured_at_one_size() {
    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().join("tuned");
    let args = [
        "--time-budget",
        "10s",
        "--collectives",
        "barrier",
        "--procs",
        "4",
    ];
    let out = tune(&out_dir, &args);
    let (stderr, data) = refused_nothing(&out, &out_dir, collsel::data::Collective::Barrier);
    assert_eq!(data.measurements().len(), 6, "{stderr}");
    // Every point measured with most of exploring left: a second look
    // times each again, and data.csv holds both rows of each.
    assert!(stderr.contains("tune: a second look"), "{stderr}");
    assert_eq!(data.duplicate_rows(), 6, "{stderr}");
    assert!(!out_dir.join("second-look.csv").exists());
    assert!(
        stderr.contains("no candidate has 3 or more measurements"),
        "{stderr}"
    );
    let rules = std::fs::read_to_string(out_dir.join("rules")).unwrap();
    // Decided: in the file, or left out because it keeps the fixed
    // decision (a collective never decided is not named at all).
    assert!(
        rules.contains("6 # collective id: barrier")
            || rules.contains("fixed decision serves them at every size decided: MPI_Barrier"),
        "{rules}"
    );
    let report = std::fs::read_to_string(out_dir.join("report.md")).unwrap();
    assert!(report.contains("MPI_Barrier"), "{report}");
    assert!(
        report.contains("No held-out evaluation of MPI_Barrier: fewer than 3 communicator sizes."),
        "{report}"
    );
}

/// tune never hands bench a point bench leaves out: not Open MPI's
/// two-rank algorithm off 2 ranks, nor an algorithm this Open MPI lacks
/// (allgather's sparbit is 5.0's: under 4.1 tune leaves it out with a
/// note of its own).
#[test]
fn tune_plans_nothing_bench_leaves_out() {
    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().join("tuned");
    let out = tune(
        &out_dir,
        &[
            "--time-budget",
            "20s",
            "--collectives",
            "allgather",
            "--algorithms",
            "sparbit,two_proc,ring",
            "--procs",
            "2,3,4",
            "--sizes",
            "1K",
        ],
    );
    let (stderr, data) = refused_nothing(&out, &out_dir, collsel::data::Collective::Allgather);
    use collsel::data::Algorithm;
    let measured = data.measurements();
    assert!(
        measured
            .iter()
            .any(|m| m.candidate.algorithm == Algorithm::Ring),
        "{stderr}"
    );
    assert!(
        measured
            .iter()
            .all(|m| m.candidate.algorithm != Algorithm::TwoProc || m.config.procs == 2),
        "{stderr}"
    );
}

/// tune's stderr, after checking that it succeeded and that bench left no
/// point of it out, and what it measured of `collective`.
fn refused_nothing(
    out: &Output,
    out_dir: &Path,
    collective: collsel::data::Collective,
) -> (String, collsel::data::Dataset) {
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{stderr}");
    assert!(!stderr.contains("left out where it cannot run"), "{stderr}");
    let choice = collsel::data::load::SystemFilter {
        collective: Some(collective),
        ..Default::default()
    };
    let data = collsel::data::load::load_files(&[out_dir.join("data.csv")], &choice)
        .unwrap()
        .dataset;
    (stderr, data)
}

/// Every algorithm of every collective once (unsegmented, the default
/// fan-out) at every message size on the job's own size, before any
/// smaller size and before any other segment size or fan-out, the
/// smallest messages of every collective before the largest of any: the
/// measurements' order in data.csv (rank 0 appends them as they come).
#[test]
fn tune_measures_every_algorithm_at_the_jobs_size_first() {
    use collsel::data::{Algorithm, Collective};
    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().join("tuned");
    let collectives = [Collective::Bcast, Collective::Reduce, Collective::Alltoall];
    let out = tune(
        &out_dir,
        &[
            "--time-budget",
            "25s",
            "--collectives",
            "bcast,reduce,alltoall",
            "--sizes",
            "4,1K,64K",
        ],
    );
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{stderr}");
    let text = std::fs::read_to_string(out_dir.join("data.csv")).unwrap();
    let rows = common::csv_rows(&text);
    // Base: unsegmented (or not segmenting) with the default fan-out.
    let base = |r: &std::collections::BTreeMap<String, String>| {
        ["", "0"].contains(&r["segsize_bytes"].as_str()) && r["fanout"].is_empty()
    };
    let first_other = rows
        .iter()
        .position(|r| r["procs"] != "4" || !base(r))
        .unwrap_or(rows.len());
    for c in collectives {
        let mut expected: Vec<Algorithm> = c
            .describe()
            .measured_by_default
            .iter()
            .copied()
            .filter(|&a| c.runs_on(a, 4))
            .collect();
        expected.push(Algorithm::Default);
        for size in ["4", "1024", "65536"] {
            for a in &expected {
                let at = rows.iter().position(|r| {
                    r["collective"] == c.name()
                        && r["procs"] == "4"
                        && r["msg_bytes"] == size
                        && r["algorithm"] == a.name()
                        && base(r)
                });
                let at = at.unwrap_or_else(|| panic!("{c:?} {a} at {size} B on 4 ranks: {text}"));
                assert!(
                    at < first_other,
                    "{c:?} {a} at {size} B measured late: {text}"
                );
            }
        }
    }
    // On the job's size, every collective's smallest messages before the
    // largest of any (in the first pass: a second look, where the run
    // takes one, appends the same points again at the end).
    let at_size = |size: &str| {
        let rows = rows[..first_other].iter().enumerate();
        rows.filter(|(_, r)| r["procs"] == "4" && r["msg_bytes"] == size && base(r))
            .map(|(i, _)| i)
            .collect::<Vec<usize>>()
    };
    let (small, large) = (at_size("4"), at_size("65536"));
    assert!(
        small.iter().max() < large.iter().min(),
        "4 B rows {small:?}, 64 KiB rows {large:?}: {text}"
    );
    // And then the smaller sizes and other segment sizes were measured.
    assert!(
        rows[first_other..].iter().any(|r| r["procs"] == "2"),
        "{text}"
    );
    assert!(rows.iter().any(|r| !base(r)), "{text}");
}

/// A budget too small for the first pass: the report says which sizes were
/// not explored, that the rules keep `default` there for want of
/// measurements, and about what a first pass would take; the run still
/// writes its rules and report.
#[test]
fn a_budget_too_small_says_what_was_not_explored() {
    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().join("tuned");
    let out = tune(
        &out_dir,
        &[
            "--time-budget",
            "4s",
            "--collectives",
            "all",
            "--sizes",
            "1:4M:x4",
        ],
    );
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("the budget ran out in the first pass"),
        "{stderr}"
    );
    assert!(stderr.contains("| **not explored** at 4"), "{stderr}");
    assert!(
        stderr.contains("would explore every collective."),
        "{stderr}"
    );
    let report = std::fs::read_to_string(out_dir.join("report.md")).unwrap();
    report_shape(&report, &stderr, &out_dir);
    assert!(report.contains("**not explored**"), "{report}");
    assert!(
        report.contains(
            "the budget ran out.** The rules keep `default` there for want of measurements"
        ),
        "{report}"
    );
    assert!(report.contains("A whole first pass of"), "{report}");
    assert!(
        report.contains("1 (not explored: the budget ran out)"),
        "{report}"
    );
    // "default everywhere" only where the first pass finished.
    for section in report.split("\n## MPI_").skip(1) {
        let rows = |marker: &str| -> Vec<String> {
            section
                .lines()
                .filter(|l| l.starts_with("| ") && l.contains(marker))
                .map(|l| l.split('|').nth(1).unwrap_or_default().trim().to_string())
                .collect()
        };
        let unexplored = rows("**not explored**");
        for procs in rows("1 (default everywhere)") {
            assert!(!unexplored.contains(&procs), "{procs} ranks: {section}");
        }
    }
    assert!(out_dir.join("rules").exists());
}
