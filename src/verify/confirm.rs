//! `verify --confirm`: the switches of a rules file timed again, in a job
//! of their own, against the library's own choice, and a rules file
//! written without those that did not hold there.
//!
//! One job's measurements carry what that job is: on a virtual machine
//! its speed, on 16 real cores the way its ranks met (`experiments/
//! variance.md`). `tune` validates over replicas with the ranks' order
//! re-drawn, which covers the second; only another job covers the first. So
//! a rules file is confirmed the way `tune` validates (the algorithm and
//! `default` both forced through the library's control variables, no rules
//! file in effect, replicas, the run's tests controlled together), at each
//! size where a rule switches away from `default`, and a rule stays only
//! where every size it covers held again.
//!
//! This module holds what needs no MPI: which sizes a file's rules switch
//! at, the verdict per rule, and the confirmed file. [`super::confirm_run`]
//! times them.

use super::files::{TunedRule, TunedRules};
use crate::bench::stats::Speedup;
use crate::data::metrics::NEAR;
use crate::data::{Candidate, Collective};
use crate::error::{Error, Result};
use crate::export::{coll_id, tuned_bytes};
use crate::select::validation::{proved_faster, AcrossJobs, Validation, Verdict};
use crate::units::format_bytes;
use std::fmt::Write;
use std::path::{Path, PathBuf};

/// What `verify --confirm` reads and writes.
#[derive(Clone, Debug, PartialEq)]
pub struct Confirm {
    /// The rules file confirmed.
    pub rules: PathBuf,
    /// Where the confirmed `rules` and `confirmation.csv` go.
    pub out_dir: PathBuf,
    /// The tune directory's report, where the file came from one.
    pub report: Option<PathBuf>,
}

impl Confirm {
    /// From what the user named: a `tune` directory (its `rules`, the
    /// report noted) or a rules file; the output in `out_dir`, else in
    /// `confirmed/` beside the rules.
    pub fn new(path: &Path, out_dir: Option<&Path>) -> Result<Confirm> {
        let (rules, report) = match path.is_dir() {
            true => {
                let report = path.join("report.md");
                (path.join("rules"), report.is_file().then_some(report))
            }
            false => (path.to_path_buf(), None),
        };
        if !rules.is_file() {
            return Err(Error::Usage(format!(
                "--confirm {}: no rules file there (give a tune directory or an Open MPI \
                 classic rules file)",
                path.display()
            )));
        }
        let beside = rules.parent().unwrap_or(Path::new(".")).join("confirmed");
        Ok(Confirm {
            rules,
            out_dir: out_dir.map_or(beside, Path::to_path_buf),
            report,
        })
    }

    /// What the jobs before this one measured of the file's switches, in
    /// turn: tune's (its `validation.csv`, where the file came from a tune
    /// directory), then each confirmation's before this one
    /// ([`CONFIRMATIONS`] in the output directory).
    pub fn earlier(&self) -> Vec<Job> {
        let read = |path: PathBuf| std::fs::read_to_string(path).ok();
        let tune = self
            .report
            .as_ref()
            .and_then(|r| read(r.with_file_name("validation.csv")))
            .map(|csv| speedups(&csv));
        let confirmations =
            read(self.out_dir.join(CONFIRMATIONS)).map_or_else(Vec::new, |csv| by_job(&csv));
        tune.into_iter().chain(confirmations).collect()
    }

    /// Adds this job's rows to [`CONFIRMATIONS`] in the output directory,
    /// as the job after the last one there.
    pub fn record(&self, rows: &[Validation]) -> Result<()> {
        let path = self.out_dir.join(CONFIRMATIONS);
        let before = std::fs::read_to_string(&path).unwrap_or_default();
        let job = by_job(&before).len() + 1;
        let csv = crate::select::validation::csv(rows);
        let mut lines = csv.lines();
        let mut text = match before.is_empty() {
            true => format!("job,{}\n", lines.next().unwrap_or_default()),
            false => {
                lines.next();
                before
            }
        };
        for line in lines {
            let _ = writeln!(text, "{job},{line}");
        }
        write(&path, &text)
    }
}

/// Every confirmation's rows, each job's numbered in turn (the `job`
/// column, then `validation.csv`'s).
pub const CONFIRMATIONS: &str = "confirmations.csv";

/// One earlier job's speed-ups.
pub type Job = Vec<TuneRow>;

/// [`CONFIRMATIONS`]'s rows per job, in the jobs' order.
fn by_job(csv: &str) -> Vec<Job> {
    let mut jobs: Vec<(u64, Job)> = Vec::new();
    for line in csv.lines().skip(1) {
        let Some((job, rest)) = line.split_once(',') else {
            continue;
        };
        let (Ok(job), Some(row)) = (job.parse::<u64>(), speedup_row(rest)) else {
            continue;
        };
        match jobs.iter_mut().find(|(j, _)| *j == job) {
            Some((_, rows)) => rows.push(row),
            None => jobs.push((job, vec![row])),
        }
    }
    jobs.sort_by_key(|(j, _)| *j);
    jobs.into_iter().map(|(_, rows)| rows).collect()
}

/// Sizes timed per rule at most, spread over the sizes it covers.
const SIZES_PER_RULE: usize = 4;

/// One rule of the file that switches away from `default`.
#[derive(Clone, Debug, PartialEq)]
pub struct Switch {
    pub collective: Collective,
    /// The communicator size of the rule's block.
    pub procs: u32,
    /// Where the rule is: section, block and rule indices in the file.
    pub place: (usize, usize, usize),
    pub candidate: Candidate,
    /// The message sizes it is timed at (collsel's sizes, as
    /// `validation.csv` has them); empty where this job cannot time it.
    pub sizes: Vec<u64>,
    /// Blocks that repeat this rule's block for the next communicator size
    /// (as `tune` writes them): they take this rule's verdict.
    pub twins: Vec<usize>,
}

/// The switches of `rules` a job of `world` ranks times, in file order.
/// A block for more ranks than the job has is not timed (its switches are
/// not confirmed) unless it repeats the block before it for one rank more.
pub fn switches(rules: &TunedRules, world: u32) -> Vec<Switch> {
    let mut out = Vec::new();
    for (s, section) in rules.sections.iter().enumerate() {
        let Some(collective) = Collective::ALL
            .into_iter()
            .find(|c| u64::from(coll_id(*c)) == section.id)
        else {
            continue;
        };
        for (b, block) in section.blocks.iter().enumerate() {
            let twin_of_previous = b > 0 && {
                let prev = &section.blocks[b - 1];
                prev.comm_size + 1 == block.comm_size && same_rules(&prev.rules, &block.rules)
            };
            if twin_of_previous {
                // Every switch of the block before, or of the block it
                // repeats in turn.
                for sw in out.iter_mut().filter(|sw: &&mut Switch| {
                    sw.place.0 == s && (sw.place.1 == b - 1 || sw.twins.last() == Some(&(b - 1)))
                }) {
                    sw.twins.push(b);
                }
                continue;
            }
            let procs = u32::try_from(block.comm_size).unwrap_or(u32::MAX);
            for (r, rule) in block.rules.iter().enumerate() {
                let Some(candidate) = super::candidate(collective, rule) else {
                    continue;
                };
                let next = block.rules.get(r + 1).map(|n| n.msg_size);
                let sizes = if procs <= world && procs >= 2 {
                    sizes(collective, procs, rule.msg_size, next)
                } else {
                    Vec::new()
                };
                out.push(Switch {
                    collective,
                    procs,
                    place: (s, b, r),
                    candidate,
                    sizes,
                    twins: Vec::new(),
                });
            }
        }
    }
    out
}

