//! Fitting the analytical models from benchmark rows alone. With γ and Q
//! fixed and the slowest fan-out of each stage known, a row's time is linear
//! in (overhead, α, β per channel): one equation per measured row. Each
//! candidate's equations are solved by a robust Huber regression (the
//! paper's choice) on relative residuals, so small messages count as much as
//! large ones, under non-negativity (no negative latencies or bandwidth
//! costs, hence no negative times). Which fan-out dominates a stage depends
//! on the parameters, so the fit alternates the two a few times. γ's slope
//! and Q are shared by all algorithms and chosen on a coarse grid by the
//! total squared log error: from the data, not from constants tuned to it.

use super::{design, predict, CandidateFit, Fitted, Params, Shape, Shared, WIDTH};
use crate::data::{Arrival, Candidate, Dataset, Measurement};
use linfa_linalg::cholesky::SolveC;
use ndarray::{Array1, Array2};
use std::collections::BTreeMap;

const SLOPES: [f64; 5] = [0.0, 0.25, 0.5, 0.75, 1.0];
const RATIOS: [f64; 5] = [1.0, 2.0, 4.0, 8.0, 16.0];
/// Alternations of (dominant fan-outs, parameters).
const DOMINANCE_ROUNDS: usize = 3;
const HUBER_ROUNDS: usize = 10;
/// Most rows per candidate used to choose the shared constants.
const GRID_ROWS: usize = 500;

/// A measured row with its model shape.
#[derive(Clone, Debug)]
pub struct Observation {
    pub shape: std::sync::Arc<Shape>,
    pub time_us: f64,
}

