//! `tune`'s report: how to use the rules, their validated effect per job
//! size, the switches validation reverted, the decisions, the selectors on
//! communicator sizes held out of training, and the `verify` command that
//! checks the rules in the user's own job.

use crate::bench::stats::Speedup;
use crate::data::{Candidate, Collective};
use crate::select::decision::DecisionTable;
use crate::select::validation::{self, Validation, Verdict};
use crate::units::format_bytes;
use std::fmt::Write;
use std::path::Path;

/// One collective's part of the report.
pub struct Tuned<'a> {
    pub collective: Collective,
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

pub fn markdown(t: &Tuned) -> String {
    let mut s = String::new();
    let suffix = t.collective.describe().file_suffix;
    let function = t.collective.function();
    let _ = write!(
        s,
        "# bcast-select tune: {function}\n\nMeasurements: `data.csv`; model: `model{suffix}/`; \
         validation: `validation.csv`; "
    );
    let rules = match t.shipped {
        Shipped::OpenMpi { rules } => rules,
        Shipped::Mpich { selection, taken } => {
            s += &mpich_use(t, selection, taken);
            let heading = match taken {
                true => "Decisions",
                false => "Decisions (not in the file: MPICH's own choice stays)",
            };
            let _ = writeln!(s, "## {heading}\n\n```\n{}```\n", t.decisions);
            s += &held_out(t.held_out, suffix);
            return s;
        }
    };
    let han = rules.with_file_name("han.rules");
    let _ = write!(
        s,
        "Open MPI rules: `rules`, used with\n\n    \
         OMPI_MCA_coll_tuned_use_dynamic_rules=1 OMPI_MCA_coll_tuned_dynamic_rules_filename={}\n\n",
        rules.display(),
    );
    if t.collective.describe().ompi.han {
        let _ = write!(
            s,
            "and, with Open MPI 5 on jobs that span nodes (where coll/han serves {function}), \
             also `han.rules`:\n\n    OMPI_MCA_coll_han_use_dynamic_file_rules=1 \
             OMPI_MCA_coll_han_dynamic_rules_filename={}\n\n",
            han.display()
        );
    } else {
        let _ = writeln!(
            s,
            "(coll/han does not serve {function}: tuned's rules decide.)\n"
        );
    }
    let _ = writeln!(
        s,
        "## Validated effect\n\n{}",
        effect(t.tables, t.validations)
    );
    if !t.reverted.is_empty() {
        let _ = writeln!(
            s,
            "Switches the models chose that validation reverted to `default` (the rules keep \
             the library's choice there):\n"
        );
        for line in validation::describe_reverted(t.reverted) {
            let _ = writeln!(s, "- {line}");
        }
        s.push('\n');
    }
    let _ = writeln!(s, "## Decisions\n\n```\n{}```\n", t.decisions);
    s += &held_out(t.held_out, suffix);
    s
}

fn held_out(text: Result<&str, &str>, suffix: &str) -> String {
    match text {
        Ok(text) => format!(
            "## On communicator sizes held out of training (plots in `plots{suffix}/`)\n\n{text}"
        ),
        Err(why) => format!("No held-out evaluation: {why}.\n"),
    }
}

/// How to use MPICH's selection file for the collective, and its validated
/// effect. MPICH consults the file only for a collective taken from its
/// device layer, and then at every size: the collective's part is the
/// tune's where no decided algorithm proved slower than MPICH's own choice
/// and at least one proved faster ([`takes_selection`]).
fn mpich_use(t: &Tuned, selection: &Path, taken: bool) -> String {
    let function = t.collective.function();
    let upper = t.collective.name().to_ascii_uppercase();
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
            "{function} runs the tuned decisions with\n\n    \
             MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE={} MPIR_CVAR_DEVICE_COLLECTIVES=percoll \
             MPIR_CVAR_{upper}_DEVICE_COLLECTIVE=0\n\n(with several collectives tuned, one \
             `..._DEVICE_COLLECTIVE=0` for each collective whose part is the tune's). MPICH's own \
             choice is its device layer's, which the file cannot name: it holds one of MPICH's \
             algorithms at every size, none of which proved slower than that choice.\n\n",
            absolute(selection).display()
        );
        let _ = writeln!(
            s,
            "## Validated effect\n\n{}",
            effect(t.tables, t.validations)
        );
    } else {
        let slower = t
            .validations
            .iter()
            .filter(|v| v.verdict() == Verdict::Slower)
            .count();
        let kept = t.validations.iter().filter(|v| v.kept()).count();
        let _ = write!(
            s,
            "{function} stays with MPICH's own choice (its device layer), and the file keeps \
             MPICH's own part for it: MPICH would consult the file for {function} at every \
             size, and of the {} sizes validated against its own choice, {kept} proved faster \
             and {slower} slower (the others within noise or unmeasured).\n\n",
            t.validations.len()
        );
    }
    s
}

/// Whether MPICH's selection file should take a collective from its device
/// layer, by the validation of its decisions: at least one faster than
/// MPICH's own choice and none slower or unmeasured.
pub fn takes_selection(validations: &[Validation]) -> bool {
    validations.iter().any(Validation::kept)
        && validations
            .iter()
            .all(|v| matches!(v.verdict(), Verdict::Kept | Verdict::WithinNoise))
}

