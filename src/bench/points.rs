//! The points of a campaign: message sizes × candidates, in the order they
//! are measured, and which of them an existing CSV already holds.

use super::CommPart;
use crate::collective::{MpichAlgorithm, Parameterized};
use crate::data::{Algorithm, Arrival, Candidate, Collective, Config, Dataset, Impl, Mapping};
use crate::schedule::scheduled;
use std::collections::HashSet;

/// What the user asked to measure.
#[derive(Clone, Debug)]
pub struct Sweep {
    pub collective: Collective,
    pub sizes: Vec<u64>,
    pub algorithms: Vec<Algorithm>,
    /// Segment sizes for the segmenting algorithms (0 = unsegmented).
    pub segsizes: Vec<u64>,
    /// Chain counts / knomial radices; `None` = the library default.
    pub fanouts: Vec<Option<u32>>,
    pub impls: Vec<Impl>,
    /// How ranks arrive; with `Barrier`, `imbalances` is just `[0]`.
    pub arrival: Arrival,
    /// Imbalance factors X to measure.
    pub imbalances: Vec<f64>,
}

impl Sweep {
    /// `bench`'s message sizes: those asked, or the collective's default.
    pub fn sizes(collective: Collective, asked: Option<&[u64]>) -> Result<Vec<u64>, String> {
        match asked {
            // A barrier's only size is 0, whatever was asked.
            Some(sizes) if collective.describe().semantics.sized => Ok(sizes.to_vec()),
            _ => crate::units::parse_size_list(collective.describe().sizes),
        }
    }

    /// The algorithms named (names or Open MPI ids of `collective`), or
    /// `default` and the collective's candidates measured by default for
    /// `impls`: the description's for our schedules and Open MPI's, every
    /// one of MPICH's table for MPICH's.
    pub fn algorithms(
        collective: Collective,
        names: Option<&[String]>,
        impls: &[Impl],
    ) -> Result<Vec<Algorithm>, String> {
        let Some(names) = names else {
            let description = collective.describe();
            let mut list = vec![Algorithm::Default];
            for a in description.measured_by_default {
                let ours_or_ompi = |&i: &Impl| i != Impl::Mpich && runs(collective, *a, i);
                if impls.iter().any(ours_or_ompi) && !list.contains(a) {
                    list.push(*a);
                }
            }
            if impls.contains(&Impl::Mpich) {
                for m in description.mpich.algorithms {
                    if !list.contains(&m.algorithm) {
                        list.push(m.algorithm);
                    }
                }
            }
            return Ok(list);
        };
        names
            .iter()
            .map(|name| {
                collective
                    .algorithm(name)
                    .ok()
                    .filter(|a| collective.knows(*a))
                    .ok_or_else(|| {
                        format!(
                            "--algorithms: unknown {} algorithm {name:?}; expected {}",
                            collective.name(),
                            collective.accepted_names()
                        )
                    })
            })
            .collect()
    }

    /// The parts of the sweep: the whole job, or one per communicator size
    /// of `procs` (ascending, once each).
    pub fn parts(&self, procs: Option<&[u64]>, mapping: Mapping) -> Result<Vec<CommPart>, String> {
        let points = self.points()?;
        let part = |procs| CommPart {
            procs,
            mapping,
            arrival: self.arrival,
            points: points.clone(),
        };
        let Some(list) = procs else {
            return Ok(vec![part(None)]);
        };
        let mut sizes = list
            .iter()
            .map(|&p| match u32::try_from(p) {
                Ok(p) if p >= 1 => Ok(p),
                _ => Err(format!("--procs {p}: expected a size of 1 or more ranks")),
            })
            .collect::<Result<Vec<u32>, String>>()?;
        sizes.sort_unstable();
        sizes.dedup();
        Ok(sizes.into_iter().map(|p| part(Some(p))).collect())
    }
}

