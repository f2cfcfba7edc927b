//! The Go memcached operator (`testdata/go-operator`, the tutorial's operator on
//! controller-runtime) built on first use with the machine's Go, for benchmarking ours beside it.
//!
//! The binary is cached under a directory named by a hash of the module's sources (every `.go`
//! file, `go.mod` and `go.sum`), so an edit builds again and an unchanged module never does.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Instant;

use crate::Error;
use crate::components::{
    build_failed, check_go, count_packages, go_command, human, promote, stream_build,
};

/// The binary's file name inside its cache directory.
pub const BINARY: &str = "memcached-go";

/// The path of the Go operator built from the module in `src`, building it into
/// `<cache>/<hash>/memcached-go` unless that exists. A first build says what it does and counts
/// the packages `go build -v` compiles; two processes asking at once build once.
pub fn ensure_built(src: &Path, cache: &Path) -> Result<PathBuf, Error> {
    let hash = source_hash(src)?;
    let root = cache.join(format!("{hash:016x}"));
    let exe = root.join("bin").join(BINARY);
    if exe.is_file() {
        return Ok(exe);
    }
    std::fs::create_dir_all(&root).map_err(|e| Error::io(&root, e))?;
    let lock_path = root.join("build.lock");
    let lock = std::fs::File::create(&lock_path).map_err(|e| Error::io(&lock_path, e))?;
    lock.lock().map_err(|e| Error::io(&lock_path, e))?;
    if exe.is_file() {
        return Ok(exe);
    }
    let go = check_go()?;
    let partial = root.join("bin.partial");
    if partial.exists() {
        std::fs::remove_dir_all(&partial).map_err(|e| Error::io(&partial, e))?;
    }
    let log_path = root.join("build.log");
    let mut log = std::fs::File::create(&log_path).map_err(|e| Error::io(&log_path, e))?;
    eprintln!(
        "go-operator: building {} with {go} (first use of this source; cached in {})",
        src.display(),
        root.display()
    );
    eprintln!("go-operator: build log: {}", log_path.display());
    let started = Instant::now();
    let total = count_packages(src, &["."]);
    let mut cmd = go_command(src);
    cmd.args(["build", "-v", "-trimpath", "-o"])
        .arg(partial.join(BINARY))
        .arg(".")
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    let status = stream_build(cmd, &mut log, total, started)?;
    if !status.success() {
        return Err(build_failed("go build of the Go operator", &log_path));
    }
    promote(&partial, &root.join("bin"))?;
    eprintln!(
        "go-operator: built in {}: {}",
        human(started.elapsed()),
        exe.display()
    );
    drop(lock);
    Ok(exe)
}

/// FNV-1a over the module's source files (sorted by name; each name and content), stable across
/// Rust releases unlike `DefaultHasher`.
pub fn source_hash(src: &Path) -> Result<u64, Error> {
    let mut names: Vec<String> = std::fs::read_dir(src)
        .map_err(|e| Error::io(src, e))?
        .filter_map(|entry| entry.ok()?.file_name().into_string().ok())
        .filter(|name| name.ends_with(".go") || name == "go.mod" || name == "go.sum")
        .collect();
    if !names.iter().any(|n| n == "go.mod") {
        return Err(Error::Build(format!("no go.mod in {}", src.display())));
    }
    names.sort();
    let mut hash = Fnv::default();
    for name in names {
        let path = src.join(&name);
        let content = std::fs::read(&path).map_err(|e| Error::io(&path, e))?;
        hash.write(name.as_bytes());
        hash.write(&[0]);
        hash.write(&(content.len() as u64).to_le_bytes());
        hash.write(&content);
    }
    Ok(hash.0)
}

struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
}

impl Fnv {
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 ^= u64::from(*b);
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hash_follows_sources_and_ignores_other_files() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("go.mod"), "module x\n").unwrap();
        std::fs::write(dir.path().join("main.go"), "package main\n").unwrap();
        let first = source_hash(dir.path()).unwrap();
        assert_eq!(first, source_hash(dir.path()).unwrap());
        std::fs::write(dir.path().join("README.md"), "notes").unwrap();
        assert_eq!(first, source_hash(dir.path()).unwrap());
        std::fs::write(dir.path().join("main.go"), "package main // edited\n").unwrap();
        assert_ne!(first, source_hash(dir.path()).unwrap());
    }

    #[test]
    fn a_directory_without_go_mod_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        assert!(source_hash(dir.path()).is_err());
    }

    #[test]
    fn fnv_matches_the_reference_values() {
        let mut h = Fnv::default();
        h.write(b"a");
        assert_eq!(h.0, 0xaf63_dc4c_8601_ec8c);
    }
}
