//! The cost model: times the simulator adds and compares, and what a
//! message costs on each channel.

use crate::data::Placement;
use std::fmt;

/// A point in time that the simulator can add to and compare: µs as `f64`,
/// or a symbolic time (see the module docs).
pub trait Time: Copy + fmt::Debug {
    fn zero() -> Self;
    /// The time in µs.
    fn value(&self) -> f64;
    fn plus(self, other: Self) -> Self;
    /// `k` times this time (extrapolations weigh simulated runs).
    fn scale(self, k: f64) -> Self;
    /// The later of two times (the first on a tie).
    fn later(self, other: Self) -> Self {
        if other.value() > self.value() {
            other
        } else {
            self
        }
    }
}

impl Time for f64 {
    fn zero() -> f64 {
        0.0
    }
    fn value(&self) -> f64 {
        *self
    }
    fn plus(self, other: f64) -> f64 {
        self + other
    }
    fn scale(self, k: f64) -> f64 {
        k * self
    }
}

/// What a message costs: the part that keeps the sender busy, and the part
/// that overlaps with other messages in flight.
pub trait Cost {
    type Time: Time;
    fn transfer(
        &self,
        placement: &Placement,
        from: u32,
        to: u32,
        bytes: u64,
    ) -> (Self::Time, Self::Time);
    /// What combining `bytes` of partial results costs the rank doing it.
    fn combine(&self, bytes: u64) -> Self::Time;
}

/// One channel's cost parameters (see the module docs).
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Link {
    pub send_us: f64,
    pub send_us_per_byte: f64,
    pub wire_us: f64,
    pub wire_us_per_byte: f64,
    #[serde(default)]
    pub far_us_per_byte: f64,
}

impl Link {
    /// Hockney α + β·b with the sender busy all along (one port).
    pub const fn serialized(alpha_us: f64, beta_us_per_byte: f64) -> Link {
        Link {
            send_us: alpha_us,
            send_us_per_byte: beta_us_per_byte,
            wire_us: 0.0,
            wire_us_per_byte: 0.0,
            far_us_per_byte: 0.0,
        }
    }

    /// Hockney α + β·b with any number of messages in flight at once.
    pub const fn overlapped(alpha_us: f64, beta_us_per_byte: f64) -> Link {
        Link {
            send_us: 0.0,
            send_us_per_byte: 0.0,
            wire_us: alpha_us,
            wire_us_per_byte: beta_us_per_byte,
            far_us_per_byte: 0.0,
        }
    }

    /// Time of one message alone on the channel between neighbours.
    pub fn time_us(&self, bytes: u64) -> f64 {
        let b = bytes as f64;
        self.send_us + self.send_us_per_byte * b + self.wire_us + self.wire_us_per_byte * b
    }

    /// (sender's busy time, time in flight) of a message `doublings` apart.
    pub fn parts_us(&self, bytes: u64, doublings: f64) -> (f64, f64) {
        let b = bytes as f64;
        (
            self.send_us + self.send_us_per_byte * b,
            self.wire_us + (self.wire_us_per_byte + self.far_us_per_byte * doublings) * b,
        )
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct CostModel {
    /// Within a node.
    pub shm: Link,
    /// Across nodes.
    pub net: Link,
    /// Combining partial results (reductions), per byte.
    #[serde(default)]
    pub combine_us_per_byte: f64,
}

impl CostModel {
    /// Every transfer takes one step and sends overlap: start times count
    /// stages.
    pub const UNIT_STEPS: CostModel = CostModel {
        shm: Link::overlapped(1.0, 0.0),
        net: Link::overlapped(1.0, 0.0),
        combine_us_per_byte: 0.0,
    };

    pub fn link(&self, cross_node: bool) -> &Link {
        if cross_node {
            &self.net
        } else {
            &self.shm
        }
    }
}

impl Cost for CostModel {
    type Time = f64;
    fn transfer(&self, placement: &Placement, from: u32, to: u32, bytes: u64) -> (f64, f64) {
        let link = self.link(placement.crosses_nodes(from, to));
        link.parts_us(bytes, placement.doublings_apart(from, to))
    }
    fn combine(&self, bytes: u64) -> f64 {
        self.combine_us_per_byte * bytes as f64
    }
}
