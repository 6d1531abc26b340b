//! `collsel verify`: whether the rules files an MPI job names are in
//! effect, and what they change, measured in the job itself.
//!
//! Open MPI reads its rules files at start-up and says nothing when it
//! cannot: a file named without `coll_tuned_use_dynamic_rules`, a missing
//! file, a malformed one all leave the library's own choice in place. So
//! `verify` reads the variables through the MPI tool interface, reads each
//! file as the running Open MPI reads it ([`files`]), and then times each
//! collective on the job's communicator against the library's own choice
//! without the rules, and against the rule's algorithm itself: where a rule
//! changes the algorithm, the job's collective should time like the rule.
//! This module holds what needs no MPI: the environment's verdict, what the
//! files decide, and the results' rendering; `job` starts the MPI session
//! and `run` (Open MPI) or `mpich_run` (MPICH) measures.

pub mod confirm;
#[cfg(feature = "mpi")]
mod confirm_run;
pub mod files;
#[cfg(feature = "mpi")]
mod job;
#[cfg(feature = "mpi")]
mod mpich_run;
#[cfg(feature = "mpi")]
mod run;
#[cfg(feature = "mpi")]
pub use job::verify;

use crate::bench::stats::Speedup;
use crate::data::{Algorithm, Candidate, Collective, Impl};
use crate::units::format_bytes;
use files::{HanRules, TunedRules};
use serde::Serialize;

/// What `verify` is asked to do.
#[derive(Clone, Debug)]
pub struct VerifyOptions {
    pub collectives: Vec<Collective>,
    pub sizes: Vec<u64>,
    /// Communicator sizes; `None`: the whole job.
    pub procs: Option<Vec<u32>>,
    pub mapping: crate::data::Mapping,
    pub json: bool,
    /// Where each collective's rows are appended as JSON lines as soon as
    /// it is timed.
    pub out: Option<std::path::PathBuf>,
    /// For all the timing together.
    pub seconds: f64,
    /// Exactly this many rounds per size; `None`: until the interval is
    /// narrow or the size's share of `seconds` runs out.
    pub rounds: Option<usize>,
    /// Confirm a rules file in this job instead (the other fields but
    /// `seconds` unused).
    pub confirm: Option<confirm::Confirm>,
}

/// What the job's MPI library says of its rules, read through the tool
/// interface.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Environment {
    /// The library's version string (its first line).
    pub library: String,
    /// Open MPI's version, or `None` for another library.
    pub version: Option<(u32, u32, u32)>,
    /// coll/tuned: `coll_tuned_use_dynamic_rules` and its file.
    pub tuned_rules: bool,
    pub tuned_file: String,
    pub tuned_priority: i32,
    /// coll/han, where this Open MPI has it.
    pub han: Option<Han>,
    /// The `coll` variable (components kept or left out).
    pub coll: String,
}

/// coll/han's variables.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Han {
    pub rules: bool,
    pub file: String,
    pub priority: i32,
}

/// The files in effect, as the library holds them.
#[derive(Clone, Debug, Default)]
pub struct InEffect {
    pub tuned: Option<(String, TunedRules)>,
    pub han: Option<(String, HanRules)>,
}

/// What MPICH says of its selection file and of which collectives consult
/// it (read through the tool interface and the rank's environment).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MpichEnvironment {
    pub library: String,
    /// `MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE`.
    pub selection_file: String,
    /// `MPIR_CVAR_DEVICE_COLLECTIVES` (`all` where unset).
    pub device_collectives: String,
    /// Each collective checked and its `MPIR_CVAR_<COLL>_DEVICE_COLLECTIVE`.
    pub device: Vec<(Collective, bool)>,
}

impl MpichEnvironment {
    /// Whether MPICH consults the selection file for each collective
    /// checked, as one line per collective that it does not, and why (the
    /// comparison needs the device layer's choice too: `percoll`).
    pub fn in_effect(&self) -> Result<(), String> {
        if self.selection_file.trim().is_empty() {
            return Err("no MPICH selection file is named \
                 (MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE): MPICH runs its own selection"
                .into());
        }
        let off: Vec<String> = self
            .device
            .iter()
            .filter(|(_, device)| *device)
            .map(|(c, _)| {
                format!(
                    "MPIR_CVAR_{}_DEVICE_COLLECTIVE=0",
                    c.name().to_ascii_uppercase()
                )
            })
            .collect();
        match self.device_collectives.as_str() {
            "percoll" if off.is_empty() => Ok(()),
            "percoll" => Err(format!(
                "MPICH leaves these collectives to its device layer, which does not consult the \
                 selection file: set {}",
                off.join(" ")
            )),
            "none" => Err(
                "MPIR_CVAR_DEVICE_COLLECTIVES=none: every collective consults the \
                 file, and MPICH's own choice (its device layer's) cannot be timed beside it; \
                 verify with MPIR_CVAR_DEVICE_COLLECTIVES=percoll and \
                 MPIR_CVAR_<COLL>_DEVICE_COLLECTIVE=0 for the collectives tuned"
                    .into(),
            ),
            other => Err(format!(
                "MPIR_CVAR_DEVICE_COLLECTIVES={other}: MPICH's device layer takes every \
                 collective and the selection file is not consulted; set \
                 MPIR_CVAR_DEVICE_COLLECTIVES=percoll {}",
                off.join(" ")
            )),
        }
    }
}

