//! `tune`'s report: the summary a person reads first (`summary`), then per
//! collective its coverage, the validated effect of what ships with its
//! pictures, the switches validation reverted and the decisions; the
//! models' evaluation on communicator sizes held out of training last.

use crate::bench::stats::Speedup;
use crate::data::{Candidate, Collective};
use crate::report::shipped_plots::{shipped_speedups, Pictures};
use crate::select::decision::DecisionTable;
use crate::select::validation::{self, Validation, Verdict};
use crate::units::format_bytes;
use std::fmt::Write;
use std::path::Path;

/// One collective's part of the report.
pub struct TunedReport<'a> {
    pub collective: Collective,
    pub explored: Explored<'a>,
    /// What it ships; `None`: nothing of it was measured.
    pub shipping: Option<Shipping<'a>>,
}

/// What a tune decided and ships for one collective.
pub struct Shipping<'a> {
    /// The file the decisions went into.
    pub shipped: Shipped<'a>,
    /// The decisions as shipped (reverted switches are `default`).
    pub tables: &'a [DecisionTable],
    /// `tables` as `predict` prints them.
    pub decisions: &'a str,
    /// This collective's validated switches.
    pub validations: &'a [Validation],
    /// The switches reverted to `default`: (procs, size, candidate, why).
    pub reverted: &'a [(u32, u64, Candidate, Verdict)],
    /// The held-out evaluation's markdown, or why there is none.
    pub held_out: Result<&'a str, &'a str>,
    /// Its pictures, relative to the report's directory.
    pub pictures: Pictures,
}

impl Shipping<'_> {
    /// Whether the rules switch from the library's choice anywhere: a kept
    /// switch, and under MPICH the collective's part of the file the tune's.
    pub fn switches(&self) -> bool {
        let taken = match self.shipped {
            Shipped::Mpich { taken, .. } => taken,
            Shipped::OpenMpi { .. } => true,
        };
        taken && self.validations.iter().any(Validation::kept)
    }
}

/// What a tune measured of one collective.
#[derive(Clone, Copy, Debug)]
pub struct Explored<'a> {
    /// Per communicator size, largest first.
    pub covered: &'a [Covered],
    /// About how many seconds a whole first pass of the collective takes
    /// on this job, from what the run measured.
    pub first_pass_seconds: Option<f64>,
    /// The exploring share of the run's budget (seconds), all collectives'.
    pub explore_seconds: f64,
}

/// One collective at one communicator size: what a tune measured (see
/// `tune::coverage` for the first pass and its base points).
#[derive(Clone, Debug, PartialEq)]
pub struct Covered {
    pub procs: u32,
    pub sizes: usize,
    /// Candidates per message size measured, fewest and most, of `grid`
    /// (the most the grid has at a size).
    pub measured: (usize, usize),
    pub grid: usize,
    /// Base points measured, of `base` (every size together).
    pub base_measured: usize,
    pub base: usize,
    /// The largest message size up to which every base point is measured
    /// (`None`: not even the smallest size).
    pub explored_to: Option<u64>,
}

impl Covered {
    /// Every base point measured: each algorithm at every message size.
    pub fn explored(&self) -> bool {
        self.base_measured == self.base
    }

    /// Whether the first pass stopped part of the way through this size
    /// (every algorithm measured up to some message size).
    fn partly(&self) -> bool {
        !self.explored() && self.explored_to.is_some()
    }
}

/// The communicator sizes where the first pass did not finish.
pub fn unexplored(covered: &[Covered]) -> Vec<u32> {
    covered
        .iter()
        .filter(|c| !c.explored())
        .map(|c| c.procs)
        .collect()
}

/// Communicator sizes for people: `16, 8 and 4`.
fn ranks_list(procs: &[u32]) -> String {
    let names: Vec<String> = procs.iter().map(u32::to_string).collect();
    match names.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => names.join(""),
    }
}

/// Seconds to the nearest 5 (above a minute: to the next minute), for
/// people reading an estimate.
pub fn about(seconds: f64) -> String {
    match seconds {
        s if s < 60.0 => format!("{:.0} s", (s / 5.0).ceil().max(1.0) * 5.0),
        s => format!("{:.0} min", (s / 60.0).ceil()),
    }
}

