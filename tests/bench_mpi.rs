//! `bench` under mpirun: every own algorithm delivers verified payloads for
//! many job sizes and both roots, Open MPI's forced algorithms really run,
//! and interrupted campaigns resume without losing or repeating points.
#![cfg(feature = "mpi")]

mod common;

use collsel::data::{load::load_file, Algorithm, Dataset, Impl};
use std::path::Path;
use std::process::{Command, Output};

fn bench(ranks: u32, out: &Path, args: &[&str]) -> Output {
    let _one = common::mpirun_lock();
    Command::new("mpirun")
        .args(["-n", &ranks.to_string(), "--oversubscribe"])
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .arg(env!("CARGO_BIN_EXE_collsel"))
        .args(["bench", "--out"])
        .arg(out)
        .args(args)
        .output()
        .expect("mpirun must be installed (openmpi-bin)")
}

fn ok(out: &Output) -> String {
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "bench failed:\n{stderr}");
    stderr
}

fn dataset(path: &Path) -> Dataset {
    load_file(path).expect("bench writes loadable CSV").dataset
}

#[test]
fn every_own_algorithm_delivers_for_every_job_size() {
    let dir = tempfile::tempdir().unwrap();
    // 100000 bytes is not a multiple of the 8 KiB segment.
    let sizes = "0,1,1000,100000,1M";
    for ranks in [1, 2, 3, 4, 5, 7, 8] {
        let csv = dir.path().join(format!("own{ranks}.csv"));
        let out = bench(
            ranks,
            &csv,
            &[
                "--impl",
                "own",
                "--algorithms",
                "linear,chain,pipeline,split_binary,binary,binomial,knomial,sbbt",
                "--segsizes",
                "0,8K",
                "--fanouts",
                "default,3",
                "--sizes",
                sizes,
                // Two timed iterations: one from root 0, one from the last rank.
                "--roots",
                "0,last",
                "--warmup",
                "0",
                "--min-reps",
                "2",
                "--max-reps",
                "2",
            ],
        );
        let stderr = ok(&out);
        assert_eq!(
            stderr.contains("a 1-rank job measures no communication"),
            ranks == 1,
            "{stderr}"
        );
        let data = dataset(&csv);
        // Per size: linear 1, chain 2x2, pipeline 2, split 2, binary 2,
        // binomial 2, knomial 2x2, sbbt 1.
        assert_eq!(data.measurements().len(), 5 * 18, "ranks {ranks}");
        for m in data.measurements() {
            assert_eq!(m.config.procs, ranks);
            assert_eq!((m.config.nodes, m.config.ppn), (1, ranks));
            assert_eq!(m.candidate.implementation, Impl::Own);
            assert_eq!(m.reps, Some(2));
            assert!(m.time_us > 0.0);
        }
    }
}

fn time_of(data: &Dataset, algorithm: Algorithm, segsize: Option<u64>, imp: Impl) -> f64 {
    data.measurements()
        .iter()
        .find(|m| {
            m.candidate.algorithm == algorithm
                && m.candidate.segsize == segsize
                && m.candidate.implementation == imp
        })
        .map(|m| m.time_us)
        .unwrap_or_else(|| panic!("no row for {algorithm} {segsize:?} {imp}"))
}

/// reference/toolchain.md: at 4 ranks and 4 MiB, pipeline with 1 KiB
/// segments is about three times slower than unsegmented. If the forced
/// settings were ignored, both rows would time the library default.
#[test]
fn library_algorithms_are_really_forced() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("ompi.csv");
    ok(&bench(
        4,
        &csv,
        &[
            "--impl",
            "ompi,own",
            "--algorithms",
            "default,pipeline",
            "--segsizes",
            "0,1K",
            "--sizes",
            "4M",
            "--min-reps",
            "3",
            "--max-reps",
            "20",
        ],
    ));
    let data = dataset(&csv);
    assert_eq!(data.measurements().len(), 5);
    let ompi_fine = time_of(&data, Algorithm::Pipeline, Some(1024), Impl::Ompi);
    let ompi_whole = time_of(&data, Algorithm::Pipeline, Some(0), Impl::Ompi);
    assert!(
        ompi_fine > 1.5 * ompi_whole,
        "forced pipeline 1 KiB {ompi_fine} us vs unsegmented {ompi_whole} us"
    );
    // Our pipeline behaves like theirs: the same slowdown from segmenting.
    let own_fine = time_of(&data, Algorithm::Pipeline, Some(1024), Impl::Own);
    let own_whole = time_of(&data, Algorithm::Pipeline, Some(0), Impl::Own);
    assert!(own_fine > 1.5 * own_whole, "{own_fine} vs {own_whole}");
}