/// The Open MPI version in a version string (`Open MPI v4.1.4, package:
/// ...`); `None` for another library.
pub fn ompi_version(text: &str) -> Option<(u32, u32, u32)> {
    let at = text.find("Open MPI v")? + "Open MPI v".len();
    let numbers: Vec<u32> = text[at..]
        .split(|c: char| !c.is_ascii_digit())
        .take(3)
        .map(|n| n.parse().unwrap_or(0))
        .collect();
    match numbers[..] {
        [a, b, c] => Some((a, b, c)),
        [a, b] => Some((a, b, 0)),
        _ => None,
    }
}

impl Environment {
    fn major(&self) -> u32 {
        self.version.map_or(0, |v| v.0)
    }

    /// Whether coll/han takes collectives on a communicator that spans
    /// nodes: loaded, not left out by `coll`, above tuned in priority.
    pub fn han_serves(&self) -> bool {
        self.han.as_ref().is_some_and(|h| {
            h.priority > self.tuned_priority && !crate::bench::left_out("han", &self.coll)
        })
    }

    /// Whether the library can switch coll/tuned's rules off for one
    /// communicator (Open MPI 5.0 and later): the baseline is then the
    /// library itself.
    pub fn switchable(&self) -> bool {
        self.major() >= 5
    }

    /// Reads the files the environment names, as this library reads them,
    /// with `read` (a path's bytes). Every way a named file is not in
    /// effect is an error of one line naming the variable or the file.
    pub fn load(
        &self,
        read: impl Fn(&str) -> std::io::Result<Vec<u8>>,
    ) -> Result<InEffect, String> {
        let Some((major, minor, release)) = self.version else {
            return Err(format!(
                "verify checks Open MPI's rules files; this MPI is {:?}",
                self.library
            ));
        };
        let named = |file: &str| !file.trim().is_empty();
        let mut loaded = InEffect::default();
        if named(&self.tuned_file) && !self.tuned_rules {
            return Err(format!(
                "coll_tuned_dynamic_rules_filename names {} but coll_tuned_use_dynamic_rules is \
                 0: Open MPI ignores the file (add --mca coll_tuned_use_dynamic_rules 1)",
                self.tuned_file
            ));
        }
        if self.tuned_rules && named(&self.tuned_file) {
            let file = &self.tuned_file;
            let text = read(file).map_err(|e| format!("cannot read {file}: {e}"))?;
            let header = files::reads_version_header(major, minor, release);
            let rules = files::read_tuned(&text, header).map_err(|e| {
                format!("{file}: {e}: Open MPI {major}.{minor}.{release} ignores the whole file")
            })?;
            if let Some(problem) = rules.problems(major).first() {
                return Err(format!("{file}: {problem}"));
            }
            loaded.tuned = Some((file.clone(), rules));
        }
        if let Some(han) = &self.han {
            if named(&han.file) && !han.rules {
                return Err(format!(
                    "coll_han_dynamic_rules_filename names {} but coll_han_use_dynamic_file_rules \
                     is 0: HAN ignores the file (add --mca coll_han_use_dynamic_file_rules 1)",
                    han.file
                ));
            }
            if han.rules && named(&han.file) {
                let file = &han.file;
                let text = read(file).map_err(|e| format!("cannot read {file}: {e}"))?;
                let rules = files::read_han(&text)
                    .map_err(|e| format!("{file}: {e}: HAN ignores the whole file"))?;
                loaded.han = Some((file.clone(), rules));
            }
        }
        if loaded.tuned.is_none() && loaded.han.is_none() {
            return Err(
                "no rules file is in effect: coll_tuned_dynamic_rules_filename is empty (run with \
                 --mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_dynamic_rules_filename FILE)"
                    .into(),
            );
        }
        Ok(loaded)
    }
}

