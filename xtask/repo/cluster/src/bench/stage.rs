//! Where the floors and the runs take place: the shared cluster or a control plane started
//! for each ([`Venue`], [`Stage`]), and each one's namespace, made fresh and deleted after.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::{Context as _, Result};
use k8s_openapi::api::core::v1::Namespace;
use kube::api::{Api, DeleteParams, ObjectMeta, PostParams};
use kube::core::DynamicObject;
use operator_xtask::target_dir;
use operator_xtask_cluster::cluster::{self, Target};

use super::converge::merge_all;
use super::procfs::PlaneCpu;

/// Where the floors and the runs take place.
pub(super) enum Venue {
    /// The target cluster, shared by every run; each cleans up after itself.
    Shared {
        cluster: cluster::Connected,
        plane: Option<PlaneCpu>,
    },
    /// A local control plane started in `dir` for each floor and run, and stopped after it
    /// (`--fresh-plane`).
    Fresh { dir: PathBuf },
}

impl Venue {
    /// The cluster for the floor or run `tag`: the shared one, or a control plane started
    /// for it with the CRDs installed.
    pub(super) async fn enter(&self, tag: &str) -> Result<Stage> {
        let dir = match self {
            Venue::Shared { cluster, plane } => {
                return Ok(Stage {
                    cluster: cluster.clone(),
                    plane: plane.clone(),
                    own: None,
                    tag: tag.to_string(),
                });
            }
            Venue::Fresh { dir } => dir,
        };
        // One a crashed run left behind would be reused by `start`, not fresh.
        envtest::plane::stop(dir)
            .await
            .with_context(|| format!("stopping the control plane left in {}", dir.display()))?;
        eprintln!("{tag} starting a control plane of its own");
        let started = Instant::now();
        let own = envtest::plane::start(&envtest::Options::new(dir))
            .await?
            .with_context(|| format!("no control plane started in {}", dir.display()))?;
        let stage = async {
            let target = Target {
                kubeconfig: Some(own.kubeconfig().to_path_buf()),
            };
            let cluster = cluster::connect(&target).await?;
            cluster::install_crds(&cluster.client).await?;
            anyhow::Ok(cluster)
        }
        .await;
        let cluster = match stage {
            Ok(cluster) => cluster,
            Err(err) => {
                let _ = own.stop().await;
                return Err(err);
            }
        };
        eprintln!(
            "{tag} control plane up in {:.1} s at {}",
            started.elapsed().as_secs_f64(),
            own.state.server
        );
        Ok(Stage {
            plane: PlaneCpu::of_state(&own.state),
            cluster,
            own: Some(own),
            tag: tag.to_string(),
        })
    }
}

/// The cluster one floor or run takes place on.
pub(super) struct Stage {
    pub(super) cluster: cluster::Connected,
    pub(super) plane: Option<PlaneCpu>,
    /// The control plane started for this floor or run alone, stopped by [`Stage::leave`].
    pub(super) own: Option<envtest::ControlPlane>,
    /// The floor's or run's tag, for messages and the name of its plane's kept logs.
    pub(super) tag: String,
}

impl Stage {
    /// Whether the control plane is this stage's own, to be thrown away after it (so there is
    /// nothing to clean up).
    pub(super) fn is_own(&self) -> bool {
        self.own.is_some()
    }

    /// Ends the stage once its work has `result`: stops its own control plane, if it has
    /// one, whether the work succeeded or not.
    /// Its components' logs are kept first (stopping removes the plane's directory), beside
    /// the operators' logs.
    pub(super) async fn leave<T>(self, result: Result<T>) -> Result<T> {
        if let Some(own) = self.own {
            match keep_plane_logs(&own.state, &self.tag) {
                Ok(kept) => eprintln!("{} the control plane's logs: {}", self.tag, kept.display()),
                Err(err) => eprintln!(
                    "{} the control plane's logs were not kept: {err:#}",
                    self.tag
                ),
            }
            let stopped = own.stop().await;
            if result.is_ok() {
                stopped.context("stopping the control plane")?;
            }
        }
        result
    }
}

