//! A campaign: its parts measured in turn, each point's runner made,
//! timed and written as a row of the CSV (what is measured already is
//! skipped), within the time budget.

use super::machine_state::Quiet;
use super::points::Point;
use super::progress::Progress;
use super::runner::{Buffers, Controls, Runner};
use super::session::{each_size, library_version, reported, Session};
use super::stats::IterationTimes;
use super::timing::{measure, Timing};
use super::{control, delay, mpich, points, topology};
use super::{BenchOptions, CampaignOutcome, CommPart, Root, MAX_MESSAGE};
use crate::data::write::{CsvWriter, RowMeta, HEADER};
use crate::data::{load, Candidate, Collective, Config, Dataset, Impl, Mapping, Measurement};
use crate::error::{Error, Result};
use crate::units::format_bytes;
use mpi::collective::{Root as _, SystemOperation};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::time::{Duration, Instant};

/// Runs a campaign on this process's MPI job: each part of `opts` in turn,
/// on the whole job or on a sub-communicator. Returns the outcomes (rank 0
/// has them all), or the error with this process's rank (so that only rank
/// 0 prints it).
pub fn run(opts: &BenchOptions) -> (i32, Result<Vec<CampaignOutcome>>) {
    match Session::start(opts.parts.iter().any(CommPart::uses_library)) {
        Ok(session) => (session.rank(), session.measure(opts)),
        Err(e) => (0, Err(e)),
    }
    // The session drops here: MPI_Finalize on every rank.
}

impl Session {
    /// Measures the parts of `opts` (collective).
    pub fn measure(&self, opts: &BenchOptions) -> Result<Vec<CampaignOutcome>> {
        match opts.parts.as_slice() {
            [whole] if whole.procs.is_none() => {
                reported(&self.world, campaign(&self.world, opts, whole)).map(|o| vec![o])
            }
            _ => campaigns(&self.world, opts),
        }
    }
}

/// One campaign per part of `opts`, each on a sub-communicator of the
/// job's ranks chosen as the part's mapping says; the other ranks wait.
/// The time budget is shared: each part gets what the earlier ones left.
pub(super) fn campaigns(
    world: &SimpleCommunicator,
    opts: &BenchOptions,
) -> Result<Vec<CampaignOutcome>> {
    let start = Instant::now();
    let sizes: Vec<(Option<u32>, Mapping)> =
        opts.parts.iter().map(|p| (p.procs, p.mapping)).collect();
    each_size(world, &sizes, |i, sub| {
        // Rank 0's budget and clock decide what is left, for everyone: a
        // budget handed in differs between ranks by their clocks (tune's
        // does), and ranks that time points against different caps stop
        // measuring at different iterations and never meet again.
        let mut left = opts
            .time_budget
            .map_or(0.0, |b| b.saturating_sub(start.elapsed()).as_secs_f64());
        sub.process_at_rank(0).broadcast_into(&mut left);
        let sized = BenchOptions {
            time_budget: opts.time_budget.map(|_| Duration::from_secs_f64(left)),
            ..opts.clone()
        };
        campaign(sub, &sized, &opts.parts[i])
    })
}