/// What serves a collective at one size, and what the rules decide there.
#[derive(Clone, Debug, PartialEq)]
pub struct Expected {
    /// The component that takes the call: `tuned`, or `han` and where
    /// HAN's file sends it (`han -> tuned`).
    pub served_by: String,
    /// The algorithm a rule forces; `None`: the library's own choice.
    pub rule: Option<Candidate>,
}

impl InEffect {
    /// What the files decide for `collective` on `procs` ranks at
    /// `msg_bytes`, on a communicator over `nodes` nodes.
    pub fn expected(
        &self,
        env: &Environment,
        collective: Collective,
        procs: u32,
        nodes: u32,
        msg_bytes: u64,
    ) -> Expected {
        let id = u64::from(crate::export::coll_id(collective));
        let tuned = || {
            self.tuned
                .as_ref()
                .and_then(|(_, r)| {
                    let bytes = crate::export::tuned_bytes(collective, procs, msg_bytes);
                    r.lookup(id, u64::from(procs), bytes)
                })
                .and_then(|r| candidate(collective, r))
        };
        if nodes > 1 && env.han_serves() {
            let route = self
                .han
                .as_ref()
                .and_then(|(_, h)| h.lookup(id, u64::from(procs), msg_bytes))
                .map(|r| r.component.clone());
            return match route.as_deref() {
                Some("tuned") => Expected {
                    served_by: "han -> tuned".into(),
                    rule: Some(tuned().unwrap_or(TUNED)),
                },
                Some("han") | None => Expected {
                    served_by: "han".into(),
                    rule: None,
                },
                Some(other) => Expected {
                    served_by: format!("han -> {other}"),
                    rule: None,
                },
            };
        }
        Expected {
            served_by: "tuned".into(),
            rule: tuned(),
        }
    }
}

/// Tuned's own decision, where HAN's file hands a call to tuned without a
/// rule of tuned's.
const TUNED: Candidate = Candidate {
    algorithm: Algorithm::Tuned,
    segsize: None,
    fanout: None,
    implementation: Impl::Ompi,
};

/// The candidate a tuned rule forces; `None` for algorithm 0 (the
/// library's own decision) or one this tool does not know.
fn candidate(collective: Collective, rule: &files::TunedRule) -> Option<Candidate> {
    let algorithm = collective.ompi_algorithm(u8::try_from(rule.alg).ok()?)?;
    if algorithm == Algorithm::Default {
        return None;
    }
    Some(Candidate {
        algorithm,
        segsize: (rule.segsize > 0).then_some(rule.segsize),
        fanout: (algorithm == Algorithm::Chain).then_some(rule.faninout.max(1) as u32),
        implementation: Impl::Ompi,
    })
}

/// Whether the job's collective timed like the rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Seen {
    /// Closer to the rule's algorithm than to the library's own choice.
    Yes,
    /// Closer to the library's own choice.
    No,
    /// The rule's algorithm and the library's choice time alike here.
    Unclear,
}

/// One collective at one size: the rules against the library's choice.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Row {
    pub collective: &'static str,
    pub procs: u32,
    pub msg_bytes: u64,
    /// The component serving the call (`tuned`, `han`, `han -> tuned`).
    pub served_by: String,
    /// What the rules decide (`default`: the library's own choice).
    pub decision: String,
    /// The library's own choice's time over the time through the rules.
    pub speedup: f64,
    pub low: f64,
    pub high: f64,
    pub rounds: usize,
    /// The library's own choice's time over the rule's algorithm's, where
    /// a rule forces one.
    pub rule_speedup: Option<f64>,
    pub rules_seen: Option<Seen>,
}

/// Judges whether the job's collective times like the rule: `rule` is the
/// baseline's time over the rule's algorithm's, `job` the baseline's over
/// the job's call.
pub fn seen(job: &Speedup, rule: &Speedup) -> Seen {
    // The job's own interval may hold both references (a noisy size): then
    // timing cannot tell which one the job ran.
    let like_library = job.within_noise();
    let like_rule = job.low <= rule.high && rule.low <= job.high;
    if rule.within_noise() || (like_library && like_rule) {
        return Seen::Unclear;
    }
    // Distances in ln(time) from the job's time to each reference.
    let to_rule = (job.speedup / rule.speedup).ln().abs();
    let to_library = job.speedup.ln().abs();
    if to_rule < to_library {
        Seen::Yes
    } else {
        Seen::No
    }
}

