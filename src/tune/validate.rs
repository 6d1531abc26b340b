//! Validating: each switch away from `default` timed against it in paired
//! rounds of fresh samples over replicas, and the run's tests controlled
//! together.

use super::{local, Grid, TuneOptions};
use crate::bench::compare::{Arm, Compared, Request, RoundLimits};
use crate::bench::{self, Session};
use crate::data::Candidate;
use crate::error::Result;
use crate::select::validation::{self, Validation};
use std::time::{Duration, Instant};

/// One grid's validations: each switch's point (an index into the grid) and
/// its comparison with `default` (`None`: the time ran out first).
pub(super) type Validations = Vec<(usize, Option<Compared>)>;

/// Times each switch (a grid point) against `default` in paired rounds,
/// within `budget` shared out over them: per grid, per communicator size,
/// the switches in the order given. Collective; rank 0 has the results.
pub(super) fn validate(
    session: &Session,
    args: &TuneOptions,
    grids: &[Grid],
    offsets: &[usize],
    switches: &[usize],
    budget: Duration,
) -> Result<Vec<Validations>> {
    let start = Instant::now();
    let mut left_to_do = switches.len();
    let mut out = Vec::new();
    for (grid, &offset) in grids.iter().zip(offsets) {
        let mine = local(switches, offset, grid.points.len());
        // Per communicator size (and mapping), in the order of `mine`.
        let mut sizes: Vec<(Option<u32>, crate::data::Mapping, Vec<Request>)> = Vec::new();
        let mut order: Vec<Vec<usize>> = Vec::new();
        for &i in &mine {
            let (config, candidate) = grid.points[i];
            let request = Request {
                msg_bytes: config.msg_bytes,
                arms: vec![Arm::Forced(Candidate::DEFAULT), Arm::Forced(candidate)],
            };
            match sizes.iter().position(|s| s.0 == Some(config.procs)) {
                Some(k) => {
                    sizes[k].2.push(request);
                    order[k].push(i);
                }
                None => {
                    sizes.push((Some(config.procs), args.mapping, vec![request]));
                    order.push(vec![i]);
                }
            }
        }
        if mine.is_empty() {
            out.push(Vec::new());
            continue;
        }
        let left = budget.saturating_sub(start.elapsed()).as_secs_f64();
        let seconds = left * mine.len() as f64 / left_to_do.max(1) as f64;
        left_to_do -= mine.len();
        if session.rank() == 0 {
            eprintln!(
                "tune: validating {} switches of {} from default on fresh samples (up to {seconds:.0} s)",
                mine.len(),
                grid.collective.function()
            );
        }
        let opts = bench::BenchOptions {
            collective: grid.collective,
            ..args.timing.clone()
        };
        let results = session.compare(
            grid.collective,
            &sizes,
            &opts,
            &RoundLimits::replicated(),
            seconds,
        )?;
        // Rank 0 takes part in every size; the others keep nothing.
        let compared = order
            .into_iter()
            .zip(results)
            .flat_map(|(points, results)| points.into_iter().zip(results))
            .collect();
        out.push(compared);
    }
    Ok(out)
}

/// The validation of each switch, from what [`validate`] measured (rank 0).
pub(super) fn validations(
    grids: &[Grid],
    offsets: &[usize],
    switches: &[usize],
    compared: &[Validations],
) -> Vec<Validation> {
    let mut rows = Vec::new();
    for ((grid, offset), results) in grids.iter().zip(offsets).zip(compared) {
        for &global in switches {
            let Some(i) = global.checked_sub(*offset) else {
                continue;
            };
            let Some((config, candidate)) = grid.points.get(i) else {
                continue;
            };
            let measured = results
                .iter()
                .find(|(j, _)| *j == i)
                .and_then(|(_, c)| c.as_ref());
            rows.push(Validation {
                collective: grid.collective,
                procs: config.procs,
                msg_bytes: config.msg_bytes,
                decision: *candidate,
                speedup: measured.and_then(|c| c.speedup(1)),
                times_us: measured.map(|c| (c.mean_us(0), c.mean_us(1))),
                // Set over the whole run below.
                discovered: false,
                across_jobs: None,
            });
        }
    }
    rows.sort_by_key(|v| (v.collective, v.procs, v.msg_bytes));
    validation::discoveries(&mut rows);
    rows
}
