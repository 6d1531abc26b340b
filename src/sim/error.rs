//! What the simulator proves wrong: a message never received, bytes not
//! held, a deadlock, a reduction that combines a contribution twice.

use super::partials::Clash;
use crate::schedule::Span;
use std::fmt;

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
    /// A reduction's bytes could not be combined or stored.
    Combine {
        rank: u32,
        bytes: Span,
        clash: Clash,
    },
    /// A barrier's rank ends without having heard (through any chain of
    /// messages) from a rank: it could leave before that rank entered.
    LeftEarly { rank: u32, unheard: u32 },
    /// A reduction's root ends without every contribution, or another rank
    /// ends holding a partial result it never passed on.
    Unfinished {
        rank: u32,
        bytes: Span,
        contributions: u32,
    },
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
            SimError::Combine { rank, bytes, clash } => match clash {
                Clash::Uncovered => write!(f, "rank {rank} uses {bytes} before holding them"),
                Clash::Occupied => write!(f, "rank {rank} overwrites {bytes}, which it holds"),
                Clash::Twice(c) => write!(
                    f,
                    "rank {rank} combines rank {c}'s contribution to {bytes} twice"
                ),
                Clash::OutOfOrder => {
                    write!(f, "rank {rank} combines {bytes} out of rank order")
                }
            },
            SimError::Unfinished {
                rank,
                bytes,
                contributions,
            } => write!(
                f,
                "rank {rank} ends with {contributions} contributions combined in {bytes}"
            ),
            SimError::LeftEarly { rank, unheard } => write!(
                f,
                "rank {rank} leaves without having heard from rank {unheard}: it could leave \
                 before rank {unheard} entered"
            ),
        }
    }
}

impl std::error::Error for SimError {}
