//! The chart on disk: what differs from the generated one (`--check`), and writing it in
//! one step.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{Context as _, Result};

use super::Chart;

/// How the chart at `dir` differs from `chart`: files changed, missing, or no longer
/// generated; each with `shown` (the chart's directory as the user names it) in its path.
pub fn compare(
    chart: &Chart,
    dir: &Path,
    shown: &Path,
) -> Result<Vec<operator_gen::output::Drift>> {
    use operator_gen::output::Drift;
    let mut drift = Vec::new();
    let on_disk = files_under(dir)?;
    for (path, generated) in &chart.files {
        let shown_path = shown.join(path);
        match on_disk.get(path) {
            None => drift.push(Drift::Missing { path: shown_path }),
            Some(committed) if committed != generated => drift.push(Drift::Changed {
                path: shown_path,
                committed: committed.clone(),
                generated: generated.clone(),
            }),
            Some(_) => {}
        }
    }
    for path in on_disk.keys().filter(|p| !chart.files.contains_key(*p)) {
        drift.push(Drift::Stale {
            path: shown.join(path),
        });
    }
    Ok(drift)
}

/// Every file under `dir` (none when it does not exist), by its path relative to `dir`.
fn files_under(dir: &Path) -> Result<BTreeMap<String, String>> {
    fn walk(dir: &Path, rel: &str, out: &mut BTreeMap<String, String>) -> Result<()> {
        let entries = match std::fs::read_dir(dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && rel.is_empty() => {
                return Ok(());
            }
            Err(e) => return Err(e).with_context(|| format!("reading {}", dir.display())),
        };
        for entry in entries {
            let entry = entry.with_context(|| format!("reading {}", dir.display()))?;
            let name = entry.file_name().to_string_lossy().into_owned();
            let path = if rel.is_empty() {
                name
            } else {
                format!("{rel}/{name}")
            };
            if entry.path().is_dir() {
                walk(&entry.path(), &path, out)?;
            } else {
                let text = std::fs::read_to_string(entry.path())
                    .with_context(|| format!("reading {}", entry.path().display()))?;
                out.insert(path, text);
            }
        }
        Ok(())
    }
    let mut out = BTreeMap::new();
    walk(dir, "", &mut out)?;
    Ok(out)
}

/// Writes the chart to `dir`, replacing what was there: the whole chart goes to a directory
/// beside it first and is renamed into place, so a failure leaves the old chart whole.
pub fn write(chart: &Chart, dir: &Path) -> Result<()> {
    let parent = dir
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::create_dir_all(parent).with_context(|| format!("creating {}", parent.display()))?;
    let name = dir
        .file_name()
        .with_context(|| format!("{} names no directory", dir.display()))?
        .to_string_lossy()
        .into_owned();
    let staging = tempfile::Builder::new()
        .prefix(&format!(".{name}.partial-"))
        .tempdir_in(parent)
        .with_context(|| format!("making a staging directory in {}", parent.display()))?;
    for (path, text) in &chart.files {
        let file = staging.path().join(path);
        if let Some(d) = file.parent() {
            std::fs::create_dir_all(d).with_context(|| format!("creating {}", d.display()))?;
        }
        std::fs::write(&file, text).with_context(|| format!("writing {}", file.display()))?;
    }
    let staged = staging.keep();
    // Directories from tempfile are 0700; a chart is as readable as the rest of the tree.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(&staged, std::fs::Permissions::from_mode(0o755))
            .with_context(|| format!("setting the mode of {}", staged.display()))?;
    }
    let old = parent.join(format!(".{name}.old-{}", std::process::id()));
    let had_old = dir.exists();
    if had_old {
        std::fs::rename(dir, &old).with_context(|| format!("moving {} aside", dir.display()))?;
    }
    if let Err(e) = std::fs::rename(&staged, dir) {
        if had_old {
            let _ = std::fs::rename(&old, dir);
        }
        let _ = std::fs::remove_dir_all(&staged);
        return Err(e).with_context(|| format!("moving the new chart to {}", dir.display()));
    }
    if had_old {
        std::fs::remove_dir_all(&old)
            .with_context(|| format!("removing the old chart at {}", old.display()))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::helm::fixture::chart;

    /// `--check` finds a changed, a missing and an extra file; writing replaces the chart.
    #[test]
    fn the_check_catches_a_stale_chart() {
        let chart = chart();
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("dist/chart");
        write(&chart, &out).unwrap();
        assert!(
            compare(&chart, &out, Path::new("dist/chart"))
                .unwrap()
                .is_empty()
        );

        let values = out.join("values.yaml");
        let edited = std::fs::read_to_string(&values)
            .unwrap()
            .replace("replicas: 1", "replicas: 3");
        std::fs::write(&values, edited).unwrap();
        std::fs::remove_file(out.join("templates/crd/widgets.example.com.yaml")).unwrap();
        std::fs::write(out.join("templates/extra.yaml"), "kind: X\n").unwrap();
        let drift: Vec<String> = compare(&chart, &out, Path::new("dist/chart"))
            .unwrap()
            .iter()
            .map(|d| d.to_string())
            .collect();
        assert_eq!(drift.len(), 3, "{drift:#?}");
        assert!(
            drift[0].starts_with("dist/chart/templates/crd/widgets.example.com.yaml is missing")
        );
        assert!(
            drift[1].starts_with("dist/chart/values.yaml is stale:"),
            "{}",
            drift[1]
        );
        assert!(
            drift[1].contains("-  replicas: 3\n+  replicas: 1\n"),
            "{}",
            drift[1]
        );
        assert!(drift[2].starts_with("dist/chart/templates/extra.yaml is no longer generated"));

        write(&chart, &out).unwrap();
        assert!(
            compare(&chart, &out, Path::new("dist/chart"))
                .unwrap()
                .is_empty()
        );
        let left: Vec<_> = std::fs::read_dir(dir.path().join("dist"))
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(left, ["chart"], "staging or old directories left behind");
    }
}
