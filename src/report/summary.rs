//! The first screen of `tune`'s report, and what `tune` prints last: per
//! collective how far it was explored, the switches kept and their effect
//! at the job's own communicator size and over every size tuned; then how
//! to deploy the files and check them in a job; then one line per thing
//! the user must know. The report goes on with each collective's detail
//! and ends with the models' evaluation ([`report`]).

use super::tune::{held_out, markdown, unexplored, Covered, Shipped, Shipping, TunedReport};
use crate::bench::stats::Speedup;
use crate::data::Collective;
use crate::report::shipped_plots::shipped_speedups;
use crate::select::validation::{Validation, Verdict};
use crate::units::format_bytes;
use std::fmt::Write;
use std::path::{Path, PathBuf};

/// What a whole tune did.
pub struct TuneRun<'a> {
    /// Where its files are.
    pub dir: &'a Path,
    /// Every collective tuned, in the order tuned.
    pub tuned: &'a [TunedReport<'a>],
    /// The message sizes and communicator sizes it tuned (for `verify`).
    pub sizes: &'a [u64],
    pub procs: &'a [u32],
    /// What was left of the budget and why, or what it did not cover.
    pub budget: String,
    /// About what budget would finish the first pass of every collective,
    /// where it did not finish.
    pub whole_first_pass: Option<f64>,
    /// Where exploring met the machine only in a slower state than
    /// validation did: the communicator size and the two states' probes
    /// (µs, the median barrier).
    pub explored_disturbed: Option<(u32, f64, f64)>,
}

impl TuneRun<'_> {
    /// The job's own communicator size: the largest tuned.
    fn job_procs(&self) -> u32 {
        self.procs.iter().copied().max().unwrap_or(0)
    }

    fn shipping(&self) -> impl Iterator<Item = (Collective, &Shipping<'_>)> {
        self.tuned
            .iter()
            .filter_map(|t| t.shipping.as_ref().map(|x| (t.collective, x)))
    }
}

/// The whole report: the summary, each collective's detail, then the
/// models' evaluation on communicator sizes held out of training.
pub fn report(run: &TuneRun) -> String {
    let mut s = summary(run);
    for t in run.tuned {
        s += "\n";
        s += &markdown(t);
    }
    let mut evaluations = Vec::new();
    // Why there is none, and of which collectives: one line per reason.
    let mut missing: Vec<(String, Vec<&str>)> = Vec::new();
    for t in run.tuned {
        match held_out(t) {
            Some(Ok(text)) => evaluations.push(text),
            Some(Err(why)) => match missing.iter_mut().find(|(w, _)| *w == why) {
                Some((_, of)) => of.push(t.collective.function()),
                None => missing.push((why, vec![t.collective.function()])),
            },
            None => {}
        }
    }
    s += "\n## Appendix: the models on communicator sizes held out of training\n\n";
    if !evaluations.is_empty() {
        s += "Each collective's models trained again without some communicator sizes and \
              judged on them: how well each selector would choose for job sizes it never \
              saw.\n\n";
        s += &evaluations.join("\n");
    }
    for (why, of) in missing {
        let _ = writeln!(s, "No held-out evaluation of {}: {why}.\n", of.join(", "));
    }
    s
}

/// The first screen: the title, the table, the deploy block and the notes.
pub fn summary(run: &TuneRun) -> String {
    let procs = run.job_procs();
    let layout = run
        .shipping()
        .flat_map(|(_, x)| x.tables)
        .find(|t| t.job.procs == procs)
        .map_or(String::new(), |t| match t.job.nodes {
            1 => " on 1 node".to_string(),
            n => format!(" on {n} nodes ({} per node)", t.job.ppn),
        });
    let mut s = format!(
        "# collsel tune: {procs} ranks{layout}\n\n\
         Per collective: where every algorithm was measured (explored), the switches from \
         the library's own choice that proved faster on fresh samples (kept, of those the \
         models chose), and what the rules change: `default`'s time over the rules' time, \
         geometric mean over the message sizes tuned (95% interval; a size where the rules \
         keep `default` counts as 1).\n\n"
    );
    s += &table(run, procs);
    s += &deploy(run);
    let notes = notes(run, procs);
    if !notes.is_empty() {
        s += "\n## To know\n\n";
        for n in notes {
            let _ = writeln!(s, "- {n}");
        }
    }
    s
}

