//! `verify` under rules files that name every algorithm Open MPI's tuned
//! component has, for every collective, on 2, 5 and 8 ranks: every result
//! checked on every rank, no abort, a row for every collective and size,
//! each showing the decision the file makes there.
//!
//! Each file gives a rank that reads a message size of 0 bytes another
//! algorithm than the real size's: a harness that hands the library a
//! count it ignores (rsmpi's non-root `MPI_Scatter` passed 0, which Open
//! MPI's rules key scatter on) runs two algorithms at once and its blocks
//! land wrong.
//!
//! Under MPICH (its `mpirun` is Hydra) the files are MPICH selection files
//! exported from models, each naming two of MPICH's algorithms for every
//! collective (one for small messages, one for large), in turn every one
//! of them, on 2 and 3 ranks (a power of two and one that is not: an
//! algorithm for powers of two named on 3 ranks aborted MPICH); each
//! collective is taken from the device layer so that MPICH consults the
//! file.
//!
//! The installed Open MPI by default; `.ci/ompi5` and `.ci/mpich` run the
//! same test under Open MPI 5 and MPICH 5 with `COLLSEL_MPIRUN` (their
//! `mpirun`) and `COLLSEL_EXE` (the binary built against them). The
//! same on 16 ranks (an experiment, `--ignored`):
//! `verify_every_algorithm_on_16_ranks`.

mod common;

use collsel::data::{Algorithm, Collective};
use collsel::verify::files::algorithm_count;
use std::path::PathBuf;
use std::process::Command;

/// Communicator sizes: 2 (Open MPI's two-rank algorithms), an odd size
/// and a power of two.
const PROCS: [u32; 3] = [2, 5, 8];

/// A small message and one the segment size cuts into 4.
const SIZES: [u64; 2] = [4, 65536];

/// The file's rules switch from the small to the large size here.
const LARGE: u64 = 1024;

const SEGSIZE: u64 = 16384;
const FANOUT: u64 = 3;

fn mpirun() -> PathBuf {
    std::env::var_os("COLLSEL_MPIRUN").map_or_else(|| "mpirun".into(), PathBuf::from)
}

fn exe() -> PathBuf {
    std::env::var_os("COLLSEL_EXE")
        .map_or_else(|| env!("CARGO_BIN_EXE_collsel").into(), PathBuf::from)
}

/// `mpirun --version`.
fn mpirun_version() -> String {
    let out = Command::new(mpirun()).arg("--version").output().unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The major version of the Open MPI `mpirun` belongs to.
fn major() -> u32 {
    let text = mpirun_version();
    let version = text
        .split_whitespace()
        .find(|w| w.chars().next().is_some_and(|c| c.is_ascii_digit()))
        .unwrap_or_else(|| panic!("no version in {text}"));
    version.split('.').next().unwrap().parse().unwrap()
}

/// Open MPI's algorithm ids of `collective` (its own decision, 0, left
/// out) in this major version.
fn ids(collective: Collective, major: u32) -> Vec<u8> {
    let id = u64::from(collective.describe().ompi.coll_id);
    let count = algorithm_count(id, major).unwrap() as u8;
    (1..count).collect()
}

/// The `i`-th id of `ids` (cyclically) that runs on `procs` ranks.
fn nth(collective: Collective, ids: &[u8], i: usize, procs: u32) -> u8 {
    (i..i + ids.len())
        .map(|k| ids[k % ids.len()])
        .find(|&id| collective.runs_on(collective.ompi_algorithm(id).unwrap(), procs))
        .unwrap()
}

/// Rules file `run`: on each communicator size, the small size, the large
/// size and a 0-byte message each get the next algorithm in turn, so that
/// `runs` files name every algorithm at every size.
fn rules(run: usize, major: u32, procs: &[u32]) -> String {
    let mut text = format!("{}\n", Collective::ALL.len());
    for c in Collective::ALL {
        let ids = ids(c, major);
        text += &format!(
            "{} # {}\n{}\n",
            c.describe().ompi.coll_id,
            c.name(),
            procs.len()
        );
        for (k, &p) in procs.iter().enumerate() {
            let at = |shift: usize| nth(c, &ids, 2 * run + k + shift, p);
            text += &format!("{p}\n3\n");
            text += &format!("0 {} 0 0\n", at(2));
            text += &format!("1 {} {FANOUT} {SEGSIZE}\n", at(0));
            text += &format!("{LARGE} {} {FANOUT} {SEGSIZE}\n", at(1));
        }
    }
    text
}

/// The algorithm a row's decision names (`pipeline seg=16384` ->
/// `pipeline`).
fn algorithm_of(decision: &str) -> &str {
    decision.split_whitespace().next().unwrap_or_default()
}

/// `verify` of every collective on communicator sizes `procs` at `SIZES`,
/// launched by `mpirun` (the launcher and the job's environment), one job
/// on the machine at a time.
fn verify_every_collective(mut mpirun: Command, procs: &[u32]) -> std::process::Output {
    let procs: Vec<String> = procs.iter().map(u32::to_string).collect();
    let sizes: Vec<String> = SIZES.iter().map(u64::to_string).collect();
    let _one = common::mpirun_lock();
    mpirun
        .arg(exe())
        .args(["verify", "--collectives", "all", "--format", "json"])
        .args(["--procs", &procs.join(",")])
        .args(["--sizes", &sizes.join(",")])
        // Two rounds a size: what is checked is the decision in effect and
        // every result, not the speed-up. A size the budget leaves untimed
        // has no row: the budget is far above what a file takes, so that
        // no collective runs out of its share on a slower machine.
        .args(["--rounds", "2", "--time-budget", "120s"])
        .output()
        .unwrap()
}

/// The sizes verify times `c` at (a barrier's is 0).
fn sizes(c: Collective) -> &'static [u64] {
    match c.describe().semantics.sized {
        true => &SIZES,
        false => &[0],
    }
}

