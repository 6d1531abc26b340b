//! Evaluation plots (plotters), each written as PNG and SVG:
//!
//! - `decision_map`: test configurations as cells, procs × message size,
//!   coloured by the algorithm chosen — oracle, default and auto side by side;
//! - `speedup_by_size`: geometric-mean speed-up over default at each message
//!   size, one line per selector;
//! - `predicted_vs_measured`: the time the auto and analytical selectors
//!   predicted for their pick against its measured time (log-log).

use crate::data::{Algorithm, Mapping};
use crate::error::{Error, Result};
use crate::evaluate::{ConfigResult, Report};
use crate::report::imbalance::{Panel, Series};
use crate::units::format_bytes;
use plotters::coord::types::RangedCoordf64;
use plotters::coord::{CoordTranslate, Shift};
use plotters::prelude::*;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

pub(super) type Drawn = std::result::Result<(), String>;
/// (x, y) points of one line or scatter.
pub(super) type Points = Vec<(f64, f64)>;

/// A picture plotters can draw on any backend.
pub(super) trait Figure {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Drawn;
}

/// Writes every evaluation plot into `dir` (created if missing); returns
/// the files.
pub fn write(report: &Report, dir: &Path) -> Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for (name, size) in [
        ("decision_map", (1500, 560)),
        ("speedup_by_size", (1000, 620)),
        ("predicted_vs_measured", (760, 700)),
    ] {
        files.extend(write_figure(dir, name, size, &Evaluation { name, report })?);
    }
    Ok(files)
}

/// Writes one line plot per arrival panel (time vs imbalance factor).
pub fn write_arrival(panels: &[Panel], dir: &Path) -> Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for p in panels {
        files.extend(write_figure(dir, &p.stem(), (1000, 640), p)?);
    }
    Ok(files)
}

/// The font every plot's text is drawn in, carried in the binary: a compute
/// node or a container without fonts (or without fontconfig) draws the same
/// plots as a desktop.
pub(super) const FONT: &str = "sans-serif";

/// Registers [`FONT`] with plotters, once per process.
fn register_font() -> std::result::Result<(), String> {
    static REGISTERED: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    let ok = *REGISTERED.get_or_init(|| {
        plotters::style::register_font(FONT, FontStyle::Normal, dejavu::sans::regular()).is_ok()
    });
    match ok {
        true => Ok(()),
        false => Err("the font the binary carries did not load".to_string()),
    }
}

/// `name`.png and `name`.svg in `dir` (created if missing).
pub(super) fn write_figure(
    dir: &Path,
    name: &str,
    size: (u32, u32),
    figure: &impl Figure,
) -> Result<[PathBuf; 2]> {
    std::fs::create_dir_all(dir)
        .map_err(|e| Error::io(format!("cannot create {}", dir.display()), e))?;
    let failed = |e: String| Error::Other(format!("cannot draw {name}: {e}"));
    register_font().map_err(failed)?;
    let png = dir.join(format!("{name}.png"));
    {
        let root = BitMapBackend::new(&png, size).into_drawing_area();
        figure.draw(&root).map_err(failed)?;
        root.present().map_err(|e| failed(err(e)))?;
    }
    let svg = dir.join(format!("{name}.svg"));
    {
        let root = SVGBackend::new(&svg, size).into_drawing_area();
        figure.draw(&root).map_err(failed)?;
        root.present().map_err(|e| failed(err(e)))?;
    }
    Ok([png, svg])
}

/// One of the evaluation plots.
struct Evaluation<'a> {
    name: &'a str,
    report: &'a Report,
}

impl Figure for Evaluation<'_> {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Drawn {
        match self.name {
            "decision_map" => decision_map(root, self.report),
            "speedup_by_size" => speedup_by_size(root, self.report),
            _ => predicted_vs_measured(root, self.report),
        }
    }
}