/// Copies the logs of the control plane `state` records to
/// `target/bench-operator/<seconds since the epoch>-<slug of tag>-plane/`; returns that
/// directory.
fn keep_plane_logs(state: &envtest::State, tag: &str) -> Result<PathBuf> {
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH)?;
    let kept =
        target_dir()?
            .join("bench-operator")
            .join(format!("{}-{}-plane", now.as_secs(), slug(tag)));
    std::fs::create_dir_all(&kept).with_context(|| format!("creating {}", kept.display()))?;
    let logs = state.state_dir.join("logs");
    for entry in std::fs::read_dir(&logs).with_context(|| format!("reading {}", logs.display()))? {
        let entry = entry?;
        if entry.file_type()?.is_file() {
            std::fs::copy(entry.path(), kept.join(entry.file_name()))
                .with_context(|| format!("copying {}", entry.path().display()))?;
        }
    }
    Ok(kept)
}

/// A tag as a file name: "[floor 1000, same work without an operator]" is
/// "floor-1000-same-work-without-an-operator".
fn slug(tag: &str) -> String {
    tag.chars()
        .filter_map(|c| match c {
            'a'..='z' | 'A'..='Z' | '0'..='9' => Some(c.to_ascii_lowercase()),
            ' ' | ',' | '-' => Some('-'),
            _ => None,
        })
        .collect::<String>()
        .split('-')
        .filter(|part| !part.is_empty())
        .collect::<Vec<_>>()
        .join("-")
}

/// A new namespace named `prefix` and the time.
pub(super) async fn fresh_namespace(client: &kube::Client, prefix: &str) -> Result<String> {
    let ns = format!(
        "{prefix}-{}",
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)?
            .as_secs()
    );
    let namespace = Namespace {
        metadata: ObjectMeta {
            name: Some(ns.clone()),
            ..Default::default()
        },
        ..Default::default()
    };
    Api::<Namespace>::all(client.clone())
        .create(&PostParams::default(), &namespace)
        .await?;
    Ok(ns)
}

/// Removes the finalizers of the `count` Memcacheds in `ns` and deletes the namespace, waiting
/// until it is gone; nothing on a plane of the stage's own, which is stopped whole after it.
pub(super) async fn clean_up(
    stage: &Stage,
    mcs: &Api<DynamicObject>,
    count: usize,
    ns: &str,
    tag: &str,
) -> Result<()> {
    if stage.is_own() {
        return Ok(());
    }
    eprintln!("{tag} cleaning up");
    merge_all(
        mcs,
        count,
        serde_json::json!({ "metadata": { "finalizers": null } }),
    )
    .await
    .context("removing finalizers")?;
    let cleanup = Instant::now();
    delete_namespace(&stage.cluster.client, ns, tag).await?;
    eprintln!(
        "{tag} namespace gone in {:.1} s",
        cleanup.elapsed().as_secs_f64()
    );
    Ok(())
}

/// Deletes `ns` and waits until it is gone (five minutes at most), so that one run's garbage
/// collection does not load the API server during the next.
pub(super) async fn delete_namespace(client: &kube::Client, ns: &str, tag: &str) -> Result<()> {
    let namespaces: Api<Namespace> = Api::all(client.clone());
    namespaces.delete(ns, &DeleteParams::background()).await?;
    let cleanup = Instant::now();
    while namespaces.get_opt(ns).await?.is_some() {
        if cleanup.elapsed() > Duration::from_secs(300) {
            eprintln!("{tag} namespace {ns} still there after 300 s; going on");
            break;
        }
        tokio::time::sleep(Duration::from_secs(2)).await;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tag_becomes_a_file_name() {
        assert_eq!(
            slug("[floor 1000, same work without an operator]"),
            "floor-1000-same-work-without-an-operator"
        );
        assert_eq!(slug("[go 1000 concurrency 4]"), "go-1000-concurrency-4");
        assert_eq!(slug("[ours 30 defaults]"), "ours-30-defaults");
    }
}
