//! Deciding: a model per collective trained on what was measured, its
//! decisions per job size, and the switches away from `default` they make.

use super::{measured, model_dir, Grid, TuneOptions};
use crate::data::{Config, Dataset, Impl};
use crate::error::{warn_all, Result};
use crate::select::decision::{DecisionTable, Job};
use crate::select::validation::Validation;
use crate::train::{self, store, SelectorChoice, Trained};
use std::time::{Duration, Instant};

/// One collective's model and its decision tables, one per job size.
pub(super) struct Decided {
    pub(super) trained: Trained,
    pub(super) data: Dataset,
    pub(super) label: String,
    pub(super) tables: Vec<DecisionTable>,
    /// How long training took.
    pub(super) training: Duration,
}

/// Trains a model per collective on what was measured (saving each) and
/// decides every tuned size, each for the placement it was measured on
/// (the rules format keys on size alone). Rank 0, no MPI needed.
pub(super) fn decide(args: &TuneOptions, grids: &[Grid]) -> Result<Vec<Option<Decided>>> {
    let dir = &args.out_dir;
    let data_path = dir.join("data.csv");
    let mut out = Vec::new();
    for grid in grids {
        eprintln!(
            "tune: training {} on {}",
            grid.collective.function(),
            data_path.display()
        );
        let started = Instant::now();
        let data = measured(&data_path, grid.collective)?;
        if data.measurements().is_empty() {
            out.push(None);
            continue;
        }
        let (mut trained, notes) = train::fit(&data, &args.learning, || {})?;
        warn_all(&notes);
        trained.manifest.training_files = vec![data_path.display().to_string()];
        store::save(&model_dir(dir, grid.collective), &trained)?;
        let mut jobs: Vec<Job> = grid.points.iter().map(|(c, _)| Job::of(c)).collect();
        jobs.sort_by_key(|j| j.procs);
        jobs.dedup_by_key(|j| j.procs);
        let sizes: Vec<u64> = grid
            .points
            .iter()
            .map(|(c, _)| c.msg_bytes)
            // A barrier's decisions are at size 0, its only one.
            .filter(|&m| !grid.collective.returns_at_once(m))
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect();
        let decider = trained.decider(SelectorChoice::Auto)?;
        let label = trained.label(SelectorChoice::Auto);
        // Under MPICH `default` is its device layer's choice, which its
        // selection file cannot name: the file decides among MPICH's
        // algorithms, each then validated against `default`.
        let allowed = grid
            .under_mpich()
            .then(|| trained.allowed(|c| c.implementation == Impl::Mpich).0);
        let tables = jobs
            .into_iter()
            .map(|job| DecisionTable::new(&decider, job, label.clone(), &sizes, allowed.as_deref()))
            .collect::<Result<Vec<_>>>()?;
        out.push(Some(Decided {
            trained,
            data,
            label,
            tables,
            training: started.elapsed(),
        }));
    }
    Ok(out)
}

/// Every switch from `default` in the decisions, as the index of its grid
/// point (in the index space of `offsets`), the largest expected gain over
/// the measured `default` first: if time runs short, what matters most is
/// validated. A switch off the grid (none should be) is left out, and so
/// reverts.
pub(super) fn switches(
    grids: &[Grid],
    offsets: &[usize],
    decided: &[Option<Decided>],
) -> Vec<usize> {
    let mut out: Vec<(f64, usize)> = Vec::new();
    for ((grid, offset), d) in grids.iter().zip(offsets).zip(decided) {
        let Some(d) = d else { continue };
        let default_us = |config: &Config| {
            d.data
                .measurements()
                .iter()
                .find(|m| m.config == *config && m.candidate.is_default())
                .map_or(f64::NAN, |m| m.time_us)
        };
        for table in &d.tables {
            for decision in &table.decisions {
                let candidate = decision.choice.candidate;
                if candidate.is_default() {
                    continue;
                }
                let config = table.job.config(decision.msg_bytes);
                if let Some(i) = grid.points.iter().position(|p| *p == (config, candidate)) {
                    let gain = default_us(&config) / decision.choice.predicted_us;
                    out.push((if gain.is_finite() { gain } else { 0.0 }, offset + i));
                }
            }
        }
    }
    out.sort_by(|a, b| b.0.total_cmp(&a.0));
    out.into_iter().map(|(_, i)| i).collect()
}

/// The runner-up of each switch that did not hold in `rows` (slower, or
/// not faster by enough), as the index of its grid point, where it is a
/// candidate other than `default` on the grid. Two candidates that the
/// exploration timed alike can part in validation (on the 2-core VM a
/// job's state makes split-binary of 4 KiB with 64 KiB segments and
/// without tie in one state and 3x apart in the other,
/// `experiments/validation.md`): the runner-up is validated in its place
/// before the size goes back to `default`. Not under MPICH, whose file
/// holds MPICH's part whole or the tune's (`report::tune::takes_selection`).
pub(super) fn second_chances(
    grids: &[Grid],
    offsets: &[usize],
    decided: &[Option<Decided>],
    rows: &[Validation],
) -> Vec<usize> {
    let mut out = Vec::new();
    for ((grid, offset), d) in grids.iter().zip(offsets).zip(decided) {
        let Some(d) = d.as_ref().filter(|_| !grid.under_mpich()) else {
            continue;
        };
        for table in &d.tables {
            for decision in &table.decisions {
                let Some(runner_up) = decision.runner_up.filter(|r| !r.candidate.is_default())
                else {
                    continue;
                };
                let failed = rows.iter().any(|v| {
                    v.collective == grid.collective
                        && v.procs == table.job.procs
                        && v.msg_bytes == decision.msg_bytes
                        && v.decision == decision.choice.candidate
                        && v.speedup.is_some()
                        && !v.kept()
                });
                if !failed || decision.choice.candidate.is_default() {
                    continue;
                }
                let point = (table.job.config(decision.msg_bytes), runner_up.candidate);
                if let Some(i) = grid.points.iter().position(|p| *p == point) {
                    out.push(offset + i);
                }
            }
        }
    }
    out
}
