//! The harness itself: MPI start-up, the campaign loop, timing and
//! verification of each point (see the module docs of [`super`]).

use super::points::Point;
use super::stats::Samples;
use super::{control, delay, exec, exec_arrival, mpich, payload, points, topology};
use super::{Options, Outcome, Part, Root, MAX_MESSAGE};
use crate::collective::Combines;
use crate::data::write::{CsvWriter, RowMeta, HEADER};
use crate::data::{load, Candidate, Collective, Config, Dataset, Impl, Mapping, Measurement};
use crate::error::{Error, Result};
use crate::schedule::{LocalOp, Schedule, Span, Spec, Working};
use crate::units::format_bytes;
use indicatif::{ProgressBar, ProgressStyle};
use mpi::collective::{Root as _, SystemOperation};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::cell::Cell;
use std::io::IsTerminal;
use std::time::{Duration, Instant};

/// Runs a campaign on this process's MPI job: each part of `opts` in turn,
/// on the whole job or on a sub-communicator. Returns the outcomes (rank 0
/// has them all), or the error with this process's rank (so that only rank
/// 0 prints it).
pub fn run(opts: &Options) -> (i32, Result<Vec<Outcome>>) {
    match Session::start(opts.parts.iter().any(Part::uses_library)) {
        Ok(session) => (session.rank(), session.measure(opts)),
        Err(e) => (0, Err(e)),
    }
    // The session drops here: MPI_Finalize on every rank.
}

/// An MPI job kept open over several campaigns (`tune` measures, plans and
/// measures again in one job).
pub struct Session {
    pub(super) world: SimpleCommunicator,
    /// Each rank's node, for placing sub-communicators.
    names: Vec<i32>,
    // Last: MPI_Finalize when dropped, after the communicators.
    _universe: mpi::environment::Universe,
}

impl Session {
    /// Starts MPI; `library`: forced library algorithms will be measured
    /// (Open MPI must be told before MPI_Init).
    pub fn start(library: bool) -> Result<Session> {
        if library {
            control::enable_dynamic_rules();
            mpich::prepare_environment();
        }
        let universe =
            mpi::initialize().ok_or_else(|| Error::Other("MPI was already initialized".into()))?;
        let world = universe.world();
        let names = topology::node_names(&world);
        warn_if_shared(&world);
        Ok(Session {
            world,
            names,
            _universe: universe,
        })
    }

    pub fn rank(&self) -> i32 {
        self.world.rank()
    }

    pub fn size(&self) -> u32 {
        self.world.size() as u32
    }

    /// Where a `procs`-rank sub-communicator taken as `mapping` says would
    /// run (what `measure` will detect there); `None` past the job's size.
    pub fn placement(
        &self,
        procs: u32,
        mapping: crate::data::Mapping,
    ) -> Option<topology::Detected> {
        let members = topology::members(&self.names, procs as usize, mapping)?;
        let names: Vec<i32> = members.iter().map(|&r| self.names[r as usize]).collect();
        topology::classify(&names).ok()
    }

    /// The MPI library this job runs.
    pub fn library(&self) -> crate::library::Library {
        crate::library::Library::detect(&[library_version()].into())
    }

    /// Measures the parts of `opts` (collective).
    pub fn measure(&self, opts: &Options) -> Result<Vec<Outcome>> {
        match opts.parts.as_slice() {
            [whole] if whole.procs.is_none() => {
                reported(&self.world, campaign(&self.world, opts, whole)).map(|o| vec![o])
            }
            _ => campaigns(&self.world, opts),
        }
    }

    /// Waits for every rank, without spinning (collective).
    pub fn wait_all(&self) {
        quiet_barrier(&self.world);
    }

    /// The lowest rank where `failed` holds, on every rank (collective).
    pub fn first_failing(&self, failed: bool) -> Option<i32> {
        let mine = if failed { self.rank() } else { i32::MAX };
        let mut first = i32::MAX;
        self.world
            .all_reduce_into(&mine, &mut first, SystemOperation::min());
        (first != i32::MAX).then_some(first)
    }

    /// Rank 0's bytes, on every rank (collective). The others wait without
    /// spinning: rank 0 may be training for a while.
    pub fn share(&self, bytes: Vec<u8>) -> Vec<u8> {
        quiet_barrier(&self.world);
        let root = self.world.process_at_rank(0);
        let mut len = bytes.len() as u64;
        root.broadcast_into(&mut len);
        let mut out = if self.rank() == 0 {
            bytes
        } else {
            vec![0u8; len as usize]
        };
        // MPI refuses a broadcast of nothing from an empty buffer.
        if len > 0 {
            root.broadcast_into(&mut out[..]);
        }
        out
    }
}

/// Warns (rank 0) when ranks share cores: some node runs more ranks than
/// the cores they may run on together (the union of their affinity masks).
/// Ranks that share a core wait for each other's time slices, and how the
/// OS interleaves them changes from job to job: on 2 cores the same 1 MiB
/// broadcast of 3 ranks took 0.1 ms in one job and 0.3-0.8 ms in others,
/// bound or not (`experiments/validation.md`), so what such a job measures
/// holds for that job only. Collective.
fn warn_if_shared(world: &SimpleCommunicator) {
    let node = world.split_shared(world.rank());
    let mine = topology::allowed_cpus();
    let mut union = vec![0u64; mine.len()];
    node.all_reduce_into(&mine[..], &mut union[..], SystemOperation::bitwise_or());
    let cores = union.iter().map(|w| w.count_ones()).sum::<u32>() as i32;
    // No mask (not Linux): nothing known.
    let shared = if cores > 0 && node.size() > cores {
        [node.size(), cores]
    } else {
        [0, 0]
    };
    let mut worst = [0i32; 2];
    world.all_reduce_into(&shared[..], &mut worst[..], SystemOperation::max());
    if worst[0] > 0 && world.rank() == 0 {
        eprintln!(
            "warning: {} ranks share {} cores on a node: ranks that share a core time \
             differently from job to job, so timings, decisions and their validated effect \
             hold for this job only; run at most one rank per core",
            worst[0], worst[1]
        );
    }
}