/// The coverage section: per communicator size what was measured, and
/// where the first pass did not finish, that the rules keep `default` there
/// for want of measurements.
fn coverage(collective: Collective, e: &Explored, validations: &[Validation]) -> String {
    let mut s = String::from(
        "### Coverage\n\nThe first pass measures every algorithm once (unsegmented, the \
         library's default fan-out) at every message size, the job's own communicator size \
         first, every collective before any gets other segment sizes or fan-outs. A size is \
         *explored* when the first pass finished there.\n\n\
         | ranks | message sizes | candidates measured per size | first pass | switches \
         validated | kept |\n|---:|---:|---|---|---:|---:|\n",
    );
    for c in e.covered {
        let mine = validations.iter().filter(|v| v.procs == c.procs);
        let validated = mine.clone().filter(|v| v.speedup.is_some()).count();
        let kept = mine.filter(|v| v.kept()).count();
        let measured = match c.measured {
            (a, b) if a == b => format!("{a} of {}", c.grid),
            (a, b) => format!("{a}–{b} of {}", c.grid),
        };
        let pass = match (c.explored(), c.explored_to) {
            (true, _) => format!("explored ({} points)", c.base),
            (false, Some(m)) => format!(
                "**not explored**: {} of {} points (every algorithm up to {})",
                c.base_measured,
                c.base,
                crate::units::format_bytes(m)
            ),
            (false, None) => format!("**not explored**: {} of {} points", c.base_measured, c.base),
        };
        let _ = writeln!(
            s,
            "| {} | {} | {measured} | {pass} | {validated} | {kept} |",
            c.procs, c.sizes
        );
    }
    let missing = unexplored(e.covered);
    if !missing.is_empty() {
        let _ = write!(
            s,
            "\n**Not explored at {} ranks: the budget ran out.** The rules keep `default` \
             there{} for want of measurements, not because it proved best.",
            ranks_list(&missing),
            match e.covered.iter().any(Covered::partly) {
                true => " (above the sizes the table says every algorithm was measured to)",
                false => "",
            }
        );
        if let Some(seconds) = e.first_pass_seconds {
            let _ = write!(
                s,
                " A whole first pass of {} takes at least about {} on this job (at the pace \
                 this run measured its points); this run had {:.0} s to explore, for every \
                 collective it tuned. The same command with a larger `--time-budget` resumes \
                 where this one stopped.",
                collective.function(),
                about(seconds),
                e.explore_seconds
            );
        }
        s.push('\n');
    }
    s.push('\n');
    s
}

