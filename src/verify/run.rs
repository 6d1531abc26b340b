//! `verify` in the job: the variables through the MPI tool interface, the
//! files on every rank, then each collective and size timed three ways in
//! paired rounds: through the job's communicator (the rules), the library's
//! own choice without the rules (the baseline), and the rule's algorithm
//! alone where a rule forces one.

use super::{Environment, Expected, Han, InEffect, Row, VerifyOptions};
use crate::bench::compare::{Arm, Compared, Request, RoundLimits};
use crate::bench::stats::Speedup;
use crate::bench::topology::Detected;
use crate::bench::{self, control, Session};
use crate::data::{Algorithm, Candidate, Collective, Impl};
use crate::error::{Error, Result};
use crate::schedule::scheduled;

/// `verify` under Open MPI (rank 0 prints).
pub(super) fn checked(session: &Session, opts: &VerifyOptions) -> Result<()> {
    let rank0 = session.rank() == 0;
    let env = environment()?;
    // Every rank reads the files: a relative path resolves against each
    // rank's directory, and a node may lack the file.
    let loaded = env.load(|path| std::fs::read(path));
    match (session.first_failing(loaded.is_err()), loaded) {
        (_, Err(line)) if rank0 => Err(Error::NotInEffect(line)),
        (Some(rank), _) if rank0 => Err(Error::NotInEffect(format!(
            "rank {rank} cannot use the rules files rank 0 reads (a path relative to its \
             working directory, or a file its node lacks): give the files' absolute paths on a \
             shared filesystem"
        ))),
        (Some(_), _) | (None, Err(_)) => Err(Error::Reported(3)),
        (None, Ok(loaded)) => measure(session, opts, &env, &loaded),
    }
}

/// What the library's variables say (the same on every rank).
fn environment() -> Result<Environment> {
    let int = |name: &str| control::int_variable(name).map_err(Error::Other);
    let string = |name: &str| control::string_variable(name).map_err(Error::Other);
    let library = bench::library_version();
    let han = match int("coll_han_priority")? {
        Some(priority) => Some(Han {
            rules: int("coll_han_use_dynamic_file_rules")?.unwrap_or(0) != 0,
            file: string("coll_han_dynamic_rules_filename")?.unwrap_or_default(),
            priority,
        }),
        None => None,
    };
    Ok(Environment {
        version: super::ompi_version(&library),
        library,
        tuned_rules: int("coll_tuned_use_dynamic_rules")?.unwrap_or(0) != 0,
        tuned_file: string("coll_tuned_dynamic_rules_filename")?.unwrap_or_default(),
        tuned_priority: int("coll_tuned_priority")?.unwrap_or(0),
        han,
        coll: string("coll")?.unwrap_or_default(),
    })
}

/// One size to time: what the files decide there, and the arms.
pub(super) struct Planned {
    pub(super) procs: u32,
    pub(super) expected: Expected,
    /// What the rules decide, for the table, where it is not
    /// `expected.rule` (an MPICH algorithm that cannot be forced alone).
    pub(super) decision: Option<String>,
    pub(super) request: Request,
}

fn measure(
    session: &Session,
    opts: &VerifyOptions,
    env: &Environment,
    loaded: &InEffect,
) -> Result<()> {
    let rank0 = session.rank() == 0;
    let mut plans: Vec<(Collective, Vec<Planned>)> = Vec::new();
    for &collective in &opts.collectives {
        let mut planned = Vec::new();
        for (p, placed, m) in calls(session, opts, collective)? {
            let expected = loaded.expected(env, collective, p, placed.nodes, m);
            if let Some(arms) = arms(env, collective, p, m, &expected) {
                planned.push(Planned {
                    procs: p,
                    expected,
                    decision: None,
                    request: Request { msg_bytes: m, arms },
                });
            }
        }
        plans.push((collective, planned));
    }
    if rank0 {
        header(env, loaded, opts.json);
    }
    time_and_report(session, opts, &plans)
}

/// The calls of `collective` to check: each communicator size asked (with
/// where its ranks are) and message size, those that are not whole
/// elements left out with a note from rank 0.
pub(super) fn calls(
    session: &Session,
    opts: &VerifyOptions,
    collective: Collective,
) -> Result<Vec<(u32, Detected, u64)>> {
    let procs = opts.procs.clone().unwrap_or_else(|| vec![session.size()]);
    let element = collective.element_bytes();
    let sizes = collective.message_sizes(&opts.sizes);
    if session.rank() == 0 && collective.describe().semantics.sized {
        for m in opts.sizes.iter().filter(|m| !m.is_multiple_of(element)) {
            eprintln!(
                "verify: {} at {m} B left out: its messages are whole {element}-byte elements",
                collective.function(),
            );
        }
    }
    let mut calls = Vec::new();
    for &p in &procs {
        let placed = session.placement(p, opts.mapping).ok_or_else(|| {
            Error::Usage(format!(
                "communicator size {p} exceeds the job's {} ranks (--procs)",
                session.size()
            ))
        })?;
        for &m in &sizes {
            calls.push((p, placed, m));
        }
    }
    Ok(calls)
}