#[test]
fn interrupted_campaign_resumes_without_gaps_or_repeats() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("resume.csv");
    let args = [
        "--algorithms",
        "default,linear,binomial",
        "--segsizes",
        "0",
        "--sizes",
        "1:64K:x4",
        "--min-reps",
        "2",
        "--max-reps",
        "3",
    ];
    // 9 sizes x (default + linear own/ompi + binomial own/ompi).
    let all = 9 * 5;
    let mut first = args.to_vec();
    first.extend(["--time-budget", "1ms"]);
    let stderr = ok(&bench(2, &csv, &first));
    assert!(stderr.contains("time budget reached"), "{stderr}");
    let partial = dataset(&csv).measurements().len();
    assert!(partial >= 1 && partial < all, "{partial} rows after 1 ms");

    // A kill in the middle of writing a row leaves half a line.
    let mut text = std::fs::read_to_string(&csv).unwrap();
    text.push_str("binomial,2,1,2,core,65536,12");
    std::fs::write(&csv, text).unwrap();

    let stderr = ok(&bench(2, &csv, &args));
    assert!(stderr.contains("incomplete last row"), "{stderr}");
    assert!(
        stderr.contains(&format!("{partial} already in")),
        "{stderr}"
    );
    let data = dataset(&csv);
    assert_eq!(data.measurements().len(), all);
    assert_eq!(data.duplicate_rows(), 0, "a point was measured twice");

    let stderr = ok(&bench(2, &csv, &args));
    assert!(stderr.contains(&format!("measured 0 of {all}")), "{stderr}");
}

#[test]
fn bad_campaigns_are_refused_with_a_reason() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("bad.csv");
    let out = bench(2, &csv, &["--roots", "5"]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("root 5 is not a rank of this 2-rank job"),
        "{stderr}"
    );
    // Printed once, by rank 0.
    assert_eq!(stderr.matches("root 5 is not").count(), 1, "{stderr}");

    let out = bench(2, &csv, &["--impl", "own", "--algorithms", "default"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("needs ompi"));

    // A reduction sums whole floats, with reduce's algorithms.
    let out = bench(2, &csv, &["--collective", "reduce", "--sizes", "10"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a multiple of 4"));
    let out = bench(
        2,
        &csv,
        &["--collective", "reduce", "--algorithms", "split_binary"],
    );
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("unknown reduce algorithm"), "{stderr}");
    assert!(stderr.contains("rabenseifner"), "{stderr}");
}

/// Every reduce algorithm, ours and Open MPI's forced ones, gives the root
/// the exact sum of every rank's floats (bench verifies each iteration and
/// aborts otherwise) for many job sizes, both roots and sizes that are no
/// multiple of the segment; the rows say they are reductions, next to a
/// broadcast campaign in the same file. Forcing works for reductions too:
/// Open MPI's pipeline with 1 KiB segments is several times slower than
/// unsegmented at 4 MiB, as ours is.
#[test]
fn every_reduce_algorithm_sums_exactly_for_every_job_size() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("reduce.csv");
    let sizes = "0,4,1000,100000,1M";
    for ranks in [2, 3, 5, 8] {
        let out = bench(
            ranks,
            &csv,
            &[
                "--collective",
                "reduce",
                "--segsizes",
                "0,8K",
                "--fanouts",
                "default,3",
                "--sizes",
                sizes,
                "--roots",
                "0,last",
                "--warmup",
                "0",
                "--min-reps",
                "2",
                "--max-reps",
                "2",
            ],
        );
        ok(&out);
    }
    // A broadcast campaign appended to the same file stays apart.
    ok(&bench(
        3,
        &csv,
        &["--sizes", "4", "--algorithms", "binomial"],
    ));
    let load = |c| load_files_of(&csv, c);
    let reduce = load(collsel::data::Collective::Reduce);
    // Per size and job: default 1, linear 2, chain 2 segs x 2 fanouts x 2
    // impls, pipeline, binary, binomial, in-order binary 2 x 2 each,
    // rabenseifner 2.
    assert_eq!(reduce.measurements().len(), 4 * 5 * 29);
    // Binomial with the default three segment sizes, own and Open MPI's.
    let bcast = load(collsel::data::Collective::Bcast);
    assert_eq!(bcast.measurements().len(), 6);

    let forced = dir.path().join("forced.csv");
    ok(&bench(
        4,
        &forced,
        &[
            "--collective",
            "reduce",
            "--algorithms",
            "pipeline",
            "--segsizes",
            "0,1K",
            "--sizes",
            "4M",
            "--min-reps",
            "3",
            "--max-reps",
            "20",
        ],
    ));
    let data = load_files_of(&forced, collsel::data::Collective::Reduce);
    let fine = time_of(&data, Algorithm::Pipeline, Some(1024), Impl::Ompi);
    let whole = time_of(&data, Algorithm::Pipeline, Some(0), Impl::Ompi);
    assert!(
        fine > 1.5 * whole,
        "forced pipeline 1 KiB {fine} us vs {whole} us"
    );
    let fine = time_of(&data, Algorithm::Pipeline, Some(1024), Impl::Own);
    let whole = time_of(&data, Algorithm::Pipeline, Some(0), Impl::Own);
    assert!(
        fine > 1.5 * whole,
        "own pipeline 1 KiB {fine} us vs {whole} us"
    );
}

