//! Helpers shared by the test files that start `mpirun`.

use std::fs::File;

/// Holds the machine-wide lock for one `mpirun`: MPI jobs of tests running
/// at the same time (threads of one test binary, or test binaries run in
/// parallel by a runner such as nextest) would share two cores and distort
/// the timings some tests compare. The lock is the operating system's lock
/// on one file in the temporary directory, released when the guard drops
/// (or the process dies).
pub struct MpirunLock(#[allow(dead_code)] File);

pub fn mpirun_lock() -> MpirunLock {
    let path = std::env::temp_dir().join("bcast-select-tests-mpirun.lock");
    let file = File::options()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .unwrap_or_else(|e| panic!("cannot open {}: {e}", path.display()));
    file.lock()
        .unwrap_or_else(|e| panic!("cannot lock {}: {e}", path.display()));
    MpirunLock(file)
}
