//! SIGINT/SIGTERM handling for long runs: the first signal asks the run to
//! checkpoint and stop, a second one ends the process at once.

use crate::cli::status;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// A flag set by the first SIGINT/SIGTERM (the tool then checkpoints and
/// stops, printing `first_notice`); a second signal exits at once with 130,
/// which is safe because every file is replaced atomically.
pub fn stop_flag(tool: &'static str, first_notice: &'static str) -> Arc<AtomicBool> {
    let stop = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&stop);
    let handler = move || {
        if flag.swap(true, Ordering::SeqCst) {
            std::process::exit(status::INTERRUPTED.into());
        }
        crate::note!("{tool}: {first_notice}");
    };
    if let Err(e) = ctrlc::set_handler(handler) {
        crate::note!("{tool}: warning: no signal handler ({e}); an interrupt will not checkpoint");
    }
    stop
}
