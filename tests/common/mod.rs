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

/// The `bin` directory of an MPI library installed from its Python wheel
/// (`requirement`, e.g. `mpich==5.0.*`) into a virtual environment under
/// the target directory, on first use: it needs python3-venv and the
/// package index. Each library in its own environment (their `mpirun`s
/// collide).
#[allow(dead_code)]
pub fn wheel_bin(venv: &str, requirement: &str) -> std::path::PathBuf {
    use std::process::Command;
    static INSTALL: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _one = INSTALL.lock().unwrap_or_else(|e| e.into_inner());
    let venv = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(venv);
    let bin = venv.join("bin");
    if !bin.join("mpicc").exists() {
        let run = |cmd: &mut Command| {
            let out = cmd.output().expect("python3 must be installed");
            assert!(
                out.status.success(),
                "installing {requirement} failed (needs python3-venv and the package index): {}",
                String::from_utf8_lossy(&out.stderr)
            );
        };
        run(Command::new("python3").args(["-m", "venv"]).arg(&venv));
        run(Command::new(bin.join("pip")).args(["install", "-q", requirement]));
    }
    bin
}

/// Compiles `tests/mpi/bcast_timer.c` with `mpicc` into `dir`.
#[allow(dead_code)]
pub fn compile_timer(mpicc: &std::path::Path, dir: &std::path::Path) -> std::path::PathBuf {
    let exe = dir.join("bcast_timer");
    let out = std::process::Command::new(mpicc)
        .args(["-O2", "-o"])
        .arg(&exe)
        .arg("tests/mpi/bcast_timer.c")
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", mpicc.display()));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    exe
}

/// The `min_us` line the timing program prints.
#[allow(dead_code)]
pub fn min_us(output: &str) -> f64 {
    output
        .lines()
        .find_map(|l| l.strip_prefix("min_us "))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or_else(|| panic!("no timing in {output:?}"))
}
