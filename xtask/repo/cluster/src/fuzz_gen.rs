//! `cargo xtask fuzz-gen`: random mutations of the workspace's API sources, each run through
//! the release `operator-gen all --out` as a user runs it, over an output directory that
//! already holds generated files.
//!
//! A run is a failure when the process dies of a signal (a stack overflow aborts), panics
//! (exit 101), hangs (no exit within the time limit), fails without an error located at
//! `file:line:col`, changes the output directory although it failed, or succeeds with an
//! output file that is not YAML. Failing inputs are kept under `target/fuzz-gen/failures/`.

use std::os::unix::process::ExitStatusExt as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context as _, Result, bail};

use operator_xtask::{root, target_dir};

#[derive(clap::Args, Debug)]
pub struct FuzzGenArgs {
    /// How long to run, in minutes.
    #[arg(long, default_value_t = 5.0)]
    minutes: f64,
    /// Where the random sequence starts (a seed names a mutation).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Time limit of one operator-gen run, in seconds.
    #[arg(long, default_value_t = 10)]
    timeout: u64,
}

/// splitmix64, so that a seed names one mutation on every machine.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Fragments a mutation inserts: marker syntax, Rust punctuation, numbers at the edges,
/// text that is not ASCII or not even UTF-8.
const FRAGMENTS: &[&[u8]] = &[
    b"#[validation(minimum = ",
    b"#[schema(default = ",
    b"#[schema(list_type = \"map\", list_map_keys = \"name\")]",
    b"#[resource(group = \"x.example.com\", version = \"v1\")]",
    b"#[subresource(status, scale(spec_path = \".spec.r\", status_path = \".status.r\"))]",
    b"#[printcolumn(name = \"N\", type = \"string\", json_path = \".spec[\")]",
    b"#[serde(flatten)]",
    b"#[serde(rename = \"x\")]",
    b"#[serde(untagged)]",
    b"#[cfg(feature = \"x\")]",
    b"#[derive(Schema)]",
    b"#[derive(CustomResource)]",
    b"#[rbac(groups = \"\", resources = \"pods\", verbs = \"get\")]",
    b"Vec<",
    b"Option<",
    b"BTreeMap<String, ",
    b"pub x: i32,",
    b"pub metadata: ObjectMeta,",
    b"mod m {",
    b"{",
    b"}",
    b"(",
    b")",
    b"[",
    b"]",
    b"<",
    b">",
    b"\"",
    b"'",
    b"r#\"",
    b"/*",
    b"*/",
    b"//",
    b"///",
    b",",
    b";",
    b"=",
    b"-9223372036854775808",
    b"18446744073709551616",
    b"1e400",
    b"0x",
    b"\xc3\xa9",
    b"\xff\xfe",
    b"\0",
    b"\r\n",
    b"\t",
    b"\xe2\x80\xae",
    b"json!({",
];

/// Source files: (path relative to the API's root, bytes).
type Files = Vec<(PathBuf, Vec<u8>)>;

/// The inputs: each API directory of the workspace, as (name, files relative to its root).
fn corpus(root: &Path) -> Result<Vec<(String, Files)>> {
    let mut dirs: Vec<(String, PathBuf)> = vec![("memcached".into(), root.join("memcached/src"))];
    for entry in std::fs::read_dir(root.join("testdata/parity"))? {
        let dir = entry?.path().join("rust");
        if dir.is_dir() {
            let name = dir.parent().unwrap().file_name().unwrap().to_string_lossy();
            dirs.push((format!("parity/{name}"), dir));
        }
    }
    let mut out = Vec::new();
    for (name, dir) in dirs {
        let mut files = Vec::new();
        collect(&dir, &dir, &mut files)?;
        files.sort();
        out.push((name, files));
    }
    Ok(out)
}

fn collect(dir: &Path, base: &Path, out: &mut Vec<(PathBuf, Vec<u8>)>) -> Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            collect(&path, base, out)?;
        } else if path.extension().is_some_and(|e| e == "rs") {
            let rel = path.strip_prefix(base)?.to_path_buf();
            out.push((rel, std::fs::read(&path)?));
        }
    }
    Ok(())
}