fn same_rules(a: &[TunedRule], b: &[TunedRule]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| {
            (x.msg_size, x.alg, x.faninout, x.segsize) == (y.msg_size, y.alg, y.faninout, y.segsize)
        })
}

/// The message sizes a rule from `from` (coll/tuned's bytes) up to `next`
/// (exclusive; `None`: no end) covers on `procs` ranks, on the grid of its
/// first whole message up by 4x: all of them, or [`SIZES_PER_RULE`] spread
/// from the first to the last. A rule without an end is timed at its first.
fn sizes(collective: Collective, procs: u32, from: u64, next: Option<u64>) -> Vec<u64> {
    if collective == Collective::Barrier {
        return vec![0];
    }
    let element = collective.element_bytes();
    // The smallest message coll/tuned looks up at `from` or above.
    let per = tuned_bytes(collective, procs, element) / element;
    let first = from.div_ceil(per).div_ceil(element).max(1) * element;
    let Some(next) = next else {
        return vec![first];
    };
    let grid: Vec<u64> = std::iter::successors(Some(first), |m| m.checked_mul(4))
        .take_while(|&m| tuned_bytes(collective, procs, m) < next)
        .collect();
    if grid.len() <= SIZES_PER_RULE {
        return grid;
    }
    let last = grid.len() - 1;
    (0..SIZES_PER_RULE)
        .map(|i| grid[(i * last).div_ceil(SIZES_PER_RULE - 1)])
        .collect()
}

/// A switch's verdict: kept where every size it was timed at kept it.
pub fn verdict(switch: &Switch, rows: &[Validation]) -> Verdict {
    if switch.sizes.is_empty() {
        return Verdict::Unmeasured;
    }
    let mut worst = Verdict::Kept;
    for &m in &switch.sizes {
        let v = rows
            .iter()
            .find(|v| {
                v.collective == switch.collective
                    && v.procs == switch.procs
                    && v.msg_bytes == m
                    && v.decision == switch.candidate
            })
            .map_or(Verdict::Unmeasured, Validation::verdict);
        worst = match (worst, v) {
            (Verdict::Kept, v) => v,
            (w, _) => w,
        };
    }
    worst
}

/// The file's text with every switch not kept set to `0 0 0` (the
/// library's own choice), its twins with it, a note at the end of each
/// such line, and a first comment saying what was confirmed where.
pub fn rewrite(
    text: &str,
    rules: &TunedRules,
    switches: &[Switch],
    verdicts: &[Verdict],
    job: &str,
) -> String {
    // (byte span of the three numbers, note) per rule set back.
    let mut edits: Vec<(std::ops::Range<usize>, String)> = Vec::new();
    for (sw, verdict) in switches.iter().zip(verdicts) {
        if *verdict == Verdict::Kept {
            continue;
        }
        let (s, b, r) = sw.place;
        let note = match verdict {
            Verdict::Unmeasured if sw.sizes.is_empty() => {
                format!(
                    "{} not confirmed: not timed in this job ({job})",
                    sw.candidate
                )
            }
            v => format!("{} not confirmed: {}", sw.candidate, v.describe()),
        };
        for block in std::iter::once(b).chain(sw.twins.iter().copied()) {
            let rule = &rules.sections[s].blocks[block].rules[r];
            edits.push((rule.span.clone(), note.clone()));
        }
    }
    edits.sort_by_key(|(span, _)| std::cmp::Reverse(span.start));
    let mut out = text.to_string();
    for (span, note) in &edits {
        let line_end = out[span.end..]
            .find('\n')
            .map_or(out.len(), |i| span.end + i);
        out.insert_str(line_end, &format!(" [{note}]"));
        if !out[span.end..line_end].contains('#') {
            out.insert_str(line_end, " #");
        }
        out.replace_range(span.clone(), "0 0 0");
    }
    let kept = verdicts.iter().filter(|v| **v == Verdict::Kept).count();
    let header = format!(
        "# Confirmed by collsel verify --confirm in a separate job ({job}): {kept} of {} \
         switches from the library's own choice held; the others are set back to 0 0 0.\n",
        switches.len()
    );
    // A version-2 header must stay the file's first bytes.
    match out.strip_prefix("rule-file-version-") {
        Some(_) => {
            let first = out.find('\n').map_or(out.len(), |i| i + 1);
            out.insert_str(first, &header);
        }
        None => out.insert_str(0, &header),
    }
    out
}

/// The confirmation's table, one line per switch, for people.
pub fn table(switches: &[Switch], verdicts: &[Verdict], rows: &[Validation]) -> String {
    let mut s = String::from(
        "collective       ranks  sizes                 rule                          speed-up over default (95%)  verdict\n",
    );
    for (sw, verdict) in switches.iter().zip(verdicts) {
        let sizes = match (sw.sizes.first(), sw.sizes.last()) {
            (Some(a), Some(b)) if a == b => format_bytes(*a),
            (Some(a), Some(b)) => format!("{} - {}", format_bytes(*a), format_bytes(*b)),
            _ => "-".into(),
        };
        let measured: Vec<String> = sw
            .sizes
            .iter()
            .filter_map(|&m| {
                rows.iter()
                    .find(|v| {
                        v.collective == sw.collective
                            && v.procs == sw.procs
                            && v.msg_bytes == m
                            && v.decision == sw.candidate
                    })
                    .and_then(|v| v.speedup)
                    .map(|x| format!("{:.2} ({:.2}-{:.2})", x.speedup, x.low, x.high))
            })
            .collect();
        let _ = writeln!(
            s,
            "{:<16} {:>5}  {:<21} {:<29} {:<28} {}",
            sw.collective.function(),
            sw.procs,
            sizes,
            sw.candidate.to_string(),
            if measured.is_empty() {
                "-".to_string()
            } else {
                measured.join(", ")
            },
            match verdict {
                Verdict::Kept => "confirmed",
                Verdict::Slower => "removed: slower",
                Verdict::WithinNoise => "removed: not faster",
                Verdict::Unmeasured => "removed: not timed",
                Verdict::Unsteady => "removed: not across the jobs",
            }
        );
    }
    s
}

