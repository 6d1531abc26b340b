//! The collectives: what each one is, in one description per collective
//! (`bcast.rs`, `reduce.rs`, `allreduce.rs`, `allgather.rs`,
//! `alltoall.rs`, `gather.rs`, `scatter.rs`, `reduce_scatter.rs`,
//! `reduce_scatter_block.rs`, `barrier.rs`), and every algorithm by name.
//!
//! A description holds what the product knows of a collective as data: its
//! semantics, Open MPI's ids, names and variables for it, MPICH's names,
//! whether coll/han serves it, the candidates measured by default. What
//! needs code (schedules, Open MPI's fixed decision, pricing, MPICH's
//! shipped choice) lives in the stage that runs it, behind a match over
//! [`Collective`] that names every collective: no match over collectives
//! has a catch-all arm, so adding one makes the compiler list every place
//! that must answer for it.

mod algorithm;
mod allgather;
mod allreduce;
mod alltoall;
mod barrier;
mod bcast;
mod gather;
mod reduce;
mod reduce_scatter;
mod reduce_scatter_block;
mod scatter;
pub mod help;

pub use algorithm::Algorithm;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// An MPI collective operation.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum Collective {
    /// The collective of files written before there was a collective
    /// column (see [`Collective::LEGACY`]).
    #[default]
    Bcast,
    Reduce,
    Allreduce,
    Allgather,
    Alltoall,
    Gather,
    Scatter,
    ReduceScatter,
    ReduceScatterBlock,
    Barrier,
}

/// What the product knows of one collective, as data.
#[derive(Debug)]
pub struct Description {
    /// The name in CSV files, rules files' JSON and on the command line.
    pub name: &'static str,
    /// The MPI function, for people.
    pub function: &'static str,
    /// Other names `--collective` accepts.
    pub aliases: &'static [&'static str],
    pub semantics: Semantics,
    pub ompi: Ompi,
    /// Algorithms only this project runs (`impl=own`), besides its
    /// schedules of Open MPI's.
    pub own: &'static [Algorithm],
    /// Algorithms Open MPI runs on 2 ranks only (it fails the call on any
    /// other number).
    pub two_ranks: &'static [Algorithm],
    /// What `bench` and `tune` measure by default besides `default`.
    pub measured_by_default: &'static [Algorithm],
    /// `bench`'s message sizes by default (`--sizes` syntax).
    pub sizes: &'static str,
    pub mpich: Mpich,
    /// How `tune` names this collective's directories next to the rules
    /// (`model<suffix>/`, `plots<suffix>/`).
    pub file_suffix: &'static str,
}

/// What a collective does with the ranks' buffers.
#[derive(Debug)]
pub struct Semantics {
    /// Whether one rank (the root) is the source or the destination.
    pub rooted: bool,
    /// How contributions are combined; `None` where data only moves.
    pub combines: Option<Combines>,
    /// What a message size measures, for people.
    pub msg_size: &'static str,
    /// The harness's element: message sizes are whole elements
    /// (`MPI_FLOAT` for the reductions, as the OSU benchmarks use).
    pub element_bytes: u64,
    /// Whether calls carry data: a barrier's have none, its only message
    /// size is 0 (rows, decisions and rules say 0).
    pub sized: bool,
    /// Whether a message size is one rank's block of the p a call moves
    /// (Open MPI's coll/tuned looks its rules up by all of them).
    pub blocks: bool,
}

/// Where a reduction's result ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Combines {
    /// At the root only (`MPI_Reduce`).
    AtRoot,
    /// At every rank (`MPI_Allreduce`).
    AtEveryRank,
    /// Block i of it at rank i (`MPI_Reduce_scatter`, `_block`).
    BlockAtEachRank,
}

/// Open MPI's view of the collective (coll/base, coll/tuned, coll/han).
#[derive(Debug)]
pub struct Ompi {
    /// coll/base's id (`COLLTYPE_T` in `coll_base_functions.h`), which
    /// tuned's and HAN's rules files name.
    pub coll_id: u8,
    /// `coll_tuned_<name>_algorithm`'s values, indexed by id (Open MPI
    /// 4.1's tables, and later ids where a later release adds one).
    pub algorithms: &'static [OmpiAlgorithm],
    /// Whether `coll_tuned_<name>_algorithm_knomial_radix` exists (a
    /// rules file cannot set the radix).
    pub knomial_radix: bool,
    /// Whether coll/han serves the collective in Open MPI 5 (and so may
    /// route it in its own rules file).
    pub han: bool,
    /// Which algorithms take a segment size or fan-out.
    pub parameterized: Parameterized,
}