/// The summary table, its columns padded so that it reads on a terminal
/// as it renders in a viewer.
fn table(run: &TuneRun, procs: u32) -> String {
    let mut rows = vec![[
        "collective".to_string(),
        "ranks".into(),
        "coverage".into(),
        "kept".into(),
        format!("at {procs} ranks"),
        "all sizes".into(),
        "largest kept".into(),
    ]];
    for t in run.tuned {
        let ranks: Vec<String> = t
            .explored
            .covered
            .iter()
            .map(|c| c.procs.to_string())
            .collect();
        let mut row = [
            t.collective.function().to_string(),
            ranks.join(", "),
            coverage(t.explored.covered, t.shipping.is_some()),
            "-".into(),
            "-".into(),
            "-".into(),
            "-".into(),
        ];
        if let Some(x) = &t.shipping {
            let kept: Vec<&Validation> = x.validations.iter().filter(|v| v.kept()).collect();
            row[3] = format!("{} of {}", kept.len(), x.validations.len());
            let stays = match x.shipped {
                Shipped::Mpich { taken: false, .. } => Some("1 (MPICH's own)"),
                _ => None,
            };
            let at_job = x.tables.iter().filter(|t| t.job.procs == procs);
            row[4] = stays.map_or_else(|| effect(at_job, x.validations), String::from);
            row[5] = stays.map_or_else(|| effect(x.tables.iter(), x.validations), String::from);
            row[6] = kept
                .iter()
                .filter(|_| stays.is_none())
                .filter_map(|v| v.speedup.map(|s| (s.speedup, v)))
                .max_by(|a, b| a.0.total_cmp(&b.0))
                .map_or("-".into(), |(g, v)| {
                    format!(
                        "{g:.2}x, {} at {} ranks",
                        format_bytes(v.msg_bytes),
                        v.procs
                    )
                });
        }
        rows.push(row);
    }
    let widths: Vec<usize> = (0..rows[0].len())
        .map(|i| rows.iter().map(|r| r[i].chars().count()).max().unwrap_or(0))
        .collect();
    let line = |cells: Vec<String>| format!("| {} |\n", cells.join(" | "));
    let pad = |r: &[String; 7]| {
        let cells = r.iter().zip(&widths);
        line(cells.map(|(c, w)| format!("{c:<w$}")).collect())
    };
    let mut s = pad(&rows[0]);
    s += &line(widths.iter().map(|w| "-".repeat(*w)).collect());
    for r in &rows[1..] {
        s += &pad(r);
    }
    s
}

/// "explored", or where not: "**not explored** at 8 (to 64 B), 4, 2".
fn coverage(covered: &[Covered], measured: bool) -> String {
    let missing: Vec<String> = covered
        .iter()
        .filter(|c| !c.explored())
        .map(|c| match c.explored_to {
            Some(m) => format!("{} (to {})", c.procs, format_bytes(m)),
            None => c.procs.to_string(),
        })
        .collect();
    match (measured, missing.is_empty()) {
        (false, _) => "**not measured**".into(),
        (true, true) => "explored".into(),
        (true, false) => format!("**not explored** at {}", missing.join(", ")),
    }
}

/// The effect of what `tables` ship, as the table shows it.
fn effect<'a>(
    tables: impl Iterator<Item = &'a crate::select::decision::DecisionTable>,
    validations: &[Validation],
) -> String {
    let parts: Vec<Speedup> = tables
        .flat_map(|t| shipped_speedups(t, validations))
        .map(|(_, x)| x)
        .collect();
    match Speedup::geomean(&parts) {
        None => "-".into(),
        Some(g) if g.rounds == 0 => "1 (default)".into(),
        Some(g) => format!("{:.2} ({:.2}–{:.2})", g.speedup, g.low, g.high),
    }
}

