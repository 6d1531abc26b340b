//! Executes a [`Schedule`] under a per-channel cost model: proves delivery
//! (every rank ends with every byte exactly once, nobody forwards bytes it
//! does not hold, no unmatched message, no deadlock), returns per-rank
//! completion times, and exposes the stage structure the analytical models
//! use.
//!
//! Timing model: a message over channel c (shared memory within a node,
//! network across nodes) takes α_c + β_c·bytes. Posting costs nothing.
//! Sends are eager: a send completes when its transfer ends, whether or not
//! the receive was posted; a receive completes at max(arrival, posting). With
//! `serialize_sends` each rank's sends leave one after another (one port),
//! otherwise concurrently. Ranks interact only through messages, so each rank
//! runs until it waits for a message that has not been sent yet; no global
//! event queue is needed.

pub mod campaign;
mod stages;

use crate::data::Placement;
use crate::schedule::{Op, Schedule, Span};

/// Rank programs to execute: a [`Schedule`], or in tests a hand-made one.
pub trait Programs {
    fn procs(&self) -> u32;
    fn root(&self) -> u32;
    fn msg_bytes(&self) -> u64;
    fn ops(&self, rank: u32) -> Vec<Op>;
}

impl Programs for Schedule {
    fn procs(&self) -> u32 {
        self.spec.procs
    }
    fn root(&self) -> u32 {
        self.spec.root
    }
    fn msg_bytes(&self) -> u64 {
        self.spec.msg_bytes
    }
    fn ops(&self, rank: u32) -> Vec<Op> {
        Schedule::ops(self, rank)
    }
}
pub use stages::{stage_structure, Nbft, Stage, StageStructure};
use std::collections::VecDeque;
use std::fmt;

/// Hockney cost of one point-to-point message on one channel.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Link {
    pub alpha_us: f64,
    pub beta_us_per_byte: f64,
}

impl Link {
    pub fn time_us(&self, bytes: u64) -> f64 {
        self.alpha_us + self.beta_us_per_byte * bytes as f64
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CostModel {
    /// Within a node.
    pub shm: Link,
    /// Across nodes.
    pub net: Link,
    pub serialize_sends: bool,
}

impl CostModel {
    /// Unit-latency, zero-bandwidth-cost, concurrent sends: every transfer
    /// takes one step, so start times count stages.
    pub const UNIT_STEPS: CostModel = CostModel {
        shm: Link {
            alpha_us: 1.0,
            beta_us_per_byte: 0.0,
        },
        net: Link {
            alpha_us: 1.0,
            beta_us_per_byte: 0.0,
        },
        serialize_sends: false,
    };
}

/// What went wrong; any of these means the schedule is wrong.
#[derive(Clone, Debug, PartialEq)]
pub enum SimError {
    /// Ranks left waiting for messages nobody sends: (rank, peer waited on).
    Deadlock(Vec<(u32, u32)>),
    /// A message sent but never received.
    UnmatchedSend { from: u32, to: u32, bytes: Span },
    /// A posted receive matched a message of different bytes.
    Mismatch {
        from: u32,
        to: u32,
        sent: Span,
        expected: Span,
    },
    /// A rank sent bytes it had not received (yet).
    SendsUnheld { rank: u32, bytes: Span },
    /// A rank received some bytes twice.
    Duplicate { rank: u32, bytes: Span },
    /// A rank ended without some bytes.
    Missing { rank: u32, held: u64, expected: u64 },
    /// A wait with nothing to wait for, or a receive never waited for.
    BadWait { rank: u32, what: &'static str },
}

impl fmt::Display for SimError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SimError::Deadlock(w) => {
                let list: Vec<String> = w
                    .iter()
                    .take(8)
                    .map(|(r, p)| format!("rank {r} waits for rank {p}"))
                    .collect();
                write!(f, "deadlock: {}", list.join(", "))
            }
            SimError::UnmatchedSend { from, to, bytes } => {
                write!(
                    f,
                    "rank {from} sent {bytes} to rank {to}, which never received it"
                )
            }
            SimError::Mismatch {
                from,
                to,
                sent,
                expected,
            } => write!(
                f,
                "rank {to} expected {expected} from rank {from} but it sent {sent}"
            ),
            SimError::SendsUnheld { rank, bytes } => {
                write!(f, "rank {rank} sends {bytes} before holding those bytes")
            }
            SimError::Duplicate { rank, bytes } => {
                write!(f, "rank {rank} received {bytes} more than once")
            }
            SimError::Missing {
                rank,
                held,
                expected,
            } => write!(f, "rank {rank} ends with {held} of {expected} bytes"),
            SimError::BadWait { rank, what } => write!(f, "rank {rank}: {what}"),
        }
    }
}