/// Whether `implementation` runs `algorithm` of `collective`: our
/// schedules and own algorithms, Open MPI's table, MPICH's table.
fn runs(collective: Collective, algorithm: Algorithm, implementation: Impl) -> bool {
    match implementation {
        Impl::Own => {
            scheduled(collective).contains(&algorithm)
                || collective.describe().own.contains(&algorithm)
        }
        Impl::Ompi => collective.ompi_id(algorithm).is_some(),
        Impl::Mpich => collective.mpich_algorithm(algorithm).is_some(),
    }
}

/// A candidate's (segment size, fan-out).
type Parameters = (Option<u64>, Option<u32>);

/// One measurement: a message size, an imbalance factor and a candidate.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Point {
    pub msg_bytes: u64,
    pub imbalance: f64,
    pub candidate: Candidate,
}

impl Sweep {
    /// Every point, sizes outermost so that an interrupted campaign has whole
    /// sizes, then imbalance factors; for each algorithm and parameter the
    /// own implementation comes right next to the library's, so the two are
    /// measured side by side.
    pub fn points(&self) -> Result<Vec<Point>, String> {
        let candidates = self.candidates()?;
        if self.arrival == Arrival::Barrier && self.imbalances.iter().any(|&x| x != 0.0) {
            return Err("imbalance factors need an arrival pattern other than barrier".into());
        }
        let mut points = Vec::new();
        for &msg_bytes in &self.sizes {
            for &imbalance in &self.imbalances {
                points.extend(candidates.iter().map(|&candidate| Point {
                    msg_bytes,
                    imbalance,
                    candidate,
                }));
            }
        }
        Ok(points)
    }

    fn candidates(&self) -> Result<Vec<Candidate>, String> {
        let mut out = Vec::new();
        for &algorithm in &self.algorithms {
            let before = out.len();
            if algorithm == Algorithm::Default {
                // Whichever library runs, its own choice is one candidate.
                if self.impls.iter().any(|&i| i != Impl::Own) {
                    out.push(Candidate::DEFAULT);
                }
            } else {
                for (segsize, fanout) in self.parameters(algorithm) {
                    for &implementation in &self.impls {
                        if implementation != Impl::Mpich
                            && runs(self.collective, algorithm, implementation)
                        {
                            out.push(Candidate {
                                algorithm,
                                segsize,
                                fanout,
                                implementation,
                            });
                        }
                    }
                }
                // MPICH's algorithms run with the parameters of the
                // description (`MpichAlgorithm::params`), the radix swept
                // over the fan-outs where they have one.
                let mpich = self.collective.mpich_algorithm(algorithm);
                if let Some(m) = mpich.filter(|_| self.impls.contains(&Impl::Mpich)) {
                    out.extend(
                        self.mpich_parameters(m)?
                            .into_iter()
                            .map(|(segsize, fanout)| Candidate {
                                algorithm,
                                segsize,
                                fanout,
                                implementation: Impl::Mpich,
                            }),
                    );
                }
            }
            if !self.collective.knows(algorithm) {
                return Err(format!(
                    "{algorithm} is not an algorithm of {} (its algorithms: {})",
                    self.collective.function(),
                    self.collective.accepted_names()
                ));
            }
            if out.len() == before {
                let impls: Vec<&str> = self.impls.iter().map(|i| i.name()).collect();
                let who: Vec<&str> = [Impl::Own, Impl::Ompi, Impl::Mpich]
                    .into_iter()
                    .filter(|&i| {
                        runs(self.collective, algorithm, i)
                            || (algorithm == Algorithm::Default && i != Impl::Own)
                    })
                    .map(Impl::name)
                    .collect();
                return Err(format!(
                    "algorithm {algorithm} cannot run with --impl {}: {}",
                    impls.join(","),
                    match algorithm {
                        Algorithm::Default =>
                            "it is the library's own choice (needs ompi or mpich)".to_string(),
                        _ => format!("it needs --impl {}", who.join(" or ")),
                    }
                ));
            }
        }
        Ok(out)
    }