/// Every allreduce algorithm, ours and Open MPI's forced ones, leaves every
/// rank with the exact sum of every rank's floats (bench checks each rank
/// each iteration and aborts otherwise), for job sizes with and without a
/// power of two of ranks and sizes below p elements (the ring's and
/// Rabenseifner's fallbacks). Forcing reaches allreduce: Open MPI's
/// segmented ring with 1 KiB segments is slower than unsegmented at 1 MiB,
/// as ours is.
#[test]
fn every_allreduce_algorithm_sums_exactly_on_every_rank() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("allreduce.csv");
    on_2_3_5_8_ranks(
        &csv,
        &[
            "--collective",
            "allreduce",
            "--segsizes",
            "0,1K",
            "--sizes",
            "0,4,12,1000,100000,1M",
        ],
    );
    let data = load_files_of(&csv, collsel::data::Collective::Allreduce);
    // Per size and job: default 1; linear, nonoverlapping, recursive
    // doubling, ring, rabenseifner 2 each; segmented ring 2 segs x 2 impls.
    assert_eq!(data.measurements().len(), 4 * 6 * 15);

    let forced = dir.path().join("forced.csv");
    ok(&bench(
        4,
        &forced,
        &[
            "--collective",
            "allreduce",
            "--algorithms",
            "segmented_ring",
            "--segsizes",
            "0,1K",
            "--sizes",
            "1M",
            "--min-reps",
            "3",
            "--max-reps",
            "20",
        ],
    ));
    let data = load_files_of(&forced, collsel::data::Collective::Allreduce);
    for imp in [Impl::Ompi, Impl::Own] {
        let fine = time_of(&data, Algorithm::SegmentedRing, Some(1024), imp);
        let whole = time_of(&data, Algorithm::SegmentedRing, Some(0), imp);
        assert!(
            fine > 1.5 * whole,
            "{imp:?} segmented ring 1 KiB {fine} us vs {whole} us"
        );
    }
}