impl std::error::Error for SimError {}

/// Sends posted together by one rank before it waits: a flat-tree fan-out.
#[derive(Clone, Debug, PartialEq)]
pub struct SendGroup {
    pub sender: u32,
    pub posted_us: f64,
    pub receivers: Vec<u32>,
    pub bytes: u64,
}

#[derive(Clone, Debug, Default)]
pub struct Outcome {
    /// Time each rank finished its last operation.
    pub completion_us: Vec<f64>,
    /// Filled only when asked for (it can be large).
    pub groups: Vec<SendGroup>,
}

impl Outcome {
    /// The broadcast's time: the last rank to finish.
    pub fn makespan_us(&self) -> f64 {
        self.completion_us.iter().copied().fold(0.0, f64::max)
    }
}

/// Simulates and verifies; see the module docs for the timing model.
pub fn simulate(
    schedule: &dyn Programs,
    placement: &Placement,
    cost: &CostModel,
) -> Result<Outcome, SimError> {
    Simulator::new(schedule, placement, cost, false).run()
}

/// Like [`simulate`], also recording every send group.
pub fn simulate_recording(
    schedule: &dyn Programs,
    placement: &Placement,
    cost: &CostModel,
) -> Result<Outcome, SimError> {
    Simulator::new(schedule, placement, cost, true).run()
}

/// A message in flight, waiting to be matched with a receive.
#[derive(Clone, Copy, Debug)]
struct Message {
    bytes: Span,
    arrival_us: f64,
}

/// A posted receive; `done_us` is set once matched.
#[derive(Clone, Copy, Debug)]
struct RecvSlot {
    peer: u32,
    bytes: Span,
    posted_us: f64,
    done_us: Option<f64>,
}

/// Messages from one peer, in order, and receives posted for it, in order.
#[derive(Debug, Default)]
struct Inbox {
    peer: u32,
    unmatched_msgs: VecDeque<Message>,
    /// Indices into the rank's slots, oldest first.
    unmatched_slots: VecDeque<usize>,
}

#[derive(Debug, Default)]
struct RankState {
    started: bool,
    ops: Vec<Op>,
    pc: usize,
    clock: f64,
    port_free: f64,
    sends_done: f64,
    slots: Vec<RecvSlot>,
    /// Posted receives not yet waited for, oldest first (indices into slots).
    pending: VecDeque<usize>,
    inboxes: Vec<Inbox>,
    held: Intervals,
    open_group: Option<SendGroup>,
    /// The posted request of a blocking receive still waiting.
    blocked_on: Option<usize>,
    /// Whether the rank is in the run queue.
    queued: bool,
}

impl RankState {
    fn inbox(&mut self, peer: u32) -> &mut Inbox {
        let i = match self.inboxes.iter().position(|i| i.peer == peer) {
            Some(i) => i,
            None => {
                self.inboxes.push(Inbox {
                    peer,
                    ..Inbox::default()
                });
                self.inboxes.len() - 1
            }
        };
        &mut self.inboxes[i]
    }
}

struct Simulator<'a> {
    schedule: &'a dyn Programs,
    placement: &'a Placement,
    cost: &'a CostModel,
    record: bool,
    ranks: Vec<RankState>,
    runnable: VecDeque<u32>,
    groups: Vec<SendGroup>,
}

impl<'a> Simulator<'a> {
    fn new(
        schedule: &'a dyn Programs,
        placement: &'a Placement,
        cost: &'a CostModel,
        record: bool,
    ) -> Self {
        let mut ranks: Vec<RankState> = (0..schedule.procs())
            .map(|_| RankState::default())
            .collect();
        let root = &mut ranks[schedule.root() as usize];
        root.queued = true;
        root.held.insert(Span {
            start: 0,
            end: schedule.msg_bytes(),
        });
        Simulator {
            schedule,
            placement,
            cost,
            record,
            ranks,
            runnable: VecDeque::from([schedule.root()]),
            groups: Vec::new(),
        }
    }

    fn run(mut self) -> Result<Outcome, SimError> {
        while let Some(rank) = self.runnable.pop_front() {
            self.ranks[rank as usize].queued = false;
            self.step(rank)?;
        }
        self.finish()
    }

