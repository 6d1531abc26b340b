//! Exploring: the first pass (every algorithm once at every message size),
//! the seed lattice of segment sizes and fan-outs, and the rounds of
//! plan -> bench that measure what the models doubt most, within the
//! exploring share of the budget.

use super::coverage;
use super::{
    decode, encode, grids_procs, local, measured, sizes_of, Budget, Grid, TuneOptions, EXPLORE,
};
use crate::bench::points;
use crate::bench::{self, CommPart, Session};
use crate::data::{Candidate, Collective, Config, Dataset};
use crate::error::{Error, Result};
use crate::plan::{choose, score, Settings};
use crate::report;
use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

/// Below this expected regret (ln time: about 1% slower than the best) one
/// more measurement cannot change a decision by more than a benchmark's
/// own noise; the rounds stop.
const CONVERGED: f64 = 0.01;

/// Rounds measure this share of the grid each (at least one
/// configuration): small enough to re-plan often, large enough that a
/// round is not all start-up.
const ROUND_SHARE: usize = 10;

/// The first pass's part of exploring, spread evenly over its points as a
/// cap on each: points that converge sooner leave their time to the rounds
/// (other segment sizes and fan-outs, the models' doubts); where every
/// point needs its cap, the rounds still get the other half. A pass too
/// large for its part goes on into the rounds' (it comes first), with each
/// point cut to its cap.
const FIRST_PASS: f64 = 0.5;

/// The first pass (see [`coverage`]): every grid's base points not yet
/// measured, communicator size by communicator size, largest first, each
/// size collective by collective, within the exploring share of the
/// budget, spread evenly over the points (each call gets its points' share
/// of what is left). Rank 0 plans and says each call; everyone measures.
pub(super) fn first_pass(on: Passes, data: &Path, costs: &mut coverage::Costs) -> Result<()> {
    pass(on, (data, Look::First), costs)
}

/// What a pass over the base points works on: the run, its grids (points
/// of every grid in one index space from `offsets`), which points are base
/// points, and the budget.
#[derive(Clone, Copy)]
pub(super) struct Passes<'a> {
    pub(super) session: &'a Session,
    pub(super) args: &'a TuneOptions,
    pub(super) grids: &'a [Grid],
    pub(super) offsets: &'a [usize],
    pub(super) bases: &'a [Vec<bool>],
    pub(super) budget: &'a Budget,
}

/// Which pass over the base points.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Look {
    First,
    Second,
}

/// A second look at the first pass's points, where exploring ended before
/// its share of the budget (`ended`, rank 0's) with at least
/// [`SECOND_LOOK`] times the first pass's `took` seconds left:
/// the base points timed again, minutes later, into their own file, then
/// added to `data`, where a point's two times count by their median. A
/// machine's state can last the whole first pass: on the 2-core VM a job
/// disturbed from its start timed the 4 KiB reduce's 2x winner slower
/// than `default` and never proposed it (mc81 in
/// `experiments/validation.md`), and two CPU-bound processes beside the
/// first 25 s of a tune lost the 4 KiB broadcast's 3x winner without the
/// barrier probe seeing it. The time is what exploring would leave
/// unused; a resumed run whose data holds a second look takes none. Rank
/// 0 decides; collective.
pub(super) fn second_look(
    on: Passes,
    (data, ended): (&Path, Stopped),
    (costs, took): (&mut coverage::Costs, f64),
) -> Result<()> {
    let (session, budget) = (on.session, on.budget);
    let rank0 = session.rank() == 0;
    let left = budget.left(EXPLORE).as_secs_f64();
    let room = ended != Stopped::Budget && left >= SECOND_LOOK * took;
    // A resumed run whose data has its second look already takes none.
    let looked = || {
        on.grids
            .iter()
            .any(|g| measured(data, g.collective).is_ok_and(|d| d.duplicate_rows() > 0))
    };
    let go = session.share(vec![u8::from(rank0 && room && !looked())])[0] == 1;
    if !go {
        return Ok(());
    }
    let second = data.with_file_name("second-look.csv");
    if rank0 {
        eprintln!(
            "tune: a second look at the first pass's points ({:.0} s of exploring left; the \
             first pass took {took:.0} s): each point's time is then the median of both",
            left
        );
    }
    pass(on, (second.as_path(), Look::Second), costs)?;
    // Rank 0 alone writes `data` and trains on it.
    if rank0 {
        if let Err(e) = append_rows(&second, data) {
            eprintln!("tune: warning: the second look is not used: {e}");
        }
    }
    Ok(())
}

