//! The pictures of what `tune` ships for one collective, linked from its
//! report: the speed-up of the rules over `default` per message size (a
//! line per communicator size; kept switches with their 95% intervals,
//! every other size at exactly 1) and the map of the decisions shipped
//! (procs × message size, coloured by algorithm, `default` grey). Each is
//! written as PNG (what the report links: every Markdown viewer shows it)
//! and SVG.

use super::plots::{
    algorithm_legend, by_size, distinct, err, legend, map_panel, marked_line, write_figure, Drawn,
    Figure, Points, DISTINCT,
};
use crate::bench::stats::Speedup;
use crate::data::Algorithm;
use crate::error::Result;
use crate::select::decision::DecisionTable;
use crate::select::validation::Validation;
use plotters::coord::Shift;
use plotters::prelude::*;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// What one collective ships.
pub struct Shipment<'a> {
    /// "MPI_Bcast".
    pub function: &'a str,
    /// The decisions as shipped, one table per communicator size.
    pub tables: &'a [DecisionTable],
    /// Its validated switches.
    pub validations: &'a [Validation],
}

impl Shipment<'_> {
    /// The message sizes decided, ascending.
    fn sizes(&self) -> Vec<u64> {
        distinct(
            self.tables
                .iter()
                .flat_map(|t| t.decisions.iter().map(|d| d.msg_bytes)),
        )
    }
}

/// The PNG files written (`None`: a picture that would tell nothing).
#[derive(Clone, Debug, Default)]
pub struct Pictures {
    pub speedup: Option<PathBuf>,
    pub decisions: Option<PathBuf>,
}

/// Writes the pictures worth drawing into `dir` (created if missing): the
/// decision map, and the speed-up where there are two message sizes or
/// more. The caller draws only what ships a switch: a map of `default`
/// everywhere tells nothing.
pub fn write(shipped: &Shipment, dir: &Path) -> Result<Pictures> {
    let mut pictures = Pictures::default();
    if shipped.sizes().len() >= 2 {
        let [png, _svg] =
            write_figure(dir, "shipped_speedup", (1000, 560), &SpeedupFigure(shipped))?;
        pictures.speedup = Some(png);
    }
    let procs = shipped.tables.len() as u32;
    let height = (150 + 50 * procs).clamp(260, 720);
    let [png, _svg] = write_figure(dir, "shipped_decisions", (900, height), &MapFigure(shipped))?;
    pictures.decisions = Some(png);
    Ok(pictures)
}

/// The speed-up over `default` of what a table ships at each of its
/// message sizes: a kept switch's validated speed-up, else exactly 1.
pub fn shipped_speedups(table: &DecisionTable, validations: &[Validation]) -> Vec<(u64, Speedup)> {
    table
        .decisions
        .iter()
        .map(|d| {
            let validated = validations.iter().find(|v| {
                v.procs == table.job.procs
                    && v.msg_bytes == d.msg_bytes
                    && v.decision == d.choice.candidate
            });
            (
                d.msg_bytes,
                validated.map_or(Speedup::UNCHANGED, Validation::shipped),
            )
        })
        .collect()
}

struct SpeedupFigure<'a>(&'a Shipment<'a>);

impl Figure for SpeedupFigure<'_> {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Drawn {
        let shipped = self.0;
        root.fill(&WHITE).map_err(err)?;
        let sizes = shipped.sizes();
        // Largest communicator first, as the report's tables.
        let mut tables: Vec<&DecisionTable> = shipped.tables.iter().collect();
        tables.sort_by_key(|t| std::cmp::Reverse(t.job.procs));
        let lines: Vec<(u32, Vec<(f64, Speedup)>)> = tables
            .iter()
            .map(|t| {
                let points = shipped_speedups(t, shipped.validations)
                    .into_iter()
                    .map(|(m, s)| (sizes.binary_search(&m).unwrap_or(0) as f64, s))
                    .collect();
                (t.job.procs, points)
            })
            .collect();
        let all = lines.iter().flat_map(|(_, p)| p.iter().map(|(_, s)| s));
        let (low, high) = all.fold((1.0f64, 1.0f64), |(l, h), s| (l.min(s.low), h.max(s.high)));
        let caption = format!(
            "{}: default's time / the rules' time (validated, 95% intervals)",
            shipped.function
        );
        let mut chart = by_size(root, &caption, &sizes, (low, high), "speed-up over default")?;
        // `default` itself: exactly 1.
        let ends = [(-0.2, 1.0), (sizes.len() as f64 - 0.8, 1.0)];
        chart
            .draw_series(LineSeries::new(ends, DISTINCT[0].stroke_width(1)))
            .map_err(err)?;
        for (i, (procs, points)) in lines.iter().enumerate() {
            // Past the grey of `default`.
            let style = DISTINCT[1 + i % (DISTINCT.len() - 1)];
            let line: Points = points.iter().map(|(x, s)| (*x, s.speedup)).collect();
            let label = format!("{procs} ranks");
            marked_line(
                &mut chart,
                &line,
                style.stroke_width(2),
                style.filled(),
                3,
                &label,
            )?;
            let bars = points.iter().filter(|(_, s)| s.rounds > 0).map(|(x, s)| {
                ErrorBar::new_vertical(*x, s.low, s.speedup, s.high, style.stroke_width(2), 10)
            });
            chart.draw_series(bars).map_err(err)?;
        }
        legend(&mut chart)
    }
}

struct MapFigure<'a>(&'a Shipment<'a>);

impl Figure for MapFigure<'_> {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Drawn {
        let shipped = self.0;
        root.fill(&WHITE).map_err(err)?;
        let cells: BTreeMap<(u32, u64), Algorithm> = shipped
            .tables
            .iter()
            .flat_map(|t| {
                t.decisions
                    .iter()
                    .map(|d| ((t.job.procs, d.msg_bytes), d.choice.candidate.algorithm))
            })
            .collect();
        let (body, side) = root.split_horizontally(root.dim_in_pixel().0 as i32 - 190);
        let keys: Vec<(u32, u64)> = cells.keys().copied().collect();
        let title = format!("{}: what the rules ship", shipped.function);
        map_panel(&body, &title, &keys, &cells)?;
        algorithm_legend(&side, &cells.values().copied().collect())
    }
}
