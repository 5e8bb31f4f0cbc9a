//! The learning curve: its CSV (`OUT.curve.csv`, written by `trainer td`)
//! and its chart (`trainer plot`): points per game against pubeval with the
//! 95 % confidence band, by games trained.

use crate::chart::Drawing;
use crate::td::{CurveRow, CURVE_HEADER};
use plotters::coord::Shift;
use plotters::prelude::*;

/// Why a curve CSV cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum CurveError {
    /// Not a learning curve.
    #[error("line {line}: {why}")]
    Line {
        /// 1-based line number.
        line: usize,
        /// What is wrong.
        why: String,
    },
    /// No points.
    #[error("no points (only the header)")]
    Empty,
}

/// Largest learning-curve CSV `trainer plot` reads (`OUT.curve.csv` or
/// `OUT.train.csv`: a line per point, a few MB at most).
pub const CSV_LIMIT: support::input::Limit = support::input::Limit {
    bytes: 256 << 20,
    what: "learning curve",
};

/// The CSV text of the rows (header first).
pub fn to_csv(rows: &[CurveRow]) -> String {
    let mut text = format!("{CURVE_HEADER}\n");
    for r in rows {
        text.push_str(&r.csv());
        text.push('\n');
    }
    text
}

/// Parses a CSV of numbers with exactly `header` as its first line: each
/// data line's first field is a count (u64), the others finite numbers
/// (non-negative if `non_negative`); `row` builds a row from them. At least
/// one data line.
pub fn parse_numeric_csv<R>(
    text: &str,
    header: &str,
    non_negative: bool,
    row: impl Fn(u64, &[f64]) -> R,
) -> Result<Vec<R>, CurveError> {
    let mut lines = text.lines();
    if lines.next().map(str::trim) != Some(header) {
        return Err(CurveError::Line {
            line: 1,
            why: format!("the header must be {header}"),
        });
    }
    let width = header.split(',').count();
    let mut rows = Vec::new();
    for (n, line) in lines.enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let bad = || CurveError::Line {
            line: n + 2,
            why: format!("expected {width} numbers: {header}"),
        };
        let f: Vec<&str> = line.split(',').map(str::trim).collect();
        if f.len() != width {
            return Err(bad());
        }
        let count: u64 = f[0].parse().map_err(|_| bad())?;
        let values = f[1..]
            .iter()
            .map(|v| {
                v.parse::<f64>()
                    .ok()
                    .filter(|v| v.is_finite() && (!non_negative || *v >= 0.0))
                    .ok_or_else(bad)
            })
            .collect::<Result<Vec<f64>, _>>()?;
        rows.push(row(count, &values));
    }
    if rows.is_empty() {
        return Err(CurveError::Empty);
    }
    Ok(rows)
}

/// Parses a curve CSV written by [`to_csv`].
pub fn parse_csv(text: &str) -> Result<Vec<CurveRow>, CurveError> {
    parse_numeric_csv(text, CURVE_HEADER, false, |games, v| CurveRow {
        games,
        alpha: v[0],
        win_rate: v[1],
        ppg: v[2],
        ppg_ci95: v[3],
        games_per_second: v[4],
    })
}

/// The learning-curve chart of some rows.
pub struct CurveChart<'a> {
    /// The points.
    pub rows: &'a [CurveRow],
    /// The caption.
    pub title: String,
}

impl Drawing for CurveChart<'_> {
    fn draw<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> Result<(), String> {
        let points: Vec<PpgPoint> = self
            .rows
            .iter()
            .map(|r| (r.games as f64, r.ppg, r.ppg_ci95))
            .collect();
        let axes = ("games trained", "points per game vs pubeval");
        draw_ppg(area, &points, &self.title, axes, 10)
    }
}

/// The header of a rounds CSV: the ppg of each round's net against a fixed
/// opponent, with its 95 % interval.
pub const ROUNDS_HEADER: &str = "round,ppg,ppg_ci95";

/// One round's result.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RoundRow {
    /// The round's number.
    pub round: u64,
    /// Points per game against the opponent.
    pub ppg: f64,
    /// Half-width of its 95 % confidence interval.
    pub ppg_ci95: f64,
}

/// Parses a rounds CSV ([`ROUNDS_HEADER`]).
pub fn parse_rounds_csv(text: &str) -> Result<Vec<RoundRow>, CurveError> {
    parse_numeric_csv(text, ROUNDS_HEADER, false, |round, v| RoundRow {
        round,
        ppg: v[0],
        ppg_ci95: v[1],
    })
}