/// Mean per-rank time against the imbalance factor: per algorithm and
/// implementation the segment size with the smallest geometric mean over
/// the factors (the table has them all); colour per algorithm, hollow marks
/// for Open MPI's, the arrival-aware algorithm thick.
impl Figure for Panel {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Drawn {
        root.fill(&WHITE).map_err(err)?;
        let xs = &self.imbalances;
        let mut best: BTreeMap<(Algorithm, crate::data::Impl), (f64, &Series)> = BTreeMap::new();
        for s in &self.series {
            let logs: Vec<f64> = s.mean_us.iter().flatten().map(|t| t.ln()).collect();
            let score = logs.iter().sum::<f64>() / logs.len().max(1) as f64;
            let key = (s.candidate.algorithm, s.candidate.implementation);
            if best.get(&key).is_none_or(|(b, _)| score < *b) {
                best.insert(key, (score, s));
            }
        }
        let shown: Vec<&Series> = best.values().map(|(_, s)| *s).collect();
        let top = shown
            .iter()
            .flat_map(|s| s.mean_us.iter().flatten())
            .fold(0.0f64, |a, &b| a.max(b / 1e3));
        let mut chart = ChartBuilder::on(root)
            .caption(
                format!("{} (best segment size each)", self.title()),
                (FONT, 20),
            )
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(60)
            .build_cartesian_2d(-0.2f64..(xs.len() as f64 - 0.8).max(0.2), 0.0..top * 1.08)
            .map_err(err)?;
        let x_label = |x: &f64| category(*x, xs.len()).map_or(String::new(), |i| xs[i].to_string());
        chart
            .configure_mesh()
            .x_desc("imbalance factor X (delays in units of the point-to-point time)")
            .y_desc("mean per-rank time from own arrival (ms)")
            .x_labels(xs.len().min(12))
            .x_label_formatter(&x_label)
            .draw()
            .map_err(err)?;
        for s in shown {
            let style = colour(s.candidate.algorithm);
            let width = if s.candidate.algorithm == Algorithm::Arrival {
                4
            } else {
                2
            };
            let own = s.candidate.implementation == crate::data::Impl::Own;
            let points: Points = s
                .mean_us
                .iter()
                .enumerate()
                .filter_map(|(j, t)| t.map(|t| (j as f64, t / 1e3)))
                .collect();
            let mark = if own {
                style.filled()
            } else {
                style.stroke_width(2)
            };
            let label = s.candidate.to_string();
            marked_line(
                &mut chart,
                &points,
                style.stroke_width(width),
                mark,
                5,
                &label,
            )?;
        }
        legend(&mut chart)
    }
}

/// A labelled line through `points` with a `mark` circle at each point.
pub(super) fn marked_line<DB: DrawingBackend>(
    chart: &mut ChartContext<'_, DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>,
    points: &[(f64, f64)],
    line: ShapeStyle,
    mark: ShapeStyle,
    radius: u32,
    label: &str,
) -> Drawn {
    chart
        .draw_series(LineSeries::new(points.iter().copied(), line))
        .map_err(err)?
        .label(label)
        .legend(move |(x, y)| PathElement::new([(x, y), (x + 18, y)], line));
    chart
        .draw_series(points.iter().map(|&p| Circle::new(p, radius, mark)))
        .map_err(err)?;
    Ok(())
}

/// The series labels, boxed in the upper left corner.
pub(super) fn legend<'a, DB: DrawingBackend + 'a, CT: CoordTranslate>(
    chart: &mut ChartContext<'a, DB, CT>,
) -> Drawn {
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()
        .map_err(err)
}

/// The index `v` labels on an axis of `n` categories placed at 0, 1, ...:
/// none between them or outside.
pub(super) fn category(v: f64, n: usize) -> Option<usize> {
    let i = v.round();
    ((v - i).abs() < 1e-6 && i >= 0.0 && (i as usize) < n).then_some(i as usize)
}

pub(super) fn err<E: std::fmt::Debug>(e: E) -> String {
    format!("{e:?}")
}