/// How to use the files, and the `verify` command that checks them in the
/// user's job; or that there is nothing to deploy.
fn deploy(run: &TuneRun) -> String {
    let mut s = String::from("\n## Deploy\n\n");
    let switching: Vec<(Collective, &Shipping)> =
        run.shipping().filter(|(_, x)| x.switches()).collect();
    let Some((_, first)) = switching.first() else {
        return s + "Nothing to deploy: no switch proved faster than the library's own choice, so \
               the files leave that choice everywhere.\n";
    };
    let names: Vec<&str> = switching.iter().map(|(c, _)| c.name()).collect();
    let sizes: Vec<String> = run.sizes.iter().map(u64::to_string).collect();
    let procs: Vec<String> = run.procs.iter().map(u32::to_string).collect();
    let verify = format!(
        "collsel verify --collectives {} --sizes {} --procs {}",
        names.join(","),
        sizes.join(","),
        procs.join(",")
    );
    let n = run.job_procs();
    match first.shipped {
        Shipped::Mpich { selection, .. } => {
            let file = absolute(selection);
            let _ = write!(
                s,
                "MPICH runs the tuned decisions of {} with these in every rank's environment:\n\n    \
                 MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE={}\n    \
                 MPIR_CVAR_DEVICE_COLLECTIVES=percoll\n",
                functions(&switching),
                file.display()
            );
            let mut env = Vec::new();
            for (c, _) in &switching {
                let upper = c.name().to_ascii_uppercase();
                let _ = writeln!(s, "    MPIR_CVAR_{upper}_DEVICE_COLLECTIVE=0");
                env.push(format!("-env MPIR_CVAR_{upper}_DEVICE_COLLECTIVE 0"));
            }
            let _ = write!(
                s,
                "\nCheck them in your job, under the launcher and environment the application \
                 uses (it checks that MPICH consults the file and times each collective through \
                 it against MPICH's own choice):\n\n    \
                 mpiexec -n {n} -env MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE {} {} {verify}\n",
                file.display(),
                env.join(" "),
            );
        }
        Shipped::OpenMpi { rules } => {
            let rules = absolute(rules);
            let han = rules.with_file_name("han.rules");
            let _ = write!(
                s,
                "Open MPI runs the rules (`rules`, for {}) with these in every rank's \
                 environment:\n\n    \
                 OMPI_MCA_coll_tuned_use_dynamic_rules=1\n    \
                 OMPI_MCA_coll_tuned_dynamic_rules_filename={}\n",
                functions(&switching),
                rules.display()
            );
            let by_han: Vec<(Collective, &Shipping)> = switching
                .iter()
                .copied()
                .filter(|(c, _)| c.describe().ompi.han)
                .collect();
            if !by_han.is_empty() {
                let _ = write!(
                    s,
                    "\nWith Open MPI 5 on jobs that span nodes, coll/han serves {} and its file \
                     (`han.rules`) hands them to the rules:\n\n    \
                     OMPI_MCA_coll_han_use_dynamic_file_rules=1\n    \
                     OMPI_MCA_coll_han_dynamic_rules_filename={}\n",
                    functions(&by_han),
                    han.display()
                );
            }
            let dir = rules.parent().unwrap_or(Path::new("."));
            let _ = write!(
                s,
                "\nConfirm them in separate jobs first, without the rules, each run adding its \
                 job to the evidence (`confirmed/rules` keeps what held: deploy it instead):\n\n    \
                 mpirun -n {n} collsel verify --confirm {}\n",
                dir.display()
            );
            let _ = write!(
                s,
                "\nCheck them in your job, under the launcher and environment the application \
                 uses (it checks that Open MPI reads the files and times each collective \
                 through them against the library's own choice; with Open MPI 5 across nodes \
                 add the same for `han.rules`):\n\n    \
                 mpirun -n {n} --mca coll_tuned_use_dynamic_rules 1 --mca \
                 coll_tuned_dynamic_rules_filename {} {verify}\n",
                rules.display()
            );
        }
    }
    s
}

/// "MPI_Bcast, MPI_Reduce and MPI_Gather".
fn functions(of: &[(Collective, &Shipping)]) -> String {
    let names: Vec<&str> = of.iter().map(|(c, _)| c.function()).collect();
    match names.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => names.join(""),
    }
}

