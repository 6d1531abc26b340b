//! Paired, interleaved timing of alternatives of one collective call: what
//! `tune` validates its decisions with and `verify` checks rules files with.
//!
//! A round times every alternative (*arm*) once, as a block of the same
//! number of iterations each, timed and verified as `bench` times a point
//! (barrier, one call, the slowest rank's time); the order of the arms
//! rotates from round to round, so none is always first after the
//! barrier-heavy start of a round. Comparing arms round by round cancels
//! whatever drifts on the machine between rounds; the rounds go on until
//! every speed-up over the first arm is known to within the target width
//! (never stopping on the value of a speed-up, which would bias it), or the
//! comparison's time is up.
//!
//! Where the comparison asks for *replicas*, the rounds are taken several
//! times over, each time on a fresh communicator over the same ranks in a
//! random order (the first: their own order) with freshly allocated
//! buffers, in turn in a fresh process's and a settled process's malloc
//! ([`allocator`]), and the interval is taken over the replicas' means.
//! On 16 bound ranks the small-message speed-ups varied between separate
//! jobs by up to 30% in ln; the rounds of one job saw a third of that, and
//! only the ranks' order re-drawn inside the job reproduced it
//! (`experiments/variance.md`).

use super::allocator::{self, Regime};
use super::campaign::resolve_roots;
use super::control::{self, TunedControl};
use super::mpich::MpichControl;
use super::runner::{Buffers, Controls, Runner};
use super::session::{each_size, Session};
use super::stats::{log_ratios, Speedup};
use super::timing::measure;
use super::{points::Point, BenchOptions};
use crate::data::{Arrival, Candidate, Collective, Impl, Mapping};
use crate::error::{Error, Result};
use mpi::collective::SystemOperation;
use mpi::topology::{Color, SimpleCommunicator};
use mpi::traits::*;
use rand::seq::SliceRandom;
use std::time::Instant;

/// One alternative of a comparison.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Arm {
    /// The library's call on a plain duplicate of the communicator: what an
    /// application's call runs, with whatever rules files are in effect.
    Job,
    /// The library forced to a candidate through its control variables, as
    /// `bench` measures it (`default`: the library's own decision).
    Forced(Candidate),
    /// The library's own decision with coll/tuned's rules switched off
    /// (a duplicate made while `coll_tuned_use_dynamic_rules` is 0: Open
    /// MPI 5.0 and later let it change at run time).
    WithoutRules,
    /// MPICH's own choice: the call left to MPICH's device layer
    /// (`MPIR_CVAR_<COLL>_DEVICE_COLLECTIVE` 1 around it), where the job
    /// takes the collective from the device to its selection file.
    DeviceLayer,
    /// Our own schedule of a candidate.
    Own(Candidate),
}

/// How long a comparison goes on.
#[derive(Clone, Copy, Debug)]
pub struct RoundLimits {
    /// RoundLimits at least (the interval needs a few), and at most.
    pub min: usize,
    pub max: usize,
    /// Stop once every speed-up's 95% interval is this narrow: half its
    /// width in ln(speed-up), 0.05 is about ±5%.
    pub half_width: f64,
    /// Each block lasts about this long (seconds): long enough to average
    /// over the scheduler's time slices, short enough for many rounds.
    pub block_seconds: f64,
    /// After `min` rounds, the comparison stops at this many seconds
    /// (all replicas together).
    pub max_seconds: f64,
    /// Replicas at least and at most (see the module docs); 1 and 1: the
    /// rounds on the communicator as it is.
    pub min_replicas: usize,
    pub max_replicas: usize,
}

impl Default for RoundLimits {
    fn default() -> Self {
        RoundLimits {
            min: 5,
            max: 30,
            half_width: 0.05,
            block_seconds: 0.01,
            max_seconds: 5.0,
            min_replicas: 1,
            max_replicas: 1,
        }
    }
}

impl RoundLimits {
    /// Exactly `rounds` rounds (the time share still stops them).
    pub fn exactly(rounds: usize) -> RoundLimits {
        RoundLimits {
            min: rounds,
            max: rounds,
            ..RoundLimits::default()
        }
    }

    /// What a decision is validated with: four to eight replicas of three
    /// to ten rounds each (the interval comes from the replicas; the rounds
    /// only steady each replica's mean). With four replicas' three degrees
    /// of freedom a run keeps only what stands far above the spread between
    /// replicas; six to twelve kept tens of switches more on 2 cores, and
    /// those timed 0.47-0.97 with the rules on in separate jobs of a plain
    /// loop (`experiments/validation.md`).
    pub fn replicated() -> RoundLimits {
        RoundLimits {
            min: 3,
            max: 10,
            max_seconds: 8.0,
            min_replicas: 4,
            max_replicas: 8,
            ..RoundLimits::default()
        }
    }
}

