//! The control plane's processes: starting one with its log, telling whether a recorded pid is
//! still ours, stopping them (TERM, then KILL), removing the state they leave.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use nix::errno::Errno;
use nix::sys::signal::{Signal, kill};
use nix::sys::wait::{WaitPidFlag, waitpid};
use nix::unistd::Pid;

use super::ComponentState;
use crate::Error;

/// Starts one component with its output going to `log` (appended to on restarts).
pub(super) fn spawn_process(
    exe: &Path,
    args: &[String],
    log: &Path,
    append: bool,
) -> Result<(Child, i32), Error> {
    use std::os::unix::process::CommandExt;
    let file = std::fs::OpenOptions::new()
        .create(true)
        .write(true)
        .append(append)
        .truncate(!append)
        .open(log)
        .map_err(|e| Error::io(log, e))?;
    let err_file = file.try_clone().map_err(|e| Error::io(log, e))?;
    let child = Command::new(exe)
        .args(args)
        .stdin(Stdio::null())
        .stdout(file)
        .stderr(err_file)
        // Own process group: a Ctrl-C meant for `cargo xtask envtest up` or a test run does not
        // take the control plane down half-way; `down` stops it.
        .process_group(0)
        .spawn()
        .map_err(|e| Error::Start(format!("cannot start {}: {e}", exe.display())))?;
    let pid = child.id() as i32;
    Ok((child, pid))
}

/// SIGTERM to every component still running (in reverse start order), SIGKILL to any that has
/// not exited ten seconds later, then wait until all are gone.
pub(super) async fn stop_components(components: &[ComponentState]) -> Result<(), Error> {
    let alive: Vec<&ComponentState> = components.iter().rev().filter(|c| is_running(c)).collect();
    for c in &alive {
        let _ = kill(Pid::from_raw(c.pid), Signal::SIGTERM);
    }
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let left: Vec<&&ComponentState> = alive.iter().filter(|c| !gone(c.pid)).collect();
        if left.is_empty() {
            return Ok(());
        }
        if Instant::now() > deadline {
            for c in &left {
                let _ = kill(Pid::from_raw(c.pid), Signal::SIGKILL);
            }
            let hard_deadline = Instant::now() + Duration::from_secs(5);
            while left.iter().any(|c| !gone(c.pid)) {
                if Instant::now() > hard_deadline {
                    let names: Vec<String> = left
                        .iter()
                        .map(|c| format!("{} (pid {})", c.name, c.pid))
                        .collect();
                    return Err(Error::Start(format!("could not stop {}", names.join(", "))));
                }
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            return Ok(());
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// True when the recorded pid is still the recorded binary (a reused pid is not ours).
pub(super) fn is_running(c: &ComponentState) -> bool {
    match std::fs::read_link(format!("/proc/{}/exe", c.pid)) {
        Ok(exe) => exe == c.exe,
        Err(_) => false,
    }
}

/// Reaps the pid if it is our child, then asks the kernel whether it still exists.
pub(super) fn gone(pid: i32) -> bool {
    let pid = Pid::from_raw(pid);
    let _ = waitpid(pid, Some(WaitPidFlag::WNOHANG));
    matches!(kill(pid, None), Err(Errno::ESRCH))
}

pub(super) fn remove_dir(dir: &Path) -> Result<(), Error> {
    match std::fs::remove_dir_all(dir) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(Error::io(dir, e)),
    }
}
