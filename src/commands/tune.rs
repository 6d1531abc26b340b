//! `collsel tune`: its options, then the campaign in one allocation.

use crate::cli::{Collectives, TuneArgs};
use crate::error::Result;

pub fn tune(args: &TuneArgs) -> Result<()> {
    crate::tune::tune(&args.options()?)
}

impl TuneArgs {
    /// What `tune` does, as the library takes it.
    pub fn options(&self) -> crate::Result<crate::tune::TuneOptions> {
        Ok(crate::tune::TuneOptions {
            out_dir: self.out_dir.clone(),
            time_budget: self.time_budget,
            procs: self
                .procs
                .as_ref()
                .map(|list| list.0.iter().map(|&p| p as u32).collect()),
            mapping: self.mapping,
            sizes: self.sizes.0.clone(),
            collectives: crate::tune::algorithms(
                &Collectives::flatten(&self.collectives),
                self.algorithms.as_deref(),
            )?,
            mpich_base: self
                .mpich_base
                .as_deref()
                .map(crate::export::mpich_json::Base::read)
                .transpose()?,
            segsizes: self.segsizes.0.clone(),
            timing: self.timing.campaign(&self.machine)?,
            learning: self.learning.options(),
        })
    }
}
