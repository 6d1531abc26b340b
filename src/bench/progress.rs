//! The progress bar of a campaign (rank 0, on a terminal).

use super::points::Point;
use super::runner::describe;
use crate::units::format_bytes;
use indicatif::{ProgressBar, ProgressStyle};
use std::cell::Cell;
use std::io::IsTerminal;
use std::time::{Duration, Instant};

/// Progress on rank 0: a bar with ETA on a terminal; under mpirun, whose
/// output is a pipe, a line every ten seconds instead.
pub(super) struct Progress {
    bar: Option<ProgressBar>,
    /// Plain lines: (points done, time of the last line).
    plain: Option<Cell<(usize, Instant)>>,
    total: usize,
    started: Instant,
}

impl Progress {
    pub(super) fn new(show: bool, total: usize) -> Progress {
        let terminal = std::io::stderr().is_terminal();
        let bar = (show && terminal).then(|| {
            ProgressBar::new(total as u64).with_style(
                ProgressStyle::with_template(
                    "{elapsed_precise} [{bar:30}] {pos}/{len} points, ETA {eta} {msg}",
                )
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
            )
        });
        let started = Instant::now();
        Progress {
            bar,
            plain: (show && !terminal).then(|| Cell::new((0, started))),
            total,
            started,
        }
    }

    pub(super) fn start(&self, point: &Point) {
        if let Some(bar) = &self.bar {
            bar.set_message(format!(
                "{} {}",
                format_bytes(point.msg_bytes),
                describe(&point.candidate)
            ));
        }
    }

    /// A line that stays above the bar.
    pub(super) fn note(&self, line: &str) {
        match &self.bar {
            Some(bar) => bar.println(line),
            None => eprintln!("{line}"),
        }
    }

    pub(super) fn finish_point(&self) {
        if let Some(bar) = &self.bar {
            bar.inc(1);
        }
        if let Some(plain) = &self.plain {
            let (done, last) = plain.get();
            let done = done + 1;
            let now = Instant::now();
            if now - last >= Duration::from_secs(10) {
                let elapsed = (now - self.started).as_secs_f64();
                let eta = elapsed / done as f64 * (self.total - done) as f64;
                eprintln!(
                    "bench: {done}/{} points, {:.0} s elapsed, ETA {:.0} s",
                    self.total, elapsed, eta
                );
                plain.set((done, now));
            } else {
                plain.set((done, last));
            }
        }
    }

    pub(super) fn done(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
