//! What a tune leaves: `validation.csv`, the rules (or MPICH's selection
//! file), the models' validations, the pictures and the report.

use super::coverage;
use super::decide::Decided;
use super::explore::Stopped;
use super::{grids_procs, model_dir, sizes_of, write, Budget, Grid, TuneOptions, EXPLORE};
use crate::data::Collective;
use crate::error::Result;
use crate::evaluate::{evaluate, split, Split};
use crate::export::{self, Format};
use crate::report;
use crate::select::decision::DecisionTable;
use crate::select::validation::{self, Validation};
use crate::train::store;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Says what validation found; returns what the summary says of the
/// budget: what was left of it and why, or what it did not cover.
pub(super) fn report_budget(
    rows: &[Validation],
    unused: Duration,
    ended: Stopped,
    total: Duration,
) -> String {
    let unmeasured = rows.iter().filter(|v| v.speedup.is_none()).count();
    let kept = rows.iter().filter(|v| v.kept()).count();
    eprintln!(
        "tune: validated {} switches from default (the runner-ups of those that did not \
         hold among them): {kept} kept",
        rows.len() - unmeasured
    );
    if unmeasured > 0 {
        format!(
            "The budget ran out before {unmeasured} switch(es) were validated: they keep \
             `default` (a larger --time-budget validates them)."
        )
    } else if unused.as_secs_f64() >= 1.0 {
        let why = match ended {
            Stopped::Converged => "the rounds had converged",
            Stopped::Everything => "every point of the grid was measured",
            Stopped::Budget => "exploring had its share",
        };
        format!(
            "{:.0} s of the {:.0} s budget left unused: every switch from `default` was \
             validated and {why}.",
            unused.as_secs_f64(),
            total.as_secs_f64()
        )
    } else {
        format!("The whole {:.0} s budget was used.", total.as_secs_f64())
    }
}