    /// (segsize, fanout) combinations of MPICH's algorithm `m`: its chunk
    /// swept over the segment sizes and its radix over the fan-outs, where
    /// it has them; `None` for MPICH's default, each combination once.
    fn mpich_parameters(&self, m: &MpichAlgorithm) -> Result<Vec<Parameters>, String> {
        let mut chunks: Vec<Option<u64>> = match m.chunk() {
            Some(chunk) => self
                .segsizes
                .iter()
                .map(|&s| MpichAlgorithm::normalized(chunk, s))
                .collect(),
            None => vec![None],
        };
        let mut radices: Vec<Option<u32>> = match m.radix() {
            Some(radix) => self
                .fanouts
                .iter()
                .map(|k| {
                    let k = k.map(u64::from).unwrap_or(0);
                    MpichAlgorithm::normalized(radix, k).map(|k| k as u32)
                })
                .collect(),
            None => vec![None],
        };
        if let Some(k) = radices.iter().flatten().find(|&&k| k < 2) {
            return Err(format!(
                "--fanouts {k}: MPICH's {} takes a radix of 2 or more",
                m.algorithm
            ));
        }
        chunks.sort_unstable();
        chunks.dedup();
        radices.sort_unstable();
        radices.dedup();
        Ok(chunks
            .iter()
            .flat_map(|&s| radices.iter().map(move |&k| (s, k)))
            .collect())
    }

    /// (segsize, fanout) combinations that mean something for `algorithm`.
    fn parameters(&self, algorithm: Algorithm) -> Vec<Parameters> {
        let segs = || self.segsizes.iter().map(|&s| Some(s));
        match self.collective.describe().ompi.parameterized {
            Parameterized::ByAlgorithm => {}
            Parameterized::OnlySegmentOf(only) if algorithm == only => {
                return segs().map(|s| (s, None)).collect()
            }
            Parameterized::OnlySegmentOf(_) | Parameterized::Never => return vec![(None, None)],
        }
        match algorithm {
            // Rabenseifner's reduce and allreduce's algorithms other than
            // the segmented ring do not segment.
            Algorithm::Default
            | Algorithm::Tuned
            | Algorithm::Linear
            | Algorithm::Sbbt
            | Algorithm::Rabenseifner
            | Algorithm::Nonoverlapping
            | Algorithm::RecursiveDoubling
            | Algorithm::Ring
            | Algorithm::Bruck
            | Algorithm::Neighbor
            | Algorithm::TwoProc
            | Algorithm::Sparbit
            | Algorithm::Pairwise
            | Algorithm::ModifiedBruck
            | Algorithm::LinearSync => vec![(None, None)],
            Algorithm::Chain | Algorithm::Knomial => segs()
                .flat_map(|s| self.fanouts.iter().map(move |&f| (s, f)))
                .collect(),
            _ => segs().map(|s| (s, None)).collect(),
        }
    }
}

/// Points listed one by one (`bench --points`, a `plan` output), as one
/// part per communicator size, mapping and arrival pattern, sizes
/// ascending; within a part, message sizes outermost as in a sweep. Nodes
/// and ranks per node are not chosen here: the sub-communicator's
/// placement is detected and recorded as always.
pub fn listed(points: &[(Config, Candidate)]) -> Vec<super::CommPart> {
    let mut parts: std::collections::BTreeMap<_, Vec<Point>> = Default::default();
    for (c, candidate) in points {
        // Socket placement is taken like core (block) placement.
        let mapping = match c.mapping {
            crate::data::Mapping::Node => crate::data::Mapping::Node,
            _ => crate::data::Mapping::Core,
        };
        let point = Point {
            msg_bytes: c.msg_bytes,
            imbalance: c.imbalance,
            candidate: *candidate,
        };
        let list = parts.entry((c.procs, mapping, c.arrival)).or_default();
        if !list.contains(&point) {
            list.push(point);
        }
    }
    parts
        .into_iter()
        .map(|((procs, mapping, arrival), mut points)| {
            points.sort_by(|a, b| {
                a.msg_bytes
                    .cmp(&b.msg_bytes)
                    .then(a.imbalance.total_cmp(&b.imbalance))
                    .then(a.candidate.cmp(&b.candidate))
            });
            super::CommPart {
                procs: Some(procs),
                mapping,
                arrival,
                points,
            }
        })
        .collect()
}

