//! Progress display: a bar on a terminal, periodic plain lines otherwise.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::time::{Duration, Instant};

/// Reports work done out of a total, for the command-line tools.
pub struct Progress {
    tool: &'static str,
    unit: &'static str,
    bar: Option<ProgressBar>,
    plain: bool,
    last_line: Instant,
    start: Instant,
    total: u64,
}

const PLAIN_EVERY: Duration = Duration::from_secs(10);

impl Progress {
    /// A reporter for `total` items called `unit` (e.g. "positions"),
    /// labelled with the `tool`'s name; silent when `quiet`.
    pub fn new(tool: &'static str, unit: &'static str, total: u64, quiet: bool) -> Progress {
        let terminal = std::io::stderr().is_terminal();
        let bar = (!quiet && terminal).then(|| {
            let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
            bar.set_style(
                ProgressStyle::with_template(&format!(
                    "{{elapsed_precise}} [{{bar:40}}] {{percent:>3}}% {{human_pos}}/{{human_len}} {unit}, ETA {{eta}} {{msg}}"
                ))
                .expect("valid template")
                .progress_chars("=> "),
            );
            bar
        });
        Progress {
            tool,
            unit,
            bar,
            plain: !quiet && !terminal,
            last_line: Instant::now(),
            start: Instant::now(),
            total,
        }
    }

    /// Updates the display with `done` items finished.
    pub fn update(&mut self, done: u64) {
        if let Some(bar) = &self.bar {
            bar.set_position(done);
        } else if self.plain && self.last_line.elapsed() >= PLAIN_EVERY {
            self.last_line = Instant::now();
            crate::note!(
                "{}: {:.1}% ({done}/{} {}), {:.0} s elapsed",
                self.tool,
                100.0 * done as f64 / self.total.max(1) as f64,
                self.total,
                self.unit,
                self.start.elapsed().as_secs_f64()
            );
        }
    }

    /// Sets a short status shown after the bar (e.g. a rate); plain
    /// progress lines ignore it.
    pub fn message(&self, text: String) {
        if let Some(bar) = &self.bar {
            bar.set_message(text);
        }
    }

    /// Removes the bar.
    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
