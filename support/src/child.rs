//! Child processes that never outlive their parent: a tool that runs
//! other programs (a round's stages, an external engine) has them killed
//! by the kernel when it dies, kill -9 included, so no orphan keeps
//! running or writing.

use std::process::Command;

/// Makes the children `cmd` spawns receive SIGKILL when this process dies
/// (Linux's parent-death signal; elsewhere nothing is set). Spawn from a
/// thread that lives as long as the child: the signal follows the thread
/// that forked.
pub fn dies_with_parent(cmd: &mut Command) -> &mut Command {
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::process::CommandExt;
        let parent = std::process::id();
        // SAFETY: the closure runs in the forked child before exec and calls
        // only prctl(2) and getppid(2), both async-signal-safe; it touches
        // no memory shared with the parent and allocates nothing on the
        // success path. The getppid check closes the race of a parent that
        // died before prctl took effect.
        #[allow(unsafe_code)]
        unsafe {
            cmd.pre_exec(move || {
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                if libc::getppid() as u32 != parent {
                    return Err(std::io::Error::from_raw_os_error(libc::ESRCH));
                }
                Ok(())
            });
        }
    }
    cmd
}

/// Sends SIGINT to the process `pid` (a child of ours, not yet reaped).
pub fn interrupt(pid: u32) {
    // SAFETY: kill(2) has no memory effects; an unreaped child's pid names
    // no other process.
    #[allow(unsafe_code)]
    unsafe {
        libc::kill(pid as libc::pid_t, libc::SIGINT);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_marked_child_runs_and_an_interrupt_stops_it() {
        let mut ok = Command::new("true");
        assert!(dies_with_parent(&mut ok).status().unwrap().success());
        let mut sleep = Command::new("sleep");
        sleep.arg("30");
        let mut child = dies_with_parent(&mut sleep).spawn().unwrap();
        let started = std::time::Instant::now();
        interrupt(child.id());
        let status = child.wait().unwrap();
        assert!(!status.success());
        assert!(started.elapsed() < std::time::Duration::from_secs(10));
    }
}