/// Failures are collective (every rank of `comm` checks the same things,
/// and rank 0 shares its own); rank 0 reports before anyone exits, since
/// mpirun kills the job at the first non-zero exit.
fn reported<T>(comm: &SimpleCommunicator, result: Result<T>) -> Result<T> {
    result.map_err(|e| {
        if comm.rank() == 0 {
            eprintln!("error: {e}");
        }
        comm.barrier();
        Error::Reported(e.exit_code())
    })
}

/// A barrier that sleeps while it waits: ranks idle during another size's
/// campaign must not spin on cores the timed ranks need (MPI_Barrier
/// busy-polls).
fn quiet_barrier(comm: &SimpleCommunicator) {
    let mut request = comm.immediate_barrier();
    loop {
        match request.test() {
            Ok(_) => return,
            Err(pending) => {
                request = pending;
                std::thread::sleep(Duration::from_millis(10));
            }
        }
    }
}

/// One campaign per part of `opts`, each on a sub-communicator of the
/// job's ranks chosen as the part's mapping says; the other ranks wait.
/// The time budget is shared: each part gets what the earlier ones left.
fn campaigns(world: &SimpleCommunicator, opts: &Options) -> Result<Vec<Outcome>> {
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
        let sized = Options {
            time_budget: opts.time_budget.map(|_| Duration::from_secs_f64(left)),
            ..opts.clone()
        };
        campaign(sub, &sized, &opts.parts[i])
    })
}

/// Runs `work` for each of `sizes` in turn (a communicator size, `None`:
/// the whole job, and how its ranks are taken from the job's nodes) on a
/// sub-communicator of that many ranks; the others wait without spinning.
/// Every size is checked before any runs, and a failure on one size stops
/// every rank together (rank 0, in every sub-communicator, reports it).
/// Returns the results of the sizes this rank took part in: rank 0 has
/// them all.
pub(super) fn each_size<T>(
    world: &SimpleCommunicator,
    sizes: &[(Option<u32>, Mapping)],
    mut work: impl FnMut(usize, &SimpleCommunicator) -> Result<T>,
) -> Result<Vec<T>> {
    let names = topology::node_names(world);
    let mut members = Vec::with_capacity(sizes.len());
    for &(procs, mapping) in sizes {
        let procs = procs.unwrap_or(world.size() as u32);
        let Some(ranks) = topology::members(&names, procs as usize, mapping) else {
            return reported(
                world,
                Err(Error::Usage(format!(
                    "communicator size {procs} exceeds the job's {} ranks (--procs or --points)",
                    world.size()
                ))),
            );
        };
        members.push(ranks);
    }
    let mut results = Vec::new();
    for (i, ranks) in members.iter().enumerate() {
        let color = if ranks.contains(&world.rank()) {
            mpi::topology::Color::with_value(0)
        } else {
            mpi::topology::Color::undefined()
        };
        let sub = world.split_by_color(color);
        let result = match &sub {
            Some(sub) => reported(sub, work(i, sub)).map(Some),
            None => Ok(None),
        };
        quiet_barrier(world);
        // Everyone learns whether the size failed, and stops together.
        let failed = i32::from(result.is_err());
        let mut any = 0;
        world.all_reduce_into(&failed, &mut any, SystemOperation::max());
        match result {
            Err(e) => return Err(e),
            Ok(_) if any != 0 => return Err(Error::Reported(2)),
            Ok(Some(r)) => results.push(r),
            Ok(None) => {}
        }
    }
    Ok(results)
}