pub(super) fn campaign(
    world: &SimpleCommunicator,
    opts: &BenchOptions,
    part: &CommPart,
) -> Result<CampaignOutcome> {
    let rank = world.rank();
    let procs = world.size() as u32;
    let placement = topology::detect(world).map_err(Error::Usage)?;
    let roots = resolve_roots(&opts.roots, procs)?;
    let collective = opts.collective;
    let control = if part.uses_library() {
        match control::TunedControl::open(collective) {
            Ok(control) => Some(control),
            // `default` is the library's own call and needs no control: a
            // library without Open MPI's tuned component (MPICH) still
            // measures it.
            Err(_) if !part.forces_ompi() => None,
            Err(e) => return Err(Error::Other(e)),
        }
    } else {
        None
    };
    let mpich = match part.forces_mpich() {
        true => Some(mpich::MpichControl::open(collective).map_err(Error::Other)?),
        false => None,
    };
    let controls = Controls {
        tuned: control.as_ref(),
        mpich: mpich.as_ref(),
    };
    let points = &runnable(
        collective,
        &part.points,
        (procs, placement.nodes),
        controls,
        rank == 0,
    );
    let largest = points.iter().map(|p| p.msg_bytes).max().unwrap_or(0);
    if largest > MAX_MESSAGE {
        return Err(Error::Usage(format!(
            "message size {largest} exceeds the {MAX_MESSAGE} bytes one {} can carry",
            collective.function()
        )));
    }
    let element = collective.element_bytes();
    if let Some(p) = points.iter().find(|p| !p.msg_bytes.is_multiple_of(element)) {
        return Err(Error::Usage(format!(
            "{} sums {element}-byte floats (MPI_FLOAT, as the OSU benchmarks do): message \
             size {} is not a multiple of {element}",
            collective.function(),
            p.msg_bytes
        )));
    }
    let job = Config {
        procs,
        nodes: placement.nodes,
        ppn: placement.ppn,
        mapping: placement.mapping,
        msg_bytes: 0,
        imbalance: 0.0,
        arrival: part.arrival,
    };

    // Rank 0 owns the file: it reads what is there and tells the others.
    let mut writer = None;
    let mut done = vec![0u8; points.len()];
    let mut status: i32 = 0;
    if rank == 0 {
        match prepare_output(&opts.out, points, &job, collective) {
            Ok((w, flags)) => {
                writer = Some(w);
                done = flags.iter().map(|&f| u8::from(f)).collect();
            }
            Err(e) => {
                status = 1;
                share_status(world, &mut status);
                return Err(e);
            }
        }
    }
    share_status(world, &mut status);
    if status != 0 {
        return Err(Error::Other("rank 0 could not open the output file".into()));
    }
    // MPI refuses a broadcast of nothing from an empty buffer (a round of
    // `tune` may plan no point for a size).
    if !done.is_empty() {
        world.process_at_rank(0).broadcast_into(&mut done[..]);
    }

    let todo: Vec<usize> = (0..points.len()).filter(|&i| done[i] == 0).collect();
    let meta = row_meta(opts);
    let progress = Progress::new(rank == 0, todo.len());
    let (mut store, mut buffers) = Buffers::new(collective, largest, procs);
    let buf: &mut [u8] = bytemuck::cast_slice_mut(&mut store);
    world.barrier();
    let clock = Clock::start();
    let mut missing = Vec::new();
    let mut p2p_us = std::collections::HashMap::new();
    let mut quiet = Quiet::default();
    for (k, &i) in todo.iter().enumerate() {
        let point = points[i];
        let now = clock.elapsed(world);
        let mut cap = opts.max_seconds;
        if let Some(budget) = opts.time_budget.map(|b| b.as_secs_f64()) {
            // Every run measures at least one point: a budget too small for
            // anything still moves a resumed campaign forward.
            if now >= budget && k > 0 {
                missing = todo[k..].iter().map(|&j| points[j]).collect();
                break;
            }
            // Share what is left evenly over the points still to measure.
            cap = cap.min((budget - now) / (todo.len() - k) as f64);
        }
        progress.start(&point);
        let msg = &mut buf[..collective.local_bytes(procs, point.msg_bytes) as usize];
        // T(m), the unit of the injected delays: measured once per size, so
        // every candidate of a size meets the same delays.
        if part.arrival.per_rank_time() && !p2p_us.contains_key(&point.msg_bytes) {
            let t = delay::p2p_time_us(world, roots[0], (roots[0] + 1) % procs, msg);
            if rank == 0 {
                progress.note(&format!(
                    "bench: T({}) = {t:.1} us point-to-point, the unit of the delays",
                    format_bytes(point.msg_bytes)
                ));
            }
            p2p_us.insert(point.msg_bytes, t);
        }
        let unit_us = point.imbalance * p2p_us.get(&point.msg_bytes).copied().unwrap_or(0.0);
        let runner = Runner::new(world, controls, &point, &roots, collective)?;
        quiet.settle(world, now);
        let timing = measure(
            world,
            &runner,
            &point,
            &roots,
            (msg, &mut buffers),
            unit_us,
            cap,
            opts,
            part.arrival,
        )
        .map_err(Error::Other)?;
        if let Some(w) = writer.as_mut() {
            let row = measurement(&points::config(&job, part.arrival, &point), &point, &timing);
            // Which Open MPI component ran a library broadcast.
            let component = match (point.candidate.implementation, control.as_ref()) {
                (Impl::Ompi, Some(c)) => c.component(&point.candidate, job.nodes),
                _ => "",
            };
            if let Err(e) = w.write_served(&row, &meta, component) {
                eprintln!("error: {e}; stopping the campaign");
                world.abort(1);
            }
        }
        progress.finish_point();
    }
    progress.done();
    Ok(CampaignOutcome {
        rank,
        job,
        planned: points.len(),
        already: points.len() - todo.len(),
        measured: todo.len() - missing.len(),
        missing,
        seconds: clock.elapsed(world),
        quietest_probe: quiet.lowest(),
    })
}

fn share_status(world: &SimpleCommunicator, status: &mut i32) {
    world.process_at_rank(0).broadcast_into(status);
}

pub(super) fn resolve_roots(roots: &[Root], procs: u32) -> Result<Vec<u32>> {
    roots
        .iter()
        .map(|r| match *r {
            Root::Last => Ok(procs - 1),
            Root::Rank(r) if r < procs => Ok(r),
            Root::Rank(r) => Err(Error::Usage(format!(
                "root {r} is not a rank of this {procs}-rank job"
            ))),
        })
        .collect()
}