/// Where a tune's decisions went.
pub enum Shipped<'a> {
    /// Open MPI's rules file (HAN's, `han.rules`, beside it).
    OpenMpi { rules: &'a Path },
    /// MPICH's selection file; `taken`: the collective's part in it is the
    /// tune's (else MPICH's own, and the collective stays with MPICH's
    /// device layer).
    Mpich { selection: &'a Path, taken: bool },
}

/// The collective's detail: what was measured, the validated effect with
/// its pictures, the switches reverted, the decisions.
pub fn markdown(t: &TunedReport) -> String {
    let function = t.collective.function();
    let suffix = t.collective.describe().file_suffix;
    let mut s = format!("## {function}\n\n");
    let Some(x) = &t.shipping else {
        s += "Nothing of it was measured before the budget ran out: the rules have no part \
              for it, and the library keeps its own choice.\n\n";
        return s + &coverage(t.collective, &t.explored, &[]);
    };
    let _ = write!(
        s,
        "Measurements: `data.csv`; model: `model{suffix}/`; validation: `validation.csv`. "
    );
    match x.shipped {
        Shipped::Mpich { selection, taken } => {
            s += &mpich_use(t.collective, x, selection, taken);
            s += &coverage(t.collective, &t.explored, x.validations);
            if taken {
                s += &validated(t, x);
            }
            let heading = match taken {
                true => "Decisions",
                false => "Decisions (not in the file: MPICH's own choice stays)",
            };
            let _ = writeln!(s, "### {heading}\n\n```\n{}```\n", x.decisions);
            return s;
        }
        Shipped::OpenMpi { .. } => {}
    }
    let _ = writeln!(
        s,
        "{}\n",
        match t.collective.describe().ompi.han {
            true => "Open MPI: `rules`, and `han.rules` where coll/han serves it.",
            false => "Open MPI: `rules` (coll/han does not serve it: tuned's rules decide).",
        }
    );
    s += &coverage(t.collective, &t.explored, x.validations);
    s += &validated(t, x);
    if !x.reverted.is_empty() {
        let _ = writeln!(
            s,
            "Switches the models chose that validation reverted to `default` (the rules keep \
             the library's choice there):\n"
        );
        for line in validation::describe_reverted(x.reverted) {
            let _ = writeln!(s, "- {line}");
        }
        s.push('\n');
    }
    let replaced = validation::describe_replaced(x.validations);
    if !replaced.is_empty() {
        let _ = writeln!(
            s,
            "Switches the models chose that did not hold, whose runner-up validation kept in \
             their place:\n"
        );
        for line in replaced {
            let _ = writeln!(s, "- {line}");
        }
        s.push('\n');
    }
    let _ = writeln!(s, "### Decisions\n\n```\n{}```\n", x.decisions);
    s
}

/// The validated effect: its table, then the pictures of what ships.
fn validated(t: &TunedReport, x: &Shipping) -> String {
    let mut s = format!(
        "### Validated effect\n\n{}",
        effect(x.tables, x.validations, &unexplored(t.explored.covered))
    );
    let function = t.collective.function();
    for (picture, what) in [
        (
            &x.pictures.speedup,
            "speed-up of the rules over `default` per message size",
        ),
        (
            &x.pictures.decisions,
            "what the rules ship per communicator and message size",
        ),
    ] {
        if let Some(path) = picture {
            let _ = write!(s, "\n![{function}: {what}]({})\n", link(path));
        }
    }
    s + "\n"
}

/// A relative path as a Markdown link target: `/`-separated, spaces
/// escaped.
pub fn link(path: &Path) -> String {
    let parts: Vec<String> = path
        .components()
        .map(|c| c.as_os_str().to_string_lossy().replace(' ', "%20"))
        .collect();
    parts.join("/")
}

/// The appendix's part for one collective: the models on communicator
/// sizes held out of training, its headings below the appendix's; or why
/// there is none (`None`: nothing of it was measured).
pub fn held_out(t: &TunedReport) -> Option<Result<String, String>> {
    let x = t.shipping.as_ref()?;
    let suffix = t.collective.describe().file_suffix;
    Some(match x.held_out {
        Ok(text) => Ok(format!(
            "### {} (plots in `plots{suffix}/`)\n\n{}\n",
            t.collective.function(),
            demote(text, 3)
        )),
        Err(why) => Err(why.to_string()),
    })
}

/// `text` with every Markdown heading `levels` deeper.
fn demote(text: &str, levels: usize) -> String {
    let deeper = "#".repeat(levels);
    text.lines()
        .map(|l| match l.starts_with('#') {
            true => format!("{deeper}{l}\n"),
            false => format!("{l}\n"),
        })
        .collect()
}

/// How to use MPICH's selection file for the collective, and its validated
/// effect. MPICH consults the file only for a collective taken from its
/// device layer, and then at every size: the collective's part is the
/// tune's where no decided algorithm proved slower than MPICH's own choice
/// and at least one proved faster ([`takes_selection`]).
fn mpich_use(collective: Collective, x: &Shipping, selection: &Path, taken: bool) -> String {
    let function = collective.function();
    let upper = collective.name().to_ascii_uppercase();
    let mut s = format!(
        "MPICH selection file: `{}`.\n\n",
        selection
            .file_name()
            .map_or(selection.display().to_string(), |n| n
                .to_string_lossy()
                .into_owned())
    );
    if taken {
        let _ = write!(
            s,
            "{function} runs the tuned decisions where MPICH has \
             `MPIR_CVAR_{upper}_DEVICE_COLLECTIVE=0` besides the file (the summary's Deploy \
             block). MPICH's own choice is its device layer's, which the file cannot name: it \
             holds one of MPICH's algorithms at every size, none of which proved slower than \
             that choice.\n\n"
        );
    } else {
        let slower = x
            .validations
            .iter()
            .filter(|v| v.verdict() == Verdict::Slower)
            .count();
        let kept = x.validations.iter().filter(|v| v.kept()).count();
        let _ = write!(
            s,
            "{function} stays with MPICH's own choice (its device layer), and the file keeps \
             MPICH's own part for it: MPICH would consult the file for {function} at every \
             size, and of the {} sizes validated against its own choice, {kept} proved faster \
             and {slower} slower (the others within noise or unmeasured).\n\n",
            x.validations.len()
        );
    }
    s
}

/// Whether MPICH's selection file should take a collective from its device
/// layer, by the validation of its decisions: at least one faster than
/// MPICH's own choice and none slower or unmeasured.
pub fn takes_selection(validations: &[Validation]) -> bool {
    validations.iter().any(Validation::kept)
        && validations.iter().all(|v| {
            matches!(
                v.verdict(),
                Verdict::Kept | Verdict::WithinNoise | Verdict::Unsteady
            )
        })
}

/// Per job size, the speed-up of what the rules ship over `default`,
/// measured on fresh samples: the geometric mean over the tuned message
/// sizes, a kept switch counting with its validated speed-up and every
/// other size as exactly 1 (the rules leave `default` there).
/// `unexplored`: communicator sizes where the first pass did not finish
/// (their rules keep `default` for want of measurements).
fn effect(tables: &[DecisionTable], validations: &[Validation], unexplored: &[u32]) -> String {
    let mut t = format!(
        "`default`'s time over the time of what the rules ship, each switch from `default` \
         timed against it in paired rounds of fresh samples (not the measurements that chose \
         it), with the Open MPI rules file's lookup on each call ({:.0} ns) added to the \
         switch's time, 95% intervals; sizes where the rules keep `default` count as 1. A \
         switch ships only when its whole interval is above 1 and it is at least 5% faster \
         overall and in each state of the allocator its replicas took turns in.\n\n\
         | ranks | sizes | switched | kept | effect (95% interval) | largest kept |\n\
         |---:|---:|---:|---:|---|---|\n",
        crate::select::validation::TUNED_LOOKUP_US * 1e3
    );
    let mut all = Vec::new();
    let mut noise = Vec::new();
    for table in tables {
        let procs = table.job.procs;
        let mine: Vec<&Validation> = validations.iter().filter(|v| v.procs == procs).collect();
        let parts: Vec<Speedup> = shipped_speedups(table, validations)
            .into_iter()
            .map(|(_, x)| x)
            .collect();
        all.extend(parts.iter().copied());
        let kept: Vec<&&Validation> = mine.iter().filter(|v| v.kept()).collect();
        let largest = kept
            .iter()
            .filter_map(|v| v.speedup.map(|s| (s.speedup, v.msg_bytes)))
            .max_by(|a, b| a.0.total_cmp(&b.0))
            .map_or("-".to_string(), |(x, m)| {
                format!("{x:.2}x at {}", format_bytes(m))
            });
        let Some(g) = Speedup::geomean(&parts) else {
            continue;
        };
        if !kept.is_empty() && g.within_noise() {
            noise.push(procs);
        }
        let shown = match unexplored.contains(&procs) && kept.is_empty() {
            true => "1 (not explored: the budget ran out)".to_string(),
            false => interval(&g, kept.is_empty()),
        };
        let _ = writeln!(
            t,
            "| {procs} | {} | {} | {} | {shown} | {largest} |",
            parts.len(),
            mine.len(),
            kept.len(),
        );
    }
    if let Some(g) = Speedup::geomean(&all) {
        let none_kept = validations.iter().all(|v| !v.kept());
        let shown = match unexplored.is_empty() || !none_kept {
            true => interval(&g, none_kept),
            false => "1 (nothing kept; not everywhere explored)".to_string(),
        };
        let _ = writeln!(
            t,
            "\nAll job sizes: {shown} over {} configurations.",
            all.len()
        );
    }
    if validations.iter().all(|v| !v.kept()) {
        let _ = writeln!(
            t,
            "\nNo switch proved faster than `default`: the rules leave the library's choice \
             everywhere{}.",
            match unexplored.is_empty() {
                true => String::new(),
                false => format!(
                    " (where the first pass did not finish, {} ranks, for want of measurements)",
                    ranks_list(unexplored)
                ),
            }
        );
    } else if !noise.is_empty() {
        let list: Vec<String> = noise.iter().map(u32::to_string).collect();
        let _ = writeln!(
            t,
            "\nWithin noise on {} ranks: the interval holds 1, so the rules may change nothing \
             measurable there as a whole.",
            list.join(", ")
        );
    }
    t
}

fn interval(g: &Speedup, unchanged: bool) -> String {
    if unchanged {
        "1 (default everywhere)".into()
    } else {
        format!("{:.3} ({:.3}–{:.3})", g.speedup, g.low, g.high)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::{Algorithm, Impl};

    fn validation(msg_bytes: u64, speedup: f64, half: f64) -> Validation {
        Validation {
            collective: Collective::Allreduce,
            procs: 4,
            msg_bytes,
            decision: Candidate {
                algorithm: Algorithm::Ring,
                segsize: None,
                fanout: None,
                implementation: Impl::Mpich,
            },
            speedup: Some(Speedup {
                speedup,
                low: speedup - half,
                high: speedup + half,
                rounds: 5,
                replicas: 0,
                weakest: None,
                disturbed: None,
            }),
            times_us: Some((speedup, 1.0)),
            discovered: true,
            across_jobs: None,
        }
    }

    /// MPICH's file takes a collective from the device layer only where
    /// nothing validated slower and something faster.
    #[test]
    fn the_selection_file_takes_a_collective_only_on_evidence() {
        let faster = validation(1024, 1.5, 0.1);
        let even = validation(4, 1.01, 0.05);
        let slower = validation(1 << 20, 0.5, 0.1);
        let unmeasured = Validation {
            speedup: None,
            ..even.clone()
        };
        assert!(takes_selection(&[faster.clone(), even.clone()]));
        assert!(!takes_selection(&[faster.clone(), slower.clone()]));
        assert!(!takes_selection(&[faster.clone(), unmeasured]));
        assert!(!takes_selection(std::slice::from_ref(&even)));
        assert!(!takes_selection(&[]));

        let selection = Path::new("/tuned/mpich.json");
        let report = |taken, validations: &[Validation]| {
            markdown(&TunedReport {
                collective: Collective::Allreduce,
                explored: Explored {
                    covered: &[],
                    first_pass_seconds: None,
                    explore_seconds: 0.0,
                },
                shipping: Some(Shipping {
                    shipped: Shipped::Mpich { selection, taken },
                    tables: &[],
                    decisions: "",
                    validations,
                    reverted: &[],
                    held_out: Err("fewer than 3 communicator sizes"),
                    pictures: Pictures::default(),
                }),
            })
        };
        let taken = report(true, &[faster.clone(), even]);
        assert!(
            taken.contains("MPIR_CVAR_ALLREDUCE_DEVICE_COLLECTIVE=0"),
            "{taken}"
        );
        assert!(taken.contains("### Validated effect"), "{taken}");
        assert!(!taken.contains("OMPI_MCA"), "{taken}");
        let kept = report(false, &[faster, slower]);
        assert!(kept.contains("stays with MPICH's own choice"), "{kept}");
        assert!(kept.contains("1 proved faster and 1 slower"), "{kept}");
        assert!(!kept.contains("DEVICE_COLLECTIVE=0"), "{kept}");
        assert!(!kept.contains("Validated effect"), "{kept}");
    }

    /// Where the first pass did not finish, the report says so and what a
    /// first pass costs, never that `default` won there.
    #[test]
    fn sizes_not_explored_are_said_to_be() {
        let covered = [
            Covered {
                procs: 8,
                sizes: 12,
                measured: (7, 9),
                grid: 17,
                base_measured: 84,
                base: 84,
                explored_to: Some(4 << 20),
            },
            Covered {
                procs: 4,
                sizes: 12,
                measured: (0, 3),
                grid: 17,
                base_measured: 20,
                base: 84,
                explored_to: None,
            },
            Covered {
                procs: 2,
                sizes: 12,
                measured: (0, 7),
                grid: 17,
                base_measured: 35,
                base: 84,
                explored_to: Some(256),
            },
        ];
        let explored = Explored {
            covered: &covered,
            first_pass_seconds: Some(42.0),
            explore_seconds: 112.0,
        };
        assert_eq!(unexplored(&covered), [4, 2]);
        let text = coverage(Collective::Bcast, &explored, &[validation(1024, 1.5, 0.1)]);
        assert!(
            text.contains("| 8 | 12 | 7–9 of 17 | explored (84 points) | 0 | 0 |"),
            "{text}"
        );
        assert!(
            text.contains("| 4 | 12 | 0–3 of 17 | **not explored**: 20 of 84 points | 1 | 1 |"),
            "{text}"
        );
        assert!(
            text.contains("| 2 | 12 | 0–7 of 17 | **not explored**: 35 of 84 points (every algorithm up to 256 B) | 0 | 0 |"),
            "{text}"
        );
        assert!(
            text.contains("**Not explored at 4 and 2 ranks: the budget ran out.** The rules keep `default` there (above the sizes the table says every algorithm was measured to) for want"),
            "{text}"
        );
        assert!(text.contains("takes at least about 45 s"), "{text}");
        assert_eq!(about(12.0), "15 s");
        assert_eq!(about(0.2), "5 s");
        assert_eq!(about(130.0), "3 min");
    }
}