fn campaign(world: &SimpleCommunicator, opts: &Options, part: &Part) -> Result<Outcome> {
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
    Ok(Outcome {
        rank,
        job,
        planned: points.len(),
        already: points.len() - todo.len(),
        measured: todo.len() - missing.len(),
        missing,
        seconds: clock.elapsed(world),
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
fn runnable(
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
    let choice = load::Choice {
        collective: Some(collective),
        ..load::Choice::default()
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

/// The first line of the MPI library's version string.
pub fn library_version() -> String {
    mpi::environment::library_version()
        .unwrap_or_default()
        .lines()
        .next()
        .unwrap_or_default()
        .trim_matches(char::from(0))
        .trim()
        .to_string()
}

fn row_meta(opts: &Options) -> RowMeta {
    let host = mpi::environment::processor_name().unwrap_or_default();
    let machine = opts.machine.clone().unwrap_or(host);
    let mpi = library_version();
    RowMeta {
        system: crate::data::System {
            machine,
            mpi,
            collective: opts.collective,
        },
        source: format!("bcast-select {} bench", env!("CARGO_PKG_VERSION")),
    }
}

/// A campaign's memory besides the message: the root's result of a
/// library reduction (a library allgather's block to send), and where our
/// reductions receive partial results.
pub(super) struct Buffers {
    out: Vec<f32>,
    scratch: Vec<u8>,
}

impl Buffers {
    /// The buffer of messages of up to `largest` bytes on `procs` ranks
    /// (floats underneath, so that MPI_Reduce can take the bytes as
    /// MPI_FLOAT) and the other memory of `collective`.
    pub(super) fn new(collective: Collective, largest: u64, procs: u32) -> (Vec<f32>, Buffers) {
        let floats = |bytes: u64| (bytes as usize).div_ceil(4);
        // Written through, not zeroed: a zeroed allocation's pages are
        // mapped at their first write, so the first candidate measured at a
        // new largest size paid the page faults (`default`, 1.5x slower at
        // 1 MiB on 4 ranks than the same algorithm forced after it).
        let buffers = Buffers {
            out: vec![
                1f32;
                match collective {
                    Collective::Bcast
                    | Collective::Alltoall
                    | Collective::Gather
                    | Collective::Scatter
                    | Collective::Barrier => 0,
                    Collective::Reduce
                    | Collective::Allreduce
                    | Collective::Allgather
                    | Collective::ReduceScatter
                    | Collective::ReduceScatterBlock => floats(largest),
                }
            ],
            scratch: Vec::new(),
        };
        let buffer = collective.local_bytes(procs, largest);
        (vec![1f32; floats(buffer)], buffers)
    }
}

/// How one point's collective is executed.
pub(super) enum Runner {
    /// Our schedule: this rank's operations for each root, in root order.
    Own {
        comm: SimpleCommunicator,
        ops: Vec<Vec<LocalOp>>,
        /// A copy within the rank's memory for each root, made first (an
        /// alltoall's block to itself, a gather's or scatter's root's own
        /// block between its send and receive buffers).
        copies: Vec<Option<(Span, Span)>>,
        /// The working memory Open MPI's algorithm allocates and fills every
        /// call, per root (see [`Schedule::working_memory`]).
        fresh: Vec<Vec<Working>>,
        /// Where each block of a reduce-scatter's vector lies in the rank's
        /// memory, in block order (see [`crate::schedule::reduce_scatter`]);
        /// empty for the other collectives.
        places: Vec<Span>,
    },
    /// The library's own collective on a communicator configured for the
    /// candidate (Open MPI's), or forced around each call (MPICH's).
    Library {
        comm: SimpleCommunicator,
        collective: Collective,
        forcing: Option<mpich::Forcing>,
    },
    /// The arrival-aware broadcast: its rounds are decided as ranks arrive.
    Arrival {
        comm: SimpleCommunicator,
        segsize: u64,
    },
}

/// What a campaign opened to force the libraries' algorithms.
#[derive(Clone, Copy, Default)]
pub(crate) struct Controls<'a> {
    /// Open MPI's tuned component's variables.
    pub(crate) tuned: Option<&'a control::TunedControl>,
    /// MPICH's algorithm variables.
    pub(crate) mpich: Option<&'a mpich::MpichControl>,
}

impl Runner {
    pub(super) fn new(
        world: &SimpleCommunicator,
        controls: Controls,
        point: &Point,
        roots: &[u32],
        collective: Collective,
    ) -> Result<Runner> {
        let c = &point.candidate;
        let library = |comm, forcing| Runner::library(comm, collective, forcing);
        match c.implementation {
            Impl::Own if c.algorithm == crate::data::Algorithm::Arrival => Ok(Runner::Arrival {
                comm: world.duplicate(),
                segsize: c.segsize.unwrap_or(0),
            }),
            Impl::Own => {
                let rank = world.rank() as u32;
                let schedules = roots
                    .iter()
                    .map(|&root| {
                        Schedule::new(spec(world.size() as u32, root, point, collective))
                            .map_err(Error::Usage)
                    })
                    .collect::<Result<Vec<_>>>()?;
                let ops = schedules
                    .iter()
                    .map(|s| s.local_ops(rank).map_err(Error::Other))
                    .collect::<Result<_>>()?;
                Ok(Runner::Own {
                    comm: world.duplicate(),
                    ops,
                    copies: schedules.iter().map(|s| s.local_copy(rank)).collect(),
                    fresh: schedules.iter().map(|s| s.working_memory(rank)).collect(),
                    places: match (collective.describe().semantics.combines, schedules.first()) {
                        (Some(Combines::BlockAtEachRank), Some(s)) => {
                            (0..s.spec.procs).map(|i| s.needs_at_end(i)).collect()
                        }
                        _ => Vec::new(),
                    },
                })
            }
            Impl::Ompi => match controls.tuned {
                None if c.is_default() => Ok(library(world.duplicate(), None)),
                None => Err(Error::Other(
                    "Open MPI's algorithms requested without MPI_T control".into(),
                )),
                Some(tuned) => {
                    let comm = tuned.communicator(world, c).map_err(Error::Other)?;
                    Ok(library(comm, None))
                }
            },
            Impl::Mpich => {
                let mpich = controls.mpich.ok_or_else(|| {
                    Error::Other("MPICH's algorithms requested without MPI_T control".into())
                })?;
                let forcing = mpich.forcing(c).map_err(Error::Other)?;
                Ok(library(world.duplicate(), Some(forcing)))
            }
        }
    }

    /// The library's own call of `collective` on `comm`; with `forcing`,
    /// MPICH's variables set around each call as it says.
    pub(super) fn library(
        comm: SimpleCommunicator,
        collective: Collective,
        forcing: Option<mpich::Forcing>,
    ) -> Runner {
        Runner::Library {
            comm,
            collective,
            forcing,
        }
    }

    /// Forces the runner's MPICH algorithm until the guard drops (nothing
    /// for the other runners): made outside the timed call.
    fn force(&self) -> Result<Option<mpich::Forced<'_>>, String> {
        match self {
            Runner::Library {
                forcing: Some(f), ..
            } => f.force().map(Some),
            _ => Ok(None),
        }
    }

    /// One call of the smallest message (a float) with root 0: what makes
    /// a library's components set the communicator up.
    pub(super) fn call_once(&self, collective: Collective) -> Result<(), String> {
        let (mut store, mut buffers) = Buffers::new(collective, 4, self.comm().size() as u32);
        let buf: &mut [u8] = bytemuck::cast_slice_mut(&mut store);
        self.execute(buf, &mut buffers, 0, 0)
    }

    fn comm(&self) -> &SimpleCommunicator {
        match self {
            Runner::Own { comm, .. }
            | Runner::Library { comm, .. }
            | Runner::Arrival { comm, .. } => comm,
        }
    }

    /// One collective with `root`; a library reduction leaves the root's
    /// result in `buffers.out`, every other one in `buf`.
    fn execute(
        &self,
        buf: &mut [u8],
        buffers: &mut Buffers,
        root: u32,
        root_index: usize,
    ) -> Result<(), String> {
        match self {
            Runner::Own {
                comm,
                ops,
                copies,
                fresh,
                ..
            } => {
                if let Some((from, to)) = &copies[root_index] {
                    let at = |s: &Span| s.start as usize..s.end as usize;
                    buf.copy_within(at(from), to.start as usize);
                }
                let working = working_memory(&fresh[root_index], buf);
                let done = exec::run(comm, &ops[root_index], buf, &mut buffers.scratch);
                drop(std::hint::black_box(working));
                done
            }
            Runner::Library {
                comm, collective, ..
            } => {
                match collective {
                    Collective::Bcast => comm.process_at_rank(root as i32).broadcast_into(buf),
                    Collective::Barrier => comm.barrier(),
                    Collective::Reduce => {
                        let send: &[f32] =
                            bytemuck::try_cast_slice(buf).map_err(|e| e.to_string())?;
                        let process = comm.process_at_rank(root as i32);
                        if comm.rank() as u32 == root {
                            let out = &mut buffers.out[..send.len()];
                            process.reduce_into_root(send, out, SystemOperation::sum());
                        } else {
                            process.reduce_into(send, SystemOperation::sum());
                        }
                    }
                    Collective::Allreduce => {
                        let send: &[f32] =
                            bytemuck::try_cast_slice(buf).map_err(|e| e.to_string())?;
                        let out = &mut buffers.out[..send.len()];
                        comm.all_reduce_into(send, out, SystemOperation::sum());
                    }
                    Collective::ReduceScatter | Collective::ReduceScatterBlock => {
                        let send: &[f32] =
                            bytemuck::try_cast_slice(buf).map_err(|e| e.to_string())?;
                        let procs = comm.size() as usize;
                        let out = &mut buffers.out[..send.len() / procs];
                        if *collective == Collective::ReduceScatterBlock {
                            comm.reduce_scatter_block_into(send, out, SystemOperation::sum());
                        } else {
                            reduce_scatter_equal(comm, send, out)?;
                        }
                    }
                    Collective::Allgather => {
                        let block = buf.len() / comm.size() as usize;
                        let send: &[u8] = bytemuck::cast_slice(&buffers.out);
                        comm.all_gather_into(&send[..block], buf);
                    }
                    Collective::Alltoall => {
                        let procs = comm.size() as u32;
                        let m = buf.len() / Collective::Alltoall.local_bytes(procs, 1) as usize;
                        let region = procs as usize * m;
                        let (send, recv) = buf.split_at_mut(region);
                        comm.all_to_all_into(&*send, &mut recv[..region]);
                    }
                    // The p blocks, then the rank's own block apart (its send
                    // or receive buffer).
                    Collective::Gather | Collective::Scatter => {
                        let process = comm.process_at_rank(root as i32);
                        let procs = comm.size() as u32;
                        let m = buf.len() / collective.local_bytes(procs, 1) as usize;
                        let (blocks, apart) = buf.split_at_mut(procs as usize * m);
                        let is_root = comm.rank() as u32 == root;
                        match (collective, is_root) {
                            (Collective::Gather, true) => process.gather_into_root(&*apart, blocks),
                            (Collective::Gather, false) => process.gather_into(&*apart),
                            (_, true) => process.scatter_into_root(&*blocks, apart),
                            (_, false) => {
                                let own = comm.rank() as usize * m;
                                scatter_receive(comm, root, &mut blocks[own..own + m]);
                            }
                        }
                    }
                }
                Ok(())
            }
            Runner::Arrival { comm, segsize } => exec_arrival::run(comm, root, buf, *segsize),
        }
    }

    /// Where block `block` of a reduce-scatter's vector of `m`-byte blocks
    /// lies in this rank's memory.
    fn place(&self, block: u32, m: usize) -> std::ops::Range<usize> {
        match self {
            Runner::Own { places, .. } if !places.is_empty() => {
                let s = places[block as usize];
                s.start as usize..s.end as usize
            }
            _ => block as usize * m..(block as usize + 1) * m,
        }
    }

    /// Where a reduction's result is after [`Runner::execute`] (a
    /// reduce-scatter's: this rank's block).
    fn reduced<'a>(&self, buf: &'a [u8], buffers: &'a Buffers) -> &'a [u8] {
        let (rank, procs) = (self.comm().rank() as u32, self.comm().size() as usize);
        match self {
            Runner::Library { collective, .. } => match collective {
                Collective::Reduce | Collective::Allreduce => {
                    &bytemuck::cast_slice(&buffers.out)[..buf.len()]
                }
                Collective::ReduceScatter | Collective::ReduceScatterBlock => {
                    &bytemuck::cast_slice(&buffers.out)[..buf.len() / procs]
                }
                Collective::Bcast
                | Collective::Allgather
                | Collective::Alltoall
                | Collective::Gather
                | Collective::Scatter
                | Collective::Barrier => buf,
            },
            // Our schedules combine in place.
            Runner::Own { places, .. } if !places.is_empty() => {
                &buf[self.place(rank, buf.len() / procs)]
            }
            Runner::Own { .. } | Runner::Arrival { .. } => buf,
        }
    }
}

fn spec(procs: u32, root: u32, point: &Point, collective: Collective) -> Spec {
    Spec {
        collective,
        algorithm: point.candidate.algorithm,
        procs,
        root,
        msg_bytes: point.msg_bytes,
        segsize: point.candidate.segsize.unwrap_or(0),
        fanout: point.candidate.fanout,
    }
}

/// One point's per-iteration times (µs): the recorded time, and with an
/// arrival pattern the slowest rank's time as well.
#[derive(Debug, Default)]
pub(super) struct Timing {
    pub(super) samples: Samples,
    worst: Option<Samples>,
}

/// Times one point until its stopping rule holds; with an arrival pattern
/// each rank's delays are in units of `unit_us` (X·T(m)). Collective: every
/// rank takes the same decisions from the same all-reduced numbers. A
/// wrong result on any rank (each such rank prints what it found) is an
/// `Err` on every rank at the same iteration, so the job can go on with
/// something else where the library allows.
#[allow(clippy::too_many_arguments)]
pub(super) fn measure(
    world: &SimpleCommunicator,
    runner: &Runner,
    point: &Point,
    roots: &[u32],
    (buf, buffers): (&mut [u8], &mut Buffers),
    unit_us: f64,
    cap_seconds: f64,
    opts: &Options,
    arrival: crate::data::Arrival,
) -> Result<Timing, String> {
    let comm = runner.comm();
    let (rank, procs) = (comm.rank() as u32, comm.size() as u32);
    let delays = arrival.per_rank_time().then(|| {
        delay::Delays::new(
            arrival,
            unit_us,
            opts.seed,
            point.msg_bytes,
            point.imbalance,
        )
    });
    let mut timing = Timing {
        worst: delays.map(|_| Samples::default()),
        ..Timing::default()
    };
    if opts.collective == Collective::Barrier {
        if let Err(e) = barrier_holds(runner, (buf, buffers)) {
            eprintln!("error: rank {rank}: {}: {e}", describe(&point.candidate));
            world.abort(3);
        }
    }
    let start = mpi::time();
    for iteration in 0u64.. {
        let root_index = (iteration % roots.len() as u64) as usize;
        let root = roots[root_index];
        let seed = payload::seed(root, iteration, point.msg_bytes);
        fill(
            (opts.collective, &|block, m| runner.place(block, m)),
            (buf, buffers),
            seed,
            (rank, procs),
            root,
            iteration,
        );
        comm.barrier();
        if let Some(d) = &delays {
            delay::wait_until(mpi::time() + d.of(rank, root, iteration) * 1e-6);
        }
        let forced = runner.force();
        let t0 = mpi::time();
        let done = forced.and_then(|_forced| runner.execute(buf, buffers, root, root_index));
        let local_us = (mpi::time() - t0) * 1e6;
        let failed = match done {
            Err(e) => Some(e),
            Ok(()) => check(
                opts.collective,
                (runner.reduced(buf, buffers), seed, root, iteration),
                rank,
                procs,
            ),
        };
        if let Some(wrong) = &failed {
            eprintln!(
                "error: rank {rank}: {} of {} bytes, iteration {iteration}: {wrong}",
                describe(&point.candidate),
                point.msg_bytes,
            );
        }
        let local = [
            local_us,
            mpi::time() - start,
            f64::from(u8::from(failed.is_some())),
        ];
        let mut global = [0.0f64; 3];
        comm.all_reduce_into(&local[..], &mut global[..], SystemOperation::max());
        if global[2] > 0.0 {
            return Err(format!(
                "{} of {} bytes on {procs} ranks delivered wrong results (each rank that \
                 found one said what)",
                describe(&point.candidate),
                point.msg_bytes
            ));
        }
        if iteration >= u64::from(opts.warmup) {
            match timing.worst.as_mut() {
                Some(worst) => {
                    let mut sum = 0.0f64;
                    comm.all_reduce_into(&local_us, &mut sum, SystemOperation::sum());
                    timing.samples.push(sum / f64::from(procs));
                    worst.push(global[0]);
                }
                None => timing.samples.push(global[0]),
            }
        }
        let n = timing.samples.len();
        let enough = n >= opts.max_reps as usize
            || (n >= opts.min_reps as usize && timing.samples.converged(opts.target_ci))
            || (n >= 1 && global[1] >= cap_seconds);
        if enough {
            break;
        }
    }
    Ok(timing)
}

/// A non-root rank's part of `MPI_Scatter`, with the root's send count and
/// type although the standard ignores them there: Open MPI's rules file
/// keys scatter on the send count on every rank, and rsmpi's
/// `scatter_into` passes 0, so where the file decides 0 bytes otherwise
/// than the real size the root and the others run different algorithms
/// and the blocks land wrong. Applications that pass their counts on
/// every rank (as most do) see what this measures.
fn scatter_receive(comm: &SimpleCommunicator, root: u32, recv: &mut [u8]) {
    let byte = u8::equivalent_datatype().as_raw();
    let count = recv.len() as i32;
    // SAFETY: the send buffer is not read on a non-root rank; `recv` is a
    // live, exclusively borrowed buffer of `count` bytes.
    unsafe {
        mpi::ffi::MPI_Scatter(
            std::ptr::null(),
            count,
            byte,
            recv.as_mut_ptr().cast(),
            count,
            byte,
            root as i32,
            comm.as_raw(),
        );
    }
}

/// Whether the barrier `runner` runs keeps every rank in until every rank
/// entered: with the last rank, then rank 0, entering a millisecond after
/// the others, no rank may leave before it entered (`Err` where one did).
/// Untimed. Checked where every rank shares a node, and so the system's
/// clock (not `MPI_Wtime`: Open MPI counts it from each process's start);
/// elsewhere the simulator's proof stands alone.
fn barrier_holds(runner: &Runner, (buf, buffers): (&mut [u8], &mut Buffers)) -> Result<(), String> {
    let comm = runner.comm();
    let (rank, procs) = (comm.rank() as u32, comm.size() as u32);
    let names = topology::node_names(comm);
    if names.iter().any(|n| *n != names[0]) {
        return Ok(());
    }
    for late in [procs - 1, 0] {
        comm.barrier();
        if rank == late {
            delay::wait_until(mpi::time() + 1e-3);
        }
        let entered = system_seconds();
        runner
            .force()
            .and_then(|_forced| runner.execute(buf, buffers, 0, 0))?;
        let left = system_seconds();
        // The last entry, and the first exit (negated).
        let mut last = [0.0f64; 2];
        comm.all_reduce_into(&[entered, -left][..], &mut last[..], SystemOperation::max());
        if -last[1] < last[0] {
            return Err(format!(
                "a rank left the barrier {:.1} us before rank {late} entered it",
                (last[0] + last[1]) * 1e6
            ));
        }
    }
    Ok(())
}

/// The system's clock in seconds, the same for every process of a node.
fn system_seconds() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

/// What `rank` holds before a call: the root's payload (broadcast), its
/// contribution (reductions; a reduce-scatter's blocks where `place` puts
/// them), its block, in place and to send (allgather, gather: apart), the
/// root's blocks (scatter).
fn fill(
    (collective, place): (Collective, &dyn Fn(u32, usize) -> std::ops::Range<usize>),
    (buf, buffers): (&mut [u8], &mut Buffers),
    seed: u64,
    (rank, procs): (u32, u32),
    root: u32,
    iteration: u64,
) {
    match collective {
        Collective::Bcast if rank == root => payload::fill(buf, seed),
        Collective::Bcast | Collective::Barrier => {}
        Collective::Reduce | Collective::Allreduce => {
            payload::fill_contribution(buf, seed, rank, 0)
        }
        Collective::ReduceScatter | Collective::ReduceScatterBlock => {
            let m = buf.len() / procs as usize;
            for block in 0..procs {
                let at = place(block, m);
                payload::fill_contribution(&mut buf[at], seed, rank, block as usize * m / 4);
            }
        }
        Collective::Allgather | Collective::Gather => {
            let m = buf.len() / collective.local_bytes(procs, 1) as usize;
            let (blocks, apart) = buf.split_at_mut(procs as usize * m);
            let own = &mut blocks[rank as usize * m..(rank as usize + 1) * m];
            payload::fill(own, payload::seed(rank, iteration, m as u64));
            // A gather's send buffer is block p; an allgather's apart.
            let send: &mut [u8] = match collective {
                Collective::Gather => apart,
                _ => bytemuck::cast_slice_mut(&mut buffers.out),
            };
            send[..m].copy_from_slice(own);
        }
        Collective::Scatter if rank == root => {
            let m = buf.len() / collective.local_bytes(procs, 1) as usize;
            for to in 0..procs {
                let block = &mut buf[to as usize * m..(to as usize + 1) * m];
                payload::fill(block, payload::seed(to, iteration, m as u64));
            }
        }
        Collective::Scatter => {}
        Collective::Alltoall => {
            let m = buf.len() / collective.local_bytes(procs, 1) as usize;
            for to in 0..procs {
                let block = &mut buf[to as usize * m..(to as usize + 1) * m];
                payload::fill(block, alltoall_seed(rank, to, procs, iteration, m));
            }
        }
    }
}

/// What is wrong with what `rank` holds after a call (`result`: where the
/// library or the schedule left it, the call's seed, root and iteration),
/// if anything: the root's payload on every other rank; the sum of every
/// contribution at the root (every rank for allreduce); every rank's block
/// in its place (allgather, a gather's root); its own block (scatter).
fn check(
    collective: Collective,
    (result, seed, root, iteration): (&[u8], u64, u32, u64),
    rank: u32,
    procs: u32,
) -> Option<String> {
    let wrong_byte = |(offset, expected, found): (usize, u8, u8)| {
        format!("byte offset {offset} is 0x{found:02x}, expected 0x{expected:02x}")
    };
    let wrong_sum = |(index, expected, found): (usize, f32, f32)| {
        format!(
            "wrong reduction (root {root}): float {index} is {found}, expected {expected} \
             (the sum of {procs} contributions)"
        )
    };
    match collective {
        Collective::Bcast if rank == root => None,
        // Checked apart, with a rank entering late (`barrier_holds`).
        Collective::Barrier => None,
        Collective::Bcast => payload::first_mismatch(result, seed)
            .map(|w| format!("payload mismatch from root {root}: {}", wrong_byte(w))),
        Collective::Reduce if rank != root => None,
        Collective::Reduce | Collective::Allreduce => {
            payload::first_sum_mismatch(result, seed, procs, 0).map(wrong_sum)
        }
        // `result` is the rank's block.
        Collective::ReduceScatter | Collective::ReduceScatterBlock => {
            let first = rank as usize * result.len() / 4;
            payload::first_sum_mismatch(result, seed, procs, first).map(wrong_sum)
        }
        Collective::Scatter => {
            // The root's own block in its receive buffer (block p), each
            // other rank's where the schedule leaves it (its place, where
            // the library call receives it too).
            let m = result.len() / collective.local_bytes(procs, 1) as usize;
            let at = if rank == root { procs } else { rank } as usize * m;
            payload::first_mismatch(
                &result[at..at + m],
                payload::seed(rank, iteration, m as u64),
            )
            .map(|w| format!("its block from root {root}: {}", wrong_byte(w)))
        }
        Collective::Gather if rank != root => None,
        Collective::Allgather | Collective::Gather => {
            let m = result.len() / collective.local_bytes(procs, 1) as usize;
            (0..procs).find_map(|j| {
                let block = &result[j as usize * m..(j as usize + 1) * m];
                payload::first_mismatch(block, payload::seed(j, iteration, m as u64))
                    .map(|w| format!("the block of rank {j}: {}", wrong_byte(w)))
            })
        }
        Collective::Alltoall => {
            let m = result.len() / collective.local_bytes(procs, 1) as usize;
            let received = &result[procs as usize * m..2 * procs as usize * m];
            (0..procs).find_map(|from| {
                let block = &received[from as usize * m..(from as usize + 1) * m];
                payload::first_mismatch(block, alltoall_seed(from, rank, procs, iteration, m))
                    .map(|w| format!("the block from rank {from}: {}", wrong_byte(w)))
            })
        }
    }
}

/// Memory allocated as Open MPI's algorithm allocates it (`buffers`, in
/// order, from the C allocator, as Open MPI's `malloc`): the allocations
/// and page faults it pays on fresh memory. A copy of the start of `buf`
/// is made as Open MPI makes it; memory the algorithm writes gets one
/// byte per page, as ours writes the same bytes elsewhere (already
/// faulted in). Freed by the caller after the call.
fn working_memory(buffers: &[Working], buf: &[u8]) -> Vec<Vec<u8>> {
    // The smallest page of Linux on x86-64 and aarch64: larger pages get
    // more writes than needed, each cheap next to a fault.
    const PAGE: usize = 4096;
    buffers
        .iter()
        .map(|w| {
            let n = w.bytes as usize;
            let mut v = Vec::with_capacity(n);
            match w.copy {
                true => v.extend_from_slice(&buf[..n.min(buf.len())]),
                false => v
                    .spare_capacity_mut()
                    .iter_mut()
                    .step_by(PAGE)
                    .for_each(|b| {
                        b.write(0);
                    }),
            }
            std::hint::black_box(v)
        })
        .collect()
}

/// MPI_Reduce_scatter with every count equal, by hand: the mpi crate
/// binds only MPI_Reduce_scatter_block.
fn reduce_scatter_equal(
    comm: &SimpleCommunicator,
    send: &[f32],
    out: &mut [f32],
) -> Result<(), String> {
    use mpi::raw::AsRaw;
    let count = mpi::Count::try_from(out.len()).map_err(|e| e.to_string())?;
    let counts = vec![count; comm.size() as usize];
    if send.len() != out.len() * counts.len() {
        return Err(format!(
            "{} floats to send for {} blocks of {}",
            send.len(),
            counts.len(),
            out.len()
        ));
    }
    // SAFETY: `send` holds p blocks of `count` floats and `out` one, as the
    // counts say; both outlive the blocking call.
    let rc = unsafe {
        mpi::ffi::MPI_Reduce_scatter(
            send.as_ptr().cast(),
            out.as_mut_ptr().cast(),
            counts.as_ptr(),
            f32::equivalent_datatype().as_raw(),
            SystemOperation::sum().as_raw(),
            comm.as_raw(),
        )
    };
    if rc == 0 {
        Ok(())
    } else {
        Err(format!("MPI_Reduce_scatter returned {rc}"))
    }
}

/// The payload seed of the block `from` sends `to` in an alltoall.
fn alltoall_seed(from: u32, to: u32, procs: u32, iteration: u64, m: usize) -> u64 {
    payload::seed(from * procs + to, iteration, m as u64)
}

fn measurement(config: &Config, point: &Point, timing: &Timing) -> Measurement {
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
        time_max_us: Some(ns(timing.worst.as_ref().map_or(s.max(), Samples::mean))),
        ci95_us: ci.is_finite().then(|| ns(ci)),
        reps: Some(s.len() as u64),
        rows: 1,
    }
}

/// Microseconds rounded to nanoseconds, the timer's resolution at best.
fn ns(us: f64) -> f64 {
    (us * 1e3).round() / 1e3
}

fn describe(c: &Candidate) -> String {
    let mut s = c.algorithm.name().to_string();
    if let Some(seg) = c.segsize {
        s += &format!(" segsize {seg}");
    }
    if let Some(f) = c.fanout {
        s += &format!(" fanout {f}");
    }
    s + &format!(" ({})", c.implementation)
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

/// Progress on rank 0: a bar with ETA on a terminal; under mpirun, whose
/// output is a pipe, a line every ten seconds instead.
struct Progress {
    bar: Option<ProgressBar>,
    /// Plain lines: (points done, time of the last line).
    plain: Option<Cell<(usize, Instant)>>,
    total: usize,
    started: Instant,
}

impl Progress {
    fn new(show: bool, total: usize) -> Progress {
        let terminal = std::io::stderr().is_terminal();
        let bar = (show && terminal).then(|| {
            ProgressBar::new(total as u64).with_style(
                ProgressStyle::with_template(
                    "{elapsed_precise} [{bar:30}] {pos}/{len} points, ETA {eta} {msg}",
                )
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
            )
        });
        let started = Instant::now();
        Progress {
            bar,
            plain: (show && !terminal).then(|| Cell::new((0, started))),
            total,
            started,
        }
    }

    fn start(&self, point: &Point) {
        if let Some(bar) = &self.bar {
            bar.set_message(format!(
                "{} {}",
                format_bytes(point.msg_bytes),
                describe(&point.candidate)
            ));
        }
    }

    /// A line that stays above the bar.
    fn note(&self, line: &str) {
        match &self.bar {
            Some(bar) => bar.println(line),
            None => eprintln!("{line}"),
        }
    }

    fn finish_point(&self) {
        if let Some(bar) = &self.bar {
            bar.inc(1);
        }
        if let Some(plain) = &self.plain {
            let (done, last) = plain.get();
            let done = done + 1;
            let now = Instant::now();
            if now - last >= Duration::from_secs(10) {
                let elapsed = (now - self.started).as_secs_f64();
                let eta = elapsed / done as f64 * (self.total - done) as f64;
                eprintln!(
                    "bench: {done}/{} points, {:.0} s elapsed, ETA {:.0} s",
                    self.total, elapsed, eta
                );
                plain.set((done, now));
            } else {
                plain.set((done, last));
            }
        }
    }

    fn done(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allgather_check_names_the_block_in_the_wrong_place() {
        let (procs, m, iteration) = (3u32, 5usize, 7u64);
        let mut result = vec![0u8; procs as usize * m];
        for j in 0..procs as usize {
            let seed = payload::seed(j as u32, iteration, m as u64);
            payload::fill(&mut result[j * m..(j + 1) * m], seed);
        }
        let held = |r: &[u8]| check(Collective::Allgather, (r, 0, 0, iteration), 1, procs);
        assert_eq!(held(&result), None);
        // Blocks 1 and 2 swapped: each is right, but not where it belongs.
        let mut swapped = result.clone();
        swapped[m..].rotate_left(m);
        let wrong = held(&swapped).expect("a block out of place");
        assert!(
            wrong.starts_with("the block of rank 1: byte offset"),
            "{wrong}"
        );
        // One byte of the last block changed.
        result[3 * m - 1] ^= 1;
        let wrong = held(&result).expect("a changed byte");
        assert!(
            wrong.starts_with("the block of rank 2: byte offset 4"),
            "{wrong}"
        );
    }

    #[test]
    fn alltoall_fill_and_check_agree_and_catch_a_misplaced_block() {
        let (procs, m, iteration) = (3u32, 4usize, 2u64);
        let (mut store, mut buffers) = Buffers::new(Collective::Alltoall, m as u64, procs);
        let buf: &mut [u8] = bytemuck::cast_slice_mut(&mut store);
        let local = Collective::Alltoall.local_bytes(procs, m as u64) as usize;
        let buf = &mut buf[..local];
        // Each rank's block to rank 1, delivered by hand into rank 1's
        // receive slots.
        let mut result = vec![0u8; local];
        for from in 0..procs {
            let bufs = (&mut *buf, &mut buffers);
            let natural = |b: u32, m: usize| b as usize * m..(b as usize + 1) * m;
            fill(
                (Collective::Alltoall, &natural),
                bufs,
                0,
                (from, procs),
                0,
                iteration,
            );
            let slot = (procs + from) as usize * m;
            result[slot..slot + m].copy_from_slice(&buf[m..2 * m]);
        }
        let held = |r: &[u8]| check(Collective::Alltoall, (r, 0, 0, iteration), 1, procs);
        assert_eq!(held(&result), None);
        // The blocks from rank 0 and from rank 2 swapped.
        let (first, last) = (procs as usize * m, (procs as usize + 2) * m);
        let mut swapped = result.clone();
        swapped[first..first + m].copy_from_slice(&result[last..last + m]);
        swapped[last..last + m].copy_from_slice(&result[first..first + m]);
        let wrong = held(&swapped).expect("blocks out of place");
        assert!(wrong.starts_with("the block from rank 0"), "{wrong}");
    }
}
