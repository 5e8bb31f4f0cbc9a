//! The supervised learning curve: `OUT.train.csv` (written by `trainer
//! train`: epoch, α, RMS and maximum equity error over the training
//! positions) and its chart (`trainer plot`), errors on a log scale.

use crate::chart::Drawing;
use crate::curve::{parse_numeric_csv, CurveError};
use plotters::coord::Shift;
use plotters::prelude::*;

/// The CSV header of `OUT.train.csv`.
pub const TRAIN_HEADER: &str = "epoch,alpha,err_rms,err_max";

/// One measurement of a supervised run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TrainRow {
    /// Epochs trained before the measurement.
    pub epoch: u64,
    /// The learning rate of the next epoch.
    pub alpha: f64,
    /// RMS equity error over the training positions.
    pub err_rms: f64,
    /// Maximum equity error.
    pub err_max: f64,
}

/// Parses an `OUT.train.csv`.
pub fn parse_train_csv(text: &str) -> Result<Vec<TrainRow>, CurveError> {
    parse_numeric_csv(text, TRAIN_HEADER, true, |epoch, v| TrainRow {
        epoch,
        alpha: v[0],
        err_rms: v[1],
        err_max: v[2],
    })
}

/// The chart of a supervised run.
pub struct TrainChart<'a> {
    /// The measurements.
    pub rows: &'a [TrainRow],
    /// Caption.
    pub title: String,
}

impl Drawing for TrainChart<'_> {
    fn draw<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> Result<(), String> {
        let rows = self.rows;
        let err = |e: &dyn std::fmt::Display| e.to_string();
        area.fill(&WHITE).map_err(|e| err(&e))?;
        let last = rows.iter().map(|r| r.epoch).max().unwrap_or(1).max(1) as f64;
        let values = rows.iter().flat_map(|r| [r.err_rms, r.err_max]);
        let floor = 1e-4;
        let low = values.clone().fold(f64::INFINITY, f64::min).max(floor) * 0.8;
        let high = values.fold(floor, f64::max) * 1.25;
        let mut chart = ChartBuilder::on(area)
            .caption(&self.title, ("sans-serif", 22))
            .margin(15)
            .x_label_area_size(45)
            .y_label_area_size(70)
            .build_cartesian_2d(0.0..last * 1.02, (low..high.max(low * 2.0)).log_scale())
            .map_err(|e| err(&e))?;
        chart
            .configure_mesh()
            .x_desc("epochs trained")
            .y_desc("equity error on the training positions")
            .x_label_formatter(&|x| format!("{x:.0}"))
            .y_label_formatter(&|y| format!("{y:.3}"))
            .draw()
            .map_err(|e| err(&e))?;
        for (label, color, pick) in [
            (
                "RMS",
                BLUE,
                (|r: &TrainRow| r.err_rms) as fn(&TrainRow) -> f64,
            ),
            ("maximum", RED, |r: &TrainRow| r.err_max),
        ] {
            let line: Vec<(f64, f64)> = rows
                .iter()
                .map(|r| (r.epoch as f64, pick(r).max(floor)))
                .collect();
            chart
                .draw_series(LineSeries::new(line, color.stroke_width(2)))
                .map_err(|e| err(&e))?
                .label(label)
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2))
                });
        }
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .position(SeriesLabelPosition::UpperRight)
            .draw()
            .map_err(|e| err(&e))?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_what_train_writes_and_refuses_the_rest() {
        let rows = parse_train_csv(&format!(
            "{TRAIN_HEADER}\n0,1.00000,0.858299,2.433932\n1,0.9,0.07,0.6\n"
        ))
        .unwrap();
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[1].epoch, 1);
        assert_eq!(rows[0].err_max, 2.433932);
        assert!(matches!(
            parse_train_csv("x\n"),
            Err(CurveError::Line { line: 1, .. })
        ));
        assert!(matches!(
            parse_train_csv(&format!("{TRAIN_HEADER}\n1,2\n")),
            Err(CurveError::Line { line: 2, .. })
        ));
        assert!(matches!(
            parse_train_csv(&format!("{TRAIN_HEADER}\n")),
            Err(CurveError::Empty)
        ));
    }
}