/// Every allgather algorithm, ours and Open MPI's forced ones, leaves
/// every rank with every rank's block in its place (bench checks every
/// block on every rank each iteration and aborts otherwise), from 0 B to
/// 1 MiB blocks, on powers of two and not (recursive doubling's and
/// neighbor exchange's fallbacks), two_proc on 2 ranks only. A forced slow
/// choice is slower: Open MPI's linear (a gather, then a broadcast) at
/// 1 MiB blocks on 2 ranks, one per core, against recursive doubling's one
/// exchange (2.5x here; on 4 oversubscribed ranks as little as 1.3x), and
/// our ring's 7 steps at 1 B on 8 ranks against recursive doubling's 3
/// (the better of two jobs' medians compared).
#[test]
fn every_allgather_algorithm_gives_every_rank_every_block() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("allgather.csv");
    on_2_3_5_8_ranks(
        &csv,
        &[
            "--collective",
            "allgather",
            "--algorithms",
            "default,linear,bruck,recursive_doubling,ring,neighbor,two_proc,sparbit",
            "--impl",
            "own,ompi",
            "--sizes",
            "0,1,3,1000,100000,1M",
        ],
    );
    let data = load_files_of(&csv, collsel::data::Collective::Allgather);
    // Per size: default and linear (Open MPI's only) 1 each; bruck,
    // recursive doubling, ring, neighbor 2 each; sparbit ours only (the
    // apt Open MPI 4.1 has no id 7: refused there); two_proc 2 on 2 ranks.
    let per_size = |ranks: usize| 2 + 4 * 2 + 1 + if ranks == 2 { 2 } else { 0 };
    let expected: usize = [2, 3, 5, 8].iter().map(|&r| 6 * per_size(r)).sum();
    assert_eq!(data.measurements().len(), expected);

    let pair = (Algorithm::Linear, Algorithm::RecursiveDoubling);
    shows_slower(&dir, (2, "allgather", "1M"), pair, Impl::Ompi, 1.3);
    // 7 steps against 3: 1.26–2.1x on 8 ranks sharing 2 cores, the low
    // end with other tests running beside.
    let pair = (Algorithm::Ring, Algorithm::RecursiveDoubling);
    shows_slower(&dir, (8, "allgather", "1"), pair, Impl::Own, 1.15);
}

/// Every alltoall algorithm, ours and Open MPI's forced ones, leaves every
/// rank with every rank's block to it in its place (bench checks every
/// block on every rank each iteration and aborts otherwise), from 0 B to
/// 1 MiB blocks, two_proc on 2 ranks only. A forced slow choice is slower,
/// for ours and Open MPI's: pairwise's 7 steps at 1 B on 8 ranks against
/// linear's one round (the better of two jobs' medians compared).
#[test]
fn every_alltoall_algorithm_gives_every_rank_its_blocks() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("alltoall.csv");
    on_2_3_5_8_ranks(
        &csv,
        &[
            "--collective",
            "alltoall",
            "--algorithms",
            "default,linear,pairwise,modified_bruck,linear_sync,two_proc",
            "--impl",
            "own,ompi",
            "--sizes",
            "0,1,3,1000,100000,1M",
        ],
    );
    let data = load_files_of(&csv, collsel::data::Collective::Alltoall);
    // Per size: default 1; linear, pairwise, modified_bruck, linear_sync
    // 2 each (ours, Open MPI's); two_proc 2 on 2 ranks.
    let per_size = |ranks: usize| 1 + 4 * 2 + if ranks == 2 { 2 } else { 0 };
    let expected: usize = [2, 3, 5, 8].iter().map(|&r| 6 * per_size(r)).sum();
    assert_eq!(data.measurements().len(), expected);

    let pair = (Algorithm::Pairwise, Algorithm::Linear);
    slow_is_slower(&dir, "alltoall", pair, "1", 1.3);
}

/// `slow` of `collective` at `size` on 8 ranks times more than `factor`
/// times `fast`, ours and Open MPI's.
fn slow_is_slower(
    dir: &tempfile::TempDir,
    collective: &str,
    pair: (Algorithm, Algorithm),
    size: &str,
    factor: f64,
) {
    for imp in [Impl::Own, Impl::Ompi] {
        shows_slower(dir, (8, collective, size), pair, imp, factor);
    }
}

/// `slow` run by `imp` times more than `factor` times `fast` on `ranks`
/// (the better of two jobs' medians). A pair of jobs that falls short
/// gets another, up to three, every job's median counting: one pair on
/// oversubscribed cores can fall short (1.12x once in CI where other jobs
/// gave 1.5x and more; two pairs fell short in 3 of 3 full runs on one
/// busy day, each time another ordering), an ordering that is not there
/// falls short in all.
fn shows_slower(
    dir: &tempfile::TempDir,
    (ranks, collective, size): (u32, &str, &str),
    (slow, fast): (Algorithm, Algorithm),
    imp: Impl,
    factor: f64,
) {
    let name = match imp {
        Impl::Own => "own",
        _ => "ompi",
    };
    let (mut data, mut times) = (Vec::new(), (0.0, 0.0));
    for _ in 0..3 {
        let algorithms = format!("{slow},{fast}");
        data.extend(two_jobs(dir, ranks, collective, &algorithms, name, size));
        times = (typical(&data, slow, imp), typical(&data, fast, imp));
        if times.0 > factor * times.1 {
            return;
        }
    }
    panic!(
        "{name}: {collective} on {ranks} ranks at {size}: {slow} {} us, not {factor}x {fast} {} us",
        times.0, times.1
    );
}