/// Exploring left this many times the first pass's time: room for a
/// second look that leaves the rounds' doubts and validation theirs.
const SECOND_LOOK: f64 = 2.0;

/// Appends the rows of the campaign file `from` to the campaign file `to`
/// (both written by bench, one header), then removes `from`.
fn append_rows(from: &Path, to: &Path) -> Result<()> {
    use std::io::Write;
    let text = std::fs::read_to_string(from)
        .map_err(|e| Error::io(format!("cannot read {}", from.display()), e))?;
    let rows: String = text.lines().skip(1).map(|l| format!("{l}\n")).collect();
    let mut out = std::fs::OpenOptions::new()
        .append(true)
        .open(to)
        .map_err(|e| Error::io(format!("cannot append to {}", to.display()), e))?;
    out.write_all(rows.as_bytes())
        .map_err(|e| Error::io(format!("cannot append to {}", to.display()), e))?;
    std::fs::remove_file(from)
        .map_err(|e| Error::io(format!("cannot remove {}", from.display()), e))
}

/// One pass over the base points not yet in `data` (see [`first_pass`]).
fn pass(on: Passes, (data, look): (&Path, Look), costs: &mut coverage::Costs) -> Result<()> {
    let Passes {
        session,
        args,
        grids,
        offsets,
        bases,
        budget,
    } = on;
    let rank0 = session.rank() == 0;
    let announce = rank0 && look == Look::First;
    // What the file holds already (a resumed run), read by rank 0; a file
    // it cannot read stops every rank.
    let done: Result<Vec<Dataset>> = match rank0 {
        true => grids.iter().map(|g| measured(data, g.collective)).collect(),
        false => Ok(Vec::new()),
    };
    let done = match (session.first_failing(done.is_err()), done) {
        (None, Ok(done)) => done,
        (_, Err(e)) => return Err(e),
        (Some(_), Ok(_)) => return Err(Error::Reported(1)),
    };
    // Rank 0's calls: (communicator size, global point indices).
    let mut calls: Vec<(u32, Vec<usize>)> = Vec::new();
    let mut already = 0;
    // Communicator sizes, the job's own (the largest) first.
    let sizes: Vec<u32> = grids_procs(grids).into_iter().rev().collect();
    if rank0 {
        let measured: Vec<_> = done.iter().map(coverage::measured_points).collect();
        // On each size, the smaller messages of every collective before the
        // larger ones of any: where large messages are slow (a slow network,
        // a slow component) the budget that runs out leaves every
        // collective explored up to some size, not some collectives
        // everywhere and the others nowhere.
        for &p in &sizes {
            let mut bands: Vec<Vec<(u32, Vec<usize>)>> = vec![Vec::new(); SIZE_BANDS];
            for (g, grid) in grids.iter().enumerate() {
                let msg_sizes: std::collections::BTreeSet<u64> = grid
                    .points
                    .iter()
                    .filter(|(c, _)| c.procs == p)
                    .map(|(c, _)| c.msg_bytes)
                    .collect();
                let band_of =
                    |m: u64| msg_sizes.range(..m).count() * SIZE_BANDS / msg_sizes.len().max(1);
                let mut mine = vec![Vec::new(); SIZE_BANDS];
                for (i, point) in grid.points.iter().enumerate() {
                    if !bases[g][i] || point.0.procs != p {
                        continue;
                    }
                    match measured[g].contains(point) {
                        true => already += 1,
                        false => mine[band_of(point.0.msg_bytes)].push(offsets[g] + i),
                    }
                }
                for (band, call) in bands.iter_mut().zip(mine) {
                    if !call.is_empty() {
                        band.push((p, call));
                    }
                }
            }
            calls.extend(bands.into_iter().flatten());
        }
    }
    let points: usize = calls.iter().map(|(_, c)| c.len()).sum();
    if announce {
        let order: Vec<String> = sizes.iter().map(u32::to_string).collect();
        eprintln!(
            "tune: first pass: every algorithm of every collective once (unsegmented, default \
             fan-out) at every message size, on {} ranks in turn: {points} points{}; \
             exploring has {:.0} s of the {:.0} s budget",
            order.join(", then "),
            match already {
                0 => String::new(),
                n => format!(" ({n} more already measured)"),
            },
            args.time_budget.as_secs_f64() * EXPLORE,
            args.time_budget.as_secs_f64()
        );
    }
    // Each point gets at most its even share of the first pass's part of
    // exploring (rank 0's figure, for everyone: ranks that stop a point at
    // different iterations never meet again); points cheaper than that
    // leave the rest to the rounds, and the pass stops early only where
    // exploring's whole share is spent.
    let cap = FIRST_PASS * budget.left(EXPLORE).as_secs_f64() / points.max(1) as f64;
    let cap = f64::from_le_bytes(
        session.share(cap.to_le_bytes().to_vec())[..8]
            .try_into()
            .expect("8 bytes"),
    );
    let mut remaining = points;
    // The calls of the largest size (the job's own).
    let first_size = calls.iter().take_while(|(p, _)| *p == calls[0].0).count();
    let started = Instant::now();
    let mut at = 0;
    loop {
        let left = budget.left(EXPLORE);
        let chosen = match calls.get(at) {
            Some((_, call)) if rank0 && !left.is_zero() => call.clone(),
            _ => Vec::new(),
        };
        let chosen = decode(&session.share(encode(&chosen)));
        if chosen.is_empty() {
            break;
        }
        let g = offsets.iter().rposition(|&o| o <= chosen[0]).unwrap_or(0);
        let mine = local(&chosen, offsets[g], grids[g].points.len());
        remaining = remaining.saturating_sub(mine.len());
        let timing = bench::BenchOptions {
            max_seconds: args.timing.max_seconds.min(cap),
            ..args.timing.clone()
        };
        let args = TuneOptions {
            timing,
            ..args.clone()
        };
        measure(session, &args, &grids[g], &mine, left, data, costs)?;
        at += 1;
        // After the job's own size: what the rest of the pass will take.
        let size_done = calls.get(at).is_none_or(|next| next.0 != calls[at - 1].0);
        if announce && size_done && at == first_size && remaining > 0 {
            let p = calls[at - 1].0;
            let rest: Vec<(Collective, u32)> = calls[at..]
                .iter()
                .flat_map(|(p, call)| {
                    call.iter().map(move |&i| {
                        let g = offsets.iter().rposition(|&o| o <= i).unwrap_or(0);
                        (grids[g].collective, *p)
                    })
                })
                .collect();
            let need: f64 = rest
                .iter()
                .filter_map(|&(c, p)| costs.per_point(c, p))
                .sum();
            eprintln!(
                "tune: first pass at {p} ranks done in {:.0} s; the rest of it ({} points) \
                 needs about {}, {:.0} s of exploring left",
                started.elapsed().as_secs_f64(),
                rest.len(),
                report::tune::about(need),
                budget.left(EXPLORE).as_secs_f64()
            );
        }
    }
    if announce && at < calls.len() {
        eprintln!(
            "tune: the budget ran out in the first pass: {} of its calls not made (the report \
             says which collectives were not explored, and what a first pass would take)",
            calls.len() - at
        );
    }
    Ok(())
}