/// Which of a collective's Open MPI algorithms take a segment size or a
/// fan-out (the sweep measures each value only where it means something).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Parameterized {
    /// Each algorithm's own (pipelined trees segment, k-nomial and chain
    /// fan out, ...): `bench::points` knows which.
    ByAlgorithm,
    /// Only this algorithm, and only a segment size (a gather's
    /// linear_sync sends its first segment apart).
    OnlySegmentOf(Algorithm),
    /// None of them: each runs as it is.
    Never,
}

/// One of `coll_tuned_<collective>_algorithm`'s values.
#[derive(Debug)]
pub struct OmpiAlgorithm {
    pub algorithm: Algorithm,
    /// Open MPI's name for it (the MCA enum's, and 6.0 JSON rules').
    pub name: &'static str,
}

/// The descriptions' shorthand for an [`OmpiAlgorithm`].
const fn named(algorithm: Algorithm, name: &'static str) -> OmpiAlgorithm {
    OmpiAlgorithm { algorithm, name }
}

/// MPICH's view of the collective.
#[derive(Debug)]
pub struct Mpich {
    /// The algorithm MPICH's selection file names for inter-communicators
    /// (which the product does not tune).
    pub inter: &'static str,
    /// Open MPI candidates MPICH runs the same way (besides `default`,
    /// which is MPICH's own choice there): what an MPICH export of a model
    /// measured under Open MPI decides among.
    pub equivalents: &'static [Algorithm],
    /// `MPIR_CVAR_<COLL>_INTRA_ALGORITHM`'s values that `bench` forces
    /// under MPICH (`impl=mpich`), as MPICH 5.0's `coll_algorithms.txt`
    /// lists them; their numbers come from the MPICH in use.
    pub algorithms: &'static [MpichAlgorithm],
    /// Whether MPICH selects by the total of the p blocks
    /// (`total_msg_size`) rather than by the average message.
    pub by_total: bool,
    /// The algorithm MPICH's own file keeps for non-commutative operations
    /// where the measured decisions (MPI_SUM's) do not hold.
    pub noncommutative: Option<Algorithm>,
    /// The function MPICH's own file names where the send buffer is
    /// MPI_IN_PLACE, which nothing measured.
    pub in_place: Option<&'static str>,
}

/// One of MPICH's algorithms of a collective.
#[derive(Debug)]
pub struct MpichAlgorithm {
    /// Named as MPICH names it.
    pub algorithm: Algorithm,
    /// Where MPICH can run it; elsewhere it falls back to its own choice.
    /// (The reductions' `commutative` and `builtin-op` always hold for the
    /// harness's MPI_SUM, alltoall's `noinplace` for its separate buffers.)
    pub restrictions: &'static [Restriction],
    /// What a selection file must give it; `bench` measures it with
    /// these values.
    pub params: &'static [MpichParam],
    /// Our schedule that runs as it does (algorithm, segment size), which
    /// the analytical model prices; `None` where none does.
    pub runs_as: Option<(Algorithm, u64)>,
}

/// A parameter of an MPICH algorithm.
#[derive(Debug)]
pub struct MpichParam {
    /// Its key in the selection file (`k` in `"k=2"`).
    pub key: &'static str,
    /// The control variable that sets it for a forced call, without the
    /// `MPIR_CVAR_<COLL>_` prefix.
    pub cvar: &'static str,
    /// MPICH 5.0's default, as the selection file spells it.
    pub default: &'static str,
}

/// When MPICH can run an algorithm (`restrictions` in its
/// `coll_algorithms.txt`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Restriction {
    /// A power-of-two number of ranks.
    PowerOfTwo,
    /// At least as many elements as the largest power of two not above
    /// the ranks (`size-ge-pof2`).
    CountAtLeastPof2,
    /// A communicator MPICH splits into nodes (`parent-comm`): not when
    /// every rank has a node of its own.
    ParentComm,
}

