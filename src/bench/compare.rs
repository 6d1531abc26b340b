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
//! Each replica also reads the machine's state first
//! ([`super::machine_state`]): a switch must be faster in every state its
//! replicas met, and in the machine's quiet state in each allocator regime.
//! On 16 bound ranks the small-message speed-ups varied between separate
//! jobs by up to 30% in ln; the rounds of one job saw a third of that, and
//! only the ranks' order re-drawn inside the job reproduced it
//! (`experiments/variance.md`). The replicas of one comparison are taken
//! apart in time, a pass over every comparison asked between two of them
//! ([`Session::compare_spread`]): what the machine is doing changes over
//! seconds, and a winner can turn with it.

use super::allocator::{self, Regime};
use super::campaign::resolve_roots;
use super::control::{self, TunedControl};
use super::machine_state::{probe, DISTURBED};
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
use std::collections::BTreeMap;
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

    /// What a decision is validated with: four to sixteen replicas of
    /// three to ten rounds each (the interval comes from the replicas; the
    /// rounds only steady each replica's mean). With four replicas' three
    /// degrees of freedom a run keeps only what stands far above the spread
    /// between replicas; six to twelve kept tens of switches more on 2
    /// cores, and those timed 0.47-0.97 with the rules on in separate jobs
    /// of a plain loop (`experiments/validation.md`). Past four, only a
    /// switch whose interval is still wide gets more, while the budget
    /// lasts: one whose effect moves with the machine's state (a 4 KiB
    /// broadcast, 3x in one and 1.3x in the other) needs them to be told
    /// from `default` among a run's tens of tests.
    pub fn replicated() -> RoundLimits {
        RoundLimits {
            min: 3,
            max: 10,
            max_seconds: 8.0,
            min_replicas: 4,
            max_replicas: 16,
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
    /// Per round, its replica's probe of the machine's state (µs; see
    /// [`super::machine_state::probe`]).
    pub probe: Vec<f64>,
    /// The quietest probe of this communicator size in the comparisons
    /// taken with this one (µs): the machine's quiet state.
    pub quiet: f64,
}

impl Compared {
    /// Arm 0's time over arm `arm`'s, from the paired rounds (over the
    /// replicas' means where there are two or more), with, where the
    /// replicas took both allocator regimes, the weaker regime's in the
    /// machine's quiet state (a regime whose replicas never met it: its
    /// disturbed ones, asked as much) and the weaker regime's while it was
    /// disturbed. Counting a regime never measured quiet as no faster
    /// removed 3x winners in 10-second confirmation jobs (mc73 and mc75 in
    /// `experiments/validation.md`).
    pub fn speedup(&self, arm: usize) -> Option<Speedup> {
        let replicas = self.replica.iter().max().map_or(0, |r| r + 1);
        let mut pairs = vec![Vec::new(); replicas];
        for (round, &r) in self.rounds.iter().zip(&self.replica) {
            pairs[r].push((round[0], round[arm]));
        }
        let mut speedup = Speedup::from_replicas(&pairs)?;
        // Per (disturbed, regime), its replicas' mean ln speed-ups.
        let mut states: BTreeMap<(bool, bool), Vec<f64>> = BTreeMap::new();
        for (r, state) in self.replica_states() {
            let logs = log_ratios(&pairs[r]);
            if !logs.is_empty() {
                let mean = logs.iter().sum::<f64>() / logs.len() as f64;
                states.entry(state).or_default().push(mean);
            }
        }
        let both_regimes = [false, true]
            .iter()
            .all(|&settled| states.keys().any(|&(_, s)| s == settled));
        if both_regimes {
            let mean = |m: &Vec<f64>| (m.iter().sum::<f64>() / m.len() as f64).exp();
            // Per regime: its quiet replicas, or where it met none its
            // disturbed ones (all that was measured of it).
            speedup.weakest = [false, true]
                .iter()
                .filter_map(|&settled| {
                    states
                        .get(&(false, settled))
                        .or_else(|| states.get(&(true, settled)))
                        .map(mean)
                })
                .min_by(f64::total_cmp);
            speedup.disturbed = [false, true]
                .iter()
                .filter_map(|&settled| states.get(&(true, settled)).map(mean))
                .min_by(f64::total_cmp);
        }
        Some(speedup)
    }

    /// Whether a replica that probed `probe` (µs) ran while the machine
    /// was disturbed.
    fn disturbed(&self, probe: f64) -> bool {
        probe > DISTURBED * self.quiet
    }

    /// Per replica taken, whether the machine was disturbed during it and
    /// whether it ran in the settled allocator regime.
    fn replica_states(&self) -> BTreeMap<usize, (bool, bool)> {
        self.replica
            .iter()
            .zip(&self.probe)
            .map(|(&r, &probe)| {
                let settled = Regime::of_replica(r) == Regime::Settled;
                (r, (self.disturbed(probe), settled))
            })
            .collect()
    }

    /// Whether each allocator regime has a replica in the machine's quiet
    /// state (trivially, where the replicas took one regime or none).
    fn quiet_in_each_regime(&self) -> bool {
        let states = self.replica_states();
        let met = |settled, quiet: bool| {
            states
                .values()
                .any(|&(d, s)| s == settled && (!quiet || !d))
        };
        !(met(false, false) && met(true, false)) || (met(false, true) && met(true, true))
    }

    /// Arm `arm`'s mean time over the rounds (µs).
    pub fn mean_us(&self, arm: usize) -> f64 {
        self.rounds.iter().map(|r| r[arm]).sum::<f64>() / self.rounds.len().max(1) as f64
    }

    /// Arm `arm`'s speed-up with arm 0's and its own mean times (µs).
    pub fn timed(&self, arm: usize) -> Option<(Speedup, (f64, f64))> {
        Some((self.speedup(arm)?, (self.mean_us(0), self.mean_us(arm))))
    }

    /// Whether every arm's speed-up over the first is known to within
    /// `half_width` (half the interval's width in ln).
    fn precise(&self, half_width: f64) -> bool {
        let arms = self.rounds.first().map_or(0, Vec::len);
        (1..arms).all(|arm| {
            self.speedup(arm)
                .is_some_and(|s| s.half_width() <= half_width)
        })
    }
}

/// The controls an arm of `requests` needs (Open MPI's tuned variables,
/// MPICH's), opened beside any rules file in effect.
fn open_controls(
    collective: Collective,
    requests: &[&Request],
) -> Result<(Option<TunedControl>, Option<MpichControl>)> {
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
    Ok((tuned, mpich))
}

/// Replica `replica` of each of `requests` of `collective` on `comm`, in
/// order, each within its share of `seconds` (every rank takes rank 0's
/// clock), with the seconds it took. A request the time left no room for
/// is `None`. Collective over `comm`.
fn requests(
    comm: &SimpleCommunicator,
    collective: Collective,
    requests: &[&Request],
    replica: usize,
    timing: &BenchOptions,
    rounds: &RoundLimits,
    seconds: f64,
) -> Result<Vec<Option<(Compared, f64)>>> {
    let (tuned, mpich) = open_controls(collective, requests)?;
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
        let began = mpi::time();
        let one = one_replica(comm, controls, collective, request, replica, timing, &share)?;
        out.push(Some((one, mpi::time() - began)));
    }
    Ok(out)
}

