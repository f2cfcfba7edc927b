//! The crates that tests build outside the workspace, in one shared target directory
//! ([`target_dir`]): the derive tests' cases (operator-derive-tests' `json_schema` and
//! `one_error_per_mistake`) and the readers of `crd_corpus` and `wire_contract`.
//!
//! cargo reuses a build only when the whole unit is the same: the package, its features,
//! its profile and every unit below it. Each of these crates resolves features over its own
//! dependencies, so each used to build its own k8s-openapi, kube-core, serde and serde_json
//! (serde's `alloc` on in one crate and off in another; syn's features, and with them
//! serde_derive and so serde, set by operator-derive in some crates and not in others).
//! Every crate built here starts from [`shared_dependencies`] and [`PROFILES`], so that tree
//! is built once, whichever test builds first; what a crate adds on top is its own.

use std::path::{Path, PathBuf};

/// The workspace's root directory.
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the conformance crate is in the workspace")
        .to_path_buf()
}

/// The target directory the crates are built in (trybuild's, where the derive's UI cases
/// are built too).
pub fn target_dir() -> PathBuf {
    workspace_root().join("target/tests/trybuild")
}

/// The profile of every crate built here: unoptimised and without debug info, the cheapest
/// build, since what runs here is small (a case's `main`, a reader of a few objects). With
/// the workspace's (dependencies at `opt-level = 1`, which here includes operator-gen, a
/// path dependency) k8s-openapi took 143 s instead of 38 and operator-gen 223 s instead of
/// 36 in one run on the two-core machine. trybuild's project gets the same profile
/// ([`profile_configs`]).
pub const PROFILES: &str = "[profile.dev]\ndebug = false\n";

/// [`PROFILES`] as cargo `--config` settings (`profile.dev.debug = false`), for
/// a project whose manifest is not written here (trybuild's), which otherwise builds with
/// cargo's default dev profile (full debug info).
pub fn profile_configs() -> Vec<String> {
    profile_configs_of(PROFILES)
}

/// The settings of the TOML tables in `text`, each as `table.key = value`.
fn profile_configs_of(text: &str) -> Vec<String> {
    let mut table = String::new();
    let mut settings = Vec::new();
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
        if let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            table = name.to_string();
        } else {
            settings.push(format!("{table}.{line}"));
        }
    }
    settings
}

/// The `[workspace.dependencies]` line of `name` in the workspace's manifest (its text).
pub fn dependency_line(workspace_manifest: &str, name: &str) -> String {
    workspace_manifest
        .lines()
        .find(|l| l.starts_with(&format!("{name} = ")))
        .unwrap_or_else(|| panic!("{name} is a workspace dependency"))
        .to_string()
}

/// The manifest of a crate built here: `package` with `dependencies` (one line each), then
/// `tables` (whole TOML tables, such as `[package.metadata.operator-gen]`), a workspace of
/// its own and [`PROFILES`].
pub fn manifest(package: &str, dependencies: &[String], tables: &str) -> String {
    format!(
        "[package]\nname = \"{package}\"\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n\
         [dependencies]\n{}\n\n{tables}\n[workspace]\n\n{PROFILES}",
        dependencies.join("\n")
    )
}

/// `dependency_line` of `name` with the feature `alloc` added.
fn with_alloc(workspace_manifest: &str, name: &str) -> String {
    let line = dependency_line(workspace_manifest, name);
    let (key, value) = line.split_once(" = ").expect("a dependency line");
    if value.contains("\"alloc\"") {
        line
    } else if let Some(version) = value.strip_prefix('"') {
        format!("{key} = {{ version = \"{version}, features = [\"alloc\"] }}")
    } else if value.contains("features = [") {
        line.replacen("features = [", "features = [\"alloc\", ", 1)
    } else {
        let inner = value.trim_end().strip_suffix('}').expect("an inline table");
        format!("{key} = {}, features = [\"alloc\"] }}", inner.trim_end())
    }
}

/// The version of kube in the workspace's manifest.
pub fn kube_version(workspace_manifest: &str) -> String {
    let line = dependency_line(workspace_manifest, "kube");
    line.split("version = \"")
        .nth(1)
        .and_then(|v| v.split('"').next())
        .expect("kube's version")
        .to_string()
}

/// The dependency lines every crate built here starts from: operator-derive (by path), and
/// k8s-openapi, serde and serde_json with `alloc` (schemars, which some cases use, turns it
/// on), and kube without its client and runtime (the derives' code uses `kube::core`), all
/// at the workspace's versions. A crate that does not use the derive still depends on it:
/// it sets the host's syn features, on which serde's derive, and so serde, depend.
pub fn shared_dependencies(workspace_manifest: &str) -> Vec<String> {
    let derive = workspace_root().join("operator-derive");
    vec![
        format!(
            "operator-derive = {{ path = {:?} }}",
            derive.display().to_string()
        ),
        dependency_line(workspace_manifest, "k8s-openapi"),
        with_alloc(workspace_manifest, "serde"),
        with_alloc(workspace_manifest, "serde_json"),
        format!(
            "kube = {{ version = \"{}\", default-features = false }}",
            kube_version(workspace_manifest)
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alloc_is_added_to_each_form_of_dependency_line() {
        let manifest =
            "a = \"1\"\nb = { version = \"2\", features = [\"x\"] }\nc = { version = \"3\" }\n";
        assert_eq!(
            with_alloc(manifest, "a"),
            "a = { version = \"1\", features = [\"alloc\"] }"
        );
        assert_eq!(
            with_alloc(manifest, "b"),
            "b = { version = \"2\", features = [\"alloc\", \"x\"] }"
        );
        assert_eq!(
            with_alloc(manifest, "c"),
            "c = { version = \"3\", features = [\"alloc\"] }"
        );
        let already = "d = { version = \"4\", features = [\"alloc\", \"y\"] }";
        assert_eq!(with_alloc(already, "d"), already);
    }

    #[test]
    fn the_profiles_as_config_settings() {
        assert_eq!(profile_configs(), ["profile.dev.debug = false"]);
        let mut configs = profile_configs_of("[a]\nb = 1\n\n[a.package.\"*\"]\nc = \"d\"\n");
        configs.sort();
        assert_eq!(configs, ["a.b = 1", "a.package.\"*\".c = \"d\""]);
    }

    #[test]
    fn a_manifest_has_its_dependencies_tables_own_workspace_and_profiles() {
        let text = manifest(
            "case",
            &["a = \"1\"".to_string(), "b = \"2\"".to_string()],
            "[package.metadata.x]\ny = true\n",
        );
        assert_eq!(
            text,
            format!(
                "[package]\nname = \"case\"\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n\
                 [dependencies]\na = \"1\"\nb = \"2\"\n\n[package.metadata.x]\ny = true\n\n[workspace]\n\n{PROFILES}"
            )
        );
    }

    #[test]
    fn every_crate_starts_from_the_workspace_versions() {
        let manifest = std::fs::read_to_string(workspace_root().join("Cargo.toml")).unwrap();
        let deps = shared_dependencies(&manifest);
        assert!(
            deps[0].starts_with("operator-derive = { path = "),
            "{deps:?}"
        );
        assert!(deps.iter().any(|d| d.starts_with("k8s-openapi = ")));
        let kube = deps.iter().find(|d| d.starts_with("kube = ")).unwrap();
        assert!(kube.contains("default-features = false"), "{kube}");
        assert!(kube.contains(&format!("\"{}\"", kube_version(&manifest))));
    }
}