impl MpichAlgorithm {
    /// Its radix (`k`), where it has one: `bench` sweeps it as the
    /// candidate's fan-out.
    pub fn radix(&self) -> Option<&'static MpichParam> {
        self.params.iter().find(|p| p.key == RADIX)
    }

    /// Its pipeline chunk (`chunk_size`), where it has one: `bench` sweeps
    /// it as the candidate's segment size.
    pub fn chunk(&self) -> Option<&'static MpichParam> {
        self.params.iter().find(|p| p.key == CHUNK)
    }

    /// Whether `bench` sets `param` for every forced call (the radix and
    /// the chunk; the others stay as MPICH has them).
    pub fn swept(param: &MpichParam) -> bool {
        param.key == RADIX || param.key == CHUNK
    }

    /// The value it runs `param` with for a candidate of segment size
    /// `segsize` and fan-out `fanout`: the chunk and the radix where given,
    /// else MPICH's default.
    pub fn value(&self, param: &MpichParam, segsize: Option<u64>, fanout: Option<u32>) -> String {
        match (param.key, segsize, fanout) {
            (RADIX, _, Some(k)) => k.to_string(),
            (CHUNK, Some(s), _) => s.to_string(),
            _ => param.default.to_string(),
        }
    }

    /// A swept value as the candidate holds it: `None` for MPICH's default
    /// (and for a chunk of 0, which means unpipelined, as in our
    /// schedules: the algorithm's own default then).
    pub fn normalized(param: &MpichParam, value: u64) -> Option<u64> {
        let default: Option<u64> = param.default.parse().ok();
        (value != 0 && Some(value) != default).then_some(value)
    }

    /// Why MPICH cannot run it on `procs` ranks over `nodes` nodes, for a
    /// message of `elements`; `None` where it can.
    pub fn unfit(&self, procs: u32, nodes: u32, elements: u64) -> Option<String> {
        let pof2 = 1u64 << (31 - procs.max(1).leading_zeros());
        self.restrictions.iter().find_map(|r| match r {
            Restriction::PowerOfTwo if !procs.is_power_of_two() => {
                Some("MPICH runs it on a power-of-two number of ranks only".to_string())
            }
            Restriction::CountAtLeastPof2 if elements < pof2 => Some(format!(
                "MPICH runs it from {pof2} elements on {procs} ranks (as many as the largest \
                 power of two not above the ranks)"
            )),
            Restriction::ParentComm if nodes >= procs => {
                Some("MPICH runs it only where ranks share nodes".to_string())
            }
            _ => None,
        })
    }
}

/// The descriptions' shorthand for an MPICH algorithm without
/// restrictions or parameters that no schedule of ours runs.
const fn mpich(algorithm: Algorithm) -> MpichAlgorithm {
    MpichAlgorithm {
        algorithm,
        restrictions: &[],
        params: &[],
        runs_as: None,
    }
}

/// The selection file's key of an MPICH algorithm's radix.
const RADIX: &str = "k";
/// The selection file's key of an MPICH algorithm's pipeline chunk.
const CHUNK: &str = "chunk_size";

/// The parameters of MPICH's recursive-exchange algorithms (allreduce's
/// and allgather's take the same).
const RECEXCH: &[MpichParam] = &[
    param("k", "RECEXCH_KVAL", "2"),
    param("single_phase_recv", "RECEXCH_SINGLE_PHASE_RECV", "0"),
];

/// The descriptions' shorthand for an [`MpichParam`].
const fn param(key: &'static str, cvar: &'static str, default: &'static str) -> MpichParam {
    MpichParam { key, cvar, default }
}

impl Collective {
    pub const ALL: [Collective; 10] = [
        Collective::Bcast,
        Collective::Reduce,
        Collective::Allreduce,
        Collective::Allgather,
        Collective::Alltoall,
        Collective::Gather,
        Collective::Scatter,
        Collective::ReduceScatter,
        Collective::ReduceScatterBlock,
        Collective::Barrier,
    ];

    /// What rows of files without a collective column are.
    pub const LEGACY: Collective = Collective::Bcast;