/// One line per thing the user must know: what was not explored or not
/// measured, effects within noise at the job's size, what validation
/// reverted, MPICH's own choices kept, and the budget.
fn notes(run: &TuneRun, procs: u32) -> Vec<String> {
    let mut notes = Vec::new();
    for t in run.tuned {
        let function = t.collective.function();
        let missing = unexplored(t.explored.covered);
        let Some(x) = &t.shipping else {
            notes.push(format!(
                "{function}: nothing measured before the budget ran out; the library keeps its \
                 own choice."
            ));
            continue;
        };
        if !missing.is_empty() {
            let list: Vec<String> = missing.iter().map(u32::to_string).collect();
            notes.push(format!(
                "{function}: not explored at {} ranks (the budget ran out{}); the rules keep \
                 `default` there for want of measurements.",
                list.join(", "),
                t.explored
                    .first_pass_seconds
                    .map_or(String::new(), |s| format!(
                        "; its whole first pass takes at least about {} here",
                        super::tune::about(s)
                    ))
            ));
        }
        let at_job: Vec<Speedup> = x
            .tables
            .iter()
            .filter(|t| t.job.procs == procs)
            .flat_map(|t| shipped_speedups(t, x.validations))
            .map(|(_, s)| s)
            .collect();
        if let Some(g) = Speedup::geomean(&at_job).filter(|g| g.rounds > 0 && g.within_noise()) {
            notes.push(format!(
                "{function}: within noise at {procs} ranks ({:.2}, {:.2}–{:.2}): its kept \
                 switches are too few, or too small, to change the whole measurably.",
                g.speedup, g.low, g.high
            ));
        }
        if let Shipped::Mpich { taken: false, .. } = x.shipped {
            let count = |v: Verdict| x.validations.iter().filter(|r| r.verdict() == v).count();
            notes.push(format!(
                "{function}: MPICH's own choice stays: of {} decisions timed against it, {} \
                 proved faster, {} slower and {} unmeasured (the file takes a collective only \
                 where one is faster and none slower or unmeasured).",
                x.validations.len(),
                count(Verdict::Kept),
                count(Verdict::Slower),
                count(Verdict::Unmeasured)
            ));
        }
    }
    if let Some((procs, explored, quiet)) = run.explored_disturbed {
        notes.push(format!(
            "Exploring met the machine only in a slower state than validation did (a \
             barrier took {explored:.2} µs at {procs} ranks at its quietest while exploring, \
             {quiet:.2} µs in validation): the models ranked the algorithms by that state, \
             and a winner of the quieter one may not have been proposed. Run tune again."
        ));
    }
    let reverted: Vec<Verdict> = run
        .shipping()
        .flat_map(|(_, x)| x.reverted.iter().map(|r| r.3))
        .collect();
    if !reverted.is_empty() {
        let count = |v: Verdict| reverted.iter().filter(|r| **r == v).count();
        notes.push(format!(
            "{} switch(es) the models chose were reverted to `default` by validation: {} \
             slower, {} within noise, {} unmeasured (each collective's detail lists them).",
            reverted.len(),
            count(Verdict::Slower),
            count(Verdict::WithinNoise),
            count(Verdict::Unmeasured)
        ));
    }
    let mut budget = run.budget.clone();
    if let Some(seconds) = run.whole_first_pass {
        let _ = write!(
            budget,
            " A --time-budget of at least about {} would explore every collective.",
            super::tune::about(seconds)
        );
    }
    notes.push(budget);
    notes
}