/// Observations per candidate; candidates without a schedule separately.
/// Only rows with a barrier start: the models price a broadcast that every
/// rank starts together and time its slowest rank.
pub fn observations(d: &Dataset) -> (BTreeMap<Candidate, Vec<Observation>>, Vec<Candidate>) {
    // Shapes are simulated, the bulk of a fit's time: on every core.
    let rows: Vec<&Measurement> = d
        .measurements()
        .iter()
        .filter(|m| m.config.arrival == Arrival::Barrier)
        .collect();
    let rows = &rows[..];
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let chunk = rows.len().div_ceil(threads).max(1);
    let shapes: Vec<Option<std::sync::Arc<Shape>>> = std::thread::scope(|scope| {
        let handles: Vec<_> = rows
            .chunks(chunk)
            .map(|part| {
                scope.spawn(move || {
                    part.iter()
                        .map(|m| Shape::cached(&m.config, &m.candidate))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect()
    });
    let mut by: BTreeMap<Candidate, Vec<Observation>> = BTreeMap::new();
    let mut unmodeled = Vec::new();
    for (m, shape) in rows.iter().zip(shapes) {
        match shape {
            Some(shape) => by.entry(m.candidate).or_default().push(Observation {
                shape,
                time_us: m.time_us,
            }),
            None if !unmodeled.contains(&m.candidate) => unmodeled.push(m.candidate),
            None => {}
        }
    }
    (by, unmodeled)
}

/// Fits every candidate of `d`, choosing the shared parameters.
pub fn fit_dataset(d: &Dataset) -> Fitted {
    fit_dataset_with(d, None)
}

/// Fits every candidate of `d` under `shared` when given, else choosing it
/// on the grid (cross-validation folds reuse the full data's choice of
/// these two coarse constants: the grid costs 25 fits).
pub fn fit_dataset_with(d: &Dataset, shared: Option<Shared>) -> Fitted {
    let (by, unmodeled) = observations(d);
    let shared = shared.unwrap_or_else(|| choose_shared(&by));
    let fits = by
        .iter()
        .map(|(c, obs)| {
            let params = fit_candidate(obs, &shared);
            CandidateFit {
                candidate: *c,
                rows: obs.len(),
                params,
                r2_log: r2_log(obs, &shared, &params),
            }
        })
        .collect();
    Fitted {
        shared,
        fits,
        unmodeled,
    }
}

/// γ's slope and Q with the smallest total squared log error.
fn choose_shared(by: &BTreeMap<Candidate, Vec<Observation>>) -> Shared {
    // Two coarse constants need no more than an even sample of each
    // candidate's rows; the grid costs 25 fits, so large datasets would
    // spend most of `train` here otherwise.
    let by: Vec<Vec<Observation>> = by
        .values()
        .map(|obs| {
            let step = obs.len().div_ceil(GRID_ROWS).max(1);
            obs.iter().step_by(step).cloned().collect()
        })
        .collect();
    let network = by.iter().flatten().any(|o| o.shape.has_network());
    let ratios: &[f64] = if network { &RATIOS } else { &RATIOS[..1] };
    let mut best: Option<(f64, Shared)> = None;
    for &gamma_slope in &SLOPES {
        for &q in ratios {
            let shared = Shared { gamma_slope, q };
            let sse: f64 = by
                .iter()
                .map(|obs| sse_log(obs, &shared, &fit_candidate(obs, &shared)))
                .sum();
            if best.is_none_or(|(b, _)| sse < b) {
                best = Some((sse, shared));
            }
        }
    }
    best.map_or(
        Shared {
            gamma_slope: 0.0,
            q: 1.0,
        },
        |(_, s)| s,
    )
}

/// One candidate's parameters under fixed shared parameters.
pub fn fit_candidate(obs: &[Observation], shared: &Shared) -> Params {
    // Start from a network 1/Q as fast as shared memory: only the order of
    // stage costs matters here, the fit replaces it.
    let mut params = Params {
        overhead_us: 0.0,
        shm_alpha_us: 1.0,
        shm_beta_us_per_byte: 1e-4,
        net_alpha_us: shared.q,
        net_beta_us_per_byte: 1e-4 * shared.q,
    };
    for _ in 0..DOMINANCE_ROUNDS {
        let rows: Vec<[f64; WIDTH]> = obs
            .iter()
            .map(|o| design(&o.shape, shared, &params))
            .collect();
        let times: Vec<f64> = obs.iter().map(|o| o.time_us).collect();
        let used: Vec<bool> = (0..WIDTH)
            .map(|j| rows.iter().any(|r| r[j] > 0.0))
            .collect();
        let theta = huber_nnls(&rows, &times, &used);
        params = Params::from_slice(&theta);
        // A channel the data never exercised is Q times slower (network)
        // or faster (shared memory) than the other.
        if !used[3] && !used[4] {
            params.net_alpha_us = params.shm_alpha_us * shared.q;
            params.net_beta_us_per_byte = params.shm_beta_us_per_byte * shared.q;
        }
        if !used[1] && !used[2] {
            params.shm_alpha_us = params.net_alpha_us / shared.q;
            params.shm_beta_us_per_byte = params.net_beta_us_per_byte / shared.q;
        }
    }
    params
}

fn sse_log(obs: &[Observation], shared: &Shared, params: &Params) -> f64 {
    obs.iter()
        .map(|o| (ln_predict(o, shared, params) - o.time_us.ln()).powi(2))
        .sum()
}

fn ln_predict(o: &Observation, shared: &Shared, params: &Params) -> f64 {
    // The fit keeps every coefficient ≥ 0; the floor only guards ln(0) for
    // a model fitted on rows that never used the overhead.
    predict(&o.shape, shared, params).max(1e-6).ln()
}

/// R² of ln(time) of the model on `obs`.
pub fn r2_log(obs: &[Observation], shared: &Shared, params: &Params) -> f64 {
    let n = obs.len() as f64;
    let mean = obs.iter().map(|o| o.time_us.ln()).sum::<f64>() / n;
    let total: f64 = obs.iter().map(|o| (o.time_us.ln() - mean).powi(2)).sum();
    if total <= 0.0 {
        return f64::NAN;
    }
    1.0 - sse_log(obs, shared, params) / total
}

/// Huber regression of `t` on the columns of `x` marked `used`, with
/// non-negative coefficients, on residuals relative to `t`; by iteratively
/// reweighted least squares (Huber's k = 1.345 robust standard deviations).
fn huber_nnls(x: &[[f64; WIDTH]], t: &[f64], used: &[bool]) -> [f64; WIDTH] {
    let mut weights = vec![1.0; t.len()];
    let mut theta = [0.0; WIDTH];
    for _ in 0..HUBER_ROUNDS {
        let mut a = Array2::<f64>::zeros((WIDTH, WIDTH));
        let mut b = Array1::<f64>::zeros(WIDTH);
        for ((row, &ti), &w) in x.iter().zip(t).zip(&weights) {
            let w = w / (ti * ti);
            for i in 0..WIDTH {
                b[i] += w * row[i] * ti;
                for j in 0..WIDTH {
                    a[[i, j]] += w * row[i] * row[j];
                }
            }
        }
        theta = nnls(&a, &b, used);
        let residuals: Vec<f64> = x
            .iter()
            .zip(t)
            .map(|(row, &ti)| (row.iter().zip(theta).map(|(r, c)| r * c).sum::<f64>() - ti) / ti)
            .collect();
        let mut abs: Vec<f64> = residuals.iter().map(|r| r.abs()).collect();
        abs.sort_by(f64::total_cmp);
        let scale = (1.4826 * crate::data::median_sorted(&abs)).max(1e-9);
        let k = 1.345 * scale;
        for (w, r) in weights.iter_mut().zip(&residuals) {
            *w = if r.abs() <= k { 1.0 } else { k / r.abs() };
        }
    }
    theta
}

/// Minimizes θᵀAθ − 2bᵀθ over θ ≥ 0 with θ_j = 0 where `!used[j]`: the
/// optimum is the unconstrained optimum on its support, so trying every
/// support (at most 2⁵) is exact. Written here because no maintained crate
/// offers non-negative least squares on ndarray.
fn nnls(a: &Array2<f64>, b: &Array1<f64>, used: &[bool]) -> [f64; WIDTH] {
    let columns: Vec<usize> = (0..WIDTH).filter(|&j| used[j]).collect();
    let mut best = ([0.0; WIDTH], 0.0);
    for mask in 1u32..(1 << columns.len()) {
        let support: Vec<usize> = columns
            .iter()
            .enumerate()
            .filter(|(i, _)| mask & (1 << i) != 0)
            .map(|(_, &j)| j)
            .collect();
        let n = support.len();
        let mut sub = Array2::<f64>::zeros((n, n));
        let mut rhs = Array2::<f64>::zeros((n, 1));
        for (i, &r) in support.iter().enumerate() {
            rhs[[i, 0]] = b[r];
            for (j, &c) in support.iter().enumerate() {
                sub[[i, j]] = a[[r, c]];
            }
        }
        let Ok(solution) = sub.solvec(&rhs) else {
            continue;
        };
        if solution.iter().any(|v| !(v.is_finite() && *v >= 0.0)) {
            continue;
        }
        let mut theta = [0.0; WIDTH];
        for (i, &j) in support.iter().enumerate() {
            theta[j] = solution[[i, 0]];
        }
        // Objective θᵀAθ − 2bᵀθ = −bᵀθ at a support optimum.
        let objective = -support.iter().map(|&j| b[j] * theta[j]).sum::<f64>();
        if objective < best.1 {
            best = (theta, objective);
        }
    }
    best.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::load::load_file;
    use crate::data::{Algorithm, Mapping, Provenance};
    use crate::sim::campaign::{run, Campaign};
    use crate::sim::{CostModel, Link};

    const SHM: Link = Link {
        alpha_us: 2.0,
        beta_us_per_byte: 1e-3,
    };
    const NET: Link = Link {
        alpha_us: 12.0,
        beta_us_per_byte: 4e-3,
    };

    fn simulated(
        candidates: Vec<(Algorithm, u64, Option<u32>)>,
        cores: u32,
        serialize: bool,
    ) -> Dataset {
        let rows = run(&Campaign {
            procs: vec![2, 3, 4, 5, 6, 8, 11, 12, 16],
            cores_per_node: cores,
            mappings: vec![Mapping::Core, Mapping::Node],
            sizes: (0..=20).step_by(2).map(|e| 1u64 << e).collect(),
            candidates,
            cost: CostModel {
                shm: SHM,
                net: NET,
                serialize_sends: serialize,
            },
            noise: 0.0,
            seed: 1,
        })
        .unwrap();
        Dataset::from_rows(rows, Provenance::default())
    }

    fn close(got: f64, want: f64, what: &str) {
        assert!(
            (got - want).abs() <= 0.05 * want,
            "{what}: fitted {got}, simulated {want}"
        );
    }

    const UNSEGMENTED: [Algorithm; 5] = [
        Algorithm::Linear,
        Algorithm::Binomial,
        Algorithm::Binary,
        Algorithm::Pipeline,
        Algorithm::Chain,
    ];

    fn unsegmented() -> Vec<(Algorithm, u64, Option<u32>)> {
        UNSEGMENTED.iter().map(|&a| (a, 0, None)).collect()
    }

    /// On simulator data with known α, β, the fit finds them: one node
    /// (shared memory only) and one rank per node (network only), where the
    /// sum of stage maxima is exact.
    #[test]
    fn recovers_the_simulated_links() {
        for (cores, link, shm) in [(64, SHM, true), (1, NET, false)] {
            let fitted = fit_dataset(&simulated(unsegmented(), cores, false));
            assert_eq!(fitted.shared.gamma_slope, 0.0, "concurrent sends");
            for f in &fitted.fits {
                let p = f.params;
                let what = format!("{} on {cores}-core nodes", f.candidate);
                let (alpha, beta) = if shm {
                    (p.shm_alpha_us, p.shm_beta_us_per_byte)
                } else {
                    (p.net_alpha_us, p.net_beta_us_per_byte)
                };
                close(alpha + p.overhead_us, link.alpha_us, &what);
                close(beta, link.beta_us_per_byte, &what);
                assert!(f.r2_log > 0.99, "{what}: R² {}", f.r2_log);
            }
        }
    }

    /// Jobs that mix the channels are where the stage model approximates
    /// (branches overlap across stages); it must still explain the times.
    #[test]
    fn explains_jobs_that_mix_channels() {
        let fitted = fit_dataset(&simulated(unsegmented(), 4, false));
        for f in &fitted.fits {
            assert!(f.r2_log > 0.95, "{}: R² {}", f.candidate, f.r2_log);
        }
    }

    #[test]
    fn recovers_a_segmented_pipeline_on_one_node() {
        let d = simulated(vec![(Algorithm::Pipeline, 8192, None)], 64, false);
        let fitted = fit_dataset(&d);
        let p = fitted.fits[0].params;
        close(p.shm_alpha_us + p.overhead_us, SHM.alpha_us, "alpha");
        close(p.shm_beta_us_per_byte, SHM.beta_us_per_byte, "beta");
    }

    #[test]
    fn serialized_sends_are_seen_in_gamma() {
        let d = simulated(
            vec![(Algorithm::Linear, 0, None), (Algorithm::Binomial, 0, None)],
            64,
            true,
        );
        assert!(fit_dataset(&d).shared.gamma_slope >= 0.75);
    }

    #[test]
    fn shipped_data_never_give_negative_times() {
        let files = std::fs::read_dir("data")
            .unwrap()
            .map(|e| e.unwrap().path());
        for file in files.filter(|p| p.extension().is_some_and(|e| e == "csv")) {
            let file = file.display();
            let d = load_file(std::path::Path::new(&file.to_string()))
                .unwrap()
                .dataset;
            let fitted = fit_dataset(&d);
            let (by, _) = observations(&d);
            for (c, obs) in &by {
                let p = fitted.params(c).unwrap();
                assert!(p.to_vec().iter().all(|v| *v >= 0.0), "{file} {c}: {p:?}");
                for o in obs {
                    let t = predict(&o.shape, &fitted.shared, &p);
                    assert!(t > 0.0, "{file} {c}: predicts {t}");
                }
            }
        }
    }
}
