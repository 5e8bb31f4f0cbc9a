//! Charts with plotters, written atomically: PNG (drawn in memory, encoded
//! with `image`) or SVG, chosen by the output's extension. Used for the
//! learning curve (`trainer plot`) and the benchmark charts.

use image::codecs::png::PngEncoder;
use image::{ColorType, ImageEncoder};
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::{Path, PathBuf};

/// The TrueType font the labels use unless another is given (Debian's
/// fonts-dejavu-core).
pub const DEFAULT_FONT: &str = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";

/// Why a chart cannot be made.
#[derive(Debug, thiserror::Error)]
pub enum ChartError {
    /// The font is missing or unreadable.
    #[error(
        "cannot read the font {path} ({error}); apt-get install fonts-dejavu-core, or give --font"
    )]
    Font {
        /// The font file.
        path: PathBuf,
        /// Why.
        error: std::io::Error,
    },
    /// The font is not TrueType.
    #[error("{0} is not a TrueType font")]
    NotAFont(PathBuf),
    /// The output's extension names no format.
    #[error("{0}: the chart's file name must end in .png or .svg")]
    Format(PathBuf),
    /// Drawing failed.
    #[error("cannot draw {path}: {message}")]
    Draw {
        /// The output.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
    /// Writing failed.
    #[error("cannot write {path}: {error}")]
    Write {
        /// The output.
        path: PathBuf,
        /// Why.
        error: std::io::Error,
    },
}

/// Registers `path` as the "sans-serif" font of every chart.
pub fn load_font(path: &Path) -> Result<(), ChartError> {
    let limit = support::input::Limit {
        bytes: 256 << 20,
        what: "font",
    };
    let font = support::input::read(path, limit).map_err(|error| ChartError::Font {
        path: path.to_owned(),
        error,
    })?;
    // plotters keeps the font for the life of the process.
    let font: &'static [u8] = Box::leak(font.into_boxed_slice());
    plotters::style::register_font("sans-serif", FontStyle::Normal, font)
        .map_err(|_| ChartError::NotAFont(path.to_owned()))
}

/// The image formats a chart can be written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChartFormat {
    /// PNG (RGB, 8 bits a channel).
    Png,
    /// SVG.
    Svg,
}

impl ChartFormat {
    /// The format `path`'s extension names.
    pub fn for_path(path: &Path) -> Result<ChartFormat, ChartError> {
        match path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase)
        {
            Some(e) if e == "png" => Ok(ChartFormat::Png),
            Some(e) if e == "svg" => Ok(ChartFormat::Svg),
            _ => Err(ChartError::Format(path.to_owned())),
        }
    }
}

/// Drawing code for any plotters backend.
pub trait Drawing {
    /// Draws on `area`; errors as text.
    fn draw<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> Result<(), String>;
}

/// Draws `drawing` at `size` pixels into `path` (PNG or SVG by extension),
/// atomically.
pub fn save(path: &Path, size: (u32, u32), drawing: &impl Drawing) -> Result<(), ChartError> {
    let draw_error = |message: String| ChartError::Draw {
        path: path.to_owned(),
        message,
    };
    let bytes = match ChartFormat::for_path(path)? {
        ChartFormat::Png => {
            let mut pixels = vec![0u8; (size.0 * size.1 * 3) as usize];
            {
                let area = BitMapBackend::with_buffer(&mut pixels, size).into_drawing_area();
                drawing.draw(&area).map_err(draw_error)?;
                area.present().map_err(|e| draw_error(e.to_string()))?;
            }
            let mut png = Vec::new();
            PngEncoder::new(&mut png)
                .write_image(&pixels, size.0, size.1, ColorType::Rgb8)
                .map_err(|e| draw_error(e.to_string()))?;
            png
        }
        ChartFormat::Svg => {
            let mut svg = String::new();
            {
                let area = SVGBackend::with_string(&mut svg, size).into_drawing_area();
                drawing.draw(&area).map_err(draw_error)?;
                area.present().map_err(|e| draw_error(e.to_string()))?;
            }
            svg.into_bytes()
        }
    };
    let write_error = |error| ChartError::Write {
        path: path.to_owned(),
        error,
    };
    support::atomic::write_file(path, &bytes).map_err(write_error)
}