/// The configuration a point measures on `job`.
pub fn config(job: &Config, arrival: Arrival, p: &Point) -> Config {
    Config {
        msg_bytes: p.msg_bytes,
        imbalance: p.imbalance,
        arrival,
        ..*job
    }
}

/// The points of `points` that `existing` already measured for this job
/// (whose arrival pattern is the points').
pub fn already_measured(points: &[Point], job: &Config, existing: &Dataset) -> Vec<bool> {
    let have: HashSet<(Config, Candidate)> = existing
        .measurements()
        .iter()
        .map(|m| (m.config, m.candidate))
        .collect();
    points
        .iter()
        .map(|p| have.contains(&(config(job, job.arrival, p), p.candidate)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sweep(algorithms: &[Algorithm], impls: &[Impl]) -> Sweep {
        Sweep {
            collective: Collective::Bcast,
            sizes: vec![1, 1024],
            algorithms: algorithms.to_vec(),
            segsizes: vec![0, 8192],
            fanouts: vec![None, Some(2)],
            impls: impls.to_vec(),
            arrival: Arrival::Barrier,
            imbalances: vec![0.0],
        }
    }

    #[test]
    fn parameters_only_where_they_mean_something() {
        use Algorithm::*;
        let s = sweep(
            &[Default, Linear, Pipeline, Chain],
            &[Impl::Own, Impl::Ompi],
        );
        let points = s.points().unwrap();
        // default 1 + linear 2 impls + pipeline 2 segs x 2 + chain 2 x 2 x 2.
        assert_eq!(points.len(), 2 * (1 + 2 + 4 + 8));
        assert!(points.iter().all(|p| p.candidate.algorithm != Linear
            || (p.candidate.segsize.is_none() && p.candidate.fanout.is_none())));
        // Own and ompi of one candidate are adjacent.
        let pipe: Vec<_> = points
            .iter()
            .filter(|p| p.candidate.algorithm == Pipeline && p.msg_bytes == 1)
            .map(|p| (p.candidate.segsize, p.candidate.implementation))
            .collect();
        assert_eq!(
            pipe,
            [
                (Some(0), Impl::Own),
                (Some(0), Impl::Ompi),
                (Some(8192), Impl::Own),
                (Some(8192), Impl::Ompi)
            ]
        );
    }

    #[test]
    fn impossible_combinations_are_explained() {
        let err = sweep(&[Algorithm::Default], &[Impl::Own])
            .points()
            .unwrap_err();
        assert!(err.contains("needs ompi or mpich"), "{err}");
        let err = sweep(&[Algorithm::Sbbt], &[Impl::Ompi])
            .points()
            .unwrap_err();
        assert!(err.contains("needs --impl own"), "{err}");
        let err = sweep(&[Algorithm::ScatterAllgather], &[Impl::Own])
            .points()
            .unwrap_err();
        assert!(err.contains("needs --impl ompi"), "{err}");
        let err = sweep(&[Algorithm::Arrival], &[Impl::Ompi])
            .points()
            .unwrap_err();
        assert!(err.contains("needs --impl own"), "{err}");
        // MPICH's names are MPICH's: its tree is no algorithm of Open MPI.
        let err = sweep(&[Algorithm::Tree], &[Impl::Own, Impl::Ompi])
            .points()
            .unwrap_err();
        assert!(err.contains("needs --impl mpich"), "{err}");
        let mut s = sweep(&[Algorithm::Linear], &[Impl::Own]);
        s.imbalances = vec![0.0, 2.0];
        assert!(s.points().unwrap_err().contains("arrival pattern"));
    }

    #[test]
    fn mpich_algorithms_run_once_each_in_mpichs_namespace() {
        use Algorithm::*;
        // Binomial is Open MPI's (segmented) and MPICH's (not): three
        // candidates, MPICH's without parameters.
        let s = sweep(&[Default, Binomial], &[Impl::Ompi, Impl::Mpich]);
        let at_1: Vec<Candidate> = s
            .points()
            .unwrap()
            .into_iter()
            .filter(|p| p.msg_bytes == 1)
            .map(|p| p.candidate)
            .collect();
        let mpich = Candidate {
            algorithm: Binomial,
            segsize: None,
            fanout: None,
            implementation: Impl::Mpich,
        };
        assert_eq!(at_1.len(), 4, "{at_1:?}");
        assert_eq!(at_1[0], Candidate::DEFAULT);
        assert_eq!(at_1.iter().filter(|c| **c == mpich).count(), 1);
        // By default under MPICH alone: default and MPICH's table, in its
        // order.
        let list = Sweep::algorithms(Collective::Allreduce, None, &[Impl::Mpich]).unwrap();
        let table: Vec<Algorithm> = Collective::Allreduce
            .describe()
            .mpich
            .algorithms
            .iter()
            .map(|m| m.algorithm)
            .collect();
        assert_eq!(list[0], Default);
        assert_eq!(list[1..], table[..]);
        // Default alone, under MPICH: the library's own choice.
        let only = sweep(&[Default], &[Impl::Mpich]).points().unwrap();
        assert!(only.iter().all(|p| p.candidate == Candidate::DEFAULT));
    }

    #[test]
    fn mpichs_radix_is_swept_as_the_fan_out() {
        use Algorithm::*;
        let mut s = sweep(&[KBrucks, Brucks], &[Impl::Mpich]);
        s.collective = Collective::Allgather;
        s.fanouts = vec![None, Some(4)];
        let at_1: Vec<(Algorithm, Option<u32>)> = s
            .points()
            .unwrap()
            .into_iter()
            .filter(|p| p.msg_bytes == 1)
            .map(|p| (p.candidate.algorithm, p.candidate.fanout))
            .collect();
        // Bruck's exchange of radix 2 has no radix to sweep.
        assert_eq!(at_1, [(KBrucks, None), (KBrucks, Some(4)), (Brucks, None)]);
        s.fanouts = vec![Some(1)];
        assert!(s.points().unwrap_err().contains("radix of 2 or more"));
        // The chunk swept as the segment size: 0 and MPICH's default (8 KiB
        // for the broadcast's pipelined tree) are its default, once; a
        // radix of MPICH's default (2) is the default too.
        let mut s = sweep(&[PipelinedTree], &[Impl::Mpich]);
        s.segsizes = vec![0, 8192, 65536];
        s.fanouts = vec![None, Some(2), Some(4)];
        let params: Vec<(Option<u64>, Option<u32>)> = s
            .points()
            .unwrap()
            .into_iter()
            .filter(|p| p.msg_bytes == 1)
            .map(|p| (p.candidate.segsize, p.candidate.fanout))
            .collect();
        assert_eq!(
            params,
            [
                (None, None),
                (None, Some(4)),
                (Some(65536), None),
                (Some(65536), Some(4))
            ]
        );
    }

    #[test]
    fn imbalance_factors_are_points_of_their_own() {
        let mut s = sweep(&[Algorithm::Linear, Algorithm::Arrival], &[Impl::Own]);
        s.arrival = Arrival::Uniform;
        s.imbalances = vec![0.0, 4.0];
        let points = s.points().unwrap();
        // 2 sizes x 2 factors x (linear + arrival with 2 segment sizes).
        assert_eq!(points.len(), 2 * 2 * 3);
        assert_eq!(
            points
                .iter()
                .map(|p| p.imbalance)
                .take(6)
                .collect::<Vec<_>>(),
            [0.0, 0.0, 0.0, 4.0, 4.0, 4.0]
        );
        let job = crate::data::tests::config(4, 0);
        let c = config(&job, s.arrival, &points[3]);
        assert_eq!(
            (c.imbalance, c.arrival, c.msg_bytes),
            (4.0, Arrival::Uniform, 1)
        );
    }
}