/// Twenty colours that stay apart on a white page (Sasha Trubetskoy's list
/// of distinct colours, reordered so that the first ones go to the most
/// common algorithms), and a neutral grey for `default`.
pub(super) const DISTINCT: [RGBColor; 27] = [
    RGBColor(150, 150, 150),
    RGBColor(230, 25, 75),
    RGBColor(245, 130, 48),
    RGBColor(170, 110, 40),
    RGBColor(145, 30, 180),
    RGBColor(0, 130, 200),
    RGBColor(60, 180, 75),
    RGBColor(70, 240, 240),
    RGBColor(240, 50, 230),
    RGBColor(255, 225, 25),
    RGBColor(0, 0, 0),
    RGBColor(0, 0, 128),
    RGBColor(128, 128, 0),
    RGBColor(128, 0, 0),
    RGBColor(0, 128, 128),
    RGBColor(210, 245, 60),
    RGBColor(250, 190, 212),
    RGBColor(170, 255, 195),
    RGBColor(220, 190, 255),
    RGBColor(255, 215, 180),
    RGBColor(100, 100, 255),
    RGBColor(255, 120, 0),
    RGBColor(0, 190, 120),
    RGBColor(190, 0, 90),
    RGBColor(0, 100, 0),
    RGBColor(160, 82, 45),
    RGBColor(200, 170, 0),
];

/// A colour of its own for every algorithm, the same in every plot (so
/// maps of different datasets compare too): the list above, then (MPICH's
/// algorithms) hues a golden angle apart, darker than the list's.
pub(super) fn colour(a: Algorithm) -> RGBColor {
    let i = Algorithm::ALL.iter().position(|x| *x == a).unwrap_or(0);
    match DISTINCT.get(i) {
        Some(c) => *c,
        None => {
            let hue = ((i - DISTINCT.len()) as f64 * 137.508) % 360.0;
            let (r, g, b) = HSLColor(hue / 360.0, 0.7, 0.35).rgb();
            RGBColor(r, g, b)
        }
    }
}

/// Every selector a report can show, in the order of their colours: the
/// references, the analytical model and each learner, then `auto`.
fn selectors() -> Vec<String> {
    let mut names: Vec<String> = ["oracle", "default", "ompi-fixed", "naive"]
        .map(String::from)
        .to_vec();
    names.extend(
        crate::select::SelectorKind::all(&crate::learn::LearnerKind::ALL)
            .iter()
            .map(|k| k.to_string()),
    );
    names.push("auto".into());
    names
}

/// A colour of its own for every selector, the same in every plot:
/// `oracle` black, `default` grey, `auto` red, the others apart from them.
fn line_colour(selector: &str) -> RGBColor {
    // Indices into [`DISTINCT`], in the order of [`selectors`].
    const LINES: [usize; 14] = [10, 0, 12, 3, 5, 6, 4, 2, 14, 7, 8, 13, 11, 1];
    let names = selectors();
    // A selector this list does not know (none should be) takes one of
    // the colours no selector has.
    let i = names
        .iter()
        .position(|n| n == selector)
        .map_or(15 + selector.len() % 6, |i| LINES[i.min(LINES.len() - 1)]);
    DISTINCT[i]
}

/// The configurations one map shows: those of the most frequent mapping,
/// one per (procs, message size).
fn map_cells(report: &Report) -> (Mapping, BTreeMap<(u32, u64), &ConfigResult>) {
    let mut count: BTreeMap<Mapping, usize> = BTreeMap::new();
    for c in &report.configs {
        *count.entry(c.config.mapping).or_default() += 1;
    }
    let mapping = count
        .iter()
        .max_by_key(|(_, n)| **n)
        .map_or(Mapping::Core, |(m, _)| *m);
    let mut cells = BTreeMap::new();
    for c in report
        .configs
        .iter()
        .filter(|c| c.config.mapping == mapping)
    {
        cells
            .entry((c.config.procs, c.config.msg_bytes))
            .or_insert(c);
    }
    (mapping, cells)
}

