//! `verify`: the command line's request, as the library takes it.

use crate::cli::{Collectives, VerifyArgs, VerifyFormat};
use crate::error::Result;

pub fn verify(args: &VerifyArgs) -> Result<()> {
    crate::verify::verify(&args.options()?)
}

impl VerifyArgs {
    /// What `verify` does, as the library takes it.
    pub fn options(&self) -> crate::error::Result<crate::verify::VerifyOptions> {
        let confirm = self
            .confirm
            .as_deref()
            .map(|path| crate::verify::confirm::Confirm::new(path, self.confirmed.as_deref()))
            .transpose()?;
        Ok(crate::verify::VerifyOptions {
            collectives: Collectives::flatten(&self.collectives),
            sizes: self.sizes.0.clone(),
            procs: self
                .procs
                .as_ref()
                .map(|list| list.0.iter().map(|&p| p as u32).collect()),
            mapping: self.mapping,
            json: self.format == VerifyFormat::Json,
            out: self.out.clone(),
            seconds: self.time_budget.as_secs_f64(),
            rounds: self.rounds.map(|r| r as usize),
            confirm,
        })
    }
}
