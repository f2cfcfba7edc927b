//! Which of the new project's compilation units the workspace has already built, and the
//! feature alignment that makes the rest of its dependencies' units the workspace's.
//!
//! A unit is one compilation: a package's target with its features, profile, mode and the
//! units it depends on. cargo reuses a build in the shared target directory only when the
//! unit is the same, so the question is answered with cargo's own unit graph (`--unit-graph`,
//! unstable: read here with `RUSTC_BOOTSTRAP=1`, for this comparison only; nothing is built
//! with it).
//!
//! The workspace resolves features over all its members, the new project over its own. Where
//! a workspace member's dependency turns on a feature of a shared crate (utoipa in the derive's
//! tests turns on syn's `extra-traits`, the wire contract time's `serde`), the project's unit
//! of that crate differs, and so does every unit above it (syn is under every derive). The
//! project gets a member of its own that turns the same features on (a "workspace hack", as
//! cargo-hakari writes one), so its units are the workspace's; features are only ever added,
//! and the crates concerned are printed.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;
use std::process::Command;

use anyhow::{Context as _, Result, bail};
use serde_json::Value;

/// The name of the member the alignment adds to the project.
pub const ALIGNMENT: &str = "feature-alignment";

/// A unit graph: the units, each with the identity that decides whether a build is reused.
#[derive(Debug)]
pub struct Graph {
    units: Vec<Value>,
    keys: Vec<String>,
}

impl Graph {
    /// `cargo test --workspace --all-targets --no-run`'s units in `dir` for the host
    /// `target` (given explicitly, so host units, which build scripts and proc-macros use, can
    /// be told from the others).
    pub fn of(dir: &Path, target: &str, cargo: &mut Command) -> Result<Self> {
        let out = cargo
            .args(["test", "--workspace", "--all-targets", "--no-run"])
            .args(["--unit-graph", "-Z", "unstable-options", "--target", target])
            .env("RUSTC_BOOTSTRAP", "1")
            .current_dir(dir)
            .output()
            .context("starting cargo for the unit graph")?;
        if !out.status.success() {
            bail!(
                "cargo --unit-graph in {} failed: {}",
                dir.display(),
                String::from_utf8_lossy(&out.stderr).trim()
            );
        }
        let graph: Value =
            serde_json::from_slice(&out.stdout).context("reading cargo's unit graph")?;
        let units = graph["units"]
            .as_array()
            .context("a unit graph without units")?
            .clone();
        let mut keys = vec![None; units.len()];
        for i in 0..units.len() {
            key(&units, i, &mut keys);
        }
        Ok(Self {
            units,
            keys: keys.into_iter().map(Option::unwrap_or_default).collect(),
        })
    }

    /// The units of this graph from crates.io (what a build can share), and how many of them
    /// `other` has too.
    pub fn shared_with(&self, other: &Graph) -> (usize, usize) {
        let theirs: BTreeSet<&String> = other.keys.iter().collect();
        let ours: Vec<usize> = (0..self.units.len())
            .filter(|&i| from_crates_io(&self.units[i]))
            .collect();
        let shared = ours
            .iter()
            .filter(|&&i| theirs.contains(&self.keys[i]))
            .count();
        (ours.len(), shared)
    }

    /// The crates.io packages whose units here have other features than in `workspace`,
    /// with the workspace's features, split by host (build scripts, proc-macros) and target.
    pub fn misaligned(&self, workspace: &Graph) -> Alignment {
        let features_of = |g: &Graph| {
            let mut map: HashMap<(String, bool), BTreeSet<String>> = HashMap::new();
            for u in &g.units {
                if from_crates_io(u) && is_lib(u) {
                    let set = map.entry((pkg(u).to_string(), is_host(u))).or_default();
                    set.extend(features(u));
                }
            }
            map
        };
        let ours = features_of(self);
        let theirs = features_of(workspace);
        let mut alignment = Alignment::default();
        for ((pkg_id, host), features) in &ours {
            let Some(wanted) = theirs.get(&(pkg_id.clone(), *host)) else {
                continue;
            };
            if wanted != features && wanted.is_superset(features) {
                let side = if *host {
                    &mut alignment.host
                } else {
                    &mut alignment.target
                };
                side.insert(pkg_id.clone(), wanted.clone());
            }
        }
        alignment
    }
}

