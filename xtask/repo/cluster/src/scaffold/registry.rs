//! A cargo registry on the local disk serving the packaged crates, as crates.io would serve
//! them once published: a git index (one line of JSON per version, the format cargo reads from
//! any registry) and the `.crate` files, downloaded through `file://` URLs.
//!
//! Why a registry and not a directory source replacing crates.io (the way this step first
//! went): a replaced source unpacks every crates.io dependency in another directory, and cargo
//! rebuilds a crate whose source path changed ("the path to the source changed"), so the new
//! project compiled its whole dependency tree again. With the packages in a registry of their
//! own and `[patch.crates-io]` naming it, the crates.io dependencies stay where the workspace
//! built them from, and only operator-rs's crates (from their packages) and the project's own
//! are compiled.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context as _, Result, bail};
use operator_xtask_cluster::image::oci;
use serde_json::{Value, json};

/// The index of crates.io, as another registry's index names it in a dependency.
const CRATES_IO: &str = "https://github.com/rust-lang/crates.io-index";

/// A packaged crate: its name, version and `.crate` file.
#[derive(Debug)]
pub struct Package {
    pub name: String,
    pub version: String,
    pub file: PathBuf,
}

/// Writes the registry under `dir` (`dir/index`, a git repository, and `dir/crates`) for
/// `packages`, whose manifests `metadata` (`cargo metadata --no-deps` of the workspace)
/// describes; returns the index's `file://` URL.
pub fn write(dir: &Path, packages: &[Package], metadata: &Value) -> Result<String> {
    let index = dir.join("index");
    let crates = dir.join("crates");
    std::fs::create_dir_all(&index).with_context(|| format!("creating {}", index.display()))?;
    std::fs::create_dir_all(&crates).with_context(|| format!("creating {}", crates.display()))?;
    let names: Vec<&str> = packages.iter().map(|p| p.name.as_str()).collect();
    for package in packages {
        let manifest = metadata["packages"]
            .as_array()
            .and_then(|all| {
                all.iter().find(|p| {
                    p["name"] == package.name.as_str() && p["version"] == package.version.as_str()
                })
            })
            .with_context(|| {
                format!(
                    "cargo metadata does not describe {} {}",
                    package.name, package.version
                )
            })?;
        let bytes = std::fs::read(&package.file)
            .with_context(|| format!("reading {}", package.file.display()))?;
        let digest = oci::digest(&bytes);
        let line = index_line(manifest, oci::hex(&digest), &names)?;
        let at = index.join(index_path(&package.name));
        std::fs::create_dir_all(at.parent().context("an index path without a directory")?)
            .with_context(|| format!("creating the index directory of {}", package.name))?;
        std::fs::write(&at, format!("{line}\n"))
            .with_context(|| format!("writing {}", at.display()))?;
        let copy = crates.join(format!("{}-{}.crate", package.name, package.version));
        std::fs::write(&copy, &bytes).with_context(|| format!("writing {}", copy.display()))?;
    }
    let config = json!({ "dl": format!("{}/{{crate}}-{{version}}.crate", file_url(&crates)) });
    std::fs::write(index.join("config.json"), config.to_string())
        .context("writing the index's config.json")?;
    // cargo reads an index over file:// as a git repository, at its HEAD commit.
    for args in [
        &["init", "--quiet"][..],
        &["add", "--all"],
        &[
            "-c",
            "user.name=operator-rs",
            "-c",
            "user.email=scaffold-test@localhost",
            "commit",
            "--quiet",
            "--message",
            "the packaged crates",
        ],
    ] {
        let status = Command::new("git")
            .args(args)
            .current_dir(&index)
            .status()
            .context("starting git")?;
        if !status.success() {
            bail!(
                "git {} in {} failed ({status})",
                args.join(" "),
                index.display()
            );
        }
    }
    Ok(file_url(&index))
}

/// Where the index keeps a crate's lines: by the length of its name, then its first letters.
fn index_path(name: &str) -> String {
    let name = name.to_lowercase();
    match name.len() {
        1 => format!("1/{name}"),
        2 => format!("2/{name}"),
        3 => format!("3/{}/{name}", &name[..1]),
        _ => format!("{}/{}/{name}", &name[..2], &name[2..4]),
    }
}