/// Open MPI and MPICH resolve a relative path against each rank's
/// directory: the commands name the files absolutely.
fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::{Algorithm, Candidate};
    use crate::export::fixtures::{cand, table};
    use crate::report::shipped_plots::Pictures;
    use crate::report::tune::Explored;

    fn explored(covered: &[Covered]) -> Explored<'_> {
        Explored {
            covered,
            first_pass_seconds: Some(42.0),
            explore_seconds: 100.0,
        }
    }

    fn covered(procs: u32, done: bool) -> Covered {
        Covered {
            procs,
            sizes: 3,
            measured: (2, 2),
            grid: 2,
            base_measured: if done { 6 } else { 2 },
            base: 6,
            explored_to: (!done).then_some(1),
        }
    }

    /// A validated switch to `decision` at 4 ranks.
    fn validation(msg_bytes: u64, decision: Candidate, speedup: f64) -> Validation {
        Validation {
            collective: Collective::Bcast,
            procs: 4,
            msg_bytes,
            decision,
            speedup: Some(Speedup {
                speedup,
                low: speedup - 0.1,
                high: speedup + 0.1,
                rounds: 8,
                replicas: 0,
                weakest: None,
                disturbed: None,
            }),
            times_us: Some((speedup, 1.0)),
            discovered: true,
            across_jobs: None,
        }
    }

    /// The first screen: a row per collective (one kept switch, one whose
    /// switch was reverted, one never measured), the deploy block for the
    /// one that switches, and what was not explored or measured.
    #[test]
    fn the_summary_says_what_changed_what_to_deploy_and_what_was_not_done() {
        let binomial = cand(Algorithm::Binomial, None, None);
        let pipeline = cand(Algorithm::Pipeline, Some(8192), None);
        let bcast_tables = [
            table(4, [Candidate::DEFAULT, pipeline, Candidate::DEFAULT]),
            table(2, [Candidate::DEFAULT; 3]),
        ];
        let bcast_validations = [validation(65536, pipeline, 2.0)];
        let reduce_tables = [table(4, [Candidate::DEFAULT; 3])];
        let reduce_validations = [Validation {
            collective: Collective::Reduce,
            ..validation(1, binomial, 1.01)
        }];
        let reverted = [(4, 1, binomial, Verdict::WithinNoise)];
        let rules = Path::new("/tuned/rules");
        let shipping = |tables, validations, reverted| Shipping {
            shipped: Shipped::OpenMpi { rules },
            tables,
            decisions: "",
            validations,
            reverted,
            held_out: Err("fewer than 3 communicator sizes"),
            pictures: Pictures::default(),
        };
        let full = [covered(4, true), covered(2, true)];
        let half = [covered(4, true), covered(2, false)];
        let tuned = [
            TunedReport {
                collective: Collective::Bcast,
                explored: explored(&full),
                shipping: Some(shipping(&bcast_tables, &bcast_validations, &[])),
            },
            TunedReport {
                collective: Collective::Reduce,
                explored: explored(&half),
                shipping: Some(shipping(&reduce_tables, &reduce_validations, &reverted)),
            },
            TunedReport {
                collective: Collective::Gather,
                explored: explored(&[]),
                shipping: None,
            },
        ];
        let run = TuneRun {
            dir: Path::new("/tuned"),
            tuned: &tuned,
            sizes: &[1, 65536, 1 << 20],
            procs: &[4, 2],
            budget: "The whole 60 s budget was used.".into(),
            whole_first_pass: Some(200.0),
            explored_disturbed: None,
        };
        let s = summary(&run);
        let rows: Vec<Vec<&str>> = s
            .lines()
            .filter(|l| l.starts_with("| MPI_"))
            .map(|l| l.split('|').map(str::trim).collect())
            .collect();
        // Over 3 sizes at 4 ranks, one kept at 2.0: 2^(1/3); at 2 ranks
        // nothing changes.
        assert_eq!(rows[0][1..5], ["MPI_Bcast", "4, 2", "explored", "1 of 1"]);
        assert!(rows[0][5].starts_with("1.26 ("), "{s}");
        assert!(rows[0][6].starts_with("1.12 ("), "{s}");
        assert_eq!(rows[0][7], "2.00x, 64 KiB at 4 ranks");
        assert_eq!(
            rows[1][1..8],
            [
                "MPI_Reduce",
                "4, 2",
                "**not explored** at 2 (to 1 B)",
                "0 of 1",
                "1 (default)",
                "1 (default)",
                "-"
            ]
        );
        assert_eq!(rows[2][1..4], ["MPI_Gather", "", "**not measured**"]);
        // Only the collective that switches is deployed and verified.
        assert!(
            s.contains("Open MPI runs the rules (`rules`, for MPI_Bcast)"),
            "{s}"
        );
        assert!(s.contains("OMPI_MCA_coll_tuned_dynamic_rules_filename=/tuned/rules\n"));
        assert!(s.contains("OMPI_MCA_coll_han_dynamic_rules_filename=/tuned/han.rules\n"));
        assert!(s.contains(
            "mpirun -n 4 --mca coll_tuned_use_dynamic_rules 1 --mca \
             coll_tuned_dynamic_rules_filename /tuned/rules collsel verify --collectives \
             bcast --sizes 1,65536,1048576 --procs 4,2\n"
        ));
        for note in [
            "- MPI_Reduce: not explored at 2 ranks (the budget ran out; its whole first pass \
             takes at least about 45 s here)",
            "- MPI_Gather: nothing measured",
            "- 1 switch(es) the models chose were reverted to `default` by validation: 0 slower, \
             1 within noise, 0 unmeasured",
            "- The whole 60 s budget was used. A --time-budget of at least about 4 min would \
             explore every collective.",
        ] {
            assert!(s.contains(note), "{note}: {s}");
        }
        // The table's columns line up on a terminal.
        let widths: Vec<usize> = s
            .lines()
            .filter(|l| l.starts_with('|'))
            .map(|l| l.chars().count())
            .collect();
        assert!(widths.windows(2).all(|w| w[0] == w[1]), "{s}");

        // Nothing kept anywhere: nothing to deploy.
        let nothing = [TunedReport {
            collective: Collective::Reduce,
            explored: explored(&full),
            shipping: Some(shipping(&reduce_tables, &reduce_validations, &reverted)),
        }];
        assert!(!s.contains("Exploring met"), "{s}");
        // Exploring never met the state validation met: the user is told
        // to run it again.
        let s = summary(&TuneRun {
            tuned: &nothing,
            whole_first_pass: None,
            explored_disturbed: Some((2, 0.45, 0.2)),
            ..run
        });
        assert!(s.contains("Nothing to deploy"), "{s}");
        assert!(!s.contains("collsel verify"), "{s}");
        assert!(
            s.contains(
                "- Exploring met the machine only in a slower state than validation did (a \
                 barrier took 0.45 µs at 2 ranks at its quietest while exploring, 0.20 µs in \
                 validation)"
            ),
            "{s}"
        );
    }

    /// Under MPICH the deploy block names the selection file and takes from
    /// the device layer only the collectives whose part is the tune's.
    #[test]
    fn under_mpich_only_the_collectives_taken_are_deployed() {
        let ring = Candidate {
            implementation: crate::data::Impl::Mpich,
            ..cand(Algorithm::Ring, None, None)
        };
        let tables = [table(4, [ring; 3])];
        let validations = [validation(65536, ring, 1.5)];
        let selection = Path::new("/tuned/mpich.json");
        let shipping = |taken| Shipping {
            shipped: Shipped::Mpich { selection, taken },
            tables: &tables,
            decisions: "",
            validations: &validations,
            reverted: &[],
            held_out: Err("fewer than 3 communicator sizes"),
            pictures: Pictures::default(),
        };
        let full = [covered(4, true)];
        let tuned = [
            TunedReport {
                collective: Collective::Allreduce,
                explored: explored(&full),
                shipping: Some(shipping(true)),
            },
            TunedReport {
                collective: Collective::Reduce,
                explored: explored(&full),
                shipping: Some(shipping(false)),
            },
        ];
        let s = summary(&TuneRun {
            dir: Path::new("/tuned"),
            tuned: &tuned,
            sizes: &[65536],
            procs: &[4],
            budget: String::new(),
            whole_first_pass: None,
            explored_disturbed: None,
        });
        assert!(s.contains("MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE=/tuned/mpich.json\n"));
        assert!(
            s.contains("MPIR_CVAR_ALLREDUCE_DEVICE_COLLECTIVE=0\n"),
            "{s}"
        );
        assert!(!s.contains("MPIR_CVAR_REDUCE_DEVICE_COLLECTIVE"), "{s}");
        assert!(s.contains(
            "mpiexec -n 4 -env MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE /tuned/mpich.json -env \
             MPIR_CVAR_ALLREDUCE_DEVICE_COLLECTIVE 0 collsel verify --collectives \
             allreduce --sizes 65536 --procs 4\n"
        ));
        assert!(!s.contains("OMPI_MCA"), "{s}");
        assert!(s.contains("1 (MPICH's own)"), "{s}");
        assert!(
            s.contains(
                "MPI_Reduce: MPICH's own choice stays: of 1 decisions timed against it, 1 \
                 proved faster, 0 slower"
            ),
            "{s}"
        );
        let reduce = s.lines().find(|l| l.starts_with("| MPI_Reduce ")).unwrap();
        let cells: Vec<&str> = reduce.split('|').map(str::trim).collect();
        assert_eq!(
            cells[4..8],
            ["1 of 1", "1 (MPICH's own)", "1 (MPICH's own)", "-"]
        );
    }
}