/// One to five mutations of `text`: a range deleted, duplicated or moved, a fragment or a
/// piece of another file inserted, a byte changed, two lines swapped.
fn mutate(rng: &mut Rng, text: &[u8], donor: &[u8]) -> Vec<u8> {
    let mut t = text.to_vec();
    for _ in 0..1 + rng.below(5) {
        let at = rng.below(t.len() + 1);
        let len = rng.below(64.min(t.len() - at) + 1);
        match rng.below(7) {
            0 => {
                t.drain(at..at + len);
            }
            1 => {
                let copy = t[at..at + len].to_vec();
                t.splice(at..at, copy.iter().copied());
            }
            2 | 3 => {
                let f = FRAGMENTS[rng.below(FRAGMENTS.len())];
                t.splice(at..at, f.iter().copied());
            }
            4 if !donor.is_empty() => {
                let from = rng.below(donor.len());
                let n = rng.below(200.min(donor.len() - from) + 1);
                t.splice(at..at, donor[from..from + n].iter().copied());
            }
            5 if at < t.len() => t[at] = rng.next() as u8,
            _ => {
                // Swap two lines.
                let mut lines: Vec<Vec<u8>> =
                    t.split(|b| *b == b'\n').map(<[u8]>::to_vec).collect();
                let (a, b) = (rng.below(lines.len()), rng.below(lines.len()));
                lines.swap(a, b);
                t = lines.join(&b'\n');
            }
        }
    }
    t
}

/// Every file under `dir` with its bytes, sorted, for before-and-after comparison.
fn snapshot(dir: &Path) -> Result<Vec<(PathBuf, Vec<u8>)>> {
    let mut out = Vec::new();
    if dir.exists() {
        let mut all = Vec::new();
        walk(dir, &mut all)?;
        for path in all {
            let bytes = std::fs::read(&path)?;
            out.push((path.strip_prefix(dir)?.to_path_buf(), bytes));
        }
    }
    out.sort();
    Ok(out)
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            walk(&path, out)?;
        } else {
            out.push(path);
        }
    }
    Ok(())
}

/// Whether `stderr` names a located error (`path:line:col: error:`) or an unreadable file.
fn located(stderr: &str) -> bool {
    stderr.lines().any(|l| {
        let Some((head, _)) = l.split_once(": error: ") else {
            return false;
        };
        let mut parts = head.rsplitn(3, ':');
        let col = parts.next().unwrap_or("");
        let line = parts.next().unwrap_or("");
        !col.is_empty()
            && col.bytes().all(|b| b.is_ascii_digit())
            && !line.is_empty()
            && line.bytes().all(|b| b.is_ascii_digit())
    }) || stderr.contains("cannot read ")
}

#[derive(Default)]
struct Counts {
    runs: u64,
    written: u64,
    refused: u64,
    failures: u64,
}

pub fn fuzz_gen(args: &FuzzGenArgs) -> Result<()> {
    let exe = crate::bench_gen::release_operator_gen()?;
    let corpus = corpus(&root())?;
    let work = target_dir()?.join("fuzz-gen");
    let failures_dir = work.join("failures");
    let scratch = work.join("scratch");
    let _ = std::fs::remove_dir_all(&scratch);
    std::fs::create_dir_all(&failures_dir)?;
    // A first, clean run of each API gives the output directory a mutated run starts from.
    let mut baselines = Vec::new();
    for (name, files) in &corpus {
        let dir = scratch.join(name.replace('/', "_"));
        write_sources(&dir.join("src"), files)?;
        let out = dir.join("baseline");
        let status = Command::new(&exe)
            .args(["all", "--paths"])
            .arg(dir.join("src"))
            .arg("--out")
            .arg(&out)
            .arg("--allow-dangerous-types")
            .stderr(Stdio::null())
            .status()?;
        if !status.success() {
            bail!("operator-gen fails on the unmutated {name}");
        }
        baselines.push(snapshot(&out)?);
    }
    let deadline = Instant::now() + Duration::from_secs_f64(args.minutes * 60.0);
    let started = Instant::now();
    let mut counts = Counts::default();
    let mut rng = Rng(args.seed);
    let mut last_report = Instant::now();
    eprintln!(
        "fuzz-gen: {} APIs ({} files), {} minutes from seed {}",
        corpus.len(),
        corpus.iter().map(|(_, f)| f.len()).sum::<usize>(),
        args.minutes,
        args.seed
    );
    while Instant::now() < deadline {
        let seed = rng.next();
        let mut case = Rng(seed);
        let api = case.below(corpus.len());
        let (name, files) = &corpus[api];
        let target = case.below(files.len());
        let donor_api = &corpus[case.below(corpus.len())].1;
        let donor = &donor_api[case.below(donor_api.len())].1;
        let mut mutated = files.clone();
        mutated[target].1 = mutate(&mut case, &files[target].1, donor);
        let dir = scratch.join("run");
        let _ = std::fs::remove_dir_all(&dir);
        write_sources(&dir.join("src"), &mutated)?;
        let out = dir.join("config");
        for (rel, bytes) in &baselines[api] {
            let path = out.join(rel);
            std::fs::create_dir_all(path.parent().unwrap())?;
            std::fs::write(path, bytes)?;
        }
        let before = snapshot(&out)?;
        let problem = run_one(&exe, &dir, &out, &before, Duration::from_secs(args.timeout))?;
        counts.runs += 1;
        match problem {
            Outcome::Written => counts.written += 1,
            Outcome::Refused => counts.refused += 1,
            Outcome::Failed(why) => {
                counts.failures += 1;
                let keep = failures_dir.join(format!("{seed:016x}"));
                write_sources(&keep.join("src"), &mutated)?;
                std::fs::write(keep.join("why.txt"), format!("{name}\n{why}\n"))?;
                eprintln!(
                    "fuzz-gen: FAILURE ({name}): {why} (input in {})",
                    keep.display()
                );
            }
        }
        if last_report.elapsed() > Duration::from_secs(60) {
            last_report = Instant::now();
            eprintln!(
                "fuzz-gen: {:.0} s, {} runs, {} written, {} refused, {} failures",
                started.elapsed().as_secs_f64(),
                counts.runs,
                counts.written,
                counts.refused,
                counts.failures
            );
        }
    }
    let secs = started.elapsed().as_secs_f64();
    println!(
        "fuzz-gen: {} runs in {:.0} s ({:.1}/s): {} written, {} refused with a location, {} failures (aborts, panics, hangs, unlocated errors, output touched on failure, bad YAML)",
        counts.runs,
        secs,
        counts.runs as f64 / secs,
        counts.written,
        counts.refused,
        counts.failures
    );
    let _ = std::fs::remove_dir_all(&scratch);
    if counts.failures > 0 {
        bail!(
            "{} failing inputs, kept in {}",
            counts.failures,
            failures_dir.display()
        );
    }
    Ok(())
}