/// Times every planned size of every collective in paired rounds within
/// `opts.seconds`, then (rank 0) prints the rows and the verdict. Each
/// collective's rows are printed (table) and appended to `opts.out` as
/// soon as it is timed; a collective that fails (a wrong result on some
/// rank) is reported and the others still run.
pub(super) fn time_and_report(
    session: &Session,
    opts: &VerifyOptions,
    plans: &[(Collective, Vec<Planned>)],
) -> Result<()> {
    let rank0 = session.rank() == 0;
    // Every row's columns are known before any timing.
    let every: Vec<super::Row> = plans
        .iter()
        .flat_map(|(c, planned)| planned.iter().map(|p| row(*c, p, Speedup::UNCHANGED, None)))
        .collect();
    let mut out = Output::open(session, opts, super::Layout::of(&every))?;
    let total: usize = plans
        .iter()
        .flat_map(|(_, p)| p)
        .filter(|p| !p.request.arms.is_empty())
        .count();
    let start = std::time::Instant::now();
    let timing = timing_options();
    let mut rows = Vec::new();
    let mut failed = Vec::new();
    let mut done = 0;
    for (collective, planned) in plans {
        let mut mine = Vec::new();
        // Sizes where nothing differs are not timed (see `arms`).
        let (timed, same): (Vec<&Planned>, Vec<&Planned>) =
            planned.iter().partition(|p| !p.request.arms.is_empty());
        if rank0 {
            mine.extend(
                same.iter()
                    .map(|p| row(*collective, p, Speedup::UNCHANGED, None)),
            );
        }
        if !timed.is_empty() {
            let mut sizes: Vec<(Option<u32>, crate::data::Mapping, Vec<Request>)> = Vec::new();
            for p in &timed {
                match sizes.iter_mut().find(|s| s.0 == Some(p.procs)) {
                    Some(size) => size.2.push(p.request.clone()),
                    None => sizes.push((Some(p.procs), opts.mapping, vec![p.request.clone()])),
                }
            }
            let left = (opts.seconds - start.elapsed().as_secs_f64()).max(0.0);
            let seconds = left * timed.len() as f64 / (total - done).max(1) as f64;
            done += timed.len();
            if rank0 {
                eprintln!(
                    "verify: timing {} at {} sizes (up to {seconds:.0} s)",
                    collective.function(),
                    timed.len()
                );
            }
            let limits = opts
                .rounds
                .map_or_else(RoundLimits::default, RoundLimits::exactly);
            let per_call = bench::BenchOptions {
                collective: *collective,
                ..timing.clone()
            };
            match session.compare(*collective, &sizes, &per_call, &limits, seconds) {
                Ok(results) if rank0 => {
                    let results: Vec<Option<Compared>> = results.into_iter().flatten().collect();
                    for (p, compared) in timed.into_iter().zip(results) {
                        // A size the time ran out for has no row.
                        let Some(compared) = compared else {
                            eprintln!(
                                "verify: {} on {} ranks at {} B not timed: the time budget ran \
                                 out (a larger --time-budget times it)",
                                collective.function(),
                                p.procs,
                                p.request.msg_bytes
                            );
                            continue;
                        };
                        if let Some(job) = compared.speedup(1) {
                            let rule = (p.request.arms.len() > 2)
                                .then(|| compared.speedup(2))
                                .flatten();
                            mine.push(row(*collective, p, job, rule));
                        }
                    }
                }
                Ok(_) => {}
                // Every rank learns of the failure together (the rank that
                // found a wrong result said what): the next collective runs
                // on fresh communicators.
                Err(e) => {
                    if rank0 {
                        eprintln!(
                            "verify: {} stopped; the other collectives go on",
                            collective.function()
                        );
                        out.failed(*collective, &e)?;
                    }
                    failed.push(collective.function());
                }
            }
        }
        if rank0 {
            mine.sort_by_key(|r| (r.procs, r.msg_bytes));
            out.rows(&mine)?;
            rows.extend(mine);
        }
    }
    if !rank0 {
        return match failed.is_empty() {
            true => Ok(()),
            false => Err(Error::Reported(1)),
        };
    }
    if opts.json {
        let text = serde_json::to_string_pretty(&rows).map_err(|e| Error::Other(e.to_string()))?;
        println!("{text}");
    }
    let verdict = super::timing_verdict(&rows);
    if let Ok(summary) = &verdict {
        eprintln!("verify: {summary}");
    }
    if !failed.is_empty() {
        return Err(Error::Other(format!(
            "{} did not finish: a rank found a wrong result (its lines above say which and \
             where); the rows of every other collective are above{}",
            failed.join(", "),
            opts.out
                .as_ref()
                .map_or(String::new(), |f| format!(" and in {}", f.display()))
        )));
    }
    verdict.map(|_| ()).map_err(Error::NotInEffect)
}

