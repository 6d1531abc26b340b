//! Validating: each switch away from `default` timed against it in paired
//! rounds of fresh samples over replicas, and the run's tests controlled
//! together.

use super::{local, Grid, TuneOptions};
use crate::bench::compare::{Arm, Batch, Compared, Request, RoundLimits};
use crate::bench::{self, Session};
use crate::data::Candidate;
use crate::error::Result;
use crate::select::validation::{self, Validation};
use std::time::Duration;

/// One grid's validations: each switch's point (an index into the grid) and
/// its comparison with `default` (`None`: the time ran out first).
pub(super) type Validations = Vec<(usize, Option<Compared>)>;

/// Times each switch (a grid point) against `default` in paired rounds,
/// within `budget`: every grid's switches together, per communicator size
/// in the order given, their replicas spread over the whole budget
/// ([`Session::compare_spread`]). Collective; rank 0 has the results.
pub(super) fn validate(
    session: &Session,
    args: &TuneOptions,
    grids: &[Grid],
    offsets: &[usize],
    switches: &[usize],
    budget: Duration,
) -> Result<Vec<Validations>> {
    let mut batches = Vec::new();
    // Per grid, per communicator size: the grid point of each request.
    let mut orders: Vec<Vec<Vec<usize>>> = Vec::new();
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
        if session.rank() == 0 && !mine.is_empty() {
            eprintln!(
                "tune: validating {} switches of {} from default on fresh samples",
                mine.len(),
                grid.collective.function()
            );
        }
        batches.push(Batch {
            collective: grid.collective,
            sizes,
            timing: bench::BenchOptions {
                collective: grid.collective,
                ..args.timing.clone()
            },
        });
        orders.push(order);
    }
    let results =
        session.compare_spread(&batches, &RoundLimits::replicated(), budget.as_secs_f64())?;
    // Rank 0 takes part in every size; the others keep nothing.
    Ok(orders
        .into_iter()
        .zip(results)
        .map(|(order, results)| {
            order
                .into_iter()
                .zip(results)
                .flat_map(|(points, results)| points.into_iter().zip(results))
                .collect()
        })
        .collect())
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
            rows.push(Validation::timed(
                grid.collective,
                config.procs,
                config.msg_bytes,
                *candidate,
                measured.and_then(|c| c.timed(1)),
            ));
        }
    }
    rows.sort_by_key(|v| (v.collective, v.procs, v.msg_bytes));
    validation::discoveries(&mut rows);
    rows
}