/// Every gather and scatter algorithm, ours and Open MPI's forced ones,
/// moves every block to its place from every root bench takes (bench
/// checks the root's blocks after a gather, each rank's after a scatter,
/// every iteration, and aborts otherwise), from 0 B to 100 kB blocks. A
/// forced slow choice is slower, for ours and Open MPI's: gather's
/// linear_sync asks each of 7 ranks in turn before it receives (2.5x and
/// more at 1 B on 8 ranks), scatter's basic_linear sends 1 MiB blocks one
/// after another where linear_nb posts them all (1.4-2.0x on 8 ranks in
/// ten quiet jobs, 1.19x once beside the rest of the test suite).
#[test]
fn every_gather_and_scatter_algorithm_moves_every_block() {
    let dir = tempfile::tempdir().unwrap();
    for (collective, algorithms) in [
        ("gather", "default,linear,binomial,linear_sync"),
        ("scatter", "default,linear,binomial,linear_nb"),
    ] {
        let csv = dir.path().join(format!("{collective}.csv"));
        on_2_3_5_8_ranks(
            &csv,
            &[
                "--collective",
                collective,
                "--algorithms",
                algorithms,
                "--impl",
                "own,ompi",
                "--sizes",
                "0,1,3,1000,100000",
                "--segsizes",
                "0,256",
            ],
        );
        let data = load_files_of(&csv, collective.parse().unwrap());
        // Per size: default 1; three algorithms 2 each (ours, Open
        // MPI's), gather's linear_sync at both first segments.
        let per_size = 1 + 3 * 2 + if collective == "gather" { 2 } else { 0 };
        assert_eq!(data.measurements().len(), 4 * 5 * per_size, "{collective}");
    }
    let pair = (Algorithm::LinearSync, Algorithm::Linear);
    slow_is_slower(&dir, "gather", pair, "1", 1.5);
    let pair = (Algorithm::Linear, Algorithm::LinearNb);
    slow_is_slower(&dir, "scatter", pair, "1M", 1.1);
}

/// Every reduce_scatter and reduce_scatter_block algorithm, ours and Open
/// MPI's forced ones, leaves each rank its block of the exact sum (bench
/// checks it on every rank every iteration and aborts otherwise), from
/// 0 B to 100 kB blocks, on 2, 3, 5 and 8 ranks (folds and mirrored blocks
/// off and on powers of two). A forced slow choice is slower: on 8 ranks
/// at 16 B blocks the ring's 7 steps against recursive halving's 3, ours
/// and Open MPI's (37/33 µs against 19/22 in the campaign);
/// reduce_scatter_block by recursive doubling (it sends and combines 17
/// of the vector's 8 blocks where halving does 7) against recursive
/// halving at 64 KiB blocks, where those bytes outweigh the steps, ours
/// and Open MPI's (1.58-1.77x in three debug-build jobs each; at 1 KiB
/// blocks 1.5-1.75x here but 1.12x once in CI).
/// (Ours at small blocks were no steady pair: linear against recursive
/// halving 1.38x in the campaign's release build, 1.16x in this test's
/// debug build.)
#[test]
fn every_reduce_scatter_algorithm_leaves_each_rank_its_block_of_the_sum() {
    let dir = tempfile::tempdir().unwrap();
    for (collective, algorithms, own) in [
        (
            "reduce_scatter",
            "default,nonoverlapping,recursive_halving,ring,butterfly",
            4,
        ),
        (
            "reduce_scatter_block",
            "default,linear,recursive_doubling,recursive_halving,butterfly",
            4,
        ),
    ] {
        let csv = dir.path().join(format!("{collective}.csv"));
        on_2_3_5_8_ranks(
            &csv,
            &[
                "--collective",
                collective,
                "--algorithms",
                algorithms,
                "--impl",
                "own,ompi",
                "--sizes",
                "0,4,12,1000,100000",
            ],
        );
        let data = load_files_of(&csv, collective.parse().unwrap());
        // Per size: default, four of Open MPI's, `own` of ours.
        let per_size = 1 + 4 + own;
        assert_eq!(data.measurements().len(), 4 * 5 * per_size, "{collective}");
    }
    let pair = (Algorithm::Ring, Algorithm::RecursiveHalving);
    slow_is_slower(&dir, "reduce_scatter", pair, "16", 1.3);
    let pair = (Algorithm::RecursiveDoubling, Algorithm::RecursiveHalving);
    slow_is_slower(&dir, "reduce_scatter_block", pair, "64K", 1.3);
}