fn write_sources(dir: &Path, files: &[(PathBuf, Vec<u8>)]) -> Result<()> {
    for (rel, bytes) in files {
        let path = dir.join(rel);
        std::fs::create_dir_all(path.parent().unwrap())?;
        std::fs::write(&path, bytes).with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(())
}

enum Outcome {
    Written,
    Refused,
    Failed(String),
}

fn run_one(
    exe: &Path,
    dir: &Path,
    out: &Path,
    before: &[(PathBuf, Vec<u8>)],
    limit: Duration,
) -> Result<Outcome> {
    let mut child = Command::new(exe)
        .args(["all", "--paths"])
        .arg(dir.join("src"))
        .arg("--out")
        .arg(out)
        // The floats case needs it; it only widens what is accepted.
        .arg("--allow-dangerous-types")
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(dir.join("stderr"))?)
        .spawn()?;
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break status;
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            return Ok(Outcome::Failed(format!(
                "no exit within {} s",
                limit.as_secs()
            )));
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    let stderr = std::fs::read_to_string(dir.join("stderr")).unwrap_or_default();
    if let Some(signal) = status.signal() {
        return Ok(Outcome::Failed(format!(
            "killed by signal {signal}: {stderr}"
        )));
    }
    match status.code() {
        Some(0) => {
            for (rel, bytes) in snapshot(out)? {
                let text = String::from_utf8(bytes)
                    .map_err(|_| anyhow::anyhow!("{} is not UTF-8", rel.display()));
                let parsed = text.and_then(|t| {
                    serde_yaml::Deserializer::from_str(&t)
                        .map(|d| {
                            <serde_yaml::Value as serde::Deserialize>::deserialize(d)
                                .map_err(anyhow::Error::from)
                        })
                        .collect::<Result<Vec<_>>>()
                });
                if let Err(e) = parsed {
                    return Ok(Outcome::Failed(format!(
                        "wrote {}, which is not YAML: {e}",
                        rel.display()
                    )));
                }
            }
            Ok(Outcome::Written)
        }
        Some(101) => Ok(Outcome::Failed(format!("panicked: {stderr}"))),
        Some(_) => {
            if !located(&stderr) {
                return Ok(Outcome::Failed(format!(
                    "failed without a located error: {stderr}"
                )));
            }
            if snapshot(out)? != before {
                return Ok(Outcome::Failed(
                    "failed, and changed the output directory".into(),
                ));
            }
            Ok(Outcome::Refused)
        }
        None => Ok(Outcome::Failed("no exit code".into())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_count_as_located_only_with_line_and_column() {
        assert!(located("src/a.rs:3:14: error: unknown argument"));
        assert!(located(
            "x\n/tmp/x y/a.rs:10:1: error: Rust syntax error: expected `;`\n"
        ));
        assert!(located("cannot read src/a.rs: Permission denied"));
        assert!(!located("error: No such file or directory (os error 2)"));
        assert!(!located("src/a.rs: error: something"));
    }

    #[test]
    fn mutations_are_a_function_of_the_seed() {
        let text = b"pub struct A {\n    pub x: i32,\n}\n";
        let a = mutate(&mut Rng(7), text, b"donor text");
        let b = mutate(&mut Rng(7), text, b"donor text");
        assert_eq!(a, b);
        assert!((0..50u64).any(|s| mutate(&mut Rng(s), text, b"donor") != text));
    }
}