    /// The collective's description: the one match that says which
    /// module describes which collective.
    pub fn describe(self) -> &'static Description {
        match self {
            Collective::Bcast => &bcast::DESCRIPTION,
            Collective::Reduce => &reduce::DESCRIPTION,
            Collective::Allreduce => &allreduce::DESCRIPTION,
            Collective::Allgather => &allgather::DESCRIPTION,
            Collective::Alltoall => &alltoall::DESCRIPTION,
            Collective::Gather => &gather::DESCRIPTION,
            Collective::Scatter => &scatter::DESCRIPTION,
            Collective::ReduceScatter => &reduce_scatter::DESCRIPTION,
            Collective::ReduceScatterBlock => &reduce_scatter_block::DESCRIPTION,
            Collective::Barrier => &barrier::DESCRIPTION,
        }
    }

    /// The name in CSV files (`bcast`, `reduce`, `allreduce`).
    pub fn name(self) -> &'static str {
        self.describe().name
    }

    /// Whether ranks combine contributions (reduce, allreduce) rather than
    /// pass data on.
    pub fn reduces(self) -> bool {
        self.describe().semantics.combines.is_some()
    }

    /// Whether one rank is the source or destination (the others ignore
    /// a root).
    pub fn rooted(self) -> bool {
        self.describe().semantics.rooted
    }

    /// Whether a call of `msg_bytes` returns at once without a message (an
    /// empty one of a collective that carries data; a barrier, which
    /// carries none, still synchronizes).
    pub fn returns_at_once(self, msg_bytes: u64) -> bool {
        msg_bytes == 0 && self.describe().semantics.sized
    }

    /// The message sizes among `asked` this collective takes: whole
    /// elements; a barrier's only size, 0, whatever was asked.
    pub fn message_sizes(self, asked: &[u64]) -> Vec<u64> {
        let semantics = &self.describe().semantics;
        if !semantics.sized {
            return vec![0];
        }
        asked
            .iter()
            .copied()
            .filter(|m| m.is_multiple_of(semantics.element_bytes))
            .collect()
    }

    /// The bytes message sizes come in (4 for reductions of floats).
    pub fn element_bytes(self) -> u64 {
        self.describe().semantics.element_bytes
    }

    /// The bytes of each rank's own memory in the harness for a message
    /// size of `msg_bytes` on `procs` ranks: the message (the result where
    /// it is one buffer), an allgather's p blocks, a gather's or scatter's
    /// p blocks (every rank keeps them where the root does, so that a
    /// binomial tree's subtrees stay in place) and one more, the rank's own
    /// block apart (its send buffer in a gather, its receive buffer in a
    /// scatter, which the root copies its block from or into as MPI does),
    /// a reduce-scatter's vector of p blocks (its block of the result
    /// stays in place: Open MPI's copy of it to the receive buffer is left
    /// out, as is every algorithm's copy of the send buffer into working
    /// memory), an alltoall's p blocks to send, p received and p passing
    /// through
    /// (`schedule::alltoall::local`). (The simulator's buffer is
    /// `Schedule::buffer_bytes`.)
    pub fn local_bytes(self, procs: u32, msg_bytes: u64) -> u64 {
        match self {
            Collective::Bcast | Collective::Reduce | Collective::Allreduce => msg_bytes,
            Collective::Barrier => 0,
            Collective::Allgather => u64::from(procs) * msg_bytes,
            Collective::Gather | Collective::Scatter => u64::from(procs + 1) * msg_bytes,
            Collective::ReduceScatter | Collective::ReduceScatterBlock => {
                u64::from(procs) * msg_bytes
            }
            Collective::Alltoall => 3 * u64::from(procs) * msg_bytes,
        }
    }

    /// The MPI function, for people (`MPI_Bcast`).
    pub fn function(self) -> &'static str {
        self.describe().function
    }

    /// Open MPI's algorithms of this collective, indexed by their
    /// `coll_tuned_<collective>_algorithm` id.
    pub fn ompi_algorithms(self) -> impl ExactSizeIterator<Item = Algorithm> {
        self.describe().ompi.algorithms.iter().map(|a| a.algorithm)
    }

    /// The algorithm of Open MPI's id `id` for this collective.
    pub fn ompi_algorithm(self, id: u8) -> Option<Algorithm> {
        let table = self.describe().ompi.algorithms;
        table.get(usize::from(id)).map(|a| a.algorithm)
    }

    /// Open MPI's id of `algorithm` for this collective (0 for tuned's own
    /// decision); `None` where Open MPI has no such algorithm for it.
    pub fn ompi_id(self, algorithm: Algorithm) -> Option<u8> {
        match algorithm {
            Algorithm::Tuned => Some(0),
            _ => self
                .ompi_algorithms()
                .position(|a| a == algorithm)
                .map(|i| i as u8),
        }
    }

    /// Open MPI's name of `algorithm` for this collective (its enum value
    /// in MCA variables and 6.0 JSON rules); `None` where Open MPI lacks it.
    pub fn ompi_name(self, algorithm: Algorithm) -> Option<&'static str> {
        let id = self.ompi_id(algorithm)?;
        Some(self.describe().ompi.algorithms[usize::from(id)].name)
    }

    /// Whether `algorithm` can run on `procs` ranks (Open MPI's two-rank
    /// algorithms fail the call on any other number).
    pub fn runs_on(self, algorithm: Algorithm, procs: u32) -> bool {
        procs == 2 || !self.describe().two_ranks.contains(&algorithm)
    }

    /// Whether `algorithm` is one of this collective's: Open MPI's, tuned's
    /// own decision, one only this project runs, or MPICH's.
    pub fn knows(self, algorithm: Algorithm) -> bool {
        self.ompi_id(algorithm).is_some()
            || self.describe().own.contains(&algorithm)
            || self.mpich_algorithm(algorithm).is_some()
    }

    /// MPICH's algorithm of this collective by that name.
    pub fn mpich_algorithm(self, algorithm: Algorithm) -> Option<&'static MpichAlgorithm> {
        let table = self.describe().mpich.algorithms;
        table.iter().find(|m| m.algorithm == algorithm)
    }

    /// The function MPICH's selection file names for its `algorithm`
    /// (`MPIR_Bcast_intra_binomial`; the nonblocking fallback serves every
    /// kind of communicator: `MPIR_Bcast_allcomm_nb`).
    pub fn mpich_function(self, algorithm: Algorithm) -> String {
        let function = self.function().trim_start_matches("MPI_");
        match algorithm {
            Algorithm::Nb => format!("MPIR_{function}_allcomm_nb"),
            _ => format!("MPIR_{function}_intra_{}", algorithm.name()),
        }
    }

    /// The names this collective accepts, for error messages.
    pub fn accepted_names(self) -> String {
        let names: Vec<&str> = Algorithm::ALL
            .iter()
            .filter(|a| self.knows(**a))
            .map(|a| a.name())
            .collect();
        let mut spellings: Vec<&str> = self
            .describe()
            .ompi
            .algorithms
            .iter()
            .filter(|a| a.name != a.algorithm.name())
            .map(|a| a.name)
            .collect();
        if self.knows(Algorithm::InOrderBinary) {
            spellings.push("in_order_binary");
        }
        format!(
            "{} (or {}, or an id 0-{})",
            names.join(", "),
            spellings.join(", "),
            self.ompi_algorithms().len() - 1
        )
    }

    /// An algorithm of this collective: a name (any spelling) or Open
    /// MPI's numeric id for it.
    pub fn algorithm(self, s: &str) -> Result<Algorithm, String> {
        if let Ok(id) = s.trim().parse::<usize>() {
            let n = self.ompi_algorithms().len();
            return self.ompi_algorithms().nth(id).ok_or_else(|| {
                format!(
                    "{} algorithm id {id} is not one of 0-{}",
                    self.name(),
                    n - 1
                )
            });
        }
        s.parse()
    }
}

impl fmt::Display for Collective {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Collective {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let lower = s.trim().to_ascii_lowercase();
        let lower = lower.strip_prefix("mpi_").unwrap_or(&lower);
        Collective::ALL
            .into_iter()
            .find(|c| c.name() == lower || c.describe().aliases.contains(&lower))
            .ok_or_else(|| format!("unknown collective {s:?}"))
    }
}

#[cfg(test)]
mod tests;
