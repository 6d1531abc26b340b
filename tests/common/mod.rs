//! Helpers shared by the test files: `mpirun` runs, MPI libraries from
//! wheels, and synthetic data.

use std::fs::File;

/// Holds the machine-wide lock for one `mpirun`: MPI jobs of tests running
/// at the same time (threads of one test binary, or test binaries run in
/// parallel by a runner such as nextest) would share two cores and distort
/// the timings some tests compare. The lock is the operating system's lock
/// on one file in the temporary directory, released when the guard drops
/// (or the process dies).
#[allow(dead_code)]
pub struct MpirunLock(#[allow(dead_code)] File);

#[allow(dead_code)]
pub fn mpirun_lock() -> MpirunLock {
    let path = std::env::temp_dir().join("collsel-tests-mpirun.lock");
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

/// Compiles `tests/mpi/coll_timer.c` with `mpicc` into `dir`.
#[allow(dead_code)]
pub fn compile_timer(mpicc: &std::path::Path, dir: &std::path::Path) -> std::path::PathBuf {
    let exe = dir.join("coll_timer");
    let out = std::process::Command::new(mpicc)
        .args(["-O2", "-o"])
        .arg(&exe)
        .arg("tests/mpi/coll_timer.c")
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

/// A synthetic broadcast campaign of known structure, as benchmark CSV:
/// jobs of 2-256 ranks (128 per node, so 256 spans two nodes), sizes
/// 1 B - 1 MiB, and five candidates whose times are a shared trend times
/// a factor per region — `default` 1, binomial 1.2, and linear (jobs of
/// up to 4 ranks, messages under 1 KiB), chain (1-64 KiB) and pipeline
/// (64 KiB and up) each half of `default`'s time in their region and 1.5x
/// elsewhere — with a ±2% deterministic jitter. Every configuration's
/// best candidate leads the next by 20% or more.
#[allow(dead_code)]
pub fn synthetic_campaign() -> String {
    let mut csv = String::from("algorithm,procs,nodes,ppn,mapping,msg_bytes,time_us,machine,mpi\n");
    let mut state = 7u64;
    for procs in [2u32, 4, 8, 16, 32, 64, 128, 256] {
        let nodes = procs.div_ceil(128);
        let ppn = procs.div_ceil(nodes);
        for e in 0..=20 {
            let m = 1u64 << e;
            let network = if nodes > 1 { 3.0 } else { 1.0 };
            let trend = (1.0 + m as f64 * 1e-3) * f64::from(procs).log2() * network;
            let region = |own: bool| if own { 0.5 } else { 1.5 };
            for (algorithm, factor) in [
                ("default", 1.0),
                ("binomial", 1.2),
                ("linear", region(procs <= 4 && m < 1024)),
                ("chain", region((1024..65536).contains(&m))),
                ("pipeline", region(m >= 65536)),
            ] {
                // A linear congruential generator: the same file every run.
                state = state
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let jitter = 1.0 + 0.02 * ((state >> 33) as f64 / (1u64 << 31) as f64 - 1.0);
                let t = trend * factor * jitter;
                csv.push_str(&format!(
                    "{algorithm},{procs},{nodes},{ppn},core,{m},{t:.4},synthetic,openmpi-4.1.6\n"
                ));
            }
        }
    }
    csv
}

/// One CSV line's cells, unquoted (the machine and MPI text may be quoted).
#[allow(dead_code)]
pub fn cells(line: &str) -> Vec<String> {
    let (mut out, mut cell, mut quoted) = (Vec::new(), String::new(), false);
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' if quoted && chars.peek() == Some(&'"') => {
                chars.next();
                cell.push('"');
            }
            '"' => quoted = !quoted,
            ',' if !quoted => out.push(std::mem::take(&mut cell)),
            _ => cell.push(c),
        }
    }
    out.push(cell);
    out
}

/// Whether this process may make UTS namespaces: the fake nodes of
/// `tests/fake-ssh` need it (root).
#[allow(dead_code)]
pub fn can_fake_nodes() -> bool {
    std::process::Command::new("unshare")
        .args(["--uts", "true"])
        .status()
        .is_ok_and(|s| s.success())
}

/// The data rows of CSV text, cells by column name.
#[allow(dead_code)]
pub fn csv_rows(text: &str) -> Vec<std::collections::BTreeMap<String, String>> {
    let mut lines = text.lines();
    let header = cells(lines.next().unwrap_or_default());
    lines
        .map(|l| header.iter().cloned().zip(cells(l)).collect())
        .collect()
}

