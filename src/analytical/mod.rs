//! Analytical cost models of the broadcast algorithms, derived from the
//! schedules the harness runs (the model-based selection paper, §4): a
//! broadcast is the sum of its stages, a stage costs its slowest concurrent
//! flat-tree fan-out (NBFT), and a fan-out of k children costs γ(k) times one
//! point-to-point transfer of its segment on its channel (Hockney α + β·m,
//! shared memory within a node, network across). A fan-out that mixes the
//! channels counts as a network fan-out in which every Q shared-memory
//! children weigh like one network child (the paper's eq. 4).
//!
//! γ(k) = 1 + s·(k − 1) between full overlap (s = 0) and serialized sends
//! (s = 1) and the channel ratio Q are shared by all algorithms; (overhead,
//! α, β per channel) are fitted per candidate ([`fit`]).

pub mod fit;
mod shape;

use shape::Fanout;
pub use shape::Shape;

use crate::data::{Candidate, Config};
use serde::{Deserialize, Serialize};

/// One candidate's fit.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CandidateFit {
    pub candidate: Candidate,
    pub rows: usize,
    pub params: Params,
    /// R² of ln(time) in sample.
    pub r2_log: f64,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Fitted {
    pub shared: Shared,
    pub fits: Vec<CandidateFit>,
    /// Candidates without a model (no schedule: default, scatter-allgather).
    pub unmodeled: Vec<Candidate>,
}

impl Fitted {
    /// Where `candidate`'s fit is in `fits` (kept in candidate order).
    pub fn position(&self, candidate: &Candidate) -> Option<usize> {
        self.fits
            .binary_search_by(|f| f.candidate.cmp(candidate))
            .ok()
    }

    pub fn params(&self, candidate: &Candidate) -> Option<Params> {
        self.position(candidate).map(|i| self.fits[i].params)
    }

    /// Predicted time (µs) of `candidate` on `config`; `None` without a
    /// model for it.
    pub fn predict_us(&self, config: &Config, candidate: &Candidate) -> Option<f64> {
        let params = self.params(candidate)?;
        let shape = Shape::cached(config, candidate)?;
        Some(predict(&shape, &self.shared, &params))
    }
}

/// Parameters shared by every algorithm of a platform.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Shared {
    /// Slope s of γ(k) = 1 + s·(k − 1).
    pub gamma_slope: f64,
    /// How many shared-memory children weigh like one network child.
    pub q: f64,
}

impl Shared {
    fn gamma(&self, children: f64) -> f64 {
        1.0 + self.gamma_slope * (children - 1.0).max(0.0)
    }
}

/// One candidate's fitted parameters (µs, µs per byte).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Params {
    pub overhead_us: f64,
    pub shm_alpha_us: f64,
    pub shm_beta_us_per_byte: f64,
    pub net_alpha_us: f64,
    pub net_beta_us_per_byte: f64,
}

/// Number of coefficients in [`Params`], in the order of [`Params::to_vec`].
pub const WIDTH: usize = 5;

impl Params {
    pub fn to_vec(self) -> [f64; WIDTH] {
        [
            self.overhead_us,
            self.shm_alpha_us,
            self.shm_beta_us_per_byte,
            self.net_alpha_us,
            self.net_beta_us_per_byte,
        ]
    }

    pub fn from_slice(v: &[f64]) -> Params {
        Params {
            overhead_us: v[0],
            shm_alpha_us: v[1],
            shm_beta_us_per_byte: v[2],
            net_alpha_us: v[3],
            net_beta_us_per_byte: v[4],
        }
    }
}

/// The model's time as a linear function of the parameters: the
/// coefficients of (overhead, α_shm, β_shm, α_net, β_net), given which
/// fan-out dominates each stage under `params`.
pub fn design(shape: &Shape, shared: &Shared, params: &Params) -> [f64; WIDTH] {
    let mut row = [1.0, 0.0, 0.0, 0.0, 0.0];
    for (count, stage) in &shape.stages {
        let terms = stage.iter().map(|f| terms(f, shared));
        let cost = |t: &[f64; WIDTH]| {
            t[1] * params.shm_alpha_us
                + t[2] * params.shm_beta_us_per_byte
                + t[3] * params.net_alpha_us
                + t[4] * params.net_beta_us_per_byte
        };
        if let Some(slowest) = terms.max_by(|a, b| cost(a).total_cmp(&cost(b))) {
            for (r, t) in row.iter_mut().zip(slowest).skip(1) {
                *r += f64::from(*count) * t;
            }
        }
    }
    row
}

/// One fan-out's coefficients (the overhead slot stays 0).
fn terms(f: &Fanout, shared: &Shared) -> [f64; WIDTH] {
    let k = f64::from(f.children);
    let bytes = f.bytes as f64;
    if f.cross_node == 0 {
        let g = shared.gamma(k);
        [0.0, g, g * bytes, 0.0, 0.0]
    } else {
        let c = f64::from(f.cross_node);
        let g = shared.gamma(c + ((k - c) / shared.q).floor());
        [0.0, 0.0, 0.0, g, g * bytes]
    }
}

/// Predicted time (µs) of a shape.
pub fn predict(shape: &Shape, shared: &Shared, params: &Params) -> f64 {
    let row = design(shape, shared, params);
    row.iter().zip(params.to_vec()).map(|(x, p)| x * p).sum()
}