    /// Runs `rank` until it finishes or waits for an unsent message.
    fn step(&mut self, rank: u32) -> Result<(), SimError> {
        let r = rank as usize;
        if !self.ranks[r].started {
            self.ranks[r].started = true;
            self.ranks[r].ops = self.schedule.ops(rank);
        }
        while let Some(&op) = self.ranks[r].ops.get(self.ranks[r].pc) {
            match op {
                Op::Isend { peer, bytes } => self.send(rank, peer, bytes, false)?,
                Op::Send { peer, bytes } => self.send(rank, peer, bytes, true)?,
                Op::WaitSends => {
                    let s = &mut self.ranks[r];
                    s.clock = s.clock.max(s.sends_done);
                    self.close_group(rank);
                }
                Op::Irecv { peer, bytes } => {
                    let slot = self.post_recv(rank, peer, bytes)?;
                    self.ranks[r].pending.push_back(slot);
                }
                Op::Recv { peer, bytes } => {
                    // A blocking receive: post it once, then wait on that request.
                    let slot = match self.ranks[r].blocked_on.take() {
                        Some(slot) => slot,
                        None => self.post_recv(rank, peer, bytes)?,
                    };
                    if !self.complete_recv(rank, slot)? {
                        self.ranks[r].blocked_on = Some(slot);
                        return Ok(());
                    }
                }
                Op::WaitRecv => {
                    let Some(&slot) = self.ranks[r].pending.front() else {
                        return Err(SimError::BadWait {
                            rank,
                            what: "waits for a receive it never posted",
                        });
                    };
                    if !self.complete_recv(rank, slot)? {
                        return Ok(());
                    }
                    self.ranks[r].pending.pop_front();
                }
            }
            self.ranks[r].pc += 1;
        }
        self.close_group(rank);
        Ok(())
    }

    fn send(&mut self, from: u32, to: u32, bytes: Span, blocking: bool) -> Result<(), SimError> {
        let s = &mut self.ranks[from as usize];
        if !s.held.contains(bytes) {
            return Err(SimError::SendsUnheld { rank: from, bytes });
        }
        let link = if self.placement.crosses_nodes(from, to) {
            &self.cost.net
        } else {
            &self.cost.shm
        };
        let start = if self.cost.serialize_sends {
            s.clock.max(s.port_free)
        } else {
            s.clock
        };
        let end = start + link.time_us(bytes.len());
        s.port_free = end;
        s.sends_done = s.sends_done.max(end);
        if self.record {
            match &mut s.open_group {
                Some(g) if g.posted_us == s.clock => g.receivers.push(to),
                _ => {
                    let old = s.open_group.replace(SendGroup {
                        sender: from,
                        posted_us: s.clock,
                        receivers: vec![to],
                        bytes: bytes.len(),
                    });
                    self.groups.extend(old);
                }
            }
        }
        if blocking {
            s.clock = s.clock.max(end);
            self.close_group(from);
        }
        self.deliver(
            from,
            to,
            Message {
                bytes,
                arrival_us: end,
            },
        )
    }

    fn close_group(&mut self, rank: u32) {
        if let Some(g) = self.ranks[rank as usize].open_group.take() {
            self.groups.push(g);
        }
    }

    /// Hands a message to its receiver: matches the oldest receive posted for
    /// this sender, or queues it. Wakes the receiver if that may unblock it.
    fn deliver(&mut self, from: u32, to: u32, msg: Message) -> Result<(), SimError> {
        let receiver = &mut self.ranks[to as usize];
        let inbox = receiver.inbox(from);
        match inbox.unmatched_slots.pop_front() {
            Some(slot) => {
                let slot = &mut receiver.slots[slot];
                if slot.bytes != msg.bytes {
                    return Err(SimError::Mismatch {
                        from,
                        to,
                        sent: msg.bytes,
                        expected: slot.bytes,
                    });
                }
                slot.done_us = Some(msg.arrival_us.max(slot.posted_us));
            }
            None => inbox.unmatched_msgs.push_back(msg),
        }
        if !receiver.queued {
            receiver.queued = true;
            self.runnable.push_back(to);
        }
        Ok(())
    }