/// Replica `r` of one request (see the module docs): replica 0 on `comm`
/// as it is, the others on the ranks in a fresh random order, each on
/// fresh buffers in its allocator regime. Collective.
fn one_replica(
    comm: &SimpleCommunicator,
    controls: Controls,
    collective: Collective,
    request: &Request,
    r: usize,
    timing: &BenchOptions,
    rounds: &RoundLimits,
) -> Result<Compared> {
    let procs = comm.size() as u32;
    let state = probe(comm);
    if rounds.max_replicas > 1 {
        allocator::pin(Regime::of_replica(r));
    }
    let replica = (r > 0).then(|| permuted(comm)).transpose()?;
    let on = replica.as_ref().unwrap_or(comm);
    let (mut fresh, mut buffers) = Buffers::new(collective, request.msg_bytes, procs);
    let runners = request
        .arms
        .iter()
        .map(|arm| runner(on, controls, *arm, collective, request.msg_bytes, timing))
        .collect::<Result<Vec<_>>>()?;
    let buf: &mut [u8] = bytemuck::cast_slice_mut(&mut fresh);
    let buf = &mut buf[..collective.local_bytes(procs, request.msg_bytes) as usize];
    let mut one = compare(
        on,
        &runners,
        request.msg_bytes,
        (buf, &mut buffers),
        timing,
        rounds,
    )?;
    allocator::pin(Regime::Fresh);
    one.replica.fill(r);
    one.probe.fill(state);
    one.quiet = state;
    Ok(one)
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
        probe: Vec::new(),
        quiet: f64::INFINITY,
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
        compared.probe.push(0.0);
        if compared.rounds.len() < rounds.min {
            continue;
        }
        if compared.precise(rounds.half_width)
            || slowest(comm, mpi::time() - start) >= rounds.max_seconds
        {
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

/// One collective's comparisons, per communicator size (`None`: the whole
/// job): what [`Session::compare_spread`] takes.
pub struct Batch {
    pub collective: Collective,
    pub sizes: Vec<(Option<u32>, Mapping, Vec<Request>)>,
    pub timing: BenchOptions,
}

/// Per batch, per communicator size, per request: what was measured
/// (`None`: the time left no room for it).
pub type Results = Vec<Vec<Vec<Option<Compared>>>>;

impl Session {
    /// Paired comparisons of `collective` (see this module) on each
    /// communicator size of `sizes` in turn, within `seconds`: one batch of
    /// [`Session::compare_spread`]. Rank 0 has every size's results.
    pub fn compare(
        &self,
        collective: Collective,
        sizes: &[(Option<u32>, Mapping, Vec<Request>)],
        timing: &BenchOptions,
        rounds: &RoundLimits,
        seconds: f64,
    ) -> Result<Vec<Vec<Option<Compared>>>> {
        let batch = Batch {
            collective,
            sizes: sizes.to_vec(),
            timing: timing.clone(),
        };
        Ok(self
            .compare_spread(&[batch], rounds, seconds)?
            .pop()
            .unwrap_or_default())
    }

    /// Paired comparisons of every request of `batches` (see this module)
    /// within `seconds`, taken in passes: pass `r` times replica `r` of
    /// every request still open, batch after batch, so that the replicas of
    /// one request lie a whole pass apart. The machine has states that last
    /// seconds and turn a collective's winner (on 2 bound ranks here,
    /// MPI_Allreduce of 1 MiB three times slower in one, where linear beats
    /// `default`, and `default` wins by 1.45x in the other:
    /// `experiments/validation.md`); replicas taken back to back all fall
    /// in one of them. Each pass takes an equal share of the time left to
    /// the passes `min_replicas` still asks for; within a pass, each
    /// communicator size a share by its open requests. A request closes
    /// once its speed-ups are as precise as asked after `min_replicas`, or
    /// its replicas used `max_seconds`. Rank 0 decides by its clock and
    /// has every result.
    pub fn compare_spread(
        &self,
        batches: &[Batch],
        rounds: &RoundLimits,
        seconds: f64,
    ) -> Result<Results> {
        let start = Instant::now();
        let mut out: Results = batches
            .iter()
            .map(|b| b.sizes.iter().map(|s| vec![None; s.2.len()]).collect())
            .collect();
        // Requests are numbered in batch, size and request order: where
        // each batch's sizes start, and how many there are.
        let mut total = 0;
        let mut starts: Vec<Vec<usize>> = Vec::new();
        for batch in batches {
            let mut at = Vec::with_capacity(batch.sizes.len());
            for size in &batch.sizes {
                at.push(total);
                total += size.2.len();
            }
            starts.push(at);
        }
        if total == 0 {
            // Nothing to time; and an empty buffer's address is Open MPI's
            // MPI_IN_PLACE, which MPI_Bcast refuses.
            return Ok(out);
        }
        let mut open = vec![1u8; total];
        let mut spent = vec![0.0; total];
        // Per communicator size, the quietest probe so far.
        let mut quiet: BTreeMap<(Option<u32>, Mapping), f64> = BTreeMap::new();
        let per_replica = RoundLimits {
            max_seconds: rounds.max_seconds / rounds.min_replicas.max(1) as f64,
            ..*rounds
        };
        let root = self.world.process_at_rank(0);
        for r in 0..rounds.max_replicas.max(1) {
            root.broadcast_into(&mut open[..]);
            let pending = open.iter().filter(|&&o| o == 1).count();
            let mut left = (seconds - start.elapsed().as_secs_f64()).max(0.0);
            root.broadcast_into(&mut left);
            if pending == 0 || left <= 0.0 {
                break;
            }
            let pass_seconds = left / rounds.min_replicas.saturating_sub(r).max(1) as f64;
            let pass_start = Instant::now();
            let mut done = 0;
            for (b, batch) in batches.iter().enumerate() {
                // The sizes with open requests, and which those are.
                let mut places = Vec::new();
                let mut asked: Vec<(usize, Vec<usize>)> = Vec::new();
                for (k, size) in batch.sizes.iter().enumerate() {
                    let ids: Vec<usize> = (0..size.2.len())
                        .filter(|&q| open[starts[b][k] + q] == 1)
                        .collect();
                    if !ids.is_empty() {
                        places.push((size.0, size.1));
                        asked.push((k, ids));
                    }
                }
                let measured = each_size(&self.world, &places, |i, sub| {
                    let (k, ids) = &asked[i];
                    let reqs: Vec<&Request> = ids.iter().map(|&q| &batch.sizes[*k].2[q]).collect();
                    let left = (pass_seconds - pass_start.elapsed().as_secs_f64()).max(0.0);
                    let mut mine = left * reqs.len() as f64 / (pending - done).max(1) as f64;
                    sub.process_at_rank(0).broadcast_into(&mut mine);
                    done += reqs.len();
                    let results = requests(
                        sub,
                        batch.collective,
                        &reqs,
                        r,
                        &batch.timing,
                        &per_replica,
                        mine,
                    )?;
                    Ok((*k, ids.clone(), results))
                })?;
                for (k, ids, results) in measured {
                    let offset = starts[b][k];
                    let place = (batch.sizes[k].0, batch.sizes[k].1);
                    for (q, result) in ids.into_iter().zip(results) {
                        let Some((one, seconds)) = result else {
                            continue;
                        };
                        spent[offset + q] += seconds;
                        let level = quiet.entry(place).or_insert(f64::INFINITY);
                        *level = level.min(one.quiet);
                        let slot = &mut out[b][k][q];
                        match slot {
                            Some(all) => {
                                all.rounds.extend(one.rounds);
                                all.replica.extend(one.replica);
                                all.probe.extend(one.probe);
                            }
                            None => *slot = Some(one),
                        }
                        // Settled: as precise as asked, with the quiet
                        // state met in each allocator regime.
                        let settled = slot.as_mut().is_some_and(|c| {
                            c.quiet = *level;
                            c.precise(rounds.half_width) && c.quiet_in_each_regime()
                        });
                        if r + 1 >= rounds.min_replicas.max(1)
                            && (settled || spent[offset + q] >= rounds.max_seconds)
                        {
                            open[offset + q] = 0;
                        }
                    }
                }
            }
        }
        // Every comparison against its communicator size's quietest probe
        // in the whole run.
        for (b, batch) in batches.iter().enumerate() {
            for (k, size) in batch.sizes.iter().enumerate() {
                let level = quiet.get(&(size.0, size.1)).copied();
                for c in out[b][k].iter_mut().flatten() {
                    c.quiet = level.unwrap_or(c.quiet);
                }
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rounds of `default` (first) against a switch, per replica.
    fn compared(per_replica: &[(f64, f64)]) -> Compared {
        let quiet: Vec<f64> = per_replica.iter().map(|_| 0.2).collect();
        probed(per_replica, &quiet)
    }

    /// The same, each replica with its probe (µs), the quietest 0.2.
    fn probed(per_replica: &[(f64, f64)], probes: &[f64]) -> Compared {
        let mut c = Compared {
            iterations: 10,
            rounds: Vec::new(),
            replica: Vec::new(),
            probe: Vec::new(),
            quiet: 0.2,
        };
        for (r, (&(base, switch), &probe)) in per_replica.iter().zip(probes).enumerate() {
            for k in 0..3 {
                // A little noise so that the replicas' means differ.
                let jitter = 1.0 + 0.01 * k as f64;
                c.rounds.push(vec![base * jitter, switch]);
                c.replica.push(r);
                c.probe.push(probe);
            }
        }
        c
    }

    #[test]
    fn precise_once_every_interval_is_narrow_enough() {
        // Four replicas a little apart: about ±1% in ln.
        let narrow = compared(&[(2.0, 1.0), (2.02, 1.0), (1.98, 1.0), (2.0, 1.0)]);
        assert!(narrow.precise(0.05));
        assert!(!narrow.precise(0.001));
        // Replicas that disagree by 2x: far from ±5%.
        let wide = compared(&[(2.0, 1.0), (1.0, 1.0), (2.0, 1.0), (1.0, 1.0)]);
        assert!(!wide.precise(0.05));
        // One arm only: nothing to be precise about.
        let alone = Compared {
            iterations: 1,
            rounds: vec![vec![1.0]; 3],
            replica: vec![0; 3],
            probe: vec![0.2; 3],
            quiet: 0.2,
        };
        assert!(alone.precise(0.0));
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

    /// The failure the probe is for: 1.2x faster while the machine is
    /// disturbed (probe 0.45 µs), 0.9x in its quiet state (0.2 µs), where
    /// the fresh process's regime favours the switch either way.
    #[test]
    fn a_switch_faster_only_while_the_machine_is_disturbed_shows_it() {
        let rows = [
            (1.8, 1.0),
            (0.9, 1.0),
            (1.8, 1.0),
            (1.2, 1.0),
            (1.8, 1.0),
            (1.2, 1.0),
        ];
        let probes = [0.2, 0.2, 0.45, 0.45, 0.45, 0.45];
        let s = probed(&rows, &probes).speedup(1).unwrap();
        assert!(s.speedup > 1.2, "{s:?}");
        assert!(s.weakest.unwrap() < 0.92, "{s:?}");
        assert!(s.disturbed.unwrap() > 1.15, "{s:?}");
        // The same replicas all disturbed after a quiet start elsewhere in
        // the run: the quiet state was never measured in either regime;
        // what was measured is asked as much, and more replicas.
        let mut late = probed(&rows[2..], &probes[2..]);
        let s = late.speedup(1).unwrap();
        assert!((1.15..1.25).contains(&s.weakest.unwrap()), "{s:?}");
        assert_eq!(s.weakest, s.disturbed);
        assert!(!late.quiet_in_each_regime(), "asks for more replicas");
        // Measured on their own, their state is the quiet one.
        late.quiet = 0.45;
        let s = late.speedup(1).unwrap();
        assert!(s.weakest.unwrap() > 1.15);
        assert_eq!(s.disturbed, None);
        assert!(late.quiet_in_each_regime());
    }

    /// A switch three times faster where the machine usually is and no
    /// faster while it is disturbed (the 4 KiB broadcast's shape) keeps
    /// its quiet figure; the disturbed one is reported beside it.
    #[test]
    fn a_switch_even_while_disturbed_is_not_held_back() {
        let rows = [(3.0, 1.0), (3.0, 1.0), (1.0, 1.0), (1.02, 1.0)];
        let s = probed(&rows, &[0.2, 0.21, 0.5, 0.5]).speedup(1).unwrap();
        let weakest = s.weakest.unwrap();
        assert!((2.9..3.1).contains(&weakest), "{s:?}");
        assert!((0.99..1.03).contains(&s.disturbed.unwrap()), "{s:?}");
    }
}