/// The first pass measures each communicator size in this many bands of
/// message sizes (each collective's smallest third first).
const SIZE_BANDS: usize = 3;

/// Seed: every candidate that is not a base point on a lattice of
/// configurations (every third along message size and communicator size,
/// shifted per size), within half the exploring share, collective after
/// collective: segment sizes and fan-outs get a few measurements each
/// before the models' doubts choose (a candidate measured too rarely
/// cannot be priced). Nothing where the first pass took that half.
pub(super) fn seed(
    session: &Session,
    args: &TuneOptions,
    grids: &[Grid],
    bases: &[Vec<bool>],
    data: &Path,
    budget: &Budget,
    costs: &mut coverage::Costs,
) -> Result<()> {
    let lattices: Vec<Vec<usize>> = grids
        .iter()
        .zip(bases)
        .map(|(grid, base)| {
            (0..grid.points.len())
                .filter(|&i| !base[i] && lattice(args, &grid.points[i].0))
                .collect()
        })
        .collect();
    let seed_share = 0.5 * EXPLORE;
    let used = budget.spent();
    if used >= seed_share {
        return Ok(());
    }
    if session.rank() == 0 {
        for (grid, seed) in grids.iter().zip(&lattices) {
            eprintln!(
                "tune: {}: {} communicator sizes x {} message sizes, {} points; seed {} points",
                grid.collective.function(),
                sizes_of(&grid.points),
                grid.collective.message_sizes(&args.sizes).len(),
                grid.points.len(),
                seed.len()
            );
        }
    }
    let part = |g: usize| (g + 1) as f64 / grids.len() as f64;
    for (g, (grid, seed)) in grids.iter().zip(&lattices).enumerate() {
        if !seed.is_empty() {
            let left = budget.left(used + (seed_share - used) * part(g));
            measure(session, args, grid, seed, left, data, costs)?;
        }
    }
    Ok(())
}

