//! Command-line interface: the commands and options, declared.

use crate::collective::help::{listed, measured_by_default, naming_collectives, per_collective};
use crate::data::{Algorithm, Impl, Mapping};
use crate::learn::LearnerKind;
use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

/// Pick the fastest algorithm, segment size and fan-out of each MPI
/// collective for each message size of a job, from measurements on the
/// job's own machine.
#[derive(Debug, Parser)]
#[command(name = "collsel", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Inspect benchmark CSV files.
    #[command(subcommand)]
    Data(DataCommand),
    /// Convert other tools' output into the benchmark CSV schema.
    #[command(subcommand)]
    Import(ImportCommand),
    /// Inspect the schedules the harness runs and the models price.
    #[command(subcommand)]
    Schedule(ScheduleCommand),
    /// Analytical cost models derived from the schedules.
    #[command(subcommand)]
    Model(ModelCommand),
    /// Fit one regressor per candidate for every learner — of ln(time) for
    /// `default`, of ln(time / default's time) at the same configuration
    /// for the others — choose the `auto` learner by leave-procs-out
    /// cross-validation, and write a model directory for `predict`.
    Train(TrainArgs),
    /// Decision table for one job: for each message size the candidate with
    /// the smallest predicted time, the runner-up and the margin. Needs no MPI.
    Predict(PredictArgs),
    /// Train on one part of the data and compare every selector (oracle,
    /// default, ompi-fixed, naive, analytical, each learner and hybrid,
    /// nearest, auto) on
    /// configurations the models
    /// never saw: speed-up over default, slowdown vs the best, hit rates.
    Evaluate(EvaluateArgs),
    /// Choose what to measure next: the points of a grid whose measurement
    /// should improve the decisions most. A committee of models (several
    /// learners, each on random halves of the data) prices every candidate; configurations
    /// are taken by the expected regret of their current decision (large
    /// where the models disagree and the candidates are close), all their
    /// unmeasured points together. `bench --points NEXT.csv` measures them.
    Plan(PlanArgs),
    /// Measure a collective on this MPI job; run it under mpirun or srun, e.g.
    /// `mpirun -n 8 collsel bench --out data/mine.csv`. Runs our
    /// re-implementations (impl own), Open MPI's forced algorithms (impl
    /// ompi, set through the MPI tool interface) and the library default,
    /// verifies every call's result on every rank, appends one row per point and
    /// resumes: rerunning the same command measures only what is missing.
    /// With --imbalance the ranks arrive at different times (the `arrival`
    /// algorithm is meant for that).
    Bench(BenchArgs),
    /// Tune this allocation in one job: run it under mpirun or srun, e.g.
    /// `mpirun -n 64 collsel tune --time-budget 30m --out-dir tuned`.
    /// Measures Open MPI's own algorithms (what a rules file selects) and
    /// `default`: a seed grid over the job's communicator sizes (every
    /// `default` point and every candidate on a lattice of configurations),
    /// then rounds of plan -> bench until three quarters of the budget are
    /// spent or the decisions' expected regret falls below 1%; then trains,
    /// and times every switch from `default` the models chose against
    /// `default` on fresh samples (the last quarter): a switch ships only
    /// where it proved faster, by 5% or more. Writes DIR/data.csv,
    /// DIR/model/, DIR/validation.csv, DIR/rules (Open MPI classic rules
    /// for the job sizes measured), DIR/han.rules and DIR/report.md (the
    /// validated effect, and the `verify` command for the files). Rerun the
    /// same command to resume: points already in DIR/data.csv are not
    /// measured again.
    Tune(TuneArgs),
    /// Check, inside an MPI job, that the rules files it names are in
    /// effect and what they change: run it under the launcher and in the
    /// environment the application uses, e.g. `mpirun -n 64 --mca
    /// coll_tuned_use_dynamic_rules 1 --mca coll_tuned_dynamic_rules_filename
    /// $PWD/rules collsel verify`. Reads Open MPI's variables through
    /// the MPI tool interface and each file as this Open MPI reads it, then
    /// times each collective and size through the rules against the
    /// library's own choice, and against the rule's algorithm alone, in
    /// interleaved rounds with 95% intervals. Exits with status 3 and one
    /// line naming the variable or the file where a named file is not in
    /// effect (set without coll_tuned_use_dynamic_rules 1, missing,
    /// malformed, or read but not applied).
    Verify(VerifyArgs),
}