/// The heading of the confirmation's part of a tune report.
const REPORT_HEADING: &str = "## Confirmed in a separate job";

/// Puts the confirmation into a tune report: a short part before its
/// Deploy block (what held, how far the speed-ups moved between the jobs,
/// and the file to deploy instead), the count of sizes that held
/// beside each collective's kept switches in the summary table, and the
/// table at its end; a confirmation noted before is replaced. Returns the
/// report's summary as it now reads (up to the first collective's part).
pub fn note_in_report(
    report: &Path,
    earlier: &[Job],
    table: &str,
    confirmed: &Path,
    rows: &[Validation],
    (kept, switches): (usize, usize),
) -> Result<String> {
    let text = std::fs::read_to_string(report)
        .map_err(|e| Error::io(format!("cannot read {}", report.display()), e))?;
    let mut text = without_part(&text, REPORT_HEADING);
    text = without_part(&text, &format!("{REPORT_HEADING}: the table"));
    let sizes = tuned_sizes(&report.with_file_name("data.csv"));
    text = with_held(&text, rows, &Effects::new(earlier, rows, &sizes));
    let absolute = std::path::absolute(confirmed).unwrap_or_else(|_| confirmed.to_path_buf());
    let part = format!(
        "{REPORT_HEADING}\n`verify --confirm` timed every switch of `rules` again in a job of \
         its own: {kept} of {switches} held, the others are set back to the library's own \
         choice in `{}`. The summary now counts only what held: its `kept` column says how \
         many sizes held, and its effects are those of the confirmed rules, each size that \
         held at the geometric mean of the jobs that timed it ({} jobs so far: tune's and \
         each confirmation), its interval from the spread between them (the sizes that did \
         not hold count as 1), and beside the largest the range one more job's speed-up \
         falls in. A size holds where it was faster in the latest job and across \
         the jobs as well; each further `verify --confirm` of this directory, in a job of its \
         own, adds that job. {}Deploy that file in place of `rules`:\n\n    \
         OMPI_MCA_coll_tuned_dynamic_rules_filename={}\n\n(per switch: the end of this \
         report)\n\n",
        absolute.display(),
        earlier.len() + 1,
        between_jobs(earlier, rows),
        absolute.display()
    );
    let at = text.find("## Deploy").unwrap_or(text.len());
    text.insert_str(at, &part);
    if !text.ends_with('\n') {
        text.push('\n');
    }
    let _ = write!(
        text,
        "\n{REPORT_HEADING}: the table\n```\n{table}```\n{}",
        across_table(earlier, rows)
    );
    write(report, &text)?;
    let end = text.find("\n## MPI_").map_or(text.len(), |i| i + 1);
    Ok(text[..end].to_string())
}

/// What separates "held" from the kept count in the summary table.
const HELD: &str = ", held at ";

/// The summary table with each confirmed collective's `kept` cell
/// followed by how many of its sizes held (a count noted before replaced),
/// and its effect cells those of the confirmed rules where `effects` can
/// say them.
fn with_held(text: &str, rows: &[Validation], effects: &Effects) -> String {
    // The columns: kept, the job's size ("at 4 ranks"), all sizes, largest.
    let mut columns: Option<[Option<usize>; 4]> = None;
    let mut job_procs = None;
    let mut out = String::with_capacity(text.len() + 64);
    for line in text.split_inclusive('\n') {
        let cells: Vec<&str> = line.split('|').collect();
        if line.starts_with("| collective") {
            let at = |name: &str| cells.iter().position(|c| c.trim() == name);
            let job = cells.iter().position(|c| {
                let c = c.trim();
                c.starts_with("at ") && c.ends_with(" ranks")
            });
            job_procs = job.and_then(|k| {
                cells[k].trim()["at ".len()..]
                    .trim_end_matches(" ranks")
                    .parse::<u32>()
                    .ok()
            });
            columns = Some([at("kept"), job, at("all sizes"), at("largest kept")]);
        }
        let function = cells.get(1).map(|c| c.trim()).unwrap_or_default();
        let mine: Vec<&Validation> = rows
            .iter()
            .filter(|v| v.collective.function() == function)
            .collect();
        let Some([Some(k), job, all, largest]) = columns else {
            out.push_str(line);
            continue;
        };
        if !line.starts_with("| MPI_") || mine.is_empty() || k >= cells.len() {
            out.push_str(line);
            continue;
        }
        let mut cells: Vec<String> = cells.iter().map(|c| c.to_string()).collect();
        let held = mine.iter().filter(|v| v.kept()).count();
        let before = cells[k].trim().split(HELD).next().unwrap_or_default();
        cells[k] = format!(" {before}{HELD}{held} of {} ", mine.len());
        let collective = mine[0].collective;
        let mut set = |column: Option<usize>, value: Option<String>| {
            if let (Some(c), Some(v)) = (column, value) {
                if c < cells.len() {
                    cells[c] = format!(" {v} ");
                }
            }
        };
        set(
            job,
            job_procs.and_then(|p| effects.cell(collective, Some(p))),
        );
        set(all, effects.cell(collective, None));
        set(largest, Some(effects.largest(collective)));
        out.push_str(&cells.join("|"));
    }
    out
}