fn decision_map<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, report: &Report) -> Drawn {
    root.fill(&WHITE).map_err(err)?;
    let (mapping, cells) = map_cells(report);
    let (body, legend) = root.split_horizontally(root.dim_in_pixel().0 as i32 - 190);
    let panels = body.split_evenly((1, 3));
    let mut shown: BTreeSet<Algorithm> = BTreeSet::new();
    let auto = format!(
        "auto = {}",
        report
            .auto
            .iter()
            .map(|k| k.to_string())
            .collect::<Vec<_>>()
            .join(" / ")
    );
    for (panel, selector) in panels.iter().zip(["oracle", "default", "auto"]) {
        let title = if selector == "auto" { &auto } else { selector };
        let picks: BTreeMap<(u32, u64), Algorithm> = cells
            .iter()
            .filter_map(|(k, c)| {
                let pick = c.picks.iter().find(|x| x.selector == selector)?;
                Some((*k, pick.candidate.algorithm))
            })
            .collect();
        shown.extend(picks.values());
        map_panel(
            panel,
            &format!("{title} (test configs, mapping {mapping})"),
            &cells.keys().copied().collect::<Vec<_>>(),
            &picks,
        )?;
    }
    algorithm_legend(&legend, &shown)
}

/// One map: a cell per (procs, message size) of `keys`, coloured by the
/// algorithm `cells` holds there (left blank where it holds none).
pub(super) fn map_panel<DB: DrawingBackend>(
    panel: &DrawingArea<DB, Shift>,
    title: &str,
    keys: &[(u32, u64)],
    cells: &BTreeMap<(u32, u64), Algorithm>,
) -> Drawn {
    let procs: Vec<u32> = distinct(keys.iter().map(|k| k.0));
    let sizes: Vec<u64> = distinct(keys.iter().map(|k| k.1));
    // Cell i spans [i − 0.5, i + 0.5]: the labels sit on the integers.
    let mut chart = ChartBuilder::on(panel)
        .caption(title, (FONT, 18))
        .margin(8)
        .x_label_area_size(40)
        .y_label_area_size(44)
        .build_cartesian_2d(
            -0.5f64..sizes.len() as f64 - 0.5,
            -0.5f64..procs.len() as f64 - 0.5,
        )
        .map_err(err)?;
    let size_label =
        |x: &f64| category(*x, sizes.len()).map_or(String::new(), |i| format_bytes(sizes[i]));
    let procs_label =
        |y: &f64| category(*y, procs.len()).map_or(String::new(), |i| procs[i].to_string());
    chart
        .configure_mesh()
        .disable_mesh()
        .x_desc("message size")
        .y_desc("procs")
        .x_labels(sizes.len().min(12))
        .y_labels(procs.len().min(20))
        .x_label_formatter(&size_label)
        .y_label_formatter(&procs_label)
        .draw()
        .map_err(err)?;
    for ((p, m), a) in cells {
        let x = sizes.binary_search(m).unwrap_or(0) as f64;
        let y = procs.binary_search(p).unwrap_or(0) as f64;
        chart
            .draw_series(std::iter::once(Rectangle::new(
                [(x - 0.47, y - 0.47), (x + 0.47, y + 0.47)],
                colour(*a).filled(),
            )))
            .map_err(err)?;
    }
    Ok(())
}

/// A colour box and the name of each algorithm of `shown`, top down.
pub(super) fn algorithm_legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    shown: &BTreeSet<Algorithm>,
) -> Drawn {
    for (i, a) in shown.iter().enumerate() {
        let y = 40 + 26 * i as i32;
        area.draw(&Rectangle::new(
            [(10, y), (28, y + 16)],
            colour(*a).filled(),
        ))
        .map_err(err)?;
        area.draw(&Text::new(a.name(), (36, y), (FONT, 16)))
            .map_err(err)?;
    }
    Ok(())
}

/// Geometric-mean speed-up over default of each selector at each size.
fn speedups(report: &Report) -> (Vec<u64>, Vec<(String, Points)>) {
    let sizes: Vec<u64> = report
        .configs
        .iter()
        .map(|c| c.config.msg_bytes)
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let lines = report
        .selectors
        .iter()
        .map(|s| {
            let points = sizes
                .iter()
                .enumerate()
                .filter_map(|(i, &m)| {
                    let logs: Vec<f64> = report
                        .configs
                        .iter()
                        .filter(|c| c.config.msg_bytes == m)
                        .filter_map(|c| {
                            let t = c.picks.iter().find(|p| p.selector == s.name)?.time_us?;
                            Some((c.t_default_us / t).ln())
                        })
                        .collect();
                    (!logs.is_empty()).then(|| {
                        (
                            i as f64,
                            (logs.iter().sum::<f64>() / logs.len() as f64).exp(),
                        )
                    })
                })
                .collect();
            (s.name.clone(), points)
        })
        .collect();
    (sizes, lines)
}

