//! Training: from a dataset to everything `predict` needs — the samples
//! per candidate, the analytical model, the learners' models,
//! cross-validation's policies and `auto` — and the model directory that
//! holds it.

pub mod cv;
pub mod samples;
pub mod store;