/// Rounds of plan -> bench over every grid (`offsets`: where each grid's
/// points start in one index space) until the exploring share is spent,
/// every point is measured, or no measurement is expected to change a
/// decision. Rank 0 plans (while its budget lasts: every rank's clock
/// differs, so only its own decides); everyone measures what it chose.
pub(super) fn explore(
    session: &Session,
    args: &TuneOptions,
    grids: &[Grid],
    offsets: &[usize],
    data: &Path,
    budget: &Budget,
    costs: &mut coverage::Costs,
) -> Result<Stopped> {
    let total: usize = grids.iter().map(|g| g.points.len()).sum();
    // Why exploring stopped (rank 0 knows).
    let mut ended = Stopped::Budget;
    // How often each point (global index) was planned: one planned twice
    // and still unmeasured is one bench leaves out (it said why) and is
    // not planned again, or its configuration, unpriced, would head every
    // round. (Once may be a round the budget cut short.)
    let mut planned: BTreeMap<usize, u32> = BTreeMap::new();
    for round in 1.. {
        let left = budget.left(EXPLORE);
        let mut chosen = Vec::new();
        if session.rank() == 0 && !left.is_zero() {
            let mut scored = Vec::new();
            for (grid, offset) in grids.iter().zip(offsets) {
                let measured = measured(data, grid.collective)?;
                let open: Vec<usize> = (0..grid.points.len())
                    .filter(|i| planned.get(&(i + offset)).is_none_or(|&n| n < 2))
                    .collect();
                let points: Vec<_> = open.iter().map(|&i| grid.points[i]).collect();
                for mut s in score(&measured, &points, &Settings::default())? {
                    s.points.iter_mut().for_each(|i| *i = open[*i] + offset);
                    scored.push(s);
                }
            }
            // The most valuable configurations of any collective first.
            scored.sort_by(|a, b| b.regret.total_cmp(&a.regret));
            if scored.is_empty() {
                match planned.values().any(|&n| n >= 2) {
                    true => eprintln!("tune: every point of the grid that bench runs is measured"),
                    false => eprintln!("tune: every point of the grid is measured"),
                }
                ended = Stopped::Everything;
            }
            let top = scored.iter().map(|s| s.regret).fold(0.0, f64::max);
            let per_round =
                (total / ROUND_SHARE).max(scored.iter().map(|s| s.points.len()).max().unwrap_or(0));
            if top >= CONVERGED {
                chosen = choose(&scored, per_round);
                chosen
                    .iter()
                    .for_each(|&i| *planned.entry(i).or_default() += 1);
            } else if !scored.is_empty() {
                eprintln!("tune: converged: no measurement is expected to change a decision by 1%");
                ended = Stopped::Converged;
            }
            if !chosen.is_empty() {
                eprintln!(
                    "tune: round {round}: {} points planned (largest expected regret {top:.4}), \
                     {:.0} s left to explore",
                    chosen.len(),
                    left.as_secs_f64()
                );
            }
        }
        let chosen = decode(&session.share(encode(&chosen)));
        if chosen.is_empty() {
            return Ok(ended);
        }
        for (grid, &offset) in grids.iter().zip(offsets) {
            let mine = local(&chosen, offset, grid.points.len());
            if !mine.is_empty() {
                measure(
                    session,
                    args,
                    grid,
                    &mine,
                    budget.left(EXPLORE),
                    data,
                    costs,
                )?;
            }
        }
    }
    Ok(ended)
}