    /// Posts a receive, matching an already queued message if there is one.
    fn post_recv(&mut self, rank: u32, peer: u32, bytes: Span) -> Result<usize, SimError> {
        let s = &mut self.ranks[rank as usize];
        let index = s.slots.len();
        let clock = s.clock;
        let inbox = s.inbox(peer);
        let done_us = match inbox.unmatched_msgs.pop_front() {
            Some(msg) if msg.bytes != bytes => {
                return Err(SimError::Mismatch {
                    from: peer,
                    to: rank,
                    sent: msg.bytes,
                    expected: bytes,
                })
            }
            Some(msg) => Some(msg.arrival_us.max(clock)),
            None => {
                inbox.unmatched_slots.push_back(index);
                None
            }
        };
        s.slots.push(RecvSlot {
            peer,
            bytes,
            posted_us: clock,
            done_us,
        });
        Ok(index)
    }

    /// Completes a receive if its message came: advances the clock and takes
    /// the bytes. Returns false if the rank must wait.
    fn complete_recv(&mut self, rank: u32, slot: usize) -> Result<bool, SimError> {
        let s = &mut self.ranks[rank as usize];
        let RecvSlot { bytes, done_us, .. } = s.slots[slot];
        let Some(done) = done_us else {
            return Ok(false);
        };
        s.clock = s.clock.max(done);
        self.close_group(rank);
        let s = &mut self.ranks[rank as usize];
        if !s.held.insert(bytes) {
            return Err(SimError::Duplicate { rank, bytes });
        }
        Ok(true)
    }

    fn finish(mut self) -> Result<Outcome, SimError> {
        let m = self.schedule.msg_bytes();
        let mut waiting = Vec::new();
        for rank in 0..self.schedule.procs() {
            let s = &mut self.ranks[rank as usize];
            if !s.started {
                // Never reached by any message: fine only if it has nothing to do.
                s.ops = self.schedule.ops(rank);
            }
            if let Some(op) = s.ops.get(s.pc) {
                let peer = match *op {
                    Op::Recv { peer, .. } | Op::Irecv { peer, .. } => peer,
                    _ => s.pending.front().map_or(rank, |&i| s.slots[i].peer),
                };
                waiting.push((rank, peer));
            }
        }
        if !waiting.is_empty() {
            return Err(SimError::Deadlock(waiting));
        }
        for (rank, s) in self.ranks.iter().enumerate() {
            if !s.pending.is_empty() {
                return Err(SimError::BadWait {
                    rank: rank as u32,
                    what: "posted a receive it never waited for",
                });
            }
            for inbox in &s.inboxes {
                if let Some(msg) = inbox.unmatched_msgs.front() {
                    return Err(SimError::UnmatchedSend {
                        from: inbox.peer,
                        to: rank as u32,
                        bytes: msg.bytes,
                    });
                }
            }
            if s.held.total() != m || !s.held.contains(Span { start: 0, end: m }) {
                return Err(SimError::Missing {
                    rank: rank as u32,
                    held: s.held.total(),
                    expected: m,
                });
            }
        }
        Ok(Outcome {
            completion_us: self.ranks.iter().map(|s| s.clock).collect(),
            groups: self.groups,
        })
    }
}

/// Disjoint byte ranges, sorted, adjacent ones merged.
#[derive(Clone, Debug, Default)]
struct Intervals(Vec<Span>);

impl Intervals {
    /// Adds `s`; false if it overlaps what is already there.
    fn insert(&mut self, s: Span) -> bool {
        if s.is_empty() {
            return true;
        }
        let v = &mut self.0;
        // Index of the first range ending after s starts.
        let i = v.partition_point(|r| r.end <= s.start);
        if i < v.len() && v[i].start < s.end {
            return false;
        }
        let joins_left = i > 0 && v[i - 1].end == s.start;
        let joins_right = i < v.len() && v[i].start == s.end;
        match (joins_left, joins_right) {
            (true, true) => {
                v[i - 1].end = v[i].end;
                v.remove(i);
            }
            (true, false) => v[i - 1].end = s.end,
            (false, true) => v[i].start = s.start,
            (false, false) => v.insert(i, s),
        }
        true
    }

    fn contains(&self, s: Span) -> bool {
        if s.is_empty() {
            return true;
        }
        let i = self.0.partition_point(|r| r.end <= s.start);
        i < self.0.len() && self.0[i].start <= s.start && s.end <= self.0[i].end
    }

    fn total(&self) -> u64 {
        self.0.iter().map(Span::len).sum()
    }
}

#[cfg(test)]
mod tests;