/// The row of `c` on `p` ranks at `m` bytes of verify's JSON `rows`.
fn row<'a>(
    rows: &'a [serde_json::Value],
    c: Collective,
    p: u32,
    m: u64,
    context: &str,
) -> &'a serde_json::Value {
    rows.iter()
        .find(|r| r["collective"] == c.name() && r["procs"] == p && r["msg_bytes"] == m)
        .unwrap_or_else(|| panic!("no row of {} {p} {m}: {context}", c.name()))
}

/// Runs every rules file on `ranks` ranks (communicator sizes `procs`).
fn every_algorithm(ranks: u32, procs: &[u32]) {
    let major = major();
    let widest = Collective::ALL
        .iter()
        .map(|&c| ids(c, major).len())
        .max()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    for run in 0..widest.div_ceil(2) {
        let file = dir.path().join(format!("every-{run}.rules"));
        std::fs::write(&file, rules(run, major, procs)).unwrap();
        let mut cmd = Command::new(mpirun());
        cmd.args(["-n", &ranks.to_string(), "--oversubscribe"])
            .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
            .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
            .args(["--mca", "coll_tuned_use_dynamic_rules", "1"])
            .args(["--mca", "coll_tuned_dynamic_rules_filename"])
            .arg(&file);
        let out = verify_every_collective(cmd, procs);
        let stderr = String::from_utf8_lossy(&out.stderr);
        let context = format!("rules file {run}:\n{}\n{stderr}", rules(run, major, procs));
        assert!(!stderr.contains("error: rank"), "{context}");
        // Timing on oversubscribed cores may leave every decisive size
        // looking like the library's choice (status 3); anything else is a
        // failure.
        let read_not_applied = stderr.contains("read but not applied");
        assert!(
            out.status.success() || (out.status.code() == Some(3) && read_not_applied),
            "{context}"
        );
        let rows: serde_json::Value =
            serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {context}"));
        let rows = rows.as_array().unwrap();
        for c in Collective::ALL {
            let ids = ids(c, major);
            for (k, &p) in procs.iter().enumerate() {
                for &m in sizes(c) {
                    let row = row(rows, c, p, m, &context);
                    let shift = match m {
                        0 => 2,
                        m if m < LARGE => 0,
                        _ => 1,
                    };
                    let id = nth(c, &ids, 2 * run + k + shift, p);
                    let algorithm = c.ompi_algorithm(id).unwrap().to_string();
                    let decision = row["decision"].as_str().unwrap();
                    assert_eq!(algorithm_of(decision), algorithm, "{row}: {context}");
                }
            }
        }
    }
}