/// The points that can run on `procs` ranks over `nodes` nodes of this
/// library, the others left out with a note from rank 0: Open MPI's
/// two-rank algorithms elsewhere, forced algorithms this Open MPI or MPICH
/// does not have, MPICH's algorithms where it would fall back to its own
/// choice.
pub(super) fn runnable(
    collective: Collective,
    points: &[Point],
    (procs, nodes): (u32, u32),
    controls: Controls,
    rank0: bool,
) -> Vec<Point> {
    let mut left = std::collections::BTreeSet::new();
    let kept = points
        .iter()
        .copied()
        .filter(|p| {
            let c = &p.candidate;
            let why = cannot_run(collective, c, (procs, nodes), p.msg_bytes, controls);
            let kept = why.is_none();
            if let Some(why) = why {
                left.insert((c.algorithm, c.implementation, why));
            }
            kept
        })
        .collect();
    for (algorithm, implementation, why) in left.into_iter().filter(|_| rank0) {
        eprintln!(
            "bench: {algorithm} (impl {implementation}) on {procs} ranks: left out where it \
             cannot run ({why})"
        );
    }
    kept
}

/// Why `c` cannot run at `msg_bytes` on `procs` ranks over `nodes` nodes
/// of this library (`None`: it can): Open MPI's two-rank algorithms
/// elsewhere, forced algorithms this Open MPI or MPICH does not have (as
/// far as `controls` were opened), MPICH's algorithms where it would fall
/// back to its own choice. `bench` leaves such points out, `tune` never
/// plans them.
pub(crate) fn cannot_run(
    collective: Collective,
    c: &Candidate,
    (procs, nodes): (u32, u32),
    msg_bytes: u64,
    controls: Controls,
) -> Option<String> {
    match c.implementation {
        Impl::Ompi | Impl::Own if !collective.runs_on(c.algorithm, procs) => {
            Some("Open MPI runs it on 2 ranks only".to_string())
        }
        Impl::Ompi if !c.is_default() && controls.tuned.is_some_and(|t| !t.has(c.algorithm)) => {
            Some("this Open MPI does not have it".to_string())
        }
        Impl::Ompi | Impl::Own => None,
        Impl::Mpich if controls.mpich.is_some_and(|m| !m.has(c.algorithm)) => {
            Some("this MPICH does not have it".to_string())
        }
        Impl::Mpich => collective
            .mpich_algorithm(c.algorithm)
            .and_then(|m| m.unfit(procs, nodes, msg_bytes / collective.element_bytes())),
    }
}

/// Opens the CSV for appending and marks the points it already holds.
fn prepare_output(
    out: &std::path::Path,
    points: &[Point],
    job: &Config,
    collective: Collective,
) -> Result<(CsvWriter<std::io::BufWriter<std::fs::File>>, Vec<bool>)> {
    // Opening first drops a row an earlier kill cut short.
    let writer = CsvWriter::append(out)?;
    // The file may hold other collectives' rows too.
    let choice = load::SystemFilter {
        collective: Some(collective),
        ..load::SystemFilter::default()
    };
    let existing = match std::fs::metadata(out) {
        Ok(m) if m.len() > HEADER.join(",").len() as u64 + 1 => {
            match load::load_files(&[out.to_path_buf()], &choice) {
                Ok(loaded) => loaded.dataset,
                Err(Error::Usage(e)) if e.contains("no rows") => Dataset::default(),
                Err(e) => return Err(e),
            }
        }
        _ => Dataset::default(),
    };
    Ok((writer, points::already_measured(points, job, &existing)))
}

fn row_meta(opts: &BenchOptions) -> RowMeta {
    let host = mpi::environment::processor_name().unwrap_or_default();
    let machine = opts.machine.clone().unwrap_or(host);
    let mpi = library_version();
    RowMeta {
        system: crate::data::System {
            machine,
            mpi,
            collective: opts.collective,
        },
        source: format!("collsel {} bench", env!("CARGO_PKG_VERSION")),
    }
}

pub(super) fn measurement(config: &Config, point: &Point, timing: &Timing) -> Measurement {
    let s = &timing.samples;
    let ci = s.ci95();
    Measurement {
        config: *config,
        candidate: point.candidate,
        // A zero-byte broadcast can finish below the timer's resolution;
        // the schema needs a positive time.
        time_us: ns(s.mean()).max(1e-3),
        time_min_us: Some(ns(s.min())),
        // With an arrival pattern: the slowest rank's time, on average.
        time_max_us: Some(ns(timing
            .worst
            .as_ref()
            .map_or(s.max(), IterationTimes::mean))),
        ci95_us: ci.is_finite().then(|| ns(ci)),
        reps: Some(s.len() as u64),
        rows: 1,
    }
}

/// Microseconds rounded to nanoseconds, the timer's resolution at best.
pub(super) fn ns(us: f64) -> f64 {
    (us * 1e3).round() / 1e3
}

/// Seconds since the campaign started, identical on every rank.
struct Clock(f64);

impl Clock {
    fn start() -> Clock {
        Clock(mpi::time())
    }

    fn elapsed(&self, world: &SimpleCommunicator) -> f64 {
        let local = mpi::time() - self.0;
        let mut global = 0.0;
        world.all_reduce_into(&local, &mut global, SystemOperation::max());
        global
    }
}
