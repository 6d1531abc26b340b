//! How a point's collective runs: our schedule, the library's collective
//! (forced or its own choice) or the arrival-aware broadcast, and the
//! memory it runs in.

use super::points::Point;
use super::{control, exec, exec_arrival, harness, mpich};
use crate::collective::Combines;
use crate::data::{Candidate, Collective, Impl};
use crate::error::{Error, Result};
use crate::schedule::{LocalOp, Schedule, Span, Spec, Working};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

/// A campaign's memory besides the message: the root's result of a
/// library reduction (a library allgather's block to send), and where our
/// reductions receive partial results.
pub(super) struct Buffers {
    pub(super) out: Vec<f32>,
    pub(super) scratch: Vec<u8>,
}

impl Buffers {
    /// The buffer of messages of up to `largest` bytes on `procs` ranks
    /// (floats underneath, so that MPI_Reduce can take the bytes as
    /// MPI_FLOAT) and the other memory of `collective`.
    pub(super) fn new(collective: Collective, largest: u64, procs: u32) -> (Vec<f32>, Buffers) {
        let floats = |bytes: u64| (bytes as usize).div_ceil(4);
        // Written through, not zeroed: a zeroed allocation's pages are
        // mapped at their first write, so the first candidate measured at a
        // new largest size paid the page faults (`default`, 1.5x slower at
        // 1 MiB on 4 ranks than the same algorithm forced after it).
        let buffers = Buffers {
            out: vec![
                1f32;
                if harness::of(collective).result_apart() {
                    floats(largest)
                } else {
                    0
                }
            ],
            scratch: Vec::new(),
        };
        let buffer = collective.local_bytes(procs, largest);
        (vec![1f32; floats(buffer)], buffers)
    }
}

/// How one point's collective is executed.
pub(super) enum Runner {
    /// Our schedule: this rank's operations for each root, in root order.
    Own {
        comm: SimpleCommunicator,
        ops: Vec<Vec<LocalOp>>,
        /// A copy within the rank's memory for each root, made first (an
        /// alltoall's block to itself, a gather's or scatter's root's own
        /// block between its send and receive buffers).
        copies: Vec<Option<(Span, Span)>>,
        /// The working memory Open MPI's algorithm allocates and fills every
        /// call, per root (see [`Schedule::working_memory`]).
        fresh: Vec<Vec<Working>>,
        /// Where each block of a reduce-scatter's vector lies in the rank's
        /// memory, in block order (see [`crate::schedule::reduce_scatter`]);
        /// empty for the other collectives.
        places: Vec<Span>,
    },
    /// The library's own collective on a communicator configured for the
    /// candidate (Open MPI's), or forced around each call (MPICH's).
    Library {
        comm: SimpleCommunicator,
        collective: Collective,
        forcing: Option<mpich::Forcing>,
    },
    /// The arrival-aware broadcast: its rounds are decided as ranks arrive.
    Arrival {
        comm: SimpleCommunicator,
        segsize: u64,
    },
}

/// What a campaign opened to force the libraries' algorithms.
#[derive(Clone, Copy, Default)]
pub(crate) struct Controls<'a> {
    /// Open MPI's tuned component's variables.
    pub(crate) tuned: Option<&'a control::TunedControl>,
    /// MPICH's algorithm variables.
    pub(crate) mpich: Option<&'a mpich::MpichControl>,
}

impl Runner {
    pub(super) fn new(
        world: &SimpleCommunicator,
        controls: Controls,
        point: &Point,
        roots: &[u32],
        collective: Collective,
    ) -> Result<Runner> {
        let c = &point.candidate;
        let library = |comm, forcing| Runner::library(comm, collective, forcing);
        match c.implementation {
            Impl::Own if c.algorithm == crate::data::Algorithm::Arrival => Ok(Runner::Arrival {
                comm: world.duplicate(),
                segsize: c.segsize.unwrap_or(0),
            }),
            Impl::Own => {
                let rank = world.rank() as u32;
                let schedules = roots
                    .iter()
                    .map(|&root| {
                        Schedule::new(spec(world.size() as u32, root, point, collective))
                            .map_err(Error::Usage)
                    })
                    .collect::<Result<Vec<_>>>()?;
                let ops = schedules
                    .iter()
                    .map(|s| s.local_ops(rank).map_err(Error::Other))
                    .collect::<Result<_>>()?;
                Ok(Runner::Own {
                    comm: world.duplicate(),
                    ops,
                    copies: schedules.iter().map(|s| s.local_copy(rank)).collect(),
                    fresh: schedules.iter().map(|s| s.working_memory(rank)).collect(),
                    places: match (collective.describe().semantics.combines, schedules.first()) {
                        (Some(Combines::BlockAtEachRank), Some(s)) => {
                            (0..s.spec.procs).map(|i| s.needs_at_end(i)).collect()
                        }
                        _ => Vec::new(),
                    },
                })
            }
            Impl::Ompi => match controls.tuned {
                None if c.is_default() => Ok(library(world.duplicate(), None)),
                None => Err(Error::Other(
                    "Open MPI's algorithms requested without MPI_T control".into(),
                )),
                Some(tuned) => {
                    let comm = tuned.communicator(world, c).map_err(Error::Other)?;
                    Ok(library(comm, None))
                }
            },
            Impl::Mpich => {
                let mpich = controls.mpich.ok_or_else(|| {
                    Error::Other("MPICH's algorithms requested without MPI_T control".into())
                })?;
                let forcing = mpich.forcing(c).map_err(Error::Other)?;
                Ok(library(world.duplicate(), Some(forcing)))
            }
        }
    }