/// Where rank 0 puts each collective's rows as soon as it is timed: the
/// table on standard output (unless the whole is printed as JSON at the
/// end) and JSON lines appended to `--out`.
struct Output {
    /// The table's layout and whether its header is printed.
    table: Option<(super::Layout, bool)>,
    file: Option<(std::path::PathBuf, std::fs::File)>,
}

impl Output {
    /// Opens `opts.out` for appending on rank 0 (collective: every rank
    /// learns whether it could).
    fn open(session: &Session, opts: &VerifyOptions, layout: super::Layout) -> Result<Output> {
        let mut output = Output {
            table: None,
            file: None,
        };
        let mut failure = None;
        if session.rank() == 0 {
            if let Some(path) = &opts.out {
                let opened = std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(path);
                match opened {
                    Ok(f) => output.file = Some((path.clone(), f)),
                    Err(e) => {
                        failure = Some(Error::io(format!("cannot open {}", path.display()), e))
                    }
                }
            }
            output.table = (!opts.json).then_some((layout, false));
        }
        match (session.first_failing(failure.is_some()), failure) {
            (None, _) => Ok(output),
            (Some(_), Some(e)) => Err(e),
            (Some(_), None) => Err(Error::Reported(1)),
        }
    }

    /// One collective's rows.
    fn rows(&mut self, rows: &[super::Row]) -> Result<()> {
        if let Some((layout, headed)) = &mut self.table {
            if !rows.is_empty() && !*headed {
                print!("{}", layout.header());
                *headed = true;
            }
            rows.iter().for_each(|r| print!("{}", layout.line(r)));
            // Seen as soon as timed, also through a pipe.
            let _ = std::io::Write::flush(&mut std::io::stdout());
        }
        let lines: Vec<String> = rows
            .iter()
            .map(|r| serde_json::to_string(r).map_err(|e| Error::Other(e.to_string())))
            .collect::<Result<_>>()?;
        self.append(&lines)
    }

    /// A line naming a collective that did not finish.
    fn failed(&mut self, collective: Collective, e: &Error) -> Result<()> {
        let why = match e {
            Error::Reported(_) => "a rank found a wrong result (see its error output)".to_string(),
            other => other.to_string(),
        };
        let line = serde_json::json!({ "collective": collective.name(), "error": why });
        self.append(&[line.to_string()])
    }

    /// Appends whole lines and flushes them: a job killed after this keeps
    /// them.
    fn append(&mut self, lines: &[String]) -> Result<()> {
        use std::io::Write;
        let Some((path, file)) = &mut self.file else {
            return Ok(());
        };
        let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
        file.write_all(text.as_bytes())
            .and_then(|()| file.sync_data())
            .map_err(|e| Error::io(format!("cannot write {}", path.display()), e))
    }
}