#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// The collectives to time, comma separated, or `all`.
    #[arg(long, value_delimiter = ',', default_value = "bcast,reduce,allreduce", value_parser = parse_collectives,
          long_help = naming_collectives("The collectives to time, comma separated, or `all`"))]
    pub collectives: Vec<Collectives>,
    /// Message sizes (a reduction's: those that are whole 4-byte floats).
    #[arg(long, default_value = "1:4M:x4", value_parser = parse_sizes)]
    pub sizes: SizeList,
    /// Communicator sizes to time on, sub-communicators of the job
    /// [default: the whole job].
    #[arg(long, value_parser = parse_sizes)]
    pub procs: Option<SizeList>,
    /// How a size's ranks are taken from the job's nodes: core or node.
    #[arg(long, default_value = "core", value_parser = str::parse::<Mapping>)]
    pub mapping: Mapping,
    /// table, or json: an array with one object per collective and size.
    #[arg(long, value_enum, default_value_t = VerifyFormat::Table)]
    pub format: VerifyFormat,
    /// Append each collective's rows to FILE as JSON lines (one object per
    /// size, as `--format json` has them, or one naming a collective that
    /// failed) as soon as that collective is timed: a job stopped part-way
    /// keeps every collective it finished.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Time for all the timings, shared out over the sizes (each gets at
    /// least 5 rounds).
    #[arg(long, default_value = "2m", value_parser = humantime::parse_duration)]
    pub time_budget: std::time::Duration,
    /// Time each size for exactly this many rounds (at least 2) instead of
    /// until its interval is within ±5% or its share of the budget runs
    /// out: `--rounds 2` checks quickly that the file is in effect, which
    /// decision it takes at each size and that every result is right on
    /// every rank, with rough speed-ups.
    #[arg(long, value_parser = clap::value_parser!(u32).range(2..), conflicts_with = "confirm")]
    pub rounds: Option<u32>,
    /// Confirm the switches of a rules file in this job instead: a `tune`
    /// directory (its `rules`; its report notes the outcome) or an Open MPI
    /// classic rules file, from `tune` or `predict`. Each rule that
    /// switches from the library's own choice is timed against it the way
    /// `tune` validates, both forced (no rules file may be in effect), and
    /// the rules that do not hold are set back to 0 in a confirmed copy: a
    /// size holds where it was faster in this job and across every job
    /// that timed it (tune's, and each confirmation before this one:
    /// run it again in later jobs and each adds its job). --collectives,
    /// --sizes, --procs and --format do not apply.
    #[arg(long, value_name = "PATH")]
    pub confirm: Option<PathBuf>,
    /// Where --confirm writes the confirmed `rules`, `confirmation.csv`
    /// and `confirmations.csv` (every confirmation's rows, which the next
    /// one reads) [default: `confirmed/` beside the rules file].
    #[arg(long, value_name = "DIR", requires = "confirm")]
    pub confirmed: Option<PathBuf>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum VerifyFormat {
    Table,
    Json,
}

/// How each point is timed (`bench` and `tune`).
#[derive(Debug, Args)]
pub struct TimingArgs {
    /// Untimed calls before each point.
    #[arg(long, default_value_t = 2)]
    pub warmup: u32,
    /// Timed calls at least, unless --max-seconds runs out first.
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..))]
    pub min_reps: u32,
    /// Timed calls at most per point.
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u32).range(1..))]
    pub max_reps: u32,
    /// Seconds at most per point.
    #[arg(long, default_value_t = 2.0)]
    pub max_seconds: f64,
    /// Stop a point once the 95% confidence half-width is within this
    /// fraction of the mean.
    #[arg(long, default_value_t = 0.025)]
    pub target_ci: f64,
}