/// Every barrier algorithm, ours and Open MPI's forced ones, holds every
/// rank until the last entered (bench lets the last rank, then rank 0,
/// enter a millisecond late before timing each point and aborts if any
/// rank left before), on 2, 3, 5 and 8 ranks, with `--sizes` ignored: a
/// barrier's rows say 0. The double ring's 2p sequential messages are
/// slower than Bruck's ⌈log₂ p⌉ rounds on 8 ranks, ours and Open MPI's
/// (66/62 µs against 21/20 in a first job).
#[test]
fn every_barrier_algorithm_holds_every_rank_until_the_last_entered() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("barrier.csv");
    on_2_3_5_8_ranks(
        &csv,
        &[
            "--collective",
            "barrier",
            "--impl",
            "own,ompi",
            "--sizes",
            "1K",
        ],
    );
    let data = load_files_of(&csv, collsel::data::Collective::Barrier);
    // default; linear, double_ring, recursive_doubling, bruck, tree ours
    // and Open MPI's; two_proc both on 2 ranks.
    let per_job = |ranks: usize| 1 + 5 * 2 + if ranks == 2 { 2 } else { 0 };
    let expected: usize = [2, 3, 5, 8].iter().map(|&r| per_job(r)).sum();
    assert_eq!(data.measurements().len(), expected);
    assert!(data.measurements().iter().all(|m| m.config.msg_bytes == 0));
    let pair = (Algorithm::DoubleRing, Algorithm::Bruck);
    slow_is_slower(&dir, "barrier", pair, "0", 1.5);
}

/// Two jobs of `ranks` timing `algorithms` of `collective` run by `imp`
/// at `size`, each into a file of its own (a file is resumed, not
/// measured again).
fn two_jobs(
    dir: &tempfile::TempDir,
    ranks: u32,
    collective: &str,
    algorithms: &str,
    imp: &str,
    size: &str,
) -> [Dataset; 2] {
    [(); 2].map(|()| {
        let csv = (1..)
            .map(|run| {
                dir.path()
                    .join(format!("{collective}-{ranks}-{imp}-{run}.csv"))
            })
            .find(|csv| !csv.exists())
            .unwrap();
        ok(&bench(
            ranks,
            &csv,
            &[
                "--collective",
                collective,
                "--algorithms",
                algorithms,
                "--impl",
                imp,
                "--sizes",
                size,
                "--min-reps",
                "50",
                "--max-reps",
                "400",
            ],
        ));
        load_files_of(&csv, collective.parse().unwrap())
    })
}

/// The median time of `algorithm` run by `imp` in the better of several
/// jobs: a job on oversubscribed cores can be slow throughout, and single
/// fast calls are luck (a ring's 7 steps timed 21 us against recursive
/// doubling's 18 at their fastest, 61 against 31 at their medians).
fn typical(data: &[Dataset], algorithm: Algorithm, imp: Impl) -> f64 {
    data.iter()
        .flat_map(|d| d.measurements())
        .filter(|m| m.candidate.algorithm == algorithm && m.candidate.implementation == imp)
        .map(|m| m.time_us)
        .fold(f64::INFINITY, f64::min)
}

/// `bench` with `args` on 2, 3, 5 and 8 ranks into `csv`, two timed calls
/// per point: every result checked, little time.
fn on_2_3_5_8_ranks(csv: &Path, args: &[&str]) {
    let quick = ["--warmup", "0", "--min-reps", "2", "--max-reps", "2"];
    for ranks in [2, 3, 5, 8] {
        let all: Vec<&str> = args.iter().chain(&quick).copied().collect();
        ok(&bench(ranks, csv, &all));
    }
}