/// The arms of one size: the baseline (the library without the rules: Open
/// MPI 5 switches them off for one communicator; 4.1 cannot, so its fixed
/// decision runs as our schedule of the same algorithm), the job's
/// communicator, and the rule's algorithm where a rule forces one (Open
/// MPI 5 forced; 4.1, where the file outranks forcing, as our schedule).
/// None at all under 4.1 where the rules leave the library's choice: the
/// job's call is then the library's own, the same call (a schedule of ours
/// would only compare implementations). `None` where no baseline can run.
fn arms(
    env: &Environment,
    collective: Collective,
    procs: u32,
    msg_bytes: u64,
    expected: &Expected,
) -> Option<Vec<Arm>> {
    let own = |c: Candidate| {
        scheduled(collective)
            .contains(&c.algorithm)
            .then_some(Arm::Own(Candidate {
                implementation: Impl::Own,
                ..c
            }))
    };
    let baseline = if env.switchable() {
        Arm::WithoutRules
    } else if expected.rule.is_none() {
        return Some(Vec::new());
    } else {
        own(crate::ompi_fixed::decision(collective, procs, msg_bytes)?)?
    };
    let mut arms = vec![baseline, Arm::Job];
    // Where the rule's algorithm sends the very messages Open MPI's fixed
    // decision does (an allgather's ring and two_proc on 2 ranks), timing
    // cannot tell them apart: no arm of the rule alone.
    let same_messages = |rule: &Candidate| {
        let fixed = crate::ompi_fixed::decision(collective, procs, msg_bytes);
        let ops = |c: &Candidate| {
            let spec = crate::schedule::Spec {
                collective,
                algorithm: c.algorithm,
                procs,
                root: 0,
                msg_bytes,
                segsize: c.segsize.unwrap_or(0),
                fanout: c.fanout,
            };
            let s = crate::schedule::Schedule::new(spec).ok()?;
            Some((0..procs).map(|r| s.ops(r)).collect::<Vec<_>>())
        };
        fixed
            .and_then(|f| ops(&f))
            .is_some_and(|fixed| Some(fixed) == ops(rule))
    };
    if let Some(rule) = expected.rule.filter(|r| !same_messages(r)) {
        let forced = env.switchable() && env.tuned_rules;
        let alone = if forced {
            Some(Arm::Forced(rule))
        } else if rule.algorithm == Algorithm::Tuned {
            None
        } else {
            own(rule)
        };
        arms.extend(alone);
    }
    Some(arms)
}

/// The row of one size.
fn row(collective: Collective, p: &Planned, job: Speedup, rule: Option<Speedup>) -> Row {
    let row = Row::new(
        collective,
        p.procs,
        p.request.msg_bytes,
        &p.expected,
        job,
        rule,
    );
    match &p.decision {
        Some(decision) => Row {
            decision: decision.clone(),
            ..row
        },
        None => row,
    }
}

/// How each call is timed: root 0, a seed for nothing random.
pub(super) fn timing_options() -> bench::BenchOptions {
    bench::BenchOptions {
        collective: Collective::Bcast,
        parts: Vec::new(),
        out: std::path::PathBuf::new(),
        roots: vec![bench::Root::Rank(0)],
        warmup: 1,
        min_reps: 1,
        max_reps: 1,
        max_seconds: f64::INFINITY,
        target_ci: 1.0,
        time_budget: None,
        machine: None,
        seed: 1,
    }
}

/// What is in effect, said before the timings (standard error with JSON).
fn header(env: &Environment, loaded: &InEffect, json: bool) {
    let mut lines = vec![env.library.clone()];
    if let Some((file, rules)) = &loaded.tuned {
        lines.push(format!(
            "coll/tuned rules {file}: in effect (coll_tuned_use_dynamic_rules 1; read as this \
             Open MPI reads it: {})",
            names(rules.sections.iter().map(|s| s.id))
        ));
    } else {
        lines.push("coll/tuned rules: none named".into());
    }
    match (&env.han, &loaded.han) {
        (None, _) => lines.push("coll/han: not in this Open MPI".into()),
        (Some(_), Some((file, rules))) => lines.push(format!(
            "coll/han rules {file}: read by HAN (coll_han_use_dynamic_file_rules 1; read as \
             HAN reads it: {}){}",
            names(rules.sections.iter().map(|s| s.collective)),
            if env.han_serves() {
                ""
            } else {
                "; HAN does not outrank tuned here, so the file has no effect"
            }
        )),
        (Some(_), None) => lines.push(format!(
            "coll/han: {}, no rules file named",
            if env.han_serves() {
                "serves communicators that span nodes"
            } else {
                "left out or below tuned"
            }
        )),
    }
    lines.push(if env.switchable() {
        "speed-up: the library's own choice (a communicator made with \
         coll_tuned_use_dynamic_rules 0) over the job's communicator with the rules; above 1: \
         the rules are faster"
            .to_string()
    } else {
        "speed-up: the library's own choice over the job's communicator with the rules; Open \
         MPI 4.1 cannot switch its rules off inside a job, so its own choice (the fixed \
         decision) runs as this tool's schedule of the same algorithm; above 1: the rules are \
         faster"
            .to_string()
    });
    print_header(&lines, json);
}

/// Prints what is in effect before the timings: standard output and a
/// blank line, or standard error where standard output is JSON.
pub(super) fn print_header(lines: &[String], json: bool) {
    for line in lines {
        if json {
            eprintln!("verify: {line}");
        } else {
            println!("{line}");
        }
    }
    if !json {
        println!();
    }
}

/// The collectives of a file's sections, by name, each once.
fn names(ids: impl Iterator<Item = u64>) -> String {
    let mut names: Vec<String> = ids.map(super::files::collective_name).collect();
    names.dedup();
    names.join(", ")
}
