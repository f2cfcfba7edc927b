//! The manager's scope: cluster-wide (the default) or its own namespace only (`init
//! --namespaced`, `edit --namespaced`; kubebuilder's namespace-scoped layout).
//!
//! The two layouts differ in the files the scaffold owns by a few blocks of text, listed in
//! [`SWAPS`]: the manager's binding (a ClusterRoleBinding to the ClusterRole, or a
//! RoleBinding to the Role in the operator's namespace), the Deployment's `WATCH_NAMESPACE`
//! (the pod's own namespace), and `namespaced = true` in `PROJECT.toml`, which makes `cargo
//! xtask manifests` put the `#[rbac]` markers' rules into a Role in that namespace. `init
//! --namespaced` is `init` with these swaps made, and `edit` makes them (either way) in an
//! existing project: each block must be found as the scaffold wrote it (or already swapped),
//! else nothing is written and the file and the lines are named.

use std::path::Path;

use anyhow::{Result, bail};

use crate::plan::Plan;

/// One block of a scaffolded file as each layout has it.
#[derive(Debug)]
struct Swap {
    /// The file, relative to the project.
    file: &'static str,
    /// What a cluster-scoped project has.
    cluster: &'static str,
    /// What a namespace-scoped project has instead.
    namespaced: &'static str,
}

/// Every block the two layouts differ in, outside `PROJECT.toml`.
const SWAPS: &[Swap] = &[
    Swap {
        file: "config/rbac/role_binding.yaml",
        cluster: "kind: ClusterRoleBinding\n",
        namespaced: "kind: RoleBinding\n",
    },
    Swap {
        file: "config/rbac/role_binding.yaml",
        cluster: "  name: manager-rolebinding\nroleRef:\n  apiGroup: rbac.authorization.k8s.io\n  \
                  kind: ClusterRole\n  name: manager-role\n",
        namespaced: "  name: manager-rolebinding\n  namespace: system\nroleRef:\n  apiGroup: \
                     rbac.authorization.k8s.io\n  kind: Role\n  name: manager-role\n",
    },
    Swap {
        file: "config/manager/manager.yaml",
        cluster: "        - name: POD_NAME\n          valueFrom:\n            fieldRef:\n              \
                  fieldPath: metadata.name\n",
        namespaced: "        - name: POD_NAME\n          valueFrom:\n            fieldRef:\n              \
                     fieldPath: metadata.name\n        # A namespace-scoped manager: it watches \
                     only its own namespace, where its\n        # Role grants what the #[rbac] \
                     markers ask.\n        - name: WATCH_NAMESPACE\n          valueFrom:\n            \
                     fieldRef:\n              fieldPath: metadata.namespace\n",
    },
];

/// The lines `PROJECT.toml` gets in a namespace-scoped project, before its first table.
const PROJECT_LINES: &str = "# The manager is namespace-scoped: the #[rbac] markers make a Role \
in its namespace, and it\n# watches only that namespace (`cargo operator edit --cluster-scoped` \
makes it cluster-wide).\nnamespaced = true\n";

/// The scaffold's text of `file` (`text`, in the cluster-scoped layout) in the layout
/// `namespaced` says; for `init`.
pub fn init_text(file: &str, text: &str, namespaced: bool) -> Result<String> {
    if !namespaced {
        return Ok(text.to_string());
    }
    if file == operator_xtask::project::FILE {
        return project_file(Path::new(file), text, true);
    }
    swap_file(Path::new(file), text, true)
}

/// Adds to `plan` the edits that bring the scaffold's files of the project at `root` to the
/// layout `namespaced` says; refuses (naming the file) when a block is neither as the
/// scaffold wrote it nor swapped already.
pub fn plan_edit(plan: &mut Plan, namespaced: bool) -> Result<()> {
    let mut files: Vec<&str> = SWAPS.iter().map(|s| s.file).collect();
    files.dedup();
    for file in files {
        plan.edit(file, |text| swap_file(Path::new(file), text, namespaced))?;
    }
    let file = operator_xtask::project::FILE;
    plan.edit(file, |text| project_file(Path::new(file), text, namespaced))
}

/// `text` of `file` with its blocks in the layout `namespaced` says.
fn swap_file(file: &Path, text: &str, namespaced: bool) -> Result<String> {
    let mut text = text.to_string();
    for swap in SWAPS.iter().filter(|s| Path::new(s.file) == file) {
        let (from, to) = if namespaced {
            (swap.cluster, swap.namespaced)
        } else {
            (swap.namespaced, swap.cluster)
        };
        text = swap_block(file, &text, from, to)?;
    }
    Ok(text)
}

/// `text` with the block `from` replaced by `to`; as it is when it has `to` already. Blocks
/// are matched at line starts, and where one layout's block begins with the other's (the
/// Deployment's env keeps POD_NAME and adds WATCH_NAMESPACE), the longer one is taken.
fn swap_block(file: &Path, text: &str, from: &str, to: &str) -> Result<String> {
    let longer = if from.len() >= to.len() { from } else { to };
    let at_line_starts = |block: &str| -> Vec<usize> {
        let mut found = Vec::new();
        let mut at = 0;
        while let Some(i) = text[at..].find(block) {
            let start = at + i;
            let line_start = start == 0 || text.as_bytes()[start - 1] == b'\n';
            if line_start && (block == longer || !text[start..].starts_with(longer)) {
                found.push(start);
            }
            at = start + 1;
        }
        found
    };
    match (
        at_line_starts(from).as_slice(),
        at_line_starts(to).as_slice(),
    ) {
        ([], [_]) => Ok(text.to_string()),
        ([start], []) => Ok(format!(
            "{}{to}{}",
            &text[..*start],
            &text[start + from.len()..]
        )),
        _ => bail!(
            "{} is not as the scaffold wrote it: it should hold these lines once (they change \
             with the manager's scope)\n{}\nor, already changed, these\n{}\nPut them back, or \
             make the change by hand; nothing was written",
            file.display(),
            indent(from),
            indent(to)
        ),
    }
}

