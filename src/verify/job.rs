//! `verify`'s entry in the job: the MPI session, then the checks of the
//! library it runs ([`super::run`] under Open MPI, [`super::mpich_run`]
//! under MPICH, which shares the former's timing).

use super::Options;
use crate::bench::Session;
use crate::error::{Error, Result};
use crate::library::Library;

/// Verifies the rules files of the job this process belongs to
/// (collective: every rank calls it). Rank 0 prints.
pub fn verify(opts: &Options) -> Result<()> {
    let session = Session::start(false)?;
    let result = match session.library() {
        Library::Mpich => super::mpich_run::checked(&session, opts),
        _ => super::run::checked(&session, opts),
    };
    // Rank 0 says why before anyone exits: mpirun ends the job at the
    // first rank that exits with an error.
    if let Err(e) = &result {
        if session.rank() == 0 && !matches!(e, Error::Reported(_)) {
            eprintln!("error: {e}");
        }
    }
    session.wait_all();
    result.map_err(|e| Error::Reported(e.exit_code()))
}
