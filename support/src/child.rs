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

/// CPU time (user and system, all threads) of this process's children
/// that have ended and been waited for, summed since it started
/// (`getrusage(RUSAGE_CHILDREN)`): the difference across one child's run
/// is that child's cost.
pub fn children_cpu_time() -> std::time::Duration {
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: getrusage(2) writes one `rusage` through the pointer, which
    // points to a properly aligned, zero-initialized `rusage` that lives
    // across the call; RUSAGE_CHILDREN is a valid `who`, so the call cannot
    // fail (and on failure the zeroed value is still a valid `rusage`).
    #[allow(unsafe_code)]
    let usage = unsafe {
        libc::getrusage(libc::RUSAGE_CHILDREN, usage.as_mut_ptr());
        usage.assume_init()
    };
    let time = |t: libc::timeval| {
        std::time::Duration::from_secs(t.tv_sec.max(0) as u64)
            + std::time::Duration::from_micros(t.tv_usec.max(0) as u64)
    };
    time(usage.ru_utime) + time(usage.ru_stime)
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

    /// A child that computes for a while adds its CPU time to the
    /// children's; one that sleeps adds next to none.
    #[test]
    fn a_childs_cpu_time_is_counted_once_it_is_waited_for() {
        use std::time::Duration;
        let before = children_cpu_time();
        let mut busy = Command::new("sh");
        busy.args(["-c", "i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done"]);
        let started = std::time::Instant::now();
        assert!(busy.status().unwrap().success());
        let wall = started.elapsed();
        let spent = children_cpu_time() - before;
        assert!(
            spent > Duration::from_millis(50),
            "{spent:?} of CPU in {wall:?}"
        );
        assert!(
            spent <= wall + Duration::from_millis(50),
            "{spent:?} of CPU in {wall:?}"
        );
        let before = children_cpu_time();
        assert!(Command::new("sleep").arg("0.3").status().unwrap().success());
        let spent = children_cpu_time() - before;
        assert!(
            spent < Duration::from_millis(100),
            "sleeping cost {spent:?}"
        );
    }
}