/// One comparison asked for: a message size and the arms, the first the
/// baseline the others' speed-ups are over.
#[derive(Clone, Debug, PartialEq)]
pub struct Request {
    pub msg_bytes: u64,
    pub arms: Vec<Arm>,
}

/// What a comparison measured: each round's mean time (µs) of every arm.
#[derive(Clone, Debug, PartialEq)]
pub struct Compared {
    /// Iterations per block (of the first replica).
    pub iterations: u32,
    /// Per round, per arm (in the request's order).
    pub rounds: Vec<Vec<f64>>,
    /// Per round, the replica it was taken in (0, 1, ...).
    pub replica: Vec<usize>,
}

impl Compared {
    /// Arm 0's time over arm `arm`'s, from the paired rounds (over the
    /// replicas' means where there are two or more), with the weaker of
    /// the two allocator regimes' where the replicas took both.
    pub fn speedup(&self, arm: usize) -> Option<Speedup> {
        let replicas = self.replica.iter().max().map_or(0, |r| r + 1);
        let mut pairs = vec![Vec::new(); replicas];
        for (round, &r) in self.rounds.iter().zip(&self.replica) {
            pairs[r].push((round[0], round[arm]));
        }
        let mut speedup = Speedup::from_replicas(&pairs)?;
        // Per regime, the mean of its replicas' mean ln speed-ups.
        let mut regimes: [Vec<f64>; 2] = [Vec::new(), Vec::new()];
        for (r, rounds) in pairs.iter().enumerate() {
            let logs = log_ratios(rounds);
            if !logs.is_empty() {
                let k = usize::from(Regime::of_replica(r) == Regime::Settled);
                regimes[k].push(logs.iter().sum::<f64>() / logs.len() as f64);
            }
        }
        if regimes.iter().all(|m| !m.is_empty()) {
            speedup.weakest = regimes
                .iter()
                .map(|m| (m.iter().sum::<f64>() / m.len() as f64).exp())
                .min_by(f64::total_cmp);
        }
        Some(speedup)
    }

    /// Arm `arm`'s mean time over the rounds (µs).
    pub fn mean_us(&self, arm: usize) -> f64 {
        self.rounds.iter().map(|r| r[arm]).sum::<f64>() / self.rounds.len().max(1) as f64
    }
}

/// Runs `requests` of `collective` on `comm` in order, each within its
/// share of `seconds` (every rank takes rank 0's clock). A request the time
/// left no room for is `None`. Collective over `comm`.
pub fn requests(
    comm: &SimpleCommunicator,
    collective: Collective,
    requests: &[Request],
    timing: &BenchOptions,
    rounds: &RoundLimits,
    seconds: f64,
) -> Result<Vec<Option<Compared>>> {
    let forces = |implementation| {
        requests
            .iter()
            .flat_map(|r| &r.arms)
            .any(|a| matches!(a, Arm::Forced(c) if c.implementation == implementation && !c.is_default()))
    };
    let tuned = match forces(Impl::Ompi) {
        // `tune` checked at its first measurement that no rules file is in
        // effect; `verify` forces algorithms beside one (Open MPI 5).
        true => Some(TunedControl::open_beside_rules(collective).map_err(Error::Other)?),
        false => None,
    };
    let device = requests
        .iter()
        .flat_map(|r| &r.arms)
        .any(|a| matches!(a, Arm::DeviceLayer));
    let mpich = match forces(Impl::Mpich) || device {
        true => Some(MpichControl::open_beside_selection(collective).map_err(Error::Other)?),
        false => None,
    };
    let controls = Controls {
        tuned: tuned.as_ref(),
        mpich: mpich.as_ref(),
    };
    let start = mpi::time();
    let mut out = Vec::with_capacity(requests.len());
    for (i, request) in requests.iter().enumerate() {
        let mut left = seconds - (mpi::time() - start);
        comm.process_at_rank(0).broadcast_into(&mut left);
        if left <= 0.0 {
            out.push(None);
            continue;
        }
        let share = RoundLimits {
            max_seconds: rounds.max_seconds.min(left / (requests.len() - i) as f64),
            ..*rounds
        };
        out.push(Some(replicated(
            comm, controls, collective, request, timing, &share,
        )?));
    }
    Ok(out)
}

