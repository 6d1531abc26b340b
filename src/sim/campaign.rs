//! Benchmark data made by the simulator instead of a cluster: every
//! scheduled candidate on every job and size, with seeded multiplicative
//! noise. For tests with known ground truth and for benchmarks that need
//! large datasets.

use super::{simulate, CostModel};
use crate::data::{Algorithm, Candidate, Config, Impl, Mapping, Measurement, Placement};
use crate::schedule::{Schedule, Spec};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

#[derive(Clone, Debug)]
pub struct Campaign {
    /// What is measured (its candidates must be its algorithms).
    pub collective: crate::data::Collective,
    pub procs: Vec<u32>,
    /// Cores per node: a job of P ranks uses ceil(P / cores) nodes.
    pub cores_per_node: u32,
    pub mappings: Vec<Mapping>,
    pub sizes: Vec<u64>,
    /// (algorithm, segment size, fan-out) of each own candidate.
    pub candidates: Vec<(Algorithm, u64, Option<u32>)>,
    pub cost: CostModel,
    /// Relative noise: times are multiplied by exp(N(0, noise)).
    pub noise: f64,
    pub seed: u64,
}

/// One measurement per (job, mapping, size, candidate).
pub fn run(c: &Campaign) -> Result<Vec<Measurement>, String> {
    let mut rng = StdRng::seed_from_u64(c.seed);
    let mut out = Vec::new();
    for &procs in &c.procs {
        let nodes = procs.div_ceil(c.cores_per_node).max(1);
        let ppn = procs.div_ceil(nodes);
        for &mapping in &c.mappings {
            let placement = Placement {
                procs,
                nodes,
                ppn,
                order: mapping.node_order(),
            };
            for &msg_bytes in &c.sizes {
                for &(algorithm, segsize, fanout) in &c.candidates {
                    let spec = Spec {
                        collective: c.collective,
                        algorithm,
                        procs,
                        root: 0,
                        msg_bytes,
                        segsize,
                        fanout,
                    };
                    let schedule = Schedule::new(spec)?;
                    let t = simulate(&schedule, &placement, &c.cost)
                        .map_err(|e| format!("{spec:?}: {e}"))?
                        .makespan_us();
                    // Box-Muller: a normal deviate from two uniforms.
                    let (u1, u2): (f64, f64) = (rng.random::<f64>().max(1e-12), rng.random());
                    let z = (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos();
                    out.push(Measurement {
                        config: Config {
                            procs,
                            nodes,
                            ppn,
                            mapping,
                            msg_bytes,
                            imbalance: 0.0,
                            arrival: crate::data::Arrival::Barrier,
                        },
                        candidate: Candidate {
                            algorithm,
                            segsize: Some(segsize),
                            fanout,
                            implementation: Impl::Own,
                        },
                        // Zero-byte broadcasts still cost a call.
                        time_us: t.max(0.05) * (c.noise * z).exp(),
                        time_min_us: None,
                        time_max_us: None,
                        ci95_us: None,
                        reps: None,
                        rows: 1,
                    });
                }
            }
        }
    }
    Ok(out)
}