/// The message sizes `tune` decided, per collective and communicator size:
/// those of its `data.csv` where `default` was measured (a barrier's at
/// size 0 only); none where the file cannot be read.
fn tuned_sizes(data: &Path) -> Vec<(Collective, u32, u64)> {
    if !data.is_file() {
        return Vec::new();
    }
    // One read of the file: its rows come back per collective.
    let choice = crate::data::load::SystemFilter::default();
    let Ok((systems, _)) = crate::data::load::load_systems(&[data.to_path_buf()], &choice) else {
        return Vec::new();
    };
    let mut out: Vec<(Collective, u32, u64)> = systems
        .iter()
        .flat_map(|(system, dataset)| {
            let collective = system.collective;
            dataset
                .measurements()
                .iter()
                .filter(|m| m.candidate.is_default())
                .filter(move |m| !collective.returns_at_once(m.config.msg_bytes))
                .map(move |m| (collective, m.config.procs, m.config.msg_bytes))
        })
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// The effect of the confirmed rules, per collective: each size that held
/// at its speed-up across the jobs that timed it, its interval from the
/// spread between them ([`Across`]), every other size tuned at 1.
struct Effects<'a> {
    /// The sizes that held: the row and its speed-up across the jobs (this
    /// job's alone where no other timed it).
    held: Vec<(&'a Validation, Across)>,
    /// The message sizes tuned, per collective and communicator size.
    sizes: &'a [(Collective, u32, u64)],
    /// Whether a size was timed in two jobs: else no interval is given.
    between_jobs: bool,
}

impl<'a> Effects<'a> {
    fn new(
        earlier: &[Job],
        rows: &'a [Validation],
        sizes: &'a [(Collective, u32, u64)],
    ) -> Effects<'a> {
        let pooled = spread(earlier, rows);
        let held = rows
            .iter()
            .filter(|v| v.kept())
            .filter_map(|v| {
                let now = v.speedup?.speedup;
                let x = jobs_of(earlier, v).unwrap_or_else(|| vec![now]);
                let p = pooled.unwrap_or((0.0, 0));
                Some(match x.len() > 1 {
                    true => (v, Across::new(&x, p, true)),
                    false => (v, Across::alone(now, p)),
                })
            })
            .collect();
        Effects {
            held,
            sizes,
            between_jobs: pooled.is_some(),
        }
    }

    /// The cell of `collective` at communicator size `procs` (`None`: all
    /// sizes); `None` where the sizes tuned are not known.
    fn cell(&self, collective: Collective, procs: Option<u32>) -> Option<String> {
        let within = |p: u32| procs.is_none_or(|q| q == p);
        let n = self
            .sizes
            .iter()
            .filter(|(c, p, _)| *c == collective && within(*p))
            .count();
        if n == 0 {
            return None;
        }
        let held: Vec<&Across> = self
            .held
            .iter()
            .filter(|(v, _)| v.collective == collective && within(v.procs))
            .map(|(_, across)| across)
            .collect();
        if held.is_empty() {
            return Some("1 (default)".into());
        }
        let mean = held.iter().map(|a| a.ln).sum::<f64>() / n as f64;
        if !self.between_jobs {
            return Some(format!("{:.2}", mean.exp()));
        }
        let df = held.iter().map(|a| a.df).min().unwrap_or(0);
        let var = held.iter().map(|a| a.var()).sum::<f64>();
        let half = crate::bench::stats::t975(df) * var.sqrt() / n as f64;
        Some(format!(
            "{:.2} ({:.2}–{:.2})",
            mean.exp(),
            (mean - half).exp(),
            (mean + half).exp()
        ))
    }

    /// The largest effect of a size that held, as the summary shows it.
    fn largest(&self, collective: Collective) -> String {
        self.held
            .iter()
            .filter(|(v, _)| v.collective == collective)
            .max_by(|a, b| a.1.ln.total_cmp(&b.1.ln))
            .map_or("-".into(), |(v, across)| {
                let next = across.next_job();
                let next = match self.between_jobs {
                    true => format!(" (a next job {:.2}–{:.2})", next.low, next.high),
                    false => String::new(),
                };
                format!(
                    "{:.2}x{next}, {} at {} ranks",
                    across.ln.exp(),
                    format_bytes(v.msg_bytes),
                    v.procs
                )
            })
    }
}

/// The variance of one job's ln speed-up between jobs, pooled over every
/// size two or more jobs timed (each size's squared deviations from its
/// own mean over its jobs, over the degrees of freedom), and those degrees
/// of freedom; `None` where no size was timed in two jobs.
fn spread(earlier: &[Job], rows: &[Validation]) -> Option<(f64, usize)> {
    let (squares, df) = timed(earlier, rows).fold((0.0, 0), |(squares, df), (_, x)| {
        (squares + squared_deviations(&x), df + x.len() - 1)
    });
    (df > 0).then(|| (squares / df as f64, df))
}

/// The sum of the squared deviations of `x`'s logarithms from their mean.
fn squared_deviations(x: &[f64]) -> f64 {
    let mean = x.iter().map(|v| v.ln()).sum::<f64>() / x.len() as f64;
    x.iter().map(|v| (v.ln() - mean).powi(2)).sum()
}

/// A size's speed-up across the jobs that timed it: the mean of their ln
/// speed-ups, the variance between one job and the next, the degrees of
/// freedom of Student's t and the number of jobs. What decides whether it
/// held is the spread pooled over every size, with its degrees of freedom.
/// What is reported, where three or more jobs timed the size, takes this
/// size's own spread where that is wider, and Student's t on the jobs'
/// degrees of freedom: on a machine whose jobs come in states (on the
/// 2-core VM a job's 1-byte latency between the cores is 0.2 or 0.45 µs,
/// `experiments/validation.md`) the states move some sizes more than
/// others, and the sizes of one job move together (there the 4 KiB
/// broadcast, the 4 KiB reduce and the 1-byte gather), so however many
/// sizes were pooled, what varies between jobs was drawn once per job.
/// With two jobs t(1) would say nothing; the pooled spread is reported.
#[derive(Clone, Copy, Debug)]
struct Across {
    ln: f64,
    between: f64,
    df: usize,
    jobs: usize,
}

impl Across {
    /// Across the jobs that timed a size (`x`, one figure per job, two or
    /// more), to decide, or (`reported`) to report.
    fn new(x: &[f64], (pooled, pooled_df): (f64, usize), reported: bool) -> Across {
        let n = x.len();
        let (between, df) = match reported && n >= 3 {
            true => (pooled.max(squared_deviations(x) / (n - 1) as f64), n - 1),
            false => (pooled, pooled_df),
        };
        Across {
            ln: x.iter().map(|v| v.ln()).sum::<f64>() / n as f64,
            between,
            df,
            jobs: n,
        }
    }

    /// One job's figure where no other job timed the size: its speed-up,
    /// with the pooled spread between jobs.
    fn alone(speedup: f64, (pooled, df): (f64, usize)) -> Across {
        Across {
            ln: speedup.ln(),
            between: pooled,
            df,
            jobs: 1,
        }
    }

    /// The variance of the mean over the jobs.
    fn var(self) -> f64 {
        self.between / self.jobs as f64
    }

    /// The mean over the jobs and its 95% interval.
    fn speedup(self) -> Speedup {
        self.interval(self.var())
    }

    /// The range one more job falls in (95%): the spread between jobs
    /// plus the mean's own uncertainty.
    fn next_job(self) -> Speedup {
        self.interval(self.between + self.var())
    }

    fn interval(self, var: f64) -> Speedup {
        let half = crate::bench::stats::t975(self.df) * var.sqrt();
        Speedup {
            speedup: self.ln.exp(),
            low: (self.ln - half).exp(),
            high: (self.ln + half).exp(),
            rounds: self.jobs,
            replicas: 0,
            weakest: None,
            disturbed: None,
        }
    }
}