/// One request timed in `rounds.min_replicas` to `rounds.max_replicas`
/// replicas (see the module docs), until every speed-up's interval over
/// them is as narrow as asked or the time is up. Collective.
fn replicated(
    comm: &SimpleCommunicator,
    controls: Controls,
    collective: Collective,
    request: &Request,
    timing: &BenchOptions,
    rounds: &RoundLimits,
) -> Result<Compared> {
    let procs = comm.size() as u32;
    let start = mpi::time();
    let mut compared = Compared {
        iterations: 0,
        rounds: Vec::new(),
        replica: Vec::new(),
    };
    let mut store: Option<Vec<f32>> = None;
    for r in 0..rounds.max_replicas.max(1) {
        if rounds.max_replicas > 1 {
            allocator::pin(Regime::of_replica(r));
        }
        let replica = (r > 0).then(|| permuted(comm)).transpose()?;
        let on = replica.as_ref().unwrap_or(comm);
        // Allocated while the previous replica's buffers are still held, so
        // that the new ones land elsewhere.
        let (mut fresh, mut buffers) = Buffers::new(collective, request.msg_bytes, procs);
        let runners = request
            .arms
            .iter()
            .map(|arm| runner(on, controls, *arm, collective, request.msg_bytes, timing))
            .collect::<Result<Vec<_>>>()?;
        let spent = slowest(comm, mpi::time() - start);
        let share = RoundLimits {
            max_seconds: (rounds.max_seconds - spent)
                / rounds.min_replicas.saturating_sub(r).max(1) as f64,
            ..*rounds
        };
        let buf: &mut [u8] = bytemuck::cast_slice_mut(&mut fresh);
        let buf = &mut buf[..collective.local_bytes(procs, request.msg_bytes) as usize];
        let one = compare(
            on,
            &runners,
            request.msg_bytes,
            (buf, &mut buffers),
            timing,
            &share,
        )?;
        store = Some(fresh);
        if r == 0 {
            compared.iterations = one.iterations;
        }
        compared
            .replica
            .extend(std::iter::repeat_n(r, one.rounds.len()));
        compared.rounds.extend(one.rounds);
        if r + 1 < rounds.min_replicas {
            continue;
        }
        let precise = (1..request.arms.len()).all(|arm| {
            compared
                .speedup(arm)
                .is_some_and(|s| s.half_width() <= rounds.half_width)
        });
        if precise || slowest(comm, mpi::time() - start) >= rounds.max_seconds {
            break;
        }
    }
    drop(store);
    allocator::pin(Regime::Fresh);
    Ok(compared)
}

/// A communicator over the ranks of `comm` in a random order (rank 0
/// draws it): the root and every rank's neighbours land on other cores.
/// Collective.
fn permuted(comm: &SimpleCommunicator) -> Result<SimpleCommunicator> {
    let mut order: Vec<i32> = (0..comm.size()).collect();
    if comm.rank() == 0 {
        order.shuffle(&mut rand::rng());
    }
    comm.process_at_rank(0).broadcast_into(&mut order[..]);
    // Every rank asks for colour 0, so every rank gets the communicator.
    comm.split_by_color_with_key(Color::with_value(0), order[comm.rank() as usize])
        .ok_or_else(|| Error::Other("MPI_Comm_split left this rank out of a replica".into()))
}

/// The runner of one arm on `comm`. Collective.
fn runner(
    comm: &SimpleCommunicator,
    controls: Controls,
    arm: Arm,
    collective: Collective,
    msg_bytes: u64,
    timing: &BenchOptions,
) -> Result<Runner> {
    let roots = resolve_roots(&timing.roots, comm.size() as u32)?;
    let point = |candidate| Point {
        msg_bytes,
        imbalance: 0.0,
        candidate,
    };
    match arm {
        Arm::Job => Ok(Runner::library(comm.duplicate(), collective, None)),
        Arm::WithoutRules => control::without_rules(comm, |dup| {
            let runner = Runner::library(dup, collective, None);
            runner.call_once(collective)?;
            Ok(runner)
        })
        .map_err(Error::Other),
        Arm::DeviceLayer => {
            let mpich = controls.mpich.ok_or_else(|| {
                Error::Other("MPICH's own choice requested without MPI_T control".into())
            })?;
            let forcing = mpich.own_choice().map_err(Error::Other)?;
            Ok(Runner::library(comm.duplicate(), collective, Some(forcing)))
        }
        Arm::Forced(c) => Runner::new(comm, controls, &point(c), &roots, collective),
        Arm::Own(c) => Runner::new(comm, Controls::default(), &point(c), &roots, collective),
    }
}