/// The project's minimal MPICH selection file (one algorithm for each
/// collective MPICH needs to start), which exports are written on.
#[allow(dead_code)]
pub const MPICH_BASE: &str = "tests/fixtures/mpich_selection_minimal.json";

/// A model whose only candidate is `algorithm` (in `segsize`-byte
/// segments; "" unsegmented), as `implementation` ran it (`ompi`, or
/// `mpich`: MPICH's own, forced under MPICH), measured on 2 and 4 ranks at
/// 1 KiB, 64 KiB and 4 MiB; trained with KNN into
/// `model-<collective>-<algorithm>[-<segsize>]` for MPICH's algorithms,
/// `model-<collective>` for Open MPI's.
#[allow(dead_code)]
pub fn only_candidate_model(
    dir: &std::path::Path,
    collective: &str,
    algorithm: &str,
    segsize: &str,
    implementation: &str,
) -> std::path::PathBuf {
    let name = match segsize {
        "" => format!("{collective}-{algorithm}"),
        s => format!("{collective}-{algorithm}-{s}"),
    };
    let model = match implementation {
        "mpich" => dir.join(format!("model-{name}")),
        _ => dir.join(format!("model-{collective}")),
    };
    let candidate = |_: u64| vec![(algorithm, segsize, 100)];
    let sizes = [1024, 65536, 4 << 20];
    measured_model(
        dir,
        &name,
        collective,
        implementation,
        (&sizes, candidate),
        &model,
    )
}

/// A model of MPICH's `small` beside its `large`, each twice as fast as
/// the other in its range (4 - 256 B; 4 KiB - 1 MiB), into
/// `model-<collective>-<small>-<large>`.
#[allow(dead_code)]
pub fn two_candidate_mpich_model(
    dir: &std::path::Path,
    collective: &str,
    small: &str,
    large: &str,
) -> std::path::PathBuf {
    let name = format!("{collective}-{small}-{large}");
    let model = dir.join(format!("model-{name}"));
    let candidates = |m: u64| match m <= 256 {
        true => vec![(small, "", 100), (large, "", 200)],
        false => vec![(small, "", 200), (large, "", 100)],
    };
    let sizes = [4, 64, 256, 4096, 65536, 1 << 20];
    measured_model(
        dir,
        &name,
        collective,
        "mpich",
        (&sizes, candidates),
        &model,
    )
}

/// Trains `model` (KNN) on a campaign written to `<name>.csv`: on 2 and 4
/// ranks at each of `sizes`, two samples of each of the
/// `(algorithm, segsize, microseconds)` `candidates` gives for the size.
fn measured_model<'a>(
    dir: &std::path::Path,
    name: &str,
    collective: &str,
    implementation: &str,
    (sizes, candidates): (&[u64], impl Fn(u64) -> Vec<(&'a str, &'a str, u32)>),
    model: &std::path::Path,
) -> std::path::PathBuf {
    let csv = dir.join(format!("{name}.csv"));
    let mut text =
        String::from("algorithm,procs,nodes,ppn,msg_bytes,time_us,segsize_bytes,collective,impl\n");
    for p in [2, 4] {
        for &m in sizes {
            for (algorithm, segsize, t) in candidates(m) {
                for t in [t, t + 1] {
                    text += &format!(
                        "{algorithm},{p},1,{p},{m},{t},{segsize},{collective},{implementation}\n"
                    );
                }
            }
        }
    }
    std::fs::write(&csv, text).unwrap();
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_collsel"))
        .arg("train")
        .arg(&csv)
        .arg("--out")
        .arg(model)
        .args(["--learners", "knn"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    model.to_path_buf()
}

/// The MPICH selection file `name` in `dir` of `models` (one per
/// collective) for a one-node job of `procs` ranks, on [`MPICH_BASE`].
#[allow(dead_code)]
pub fn mpich_selection(
    dir: &std::path::Path,
    models: &[&std::path::Path],
    procs: u32,
    name: &str,
) -> std::path::PathBuf {
    let out = dir.join(name);
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_collsel"));
    cmd.arg("predict");
    for model in models {
        cmd.arg("--model").arg(model);
    }
    let o = cmd
        .args([
            "--nodes",
            "1",
            "--procs",
            &procs.to_string(),
            "--learner",
            "knn",
        ])
        .args([
            "--format",
            "mpich-json",
            "--mpich-base",
            MPICH_BASE,
            "--out",
        ])
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    out
}