#[derive(Debug, Args)]
pub struct TuneArgs {
    /// Directory for data.csv, model/, rules and report.md (created).
    #[arg(long)]
    pub out_dir: PathBuf,
    /// Time for measuring, e.g. 3m, 30m, 2h.
    #[arg(long, value_parser = humantime::parse_duration)]
    pub time_budget: std::time::Duration,
    /// Communicator sizes to tune [default: 2, 4, 8, ... and the job's
    /// size].
    #[arg(long, value_parser = parse_sizes)]
    pub procs: Option<SizeList>,
    /// How a size's ranks are taken from the job's nodes: core (fill nodes
    /// in turn) or node (dealt over the nodes).
    #[arg(long, default_value = "core", value_parser = str::parse::<Mapping>)]
    pub mapping: Mapping,
    /// Message sizes (a reduction's: those that are whole 4-byte floats).
    #[arg(long, default_value = "1:4M:x4", value_parser = parse_sizes)]
    pub sizes: SizeList,
    /// The collectives to tune, comma separated, or `all` of them. Each gets
    /// its model (DIR/model/ for bcast, DIR/model-<collective>/ for the
    /// others) and its section of DIR/rules; their points compete for the
    /// budget.
    #[arg(long, value_delimiter = ',', default_value = "bcast", value_parser = parse_collectives,
          long_help = naming_collectives("The collectives to tune, comma separated, or `all` of them. \
          Each gets its model (DIR/model/ for bcast, DIR/model-<collective>/ for the others) and \
          its section of DIR/rules; their points compete for the budget"))]
    pub collectives: Vec<Collectives>,
    /// Algorithms to force, comma separated: Open MPI's, or under MPICH
    /// MPICH's; `default` is always measured. Each collective takes the
    /// names that are its algorithms.
    #[arg(long, value_delimiter = ',', long_help = per_collective(
        "Algorithms to force, comma separated: Open MPI's, or under MPICH MPICH's (by \
         default every one of them); `default` is always measured. Each collective takes the \
         names that are its algorithms",
        |c| measured_by_default(c, false),
    ))]
    pub algorithms: Option<Vec<String>>,
    /// Segment sizes for the segmenting algorithms (0 = unsegmented).
    #[arg(long, default_value = "0,8K,64K", value_parser = parse_sizes)]
    pub segsizes: SizeList,
    /// Under MPICH: your MPICH's collective-selection file
    /// (maint/tuning/coll/mpir/generic.json in the sources of your MPICH
    /// version), which DIR/mpich.json is written from (required there; Open
    /// MPI ignores it).
    #[arg(long, value_name = "FILE")]
    pub mpich_base: Option<PathBuf>,
    #[command(flatten)]
    pub timing: TimingArgs,
    /// Machine name written in each row [default: the MPI processor name].
    #[arg(long)]
    pub machine: Option<String>,
    #[command(flatten)]
    pub learning: LearningArgs,
}

