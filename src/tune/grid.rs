//! The grid of a collective: every (configuration, candidate) this job can
//! measure.

use super::TuneOptions;
use crate::bench::points::Sweep;
use crate::bench::{self, Session};
use crate::data::{Algorithm, Arrival, Candidate, Collective, Config, Impl};
use crate::error::{Error, Result};

/// Every (configuration, candidate) of `collective` this job can measure:
/// Open MPI's forced algorithms (what a rules file selects) and `default`.
/// A reduction sums floats: sizes that are not whole floats are left out.
pub(super) fn grid(
    session: &Session,
    args: &TuneOptions,
    collective: Collective,
    forced: &[Algorithm],
    implementation: Impl,
) -> Result<Vec<(Config, Candidate)>> {
    let mut algorithms = vec![Algorithm::Default];
    algorithms.extend(forced.iter().filter(|a| **a != Algorithm::Default));
    let sizes = collective.message_sizes(&args.sizes);
    if sizes.is_empty() {
        return Err(Error::Usage(format!(
            "no message size for {}: its sizes are whole 4-byte floats",
            collective.function()
        )));
    }
    let sweep = Sweep {
        collective,
        sizes,
        algorithms,
        segsizes: args.segsizes.clone(),
        fanouts: vec![None],
        impls: vec![implementation],
        arrival: Arrival::Barrier,
        imbalances: vec![0.0],
    };
    let sweep_points = sweep.points().map_err(Error::Usage)?;
    let world = session.size();
    let procs: Vec<u32> = match &args.procs {
        Some(list) => list.clone(),
        // A barrier has one configuration per communicator size: every
        // size up to 8 ranks, so that a small job decides each (and its
        // models see more than one or two).
        None if !collective.describe().semantics.sized && world <= 8 => (2..=world).collect(),
        None => {
            let mut p: Vec<u32> = (1..)
                .map(|e| 1u32 << e)
                .take_while(|&p| p < world)
                .collect();
            p.push(world);
            p
        }
    };
    let library = session.library();
    // What Open MPI's tuned component has (allgather's sparbit is 5.0's).
    let tuned = match implementation {
        Impl::Ompi => Some(bench::control::TunedControl::open(collective).map_err(Error::Other)?),
        _ => None,
    };
    let controls = bench::Controls {
        tuned: tuned.as_ref(),
        mpich: None,
    };
    // (algorithm, why) of points bench would leave out of every round:
    // never planned, or their configurations, unpriced, would head every
    // round.
    let mut left = std::collections::BTreeSet::new();
    let mut grid = Vec::new();
    for p in procs {
        let placed = session.placement(p, args.mapping).ok_or_else(|| {
            Error::Usage(format!(
                "communicator size {p} exceeds the job's {world} ranks (--procs)"
            ))
        })?;
        if p < 2 {
            return Err(Error::Usage(format!(
                "communicator size {p}: a collective needs 2 or more ranks to tune"
            )));
        }
        for point in &sweep_points {
            let at = (p, placed.nodes);
            let c = &point.candidate;
            if let Some(why) = bench::cannot_run(collective, c, at, point.msg_bytes, controls) {
                left.insert((c.algorithm, why));
                continue;
            }
            let config = Config {
                procs: p,
                nodes: placed.nodes,
                ppn: placed.ppn,
                mapping: placed.mapping,
                msg_bytes: point.msg_bytes,
                imbalance: 0.0,
                arrival: Arrival::Barrier,
            };
            grid.push((config, point.candidate));
            // Where coll/han serves `default`, tuned's own decision is an
            // alternative a rules file can choose (HAN's file hands it to
            // tuned): measured beside it.
            if point.candidate.is_default() && library.hierarchical(collective, &config) {
                let tuned = Candidate {
                    algorithm: Algorithm::Tuned,
                    ..point.candidate
                };
                grid.push((config, tuned));
            }
        }
    }
    for (algorithm, why) in left.into_iter().filter(|_| session.rank() == 0) {
        eprintln!(
            "tune: {} {algorithm} not planned where it cannot run ({why})",
            collective.function()
        );
    }
    Ok(grid)
}
