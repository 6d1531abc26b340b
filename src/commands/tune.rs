use crate::cli::TuneArgs;
use crate::error::Result;

pub fn tune(args: &TuneArgs) -> Result<()> {
    crate::tune::tune(&args.options()?)
}