#[derive(Debug, Args)]
pub struct BenchArgs {
    /// Benchmark CSV to append to (created if missing; it may hold rows of
    /// other collectives).
    #[arg(long)]
    pub out: PathBuf,
    /// The collective measured [default: bcast; with --points, the
    /// file's]; every rank that ends with a result checks it.
    #[arg(long, value_parser = parse_collective, long_help = naming_collectives(
        "The collective measured [default: bcast; with --points, the file's]; reductions sum \
         MPI_FLOAT as the OSU benchmarks do; every rank that ends with a result checks it; \
         what a size means per collective: see --sizes"))]
    pub collective: Option<crate::data::Collective>,
    /// Message sizes: a list and/or ranges, e.g. 1,1K,1M or 1:4M:x4.
    #[arg(long, value_parser = parse_sizes, long_help = per_collective(
        "Message sizes: a list and/or ranges, e.g. 1,1K,1M or 1:4M:x4",
        |c| c.describe().sizes.to_string(),
    ))]
    pub sizes: Option<SizeList>,
    /// Algorithms, comma separated (names or Open MPI ids of the
    /// collective; MPICH's names with --impl mpich); `default` is the
    /// library's own choice.
    #[arg(long, value_delimiter = ',', long_help = per_collective(
        "Algorithms, comma separated (names or Open MPI ids of the collective; MPICH's names \
         with --impl mpich); `default` is the library's own choice. With --impl mpich the \
         default adds every one of MPICH's algorithms of the collective (docs/formats.md)",
        |c| measured_by_default(c, true),
    ))]
    pub algorithms: Option<Vec<String>>,
    /// Segment sizes for the segmenting algorithms (0 = unsegmented).
    #[arg(long, default_value = "0,8K,64K", value_parser = parse_sizes)]
    pub segsizes: SizeList,
    /// Chains for `chain`, radix for `knomial`: numbers, or `default` for
    /// the library's default (4).
    #[arg(long, value_delimiter = ',', default_value = "default", value_parser = parse_fanout)]
    pub fanouts: Vec<Fanout>,
    /// Who runs each algorithm, comma separated: own (our schedules over
    /// point-to-point), ompi (Open MPI's algorithm forced; for `default`
    /// the library's own choice), mpich (MPICH's algorithm of that name
    /// forced) [default: own and the library bench is built against: own,ompi
    /// or own,mpich].
    #[arg(long = "impl", value_delimiter = ',', value_parser = str::parse::<Impl>)]
    pub impls: Option<Vec<Impl>>,
    /// Roots, used in turn iteration by iteration: ranks or `last`.
    #[arg(long, value_delimiter = ',', default_value = "0")]
    pub roots: Vec<crate::bench::Root>,
    /// Communicator sizes to measure in this one job, each in turn as a
    /// sub-communicator of the job's ranks (the others wait), e.g.
    /// 2,4,8,16 or 2:256:x2; rows are as from separate jobs of each size.
    /// Without it, the whole job is measured.
    #[arg(long, value_parser = parse_sizes)]
    pub procs: Option<SizeList>,
    /// With --procs: how a sub-communicator's ranks are taken from the
    /// job's nodes: core (= block: fill nodes in turn) or node (= cyclic:
    /// dealt over the nodes). The placement measured is detected and
    /// written in each row as always.
    #[arg(long, default_value = "core", requires = "procs", value_parser = str::parse::<Mapping>)]
    pub mapping: Mapping,
    /// Measure exactly the rows of this file instead of a sweep (e.g. what
    /// `plan` chose): benchmark CSV columns, time columns absent or
    /// ignored. Each communicator size in it is measured as a
    /// sub-communicator (ranks taken by the row's mapping: node = cyclic,
    /// else block); nodes and ppn are detected, not taken from the file.
    #[arg(long, value_name = "FILE", conflicts_with_all = [
        "sizes", "algorithms", "segsizes", "fanouts", "impls", "procs", "imbalance"
    ])]
    pub points: Option<PathBuf>,
    #[command(flatten)]
    pub timing: TimingArgs,
    /// Bound on the whole campaign, e.g. 90s, 20m, 2h. Seconds left are
    /// shared over the points left; when it runs out the campaign stops
    /// cleanly and says what is missing (rerun to continue). Each run
    /// measures at least one point.
    #[arg(long, value_parser = humantime::parse_duration)]
    pub time_budget: Option<std::time::Duration>,
    /// Machine name written in each row [default: the MPI processor name].
    #[arg(long)]
    pub machine: Option<String>,
    /// Imbalanced arrival: after the barrier each rank waits uniform
    /// [0, X·T(m)], T(m) the message's measured point-to-point time, and
    /// the time recorded is the mean per-rank time from own arrival to own
    /// completion (time_max_us: the slowest rank's). A list of factors X,
    /// e.g. 0,1,2,4,8,16; written in the imbalance column.
    #[arg(long, value_delimiter = ',', value_parser = parse_imbalance)]
    pub imbalance: Option<Vec<f64>>,
    /// With --imbalance: instead of uniform delays, each non-root rank is
    /// late by X·T(m) with this probability (e.g. 0.2).
    #[arg(long, requires = "imbalance", value_parser = parse_late)]
    pub late_fraction: Option<crate::data::Arrival>,
    /// Seed of the injected delays: the same seed gives the same arrival
    /// patterns.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

/// A collective by name (`bcast`, `MPI_Reduce`, ...).
fn parse_collective(s: &str) -> Result<crate::data::Collective, String> {
    s.trim().parse()
}

/// One item of a `--collectives` list: a collective, or `all` of them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Collectives(pub Vec<crate::data::Collective>);

impl Collectives {
    /// The list's collectives, each once, in the order first named.
    pub fn flatten(items: &[Collectives]) -> Vec<crate::data::Collective> {
        let mut out = Vec::new();
        for c in items.iter().flat_map(|i| &i.0) {
            if !out.contains(c) {
                out.push(*c);
            }
        }
        out
    }
}

fn parse_collectives(s: &str) -> Result<Collectives, String> {
    match s.trim() {
        "all" => Ok(Collectives(crate::data::Collective::ALL.to_vec())),
        one => parse_collective(one).map(|c| Collectives(vec![c])),
    }
}