/// `PROJECT.toml`'s text with the manager's scope `namespaced`: the `namespaced = true` line
/// (with its comment) before the first table, or none. The result is read back to be sure.
fn project_file(file: &Path, text: &str, namespaced: bool) -> Result<String> {
    let value = |text: &str| -> Result<bool> {
        let parsed: toml::Table = toml::from_str(text)
            .map_err(|e| anyhow::anyhow!("{}: {}", file.display(), e.to_string().trim_end()))?;
        Ok(parsed
            .get("namespaced")
            .and_then(toml::Value::as_bool)
            .unwrap_or(false))
    };
    if value(text)? == namespaced {
        return Ok(text.to_string());
    }
    let out = if namespaced {
        let Some(at) = text.find("\n[") else {
            bail!(
                "{} has no table ([operator]); it is not as the scaffold wrote it",
                file.display()
            );
        };
        // After the last line of the top-level keys, before the blank lines above the table.
        let keys = text[..at + 1].trim_end_matches('\n').len() + 1;
        format!("{}{PROJECT_LINES}{}", &text[..keys], &text[keys..])
    } else {
        text.replacen(PROJECT_LINES, "", 1)
    };
    if value(&out).ok() != Some(namespaced) {
        bail!(
            "{} sets `namespaced = {}` in lines the scaffold did not write; set it to \
             {namespaced} (or remove it) by hand",
            file.display(),
            !namespaced
        );
    }
    Ok(out)
}

fn indent(block: &str) -> String {
    block
        .lines()
        .map(|l| format!("    | {l}"))
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    const BINDING: &str = include_str!("../templates/init/config/rbac/role_binding.yaml");
    const MANAGER: &str = include_str!("../templates/init/config/manager/manager.yaml");

    #[test]
    fn each_swap_goes_there_and_back_and_is_idempotent() {
        for (file, text) in [
            ("config/rbac/role_binding.yaml", BINDING),
            ("config/manager/manager.yaml", MANAGER),
        ] {
            let file = Path::new(file);
            let namespaced = swap_file(file, text, true).unwrap();
            assert_ne!(namespaced, text);
            assert_eq!(swap_file(file, &namespaced, true).unwrap(), namespaced);
            assert_eq!(swap_file(file, &namespaced, false).unwrap(), text);
            assert_eq!(swap_file(file, text, false).unwrap(), text);
        }
        let binding = swap_file(Path::new("config/rbac/role_binding.yaml"), BINDING, true).unwrap();
        assert!(
            binding.starts_with("apiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\n")
        );
        assert!(binding.contains("  namespace: system\nroleRef:\n"));
        assert!(binding.contains("  kind: Role\n  name: manager-role\n"));
        let manager = swap_file(Path::new("config/manager/manager.yaml"), MANAGER, true).unwrap();
        assert_eq!(manager.matches("- name: WATCH_NAMESPACE").count(), 1);
    }

    #[test]
    fn a_block_edited_beyond_recognition_is_refused_by_name() {
        let file = Path::new("config/rbac/role_binding.yaml");
        let edited = BINDING.replace("  kind: ClusterRole\n", "  kind: ClusterRole # mine\n");
        let err = swap_file(file, &edited, true).unwrap_err().to_string();
        assert!(
            err.starts_with("config/rbac/role_binding.yaml is not as the scaffold wrote it"),
            "{err}"
        );
        assert!(err.contains("    |   kind: ClusterRole\n"), "{err}");
        // Twice is as unclear as never.
        let twice = format!("{BINDING}---\n{BINDING}");
        assert!(swap_file(file, &twice, true).is_err());
    }

    #[test]
    fn the_project_file_gets_and_loses_its_namespaced_line() {
        let file = Path::new("PROJECT.toml");
        let text = "version = 1\ndomain = \"example.com\"\n\n[operator]\npath = \"x\"\n";
        let namespaced = project_file(file, text, true).unwrap();
        assert!(
            namespaced.contains("\nnamespaced = true\n\n[operator]\n"),
            "{namespaced}"
        );
        assert_eq!(project_file(file, &namespaced, true).unwrap(), namespaced);
        assert_eq!(project_file(file, &namespaced, false).unwrap(), text);
        // Set by hand: kept when it is what is asked, refused when it is to be undone.
        let by_hand = text.replace("\n\n[operator]", "\nnamespaced = true\n\n[operator]");
        assert_eq!(project_file(file, &by_hand, true).unwrap(), by_hand);
        let err = project_file(file, &by_hand, false).unwrap_err().to_string();
        assert!(err.contains("lines the scaffold did not write"), "{err}");
        let hand_false = text.replace("\n\n[operator]", "\nnamespaced = false\n\n[operator]");
        let err = project_file(file, &hand_false, true)
            .unwrap_err()
            .to_string();
        assert!(err.contains("sets `namespaced = false`"), "{err}");
    }
}
