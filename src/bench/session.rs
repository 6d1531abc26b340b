//! The MPI session a campaign runs in: start-up (and the warnings a
//! shared core earns), the job's ranks and placement, and what every rank
//! must agree on (errors, shared bytes, the communicator sizes in turn).

use super::{allocator, control, mpich, topology};
use crate::data::Mapping;
use crate::error::{Error, Result};
use mpi::collective::{Root as _, SystemOperation};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::time::Duration;

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
        allocator::pin(allocator::Regime::Fresh);
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
pub(super) fn reported<T>(comm: &SimpleCommunicator, result: Result<T>) -> Result<T> {
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
