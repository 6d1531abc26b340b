//! Timing one point: calls until its stopping rule holds, each checked
//! on every rank.

use super::harness::{self, Iteration};
use super::points::Point;
use super::runner::{describe, Buffers, Runner};
use super::stats::IterationTimes;
use super::BenchOptions;
use super::{delay, payload, topology};
use crate::data::Collective;
use crate::error::Result;
use mpi::collective::SystemOperation;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

/// One point's per-iteration times (µs): the recorded time, and with an
/// arrival pattern the slowest rank's time as well.
#[derive(Debug, Default)]
pub(super) struct Timing {
    pub(super) samples: IterationTimes,
    pub(super) worst: Option<IterationTimes>,
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
    opts: &BenchOptions,
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
        worst: delays.map(|_| IterationTimes::default()),
        ..Timing::default()
    };
    if opts.collective == Collective::Barrier {
        if let Err(e) = barrier_holds(runner, (buf, buffers)) {
            eprintln!("error: rank {rank}: {}: {e}", describe(&point.candidate));
            world.abort(3);
        }
    }
    let part = harness::of(opts.collective);
    let start = mpi::time();
    for iteration in 0u64.. {
        let root_index = (iteration % roots.len() as u64) as usize;
        let root = roots[root_index];
        let seed = payload::seed(root, iteration, point.msg_bytes);
        let it = Iteration {
            seed,
            rank,
            procs,
            root,
            iteration,
        };
        part.fill(it, buf, buffers, &|block, m| runner.place(block, m));
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
            Ok(()) => part.check(it, runner.reduced(buf, buffers)),
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
