//! A container registry for tests: go-containerregistry's in-memory registry, served by
//! `crane registry serve` on a free loopback port. Built like kustomize: `go install
//! github.com/google/go-containerregistry/cmd/crane@v…` with the machine's Go on first use,
//! cached in `~/.cache/operator-rs/registry-v<version>/bin/crane`. (crane is the module's
//! command that serves `pkg/registry` and reports its version, which the cache checks; it also
//! reads and pushes image archives and layouts, which tests use to check ours.)

use std::io::{BufRead as _, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex, mpsc};
use std::time::Duration;

use crate::Error;
use crate::components::{GoTool, go_install, tools_root};

/// The go-containerregistry release.
pub const REGISTRY_VERSION: &str = "0.22.1";

/// The path of crane v[`REGISTRY_VERSION`], built on first use (progress on stderr; a second
/// process waits for the first one's build).
pub fn crane() -> Result<PathBuf, Error> {
    go_install(&GoTool {
        name: "crane",
        package: "github.com/google/go-containerregistry/cmd/crane",
        version: REGISTRY_VERSION,
        version_args: &["version"],
        dir: tools_root()?.join(format!("registry-v{REGISTRY_VERSION}")),
        via_module: None,
    })
}

/// A running in-memory registry on `127.0.0.1:<port>`, stopped when dropped.
#[derive(Debug)]
pub struct Registry {
    child: Child,
    port: u16,
    crane: PathBuf,
    log: Arc<Mutex<Vec<String>>>,
}

impl Registry {
    /// Starts a registry on a free loopback port (crane built first if needed) and waits until
    /// it serves.
    pub fn start() -> Result<Registry, Error> {
        let crane = crane()?;
        Self::start_with(&crane)
    }

    /// [`Registry::start`] with a given crane binary.
    pub fn start_with(crane: &Path) -> Result<Registry, Error> {
        let mut child = Command::new(crane)
            .args(["registry", "serve", "--address", "127.0.0.1:0"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| Error::io(crane, e))?;
        let stderr = child.stderr.take().expect("piped stderr");
        let log = Arc::new(Mutex::new(Vec::new()));
        let (tx, rx) = mpsc::channel();
        let lines = log.clone();
        // Reads the log to its end (the registry logs every request; a full pipe would stop
        // it), keeping the last lines for error messages and sending the port once.
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                if let Some(port) = line
                    .split("serving on port ")
                    .nth(1)
                    .and_then(|p| p.trim().parse::<u16>().ok())
                {
                    let _ = tx.send(port);
                }
                let mut kept = lines.lock().unwrap_or_else(|e| e.into_inner());
                kept.push(line);
                if kept.len() > 200 {
                    kept.remove(0);
                }
            }
        });
        match rx.recv_timeout(Duration::from_secs(30)) {
            Ok(port) => Ok(Registry {
                child,
                port,
                crane: crane.to_path_buf(),
                log,
            }),
            Err(_) => {
                let _ = child.kill();
                let _ = child.wait();
                let said = log.lock().unwrap_or_else(|e| e.into_inner()).join("\n");
                Err(Error::Start(format!(
                    "{} registry serve did not report its port within 30 s: {said}",
                    crane.display()
                )))
            }
        }
    }

    /// `127.0.0.1:<port>`, the registry part of image references.
    pub fn host(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// The crane binary that serves it (for tests that check images with crane too).
    pub fn crane(&self) -> &Path {
        &self.crane
    }

    /// The registry's last log lines.
    pub fn log(&self) -> String {
        self.log
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .join("\n")
    }
}

impl Drop for Registry {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A stand-in that never says where it serves is an error naming what it printed.
    #[test]
    fn a_registry_that_reports_no_port_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let exe = crate::test_script(dir.path(), "crane", "echo 'listen tcp: address in use' >&2");
        let err = Registry::start_with(&exe).unwrap_err().to_string();
        assert!(err.contains("did not report its port"), "{err}");
        assert!(err.contains("address in use"), "{err}");
    }

    /// The stand-in's reported port is the registry's.
    #[test]
    fn takes_the_reported_port() {
        let dir = tempfile::tempdir().unwrap();
        let exe = crate::test_script(
            dir.path(),
            "crane",
            "echo \"2026/01/01 00:00:00 serving on port 40123\" >&2\nexec sleep 30",
        );
        let registry = Registry::start_with(&exe).unwrap();
        assert_eq!(registry.host(), "127.0.0.1:40123");
    }
}