impl Row {
    pub fn new(
        collective: Collective,
        procs: u32,
        msg_bytes: u64,
        expected: &Expected,
        job: Speedup,
        rule: Option<Speedup>,
    ) -> Row {
        Row {
            collective: collective.name(),
            procs,
            msg_bytes,
            served_by: expected.served_by.clone(),
            decision: expected
                .rule
                .map_or_else(|| "default".to_string(), |c| c.to_string()),
            speedup: job.speedup,
            low: job.low,
            high: job.high,
            rounds: job.rounds,
            rule_speedup: rule.map(|r| r.speedup),
            rules_seen: rule.map(|r| seen(&job, &r)),
        }
    }
}

/// The rows as a table for people.
pub fn table(rows: &[Row]) -> String {
    let layout = Layout::of(rows);
    let mut t = layout.header();
    rows.iter().for_each(|r| t += &layout.line(r));
    t
}

/// The table's column widths, taken from every row it will hold, so that
/// rows printed as each collective is timed line up under one header.
#[derive(Clone, Copy, Debug)]
pub struct Layout {
    named: usize,
    served: usize,
    decided: usize,
}

impl Layout {
    /// Wide enough for every one of `rows` (their timings do not matter).
    pub fn of(rows: &[Row]) -> Layout {
        let widest = |least: usize, width: &dyn Fn(&Row) -> usize| {
            rows.iter().map(width).fold(least, usize::max)
        };
        Layout {
            named: widest("collective".len().max(12), &|r| r.collective.len()),
            served: widest("served by".len().max(13), &|r| r.served_by.len()),
            decided: widest("rules' decision".len().max(25), &|r| r.decision.len()),
        }
    }

    pub fn header(&self) -> String {
        let Layout {
            named,
            served,
            decided,
        } = *self;
        format!(
            "{:<named$} ranks  size      {:<served$}  {:<decided$}  speed-up  95% interval    \
             rules seen\n",
            "collective", "served by", "rules' decision"
        )
    }

    /// One row, with its line end.
    pub fn line(&self, r: &Row) -> String {
        let Layout {
            named,
            served,
            decided,
        } = *self;
        let seen = match (r.rules_seen, r.rule_speedup) {
            (Some(Seen::Yes), Some(x)) => format!("yes (the rule alone: {})", figure(x)),
            (Some(Seen::No), Some(x)) => format!("NO (the rule alone: {})", figure(x)),
            (Some(Seen::Unclear), _) => "cannot tell (times like default)".into(),
            _ => "-".into(),
        };
        // Not timed: the rules leave the library's own call.
        let (speedup, interval, seen) = match r.rounds {
            0 => ("1".to_string(), "(same call)".to_string(), "-".to_string()),
            _ => (
                figure(r.speedup),
                format!("{}-{}", figure(r.low), figure(r.high)),
                seen,
            ),
        };
        format!(
            "{:<named$} {:>5}  {:<8}  {:<served$}  {:<decided$}  {speedup:>8}  {interval:<14}  {seen}\n",
            r.collective,
            r.procs,
            format_bytes(r.msg_bytes),
            r.served_by,
            r.decision,
        )
    }
}

/// A speed-up with three significant digits.
fn figure(x: f64) -> String {
    let digits = (2 - x.abs().log10().floor() as i32).clamp(0, 6) as usize;
    format!("{x:.digits$}")
}

/// The verdict on the timings: `Err` (one line) when every size where a
/// rule changes the algorithm, and the change can be told apart, timed
/// like the library's own choice instead.
pub fn timing_verdict(rows: &[Row]) -> Result<String, String> {
    let decisive: Vec<&Row> = rows
        .iter()
        .filter(|r| matches!(r.rules_seen, Some(Seen::Yes | Seen::No)))
        .collect();
    let yes = decisive
        .iter()
        .filter(|r| r.rules_seen == Some(Seen::Yes))
        .count();
    let switched = rows.iter().filter(|r| r.decision != "default").count();
    if !decisive.is_empty() && yes == 0 {
        let r = decisive[0];
        return Err(format!(
            "the rules are read but not applied: {} at {} on {} ranks times like the library's \
             own choice, not like {} (and so at every size where that can be told)",
            r.collective,
            format_bytes(r.msg_bytes),
            r.procs,
            r.decision
        ));
    }
    Ok(format!(
        "the rules change the algorithm at {switched} of {} sizes; where that can be told by \
         timing ({}), the collective timed like the rule at {yes}",
        rows.len(),
        decisive.len()
    ))
}

#[cfg(test)]
mod tests;