/// Why the rounds of exploring stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Stopped {
    /// The exploring share of the budget was spent.
    Budget,
    /// No measurement was expected to change a decision by 1%.
    Converged,
    /// Every point of the grid was measured.
    Everything,
}

/// Whether a configuration is on the seed lattice.
fn lattice(args: &TuneOptions, c: &Config) -> bool {
    let size = args
        .sizes
        .iter()
        .position(|&m| m == c.msg_bytes)
        .unwrap_or(0);
    let procs = c.procs.ilog2() as usize;
    (size + procs).is_multiple_of(3)
}

/// Measures the points `chosen` of `grid` (collective), appending to
/// `data`; what it cost goes into `costs` (rank 0's, which has every
/// communicator size's outcome).
fn measure(
    session: &Session,
    args: &TuneOptions,
    grid: &Grid,
    chosen: &[usize],
    budget: Duration,
    data: &Path,
    costs: &mut coverage::Costs,
) -> Result<()> {
    let selected: Vec<(Config, Candidate)> = chosen.iter().map(|&i| grid.points[i]).collect();
    let parts: Vec<CommPart> = points::listed(&selected)
        .into_iter()
        .map(|p| CommPart {
            mapping: args.mapping,
            ..p
        })
        .collect();
    let budget = Some(budget.max(Duration::from_millis(1)));
    let opts = bench::BenchOptions {
        collective: grid.collective,
        parts,
        out: data.to_path_buf(),
        time_budget: budget,
        ..args.timing.clone()
    };
    for outcome in session.measure(&opts)? {
        costs.probed(outcome.job.procs, outcome.quietest_probe);
        costs.add(
            grid.collective,
            outcome.job.procs,
            outcome.seconds,
            outcome.measured,
        );
    }
    Ok(())
}

/// Per grid, what the run measured (rank 0, after exploring).
pub(super) fn covered(
    grids: &[Grid],
    bases: &[Vec<bool>],
    data: &Path,
) -> Result<Vec<Vec<coverage::Covered>>> {
    grids
        .iter()
        .zip(bases)
        .map(|(g, base)| {
            let measured = measured(data, g.collective)?;
            Ok(coverage::covered(&g.points, base, &measured))
        })
        .collect()
}