/// Each size two or more jobs timed: each job's speed-up (tune's first)
/// and the speed-up across them (geometric mean; 95% interval from the
/// spread between the jobs, see [`Across`]), as a table; empty where no
/// size was timed in two jobs. One job's interval holds that job only:
/// this one holds what moved between the jobs.
fn across_table(earlier: &[Job], rows: &[Validation]) -> String {
    let Some((_, df)) = spread(earlier, rows) else {
        return String::new();
    };
    let mut s = format!(
        "\nAcross the jobs (tune's first, then each confirmation in turn). A size ships only \
         where its mean is at least 1.05 and above 1 by the spread between the jobs pooled \
         over every size ({df} degrees of freedom). The intervals shown: where three or more \
         jobs timed a size, its own spread where that is wider, and Student's t on the jobs' \
         degrees of freedom (the sizes of one job share its state); a next job: the range \
         one more job's speed-up falls in (95%). Jobs minutes apart can share a state of the \
         machine that later jobs do not: confirm again hours later, and each run adds its \
         job:\n\n| collective | ranks | size | rule | \
         each job | across the jobs (95%) | a next job |\n|---|---:|---:|---|---|---|---|\n"
    );
    for (v, x) in timed(earlier, rows) {
        let Some(a) = v.across_jobs else {
            continue;
        };
        let each: Vec<String> = x.iter().map(|x| format!("{x:.2}")).collect();
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {:.2} ({:.2}-{:.2}) | {:.2}-{:.2} |",
            v.collective.function(),
            v.procs,
            format_bytes(v.msg_bytes),
            v.decision,
            each.join(", "),
            a.speedup.speedup,
            a.speedup.low,
            a.speedup.high,
            a.next_job.low,
            a.next_job.high
        );
    }
    s
}

/// Gives each row that an earlier job timed too its speed-up across the
/// jobs (see [`Across`]), by which it then ships or not
/// ([`Validation::verdict`]).
pub fn across_jobs(earlier: &[Job], rows: &mut [Validation]) {
    let Some(pooled) = spread(earlier, rows) else {
        return;
    };
    // With one degree of freedom (one size timed in two jobs) Student's t
    // is 12.7 and no switch could hold: there, one that was at least
    // 1 + NEAR in every job holds.
    let held = |x: &[f64]| match pooled.1 >= 2 {
        true => proved_faster(&Across::new(x, pooled, false).speedup()),
        false => x.iter().all(|&s| s >= 1.0 + NEAR),
    };
    let across: Vec<Option<AcrossJobs>> = rows
        .iter()
        .map(|v| {
            jobs_of(earlier, v).map(|x| {
                let across = Across::new(&x, pooled, true);
                AcrossJobs {
                    speedup: across.speedup(),
                    next_job: across.next_job(),
                    held: held(&x),
                }
            })
        })
        .collect();
    for (v, across) in rows.iter_mut().zip(across) {
        v.across_jobs = across;
    }
}

/// A row of a job's `validation.csv` (tune's, or a confirmation's):
/// (collective, ranks, size, decision) and its speed-up.
pub type TuneRow = ((String, u32, u64, String), f64);

