//! The control plane's processes: starting one with its log, telling whether a recorded pid is
//! still ours, stopping them (TERM, then KILL; etcd last), removing the state they leave.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use rustix::io::Errno;
use rustix::process::{Pid, Signal, WaitOptions, kill_process, test_kill_process, waitpid};

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

/// How long `down` gives the components after SIGTERM before SIGKILL. Its state is thrown away,
/// so there is nothing to save by waiting: the API server's clients exit within ~0.1 s; the API
/// server stops listening and removes its lease within ~20 ms, then spends about a second on
/// controllers that have nothing left to do; etcd, stopped after it, exits within ~0.2 s.
pub(super) const STOP_GRACE: Duration = Duration::from_millis(300);

/// How long a restarted component gets to exit on its own: a restart keeps the cluster, so the
/// component shuts down cleanly (the API server, with etcd still there, takes about a second).
pub(super) const RESTART_GRACE: Duration = Duration::from_secs(10);

/// The order to stop components in: everything but etcd at once, then etcd. The API server
/// needs etcd while it shuts down (it deletes its own lease through itself); stopped together,
/// etcd waits for the API server's watches to end and the API server for etcd, until SIGKILL.
pub(super) fn stop_stages(components: &[ComponentState]) -> Vec<Vec<&ComponentState>> {
    let (storage, rest): (Vec<&ComponentState>, Vec<&ComponentState>) =
        components.iter().rev().partition(|c| c.name == "etcd");
    [rest, storage]
        .into_iter()
        .filter(|stage| !stage.is_empty())
        .collect()
}

/// Stops every component still running, stage by stage ([`stop_stages`]): SIGTERM, SIGKILL to
/// any that has not exited `grace` later, and the next stage once all of this one are gone.
pub(super) async fn stop_components(
    components: &[ComponentState],
    grace: Duration,
) -> Result<(), Error> {
    for stage in stop_stages(components) {
        let alive: Vec<&ComponentState> = stage.into_iter().filter(|c| is_running(c)).collect();
        stop_together(&alive, grace).await?;
    }
    Ok(())
}

async fn stop_together(alive: &[&ComponentState], grace: Duration) -> Result<(), Error> {
    for c in alive {
        signal(c.pid, Signal::TERM);
    }
    let deadline = Instant::now() + grace;
    loop {
        let left: Vec<&&ComponentState> = alive.iter().filter(|c| !gone(c.pid)).collect();
        if left.is_empty() {
            return Ok(());
        }
        if Instant::now() > deadline {
            for c in &left {
                signal(c.pid, Signal::KILL);
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
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
            return Ok(());
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// Sends `signal` to `pid`, if it is a process's (not 0); a process already gone is no error.
fn signal(pid: i32, signal: Signal) {
    if let Some(pid) = Pid::from_raw(pid) {
        let _ = kill_process(pid, signal);
    }
}

/// True when the recorded pid is still the recorded binary (a reused pid is not ours).
pub(super) fn is_running(c: &ComponentState) -> bool {
    match std::fs::read_link(format!("/proc/{}/exe", c.pid)) {
        Ok(exe) => exe == c.exe,
        Err(_) => false,
    }
}

/// Reaps the pid if it is our child, then asks the kernel whether it still exists. A zombie has
/// exited: components started by another process (`up`, then `down`) are the init process's
/// children by then, and it may take a second or two to reap them.
pub(super) fn gone(pid: i32) -> bool {
    let Some(process) = Pid::from_raw(pid) else {
        return true;
    };
    let _ = waitpid(Some(process), WaitOptions::NOHANG);
    if matches!(test_kill_process(process), Err(Errno::SRCH)) {
        return true;
    }
    std::fs::read_to_string(format!("/proc/{pid}/stat")).map_or(true, |stat| exited(&stat))
}

/// Whether a `/proc/<pid>/stat` line is of a process that has exited (a zombie, or one being
/// reaped). The state follows the command name, which is in parentheses and may hold any
/// character, so it is found after the last `)`.
fn exited(stat: &str) -> bool {
    let state = stat
        .rsplit_once(')')
        .and_then(|(_, rest)| rest.split_whitespace().next());
    matches!(state, Some("Z" | "X"))
}

pub(super) fn remove_dir(dir: &Path) -> Result<(), Error> {
    match std::fs::remove_dir_all(dir) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(Error::io(dir, e)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn component(name: &str) -> ComponentState {
        ComponentState {
            name: name.to_string(),
            pid: 0,
            exe: Default::default(),
            log: Default::default(),
            port: 0,
            args: Vec::new(),
        }
    }

    fn names<'a>(stages: &[Vec<&'a ComponentState>]) -> Vec<Vec<&'a str>> {
        stages
            .iter()
            .map(|stage| stage.iter().map(|c| c.name.as_str()).collect())
            .collect()
    }

    #[test]
    fn etcd_is_stopped_after_everything_else_which_goes_in_reverse_start_order() {
        let all: Vec<ComponentState> = [
            "etcd",
            "kube-apiserver",
            "kube-controller-manager",
            "kube-scheduler",
            "kwok",
        ]
        .into_iter()
        .map(component)
        .collect();
        assert_eq!(
            names(&stop_stages(&all)),
            [
                vec![
                    "kwok",
                    "kube-scheduler",
                    "kube-controller-manager",
                    "kube-apiserver"
                ],
                vec!["etcd"],
            ]
        );
    }

    #[test]
    fn a_zombie_has_exited_and_a_sleeping_or_running_process_has_not() {
        assert!(exited("4382 (etcd) Z 1 4382 4382 0 -1"));
        assert!(exited("17 (a) b) X 1 17 17 0 -1"));
        assert!(!exited("4383 (kube-apiserver) S 1 4383 4383 0 -1"));
        assert!(!exited("17 (odd) Z name) R 1 17 17 0 -1"));
        assert!(!exited("garbage"));
    }

    #[test]
    fn a_single_component_is_one_stage_and_no_components_none() {
        for name in ["kube-apiserver", "etcd"] {
            let one = [component(name)];
            assert_eq!(names(&stop_stages(&one)), [vec![name]]);
        }
        assert!(stop_stages(&[]).is_empty());
    }
}