/// A chain count / knomial radix, or the library default.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fanout(pub Option<u32>);

fn parse_fanout(s: &str) -> Result<Fanout, String> {
    match s.trim() {
        "default" => Ok(Fanout(None)),
        t => match t.parse::<u32>() {
            Ok(k) if k >= 1 => Ok(Fanout(Some(k))),
            _ => Err(format!(
                "fanout {s:?} is neither a number >= 1 nor `default`"
            )),
        },
    }
}

/// A parser of one of a library enum's `(value, name, help)` choices: the
/// library lists its names without depending on clap.
fn one_of<T: Copy + Send + Sync + 'static>(
    all: &'static [(T, &'static str, &'static str)],
) -> impl clap::builder::TypedValueParser<Value = T> {
    use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
    PossibleValuesParser::new(
        all.iter()
            .map(|&(_, name, help)| PossibleValue::new(name).help(help)),
    )
    .try_map(move |s: String| {
        all.iter()
            .find(|(_, name, _)| *name == s)
            .map(|(v, ..)| *v)
            .ok_or_else(|| format!("unknown choice {s:?}"))
    })
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum SplitArg {
    Procs,
    Nodes,
    Extrapolate,
    Source,
}

#[derive(Debug, Args)]
pub struct EvaluateArgs {
    /// Training data (benchmark CSV files).
    #[arg(long, required = true, num_args = 1..)]
    pub train: Vec<PathBuf>,
    /// Test data; without it, the training data is split (see --split).
    #[arg(long, num_args = 1..)]
    pub test: Vec<PathBuf>,
    /// How to split the training data when no --test is given: hold out a
    /// random share of the communicator sizes (procs) or node counts;
    /// `extrapolate`: train on small jobs and test on large ones; `source`:
    /// leave one campaign (`source` column, else file) out at a time and
    /// score all of them together.
    #[arg(long, value_enum, default_value_t = SplitArg::Procs)]
    pub split: SplitArg,
    /// Share of the distinct procs (or nodes) values held out.
    #[arg(long, default_value_t = 0.3)]
    pub test_fraction: f64,
    /// With --split extrapolate: train on procs up to this [default: a
    /// quarter of the largest].
    #[arg(long)]
    pub train_max_procs: Option<u32>,
    /// With --split extrapolate: test on procs from this on [default: half
    /// the largest].
    #[arg(long)]
    pub test_min_procs: Option<u32>,
    /// Seed of the random split.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Train on every third training procs value only (a small campaign).
    #[arg(long)]
    pub small_train: bool,
    #[command(flatten)]
    pub learning: LearningArgs,
    #[command(flatten)]
    pub system: SystemArgs,
    #[arg(long, default_value = "markdown", value_parser = one_of(crate::report::ReportFormat::ALL))]
    pub format: crate::report::ReportFormat,
    /// Write here instead of standard output.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Also draw plots into this directory (PNG and SVG): decision maps of
    /// oracle, default and auto; speed-up over default by message size;
    /// predicted vs measured time.
    #[arg(long)]
    pub plots: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct TrainArgs {
    /// Benchmark CSV files (docs/formats.md); duplicates across files are
    /// combined by their median.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Model directory to write (replaced if it exists).
    #[arg(long)]
    pub out: PathBuf,
    #[command(flatten)]
    pub learning: LearningArgs,
    #[command(flatten)]
    pub system: SystemArgs,
}

/// Which machine and MPI library to use when the data holds several (the
/// `machine` and `mpi` columns). Rows of different ones are never combined:
/// a model is one machine's, and `evaluate` scores each one on its own.
#[derive(Debug, Args)]
pub struct SystemArgs {
    /// Keep only rows of this machine.
    #[arg(long, value_name = "NAME")]
    pub machine: Option<String>,
    /// Keep only rows of this MPI library (the `mpi` column's text).
    #[arg(long, value_name = "VERSION")]
    pub mpi: Option<String>,
    /// Keep only rows of this collective (the `collective` column, bcast
    /// where a file has none).
    #[arg(long, value_name = "NAME", long_help = naming_collectives(
        "Keep only rows of this collective (the `collective` column, bcast where a file has none)"))]
    pub collective: Option<crate::data::Collective>,
}