/// Writes the validated rules of every collective into one rules file
/// (and HAN's), `validation.csv` and the report (rank 0, no MPI needed). A
/// collective nothing of was measured (`None`) has no part in the rules:
/// the library keeps its own choice, which the report says.
pub(super) fn finish(
    args: &TuneOptions,
    grids: &[Grid],
    decided: Vec<Option<Decided>>,
    rows: &[Validation],
    coverage: &Coverage,
    budget: &Budget,
    budget_note: String,
) -> Result<()> {
    let dir = &args.out_dir;
    write(&dir.join("validation.csv"), &validation::csv(rows))?;
    let under_mpich = grids.iter().any(Grid::under_mpich);
    // The collectives measured: (grid index, decisions).
    let measured: Vec<(usize, &Decided)> = decided
        .iter()
        .enumerate()
        .filter_map(|(i, d)| d.as_ref().map(|d| (i, d)))
        .collect();
    let mut sections = Vec::new();
    let mut reverted = Vec::new();
    // Under MPICH: whether each collective's part of the selection file is
    // the tune's (see `report::tune::takes_selection`).
    let mut taken = Vec::new();
    // Each collective's validations.
    let validated: Vec<Vec<Validation>> = grids
        .iter()
        .map(|grid| {
            let mine = rows.iter().filter(|v| v.collective == grid.collective);
            mine.cloned().collect()
        })
        .collect();
    for &(i, d) in &measured {
        let grid = &grids[i];
        // `predict` from the model then ships what validation kept.
        store::save_validation(&model_dir(dir, grid.collective), &validated[i])?;
        let mut tables = d.tables.clone();
        let back = match under_mpich {
            // The file holds an MPICH algorithm at every size, or MPICH's
            // own part for the collective.
            true => Vec::new(),
            false => validation::apply(grid.collective, &mut tables, rows),
        };
        reverted.push(back);
        taken.push(report::tune::takes_selection(&validated[i]));
        sections.push(export::Section {
            collective: grid.collective,
            tables,
        });
    }
    let export_options = |d: &Decided| export::ExportOptions {
        rules_version: 1,
        origin: format!(
            "tune into {}, learner {}, switches validated",
            dir.display(),
            d.label
        ),
        system: d.trained.manifest.training.system(),
        mpich_base: args.mpich_base.clone(),
    };
    let rules = dir.join("rules");
    let selection = dir.join("mpich.json");
    match (under_mpich, measured.first()) {
        (true, _) => {
            let mine: Vec<export::Section> = sections
                .iter()
                .zip(&taken)
                .filter(|(_, t)| **t)
                .map(|(s, _)| s.clone())
                .collect();
            let base = args.mpich_base.as_ref();
            write(&selection, &export::mpich_json::render(&mine, base)?)?;
            for (&(i, _), t) in measured.iter().zip(&taken) {
                let what = match t {
                    true => "the tune's decisions",
                    false => "MPICH's own part (validation did not prove it)",
                };
                eprintln!(
                    "tune: {}: {} holds {what}",
                    grids[i].collective.function(),
                    selection.display()
                );
            }
        }
        (false, Some(&(_, first))) => {
            let options = export_options(first);
            write(
                &rules,
                &export::render(&sections, Format::OmpiRules, &options)?,
            )?;
            // Open MPI 5 gives these collectives across nodes to coll/han:
            // its file hands them to tuned where a tuned algorithm was
            // chosen.
            write(
                &dir.join("han.rules"),
                &export::render(&sections, Format::OmpiHan, &options)?,
            )?;
        }
        (false, None) => eprintln!(
            "tune: warning: nothing was measured, so no rules are written (a larger \
             --time-budget measures something)"
        ),
    }
    let held: Vec<Option<std::result::Result<String, String>>> = grids
        .iter()
        .enumerate()
        .map(|(i, grid)| {
            let k = measured.iter().position(|&(j, _)| j == i)?;
            Some(held_out(args, grid, measured[k].1, budget))
        })
        .collect();
    let mut decisions = Vec::new();
    let mut pictures = Vec::new();
    for (k, &(i, d)) in measured.iter().enumerate() {
        let one = std::slice::from_ref(&sections[k]);
        decisions.push(export::render(one, Format::Table, &export_options(d))?);
        pictures.push(draw(
            dir,
            grids[i].collective,
            &sections[k].tables,
            &validated[i],
            under_mpich && !taken[k],
        ));
    }
    let tuned: Vec<report::tune::TunedReport> = grids
        .iter()
        .enumerate()
        .map(|(i, grid)| {
            let explored = report::tune::Explored {
                covered: &coverage.covered[i],
                first_pass_seconds: coverage.first_pass_seconds(grids, i),
                explore_seconds: coverage.explore_seconds,
            };
            let shipping =
                measured
                    .iter()
                    .position(|&(j, _)| j == i)
                    .map(|k| report::tune::Shipping {
                        shipped: match under_mpich {
                            true => report::tune::Shipped::Mpich {
                                selection: &selection,
                                taken: taken[k],
                            },
                            false => report::tune::Shipped::OpenMpi { rules: &rules },
                        },
                        tables: &sections[k].tables,
                        decisions: &decisions[k],
                        validations: &validated[i],
                        reverted: &reverted[k],
                        held_out: match &held[i] {
                            Some(Ok(text)) => Ok(text.as_str()),
                            Some(Err(why)) => Err(why.as_str()),
                            None => Err("nothing measured"),
                        },
                        pictures: pictures[k].clone(),
                    });
            report::tune::TunedReport {
                collective: grid.collective,
                explored,
                shipping,
            }
        })
        .collect();
    let unexplored = coverage.covered.iter().flatten().any(|c| !c.explored());
    let whole: Option<f64> = (0..grids.len())
        .map(|g| coverage.first_pass_seconds(grids, g))
        .sum();
    let run = report::summary::TuneRun {
        dir,
        tuned: &tuned,
        sizes: &args.sizes,
        procs: &grids_procs(grids),
        budget: budget_note,
        whole_first_pass: whole.filter(|_| unexplored).map(|s| s / EXPLORE),
        explored_disturbed: coverage.explored_disturbed,
    };
    // Everything the report tells is written already: a report that cannot
    // be written is a warning, not a failed job.
    if let Err(e) = write(&dir.join("report.md"), &report::summary::report(&run)) {
        eprintln!("tune: warning: {e}");
    }
    eprintln!("tune: wrote {}\n", dir.display());
    eprint!("{}", report::summary::summary(&run));
    Ok(())
}