fn speedup_by_size<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, report: &Report) -> Drawn {
    root.fill(&WHITE).map_err(err)?;
    let (sizes, lines) = speedups(report);
    let top = lines
        .iter()
        .flat_map(|(_, p)| p.iter().map(|q| q.1))
        .fold(1.0f64, f64::max);
    let bottom = lines
        .iter()
        .flat_map(|(_, p)| p.iter().map(|q| q.1))
        .fold(1.0f64, f64::min);
    let mut chart = by_size(
        root,
        "speed-up over default by message size (geometric mean over test configs)",
        &sizes,
        (bottom, top),
        "t_default / t_pick",
    )?;
    for (name, points) in &lines {
        let style = line_colour(name);
        let width = if name == "auto" || name == "oracle" {
            3
        } else {
            1
        };
        marked_line(
            &mut chart,
            points,
            style.stroke_width(width),
            style.filled(),
            3,
            name,
        )?;
    }
    legend(&mut chart)
}

/// A chart over the message sizes `sizes` as categories (x) and `y` (its
/// range, padded by 5%), captioned and with its mesh drawn.
pub(super) fn by_size<'a, DB: DrawingBackend>(
    root: &'a DrawingArea<DB, Shift>,
    caption: &str,
    sizes: &[u64],
    (low, high): (f64, f64),
    y_desc: &str,
) -> std::result::Result<ChartContext<'a, DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>, String>
{
    let mut chart = ChartBuilder::on(root)
        .caption(caption, (FONT, 20))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(56)
        .build_cartesian_2d(
            -0.2f64..(sizes.len() as f64 - 0.8).max(0.2),
            (low * 0.95)..(high * 1.05),
        )
        .map_err(err)?;
    let size_label =
        |x: &f64| category(*x, sizes.len()).map_or(String::new(), |i| format_bytes(sizes[i]));
    chart
        .configure_mesh()
        .x_desc("message size")
        .y_desc(y_desc)
        .x_labels(sizes.len().min(12))
        .x_label_formatter(&size_label)
        .draw()
        .map_err(err)?;
    Ok(chart)
}

/// The distinct values of `items`, ascending.
pub(super) fn distinct<T: Ord>(items: impl Iterator<Item = T>) -> Vec<T> {
    items.collect::<BTreeSet<_>>().into_iter().collect()
}