fn load_files_of(path: &Path, collective: collsel::data::Collective) -> Dataset {
    let choice = collsel::data::load::SystemFilter {
        collective: Some(collective),
        ..Default::default()
    };
    collsel::data::load::load_files(&[path.to_path_buf()], &choice)
        .unwrap()
        .dataset
}

#[test]
fn arrival_delivers_under_imbalanced_arrivals() {
    use collsel::data::Arrival;
    let dir = tempfile::tempdir().unwrap();
    let reps = [
        "--roots",
        "0,last",
        "--warmup",
        "1",
        "--min-reps",
        "4",
        "--max-reps",
        "4",
    ];
    for ranks in [1, 2, 3, 5, 8] {
        let csv = dir.path().join(format!("arrival{ranks}.csv"));
        let mut args = vec![
            "--impl",
            "own",
            "--algorithms",
            "arrival,pipeline,linear",
            "--segsizes",
            "0,8K",
            "--sizes",
            "0,1,1000,100000",
            "--imbalance",
            "0,4",
        ];
        args.extend(reps);
        ok(&bench(ranks, &csv, &args));
        let mut late = vec![
            "--impl",
            "own",
            "--algorithms",
            "arrival",
            "--segsizes",
            "8K",
            "--sizes",
            "100000",
            "--imbalance",
            "8",
            "--late-fraction",
            "0.5",
        ];
        late.extend(reps);
        ok(&bench(ranks, &csv, &late));
        let data = dataset(&csv);
        // Per size and factor: arrival 2, pipeline 2, linear 1; then 1 late.
        assert_eq!(data.measurements().len(), 4 * 2 * 5 + 1, "ranks {ranks}");
        for m in data.measurements() {
            let c = &m.config;
            let expected = if c.imbalance == 8.0 {
                Arrival::late(0.5).unwrap()
            } else {
                Arrival::Uniform
            };
            assert_eq!(c.arrival, expected);
            assert_eq!(m.reps, Some(4));
            // time_us is the mean over ranks, time_max_us the slowest rank.
            assert!(m.time_max_us.unwrap() >= m.time_us - 1e-3, "{m:?}");
        }
    }
}

/// Every non-root rank late by 256 point-to-point times: the root cannot
/// finish a linear broadcast of a rendezvous-sized message before they
/// arrive, so the slowest rank's time grows by about 256 T(m), many times
/// the balanced broadcast (about 3 T(m) plus contention).
#[test]
fn injected_delays_reach_the_recorded_times() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("late.csv");
    let args = [
        "--impl",
        "own",
        "--algorithms",
        "linear",
        "--sizes",
        "1M",
        "--imbalance",
        "0,256",
        "--late-fraction",
        "1",
        "--min-reps",
        "10",
        "--max-reps",
        "10",
    ];
    ok(&bench(4, &csv, &args));
    let data = dataset(&csv);
    let worst: Vec<f64> = data
        .measurements()
        .iter()
        .map(|m| m.time_max_us.unwrap())
        .collect();
    assert_eq!(worst.len(), 2);
    assert!(
        worst[1] > 3.0 * worst[0],
        "slowest rank {:.0} us at X=256 vs {:.0} us at X=0",
        worst[1],
        worst[0]
    );
}

/// One job measures several communicator sizes as sub-communicators; each
/// size's rows are those of a job of that size (placement detected on the
/// sub-communicator), payloads verified, and a rerun resumes every size.
#[test]
fn one_job_measures_several_communicator_sizes() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("sizes.csv");
    let args = [
        "--procs",
        "2,3,5,8",
        "--sizes",
        "1,1000,100000",
        "--algorithms",
        "default,binomial,pipeline",
        "--segsizes",
        "0,1K",
        "--min-reps",
        "2",
        "--max-reps",
        "3",
    ];
    let stderr = ok(&bench(8, &csv, &args));
    let data = dataset(&csv);
    let by_procs = |p: u32| {
        data.measurements()
            .iter()
            .filter(|m| m.config.procs == p)
            .collect::<Vec<_>>()
    };
    let per_size = by_procs(2).len();
    // default + binomial + pipeline at 2 segment sizes, own and ompi, 3 sizes.
    assert_eq!(per_size, 3 * (1 + 2 * 2 + 2 * 2), "{stderr}");
    for p in [2, 3, 5, 8] {
        let rows = by_procs(p);
        assert_eq!(rows.len(), per_size, "{p} ranks: {stderr}");
        assert!(rows
            .iter()
            .all(|m| (m.config.nodes, m.config.ppn) == (1, p)));
        assert!(
            stderr.contains(&format!("bench: {p} ranks (1 node(s) x {p} ppn")),
            "{stderr}"
        );
    }
    assert_eq!(data.measurements().len(), 4 * per_size);

    let stderr = ok(&bench(8, &csv, &args));
    assert!(
        stderr.contains(&format!(
            "measured 0 of {per_size} points ({per_size} already in"
        )),
        "{stderr}"
    );
    let out = bench(4, &csv, &["--procs", "2,5"]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stderr)
        .contains("communicator size 5 exceeds the job's 4 ranks"));
}