/// Which learners to fit and how `auto` is chosen among them.
#[derive(Debug, Args)]
pub struct LearningArgs {
    /// Learners to fit, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "knn,gbm,gam,linear,hybrid-knn,hybrid-gbm,hybrid-gam", value_parser = str::parse::<LearnerKind>)]
    pub learners: Vec<LearnerKind>,
    /// Cross-validation folds over the distinct procs values (chooses `auto`
    /// and each selector's margins); an extrapolating fold is added.
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(2..))]
    pub folds: u32,
    /// Fit on about this many measurements only (0: all of them). Larger
    /// data is thinned evenly within each job: every job and candidate
    /// stays, each job keeps an even share of its message sizes (the
    /// measured configurations `auto` decides by are all kept). Training
    /// simulates every call it fits on, so its time grows with the
    /// rows: for a quick model of a very large campaign (decisions are
    /// somewhat worse than from all rows; see experiments/benchmarks.md).
    #[arg(long, default_value_t = 0)]
    pub max_rows: usize,
}

/// Where a job's ranks run.
#[derive(Debug, Args)]
pub struct PlacementArgs {
    /// Nodes of the job.
    #[arg(long, default_value_t = 1)]
    pub nodes: u32,
    /// Ranks on the most loaded node [default: ceil(procs / nodes)].
    #[arg(long)]
    pub ppn: Option<u32>,
    /// Rank placement: core (= block), socket, node (= cyclic).
    #[arg(long, default_value = "core", value_parser = str::parse::<Mapping>)]
    pub mapping: Mapping,
}

