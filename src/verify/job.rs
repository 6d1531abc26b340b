//! `verify`'s entry in the job: the MPI session, then the checks of the
//! library it runs ([`super::run`] under Open MPI, [`super::mpich_run`]
//! under MPICH, which shares the former's timing).

use super::VerifyOptions;
use crate::bench::Session;
use crate::error::{Error, Result};
use crate::library::Library;

/// Verifies the rules files of the job this process belongs to
/// (collective: every rank calls it). Rank 0 prints.
pub fn verify(opts: &VerifyOptions) -> Result<()> {
    // A confirmation forces algorithms: Open MPI must be told at start-up.
    let session = Session::start(opts.confirm.is_some())?;
    let result = match (session.library(), &opts.confirm) {
        (Library::Mpich, Some(_)) => Err(Error::Usage(
            "--confirm confirms Open MPI's rules files; under MPICH, `tune` validates its \
             selection file and `verify` checks it in the job"
                .into(),
        )),
        (_, Some(confirm)) => super::confirm_run::confirmed(&session, confirm, opts.seconds),
        (Library::Mpich, None) => super::mpich_run::checked(&session, opts),
        (_, None) => super::run::checked(&session, opts),
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