/// The chart of the ppg by round.
pub struct RoundsChart<'a> {
    /// The rounds.
    pub rows: &'a [RoundRow],
    /// The caption.
    pub title: String,
}

impl Drawing for RoundsChart<'_> {
    fn draw<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> Result<(), String> {
        let points: Vec<PpgPoint> = self
            .rows
            .iter()
            .map(|r| (r.round as f64, r.ppg, r.ppg_ci95))
            .collect();
        // One label a round (the rounds are whole numbers).
        let labels = self.rows.iter().map(|r| r.round).max().unwrap_or(0) as usize + 1;
        let axes = ("round", "points per game vs the opponent");
        draw_ppg(area, &points, &self.title, axes, labels)
    }
}

/// (x, ppg, half-width of the 95 % interval).
type PpgPoint = (f64, f64, f64);

/// Points per game by `x` with the 95 % band and the zero line.
fn draw_ppg<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    points: &[PpgPoint],
    title: &str,
    (x_desc, y_desc): (&str, &str),
    x_labels: usize,
) -> Result<(), String> {
    let err = |e: &dyn std::fmt::Display| e.to_string();
    area.fill(&WHITE).map_err(|e| err(&e))?;
    let max_x = points.iter().map(|p| p.0).fold(1.0f64, f64::max);
    let low = points.iter().map(|p| p.1 - p.2).fold(0.0f64, f64::min);
    let high = points.iter().map(|p| p.1 + p.2).fold(0.0f64, f64::max);
    let pad = 0.1 * (high - low).max(0.1);
    let mut chart = ChartBuilder::on(area)
        .caption(title, ("sans-serif", 22))
        .margin(15)
        .x_label_area_size(45)
        .y_label_area_size(70)
        .build_cartesian_2d(0.0..max_x * 1.02, (low - pad)..(high + pad))
        .map_err(|e| err(&e))?;
    chart
        .configure_mesh()
        .x_desc(x_desc)
        .x_labels(x_labels)
        .y_desc(y_desc)
        .x_label_formatter(&|x| format!("{x:.0}"))
        .y_label_formatter(&|y| format!("{y:+.2}"))
        .draw()
        .map_err(|e| err(&e))?;
    let band: Vec<(f64, f64)> = points
        .iter()
        .map(|p| (p.0, p.1 + p.2))
        .chain(points.iter().rev().map(|p| (p.0, p.1 - p.2)))
        .collect();
    chart
        .draw_series(std::iter::once(Polygon::new(band, BLUE.mix(0.2).filled())))
        .map_err(|e| err(&e))?
        .label("95 % confidence interval")
        .legend(|(x, y)| Rectangle::new([(x, y - 5), (x + 20, y + 5)], BLUE.mix(0.2).filled()));
    let line: Vec<(f64, f64)> = points.iter().map(|p| (p.0, p.1)).collect();
    chart
        .draw_series(LineSeries::new(line.clone(), BLUE.stroke_width(2)))
        .map_err(|e| err(&e))?
        .label("points per game")
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], BLUE.stroke_width(2)));
    chart
        .draw_series(line.into_iter().map(|p| Circle::new(p, 3, BLUE.filled())))
        .map_err(|e| err(&e))?;
    chart
        .draw_series(LineSeries::new(
            vec![(0.0, 0.0), (max_x * 1.02, 0.0)],
            BLACK.mix(0.5),
        ))
        .map_err(|e| err(&e))?;
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .position(SeriesLabelPosition::LowerRight)
        .draw()
        .map_err(|e| err(&e))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_round_trip_and_errors() {
        let rows = vec![
            CurveRow {
                games: 0,
                alpha: 0.1,
                win_rate: 0.1,
                ppg: -1.2,
                ppg_ci95: 0.05,
                games_per_second: 0.0,
            },
            CurveRow {
                games: 500,
                alpha: 0.09,
                win_rate: 0.4,
                ppg: -0.2,
                ppg_ci95: 0.04,
                games_per_second: 150.0,
            },
        ];
        assert_eq!(parse_csv(&to_csv(&rows)).unwrap(), rows);
        assert!(matches!(
            parse_csv("x\n"),
            Err(CurveError::Line { line: 1, .. })
        ));
        assert!(matches!(
            parse_csv(&format!("{CURVE_HEADER}\n")),
            Err(CurveError::Empty)
        ));
        let bad = format!("{CURVE_HEADER}\n1,2,3\n");
        assert!(matches!(
            parse_csv(&bad),
            Err(CurveError::Line { line: 2, .. })
        ));
    }
}