/// Times `runners` in interleaved rounds (see the module docs). Collective.
fn compare(
    comm: &SimpleCommunicator,
    runners: &[Runner],
    msg_bytes: u64,
    (buf, buffers): (&mut [u8], &mut Buffers),
    timing: &BenchOptions,
    rounds: &RoundLimits,
) -> Result<Compared> {
    let roots = resolve_roots(&timing.roots, comm.size() as u32)?;
    let point = Point {
        msg_bytes,
        imbalance: 0.0,
        candidate: Candidate::DEFAULT,
    };
    // One block: `iterations` timed calls after `warmup` untimed ones; their
    // mean time.
    let mut block = |runner: &Runner, iterations: u32, warmup: u32| {
        let opts = BenchOptions {
            warmup,
            min_reps: iterations,
            max_reps: iterations,
            ..timing.clone()
        };
        let timed = measure(
            comm,
            runner,
            &point,
            &roots,
            (&mut *buf, &mut *buffers),
            0.0,
            f64::INFINITY,
            &opts,
            Arrival::Barrier,
        )
        .map_err(Error::Other)?;
        Ok::<f64, Error>(timed.samples.mean())
    };
    // A pilot block per arm (its first call warms the arm up) sizes the
    // blocks by wall time, the barriers and checks included.
    let started = mpi::time();
    for runner in runners {
        block(runner, 2, 1)?;
    }
    let per_call = slowest(comm, mpi::time() - started) / (3 * runners.len()) as f64;
    let iterations = (rounds.block_seconds / per_call.max(1e-9)).clamp(1.0, 1000.0) as u32;
    let mut compared = Compared {
        iterations,
        rounds: Vec::new(),
        replica: Vec::new(),
    };
    let start = mpi::time();
    for round in 0..rounds.max {
        let mut times = vec![0.0; runners.len()];
        for k in 0..runners.len() {
            let arm = (round + k) % runners.len();
            times[arm] = block(&runners[arm], iterations, 0)?;
        }
        compared.rounds.push(times);
        compared.replica.push(0);
        if compared.rounds.len() < rounds.min {
            continue;
        }
        let precise = (1..runners.len()).all(|arm| {
            compared
                .speedup(arm)
                .is_some_and(|s| s.half_width() <= rounds.half_width)
        });
        if precise || slowest(comm, mpi::time() - start) >= rounds.max_seconds {
            break;
        }
    }
    Ok(compared)
}

/// The largest of the ranks' values: the same number, and so the same
/// decision, on every rank.
fn slowest(comm: &SimpleCommunicator, local: f64) -> f64 {
    let mut global = 0.0;
    comm.all_reduce_into(&local, &mut global, SystemOperation::max());
    global
}

impl Session {
    /// Paired comparisons of `collective` (see this module) on each
    /// communicator size of `sizes` in turn (`None`: the whole job), within
    /// `seconds` shared out by the number of requests. Rank 0 has every
    /// size's results; a request the time left no room for is `None`.
    pub fn compare(
        &self,
        collective: Collective,
        sizes: &[(Option<u32>, Mapping, Vec<Request>)],
        timing: &BenchOptions,
        rounds: &RoundLimits,
        seconds: f64,
    ) -> Result<Vec<Vec<Option<Compared>>>> {
        let start = Instant::now();
        let total: usize = sizes.iter().map(|s| s.2.len()).sum();
        let mut done = 0;
        let places: Vec<(Option<u32>, Mapping)> = sizes.iter().map(|s| (s.0, s.1)).collect();
        each_size(&self.world, &places, |i, sub| {
            let asked = &sizes[i].2;
            // Rank 0's clock decides, as in `campaigns`.
            let left = (seconds - start.elapsed().as_secs_f64()).max(0.0);
            let mut mine = left * asked.len() as f64 / (total - done).max(1) as f64;
            sub.process_at_rank(0).broadcast_into(&mut mine);
            done += asked.len();
            requests(sub, collective, asked, timing, rounds, mine)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rounds of `default` (first) against a switch, per replica.
    fn compared(per_replica: &[(f64, f64)]) -> Compared {
        let mut c = Compared {
            iterations: 10,
            rounds: Vec::new(),
            replica: Vec::new(),
        };
        for (r, &(base, switch)) in per_replica.iter().enumerate() {
            for k in 0..3 {
                // A little noise so that the replicas' means differ.
                let jitter = 1.0 + 0.01 * k as f64;
                c.rounds.push(vec![base * jitter, switch]);
                c.replica.push(r);
            }
        }
        c
    }

    #[test]
    fn a_switch_slower_in_one_allocator_regime_shows_it() {
        // Twice as fast in the fresh process's regime (replicas 0 and 2),
        // 5% slower in the settled one (1 and 3).
        let c = compared(&[(2.0, 1.0), (1.0, 1.05), (2.1, 1.0), (1.0, 1.05)]);
        let s = c.speedup(1).unwrap();
        assert_eq!(s.replicas, 4);
        assert!(s.speedup > 1.3, "{s:?}");
        let weakest = s.weakest.unwrap();
        assert!((weakest - 1.0 / 1.05 * 1.01).abs() < 0.01, "{weakest}");
        // One replica: one regime, nothing to compare.
        let one = compared(&[(2.0, 1.0)]).speedup(1).unwrap();
        assert_eq!(one.weakest, None);
    }
}