#[derive(Debug, Args)]
pub struct PlanArgs {
    /// Measurements so far (benchmark CSV files, docs/formats.md).
    #[arg(long, required = true, num_args = 1..)]
    pub data: Vec<PathBuf>,
    /// Points that could be measured: benchmark CSV columns, one row per
    /// configuration and candidate; time columns absent or ignored (a
    /// benchmark file of another campaign serves as a grid).
    #[arg(long)]
    pub grid: PathBuf,
    /// Grid rows to choose at most (whole configurations only).
    #[arg(long)]
    pub budget: usize,
    /// Where to write the chosen rows, with the grid's header and columns
    /// [default: standard output].
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Committee members (each fitted on a random half of the measured
    /// configurations).
    #[arg(long, default_value_t = 16, value_parser = clap::value_parser!(u32).range(2..))]
    pub members: u32,
    /// The learners of the committee, taken in turn (plain ones: knn, gbm,
    /// gam, linear); learners of different kinds disagree where the data
    /// has gaps, which resampling alone does not show.
    #[arg(long, value_delimiter = ',', default_value = "gbm,gam", value_parser = str::parse::<LearnerKind>)]
    pub learners: Vec<LearnerKind>,
    /// Share of the configurations chosen for coverage rather than by
    /// regret (0: by regret only; 1: for coverage only). Points chosen by
    /// the models' doubt alone crowd where they are unsure and leave other
    /// regions to guesses; coverage takes, in turn, the configuration
    /// farthest (in log message size) from what its job has measured, a
    /// job with nothing measured first, ties at random.
    #[arg(long, default_value_t = 0.5)]
    pub explore: f64,
    /// Seed of the random halves and of the ties between equally far
    /// configurations.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    #[command(flatten)]
    pub system: SystemArgs,
}

#[derive(Debug, Args)]
pub struct PredictArgs {
    /// Model directory written by `train`. Repeat it with one model per
    /// collective (e.g. a broadcast and a reduce model of the same machine)
    /// to write one rules file holding each collective's rules.
    #[arg(long, required = true)]
    pub model: Vec<PathBuf>,
    /// Nodes of the job.
    #[arg(long)]
    pub nodes: u32,
    /// Ranks per node (the job has nodes x ppn ranks).
    #[arg(long, required_unless_present = "procs")]
    pub ppn: Option<u32>,
    /// Several job sizes instead of one (ranks, spread over --nodes nodes):
    /// a list and/or ranges, e.g. 16,32,64 or 16:256:x2. Rules formats put
    /// them all in one file.
    #[arg(long, value_parser = parse_sizes, conflicts_with = "ppn")]
    pub procs: Option<SizeList>,
    /// Rank placement: core (= block), socket, node (= cyclic).
    #[arg(long, default_value = "core", value_parser = str::parse::<Mapping>)]
    pub mapping: Mapping,
    /// Message sizes: a list and/or ranges, increasing, e.g. 1,8,1K or
    /// 1:4M:x2 [default: the sizes in the training data].
    #[arg(long, value_parser = parse_sizes)]
    pub sizes: Option<SizeList>,
    /// Decide for ranks that reach the call at different times: each
    /// rank late by up to X times the message's point-to-point time
    /// (uniform), and rank for the mean per-rank time from own arrival, as
    /// `bench --imbalance` measures it. Needs training data with imbalance.
    #[arg(long, value_parser = parse_imbalance)]
    pub imbalance: Option<f64>,
    /// With --imbalance: instead of uniform delays, each non-root rank is
    /// late by X times the point-to-point time with this probability.
    #[arg(long, requires = "imbalance", value_parser = parse_late)]
    pub late_fraction: Option<crate::data::Arrival>,
    /// Selector: auto (the learner cross-validation chose), analytical (the
    /// cost models alone), knn, gbm, gam, linear, hybrid-knn, hybrid-gbm,
    /// hybrid-gam (a learner fed the cost model's prediction), nearest (the
    /// times measured at the nearest trained job size).
    #[arg(long, default_value = "auto")]
    pub learner: String,
    #[arg(long, default_value = "table", value_parser = one_of(crate::export::Format::ALL))]
    pub format: crate::export::Format,
    /// Classic Open MPI rules-file version: 1 (every release) or 2 (adds a
    /// version header; Open MPI 4.1.8+ / 5.0.7+ only).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u8).range(1..=2))]
    pub rules_version: u8,
    /// With --format mpich-json: your MPICH's collective-selection file
    /// (maint/tuning/coll/mpir/generic.json in the sources of your MPICH
    /// version). MPICH needs an entry for every collective, so the output is
    /// this file with only the parts of the collectives decided replaced.
    #[arg(long, value_name = "FILE")]
    pub mpich_base: Option<PathBuf>,
    /// Write here instead of standard output.
    #[arg(long)]
    pub out: Option<PathBuf>,
}

#[derive(Debug, Subcommand)]
pub enum ScheduleCommand {
    /// Print an algorithm's tree (parent and children of every rank) and its
    /// stage structure: per stage, the concurrent flat-tree fan-outs, their
    /// children and how many of those transfers cross nodes. The schedule is
    /// simulated first, so what is printed is proven to deliver every byte.
    Show(ShowArgs),
}

#[derive(Debug, Args)]
pub struct ShowArgs {
    /// The collective.
    #[arg(long, default_value = "bcast", value_parser = parse_collective,
          long_help = naming_collectives("The collective"))]
    pub collective: crate::data::Collective,
    /// The algorithm: one of the collective's schedules (Open MPI ids work
    /// too).
    #[arg(long, long_help = listed(
        "The algorithm: one of the collective's schedules (Open MPI ids work too)",
        "schedules",
        |c| crate::schedule::scheduled(c).iter().map(|a| a.name()).collect::<Vec<_>>().join(","),
    ))]
    pub algorithm: String,
    /// Communicator size.
    #[arg(long)]
    pub procs: u32,
    /// The root.
    #[arg(long, default_value_t = 0)]
    pub root: u32,
    /// Message size (e.g. 1000, 64K, 4M; a barrier's messages are empty,
    /// whatever it says).
    #[arg(long, default_value = "1M", value_parser = crate::units::parse_bytes)]
    pub msg: u64,
    /// Segment size; 0 = unsegmented.
    #[arg(long, default_value = "0", value_parser = crate::units::parse_bytes)]
    pub segsize: u64,
    /// Chains for chain, radix for knomial [default: 4, as Open MPI].
    #[arg(long)]
    pub fanout: Option<u32>,
    #[command(flatten)]
    pub placement: PlacementArgs,
    /// Print at most this many stages.
    #[arg(long, default_value_t = 40)]
    pub max_stages: usize,
}