/// Selection file `round`: for each collective its `2 round`-th algorithm
/// of MPICH's (cyclically) up to 256 B and the next from 4 KiB, MPICH's
/// defaults for their parameters. Returns the file and each collective's
/// two algorithms.
fn mpich_selection(dir: &std::path::Path, round: usize, ranks: u32) -> (PathBuf, Vec<Chosen>) {
    let mut models = Vec::new();
    let mut chosen = Vec::new();
    for c in Collective::ALL {
        let table = c.describe().mpich.algorithms;
        let at = |i: usize| table[i % table.len()].algorithm;
        let (small, large) = (at(2 * round), at(2 * round + 1));
        let model = common::two_candidate_mpich_model(dir, c.name(), small.name(), large.name());
        models.push(model);
        chosen.push((c, small, large));
    }
    let paths: Vec<&std::path::Path> = models.iter().map(PathBuf::as_path).collect();
    let name = format!("round-{round}.json");
    (common::mpich_selection(dir, &paths, ranks, &name), chosen)
}

/// A collective and the algorithms a selection file names for it up to
/// 256 B and from 4 KiB.
type Chosen = (Collective, Algorithm, Algorithm);

/// Runs every MPICH selection file on `ranks` ranks (communicator sizes
/// `procs`).
fn every_mpich_algorithm(ranks: u32, procs: &[u32]) {
    let longest = Collective::ALL
        .iter()
        .map(|c| c.describe().mpich.algorithms.len())
        .max()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    for round in 0..longest.div_ceil(2) {
        let (file, chosen) = mpich_selection(dir.path(), round, ranks);
        let mut cmd = Command::new(mpirun());
        cmd.args(["-n", &ranks.to_string()])
            .env("MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE", &file)
            .env("MPIR_CVAR_DEVICE_COLLECTIVES", "percoll");
        for c in Collective::ALL {
            let name = c.name().to_ascii_uppercase();
            cmd.env(format!("MPIR_CVAR_{name}_DEVICE_COLLECTIVE"), "0");
        }
        let out = verify_every_collective(cmd, procs);
        let stderr = String::from_utf8_lossy(&out.stderr);
        let context = format!("selection file {round} {chosen:?}:\n{stderr}");
        assert!(!stderr.contains("error: rank"), "{context}");
        assert!(
            out.status.success() || out.status.code() == Some(3),
            "{context}"
        );
        let rows: serde_json::Value =
            serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {context}"));
        let rows = rows.as_array().unwrap();
        for &(c, small, large) in &chosen {
            for &p in procs {
                for &m in sizes(c) {
                    let row = row(rows, c, p, m, &context);
                    // The file's algorithm, by name where it can be forced
                    // alone, else by MPICH's function; where MPICH cannot
                    // run it, the file names MPICH's own choice instead.
                    let algorithm = if m <= 256 { small } else { large };
                    let elements = m / c.element_bytes().max(1);
                    let mpich = c.mpich_algorithm(algorithm).unwrap();
                    if mpich.unfit(p, 1, elements).is_some() {
                        continue;
                    }
                    let decision = row["decision"].as_str().unwrap();
                    assert!(
                        algorithm_of(decision) == algorithm.name()
                            || decision == c.mpich_function(algorithm),
                        "{row}: {context}"
                    );
                }
            }
        }
    }
}

/// Whether `mpirun` is MPICH's (Hydra).
fn mpich() -> bool {
    mpirun_version().contains("HYDRA")
}

#[test]
fn verify_checks_every_algorithm_a_rules_file_names() {
    match mpich() {
        // MPICH's ranks poll while they wait: 4 or 8 of them on 2 cores
        // take a minute or more a file. 2 and 3 ranks: a power of two and
        // one that is not.
        true => every_mpich_algorithm(3, &[2, 3]),
        false => every_algorithm(8, &PROCS),
    }
}

/// The same on 16 ranks: `cargo test --test verify_matrix -- --ignored`
/// (about ten minutes on 2 cores; seconds on 16).
#[test]
#[ignore]
fn verify_every_algorithm_on_16_ranks() {
    match mpich() {
        true => every_mpich_algorithm(16, &[16]),
        false => every_algorithm(16, &[16]),
    }
}