/// Each row of this job that an earlier job timed too, with the speed-ups
/// of every job that timed it, in turn, this job's last.
fn timed<'a>(
    earlier: &'a [Job],
    rows: &'a [Validation],
) -> impl Iterator<Item = (&'a Validation, Vec<f64>)> + 'a {
    rows.iter()
        .filter_map(move |v| Some((v, jobs_of(earlier, v)?)))
}

/// The speed-ups of every job that timed `v`, in turn, this job's last;
/// `None` where no earlier job timed it or this one did not measure it.
fn jobs_of(earlier: &[Job], v: &Validation) -> Option<Vec<f64>> {
    let now = v.speedup?.speedup;
    let key = (
        v.collective.name().to_string(),
        v.procs,
        v.msg_bytes,
        decision_key(&v.decision.to_string()),
    );
    let mut x: Vec<f64> = earlier
        .iter()
        .filter_map(|job| job.iter().find(|(k, _)| *k == key).map(|r| r.1))
        .collect();
    if x.is_empty() {
        return None;
    }
    x.push(now);
    Some(x)
}

/// A decision as both jobs name it: a rules file's segment size 0 reads
/// back as no segment size, which `tune` wrote as `seg=0`.
fn decision_key(decision: &str) -> String {
    decision.replace(" seg=0", "")
}

/// The speed-up per (collective, ranks, size, decision) of a
/// `validation.csv`.
fn speedups(csv: &str) -> Vec<TuneRow> {
    csv.lines().skip(1).filter_map(speedup_row).collect()
}

fn speedup_row(line: &str) -> Option<TuneRow> {
    let f: Vec<&str> = line.split(',').collect();
    let key = (
        f.first()?.to_string(),
        f.get(1)?.parse().ok()?,
        f.get(2)?.parse().ok()?,
        decision_key(f.get(3)?),
    );
    Some((key, f.get(4)?.parse().ok()?))
}

/// How far the speed-ups moved between the jobs that timed them, per size
/// class: the median and the largest ratio of a size's highest figure to
/// its lowest, as a sentence.
fn between_jobs(earlier: &[Job], rows: &[Validation]) -> String {
    let classes: [(&str, u64, u64); 3] = [
        ("below 4 KiB", 0, 4096),
        ("4 KiB to 256 KiB", 4096, 262_144),
        ("256 KiB and above", 262_144, u64::MAX),
    ];
    let mut parts = Vec::new();
    for (name, low, high) in classes {
        let mut moved: Vec<f64> = timed(earlier, rows)
            .filter(|(v, _)| (low..high).contains(&v.msg_bytes))
            .map(|(_, x)| {
                let ln = |f: fn(f64, f64) -> f64| x.iter().map(|v| v.ln()).fold(x[0].ln(), f);
                ln(f64::max) - ln(f64::min)
            })
            .collect();
        if moved.is_empty() {
            continue;
        }
        moved.sort_by(f64::total_cmp);
        let pct = |x: f64| (x.exp() - 1.0) * 100.0;
        parts.push(format!(
            "{name} {:.0}% (largest {:.0}%, {} size{})",
            pct(moved[moved.len() / 2]),
            pct(moved[moved.len() - 1]),
            moved.len(),
            if moved.len() == 1 { "" } else { "s" }
        ));
    }
    match parts.is_empty() {
        true => String::new(),
        false => format!(
            "Between the jobs that timed them the speed-ups moved by a median of {}. ",
            parts.join("; ")
        ),
    }
}

/// Writes `text` to `path`, saying which file where it cannot.
pub fn write(path: &Path, text: &str) -> Result<()> {
    std::fs::write(path, text).map_err(|e| Error::io(format!("cannot write {}", path.display()), e))
}

/// `text` without the part under `heading` (to the next `## ` heading).
fn without_part(text: &str, heading: &str) -> String {
    let Some(start) = text.find(&format!("{heading}\n")) else {
        return text.to_string();
    };
    let body = start + heading.len() + 1;
    let end = text[body..]
        .find("\n## ")
        .map_or(text.len(), |i| body + i + 1);
    format!("{}{}", &text[..start], &text[end..])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::Algorithm;
    use crate::verify::files::read_tuned;

    const FILE: &str = "\
# a test file
2 # collectives
7 # bcast
3 # comm-size blocks
2 # comm size
3 # rules
0 1 0 0 # from 0 B: linear
4096 4 0 0 # from 4 KiB: split_binary
65536 0 0 0 # default
3 # comm size (a twin of 2)
3 # rules
0 1 0 0 # from 0 B: linear
4096 4 0 0 # from 4 KiB: split_binary
65536 0 0 0 # default
8 # comm size
1 # rules
0 6 0 65536 # binomial
9 # gather
1 # comm-size blocks
2 # comm size
2 # rules
0 0 0 0
8192 1 0 0 # from 4 KiB (8 KiB in all): linear
";

    /// A confirmation row of linear MPI_Bcast on 2 ranks: its speed-up
    /// within +-`spread` of itself.
    fn linear_bcast(m: u64, speedup: f64, spread: f64, discovered: bool) -> Validation {
        Validation {
            collective: Collective::Bcast,
            procs: 2,
            msg_bytes: m,
            decision: Candidate {
                algorithm: Algorithm::Linear,
                segsize: None,
                fanout: None,
                implementation: crate::data::Impl::Ompi,
            },
            speedup: Some(Speedup {
                speedup,
                low: speedup * (1.0 - spread),
                high: speedup * (1.0 + spread),
                rounds: 12,
                replicas: 4,
                weakest: None,
                disturbed: None,
            }),
            times_us: None,
            discovered,
            across_jobs: None,
        }
    }

    fn parsed() -> TunedRules {
        read_tuned(FILE.as_bytes(), false).unwrap()
    }

    #[test]
    fn each_switch_is_timed_over_the_sizes_its_rule_covers() {
        let s = switches(&parsed(), 4);
        type Seen = (Collective, u32, Algorithm, Vec<u64>, Vec<usize>);
        let got: Vec<Seen> = s
            .iter()
            .map(|w| {
                (
                    w.collective,
                    w.procs,
                    w.candidate.algorithm,
                    w.sizes.clone(),
                    w.twins.clone(),
                )
            })
            .collect();
        assert_eq!(
            got,
            vec![
                // 1 B to 1 KiB: the first, the last and two between.
                (
                    Collective::Bcast,
                    2,
                    Algorithm::Linear,
                    vec![1, 16, 256, 1024],
                    vec![1]
                ),
                (
                    Collective::Bcast,
                    2,
                    Algorithm::SplitBinary,
                    vec![4096, 16384],
                    vec![1]
                ),
                // 8 ranks in a 4-rank job: not timed.
                (Collective::Bcast, 8, Algorithm::Binomial, vec![], vec![]),
                // 8 KiB in all on 2 ranks: 4 KiB blocks; no end.
                (Collective::Gather, 2, Algorithm::Linear, vec![4096], vec![]),
            ]
        );
    }

    #[test]
    fn switches_that_did_not_hold_are_set_back_with_their_twins() {
        let rules = parsed();
        let s = switches(&rules, 4);
        let verdicts = [
            Verdict::Kept,
            Verdict::Slower,
            Verdict::Unmeasured,
            Verdict::Kept,
        ];
        let out = rewrite(FILE, &rules, &s, &verdicts, "4 ranks");
        let again = read_tuned(out.as_bytes(), false).unwrap();
        let algs = |section: usize, block: usize| -> Vec<u64> {
            again.sections[section].blocks[block]
                .rules
                .iter()
                .map(|r| r.alg)
                .collect()
        };
        assert_eq!(algs(0, 0), vec![1, 0, 0]);
        assert_eq!(algs(0, 1), vec![1, 0, 0], "the twin follows");
        assert_eq!(algs(0, 2), vec![0]);
        assert_eq!(algs(1, 0), vec![0, 1]);
        assert_eq!(again.sections[0].blocks[2].rules[0].segsize, 0);
        assert!(out.starts_with("# Confirmed by collsel verify --confirm"));
        assert!(out.contains("2 of 4 switches"));
        assert!(out.contains("4096 0 0 0 # from 4 KiB: split_binary [split_binary not confirmed: reverted to default: slower than default]"), "{out}");
        assert!(out.contains("not timed in this job (4 ranks)"), "{out}");
        // Nothing else moved: the kept lines are as they were.
        assert!(out.contains("0 1 0 0 # from 0 B: linear\n4096 0"));
    }

    #[test]
    fn the_report_notes_the_confirmation_once() {
        let dir = tempfile::tempdir().unwrap();
        let report = dir.path().join("report.md");
        let original = "# collsel tune: 2 ranks\n\
            | collective | ranks | kept    | at 2 ranks | all sizes | largest kept |\n\
            | ---------- | ----- | ------- | ---------- | --------- | ------------ |\n\
            | MPI_Bcast  | 2     | 2 of 10 | 1.2        | 1.2       | 3x           |\n\
            | MPI_Reduce | 2     | 0 of 9  | 1          | 1         | -            |\n\
            ## Deploy\nlines\n## To know\n- a\n## MPI_Bcast\ndetail\n";
        std::fs::write(&report, original).unwrap();
        std::fs::write(
            dir.path().join("validation.csv"),
            "collective,procs,msg_bytes,decision,speedup,low,high,kept\n\
             bcast,2,4,linear,1.5,1.4,1.6,true\n\
             bcast,2,4096,linear,2.0,1.9,2.1,true\n",
        )
        .unwrap();
        // Three sizes tuned on 2 ranks (`default` timed at each).
        std::fs::write(
            dir.path().join("data.csv"),
            "collective,algorithm,procs,msg_bytes,time_us\n\
             bcast,default,2,4,1.0\nbcast,linear,2,4,0.5\n\
             bcast,default,2,4096,3.0\nbcast,default,2,65536,9.0\n",
        )
        .unwrap();
        let mut rows = [
            linear_bcast(4, 1.0, 0.05, false),
            linear_bcast(4096, 2.2, 0.05, true),
        ];
        let confirmed = dir.path().join("confirmed/rules");
        let earlier = Confirm {
            rules: dir.path().join("rules"),
            out_dir: dir.path().join("confirmed"),
            report: Some(report.clone()),
        }
        .earlier();
        assert_eq!((earlier.len(), earlier[0].len()), (1, 2));
        across_jobs(&earlier, &mut rows);
        assert!(rows[1].kept(), "{:?}", rows[1].across_jobs);
        for _ in 0..2 {
            let summary =
                note_in_report(&report, &earlier, "TABLE\n", &confirmed, &rows, (3, 4)).unwrap();
            assert!(summary.contains("3 of 4 held") && summary.ends_with("- a\n"));
            // 1.5 -> 1.0 is 50% below 4 KiB; 2.0 -> 2.2 is 10% above.
            assert!(
                summary.contains("below 4 KiB 50% (largest 50%, 1 size); 4 KiB to 256 KiB 10%"),
                "{summary}"
            );
            assert!(summary.contains("| 2 of 10, held at 1 of 2 |"), "{summary}");
            assert!(summary.contains("| 0 of 9  |"), "{summary}");
            // Only 4 KiB held, across both jobs at sqrt(2.0 * 2.2), over
            // the three sizes tuned; its interval from the pooled spread
            // (two sizes, t(2)).
            let held = (2.0f64.ln() + 2.2f64.ln()) / 2.0;
            let var = (1.5f64.ln().powi(2) + (2.0f64 / 2.2).ln().powi(2)) / 4.0;
            let half = 4.302_653 * (var / 2.0).sqrt() / 3.0;
            let cell = format!(
                "{:.2} ({:.2}–{:.2})",
                (held / 3.0).exp(),
                (held / 3.0 - half).exp(),
                (held / 3.0 + half).exp()
            );
            let bcast = summary
                .lines()
                .find(|l| l.starts_with("| MPI_Bcast"))
                .unwrap();
            let next = 4.302_653 * (var * 1.5).sqrt();
            assert_eq!(
                bcast,
                format!(
                    "| MPI_Bcast  | 2     | 2 of 10, held at 1 of 2 | {cell} | {cell} | {:.2}x (a \
                     next job {:.2}–{:.2}), 4 KiB at 2 ranks |",
                    held.exp(),
                    (held - next).exp(),
                    (held + next).exp()
                )
            );
            // Nothing of MPI_Reduce was confirmed: its cells stay.
            assert!(summary.contains("| 1          | 1         | -            |"));
            assert!(summary.contains("counts only what held"));
        }
        // Both sizes timed twice: ln ratios 0.405 and -0.095, pooled sd
        // sqrt((0.405^2 + 0.095^2) / 4), t(2) 4.303.
        let text = std::fs::read_to_string(&report).unwrap();
        let across = &text[text.find("Across the jobs").unwrap()..];
        let sd: f64 = ((1.5f64.ln().powi(2) + (2.0f64 / 2.2).ln().powi(2)) / 4.0).sqrt();
        let half = 4.302_653 * sd / 2f64.sqrt();
        let mean = (2.0f64.ln() + 2.2f64.ln()) / 2.0;
        // A next job: sd * sqrt(1 + 1/2).
        let next = 4.302_653 * sd * 1.5f64.sqrt();
        let row = format!(
            "| MPI_Bcast | 2 | 4 KiB | linear | 2.00, 2.20 | {:.2} ({:.2}-{:.2}) | {:.2}-{:.2} |",
            mean.exp(),
            (mean - half).exp(),
            (mean + half).exp(),
            (mean - next).exp(),
            (mean + next).exp()
        );
        assert!(across.contains(&row), "{across}\n{row}");
        assert_eq!(text.matches("Across the jobs").count(), 1);
        assert!(text.contains("(2 jobs so far: tune's and each confirmation)"));
        let text = std::fs::read_to_string(&report).unwrap();
        assert_eq!(text.matches(REPORT_HEADING).count(), 2, "{text}");
        let part = text.find(REPORT_HEADING).unwrap();
        assert!(part < text.find("## Deploy").unwrap());
        assert!(text.contains("3 of 4 held"));
        assert!(text.ends_with(&format!("{row}\n")), "{text}");
        assert!(text.contains("| -            |\n## Confirmed in a separate job\n"));
    }

    #[test]
    fn a_switch_ships_only_where_it_held_across_both_jobs() {
        // Held in this job at every size (each own interval above 1.05),
        // but 1 KiB's speed-up fell from 2.4 to 1.2 between the jobs: the
        // spread pooled over the three sizes puts the intervals across
        // both jobs of 16 B (1.06 then 1.12) and 1 KiB below 1, while
        // 64 KiB's (3.0 twice) stays far above.
        let tuned = speedups(
            "collective,procs,msg_bytes,decision,speedup,low,high,kept\n\
             bcast,2,16,linear,1.06,1.03,1.09,true\n\
             bcast,2,1024,linear,2.4,2.3,2.5,true\n\
             bcast,2,65536,linear,3.0,2.9,3.1,true\n",
        );
        let row = |m: u64, speedup: f64| linear_bcast(m, speedup, 0.03, true);
        let mut rows = [row(16, 1.12), row(1024, 1.2), row(65536, 3.0)];
        assert!(rows.iter().all(Validation::kept));
        across_jobs(&[tuned], &mut rows);
        let verdicts: Vec<Verdict> = rows.iter().map(Validation::verdict).collect();
        assert_eq!(
            verdicts,
            [Verdict::Unsteady, Verdict::Unsteady, Verdict::Kept],
            "{:?}",
            rows.map(|r| r.across_jobs)
        );
        let both = rows[2].across_jobs.unwrap().speedup;
        assert!((both.speedup - 3.0).abs() < 1e-9 && both.low > 1.05);
        // Without tune's job (a rules file from predict) this job decides.
        let mut alone = [row(16, 1.12)];
        across_jobs(&[], &mut alone);
        assert_eq!(alone[0].verdict(), Verdict::Kept);
        // The confirmed file sets the unsteady switch back.
        let rules = read_tuned(b"1\n7\n1\n2\n3\n0 0 0 0\n16 1 0 0\n65536 1 0 0\n", false).unwrap();
        let switches = switches(&rules, 2);
        let verdicts = [Verdict::Unsteady, Verdict::Kept];
        let out = rewrite(
            "1\n7\n1\n2\n3\n0 0 0 0\n16 1 0 0\n65536 1 0 0\n",
            &rules,
            &switches,
            &verdicts,
            "2 ranks",
        );
        assert!(out.contains("16 0 0 0 # [linear not confirmed: reverted to default: faster in this job, not across the jobs"), "{out}");
        assert!(out.contains("\n65536 1 0 0\n"), "{out}");
    }

    #[test]
    fn an_unsegmented_decision_pairs_with_its_rule() {
        let tuned = speedups(
            "collective,procs,msg_bytes,decision,speedup,low,high,kept\n\
             bcast,2,4096,split_binary seg=0,1.3,1.2,1.4,true\n",
        );
        let row = Validation {
            collective: Collective::Bcast,
            procs: 2,
            msg_bytes: 4096,
            decision: Candidate {
                algorithm: Algorithm::SplitBinary,
                segsize: None,
                fanout: None,
                implementation: crate::data::Impl::Ompi,
            },
            speedup: Some(crate::bench::stats::Speedup {
                speedup: 1.5,
                low: 1.4,
                high: 1.6,
                rounds: 12,
                replicas: 4,
                weakest: None,
                disturbed: None,
            }),
            times_us: None,
            discovered: true,
            across_jobs: None,
        };
        let jobs = [tuned];
        let both: Vec<_> = timed(&jobs, std::slice::from_ref(&row)).collect();
        assert_eq!(both.len(), 1);
        assert_eq!(both[0].1, [1.3, 1.5]);
    }

    #[test]
    fn each_confirmation_adds_its_job_and_a_size_that_moves_between_jobs_says_so() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("validation.csv"),
            "collective,procs,msg_bytes,decision,speedup,low,high,kept\n\
             bcast,2,4096,linear,1.44,1.4,1.5,true\n\
             bcast,2,65536,linear,2.0,1.9,2.1,true\n\
             bcast,2,262144,linear,1.5,1.45,1.55,true\n",
        )
        .unwrap();
        let confirm = Confirm {
            rules: dir.path().join("rules"),
            out_dir: dir.path().join("confirmed"),
            report: Some(dir.path().join("report.md")),
        };
        std::fs::create_dir_all(&confirm.out_dir).unwrap();
        let job = |x: [f64; 3]| -> Vec<Validation> {
            [4096, 65536, 262_144]
                .into_iter()
                .zip(x)
                .map(|(m, s)| linear_bcast(m, s, 0.03, true))
                .collect()
        };
        // The second job: 4 KiB in the other state of the machine.
        let mut second = job([3.2, 2.02, 1.52]);
        across_jobs(&confirm.earlier(), &mut second);
        confirm.record(&second).unwrap();
        let mut third = job([3.1, 1.98, 1.49]);
        let earlier = confirm.earlier();
        assert_eq!(earlier.len(), 2);
        assert_eq!(
            earlier[1].iter().map(|r| r.1).collect::<Vec<_>>(),
            [3.2, 2.02, 1.52]
        );
        across_jobs(&earlier, &mut third);
        // Pooled over the three sizes: 2 degrees of freedom each.
        let ln = |x: [f64; 3]| x.map(f64::ln);
        let ss = |x: [f64; 3]| {
            let l = ln(x);
            let m = l.iter().sum::<f64>() / 3.0;
            l.iter().map(|v| (v - m).powi(2)).sum::<f64>()
        };
        let sizes = [[1.44, 3.2, 3.1], [2.0, 2.02, 1.98], [1.5, 1.52, 1.49]];
        let pooled = sizes.iter().map(|x| ss(*x)).sum::<f64>() / 6.0;
        let check = |x: [f64; 3], var: f64, t: f64, a: &AcrossJobs| {
            let mean = ln(x).iter().sum::<f64>() / 3.0;
            let half = t * (var / 3.0).sqrt();
            assert!((a.speedup.speedup - mean.exp()).abs() < 1e-9);
            assert!((a.speedup.low - (mean - half).exp()).abs() < 1e-6, "{a:?}");
            assert!((a.speedup.high - (mean + half).exp()).abs() < 1e-5, "{a:?}");
            assert_eq!(a.speedup.rounds, 3);
            // One more job: the spread between jobs and the mean's own,
            // var (1 + 1/3), twice the half-width of the mean's.
            let next = t * (var * 4.0 / 3.0).sqrt();
            assert!((next - 2.0 * half).abs() < 1e-12);
            assert!((a.next_job.low - (mean - next).exp()).abs() < 1e-6, "{a:?}");
            assert!(
                (a.next_job.high - (mean + next).exp()).abs() < 1e-5,
                "{a:?}"
            );
        };
        // 4 KiB moved more than the others: its own spread (t with 2
        // degrees of freedom) is what the report gives, and it holds the
        // mean of the two states, while the pooled one decides: it held.
        let four = third[0].across_jobs.unwrap();
        check(sizes[0], ss(sizes[0]) / 2.0, 4.302_653, &four);
        assert!(four.speedup.low < (1.44f64 * 3.2).sqrt() && four.speedup.low < 1.0);
        assert!(four.held && third[0].kept());
        // The others moved less than the pooled spread: it is theirs, and
        // Student's t the three jobs' (two degrees of freedom), not the six
        // the three sizes pooled: the sizes of a job share its state.
        for (x, v) in sizes[1..].iter().zip(&third[1..]) {
            check(*x, pooled, 4.302_653, &v.across_jobs.unwrap());
            assert!(v.kept());
        }
        confirm.record(&third).unwrap();
        let csv = std::fs::read_to_string(confirm.out_dir.join(CONFIRMATIONS)).unwrap();
        assert!(csv.starts_with("job,collective,procs,msg_bytes,decision,speedup,"));
        assert_eq!(csv.lines().filter(|l| l.starts_with("2,bcast")).count(), 3);
        assert_eq!(confirm.earlier().len(), 3);
        let text = across_table(&confirm.earlier()[..2], &third);
        assert!(
            text.contains("| MPI_Bcast | 2 | 4 KiB | linear | 1.44, 3.20, 3.10 |"),
            "{text}"
        );
        assert!(text.contains("every size (6 degrees of freedom)"), "{text}");
        // One size timed in two jobs (one degree of freedom): it holds
        // where it was at least 1.05 in both.
        let alone = |tuned: f64, now: f64| {
            let job = vec![(
                (String::from("bcast"), 2, 4096, String::from("linear")),
                tuned,
            )];
            let mut row = [linear_bcast(4096, now, 0.03, true)];
            across_jobs(&[job], &mut row);
            row[0].verdict()
        };
        assert_eq!(alone(2.33, 2.78), Verdict::Kept);
        assert_eq!(alone(1.04, 1.3), Verdict::Unsteady);
        // A size that moved from 1.44x to 1.06x between tune's job and
        // this one held in this one, but not across the two.
        let mut slower = job([1.06, 2.0, 1.5]);
        assert!(slower[0].kept());
        across_jobs(&confirm.earlier()[..1], &mut slower);
        assert_eq!(slower[0].verdict(), Verdict::Unsteady);
    }

    #[test]
    fn a_version_two_header_stays_first() {
        let text = format!("rule-file-version-2\n{FILE}");
        let rules = read_tuned(text.as_bytes(), true).unwrap();
        let s = switches(&rules, 4);
        let out = rewrite(
            &text,
            &rules,
            &s,
            &vec![Verdict::Slower; s.len()],
            "4 ranks",
        );
        assert!(out.starts_with("rule-file-version-2\n# Confirmed"));
        let again = read_tuned(out.as_bytes(), true).unwrap();
        assert!(again
            .sections
            .iter()
            .flat_map(|s| &s.blocks)
            .flat_map(|b| &b.rules)
            .all(|r| r.alg == 0));
    }
}