#[derive(Debug, Subcommand)]
pub enum ModelCommand {
    /// Fit the analytical model (one platform of per-channel latency and
    /// bandwidth shared by every candidate, each candidate priced by
    /// simulating its schedule) to benchmark data; report the parameters,
    /// the per-algorithm correction factors, how `default` was priced, R² of ln(time) and
    /// pairwise ranking accuracy. One fit per file and machine/MPI library.
    Fit {
        /// Benchmark CSV files (docs/formats.md).
        #[arg(required = true)]
        files: Vec<PathBuf>,
        #[arg(long, value_enum, default_value_t = SummaryFormat::Text)]
        format: SummaryFormat,
    },
}

#[derive(Debug, Subcommand)]
pub enum DataCommand {
    /// Rows, configurations, candidates, ranges, and the headroom a selector
    /// can win: how often and by how much the library default loses to the
    /// best measured candidate. One summary per file and machine/MPI
    /// library (the `machine` and `mpi` columns).
    Summary {
        /// Benchmark CSV files (docs/formats.md).
        #[arg(required = true)]
        files: Vec<PathBuf>,
        #[arg(long, value_enum, default_value_t = SummaryFormat::Text)]
        format: SummaryFormat,
    },
    /// Imbalanced-arrival measurements (`bench --imbalance`): per job,
    /// message size and arrival pattern, each candidate's mean per-rank time
    /// (and slowest rank's) at every imbalance factor, as a markdown table;
    /// with --plots, one line plot per table (PNG and SVG).
    Arrival {
        /// Benchmark CSV files (docs/formats.md).
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Write the plots into this directory.
        #[arg(long)]
        plots: Option<PathBuf>,
    },
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum SummaryFormat {
    Text,
    Json,
}

#[derive(Debug, Subcommand)]
pub enum ImportCommand {
    /// Convert `osu_bcast` output (its '# Size  Avg Latency(us) ...' table)
    /// into benchmark CSV rows. A partial last line from a run that was cut
    /// short is skipped with a warning. Rows are appended to --out.
    Osu(OsuArgs),
}

#[derive(Debug, Args)]
pub struct OsuArgs {
    /// osu_bcast output files, all from the same job and algorithm.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Algorithm the run used: `default` if none was forced, otherwise an Open
    /// MPI name or id (e.g. binomial, 6).
    #[arg(long, value_parser = parse_bcast_algorithm)]
    pub algorithm: Algorithm,
    /// Communicator size (mpirun -n).
    #[arg(long)]
    pub procs: u32,
    #[command(flatten)]
    pub placement: PlacementArgs,
    /// Segment size the run forced (e.g. 8K; 0 = unsegmented).
    #[arg(long, value_parser = crate::units::parse_bytes)]
    pub segsize: Option<u64>,
    /// Chains (chain) or radix (knomial) the run forced.
    #[arg(long)]
    pub fanout: Option<u32>,
    /// Who ran the broadcast: ompi (the MPI library) or own.
    #[arg(long = "impl", default_value = "ompi", value_parser = str::parse::<Impl>)]
    pub implementation: Impl,
    /// Machine name recorded in the `machine` column.
    #[arg(long, default_value = "")]
    pub machine: String,
    /// MPI library recorded in the `mpi` column.
    #[arg(long, default_value = "")]
    pub mpi: String,
    /// CSV file to append to (created with a header if missing).
    #[arg(long)]
    pub out: PathBuf,
}

fn parse_imbalance(s: &str) -> Result<f64, String> {
    s.trim()
        .parse::<f64>()
        .ok()
        .filter(|x| x.is_finite() && *x >= 0.0)
        .ok_or_else(|| format!("{s:?} is not a finite number >= 0"))
}

fn parse_late(s: &str) -> Result<crate::data::Arrival, String> {
    crate::data::Arrival::late(parse_imbalance(s)?)
}

/// A broadcast algorithm (what osu_bcast files ran).
fn parse_bcast_algorithm(s: &str) -> Result<Algorithm, String> {
    let bcast = crate::data::Collective::Bcast;
    bcast
        .algorithm(s)
        .ok()
        .filter(|a| bcast.knows(*a))
        .ok_or_else(|| {
            format!(
                "unknown algorithm {s:?}; expected {}",
                bcast.accepted_names()
            )
        })
}

/// Message sizes from one option value (a newtype: clap reads a bare
/// `Vec` as several values).
#[derive(Clone, Debug, PartialEq)]
pub struct SizeList(pub Vec<u64>);

fn parse_sizes(s: &str) -> Result<SizeList, String> {
    crate::units::parse_size_list(s).map(SizeList)
}