    /// The library's own call of `collective` on `comm`; with `forcing`,
    /// MPICH's variables set around each call as it says.
    pub(super) fn library(
        comm: SimpleCommunicator,
        collective: Collective,
        forcing: Option<mpich::Forcing>,
    ) -> Runner {
        Runner::Library {
            comm,
            collective,
            forcing,
        }
    }

    /// Forces the runner's MPICH algorithm until the guard drops (nothing
    /// for the other runners): made outside the timed call.
    pub(super) fn force(&self) -> Result<Option<mpich::Forced<'_>>, String> {
        match self {
            Runner::Library {
                forcing: Some(f), ..
            } => f.force().map(Some),
            _ => Ok(None),
        }
    }

    /// One call of the smallest message (a float) with root 0: what makes
    /// a library's components set the communicator up.
    pub(super) fn call_once(&self, collective: Collective) -> Result<(), String> {
        let (mut store, mut buffers) = Buffers::new(collective, 4, self.comm().size() as u32);
        let buf: &mut [u8] = bytemuck::cast_slice_mut(&mut store);
        self.execute(buf, &mut buffers, 0, 0)
    }

    pub(super) fn comm(&self) -> &SimpleCommunicator {
        match self {
            Runner::Own { comm, .. }
            | Runner::Library { comm, .. }
            | Runner::Arrival { comm, .. } => comm,
        }
    }

    /// One collective with `root`; a library reduction leaves the root's
    /// result in `buffers.out`, every other one in `buf`.
    pub(super) fn execute(
        &self,
        buf: &mut [u8],
        buffers: &mut Buffers,
        root: u32,
        root_index: usize,
    ) -> Result<(), String> {
        match self {
            Runner::Own {
                comm,
                ops,
                copies,
                fresh,
                ..
            } => {
                if let Some((from, to)) = &copies[root_index] {
                    let at = |s: &Span| s.start as usize..s.end as usize;
                    buf.copy_within(at(from), to.start as usize);
                }
                let working = working_memory(&fresh[root_index], buf);
                let done = exec::run(comm, &ops[root_index], buf, &mut buffers.scratch);
                drop(std::hint::black_box(working));
                done
            }
            Runner::Library {
                comm, collective, ..
            } => harness::of(*collective).library(harness::LibraryCall {
                comm,
                root,
                buf,
                buffers,
            }),
            Runner::Arrival { comm, segsize } => exec_arrival::run(comm, root, buf, *segsize),
        }
    }

    /// Where block `block` of a reduce-scatter's vector of `m`-byte blocks
    /// lies in this rank's memory.
    pub(super) fn place(&self, block: u32, m: usize) -> std::ops::Range<usize> {
        match self {
            Runner::Own { places, .. } if !places.is_empty() => {
                let s = places[block as usize];
                s.start as usize..s.end as usize
            }
            _ => block as usize * m..(block as usize + 1) * m,
        }
    }

    /// Where a reduction's result is after [`Runner::execute`] (a
    /// reduce-scatter's: this rank's block).
    pub(super) fn reduced<'a>(&self, buf: &'a [u8], buffers: &'a Buffers) -> &'a [u8] {
        let (rank, procs) = (self.comm().rank() as u32, self.comm().size() as usize);
        match self {
            Runner::Library { collective, .. } => {
                harness::of(*collective).library_result(buf, buffers, procs)
            }
            // Our schedules combine in place.
            Runner::Own { places, .. } if !places.is_empty() => {
                &buf[self.place(rank, buf.len() / procs)]
            }
            Runner::Own { .. } | Runner::Arrival { .. } => buf,
        }
    }
}

pub(super) fn spec(procs: u32, root: u32, point: &Point, collective: Collective) -> Spec {
    Spec {
        collective,
        algorithm: point.candidate.algorithm,
        procs,
        root,
        msg_bytes: point.msg_bytes,
        segsize: point.candidate.segsize.unwrap_or(0),
        fanout: point.candidate.fanout,
    }
}

/// Memory allocated as Open MPI's algorithm allocates it (`buffers`, in
/// order, from the C allocator, as Open MPI's `malloc`): the allocations
/// and page faults it pays on fresh memory. A copy of the start of `buf`
/// is made as Open MPI makes it; memory the algorithm writes gets one
/// byte per page, as ours writes the same bytes elsewhere (already
/// faulted in). Freed by the caller after the call.
pub(super) fn working_memory(buffers: &[Working], buf: &[u8]) -> Vec<Vec<u8>> {
    // The smallest page of Linux on x86-64 and aarch64: larger pages get
    // more writes than needed, each cheap next to a fault.
    const PAGE: usize = 4096;
    buffers
        .iter()
        .map(|w| {
            let n = w.bytes as usize;
            let mut v = Vec::with_capacity(n);
            match w.copy {
                true => v.extend_from_slice(&buf[..n.min(buf.len())]),
                false => v
                    .spare_capacity_mut()
                    .iter_mut()
                    .step_by(PAGE)
                    .for_each(|b| {
                        b.write(0);
                    }),
            }
            std::hint::black_box(v)
        })
        .collect()
}

pub(super) fn describe(c: &Candidate) -> String {
    let mut s = c.algorithm.name().to_string();
    if let Some(seg) = c.segsize {
        s += &format!(" segsize {seg}");
    }
    if let Some(f) = c.fanout {
        s += &format!(" fanout {f}");
    }
    s + &format!(" ({})", c.implementation)
}