/// `bench --points` measures exactly the listed rows (a `plan` output: time
/// columns ignored, candidates of different sizes mixed), each communicator
/// size as a sub-communicator, and a rerun measures nothing again.
#[test]
fn listed_points_are_measured_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let points = dir.path().join("next.csv");
    std::fs::write(
        &points,
        "algorithm,procs,nodes,ppn,mapping,msg_bytes,segsize_bytes,impl,time_us\n\
         binomial,3,1,3,core,4096,0,own,\n\
         default,3,1,3,core,4096,,ompi,12.5\n\
         pipeline,5,1,5,core,100,1024,ompi,\n\
         linear,2,1,2,core,1,,own,\n",
    )
    .unwrap();
    let csv = dir.path().join("out.csv");
    let listed = [
        "--points",
        points.to_str().unwrap(),
        "--min-reps",
        "2",
        "--max-reps",
        "3",
    ];
    let stderr = ok(&bench(6, &csv, &listed));
    let data = dataset(&csv);
    let got: Vec<(u32, u64, Algorithm, Option<u64>, Impl)> = data
        .measurements()
        .iter()
        .map(|m| {
            let c = &m.candidate;
            (
                m.config.procs,
                m.config.msg_bytes,
                c.algorithm,
                c.segsize,
                c.implementation,
            )
        })
        .collect();
    let want = [
        (2, 1, Algorithm::Linear, None, Impl::Own),
        (3, 4096, Algorithm::Default, None, Impl::Ompi),
        (3, 4096, Algorithm::Binomial, Some(0), Impl::Own),
        (5, 100, Algorithm::Pipeline, Some(1024), Impl::Ompi),
    ];
    assert_eq!(got.len(), want.len(), "{stderr}");
    for w in &want {
        assert!(got.contains(w), "{w:?} missing from {got:?}");
    }
    assert!(data
        .measurements()
        .iter()
        .all(|m| m.time_us.is_finite() && m.time_us > 0.0));
    let again = ok(&bench(6, &csv, &listed));
    assert_eq!(again.matches("measured 0 of").count(), 3, "{again}");

    let out = bench(4, &csv, &["--points", points.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr)
        .contains("communicator size 5 exceeds the job's 4 ranks"));
}

/// A points file of reduce rows is measured as reduce without being told;
/// asked for another collective, or holding two, it is refused.
#[test]
fn listed_points_bring_their_collective() {
    let dir = tempfile::tempdir().unwrap();
    let points = dir.path().join("next.csv");
    std::fs::write(
        &points,
        "collective,algorithm,procs,nodes,ppn,mapping,msg_bytes,segsize_bytes,impl\n\
         reduce,in_order_binary,3,1,3,core,4096,0,own\n\
         reduce,default,3,1,3,core,4096,,ompi\n",
    )
    .unwrap();
    let csv = dir.path().join("out.csv");
    let listed = ["--points", points.to_str().unwrap(), "--max-reps", "2"];
    ok(&bench(3, &csv, &listed));
    let data = load_files_of(&csv, collsel::data::Collective::Reduce);
    assert_eq!(data.measurements().len(), 2);

    let out = bench(3, &csv, &[&listed[..], &["--collective", "bcast"]].concat());
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("reduce's, not bcast's"), "{stderr}");
    let mixed = dir.path().join("mixed.csv");
    std::fs::write(
        &mixed,
        "collective,algorithm,procs,msg_bytes\nreduce,binomial,3,4096\nbcast,binomial,3,4096\n",
    )
    .unwrap();
    let out = bench(3, &csv, &["--points", mixed.to_str().unwrap()]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("split the file"));
}