/// Features to turn on, per crates.io package id, for the project's target and host units.
#[derive(Debug, Default)]
pub struct Alignment {
    pub target: BTreeMap<String, BTreeSet<String>>,
    pub host: BTreeMap<String, BTreeSet<String>>,
}

impl Alignment {
    pub fn is_empty(&self) -> bool {
        self.target.is_empty() && self.host.is_empty()
    }

    /// `name version` of every package aligned.
    pub fn packages(&self) -> Vec<String> {
        let all: BTreeSet<String> = self
            .target
            .keys()
            .chain(self.host.keys())
            .filter_map(|id| name_version(id).map(|(n, v)| format!("{n} {v}")))
            .collect();
        all.into_iter().collect()
    }

    /// Adds the member to `project`: its manifest, an empty library, and its name in the
    /// workspace's members.
    pub fn write(&self, project: &Path) -> Result<()> {
        let dir = project.join(ALIGNMENT);
        std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
        let mut manifest = format!(
            "# Written by operator-rs's scaffold test, not by cargo operator: the features this\n\
             # repository's workspace builds its dependencies with, so that this project's builds\n\
             # of them are the workspace's.\n\
             [package]\nname = \"{ALIGNMENT}\"\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n\
             [lib]\npath = \"lib.rs\"\n"
        );
        for (section, packages) in [
            ("dependencies", &self.target),
            ("build-dependencies", &self.host),
        ] {
            if packages.is_empty() {
                continue;
            }
            manifest.push_str(&format!("\n[{section}]\n"));
            for (id, features) in packages {
                let (name, version) = name_version(id)
                    .with_context(|| format!("a package id without a name and version: {id}"))?;
                let features: Vec<String> = features.iter().map(|f| format!("\"{f}\"")).collect();
                manifest.push_str(&format!(
                    "{}-{} = {{ package = \"{name}\", version = \"={version}\", default-features = false, features = [{}] }}\n",
                    name,
                    version.replace('.', "-"),
                    features.join(", ")
                ));
            }
        }
        std::fs::write(dir.join("Cargo.toml"), manifest)
            .context("writing the alignment's manifest")?;
        std::fs::write(dir.join("lib.rs"), "//! Features only: see Cargo.toml.\n")
            .context("writing the alignment's library")?;
        let root = project.join("Cargo.toml");
        let text = std::fs::read_to_string(&root)
            .with_context(|| format!("reading {}", root.display()))?;
        let Some(at) = text.find("members = [") else {
            bail!(
                "{} has no `members = [` to add the alignment to",
                root.display()
            );
        };
        let at = at + "members = [".len();
        let text = format!("{}\"{ALIGNMENT}\", {}", &text[..at], &text[at..]);
        std::fs::write(&root, text).with_context(|| format!("writing {}", root.display()))
    }
}

/// The identity of unit `i`: everything of it cargo's fingerprint reads, its dependencies
/// by their own identities.
fn key(units: &[Value], i: usize, keys: &mut Vec<Option<String>>) -> String {
    if let Some(k) = &keys[i] {
        return k.clone();
    }
    let u = &units[i];
    let mut deps: Vec<String> = u["dependencies"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|d| d["index"].as_u64())
        .map(|d| key(units, d as usize, keys))
        .collect();
    deps.sort();
    // The profile's settings, not its name: a dependency of a test build is in the `test`
    // profile, of a plain build in `dev`, and the two compile it alike.
    let mut profile = u["profile"].clone();
    if let Some(p) = profile.as_object_mut() {
        p.remove("name");
    }
    let k = format!(
        "{}|{}|{}|{}|{}|{}|{}|[{}]",
        u["pkg_id"],
        u["target"]["name"],
        u["target"]["kind"],
        u["target"]["src_path"],
        u["mode"],
        profile,
        u["platform"],
        u["features"]
    ) + &deps.join(",");
    // A digest stands for the key: keys would otherwise nest whole subgraphs. Both graphs
    // are compared within one process, so the standard hasher's keys agree.
    let k = {
        use std::hash::{Hash as _, Hasher as _};
        let mut hasher = std::hash::DefaultHasher::new();
        k.hash(&mut hasher);
        format!("{:016x}", hasher.finish())
    };
    keys[i] = Some(k.clone());
    k
}