/// The pictures of what a collective ships, relative to the tune's
/// directory: none where nothing switches (`stays`: MPICH keeps its own
/// choice for it). A picture that cannot be drawn costs itself, never the
/// report or the run.
fn draw(
    dir: &Path,
    collective: Collective,
    tables: &[DecisionTable],
    validations: &[Validation],
    stays: bool,
) -> report::shipped_plots::Pictures {
    let mut none = report::shipped_plots::Pictures::default();
    if stays || !validations.iter().any(Validation::kept) {
        return none;
    }
    let folder = format!("plots{}", collective.describe().file_suffix);
    let shipped = report::shipped_plots::Shipment {
        function: collective.function(),
        tables,
        validations,
    };
    match report::shipped_plots::write(&shipped, &dir.join(&folder)) {
        Ok(p) => {
            let relative = |f: Option<PathBuf>| {
                f.and_then(|f| f.file_name().map(|n| Path::new(&folder).join(n)))
            };
            none.speedup = relative(p.speedup);
            none.decisions = relative(p.decisions);
        }
        Err(e) => eprintln!(
            "tune: warning: no pictures of {}: {e}",
            collective.function()
        ),
    }
    none
}

/// The evaluation on communicator sizes held out of training, as markdown
/// (its plots written beside the report), or why there is none: fewer than
/// 3 sizes, a split evaluate refuses, or no time left to train again.
fn held_out(
    args: &TuneOptions,
    grid: &Grid,
    d: &Decided,
    budget: &Budget,
) -> std::result::Result<String, String> {
    if budget.left(1.0) < d.training {
        return Err("the budget ran out before it (it trains the models again)".to_string());
    }
    if sizes_of(&grid.points) < 3 {
        return Err("fewer than 3 communicator sizes".to_string());
    }
    let fraction = Split::Procs {
        fraction: 0.3,
        seed: 1,
    };
    let (train, test) = split(&d.data, fraction).map_err(|e| e.to_string())?;
    // A held-out split evaluate refuses (say, no `default` row on its side)
    // leaves the report without it, not the job without rules.
    let evaluated = evaluate(&train, &test, &args.learning, || {}).map_err(|e| {
        eprintln!(
            "tune: no held-out evaluation of {}: {e}",
            grid.collective.function()
        );
        e.to_string()
    })?;
    let suffix = grid.collective.describe().file_suffix;
    let plots_dir = args.out_dir.join(format!("plots{suffix}"));
    // A plot that cannot be drawn costs its picture, never the report or
    // the run.
    match report::plots::write(&evaluated, &plots_dir) {
        Ok(plots) => eprintln!(
            "tune: wrote {} plots into {}",
            plots.len(),
            plots_dir.display()
        ),
        Err(e) => eprintln!("tune: warning: no plots in {}: {e}", plots_dir.display()),
    }
    report::render(&evaluated, report::ReportFormat::Markdown).map_err(|e| e.to_string())
}

/// What the report says of coverage.
pub(super) struct Coverage<'a> {
    /// Per grid.
    pub(super) covered: &'a [Vec<coverage::Covered>],
    pub(super) costs: &'a coverage::Costs,
    pub(super) bases: &'a [Vec<bool>],
    /// The exploring share of the budget.
    pub(super) explore_seconds: f64,
    /// Where exploring met the machine only in a slower state than
    /// validation did ([`coverage::Costs::explored_disturbed`]).
    pub(super) explored_disturbed: Option<(u32, f64, f64)>,
}

impl Coverage<'_> {
    /// About how long grid `g`'s whole first pass takes on this job.
    fn first_pass_seconds(&self, grids: &[Grid], g: usize) -> Option<f64> {
        let procs: Vec<u32> = grids[g]
            .points
            .iter()
            .zip(&self.bases[g])
            .filter(|(_, &b)| b)
            .map(|((c, _), _)| c.procs)
            .collect();
        self.costs.estimate(grids[g].collective, &procs)
    }
}
