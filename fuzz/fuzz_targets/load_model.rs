//! Model files must load into checked models or an error, and a loaded
//! model must predict without a panic or a hang. The first byte picks the
//! file kind (a learner's `<learner>.json` or `analytical.json`), the rest
//! is its text. Run: cargo fuzz run load_model (see fuzz/README.md).
#![no_main]

use collsel::data::{Arrival, Config, Mapping};
use collsel::learn::features;
use collsel::learn::hybrid;
use collsel::learn::LearnerKind;
use collsel::train::store::{parse_analytical, parse_learner, LearnerModels};
use libfuzzer_sys::fuzz_target;
use std::path::Path;

fn configs() -> impl Iterator<Item = Config> {
    [(2, 1, 2), (8, 2, 4), (33, 3, 11)]
        .into_iter()
        .flat_map(|(procs, nodes, ppn)| {
            [1u64, 4096, 1 << 20].into_iter().map(move |msg_bytes| Config {
                procs,
                nodes,
                ppn,
                mapping: Mapping::Core,
                msg_bytes,
                imbalance: 0.0,
                arrival: Arrival::Barrier,
            })
        })
}

fuzz_target!(|data: &[u8]| {
    let Some((&kind, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let kinds = LearnerKind::ALL;
    match kinds.get(usize::from(kind) % (kinds.len() + 1)) {
        Some(&learner) => {
            let Ok(raw) = serde_json::from_str::<LearnerModels>(text) else {
                return;
            };
            let path = Path::new("model.json");
            if let Ok(models) = parse_learner(path, text, &raw.candidates, learner) {
                // Rows as `predict` builds them: a model is checked against
                // its learner's feature width.
                for config in configs() {
                    let row = if learner.is_hybrid() {
                        hybrid::row(&config, 1.0).to_vec()
                    } else {
                        features::base(&config).to_vec()
                    };
                    for model in &models.models {
                        let _ = model.predict(&row);
                    }
                }
            }
        }
        None => {
            if let Ok(fitted) = parse_analytical(Path::new("analytical.json"), text) {
                for config in configs() {
                    for candidate in fitted.corrections.iter().map(|c| collsel::data::Candidate {
                        algorithm: c.algorithm,
                        segsize: Some(0),
                        fanout: None,
                        implementation: c.implementation,
                    }) {
                        let _ = fitted.predict_us(&config, &candidate);
                    }
                }
            }
        }
    }
});