fn pkg(u: &Value) -> &str {
    u["pkg_id"].as_str().unwrap_or_default()
}

fn from_crates_io(u: &Value) -> bool {
    pkg(u).starts_with("registry+https://github.com/rust-lang/crates.io-index#")
}

fn is_lib(u: &Value) -> bool {
    u["mode"] == "build"
        && u["target"]["kind"]
            .as_array()
            .is_some_and(|k| k.iter().any(|k| k != "custom-build"))
}

/// A unit for the host: no platform named (the graph is asked for an explicit target).
fn is_host(u: &Value) -> bool {
    u["platform"].is_null()
}

fn features(u: &Value) -> impl Iterator<Item = String> + '_ {
    u["features"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|f| f.as_str().map(str::to_string))
}

/// `syn` and `3.0.9` of `registry+https://github.com/rust-lang/crates.io-index#syn@3.0.9`.
fn name_version(id: &str) -> Option<(&str, &str)> {
    id.rsplit_once('#')?.1.split_once('@')
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn unit(pkg: &str, features: &[&str], host: bool, deps: &[usize]) -> Value {
        json!({
            "pkg_id": format!("registry+https://github.com/rust-lang/crates.io-index#{pkg}"),
            "target": {"name": pkg, "kind": ["lib"], "src_path": format!("/r/{pkg}/src/lib.rs")},
            "profile": {"name": "dev"},
            "platform": if host { Value::Null } else { json!("x86_64-unknown-linux-gnu") },
            "mode": "build",
            "features": features,
            "dependencies": deps.iter().map(|&i| json!({"index": i})).collect::<Vec<_>>(),
        })
    }

    fn graph(units: Vec<Value>) -> Graph {
        let mut keys = vec![None; units.len()];
        for i in 0..units.len() {
            key(&units, i, &mut keys);
        }
        Graph {
            keys: keys.into_iter().map(Option::unwrap_or_default).collect(),
            units,
        }
    }

    #[test]
    fn a_feature_below_changes_every_unit_above_and_the_alignment_names_it() {
        let workspace = graph(vec![
            unit("syn@3.0.9", &["full", "extra-traits"], true, &[]),
            unit("futures-macro@0.3.34", &[], true, &[0]),
            unit("itoa@1.0.19", &[], false, &[]),
        ]);
        let project = graph(vec![
            unit("syn@3.0.9", &["full"], true, &[]),
            unit("futures-macro@0.3.34", &[], true, &[0]),
            unit("itoa@1.0.19", &[], false, &[]),
        ]);
        assert_eq!(project.shared_with(&workspace), (3, 1));
        let alignment = project.misaligned(&workspace);
        assert!(alignment.target.is_empty());
        assert_eq!(
            alignment.host.values().next().unwrap(),
            &BTreeSet::from(["extra-traits".to_string(), "full".to_string()])
        );
        assert_eq!(alignment.packages(), ["syn 3.0.9"]);
    }

    #[test]
    fn the_member_turns_the_features_on_where_they_are_used() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("Cargo.toml"),
            "[workspace]\nmembers = [\"op\", \"xtask\"]\n",
        )
        .unwrap();
        let mut alignment = Alignment::default();
        alignment.host.insert(
            "registry+https://github.com/rust-lang/crates.io-index#syn@3.0.9".into(),
            BTreeSet::from(["extra-traits".to_string()]),
        );
        alignment.write(dir.path()).unwrap();
        let root = std::fs::read_to_string(dir.path().join("Cargo.toml")).unwrap();
        assert!(
            root.contains("members = [\"feature-alignment\", \"op\""),
            "{root}"
        );
        let manifest =
            std::fs::read_to_string(dir.path().join(ALIGNMENT).join("Cargo.toml")).unwrap();
        assert!(
            manifest.contains("[build-dependencies]\nsyn-3-0-9 = { package = \"syn\", version = \"=3.0.9\", default-features = false, features = [\"extra-traits\"] }"),
            "{manifest}"
        );
    }
}