fn predicted_vs_measured<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    report: &Report,
) -> Drawn {
    root.fill(&WHITE).map_err(err)?;
    let series: Vec<(&str, RGBColor, Points)> = ["auto", "analytical"]
        .into_iter()
        .map(|name| {
            let colour = line_colour(name);
            let points = report
                .configs
                .iter()
                .filter_map(|c| {
                    let p = c.picks.iter().find(|p| p.selector == name)?;
                    Some((p.time_us?, p.predicted_us?))
                })
                .filter(|(t, p)| *t > 0.0 && *p > 0.0)
                .collect();
            (name, colour, points)
        })
        .collect();
    let all = series
        .iter()
        .flat_map(|s| s.2.iter().flat_map(|&(a, b)| [a, b]));
    let (lo, hi) = all.fold((f64::INFINITY, 0.0f64), |(l, h), v| (l.min(v), h.max(v)));
    let (lo, hi) = if lo < hi {
        (lo / 1.5, hi * 1.5)
    } else {
        (0.1, 10.0)
    };
    let mut chart = ChartBuilder::on(root)
        .caption("predicted vs measured time of the pick", (FONT, 20))
        .margin(12)
        .x_label_area_size(44)
        .y_label_area_size(64)
        .build_cartesian_2d((lo..hi).log_scale(), (lo..hi).log_scale())
        .map_err(err)?;
    chart
        .configure_mesh()
        .x_desc("measured (us)")
        .y_desc("predicted (us)")
        .draw()
        .map_err(err)?;
    chart
        .draw_series(LineSeries::new([(lo, lo), (hi, hi)], BLACK.mix(0.5)))
        .map_err(err)?;
    for (name, colour, points) in series {
        chart
            .draw_series(
                points
                    .iter()
                    .map(|&p| Circle::new(p, 3, colour.mix(0.6).filled())),
            )
            .map_err(err)?
            .label(name)
            .legend(move |(x, y)| Circle::new((x + 8, y), 4, colour.filled()));
    }
    legend(&mut chart)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::tests::row;
    use crate::data::Config;
    use crate::evaluate::Pick;

    fn result(procs: u32, msg: u64, mapping: Mapping) -> ConfigResult {
        let m = row(procs, msg, Algorithm::Binomial, 2.0);
        let config = Config {
            mapping,
            ..m.config
        };
        let pick = |selector: &str, algorithm, t| Pick {
            selector: selector.into(),
            candidate: crate::data::Candidate {
                algorithm,
                ..m.candidate
            },
            time_us: Some(t),
            predicted_us: Some(t * 1.1),
        };
        ConfigResult {
            config,
            best: m.candidate,
            t_best_us: 2.0,
            t_default_us: 3.0,
            distance: 0.0,
            picks: vec![
                pick("oracle", Algorithm::Binomial, 2.0),
                pick("default", Algorithm::Default, 3.0),
                pick("auto", Algorithm::Linear, 2.5),
            ],
        }
    }

    #[test]
    fn maps_show_the_most_frequent_mapping_once_per_cell() {
        let report = Report::for_plots(vec![
            result(4, 8, Mapping::Core),
            result(4, 8, Mapping::Core),
            result(8, 8, Mapping::Core),
            result(8, 64, Mapping::Node),
        ]);
        let (mapping, cells) = map_cells(&report);
        assert_eq!(mapping, Mapping::Core);
        assert_eq!(cells.keys().copied().collect::<Vec<_>>(), [(4, 8), (8, 8)]);
        let (sizes, lines) = speedups(&report);
        assert_eq!(sizes, [8, 64]);
        let auto = &lines.iter().find(|l| l.0 == "auto").unwrap().1;
        assert_eq!(auto, &[(0.0, 3.0 / 2.5), (1.0, 3.0 / 2.5)]);
    }

    #[test]
    fn writes_png_and_svg() {
        let dir = tempfile::tempdir().unwrap();
        let report = Report::for_plots(vec![
            result(4, 8, Mapping::Core),
            result(8, 64, Mapping::Core),
        ]);
        let files = write(&report, dir.path()).unwrap();
        assert_eq!(files.len(), 6);
        for f in files {
            let bytes = std::fs::read(&f).unwrap();
            assert!(
                bytes.len() > 1000,
                "{} is {} bytes",
                f.display(),
                bytes.len()
            );
            if f.extension().is_some_and(|e| e == "svg") {
                let text = String::from_utf8(bytes).unwrap();
                assert!(
                    text.contains("<svg") && text.contains("auto"),
                    "{}",
                    f.display()
                );
            } else {
                assert_eq!(&bytes[1..4], b"PNG");
            }
        }
    }

    /// Every algorithm and every selector has a colour of its own.
    #[test]
    fn colours_are_distinct() {
        let algorithms: BTreeSet<(u8, u8, u8)> = Algorithm::ALL
            .iter()
            .map(|&a| {
                let c = colour(a);
                (c.0, c.1, c.2)
            })
            .collect();
        assert_eq!(algorithms.len(), Algorithm::ALL.len());
        let names = selectors();
        let lines: BTreeSet<(u8, u8, u8)> = names
            .iter()
            .map(|n| {
                let c = line_colour(n);
                (c.0, c.1, c.2)
            })
            .collect();
        assert_eq!(lines.len(), names.len(), "{names:?}");
        assert_ne!(line_colour("oracle"), line_colour("auto"));
    }
}