/// The index line of one version: its dependencies as the packaged manifest declares them
/// (`cargo metadata` of the workspace member; a path dependency on another packaged crate is a
/// dependency in this registry, a crates.io one names crates.io), its features and checksum.
/// Dev-dependencies are left out: cargo never resolves them for a dependent.
fn index_line(manifest: &Value, checksum: &str, packaged: &[&str]) -> Result<String> {
    let name = manifest["name"]
        .as_str()
        .context("a package without a name")?;
    let mut deps = Vec::new();
    for dep in manifest["dependencies"].as_array().into_iter().flatten() {
        let kind = dep["kind"].as_str().unwrap_or("normal");
        if kind == "dev" {
            continue;
        }
        let real = dep["name"]
            .as_str()
            .context("a dependency without a name")?;
        let registry = match dep["source"].as_str() {
            Some(source) if source == format!("registry+{CRATES_IO}") => Some(CRATES_IO),
            None if packaged.contains(&real) => None,
            other => bail!(
                "{name} depends on {real} from {}: only crates.io and the packaged crates can be served",
                other.unwrap_or("a path outside the packaged crates")
            ),
        };
        let mut entry = json!({
            "name": dep["rename"].as_str().unwrap_or(real),
            "req": dep["req"],
            "features": dep["features"],
            "optional": dep["optional"],
            "default_features": dep["uses_default_features"],
            "target": dep["target"],
            "kind": kind,
        });
        if dep["rename"].is_string() {
            entry["package"] = json!(real);
        }
        if let Some(registry) = registry {
            entry["registry"] = json!(registry);
        }
        deps.push(entry);
    }
    // Features written with `dep:` or `?/` go where cargo since 1.60 reads them.
    let (mut features, mut features2) = (BTreeMap::new(), BTreeMap::new());
    for (feature, enables) in manifest["features"].as_object().into_iter().flatten() {
        let new_syntax = enables.as_array().into_iter().flatten().any(|e| {
            e.as_str()
                .is_some_and(|e| e.starts_with("dep:") || e.contains("?/"))
        });
        if new_syntax {
            features2.insert(feature.clone(), enables.clone());
        } else {
            features.insert(feature.clone(), enables.clone());
        }
    }
    let mut line = json!({
        "name": name,
        "vers": manifest["version"],
        "deps": deps,
        "cksum": checksum,
        "features": features,
        "yanked": false,
        "links": manifest["links"],
        "rust_version": manifest["rust_version"],
    });
    if !features2.is_empty() {
        line["features2"] = json!(features2);
        line["v"] = json!(2);
    }
    Ok(line.to_string())
}

fn file_url(path: &Path) -> String {
    format!("file://{}", path.display())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_paths_follow_the_length_of_the_name() {
        assert_eq!(index_path("a"), "1/a");
        assert_eq!(index_path("ab"), "2/ab");
        assert_eq!(index_path("abc"), "3/a/abc");
        assert_eq!(index_path("Operator-Gen"), "op/er/operator-gen");
    }

    #[test]
    fn a_line_names_crates_io_for_its_dependencies_there_and_nothing_for_packaged_ones() {
        let manifest = json!({
            "name": "operator-runtime",
            "version": "0.1.0",
            "links": null,
            "rust_version": "1.89",
            "features": {"default": ["webhook"], "webhook": ["dep:hyper"], "plain": []},
            "dependencies": [
                {"name": "operator-gen", "source": null, "req": "=0.1.0", "kind": null,
                 "rename": null, "optional": false, "uses_default_features": false,
                 "features": [], "target": null},
                {"name": "operator-envtest", "source": null, "req": "=0.1.0", "kind": null,
                 "rename": "envtest", "optional": false, "uses_default_features": true,
                 "features": [], "target": null},
                {"name": "hyper", "source": "registry+https://github.com/rust-lang/crates.io-index",
                 "req": "^1", "kind": null, "rename": null, "optional": true,
                 "uses_default_features": true, "features": ["server"], "target": null},
                {"name": "tempfile", "source": "registry+https://github.com/rust-lang/crates.io-index",
                 "req": "^3", "kind": "dev", "rename": null, "optional": false,
                 "uses_default_features": true, "features": [], "target": null}
            ]
        });
        let line: Value = serde_json::from_str(
            &index_line(&manifest, "00", &["operator-gen", "operator-envtest"]).unwrap(),
        )
        .unwrap();
        let deps = line["deps"].as_array().unwrap();
        assert_eq!(deps.len(), 3, "the dev-dependency is left out: {deps:?}");
        assert!(deps[0].get("registry").is_none());
        assert_eq!(deps[1]["name"], "envtest");
        assert_eq!(deps[1]["package"], "operator-envtest");
        assert_eq!(deps[2]["registry"], CRATES_IO);
        assert_eq!(
            line["features"],
            json!({"default": ["webhook"], "plain": []})
        );
        assert_eq!(line["features2"], json!({"webhook": ["dep:hyper"]}));
        assert_eq!(line["v"], 2);
    }

    #[test]
    fn a_path_dependency_outside_the_packages_is_refused() {
        let manifest = json!({
            "name": "x", "version": "0.1.0", "features": {},
            "dependencies": [{"name": "local-only", "source": null, "req": "*", "kind": null,
                "rename": null, "optional": false, "uses_default_features": true,
                "features": [], "target": null}]
        });
        let err = index_line(&manifest, "00", &[]).unwrap_err().to_string();
        assert!(err.contains("x depends on local-only"), "{err}");
    }
}