/// Per job size, the speed-up of what the rules ship over `default`,
/// measured on fresh samples: the geometric mean over the tuned message
/// sizes, a kept switch counting with its validated speed-up and every
/// other size as exactly 1 (the rules leave `default` there).
fn effect(tables: &[DecisionTable], validations: &[Validation]) -> String {
    let mut t = String::from(
        "`default`'s time over the time of what the rules ship, each switch from `default` \
         timed against it in paired rounds of fresh samples (not the measurements that chose \
         it), 95% intervals; sizes where the rules keep `default` count as 1. A switch ships \
         only when its whole interval is above 1 and it is at least 5% faster.\n\n\
         | ranks | sizes | switched | kept | effect (95% interval) | largest kept |\n\
         |---:|---:|---:|---:|---|---|\n",
    );
    let mut all = Vec::new();
    let mut noise = Vec::new();
    for table in tables {
        let procs = table.job.procs;
        let mine: Vec<&Validation> = validations.iter().filter(|v| v.procs == procs).collect();
        let parts: Vec<Speedup> = table
            .decisions
            .iter()
            .map(|d| {
                mine.iter()
                    .find(|v| v.msg_bytes == d.msg_bytes && v.decision == d.choice.candidate)
                    .map_or(Speedup::UNCHANGED, |v| v.shipped())
            })
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
        let _ = writeln!(
            t,
            "| {procs} | {} | {} | {} | {} | {largest} |",
            parts.len(),
            mine.len(),
            kept.len(),
            interval(&g, kept.is_empty()),
        );
    }
    if let Some(g) = Speedup::geomean(&all) {
        let _ = writeln!(
            t,
            "\nAll job sizes: {} over {} configurations.",
            interval(&g, validations.iter().all(|v| !v.kept())),
            all.len()
        );
    }
    if validations.iter().all(|v| !v.kept()) {
        let _ = writeln!(
            t,
            "\nNo switch proved faster than `default`: the rules leave the library's choice \
             everywhere."
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

/// The closing section: the `verify` command that times these rules
/// against the library's own choice in the user's job.
pub fn verify_command(
    dir: &Path,
    collectives: &[Collective],
    sizes: &[u64],
    procs: &[u32],
) -> String {
    let names: Vec<&str> = collectives.iter().map(|c| c.name()).collect();
    let procs_list: Vec<String> = procs.iter().map(u32::to_string).collect();
    let largest = procs.iter().copied().max().unwrap_or(2);
    let sizes_list: Vec<String> = sizes.iter().map(u64::to_string).collect();
    let rules = dir.join("rules");
    let han = dir.join("han.rules");
    format!(
        "\n\n## Check the rules in your job\n\nRun `verify` under the launcher and in the \
         environment the application uses: it checks that Open MPI reads the files and times \
         each collective through them against the library's own choice:\n\n    \
         mpirun -n {largest} --mca coll_tuned_use_dynamic_rules 1 --mca \
         coll_tuned_dynamic_rules_filename {} bcast-select verify --collectives {} --sizes {} \
         --procs {}\n\nWith Open MPI 5 across nodes add `--mca coll_han_use_dynamic_file_rules 1 \
         --mca coll_han_dynamic_rules_filename {}`.\n",
        absolute(&rules).display(),
        names.join(","),
        sizes_list.join(","),
        procs_list.join(","),
        absolute(&han).display(),
    )
}

/// The closing section under MPICH: the `verify` command that times the
/// selection file against MPICH's own choice for the collectives it took
/// from the device layer.
pub fn mpich_verify_command(
    selection: &Path,
    taken: &[Collective],
    sizes: &[u64],
    procs: &[u32],
) -> String {
    if taken.is_empty() {
        return "\n\n## Check in your job\n\nNo collective's part of `mpich.json` is the tune's: \
                MPICH's own choice stays for every collective tuned, and there is nothing to \
                verify.\n"
            .into();
    }
    let names: Vec<&str> = taken.iter().map(|c| c.name()).collect();
    let device: Vec<String> = taken
        .iter()
        .map(|c| {
            format!(
                "-env MPIR_CVAR_{}_DEVICE_COLLECTIVE 0",
                c.name().to_ascii_uppercase()
            )
        })
        .collect();
    let procs_list: Vec<String> = procs.iter().map(u32::to_string).collect();
    let sizes_list: Vec<String> = sizes.iter().map(u64::to_string).collect();
    let largest = procs.iter().copied().max().unwrap_or(2);
    format!(
        "\n\n## Check the selection file in your job\n\nRun `verify` under the launcher and in \
         the environment the application uses: it checks that MPICH consults the file for \
         the collectives tuned and times each through it against MPICH's own choice:\n\n    \
         mpiexec -n {largest} -env MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE {} {} \
         bcast-select verify --collectives {} --sizes {} --procs {}\n",
        absolute(selection).display(),
        device.join(" "),
        names.join(","),
        sizes_list.join(","),
        procs_list.join(","),
    )
}

/// Open MPI resolves a relative rules path against each rank's directory:
/// the command names the file absolutely.
fn absolute(path: &Path) -> std::path::PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
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
            }),
            times_us: Some((speedup, 1.0)),
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
            markdown(&Tuned {
                collective: Collective::Allreduce,
                shipped: Shipped::Mpich { selection, taken },
                tables: &[],
                decisions: "",
                validations,
                reverted: &[],
                held_out: Err("fewer than 3 communicator sizes"),
            })
        };
        let taken = report(true, &[faster.clone(), even]);
        assert!(
            taken.contains("MPIR_CVAR_ALLREDUCE_DEVICE_COLLECTIVE=0"),
            "{taken}"
        );
        assert!(taken.contains("MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE=/tuned/mpich.json"));
        assert!(taken.contains("## Validated effect"), "{taken}");
        assert!(!taken.contains("OMPI_MCA"), "{taken}");
        let kept = report(false, &[faster, slower]);
        assert!(kept.contains("stays with MPICH's own choice"), "{kept}");
        assert!(kept.contains("1 proved faster and 1 slower"), "{kept}");
        assert!(!kept.contains("DEVICE_COLLECTIVE=0"), "{kept}");
    }
}
